/*
 * value.c - exact plies to mate for either side to move: bounded searches
 * ("mate within L?") at rising bounds from the least possible until one holds a
 * mate, then halving the range between the last that failed and the mate found.
 */
#include "solver_value.h"

#include <string.h>

#include "movegen.h"
#include "search.h"

int solver_value(Solver *s, const Position *pos, Color attacker, int max_plies) {
  return solver_value_above(s, pos, attacker, 0, max_plies);
}

int solver_value_above(Solver *s, const Position *pos, Color attacker, int min_plies, int max_plies) {
  search_call_reset(s);
  if (max_plies > TT_LEN_INF - 2) max_plies = TT_LEN_INF - 2;
  if (max_plies < 0) return SOLVER_VALUE_NONE;
  /* rising bounds, 2, 4, 8... plies apart, until one holds a mate: a search of a bound far
   * above the value costs more than the tight ones below it (with the 無駄合 rule's second
   * part, every interposition's comparison is asked within the bound) */
  int lo = min_plies > 0 ? min_plies : 0, hi, m = 0;
  for (int step = 2, L = lo;; step *= 2) {
    if (L > max_plies) L = max_plies;
    int k = pv_mate_within(s, pos, attacker, L, &m);
    if (k < 0) return SOLVER_VALUE_UNKNOWN;
    if (k > 0) {
      hi = m < L ? m : L;
      break;
    }
    if (L >= max_plies) return SOLVER_VALUE_NONE;
    lo = L + 1;
    L += step;
  }
  /* no mate within lo - 1, one within hi: the value lies in [lo, hi], of hi's parity */
  if ((hi - lo) & 1) lo++;
  while (lo < hi) {
    int mid = lo + 2 * ((hi - lo) / 4);
    int k = pv_mate_within(s, pos, attacker, mid, &m);
    if (k < 0) return SOLVER_VALUE_UNKNOWN;
    if (k > 0)
      hi = m < mid ? m : mid;
    else
      lo = mid + 2;
  }
  return hi;
}

Bitboard solver_interpose_squares(const Position *pos) { return search_distant_check(pos); }

bool solver_replies_within(const MoveList *ly, const Position *z) {
  MoveList lz;
  movegen_legal(z, &lz);
  if (ly->size > lz.size) return false;
  /* z's moves in an open-addressed set of compact moves (stored plus one: 0 is empty) */
  enum { SET_BITS = 11, SET_MASK = (1 << SET_BITS) - 1 };
  _Static_assert(MAX_MOVES * 2 <= (1 << SET_BITS), "the set of moves stays at most half full");
  uint32_t set[1 << SET_BITS];
  memset(set, 0, sizeof set);
  for (int j = 0; j < lz.size; j++) {
    uint32_t k = (uint32_t)move_compact(lz.moves[j]) + 1, h = (k * 2654435761u) >> (32 - SET_BITS);
    while (set[h] && set[h] != k) h = (h + 1) & SET_MASK;
    set[h] = k;
  }
  for (int i = 0; i < ly->size; i++) {
    uint32_t k = (uint32_t)move_compact(ly->moves[i]) + 1, h = (k * 2654435761u) >> (32 - SET_BITS);
    while (set[h] && set[h] != k) h = (h + 1) & SET_MASK;
    if (!set[h]) return false;
  }
  return true;
}

/* Every legal reply of y (the capture with the piece handed back) is legal in z
 * (a, the position after the interposition, with the interposed piece lifted into
 * the defender's hand). */
static bool replies_kept(const Position *a, const Position *y, Square sq) {
  Position z = *a;
  Color def = color_flip(a->side);
  Piece on = z.board[sq];
  pos_remove(&z, sq);
  z.hand[def] = hand_add(z.hand[def], pt_demote(piece_type(on)));
  z.side = def;
  pos_finish_setup(&z);
  MoveList ly;
  movegen_legal(y, &ly);
  return solver_replies_within(&ly, &z);
}

bool solver_futile_any(const Position *pos, Move m, Solver *same, bool (*test)(const Position *after, void *ctx),
                       void *ctx) {
  return solver_futile_any_at(pos, m, same, -1, test, ctx);
}

bool solver_futile_any_at(const Position *pos, Move m, Solver *same, int value,
                          bool (*test)(const Position *after, void *ctx), void *ctx) {
  /* with the node's exact value, "no within the plies left after the interposition"
   * is the answer (samemate.c, SAME_NOT_WITHIN: the node would last longer) */
  int bound = value >= 1 ? value - 1 : TT_LEN_INF;
  Position p = *pos;
  Undo u;
  pos_do_move(&p, m, &u);
  MoveList caps;
  movegen_checks(&p, &caps);
  /* what needs no search first: every reply after the capture is one without the interposition */
  bool second = same ? same->opt.futile_rule && same->opt.futile_compare : true;
  uint64_t bh = 0;
  for (int i = 0; i < caps.size; i++) {
    Move c = caps.moves[i];
    if (move_is_drop(c) || move_to(c) != move_to(m) || !search_capture_free(&p, c)) continue;
    if (same && second && !bh) bh = search_board_hash(same, &p);
    /* an answer kept: "no" ends this capture at once, "yes" says the replies are kept */
    int known = same && second ? search_same_known(same, &p, bh, c, bound) : -1;
    if (known == 0 || known == 2) continue;
    Position q = p;
    Undo u2;
    PieceType ret;
    search_virtual_do(&q, c, &u2, &ret);
    if (second && known != 1 && !replies_kept(&p, &q, move_to(m))) continue;
    if (!test(&q, ctx)) continue;
    if (!same || known == 1 || search_same_mate(same, &p, bh ? bh : search_board_hash(same, &p), c, move_is_drop(m), bound) == 1)
      return true;
    if (same->stopped) return false;
  }
  return false;
}

/* within: only the sufficient question (mated within n after a free capture); else the exact one at R = n. */
static int interpose_futile_ask(Solver *s, const Position *pos, Move m, Color attacker, int n, bool within) {
  if (!bb_test(solver_interpose_squares(pos), move_to(m))) return 0;
  search_call_reset(s);
  int err = 0;
  bool f = within ? pv_futile_within(s, pos, attacker, m, n, &err) : pv_futile_exact(s, pos, attacker, m, n, &err);
  return err ? -1 : f;
}

int solver_interpose_futile(Solver *s, const Position *pos, Move m, Color attacker, int R) {
  return interpose_futile_ask(s, pos, m, attacker, R, false);
}

int solver_interpose_futile_within(Solver *s, const Position *pos, Move m, Color attacker, int L) {
  return interpose_futile_ask(s, pos, m, attacker, L, true);
}
