#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "movegen.h"
#include "sfen.h"

static const char PERFT_HELP[] =
    "usage: tsume perft [--divide] [--no-bulk] --depth N <SFEN|file>\n"
    "Counts the leaf nodes of the legal-move tree of depth N (every legal move,\n"
    "non-promotions included). Prints 'nodes <N>' as the last line on stdout and\n"
    "the time and nodes/s on stderr. --divide prints the count below each root move.\n"
    "The last ply is counted from the move list without playing it (bulk counting)\n"
    "unless --no-bulk is given.\n";

int cmd_perft(int argc, char **argv) {
  uint64_t depth = 0;
  bool divide = false, bulk = true, have_depth = false;
  static const struct option LONG[] = {{"help", no_argument, NULL, 'h'},
                                       {"divide", no_argument, NULL, 'd'},
                                       {"no-bulk", no_argument, NULL, 'b'},
                                       {"depth", required_argument, NULL, 'D'},
                                       {NULL, 0, NULL, 0}};
  optind = 1;
  opterr = 0;
  for (int c; (c = getopt_long(argc, argv, ":h", LONG, NULL)) != -1;) {
    switch (c) {
    case 'h': fputs(PERFT_HELP, stdout); return 0;
    case 'd': divide = true; break;
    case 'b': bulk = false; break;
    case 'D':
      if (!cli_parse_u64(optarg, &depth) || depth > 20)
        return cli_usage_error("perft", "--depth needs a number from 0 to 20");
      have_depth = true;
      break;
    case ':':
      if (!strcmp(argv[optind - 1], "--depth")) return cli_usage_error("perft", "--depth needs a number from 0 to 20");
      return cli_getopt_error("perft", c, argv);
    default: return cli_getopt_error("perft", c, argv);
    }
  }
  int i = optind;
  if (!have_depth) return cli_usage_error("perft", "missing --depth N");
  Position pos;
  TsError err;
  int used = 0;
  int rc = cli_load_position(argc - i, argv + i, &used, &pos, &err);
  if (rc) return cli_fail("perft", &err);
  if (i + used != argc) return cli_usage_error("perft", "unexpected argument '%s'", argv[i + used]);
  uint64_t t0 = cli_now_ms();
  uint64_t total = 0;
  if (divide && depth >= 1) {
    MoveList l;
    movegen_legal(&pos, &l);
    for (int k = 0; k < l.size; k++) {
      Undo u;
      char mv[8];
      pos_do_move(&pos, l.moves[k], &u);
      uint64_t n = perft(&pos, (int)depth - 1, bulk);
      pos_undo_move(&pos, l.moves[k], &u);
      usi_move_write(l.moves[k], mv);
      printf("%s %llu\n", mv, (unsigned long long)n);
      total += n;
    }
  } else {
    total = perft(&pos, (int)depth, bulk);
  }
  uint64_t ms = cli_now_ms() - t0;
  fprintf(stderr, "time %llu ms, %.0f nodes/s (%s)\n", (unsigned long long)ms,
          ms ? (double)total * 1000.0 / (double)ms : 0.0, bulk ? "bulk counting at the last ply" : "no bulk counting");
  printf("nodes %llu\n", (unsigned long long)total);
  return 0;
}
