/*
 * tsume roles - the eight piece roles of the composition paper along a mating line (composer/roles.h).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "diagram.h"
#include "json.h"
#include "kanji.h"
#include "kif.h"
#include "roles.h"
#include "sfen.h"
#include "solver.h"
#include "source.h"

int cli_solve_run(Solver *s, const Position *pos, int within, SolveResult *r);

static const char ROLES_HELP[] =
    "usage: tsume roles [options] <SFEN|problem file>\n"
    "Shows what every piece does along the main line (the eight roles of\n"
    "docs/composing.md): per ply and square, the mate-state roles (after each check:\n"
    "checks C, blocks-escape E, can-capture-checker X; at every ply: prevents-check S)\n"
    "and the move roles (movable M, prevents-move P, can-capture T, can-be-captured B).\n"
    "The line is the one given (--line, or the problem file's main line), else the\n"
    "solver's main line.\n"
    "  --line \"USI ...\"  the line to read the roles from (USI moves from the start)\n"
    "  --nodes N         node limit of the solver when it finds the line (default 10000000)\n"
    "  --json            one JSON object: {\"sfen\":...,\"line\":[...],\"plies\":[{\"ply\":i,\n"
    "                    \"move\":\"usi\"|null,\"squares\":[{\"sq\":\"2b\",\"piece\":\"g\",\"id\":N,\n"
    "                    \"roles\":[...]}],\"prevented\":[{\"sq\":...,\"move\":...}]}],\n"
    "                    \"pieces\":[{\"id\":N,\"start\":\"2b\"|null,\"piece\":\"g\",\"first_ply\":N,\n"
    "                    \"roles\":[...]}]}\n"
    "Pieces keep an id along the line: a captured piece dropped later is the same piece.\n"
    "Exit status: 0, 1 when no line was found within the solver's limit, 2 bad input (an\n"
    "illegal diagram, a diagram without a mate, a line that is not a mating line), 3 I/O.\n";

static const char ROLE_LETTERS[ROLE_NB + 1] = "CEXSMPTB";

/* "２一v金" style square and piece. */
static void sq_piece_text(Square s, Piece p, char *out, size_t n) {
  snprintf(out, n, "%s%s%s%s", kanji_file_digit(sq_file(s)), kanji_rank_numeral(sq_rank(s)),
           piece_color(p) == WHITE ? "v" : "", kanji_piece_board_char(piece_type(p)));
}

static void text_roles(uint8_t r) {
  for (int b = 0, k = 0; b < ROLE_NB; b++)
    if (r & (1u << b)) printf("%s%s", k++ ? ", " : "", roles_name(b));
}

/* The solver's main line of pos into line; 0, or after a message 2 (no mate: bad input) or 1 (not found). */
int cli_find_main_line(const char *cmd, const Position *pos, uint64_t nodes, SourceLine *line) {
  SolverOptions o;
  solver_options_default(&o);
  o.max_nodes = nodes;
  Solver *s = solver_create(&o);
  if (!s) {
    cli_message(cmd, "out of memory (solver table)");
    return 3;
  }
  SolveResult r;
  int rc = cli_solve_run(s, pos, -1, &r);
  if (rc || r.status != SOLVE_MATE || r.pv_len == 0) {
    cli_message(cmd, "%s", rc ? "not a problem position"
                           : r.status == SOLVE_NOMATE ? "the position has no mate"
                                                      : "no mating line found within the solver's limit");
    solver_free(s);
    return rc || r.status == SOLVE_NOMATE ? 2 : 1;
  }
  line->n = r.pv_len < SOURCE_LINE_MAX ? r.pv_len : SOURCE_LINE_MAX;
  memcpy(line->moves, r.pv, (size_t)line->n * sizeof(Move));
  solver_free(s);
  return 0;
}

static void print_text(const Position *pos, const SourceLine *line, const RoleMap *m) {
  char sfen[SFEN_MAX], dia[DIAGRAM_MAX];
  sfen_write(pos, sfen, sizeof sfen);
  diagram_write(pos, dia, sizeof dia);
  printf("sfen %s\n%s", sfen, dia);
  printf("line");
  Position p = *pos;
  Move prev = MOVE_NONE;
  for (int i = 0; i < line->n; i++) {
    char buf[KIF_MOVE_MAX];
    kif_move_write(&p, line->moves[i], prev, buf, sizeof buf);
    printf(" %s%s", p.side == BLACK ? "▲" : "△", buf);
    Undo u;
    pos_do_move(&p, line->moves[i], &u);
    prev = line->moves[i];
  }
  printf(" (%d plies)\n\n", line->n);
  /* the start diagram with the roles each piece takes over the whole line */
  uint8_t start[SQ_NB] = {0};
  uint8_t hand[HAND_PT_NB] = {0};
  roles_union_start(m, 1, start, hand);
  printf("roles over the line (C checks, E blocks-escape, X can-capture-checker, S prevents-check,\n"
         "M movable, P prevents-move, T can-capture, B can-be-captured):\n");
  printf("    ９      ８      ７      ６      ５      ４      ３      ２      １\n");
  for (int r = 1; r <= 9; r++) {
    printf("%s ", kanji_rank_numeral(r));
    for (int f = 9; f >= 1; f--) {
      Square s = sq_make(f, r);
      Piece pc = pos->board[s];
      char cell[16] = "";
      if (pc) {
        int k = snprintf(cell, sizeof cell, "%s", piece_color(pc) == WHITE ? "v" : " ");
        k += snprintf(cell + k, sizeof cell - (size_t)k, "%s", kanji_piece_board_char(piece_type(pc)));
        int w = 0;
        char codes[ROLE_NB + 1];
        for (int b = 0; b < ROLE_NB; b++)
          if (start[s] & (1u << b)) codes[w++] = ROLE_LETTERS[b];
        codes[w] = 0;
        printf("%s%-5s", cell, w ? codes : "-");
      } else {
        printf(" ・     ");
      }
    }
    printf("\n");
  }
  printf("\n");
  for (int i = 0; i <= m->n; i++) {
    const RolePly *rp = &m->ply[i];
    if (i < m->n) {
      char buf[KIF_MOVE_MAX];
      kif_move_write(&rp->pos, rp->move, i ? m->ply[i - 1].move : MOVE_NONE, buf, sizeof buf);
      printf("ply %d (%s to move) %s%s\n", i, rp->pos.side == pos->side ? "attacker" : "defender",
             rp->pos.side == BLACK ? "▲" : "△", buf);
    } else {
      printf("ply %d (end)\n", i);
    }
    for (Square s = SQ_NB - 1; s >= 0; s--) {
      if (!rp->role[s]) continue;
      char t[64];
      sq_piece_text(s, rp->pos.board[s], t, sizeof t);
      printf("  %s #%d  ", t, rp->id[s]);
      text_roles(rp->role[s]);
      int first = 1;
      for (int k = 0; k < rp->nprevented; k++) {
        if (rp->prevented[k].sq != s) continue;
        char mv[8];
        usi_move_write(rp->prevented[k].move, mv);
        printf("%s%s", first ? " (stops " : " ", mv);
        first = 0;
      }
      if (!first) printf(")");
      printf("\n");
    }
  }
  printf("\npieces:\n");
  for (int id = 0; id < m->npieces; id++) {
    const RolePiece *p = &m->piece[id];
    char t[64];
    if (p->start_sq != SQ_NONE)
      sq_piece_text(p->start_sq, p->piece, t, sizeof t);
    else
      snprintf(t, sizeof t, "%s%s (%s)", piece_color(p->piece) == WHITE ? "v" : "",
               kanji_piece_board_char(piece_type(p->piece)), p->first_ply ? "defender's drop" : "hand");
    printf("  #%d %s: ", id, t);
    if (p->roles)
      text_roles(p->roles);
    else
      printf("no role");
    printf("\n");
  }
}

int cmd_roles(int argc, char **argv) {
  bool json = false;
  const char *line_text = NULL;
  uint64_t nodes = 10000000;
  static const struct option LONG[] = {{"help", no_argument, NULL, 'h'},
                                       {"json", no_argument, NULL, 'j'},
                                       {"line", required_argument, NULL, 'l'},
                                       {"nodes", required_argument, NULL, 'N'},
                                       {NULL, 0, NULL, 0}};
  optind = 1;
  opterr = 0;
  for (int c; (c = getopt_long(argc, argv, ":h", LONG, NULL)) != -1;) {
    switch (c) {
    case 'h': fputs(ROLES_HELP, stdout); return 0;
    case 'j': json = true; break;
    case 'l': line_text = optarg; break;
    case 'N':
      if (cli_option_u64("roles", "--nodes", optarg, 1, CLI_NODES_MAX, &nodes)) return 2;
      break;
    default: return cli_getopt_error("roles", c, argv);
    }
  }
  int i = optind, used = 0;
  Position pos;
  TsError err;
  static SourceLine line;
  int count = cli_problem_count(argc - i, argv + i);
  if (count > 1 && line_text)
    return cli_usage_error("roles", "%s holds %d problems, each with its line; --line goes with one", argv[i], count);
  for (int k = 0; k < count; k++) {
    int rc = cli_load_problem_line_at(argc - i, argv + i, k, &used, &pos, &line, &err);
    if (rc) return cli_fail("roles", &err);
    if (i + used != argc) return cli_usage_error("roles", "unexpected argument '%s'", argv[i + used]);
    if (line_text) {
      rc = usi_line_parse(&pos, line_text, line.moves, SOURCE_LINE_MAX, &line.n, &err);
      if (rc) {
        snprintf(err.where, sizeof err.where, "--line");
        return cli_fail("roles", &err);
      }
      int bad = 0;
      if (!solver_line_verify(&pos, line.moves, line.n, true, &bad)) {
        if (bad < line.n)
          cli_message("roles", "--line: move %d gives no check (not a mating line)", bad + 1);
        else
          cli_message("roles", "--line: the line does not end in mate (not a mating line)");
        return 2;
      }
    } else if (line.n == 0) {
      rc = cli_find_main_line("roles", &pos, nodes, &line);
      if (rc) return rc;
    }
    RoleMap m;
    rc = roles_compute(&pos, line.moves, line.n, &m);
    if (rc) {
      ts_error_set(&err, rc, "--line", 0, 0, "%s", rc == TS_ERR_NOMEM ? "out of memory" : "a move of the line is not legal");
      return cli_fail("roles", &err);
    }
    if (count > 1 && !json) printf("%s== %s, problem %d of %d\n", k ? "\n" : "", argv[i], k + 1, count);
    if (json)
      json_roles(stdout, &pos, line.moves, line.n, &m), putchar('\n');
    else
      print_text(&pos, &line, &m);
    roles_free(&m);
  }
  return 0;
}
