/*
 * samemate.c - the second part of the 無駄合 rule (solver.h, futile_compare):
 * after the free capture of an interposition, with the piece handed back (Y),
 * the mate goes on as without the interposition (Z: the same position with the
 * interposed piece lifted into the defender's hand, the capturing piece where it
 * stood). Reply by reply: every legal reply r of Y is legal in Z, and Y·r is
 * mated in no more plies than Z·r. The lengths compared are those
 * of the rule's first part alone (a free capture, then a mated position), so the
 * definition does not feed on itself; a solver with that rule (s->same) measures them.
 */
#include <stdlib.h>
#include <string.h>

#include "mate1.h"
#include "movegen.h"
#include "search.h"
#include "solver_value.h"

#define SAME_MEMO_BITS 16

static uint64_t mix(uint64_t z) {
  z += 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

static bool same_ready(Solver *s) {
  if (s->same) return true;
  SolverOptions o = s->opt;
  o.futile_compare = false;
  o.hash_mb = 16;
  o.algo = SOLVER_ALGO_DFPN;
  o.prove_exact = true;
  o.progress = NULL;
  o.progress_ctx = NULL;
  o.trace = NULL;
  o.max_nodes = 0;
  o.time_ms = 0;
  s->same = solver_create(&o);
  if (!s->same) return false;
  s->same_memo = calloc((size_t)1 << SAME_MEMO_BITS, sizeof *s->same_memo);
  if (!s->same_memo) {
    solver_free(s->same);
    s->same = NULL;
    return false;
  }
  return true;
}

void search_same_release(Solver *s) {
  solver_free(s->same);
  s->same = NULL;
  free(s->same_memo);
  s->same_memo = NULL;
}

void search_same_clear(Solver *s) {
  if (!s->same) return;
  solver_clear(s->same);
  memset(s->same_memo, 0, ((size_t)1 << SAME_MEMO_BITS) * sizeof *s->same_memo);
}

/* The nested solver's limits: what is left of s's (a question is part of the
 * search that asks it: it has no limit of its own). False when nothing is left. */
static bool same_limits(Solver *s) {
  Solver *o = s->same;
  o->opt.max_nodes = 0;
  if (s->node_limit) {
    if (s->nodes >= s->node_limit) {
      s->same_why = "nodes";
      return false;
    }
    o->opt.max_nodes = s->node_limit - s->nodes;
  }
  o->opt.time_ms = 0;
  if (s->deadline_ms) {
    uint64_t now = solver_now_ms();
    if (now >= s->deadline_ms) {
      s->same_why = "time";
      return false;
    }
    o->opt.time_ms = s->deadline_ms - now;
  }
  o->opt.stop = s->opt.stop;
  o->opt.halt = s->opt.halt;
  return true;
}

/* The length of some mate of pos within max_plies under the first part (not always
 * the shortest); SOLVER_VALUE_NONE when there is none within max_plies. */
static int same_found(Solver *s, const Position *pos, Color att, int max_plies) {
  if (!same_limits(s)) return SOLVER_VALUE_UNKNOWN;
  Solver *o = s->same;
  search_call_reset(o);
  int m = 0, k = pv_mate_within(o, pos, att, max_plies, &m);
  int v = k < 0 ? SOLVER_VALUE_UNKNOWN : k ? m : SOLVER_VALUE_NONE;
  s->nodes += o->nodes;
  if (v == SOLVER_VALUE_UNKNOWN) s->same_why = o->stop_reason ? o->stop_reason : "same-mate";
  return v;
}

/* Is y·r, mated in `found` plies or fewer, mated in no more plies than w (z·r,
 * attacker to move; or z itself, defender to move, whose longest reply it is
 * compared with: then its value less one)? 1 yes, 0 no, -1 stopped. Both bounds
 * come down together, each search below the other's last mate, so that only the
 * last search, which decides, fails (a failing one is a disproof, the costly kind). */
static int no_longer(Solver *s, const Position *yr, const Position *w, Color att, int found) {
  int slack = w->side == att ? 0 : 1; /* w's plies to compare = value - slack */
  for (int ly = found;;) {
    /* y·r is mated within ly */
    int lw = same_found(s, w, att, ly - 2 + slack);
    if (lw == SOLVER_VALUE_UNKNOWN) return -1;
    if (lw < 0) return 1; /* w needs more than ly - 2: no shorter than y·r */
    /* w is mated within lw: is y·r too, within lw - slack? */
    ly = same_found(s, yr, att, lw - slack);
    if (ly == SOLVER_VALUE_UNKNOWN) return -1;
    if (ly < 0) return 0; /* shorter without the interposition */
  }
}

static uint64_t memo_key(uint64_t k) { return k | 1; /* 0 marks an empty slot */ }

/* y: the position after the free capture of the piece just interposed, that piece handed back. */
static void hand_back_position(const Position *a, Move capture, Position *y) {
  *y = *a;
  pos_finish_setup(y);
  Undo u;
  PieceType ret;
  search_virtual_do(y, capture, &u, &ret);
}

/* A question stopped by a limit stops the search that asked it. */
static int same_stopped(Solver *s) {
  if (!s->stopped) {
    s->stopped = true;
    s->stop_reason = s->same_why ? s->same_why : "same-mate";
  }
  return -1;
}

static SameMemo *memo_slot(Solver *s, uint64_t k) {
  return &s->same_memo[k & (((size_t)1 << SAME_MEMO_BITS) - 1)];
}

/*
 * The question for one capture. bound (TT_LEN_INF: none) is the budget of the
 * node being searched, the plies left after the interposition: the answer is
 * the rule's own, except that a reply r after which the capture's position
 * needs more than max(bound, 1) plies while r, a real reply without the
 * interposition (z is the position before it, a drop), needs no more, may be
 * answered SAME_NOT_WITHIN: "no" for this budget and smaller ones. It changes
 * no answer of the search: were the interposition futile, r itself would last
 * longer than the budget.
 */
enum { SAME_NO = 0, SAME_YES = 1, SAME_NOT_WITHIN = 2 };

static int same_compute(Solver *s, const Position *a, Move capture, int bound, bool drop) {
  Color att = a->side, def = color_flip(att);
  Square sq = move_to(capture);
  Position y;
  hand_back_position(a, capture, &y);
  Position z = *a;
  Piece on = z.board[sq];
  pos_remove(&z, sq);
  z.hand[def] = hand_add(z.hand[def], pt_demote(piece_type(on)));
  z.side = def;
  pos_finish_setup(&z);
  /* drops of every kind on a square meet the same y and z */
  uint64_t k = memo_key(mix(pos_key(&y) ^ mix(pos_key(&z) + 0x5a3e)));
  SameMemo *e = memo_slot(s, k);
  if (e->key == k) return e->value;
  MoveList ev;
  movegen_legal(&y, &ev);
  /* a reply the capture made possible is a change: no search needed */
  if (!solver_replies_within(&ev, &z)) {
    e->key = k;
    e->value = SAME_NO;
    return SAME_NO;
  }
  Bitboard zbetween = drop ? search_distant_check(&z) : 0;
  /* First what costs no search (the mates in 1: they decide most questions),
   * then the lengths. */
  bool open[MAX_MOVES];
  int v = SAME_YES;
  for (int i = 0; i < ev.size; i++) open[i] = false;
  for (int i = 0; i < ev.size && v == SAME_YES; i++) {
    Move r = ev.moves[i];
    Position yr = y, zr = z;
    Undo ur, uz;
    pos_do_move(&yr, r, &ur);
    if (mate1_find(&yr) != MOVE_NONE) continue; /* 1 ply: never longer than z·r */
    pos_do_move(&zr, r, &uz);
    if (mate1_find(&zr) != MOVE_NONE) {
      /* z·r lasts 1 ply: so must y·r (a check answered by futile interpositions alone) */
      int ly = same_found(s, &yr, att, 1);
      if (ly == SOLVER_VALUE_UNKNOWN) return -1;
      if (ly < 0) v = SAME_NO;
      continue;
    }
    open[i] = true;
  }
  int cut = bound < TT_LEN_INF ? (bound > 1 ? bound : 1) : TT_LEN_INF - 2;
  for (int i = 0; i < ev.size && v == SAME_YES; i++) {
    if (!open[i]) continue;
    Move r = ev.moves[i];
    Position yr = y;
    Undo ur;
    pos_do_move(&yr, r, &ur);
    /* without the interposition (a drop: z is the node searched) r is a real reply there */
    bool real = drop && !bb_test(zbetween, move_to(r));
    int ly = same_found(s, &yr, att, real ? cut : TT_LEN_INF - 2);
    if (ly == SOLVER_VALUE_UNKNOWN) return -1;
    if (ly < 0) {
      v = real && cut < TT_LEN_INF - 2 ? SAME_NOT_WITHIN : SAME_NO;
      break;
    }
    if (ly <= 1) continue;
    Position zr = z;
    Undo uz;
    pos_do_move(&zr, r, &uz);
    int f = no_longer(s, &yr, &zr, att, ly);
    if (f < 0) return -1;
    if (!f) v = SAME_NO; /* shorter without the interposition */
  }
  if (v != SAME_NOT_WITHIN) {
    e->key = k;
    e->value = (int8_t)v;
  }
  return v;
}

static uint64_t same_key(const Position *a, uint64_t bh, Move capture) {
  return memo_key(mix(bh ^ mix(((uint64_t)a->hand[BLACK] << 32) ^ a->hand[WHITE]) ^ ((uint64_t)move_compact(capture) << 1)));
}

int search_same_known(Solver *s, const Position *a, uint64_t bh, Move capture, int bound) {
  if (!s->opt.futile_rule || !s->opt.futile_compare) return 1;
  if (!s->same_memo) return -1;
  uint64_t k = same_key(a, bh, capture);
  SameMemo *e = memo_slot(s, k);
  if (e->key == k) return e->value;
  /* a "not within" answer holds for its budget and smaller ones */
  uint64_t kb = memo_key(mix(k ^ 0x77));
  SameMemo *eb = memo_slot(s, kb);
  if (eb->key == kb && bound <= eb->value) return 2;
  return -1;
}

int search_same_mate(Solver *s, const Position *a, uint64_t bh, Move capture, bool drop, int bound) {
  if (!s->opt.futile_rule || !s->opt.futile_compare) return 1;
  if (!same_ready(s)) {
    s->stopped = true;
    s->stop_reason = "memory";
    return -1;
  }
  int known = search_same_known(s, a, bh, capture, bound);
  if (known >= 0) return known;
  uint64_t k = same_key(a, bh, capture), kb = memo_key(mix(k ^ 0x77));
  SameMemo *e = memo_slot(s, k), *eb = memo_slot(s, kb);
  int v = same_compute(s, a, capture, bound, drop);
  if (v < 0) return same_stopped(s);
  if (v == SAME_NOT_WITHIN) {
    eb->key = kb;
    eb->value = (int8_t)(bound < 127 ? bound : 127);
    return 2;
  }
  e->key = k;
  e->value = (int8_t)v;
  return v;
}

int search_same_within(Solver *s, const Position *a, uint64_t bh, Move capture, int bound) {
  if (!same_ready(s)) {
    s->stopped = true;
    s->stop_reason = "memory";
    return -1;
  }
  uint64_t k = memo_key(mix(same_key(a, bh, capture) ^ 0x3c1d ^ ((uint64_t)(uint32_t)bound << 20)));
  SameMemo *e = memo_slot(s, k);
  if (e->key == k) return e->value;
  Position y;
  hand_back_position(a, capture, &y);
  int v = same_found(s, &y, a->side, bound);
  if (v == SOLVER_VALUE_UNKNOWN) return same_stopped(s);
  e->key = k;
  e->value = (int8_t)(v >= 0);
  return v >= 0;
}
