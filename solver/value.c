/*
 * value.c - exact plies to mate for either side to move: a bounded search
 * ("mate within L?") at the largest bound, then at shorter bounds below each
 * mate found until one fails.
 */
#include "solver_value.h"

#include "movegen.h"
#include "search.h"

int solver_value(Solver *s, const Position *pos, Color attacker, int max_plies) {
  search_call_reset(s);
  if (max_plies > TT_LEN_INF - 2) max_plies = TT_LEN_INF - 2;
  if (max_plies < 0) return SOLVER_VALUE_NONE;
  int m = 0;
  int k = pv_mate_within(s, pos, attacker, max_plies, &m);
  if (k == 0) return SOLVER_VALUE_NONE;
  if (k < 0) return SOLVER_VALUE_UNKNOWN;
  int best = m;
  while (best >= 2) {
    k = pv_mate_within(s, pos, attacker, best - 2, &m);
    if (k == 0) break;
    if (k < 0) return SOLVER_VALUE_UNKNOWN;
    best = m < best - 2 ? m : best - 2;
  }
  return best;
}

Bitboard solver_drop_squares(const Position *pos) { return search_distant_check(pos); }

int solver_drop_futile(Solver *s, const Position *pos, Move drop, Color attacker, int R) {
  if (!solver_drop_squares(pos) || !move_is_drop(drop)) return 0;
  Position p = *pos;
  Undo u;
  pos_do_move(&p, drop, &u);
  MoveList caps;
  movegen_checks(&p, &caps);
  int unknown = 0;
  for (int i = 0; i < caps.size; i++) {
    Move c = caps.moves[i];
    if (move_is_drop(c) || move_to(c) != move_to(drop)) continue;
    Position h = p;
    Undo u2;
    PieceType back;
    search_virtual_do(&h, c, &u2, &back);
    int v = solver_value(s, &h, attacker, R);
    if (v >= 0) return 1;
    if (v == SOLVER_VALUE_UNKNOWN) unknown = 1;
  }
  return unknown ? -1 : 0;
}
