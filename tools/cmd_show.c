/*
 * cmd_show.c - `tsume show`: a position as a text diagram and its SFEN, or as
 * the SVG 図面 of core/svg.h (--svg), optionally solved first for its length
 * and for the final position (詰め上がり) with the last move marked.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "diagram.h"
#include "encode.h"
#include "sfen.h"
#include "svg.h"

static const char SHOW_HELP[] =
    "usage: tsume show [--mirror] [--canonical] [--svg [--title T] [--length N] [--solve] [--final]\n"
    "                  [--width PX] [--time-ms T]] <SFEN|file.kif|file.kifu|file.csa|file.sfen>\n"
    "Prints the position as a diagram, then its SFEN.\n"
    "  --mirror     reflect left-right (file f <-> 10-f) first\n"
    "  --canonical  take the canonical orientation (the smaller key of the position\n"
    "               and its mirror) and print the key in hex\n"
    "  --svg        print the 詰将棋 diagram (図面) as SVG instead: kanji pieces, the\n"
    "               defender's upside down, both hands as 持駒, title and length under it\n"
    "  --title T    the title under the SVG diagram\n"
    "  --length N   the length under it (N手詰)\n"
    "  --solve      solve first (at most 10 s) and write the length found under it,\n"
    "               when it is proven exact (else none, and a note on stderr)\n"
    "  --time-ms T  the solver's time for --solve and --final (default 10000)\n"
    "  --final      solve and draw the final position (詰め上がり), last move shaded\n"
    "  --width PX   width attribute of the SVG (default: its natural 480 px)\n"
    "Exit status: 0 ok, 1 --solve/--final found no mate, 2 bad usage or input.\n";

/* Solves pos for --solve / --final: 0 and the length, 0 when it is only an upper
 * bound (said on stderr), and *pos played to the end with *last set, when final;
 * or the exit status with a message. */
static int show_solve(Position *pos, bool final, uint64_t time_ms, int *length, Move *last) {
  SolverOptions so;
  solver_options_default(&so);
  so.time_ms = time_ms;
  Solver *s = solver_create(&so);
  if (!s) {
    fprintf(stderr, "tsume show: out of memory\n");
    return 3;
  }
  SolveResult r;
  int rc = solver_solve(s, pos, &r);
  if (rc != TS_OK || r.status != SOLVE_MATE || r.pv_len == 0) {
    fprintf(stderr, "tsume show: %s\n",
            rc != TS_OK ? "the side not to move is in check" : r.status == SOLVE_NOMATE ? "no mate" : "no mate found in the time");
    solver_free(s);
    return rc != TS_OK ? 2 : 1;
  }
  *length = r.exact ? r.pv_len : 0;
  if (!r.exact)
    fprintf(stderr,
            "tsume show: the solver proved a mate in at most %d moves in %llu ms, not that none is shorter: no length "
            "is written under the diagram (give --length N)%s\n",
            r.pv_len, (unsigned long long)time_ms, final ? "; the final position is that of a mating line, maybe not the main line" : "");
  if (final) {
    for (int i = 0; i < r.pv_len; i++) {
      Undo u;
      pos_do_move(pos, r.pv[i], &u);
    }
    *last = r.pv[r.pv_len - 1];
  }
  solver_free(s);
  return 0;
}

int cmd_show(int argc, char **argv) {
  bool mirror = false, canonical = false, svg = false, solve = false, final = false;
  SvgOptions so;
  svg_options_default(&so);
  static const struct option LONG[] = {{"help", no_argument, NULL, 'h'},   {"mirror", no_argument, NULL, 'm'},
                                       {"canonical", no_argument, NULL, 'c'}, {"svg", no_argument, NULL, 's'},
                                       {"title", required_argument, NULL, 't'}, {"length", required_argument, NULL, 'l'},
                                       {"solve", no_argument, NULL, 'S'},     {"final", no_argument, NULL, 'f'},
                                       {"width", required_argument, NULL, 'w'}, {"time-ms", required_argument, NULL, 'T'},
                                       {NULL, 0, NULL, 0}};
  uint64_t time_ms = 10000;
  optind = 1;
  opterr = 0;
  int c;
  while ((c = getopt_long(argc, argv, ":h", LONG, NULL)) != -1) {
    uint64_t v;
    switch (c) {
    case 'h': fputs(SHOW_HELP, stdout); return 0;
    case 'm': mirror = true; break;
    case 'c': canonical = true; break;
    case 's': svg = true; break;
    case 't': so.title = optarg; break;
    case 'l':
      if (cli_option_u64("show", "--length", optarg, 1, 65535, &v)) return 2;
      so.length = (int)v;
      break;
    case 'S': solve = true; break;
    case 'T':
      if (cli_option_u64("show", "--time-ms", optarg, 1, CLI_TIME_MS_MAX, &time_ms)) return 2;
      break;
    case 'f': final = solve = true; break;
    case 'w':
      if (cli_option_u64("show", "--width", optarg, 16, 10000, &v)) return 2;
      so.width = (int)v;
      break;
    default: return cli_getopt_error("show", c, argv);
    }
  }
  char title[1024];
  if (so.title) { /* control bytes of the title are shown escaped, not written into the SVG */
    cli_escape(so.title, title, sizeof title);
    so.title = title;
  }
  if ((so.title || so.length || solve || so.width) && !svg)
    return cli_usage_error("show", "--title, --length, --solve, --final and --width go with --svg");
  int i = optind;
  Position pos;
  TsError err;
  int used = 0;
  int count = cli_problem_count(argc - i, argv + i);
  if (count > 1 && svg)
    return cli_usage_error("show", "%s holds %d problems; --svg draws one (export it alone, e.g. --limit 1)", argv[i],
                           count);
  for (int k = 0; k < count; k++) {
    int rc = cli_load_position_at(argc - i, argv + i, k, &used, &pos, &err);
    if (rc) return cli_fail("show", &err);
    if (i + used != argc) return cli_usage_error("show", "unexpected argument '%s'", argv[i + used]);
    if (count > 1) printf("%s== %s, problem %d of %d\n", k ? "\n" : "", argv[i], k + 1, count);
    if (mirror) pos_mirror(&pos, &pos);
    uint8_t key[POS_CODE_MAX];
    size_t klen = 0;
    if (canonical) {
      bool m;
      klen = pos_canonical(&pos, key, &m);
      if (m) pos_mirror(&pos, &pos);
    }
    if (svg) {
      if (solve) {
        int length = 0;
        so.attacker = pos.side; /* the final position has the defender to move */
        rc = show_solve(&pos, final, time_ms, &length, &so.last_move);
        if (rc) return rc;
        if (!so.length) so.length = length;
        if (final && !so.title) so.title = "詰め上がり";
      }
      char *text = NULL;
      size_t len = 0;
      if (svg_diagram_alloc(&pos, &so, &text, &len) != TS_OK) {
        fprintf(stderr, "tsume show: out of memory\n");
        return 3;
      }
      fwrite(text, 1, len, stdout);
      free(text);
      return 0;
    }
    char diagram[DIAGRAM_MAX];
    diagram_write(&pos, diagram, sizeof diagram);
    fputs(diagram, stdout);
    char sfen[SFEN_MAX];
    sfen_write(&pos, sfen, sizeof sfen);
    printf("sfen %s\n", sfen);
    if (canonical) {
      printf("key ");
      for (size_t b = 0; b < klen; b++) printf("%02x", key[b]);
      printf("\n");
    }
  }
  return 0;
}
