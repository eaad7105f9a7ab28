#include <stdio.h>
int cmd_usi(int argc, char **argv) { (void)argc; (void)argv; return 2; }
