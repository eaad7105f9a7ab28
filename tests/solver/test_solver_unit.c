/*
 * test_solver_unit.c - the pieces under the solver: the direct check
 * generator against movegen_checks, the 1-ply mate test against brute force,
 * and the solver API on small positions.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checkgen.h"
#include "common/testdata.h"
#include "mate1.h"
#include "movegen.h"
#include "sfen.h"
#include "search.h"
#include "solver.h"
#include "solver_value.h"

static void load(const char *sfen, Position *pos) {
  TsError err;
  if (sfen_parse(sfen, pos, "<test>", &err)) fail_msg("%s: %s", sfen, err.msg);
}

static int cmp_move(const void *a, const void *b) {
  uint16_t x = move_compact(*(const Move *)a), y = move_compact(*(const Move *)b);
  return (x > y) - (x < y);
}

static void same_checks(const Position *pos) {
  MoveList a, b;
  movegen_checks(pos, &a);
  checkgen_generate(pos, &b);
  if (a.size != b.size) {
    char s[SFEN_MAX];
    sfen_write(pos, s, sizeof s);
    fail_msg("check count %d vs %d in %s", a.size, b.size, s);
  }
  qsort(a.moves, (size_t)a.size, sizeof(Move), cmp_move);
  qsort(b.moves, (size_t)b.size, sizeof(Move), cmp_move);
  for (int i = 0; i < a.size; i++) assert_int_equal(a.moves[i], b.moves[i]);
}

/* 1-ply mate by brute force: some check after which the opponent has no legal move. */
static bool mate1_brute(Position *pos) {
  MoveList l;
  movegen_checks(pos, &l);
  for (int i = 0; i < l.size; i++) {
    Undo u;
    pos_do_move(pos, l.moves[i], &u);
    bool mate = !movegen_has_legal(pos);
    pos_undo_move(pos, l.moves[i], &u);
    if (mate) return true;
  }
  return false;
}

static void check_position(Position *pos, long *positions) {
  same_checks(pos);
  Move m = mate1_find(pos);
  assert_int_equal(m != MOVE_NONE, mate1_brute(pos));
  if (m != MOVE_NONE) {
    Undo u;
    pos_do_move(pos, m, &u);
    assert_true(pos_is_mate(pos));
    pos_undo_move(pos, m, &u);
  }
  if (pos->checkers) assert_int_equal(mate1_has_evasion(pos), movegen_has_legal(pos));
  (*positions)++;
}

/* Every public SFEN and every position one and two legal moves away from it. */
static void test_checkgen_and_mate1(void **state) {
  (void)state;
  char(*sfens)[256];
  int n = testdata_load_all_sfens(&sfens);
  assert_true(n > 2000);
  long positions = 0;
  for (int i = 0; i < n; i++) {
    Position pos;
    TsError err;
    if (sfen_parse(sfens[i], &pos, "<data>", &err)) continue;
    check_position(&pos, &positions);
    MoveList l1;
    movegen_legal(&pos, &l1);
    for (int j = 0; j < l1.size; j++) {
      Undo u1;
      pos_do_move(&pos, l1.moves[j], &u1);
      check_position(&pos, &positions);
      if (i % 64 == 0) {
        MoveList l2;
        movegen_legal(&pos, &l2);
        for (int k = 0; k < l2.size; k++) {
          Undo u2;
          pos_do_move(&pos, l2.moves[k], &u2);
          check_position(&pos, &positions);
          pos_undo_move(&pos, l2.moves[k], &u2);
        }
      }
      pos_undo_move(&pos, l1.moves[j], &u1);
    }
  }
  printf("checkgen and mate1 agree with the reference on %ld positions\n", positions);
  free(sfens);
}

static const char *pv_text(const SolveResult *r, char *buf, size_t n) {
  size_t k = 0;
  buf[0] = 0;
  for (int i = 0; i < r->pv_len && k + 8 < n; i++) {
    char mv[8];
    usi_move_write(r->pv[i], mv);
    k += (size_t)snprintf(buf + k, n - k, "%s%s", i ? " " : "", mv);
  }
  return buf;
}

/* A solver with the default options and an mb MiB table (o gets the options). */
static Solver *solver_new(SolverOptions *o, size_t mb) {
  solver_options_default(o);
  o->hash_mb = mb;
  Solver *s = solver_create(o);
  assert_non_null(s);
  return s;
}

/* The formats.md example, the 無駄合 rule on and off, mate_within, limits, options. */
static void test_api(void **state) {
  (void)state;
  SolverOptions o;
  Solver *s = solver_new(&o, 4);
  Position pos;
  SolveResult r;
  char buf[512];
  load("8k/7P1/6+B2/9/9/9/9/9/9 b G2rb3g4s4n4l17p 1", &pos);
  assert_int_equal(solver_solve(s, &pos, &r), TS_OK);
  assert_int_equal(r.status, SOLVE_MATE);
  assert_int_equal(r.length, 3);
  assert_true(r.exact);
  assert_false(r.komaamari);
  assert_string_equal(pv_text(&r, buf, sizeof buf), "2b2a+ 1a2a G*2b");
  /* after 5a6b+ the lance dropped on 8a, next to the king, is taken by the dragon
   * and the king takes it back: not a free capture, so a real defence (無駄合 is
   * a free capture only) */
  load("k3S3R/9/1G7/9/9/9/9/9/9 b r2b3g3s4n4l18p 1", &pos);
  assert_int_equal(solver_solve(s, &pos, &r), TS_OK);
  assert_int_equal(r.length, 7);
  assert_true(r.exact);
  assert_int_equal(r.pv_len, 7);
  assert_string_equal(pv_text(&r, buf, sizeof buf), "5a6b+ L*8a 1a8a+ 9a8a 6b7b 8a9a L*9b");
  assert_true(solver_line_verify(&pos, r.pv, r.pv_len, true, NULL));
  /* value for either side to move (solver_value.h) */
  assert_int_equal(solver_value(s, &pos, BLACK, 31), 7);
  assert_int_equal(solver_value(s, &pos, BLACK, 5), SOLVER_VALUE_NONE);
  Position after = pos;
  Undo u;
  pos_do_move(&after, r.pv[0], &u);
  assert_int_equal(solver_value(s, &after, BLACK, 30), 6);
  assert_int_equal(solver_interpose_squares(&after) != 0, 1);
  /* after L*1c the silver dropped on 1b is taken by the lance and the king takes
   * the lance back: a real defence (docs/design.md), 7 plies as composers count */
  Position lp;
  load("8k/9/6+L2/6L1+L/9/9/9/9/9 b L2r2b4g4s4n18p 1", &lp);
  assert_int_equal(solver_solve(s, &lp, &r), TS_OK);
  assert_int_equal(r.length, 7);
  assert_true(r.exact);
  assert_int_equal(r.pv_len, 7);
  assert_string_equal(pv_text(&r, buf, sizeof buf), "L*1c S*1b 1c1b+ 1a1b 1d2c 1b1a S*1b");
  assert_int_equal(solver_value(s, &lp, BLACK, 31), 7);
  /* やぶ蛇合: the drop on 2c is taken by the dragon for free (the bishop guards
   * it) and the position after it, the piece handed back, is mate: futile */
  load("7nl/8k/9/7+R1/9/9/9/9/9 b Brb4g4s3n3l18p 1", &lp);
  assert_int_equal(solver_solve(s, &lp, &r), TS_OK);
  assert_int_equal(r.length, 1);
  assert_true(r.exact);
  assert_string_equal(pv_text(&r, buf, sizeof buf), "B*3d");
  /* mate in 1 only with the 無駄合 rule (antma-tsume1-003): 13 plies strictly */
  load("k8/9/1K7/9/9/9/8B/8B/9 b 2r4g4s4n4l18p 1", &pos);
  assert_int_equal(solver_solve(s, &pos, &r), TS_OK);
  assert_int_equal(r.length, 1);
  assert_true(r.exact);
  assert_true(solver_line_verify(&pos, r.pv, r.pv_len, true, NULL));
  assert_false(solver_line_verify(&pos, r.pv, r.pv_len, false, NULL));
  o.futile_rule = false;
  assert_int_equal(solver_set_options(s, &o), TS_OK);
  assert_int_equal(solver_solve(s, &pos, &r), TS_OK);
  assert_int_equal(r.length, 13);
  assert_true(r.exact);
  assert_true(r.komaamari);
  assert_int_equal(solver_mate_within(s, &pos, 11, &r), TS_OK);
  assert_int_equal(r.status, SOLVE_NOMATE);
  assert_int_equal(solver_mate_within(s, &pos, 13, &r), TS_OK);
  assert_int_equal(r.status, SOLVE_MATE);
  assert_int_equal(r.length, 13);
  /* no mate: the initial position; and a defender without a king */
  load("lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1", &pos);
  assert_int_equal(solver_solve(s, &pos, &r), TS_OK);
  assert_int_equal(r.status, SOLVE_NOMATE);
  /* limits: a node limit of 1 stops a real search */
  o.futile_rule = true;
  o.max_nodes = 1;
  assert_int_equal(solver_set_options(s, &o), TS_OK);
  load("ln2p2nl/5+B1gk/p1p2p3/6Spp/2B2gp2/2P3P1P/PP1P1P3/2GK+R1S2/LN3G2L b R2SN4P 81", &pos);
  solver_clear(s);
  assert_int_equal(solver_solve(s, &pos, &r), TS_OK);
  assert_int_equal(r.status, SOLVE_UNKNOWN);
  assert_string_equal(r.stop_reason, "nodes");
  /* the side not to move in check is refused */
  Position bad;
  load("8k/9/9/9/9/9/9/9/8R w - 1", &bad); /* gote to move, in check */
  bad.side = BLACK;
  pos_finish_setup(&bad);
  assert_int_equal(solver_solve(s, &bad, &r), TS_ERR_ILLEGAL);
  /* the algorithms */
  SolverAlgo a;
  assert_true(solver_algo_parse("pds", &a));
  assert_int_equal(a, SOLVER_ALGO_PDS);
  assert_string_equal(solver_algo_name(SOLVER_ALGO_MULTIPATH), "multipath");
  assert_false(solver_algo_parse("bogus", &a));
  solver_free(s);
}

/* The published 1525-ply Microcosmos line replays under the rules (both counts). */
static void test_line_verify_microcosmos(void **state) {
  (void)state;
  TestRow *rows;
  int n = testdata_load("long_problems_solutions.tsv", &rows);
  assert_int_equal(n, 1);
  Position pos;
  load(rows[0].sfen, &pos);
  Move *line = malloc(2048 * sizeof *line);
  assert_non_null(line);
  int k = 0;
  TsError err;
  assert_int_equal(usi_line_parse(&pos, rows[0].solution, line, 2048, &k, &err), TS_OK);
  assert_int_equal(k, 1525);
  int bad = -1;
  assert_true(solver_line_verify(&pos, line, k, true, &bad));
  assert_true(solver_line_verify(&pos, line, k, false, &bad));
  assert_false(solver_line_verify(&pos, line, k - 1, true, &bad)); /* ends on the defender's move */
  assert_int_equal(bad, k - 1);
  free(line);
  free(rows);
}

/* Strict mate within d plies by plain minimax (every interposition a defence). */
static bool brute_mate_within(Position *pos, int d, bool attacker_to_move) {
  MoveList l;
  if (!attacker_to_move) {
    movegen_legal(pos, &l);
    if (l.size == 0) return true;
    if (d == 0) return false;
    for (int i = 0; i < l.size; i++) {
      Undo u;
      pos_do_move(pos, l.moves[i], &u);
      bool m = brute_mate_within(pos, d - 1, true);
      pos_undo_move(pos, l.moves[i], &u);
      if (!m) return false;
    }
    return true;
  }
  if (d <= 0) return false;
  movegen_checks(pos, &l);
  for (int i = 0; i < l.size; i++) {
    Undo u;
    pos_do_move(pos, l.moves[i], &u);
    bool m = brute_mate_within(pos, d - 1, false);
    pos_undo_move(pos, l.moves[i], &u);
    if (m) return true;
  }
  return false;
}

/*
 * A position (issue 16, item 12) where the 無駄合 rule's bound has no main line:
 * mate within 15 and not within 13 under the rule, but after S*5e 5g B*1c the
 * interpositions on 2d/3e/4f are futile at the node's bound and not below it, and
 * every other defence is shorter. The answer used to be "mate <=15" with a 5-ply
 * line and no reason; now length and line agree, and the reason is "futile".
 */
static void test_futile_gap(void **state) {
  (void)state;
  SolverOptions o;
  Solver *s = solver_new(&o, 32);
  Position pos;
  load("3l5/9/2+bl2S2/1+R3+R3/+p8/1+p1kl1g2/1NN6/2G1pL3/3+p5 b BS2g2s2n14p 1", &pos);
  /* no mate in 5 even counting every interposition (so not "mate 5") */
  Position p = pos;
  assert_false(brute_mate_within(&p, 5, true));
  /* Futility does not depend on the remaining length, so "mate within L" grows
   * with L: under the earlier length rule this position had a mate within 15 and
   * none within 17 (a gap); now the length is exact. */
  SolveResult r;
  assert_int_equal(solver_mate_within(s, &pos, 19, &r), TS_OK);
  assert_int_equal(r.status, SOLVE_NOMATE);
  assert_int_equal(solver_mate_within(s, &pos, 21, &r), TS_OK);
  assert_int_equal(r.status, SOLVE_MATE);
  solver_clear(s);
  assert_int_equal(solver_solve(s, &pos, &r), TS_OK);
  assert_int_equal(r.status, SOLVE_MATE);
  assert_true(r.exact);
  assert_int_equal(r.length, 21);
  assert_int_equal(r.pv_len, r.length);
  assert_true(solver_line_verify(&pos, r.pv, r.pv_len, true, NULL));
  /* Two gaps of the length rule (tanuki-5-0137, tanuki-3-0475): L*1f / R*1a were
   * mated within 5 / 3 only because the drops on 1e / 1b were futile at that
   * bound. The drop on 1e is captured for free only by 3c1e+, after which the
   * king may step to 1c, barred without the drop (the lance on 1f sees through
   * the king), and is mated there in 5 plies where every defence without the drop
   * lasts 1: the mate does not go on as without it, the drop is a defence, and
   * L*1f is no mate in 3; G*1e mates in 5. R*1b's drop on 1c is no interposition. */
  static const struct {
    const char *sfen, *line;
    int len;
  } gaps[] = {
      {"6Rr1/9/6B2/8k/9/9/9/9/9 b GLb3g4s4n2l18p 1", "G*1e 1d1c L*1d 1c2c 1e2d", 5},
      {"7G1/9/6Bpk/9/9/9/9/9/9 b Rrb3g4s4n4l17p 1", "R*1b 1c1b 3c2b+", 3},
  };
  for (size_t i = 0; i < sizeof gaps / sizeof gaps[0]; i++) {
    char buf[256];
    load(gaps[i].sfen, &pos);
    assert_int_equal(solver_solve(s, &pos, &r), TS_OK);
    assert_int_equal(r.length, gaps[i].len);
    assert_true(r.exact);
    assert_string_equal(pv_text(&r, buf, sizeof buf), gaps[i].line);
  }
  solver_free(s);
}

/* solver_clear forgets everything (only the written chunks are cleared): a search
 * after it visits exactly the nodes of a fresh solver, also after a table that
 * filled and was garbage-collected. */
static void test_table_clear(void **state) {
  (void)state;
  SolverOptions o;
  solver_options_default(&o);
  o.hash_mb = 1;
  o.prove_exact = false;
  Position a, b;
  load("ln2p2nl/5+B1gk/p1p2p3/6Spp/2B2gp2/2P3P1P/PP1P1P3/2GK+R1S2/LN3G2L b R2SN4P 81", &a);
  load("BG1k1s3/1pp1lS3/2+b2p3/3+p1+R3/1L7/9/9/9/9 b G4NPr2g2s2l13p 1", &b);
  Solver *fresh = solver_create(&o), *used = solver_create(&o);
  assert_non_null(fresh);
  assert_non_null(used);
  SolveResult r1, r2;
  assert_int_equal(solver_solve(fresh, &a, &r1), TS_OK);
  assert_int_equal(r1.status, SOLVE_MATE);
  o.max_nodes = 300000; /* enough to fill a 1 MB table */
  assert_int_equal(solver_set_options(used, &o), TS_OK);
  assert_int_equal(solver_solve(used, &b, &r2), TS_OK);
  assert_true(solver_hashfull(used) > 0);
  solver_clear(used);
  assert_int_equal(solver_hashfull(used), 0);
  o.max_nodes = 0;
  assert_int_equal(solver_set_options(used, &o), TS_OK);
  assert_int_equal(solver_solve(used, &a, &r2), TS_OK);
  assert_int_equal(r2.status, SOLVE_MATE);
  assert_int_equal(r2.nodes, r1.nodes);
  assert_int_equal(r2.length, r1.length);
  solver_free(fresh);
  solver_free(used);
}

/* The table: a proof answers larger hands and a disproof smaller ones, unless it is marked as
 * holding for its own hand only (a result that rests on the 無駄合 rule's third condition). */
static void test_table_hand_only(void **state) {
  (void)state;
  TT tt;
  assert_true(tt_init(&tt, 1));
  Hand h = hand_add(hand_add(0, SILVER), PAWN), more = hand_add(h, LANCE), less = hand_sub(h, PAWN);
  const uint64_t kp = 0x1234567890abcdefULL, kq = 0x0fedcba987654321ULL;
  const uint64_t kr = 0x1111222233334444ULL, ks = 0x5555666677778888ULL;
  tt_store(&tt, kp, h, 9, 0, PN_INF, h, 7, 100, 0);
  tt_store(&tt, kq, h, 9, 0, PN_INF, h | TT_HAND_ONLY, 7, 100, 0);
  tt_store(&tt, kr, h, 9, PN_INF, 0, h, TT_LEN_INF, 100, 0);
  tt_store(&tt, ks, h, 9, PN_INF, 0, h | TT_HAND_ONLY, TT_LEN_INF, 100, 0);
  TTProbe p;
  tt_probe(&tt, kp, more, 9, &p);
  assert_int_equal(p.pn, 0);
  assert_false(p.hand_only);
  tt_probe(&tt, kq, h, 9, &p);
  assert_int_equal(p.pn, 0);
  assert_true(p.hand_only);
  assert_int_equal(p.hand, h); /* the marker is not part of the hand */
  tt_probe(&tt, kq, more, 9, &p);
  assert_true(p.pn != 0 && p.dn != 0);
  tt_probe(&tt, kr, less, 9, &p);
  assert_int_equal(p.dn, 0);
  tt_probe(&tt, ks, h, 9, &p);
  assert_int_equal(p.dn, 0);
  assert_true(p.hand_only);
  tt_probe(&tt, ks, less, 9, &p);
  assert_true(p.pn != 0 && p.dn != 0);
  tt_release(&tt);
}

/* Repetitions: a disproof that rests on a repetition of the node itself or below is kept as a real
 * one, a disproof through a repetition above it is not, and a child disproven by a repetition keeps
 * the repeated depth where its hand would be. Every position two plies after a check of a lone rook
 * and a rook in hand (perpetual checks everywhere, the defender holding every other piece) gets the
 * same answer from a fresh table and from a table that other such searches filled, in either order. */
static void test_repetition_paths(void **state) {
  (void)state;
  Position root;
  load("4k4/9/9/9/9/9/9/9/5R3 b R2b4g4s4n4l18p 1", &root);
  enum { MAXQ = 2048 };
  Position *qs = malloc(MAXQ * sizeof *qs);
  assert_non_null(qs);
  int nq = 0;
  MoveList checks;
  movegen_checks(&root, &checks);
  for (int i = 0; i < checks.size; i++) {
    Position a = root;
    Undo u;
    pos_do_move(&a, checks.moves[i], &u);
    MoveList replies;
    movegen_legal(&a, &replies);
    for (int j = 0; j < replies.size && nq < MAXQ; j++) {
      qs[nq] = a;
      pos_do_move(&qs[nq], replies.moves[j], &u);
      if (qs[nq].checkers == 0) nq++;
    }
  }
  assert_true(nq > 100);
  SolverOptions o;
  solver_options_default(&o);
  o.hash_mb = 16;
  o.prove_exact = false;
  o.max_nodes = 3000;
  Solver *s = solver_create(&o);
  assert_non_null(s);
  int *fresh = malloc((size_t)nq * sizeof *fresh);
  assert_non_null(fresh);
  int decided = 0, nomate = 0;
  for (int i = 0; i < nq; i++) {
    SolveResult r;
    solver_clear(s);
    assert_int_equal(solver_solve(s, &qs[i], &r), TS_OK);
    fresh[i] = r.status;
    decided += r.status != SOLVE_UNKNOWN;
    nomate += r.status == SOLVE_NOMATE;
  }
  assert_true(nomate > 30); /* 323 positions: 90 decided within the limit, 44 of them no mate */
  assert_true(decided > nq / 5);
  for (int pass = 0; pass < 2; pass++) {
    solver_clear(s);
    for (int k = 0; k < nq; k++) {
      int i = pass == 0 ? k : nq - 1 - k;
      SolveResult r;
      assert_int_equal(solver_solve(s, &qs[i], &r), TS_OK);
      if (r.status != SOLVE_UNKNOWN && fresh[i] != SOLVE_UNKNOWN && (int)r.status != fresh[i]) {
        char b[SFEN_MAX];
        sfen_write(&qs[i], b, sizeof b);
        fail_msg("%s: %d with a fresh table, %d after the others (pass %d)", b, fresh[i], r.status, pass);
      }
    }
  }
  /* the checker's "mated at all?" counts attacker nodes' disproof numbers otherwise: the order
   * of the work changes, never an answer */
  s->expect_nomate = true;
  int nomate2 = 0;
  for (int i = 0; i < nq; i++) {
    SolveResult r;
    solver_clear(s);
    assert_int_equal(solver_solve(s, &qs[i], &r), TS_OK);
    nomate2 += r.status == SOLVE_NOMATE;
    if (r.status != SOLVE_UNKNOWN && fresh[i] != SOLVE_UNKNOWN && (int)r.status != fresh[i]) {
      char b[SFEN_MAX];
      sfen_write(&qs[i], b, sizeof b);
      fail_msg("%s: %d with the sum, %d expecting no mate", b, fresh[i], r.status);
    }
  }
  s->expect_nomate = false;
  assert_true(nomate2 > 30);
  free(fresh);
  free(qs);
  solver_free(s);
}

/* A disproof that rests on a repetition above its node is kept by path with the plies it holds
 * for: one within 11 plies answers 11 or fewer along its path, never 12 nor "at any length" (taken
 * as "no mate at all", a bounded search would store a node above it that is mated as never mated);
 * one at any length answers every budget; a new search forgets both. */
static void test_repetition_budget(void **state) {
  (void)state;
  Solver *s = solver_create(NULL);
  assert_non_null(s);
  load("4k4/9/9/9/9/9/9/9/5R3 b R2b4g4s4n4l18p 1", &s->pos);
  search_begin(s, BLACK, true);
  const uint64_t bounded = 0x9e3779b97f4a7c15ULL, unbounded = 0x2545f4914f6cdd1dULL;
  int len = -1;
  search_rep_add(s, bounded, 3, 11);
  search_rep_add(s, unbounded, 2, TT_LEN_INF);
  assert_int_equal(search_rep_find(s, bounded, 11, &len), 3);
  assert_int_equal(len, 11);
  len = -1;
  assert_int_equal(search_rep_find(s, bounded, 9, &len), 3);
  assert_int_equal(len, 11);
  assert_int_equal(search_rep_find(s, bounded, 12, &len), REP_NONE);
  assert_int_equal(search_rep_find(s, bounded, TT_LEN_INF, &len), REP_NONE);
  assert_int_equal(search_rep_find(s, unbounded, TT_LEN_INF, &len), 2);
  assert_int_equal(len, TT_LEN_INF);
  assert_int_equal(search_rep_find(s, unbounded, 5, &len), 2);
  assert_int_equal(search_rep_find(s, bounded ^ 1, 1, &len), REP_NONE);
  search_begin(s, BLACK, true);
  assert_int_equal(search_rep_find(s, bounded, 1, &len), REP_NONE);
  assert_int_equal(search_rep_find(s, unbounded, 1, &len), REP_NONE);
  solver_free(s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_api),
      cmocka_unit_test(test_line_verify_microcosmos),
      cmocka_unit_test(test_checkgen_and_mate1),
      cmocka_unit_test(test_futile_gap),
      cmocka_unit_test(test_table_clear),
      cmocka_unit_test(test_table_hand_only),
      cmocka_unit_test(test_repetition_paths),
      cmocka_unit_test(test_repetition_budget),
  };
  return cmocka_run_group_tests_name("solver unit", tests, NULL, NULL);
}
