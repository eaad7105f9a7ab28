/*
 * test_roles.c - the eight piece roles (composer/roles.h) on small constructed
 * positions, the composition paper Figure 1's two cases among them.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <string.h>

#include "roles.h"
#include "sfen.h"

static void load(const char *sfen, const char *usi, Position *pos, Move *line, int *n) {
  TsError err;
  if (sfen_parse(sfen, pos, "<test>", &err)) fail_msg("%s: %s", sfen, err.msg);
  *n = 0;
  if (usi && usi_line_parse(pos, usi, line, 64, n, &err)) fail_msg("%s: %s", usi, err.msg);
}

static Square sq(int f, int r) { return sq_make(f, r); }

/* Figure 1, left: the bishop on 6八 moves to 4六 with check (movable); it could
 * also check from 7七 but its own pawn stands there (prevents a move). */
static void test_prevents_move(void **state) {
  (void)state;
  Position pos;
  Move line[64];
  int n;
  load("9/9/9/9/4k4/9/2P6/3B5/9 b - 1", "6h4f", &pos, line, &n);
  RoleMap m;
  assert_int_equal(roles_compute(&pos, line, n, &m), TS_OK);
  assert_int_equal(m.n, 1);
  assert_true(m.ply[0].role[sq(6, 8)] & ROLE_MOVABLE);
  assert_false(m.ply[0].role[sq(6, 8)] & ROLE_CAN_CAPTURE);
  assert_true(m.ply[0].role[sq(7, 7)] & ROLE_PREVENTS_MOVE);
  bool found = false;
  for (int i = 0; i < m.ply[0].nprevented; i++) {
    char mv[8];
    usi_move_write(m.ply[0].prevented[i].move, mv);
    if (m.ply[0].prevented[i].sq == sq(7, 7) && !strcmp(mv, "6h7g")) found = true;
  }
  assert_true(found);
  /* after the check the bishop checks and holds the squares next to the king it attacks */
  assert_true(m.ply[1].role[sq(4, 6)] & ROLE_CHECKS);
  assert_true(m.ply[1].role[sq(4, 6)] & ROLE_BLOCKS_ESCAPE);
  /* the king can take the undefended bishop */
  assert_true(m.ply[1].role[sq(5, 5)] & ROLE_CAN_CAPTURE_CHECKER);
  /* the pawn's id is the same piece at both plies */
  assert_int_equal(m.ply[0].id[sq(7, 7)], m.ply[1].id[sq(7, 7)]);
  assert_int_equal(m.ply[1].id[sq(4, 6)], m.ply[0].id[sq(6, 8)]);
  assert_true(m.piece[m.ply[0].id[sq(7, 7)]].roles & ROLE_PREVENTS_MOVE);
  roles_free(&m);
}

/* Figure 1, right: ▲2一銀成 △同玉 ▲2二金打. The defender's gold on 2一 must be
 * captured (can be captured) to become the attacker's gold that mates on 2二. */
static void test_captured_then_dropped(void **state) {
  (void)state;
  Position pos;
  Move line[64];
  int n;
  load("7gk/6S2/7P1/7N1/9/9/9/9/9 b - 1", "3b2a+ 1a2a G*2b", &pos, line, &n);
  RoleMap m;
  assert_int_equal(roles_compute(&pos, line, n, &m), TS_OK);
  int gold = m.ply[0].id[sq(2, 1)];
  int silver = m.ply[0].id[sq(3, 2)];
  assert_true(gold >= 0 && silver >= 0);
  assert_true(m.ply[0].role[sq(2, 1)] & ROLE_CAN_BE_CAPTURED);
  assert_true(m.ply[0].role[sq(3, 2)] & ROLE_CAN_CAPTURE);
  assert_true(m.ply[0].role[sq(3, 2)] & ROLE_MOVABLE);
  /* the king takes the promoted silver */
  assert_true(m.ply[1].role[sq(1, 1)] & ROLE_CAN_CAPTURE);
  assert_true(m.ply[1].role[sq(2, 1)] & ROLE_CAN_BE_CAPTURED);
  assert_true(m.ply[1].role[sq(2, 1)] & ROLE_CHECKS);
  /* the drop is the gold captured on 2一: one piece, both roles */
  assert_int_equal(m.ply[2].mover, gold);
  assert_int_equal(m.ply[3].id[sq(2, 2)], gold);
  assert_true(m.ply[3].role[sq(2, 2)] & ROLE_CHECKS);
  uint8_t r = m.piece[gold].roles;
  assert_true(r & ROLE_CAN_BE_CAPTURED);
  assert_true(r & ROLE_CHECKS);
  assert_true(r & ROLE_MOVABLE);
  /* the mate: the pawn defends 2二 (the king cannot take) and the knight holds 1二 */
  assert_true(m.ply[3].role[sq(2, 3)] & ROLE_BLOCKS_ESCAPE);
  assert_true(m.ply[3].role[sq(2, 4)] & ROLE_BLOCKS_ESCAPE);
  assert_false(m.ply[3].role[sq(2, 1)] & ROLE_CAN_CAPTURE_CHECKER);
  /* the start pieces over the line */
  uint8_t start[SQ_NB] = {0};
  roles_union_start(&m, 1, start, NULL);
  assert_true(start[sq(2, 1)] & ROLE_CHECKS);
  assert_true(start[sq(2, 4)] & ROLE_BLOCKS_ESCAPE);
  roles_free(&m);
}

/* The mate-state roles: a checker, a defender's piece that attacks it (pinned),
 * stands on an escape square and shields the king from the rook. */
static void test_mate_state(void **state) {
  (void)state;
  Position pos;
  Move line[64];
  int n;
  load("4k4/4s4/9/9/9/9/9/9/4R4 b G 1", "G*4a", &pos, line, &n);
  RoleMap m;
  assert_int_equal(roles_compute(&pos, line, n, &m), TS_OK);
  const uint8_t *r0 = m.ply[0].role, *r1 = m.ply[1].role;
  assert_true(r0[sq(5, 2)] & ROLE_PREVENTS_CHECK);
  assert_true(r1[sq(4, 1)] & ROLE_CHECKS);
  assert_true(r1[sq(4, 1)] & ROLE_BLOCKS_ESCAPE); /* holds 4二 */
  assert_true(r1[sq(5, 2)] & ROLE_CAN_CAPTURE_CHECKER);
  assert_true(r1[sq(5, 2)] & ROLE_BLOCKS_ESCAPE);
  assert_true(r1[sq(5, 2)] & ROLE_PREVENTS_CHECK);
  assert_false(r1[sq(5, 9)] & ROLE_BLOCKS_ESCAPE);
  /* the gold came from the hand: its id is the hand piece's */
  int g = m.ply[1].id[sq(4, 1)];
  assert_true(g >= 0);
  assert_int_equal(m.piece[g].start_sq, SQ_NONE);
  assert_true(m.piece[g].roles & ROLE_MOVABLE);
  uint8_t hand[HAND_PT_NB] = {0};
  roles_union_start(&m, 1, NULL, hand);
  assert_true(hand[GOLD] & ROLE_CHECKS);
  roles_free(&m);
}

/* A defender's drop gets a new identity; an illegal line is refused. */
static void test_defender_drop_and_illegal(void **state) {
  (void)state;
  Position pos;
  Move line[64];
  int n;
  load("4k4/9/9/9/9/9/9/9/9 b L 1", NULL, &pos, line, &n);
  pos_give_remaining(&pos, WHITE);
  TsError err;
  assert_int_equal(usi_line_parse(&pos, "L*5e S*5a", line, 64, &n, &err), TS_ERR_ILLEGAL); /* not a legal line */
  assert_int_equal(usi_line_parse(&pos, "L*5e S*5c", line, 64, &n, &err), TS_OK);
  RoleMap m;
  assert_int_equal(roles_compute(&pos, line, n, &m), TS_OK);
  int d = m.ply[2].id[sq(5, 3)];
  assert_true(d >= 0);
  assert_int_equal(m.piece[d].first_ply, 2);
  assert_int_equal(m.ply[1].mover, d);
  roles_free(&m);
  Move bad[1] = {move_make(sq(5, 9), sq(5, 8), false, piece_make(BLACK, LANCE))};
  assert_int_equal(roles_compute(&pos, bad, 1, &m), TS_ERR_ILLEGAL);
}

int main(void) {
  core_init();
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_prevents_move),
      cmocka_unit_test(test_captured_then_dropped),
      cmocka_unit_test(test_mate_state),
      cmocka_unit_test(test_defender_drop_and_illegal),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
