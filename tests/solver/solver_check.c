#include "solver_check.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "movegen.h"
#include "sfen.h"

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1000.0 + (double)ts.tv_nsec / 1e6;
}

bool check_line_plain(const Position *root, const Move *pv, int n) {
  Position p = *root;
  Color att = p.side;
  MoveList ml;
  for (int i = 0; i < n; i++) {
    movegen_legal(&p, &ml);
    Move m = MOVE_NONE;
    for (int j = 0; j < ml.size; j++)
      if (move_compact(ml.moves[j]) == move_compact(pv[i])) m = ml.moves[j];
    if (m == MOVE_NONE) return false;
    Undo u;
    pos_do_move(&p, m, &u);
    if (p.side != att && !p.checkers) return false;
  }
  if (p.side == att || !p.checkers) return false;
  movegen_legal(&p, &ml);
  /* only (futile) interpositions may remain: replies onto a square between the king and its one checker */
  Bitboard btw = bb_more_than_one(p.checkers) ? 0 : BETWEEN[p.king[p.side]][bb_lsb(p.checkers)];
  for (int j = 0; j < ml.size; j++)
    if (!bb_test(btw, move_to(ml.moves[j]))) return false;
  return true;
}

int check_case(Solver *s, const CheckCase *c, CheckStats *st) {
  Position pos;
  TsError err;
  st->rows++;
  if (sfen_parse(c->sfen, &pos, c->id, &err)) {
    st->skipped++;
    return -1;
  }
  SolverOptions o = *solver_options(s);
  o.futile_rule = c->futile_rule;
  solver_set_options(s, &o);
  SolveResult r;
  double t0 = now_ms();
  int rc;
  if (c->kind == EXPECT_NOMATE_WITHIN)
    rc = solver_mate_within(s, &pos, c->length, &r);
  else
    rc = solver_solve(s, &pos, &r);
  st->ms += now_ms() - t0;
  st->nodes += r.nodes;
  bool ok = rc == TS_OK;
  const char *why = "";
  if (!ok) why = "solver error";
  if (ok && c->line && *c->line) {
    Move ref[4096];
    int n = 0;
    if (usi_line_parse(&pos, c->line, ref, 4096, &n, &err) || !check_line_plain(&pos, ref, n)) {
      ok = false;
      why = "reference line does not replay";
    }
  }
  if (ok) {
    switch (c->kind) {
    case EXPECT_MATE:
      if (r.status != SOLVE_MATE) ok = false, why = "no mate found";
      else if (!r.exact) ok = false, why = "length not proven exact";
      else if (r.length != c->length) ok = false, why = "wrong length";
      break;
    case EXPECT_MATE_ODD:
      if (r.status != SOLVE_MATE) ok = false, why = "no mate found";
      else if (r.length % 2 != 1) ok = false, why = "even length";
      break;
    case EXPECT_NOMATE:
      if (r.status != SOLVE_NOMATE) ok = false, why = "not nomate";
      break;
    case EXPECT_NOMATE_WITHIN:
      if (r.status != SOLVE_NOMATE) ok = false, why = "a mate within the bound";
      break;
    }
  }
  if (ok && r.status == SOLVE_MATE) {
    if (!r.exact && !r.stop_reason) ok = false, why = "inexact length without a reason";
    else if (r.futile_bound && !(r.futile_bound < r.length && !r.exact)) ok = false, why = "futile bound not below an inexact length";
    else if (r.pv_len != r.length) ok = false, why = "line length differs from the length";
    else if (!solver_line_verify(&pos, r.pv, r.pv_len, c->futile_rule, NULL)) ok = false, why = "line fails verification";
    else if (!c->futile_rule && !check_line_plain(&pos, r.pv, r.pv_len)) ok = false, why = "line fails the plain check";
  }
  if (ok) {
    st->passed++;
    return 1;
  }
  st->failed++;
  printf("FAIL %s: %s (expected %d, got %s %d%s, nodes %llu)\n", c->id, why, c->length,
         r.status == SOLVE_MATE ? "mate" : r.status == SOLVE_NOMATE ? "nomate" : "unknown", r.length,
         r.exact ? "" : " inexact", (unsigned long long)r.nodes);
  return 0;
}

void check_report(const char *name, const CheckStats *st) {
  printf("%-28s %4d/%4d passed, %d skipped (illegal SFEN), %.0f ms, %llu nodes\n", name, st->passed,
         st->rows - st->skipped, st->skipped, st->ms, st->nodes);
}
