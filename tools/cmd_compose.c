/*
 * tsume compose - placeholder until the composer loop is wired.
 */
#include "cli.h"

int cmd_compose(int argc, char **argv) {
  (void)argc;
  (void)argv;
  return cli_usage_error("compose", "not available");
}
