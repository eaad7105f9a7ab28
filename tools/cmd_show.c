#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "diagram.h"
#include "encode.h"
#include "sfen.h"

static const char SHOW_HELP[] =
    "usage: tsume show [--mirror] [--canonical] <SFEN|file.kif|file.kifu|file.csa|file.sfen>\n"
    "Prints the position as a diagram, then its SFEN.\n"
    "  --mirror     reflect left-right (file f <-> 10-f) first\n"
    "  --canonical  take the canonical orientation (the smaller key of the position\n"
    "               and its mirror) and print the key in hex\n";

int cmd_show(int argc, char **argv) {
  bool mirror = false, canonical = false;
  int i = 1;
  for (; i < argc; i++) {
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
      fputs(SHOW_HELP, stdout);
      return 0;
    } else if (!strcmp(argv[i], "--mirror")) {
      mirror = true;
    } else if (!strcmp(argv[i], "--canonical")) {
      canonical = true;
    } else if (argv[i][0] == '-' && argv[i][1] == '-') {
      return cli_usage_error("show", "unknown option '%s'", argv[i]);
    } else {
      break;
    }
  }
  Position pos;
  TsError err;
  int used = 0;
  int rc = cli_load_position(argc - i, argv + i, &used, &pos, &err);
  if (rc) return cli_fail("show", &err);
  if (i + used != argc) return cli_usage_error("show", "unexpected argument '%s'", argv[i + used]);
  if (mirror) pos_mirror(&pos, &pos);
  uint8_t key[POS_CODE_MAX];
  size_t klen = 0;
  if (canonical) {
    bool m;
    klen = pos_canonical(&pos, key, &m);
    if (m) pos_mirror(&pos, &pos);
  }
  char diagram[DIAGRAM_MAX];
  diagram_write(&pos, diagram, sizeof diagram);
  fputs(diagram, stdout);
  char sfen[SFEN_MAX];
  sfen_write(&pos, sfen, sizeof sfen);
  printf("sfen %s\n", sfen);
  if (canonical) {
    printf("key ");
    for (size_t k = 0; k < klen; k++) printf("%02x", key[k]);
    printf("\n");
  }
  return 0;
}
