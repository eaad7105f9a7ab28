/*
 * dfpn.c - the df-pn engine (Nagai 2002) for tsume rules, shared by every
 * search of the solver (first proof, "mate within L" questions, PDS, multi-path).
 *
 * A node is the working position s->pos plus a length budget `len` (plies the
 * attacker may still use; TT_LEN_INF = unbounded) and, at an OR node reached by
 * a candidate futile interposition, its square `futsq` (see CHILD_VIRTUAL).
 *
 * Children carry cached (pn, dn, len, hand); the node loop picks the best child
 * (least pn at OR nodes, least dn at AND nodes) with the usual df-pn thresholds,
 * the second-best bound widened by 1/4 (the 1+epsilon trick) to cut thrashing.
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "checkgen.h"
#include "mate1.h"
#include "movegen.h"
#include "search.h"

uint64_t solver_now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static inline uint64_t mix64(uint64_t z) {
  z += 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

/* ---------------------------------------------------------------- hands */

static inline Hand hand_max2(Hand a, Hand b) {
  Hand r = 0;
  for (int t = PAWN; t <= GOLD; t++) {
    int x = hand_count(a, (PieceType)t), y = hand_count(b, (PieceType)t);
    r = hand_set(r, (PieceType)t, x > y ? x : y);
  }
  return r;
}

static inline Hand hand_min2(Hand a, Hand b) {
  Hand r = 0;
  for (int t = PAWN; t <= GOLD; t++) {
    int x = hand_count(a, (PieceType)t), y = hand_count(b, (PieceType)t);
    r = hand_set(r, (PieceType)t, x < y ? x : y);
  }
  return r;
}

/* ---------------------------------------------------------------- keys */

void search_keys_init(Solver *s) {
  uint64_t x = 0x7473756d65ULL; /* fixed: keys are the same in every run */
  for (int q = 0; q < SQ_NB; q++) {
    for (int p = 0; p < PIECE_NB; p++) s->zob_psq[q][p] = mix64(x += 0x9e3779b97f4a7c15ULL);
    s->zob_psq[q][PIECE_NONE] = 0; /* an empty square: move hashes xor it in for "no capture" */
  }
  memset(s->zob_psq[SQ_NB], 0, sizeof s->zob_psq - sizeof s->zob_psq[0] * SQ_NB);
  s->zob_side = mix64(x += 0x9e3779b97f4a7c15ULL);
  for (int q = 0; q < SQ_NB; q++) s->zob_fut[q] = mix64(0x5a5a0000u + (uint64_t)q);
  for (int p = 0; p < PIECE_NB; p++) {
    PieceType t = piece_type((Piece)p);
    s->hand_take[p] = t != PT_NONE && t != KING && t < PT_NB ? hand_add(0, pt_demote(t)) : 0;
  }
  for (int f = 0; f < SQ_NB + HAND_PT_NB; f++)
    s->hand_drop[f] = f > SQ_NB ? hand_add(0, (PieceType)(f - SQ_NB)) : 0; /* from SQ_NB + t: a drop of t */
  for (int a = 0; a < SQ_NB; a++)
    for (int b = 0; b < SQ_NB; b++)
      s->dist4[a][b] = (uint8_t)(4 * (abs(sq_file(a) - sq_file(b)) + abs(sq_rank(a) - sq_rank(b))));
  memset(s->dist4[SQ_NONE], 0, sizeof s->dist4[SQ_NONE]);
}

uint64_t search_board_hash(const Solver *s, const Position *pos) {
  uint64_t h = pos->side == WHITE ? s->zob_side : 0;
  for (Bitboard occ = pos_occupied(pos); occ;) {
    Square q = bb_pop(&occ);
    h ^= s->zob_psq[q][pos->board[q]];
  }
  return h;
}

/* search_move_hash for a generated move: its piece is taken from m (bits 15..19,
 * types.h), zob_psq[to][PIECE_NONE] = 0 takes the place of a capture test, and the
 * zero rows of drops' "from" fields that of a drop test (a drop lands on an empty
 * square and never promotes). */
static inline uint64_t move_hash(const Solver *s, const Position *pos, uint64_t bh, Move m) {
  Square to = move_to(m);
  Piece p = move_piece(m);
  Piece np = (Piece)(p + (move_is_promote(m) ? PT_PROMOTE : 0));
  Piece cap = pos->board[to];
  return bh ^ s->zob_side ^ s->zob_psq[move_from(m)][p] ^ s->zob_psq[to][np] ^ s->zob_psq[to][cap];
}

uint64_t search_move_hash(const Solver *s, const Position *pos, uint64_t bh, Move m) {
  Square to = move_to(m);
  bh ^= s->zob_side;
  if (move_is_drop(m)) return bh ^ s->zob_psq[to][piece_make(pos->side, move_drop_type(m))];
  Square from = move_from(m);
  Piece p = pos->board[from], cap = pos->board[to];
  Piece np = move_is_promote(m) ? (Piece)(p + PT_PROMOTE) : p;
  return bh ^ s->zob_psq[from][p] ^ s->zob_psq[to][np] ^ s->zob_psq[to][cap];
}

uint64_t search_key(const Solver *s, int futsq) {
  uint64_t k = s->bh ^ s->salt;
  if (futsq >= 0) k ^= s->zob_fut[futsq & FUT_SQ];
  return k ? k : 1;
}

static inline uint64_t key_of(const Solver *s, uint64_t bh, int futsq) {
  uint64_t k = bh ^ s->salt;
  if (futsq >= 0) k ^= s->zob_fut[futsq & FUT_SQ];
  return k ? k : 1;
}

uint64_t search_full_key(uint64_t bh, Hand attacker_hand) {
  return bh ^ mix64((uint64_t)attacker_hand * 2654435761u + 17);
}

/* The attacker's hand after move m (played from pos; virtual captures hand the piece back). */
static inline Hand hand_after(const Solver *s, const Position *pos, Move m, bool virt) {
  Hand h = pos->hand[s->attacker];
  if (pos->side != s->attacker || virt) return h;
  /* a drop lands on an empty square: at most one of the two is not 0 */
  return h - s->hand_drop[move_from(m)] + s->hand_take[pos->board[move_to(m)]];
}

static inline uint64_t path_next(uint64_t pk, Move m, bool virt) {
  return mix64(pk ^ ((uint64_t)move_compact(m) << 1 | (virt ? 1u : 0u)) ^ 0x1234567ULL) + pk * 3;
}

/* ---------------------------------------------------------------- repetition table */

void search_rep_add(Solver *s, uint64_t pk, int rdep, int len) {
  RepTable *r = &s->rep;
  size_t i = pk & r->mask;
  int k = 0;
  for (; k < 8; k++, i = (i + 1) & r->mask)
    if (r->gen[i] != r->cur || r->key[i] == pk) break;
  if (k == 8) i = pk & r->mask; /* full: overwrite (the table is allowed to forget) */
  r->gen[i] = r->cur;
  r->key[i] = pk;
  r->depth[i] = (int16_t)rdep;
  r->len[i] = (int16_t)len;
}

int search_rep_find(const Solver *s, uint64_t pk, int need, int *len) {
  const RepTable *r = &s->rep;
  size_t i = pk & r->mask;
  for (int k = 0; k < 8; k++, i = (i + 1) & r->mask) {
    if (r->gen[i] != r->cur) return REP_NONE;
    if (r->key[i] == pk) {
      /* a disproof within a budget answers that budget and smaller ones only */
      if (r->len[i] < need) return REP_NONE;
      *len = r->len[i];
      return r->depth[i];
    }
  }
  return REP_NONE;
}

/* ---------------------------------------------------------------- path */

static inline void path_push(Solver *s, int depth, uint64_t full) {
  s->path_full[depth] = full;
  s->rep_filter[full & ((1u << REP_BITS) - 1)]++;
}

static inline void path_pop(Solver *s, int depth) {
  s->rep_filter[s->path_full[depth] & ((1u << REP_BITS) - 1)]--;
}

/* The depth of `full` among the positions at depths [0, depth) (the deepest), REP_NONE when absent. */
static inline int path_find(const Solver *s, int depth, uint64_t full) {
  if (!s->rep_filter[full & ((1u << REP_BITS) - 1)]) return REP_NONE;
  for (int d = depth - 2; d >= 0; d -= 2) /* same side to move only */
    if (s->path_full[d] == full) return d;
  return REP_NONE;
}

/* ---------------------------------------------------------------- setup */

void search_begin(Solver *s, Color attacker, bool futile) {
  Position *pos = &s->pos;
  s->attacker = attacker;
  int total[HAND_PT_NB] = {0};
  for (Bitboard occ = pos_occupied(pos); occ;) {
    Square q = bb_pop(&occ);
    if (piece_type(pos->board[q]) != KING) total[pt_demote(piece_type(pos->board[q]))]++;
  }
  /* lengths under the 無駄合 rule and strict ones must not meet in the table */
  uint64_t salt = mix64(0xabcdefu + (uint64_t)s->attacker + (s->opt.futile_rule ? 0x100u : 0u) +
                       (s->opt.futile_rule && s->opt.futile_compare ? 0x200u : 0u));
  for (int t = PAWN; t <= GOLD; t++) {
    total[t] += hand_count(pos->hand[BLACK], (PieceType)t) + hand_count(pos->hand[WHITE], (PieceType)t);
    salt = mix64(salt ^ ((uint64_t)total[t] << (t * 5)));
  }
  s->salt = salt;
  s->bh = search_board_hash(s, pos);
  s->futile = futile;
  s->depth_hit = false;
  s->rep.cur++;
  if (s->rep.cur == 0) {
    memset(s->rep.gen, 0, (s->rep.mask + 1) * sizeof *s->rep.gen);
    s->rep.cur = 1;
  }
  /* rep_filter needs no reset: every push is popped, even when a search stops */
  s->arena_top = 0;
}

void search_check_limits(Solver *s) {
  if (s->stopped) return;
  if (s->opt.stop && *s->opt.stop) {
    s->stopped = true;
    s->stop_reason = "stop";
    return;
  }
  if (s->opt.halt && __atomic_load_n(s->opt.halt, __ATOMIC_RELAXED)) {
    s->stopped = true;
    s->stop_reason = "halt";
    return;
  }
  if (s->node_limit && s->nodes >= s->node_limit) {
    s->stopped = true;
    s->stop_reason = "nodes";
    return;
  }
  if (s->deadline_ms || s->opt.progress) {
    uint64_t now = solver_now_ms();
    if (s->deadline_ms && now >= s->deadline_ms) {
      s->stopped = true;
      s->stop_reason = "time";
      return;
    }
    if (s->opt.progress && now >= s->next_progress_ms) {
      s->next_progress_ms = now + (s->opt.progress_ms ? s->opt.progress_ms : 1000);
      s->opt.progress(s->opt.progress_ctx, s->nodes, now - s->start_ms, tt_hashfull(&s->tt));
    }
  }
}

static inline bool search_abort(Solver *s) {
  if (s->node_limit && s->nodes >= s->node_limit && !s->stopped) {
    s->stopped = true;
    s->stop_reason = "nodes";
  }
  if (s->budget_stop && s->nodes + ((s->tt_probes * s->probe_w1024) >> 10) >= s->budget_stop) s->budget_hit = true;
  return s->stopped || s->budget_hit;
}

/* ---------------------------------------------------------------- rules helpers */

Bitboard search_distant_check(const Position *pos) {
  Square k = pos->king[pos->side];
  if (k == SQ_NONE || !pos->checkers || bb_more_than_one(pos->checkers)) return 0;
  Square c = bb_lsb(pos->checkers);
  PieceType t = piece_type(pos->board[c]);
  if (t != LANCE && t != BISHOP && t != ROOK && t != HORSE && t != DRAGON) return 0;
  return BETWEEN[k][c];
}

/* Squares where the defender (to move, in check) could interpose, 0 for none. */
static inline Bitboard interpose_squares(const Position *pos) {
  Square k = pos->king[pos->side];
  if (k == SQ_NONE || !pos->checkers || bb_more_than_one(pos->checkers)) return 0;
  return BETWEEN[k][bb_lsb(pos->checkers)];
}

/* At an AND node: pieces of a kind the defender lacks could become interpositions
 * if the attacker held fewer, so a proof must keep all of them. */
static inline Hand and_proof_fix(const Position *pos, Color attacker, Hand ph) {
  if (!interpose_squares(pos)) return ph;
  Hand def = pos->hand[color_flip(attacker)], att = pos->hand[attacker];
  for (int t = PAWN; t <= GOLD; t++)
    if (!hand_has(def, (PieceType)t) && hand_has(att, (PieceType)t))
      ph = hand_set(ph, (PieceType)t, hand_count(att, (PieceType)t));
  return ph;
}

Hand search_mate_proof_hand(const Position *pos, Color attacker) { return and_proof_fix(pos, attacker, 0); }

/* Not inlined into mid(): its move list stays out of the recursive search's frames. */
__attribute__((noinline)) bool search_capture_free(const Position *pos, Move capture) {
  Position q = *pos;
  Undo u;
  pos_do_move_unkeyed(&q, capture, &u);
  Square to = move_to(capture);
  if (!pos_attacked(&q, to, q.side, pos_occupied(&q))) return true;
  /* some defender piece attacks the square: free only if no legal move takes there */
  MoveList ev;
  if (q.checkers)
    movegen_evasions(&q, &ev);
  else
    movegen_legal(&q, &ev);
  for (int i = 0; i < ev.size; i++)
    if (!move_is_drop(ev.moves[i]) && move_to(ev.moves[i]) == to) return false;
  return true;
}

void search_virtual_do(Position *pos, Move capture, Undo *u, PieceType *returned) {
  pos_do_move(pos, capture, u);
  PieceType t = pt_demote(piece_type(u->captured));
  Color mover = color_flip(pos->side);
  pos->hand[mover] = hand_sub(pos->hand[mover], t);
  pos->hand[pos->side] = hand_add(pos->hand[pos->side], t);
  *returned = t;
}

void search_virtual_undo(Position *pos, Move capture, const Undo *u, PieceType returned) {
  Color mover = color_flip(pos->side);
  pos->hand[pos->side] = hand_sub(pos->hand[pos->side], returned);
  pos->hand[mover] = hand_add(pos->hand[mover], returned);
  pos_undo_move(pos, capture, u);
}

/* ---------------------------------------------------------------- arithmetic */

static inline uint32_t sat_add(uint32_t a, uint32_t b) {
  uint64_t x = (uint64_t)a + b;
  return x > PN_MAX ? PN_MAX : (uint32_t)x;
}

static inline uint32_t widen(uint32_t second) {
  if (second >= PN_MAX) return PN_INF - 1;
  uint64_t x = (uint64_t)second + 1 + second / 4;
  return x >= PN_INF - 1 ? PN_INF - 1 : (uint32_t)x;
}

/* A virtual child asks whether the capture-and-hand-back position is mated. With
 * the rule's second part and a budget, within the budget of the interposing
 * node (one more than this OR node's) and two plies for each square still
 * between the capturing piece and the king: were the interposition futile, each
 * reply after the capture would last no longer than without it, where a real
 * reply fits the budget and an interposition on a square between (futile there
 * too, or the same) at most two plies more. Else, and without the second part,
 * mated at all (the first part does not depend on the length). */
static inline int virtual_slack(const Position *pos, Move m) {
  return 1 + 2 * bb_popcount(BETWEEN[pos->king[color_flip(pos->side)]][move_to(m)]);
}

static inline int child_len_virtual(const Solver *s, const Position *pos, int len, Move m) {
  if (len >= TT_LEN_INF || !s->opt.futile_rule || !s->opt.futile_compare) return TT_LEN_INF;
  int v = len + virtual_slack(pos, m);
  return v < TT_LEN_INF ? v : TT_LEN_INF;
}

static inline int child_len(int len) { return len >= TT_LEN_INF ? TT_LEN_INF : len - 1; }

/* One child in the choice of the best: the least number (pn at OR nodes, dn at AND nodes),
 * among equals the least order key, then the first. *bk packs the best's number over its
 * order key (UINT64_MAX before the first child); *second is the least number of the others,
 * the loser of each comparison. Written as minima and maxima so that the compiler uses
 * conditional moves: which child wins is data the branch predictor cannot learn. */
static inline void best_step(uint64_t *bk, uint32_t *second, int *best, uint32_t num, uint32_t order, int i) {
  uint64_t k = (uint64_t)num << 32 | order, b = *bk;
  uint32_t loser = (uint32_t)((k < b ? b : k) >> 32);
  *second = loser < *second ? loser : *second;
  *best = k < b ? i : *best;
  *bk = k < b ? k : b;
}

/* ---------------------------------------------------------------- children */

/* Appends child c to a node's children, its board hash bh beside it for children_lookup. */
static inline void child_add(Child *ch, LookupScratch *ls, int *n, Child c, uint64_t bh) {
  ls[*n].bh = bh;
  ch[(*n)++] = c;
}

static bool arena_reserve(Solver *s, size_t n) {
  if (s->arena_top + n <= s->arena_cap) return true;
  size_t cap = s->arena_cap * 2;
  while (cap < s->arena_top + n) cap *= 2;
  Child *a = realloc(s->arena, cap * sizeof *a);
  if (!a) return false;
  s->arena = a;
  s->arena_cap = cap;
  return true;
}

/* Initial proof number of the AND node after the check m (played from pos, the
 * attacker to move): one plus the king's safe squares, so checks that leave the
 * king room wait. Only the board matters, so a virtual capture counts as the capture.
 * nr: pos_near_init(nr, pos, the defender's king), k: that king. */
static inline uint32_t escape_estimate(const Position *pos, const PosNear *nr, Square k, Move m) {
  Color def = color_flip(pos->side);
  Square to = move_to(m);
  Bitboard occ = pos_occupied(pos) | BB_SQ[to];
  if (!move_is_drop(m)) occ &= ~BB_SQ[move_from(m)];
  Bitboard b = STEP_ATTACKS[def][KING][k] & ~(pos->by_color[def] & ~BB_SQ[to]);
  return 1 + (uint32_t)bb_popcount_sparse(b & ~pos_near_after(nr, pos, m, b, occ & ~BB_SQ[k]));
}

/* A child disproven by a repetition keeps the repeated depth in its hand field (search.h). */
static inline void child_set_rep(Child *c, int rdep) {
  c->flags |= CHILD_REP;
  c->hand = (Hand)rdep;
}

static inline int child_rep_depth(const Child *c) { return (int)c->hand; }

/* At a disproven AND node, is x a better witness than y: one that holds on any path first, among
 * repetitions the deepest repeated position (resolved soonest), then the longest. */
static inline bool and_disproof_better(const Child *x, const Child *y) {
  bool xr = x->flags & CHILD_REP, yr = y->flags & CHILD_REP;
  if (xr != yr) return !xr;
  if (xr && child_rep_depth(x) != child_rep_depth(y)) return child_rep_depth(x) > child_rep_depth(y);
  return x->len > y->len;
}

/* An OR node's disproof number in a search that expects no mate: the checks of one node share
 * much of their refutations (the same escapes, the same squares), so all but the largest add
 * half their disproof numbers (sum: their plain sum). */
static inline uint32_t or_dn_expecting_nomate(const Child *ch, int n, uint32_t sum) {
  uint32_t max = 0;
  for (int i = 0; i < n; i++)
    if (ch[i].dn > max) max = ch[i].dn;
  return sum > max ? sat_add(max, (sum - max) / 2) : sum;
}

/* A virtual child proven (its capture-and-hand-back position mated) stands only
 * when the rule's second part holds too (samemate.c): else it is no way to mate,
 * for any budget (or for this budget). A stopped question leaves it open. An
 * unbounded node asks "mated at all?", which the second part does not change (the
 * capture itself mates wherever the hand-back position is mated): there it is not
 * asked, and the node's proof gets no length (CHILD_UNASKED). */
static void virtual_settle(Solver *s, Child *c, const Child *twin, int len, int futsq) {
  c->flags &= (uint8_t)~CHILD_UNASKED;
  if (!(c->flags & CHILD_VIRTUAL)) return;
  if (c->dn == 0 && ((c->flags & CHILD_REP) || c->len < TT_LEN_INF) && len < TT_LEN_INF && s->opt.futile_rule &&
      s->opt.futile_compare) {
    /* not mated within the budget under the whole rule (or not on this path): the budget's
     * argument (child_len_virtual) is about the lengths of the rule's first part, under which
     * a deeper interposition that the second part counts as a defence is futile, so those
     * lengths decide whether this one can be futile within the budget */
    int w = search_same_within(s, &s->pos, s->bh, c->move, child_len_virtual(s, &s->pos, len, c->move));
    if (w == 0) return; /* a defence at this budget */
    c->flags &= (uint8_t)~CHILD_REP;
    c->pn = w > 0 ? 0 : 1; /* mated within it: on to the second part; -1: stopped, left open */
    c->dn = w > 0 ? PN_INF : 1;
    if (w < 0) return;
  }
  if (c->pn != 0) return;
  if (twin && twin->pn == 0 && twin->move == c->move && !(twin->flags & CHILD_VIRTUAL)) {
    /* the capture itself mates within the budget: the node is proven whatever the rule says of
     * the interposition, and the question is not asked */
    c->pn = 1;
    c->dn = 1;
    return;
  }
  if (len >= TT_LEN_INF && s->opt.futile_rule && s->opt.futile_compare) {
    c->flags |= CHILD_UNASKED;
    return;
  }
  int v = search_same_mate(s, &s->pos, s->bh, c->move, !(futsq & FUT_MOVED), len);
  if (v == 1) {
    /* the second part compares two mates of this very hand and is not monotone in it (a
     * piece more or less for the attacker can shorten the mate without the interposition
     * more than the one after its capture): the answer holds for this hand only, not for
     * the smaller proof hand of the capture-and-hand-back position, nor for larger ones */
    c->hand = s->pos.hand[s->attacker];
    c->flags |= CHILD_HAND_ONLY;
    return;
  }
  if (v == 0 || v == 2) {
    c->pn = PN_INF;
    c->dn = 0;
    c->len = v == 0 ? TT_LEN_INF : (int16_t)child_len_virtual(s, &s->pos, len, c->move); /* 2: this budget */
    c->hand = s->pos.hand[s->attacker];
    c->flags &= (uint8_t)~CHILD_REP;
    c->flags |= CHILD_HAND_ONLY;
  } else {
    c->pn = 1;
    c->dn = 1;
  }
}

/* A drop after another drop on its square (an AND node's drops are sorted by square,
 * then kind, see mid). */
static inline bool drop_follows(const Child *ch, int i) {
  return i > 0 && move_is_drop(ch[i].move) && move_is_drop(ch[i - 1].move) &&
         move_to(ch[i].move) == move_to(ch[i - 1].move);
}

/* Delayed expansion of an AND node's drops: a drop waits while the one before it on its
 * square is not proven; it is neither looked up nor counted in the node's numbers. */
static inline bool drop_waits(const Child *ch, int i) { return drop_follows(ch, i) && ch[i - 1].pn != 0; }

/* Looks up the children [0, n) of the node on s->pos: first every child key
 * (prefetching its cluster), then the table, so memory latency overlaps. hashed:
 * s->lookup[i].bh holds child i's board hash (the expansion computed it). At an AND
 * node a drop that waits for an open drop of a cheaper kind on its square is not
 * looked up (it stays 1/1): mid looks it up when the one before it is proven. */
static void children_lookup(Solver *s, Child *ch, int n, int len, int depth, uint64_t pk, int futsq, bool hashed) {
  Position *pos = &s->pos;
  LookupScratch *ls = s->lookup;
  /* most children keep the attacker's hand: its part of the full key is shared */
  const Hand h0 = pos->hand[s->attacker];
  const uint64_t full0 = search_full_key(0, h0);
  const Square ek = pos->king[color_flip(pos->side)];
  const bool and_node = pos->side != s->attacker;
  PosNear nr;
  bool nr_ready = false;
  for (int i = 0; i < n; i++) {
    Child *c = &ch[i];
    bool virt = c->flags & CHILD_VIRTUAL;
    int cfut = (c->flags & CHILD_FUTCAND) ? move_to(c->move) : -1;
    uint64_t cbh = hashed ? ls[i].bh : move_hash(s, pos, s->bh, c->move);
    ls[i].key = key_of(s, cbh, cfut);
    ls[i].hand = hand_after(s, pos, c->move, virt);
    ls[i].full = ls[i].hand == h0 ? cbh ^ full0 : search_full_key(cbh, ls[i].hand);
    if (and_node && drop_follows(ch, i)) continue; /* most wait: no load for them */
    tt_prefetch(&s->tt, ls[i].key);
    __builtin_prefetch(&s->rep_filter[ls[i].full & ((1u << REP_BITS) - 1)]);
  }
  for (int i = 0; i < n; i++) {
    Child *c = &ch[i];
    bool virt = c->flags & CHILD_VIRTUAL;
    if (and_node && drop_waits(ch, i)) continue; /* keeps the expansion's 1/1 */
    uint32_t est = (c->flags & CHILD_EST) ? c->pn : 0;
    c->flags &= (uint8_t)~CHILD_EST;
    int rd = path_find(s, depth + 1, ls[i].full);
    int rlen = TT_LEN_INF; /* a repetition on the path: no mate along it at any length */
    TTProbe p;
    if (rd == REP_NONE) {
      int clen = virt ? child_len_virtual(s, pos, len, c->move) : child_len(len);
      tt_probe(&s->tt, ls[i].key, ls[i].hand, clen, &p);
      s->tt_probes++;
      if (p.flags & TT_FLAG_REP) rd = search_rep_find(s, path_next(pk, c->move, virt), clen, &rlen);
    }
    if (rd != REP_NONE) {
      c->pn = PN_INF;
      c->dn = 0;
      c->len = (int16_t)rlen;
      c->flags &= (uint8_t)~CHILD_HAND_ONLY;
      child_set_rep(c, rd);
    } else {
      c->pn = p.pn;
      c->dn = p.dn;
      c->len = p.len;
      c->hand = p.hand;
      c->flags &= (uint8_t)~(CHILD_REP | CHILD_HAND_ONLY);
      if (p.hand_only) c->flags |= CHILD_HAND_ONLY;
      if (virt) virtual_settle(s, c, i > 0 ? &ch[i - 1] : NULL, len, futsq);
      if (!p.exact && p.pn && p.dn && pos->side == s->attacker) {
        /* df-pn+: a new AND node starts from an estimate */
        if (!est && ek == SQ_NONE) {
          est = 1;
        } else if (!est) {
          if (!nr_ready) pos_near_init(&nr, pos, ek);
          nr_ready = true;
          est = escape_estimate(pos, &nr, ek, c->move);
        }
        c->pn = est;
      }
    }
  }
}

/* Static order: at OR nodes captures and promotions near the king first, drops of
 * strong pieces adjacent to the king next; at AND nodes captures of the checker,
 * then king moves, then interpositions by moves, then drops (cheap ones first).
 * dist4 = s->dist4[enemy king], the king distance of every square times 4. */
static inline uint32_t order_key_or(const Position *pos, const uint8_t *dist4, Move m) {
  Square to = move_to(m);
  uint32_t k = dist4[to];
  if (move_is_drop(m)) return k;
  if (pos->board[to]) k -= k > 2 ? 2 : k;
  if (!move_is_promote(m) && pt_can_promote(piece_type(move_piece(m))) &&
      (bb_test(BB_ZONE[pos->side], to) || bb_test(BB_ZONE[pos->side], move_from(m))))
    k += 3; /* a non-promotion where promotion was possible: rarely best */
  return k;
}

static inline uint32_t order_key_and(const Position *pos, Move m) {
  if (move_is_drop(m)) return 100 + (uint32_t)move_drop_type(m);
  if (pos->board[move_to(m)]) return 0;
  if (piece_type(move_piece(m)) == KING) return 10;
  return 20;
}

/* ---------------------------------------------------------------- the node */

static SearchResult mid(Solver *s, uint32_t thpn, uint32_t thdn, int len, int depth, uint64_t pk, int futsq);

static SearchResult result_make(uint32_t pn, uint32_t dn, int len, Hand h, bool rep) {
  SearchResult r = {pn, dn, (int16_t)len, h, rep, -1, false};
  return r;
}

static SearchResult mid(Solver *s, uint32_t thpn, uint32_t thdn, int len, int depth, uint64_t pk, int futsq) {
  Position *pos = &s->pos;
  const Color att = s->attacker;
  s->nodes++;
  if (depth > s->sel_depth) s->sel_depth = depth;
  if ((s->nodes & 1023) == 0) search_check_limits(s);
  if (depth >= SOLVER_MAX_DEPTH - 2) {
    s->depth_hit = true;
    return result_make(PN_INF, 0, TT_LEN_INF, 0, true);
  }
  const bool or_node = pos->side == att;
  const Hand hand = pos->hand[att];
  const uint64_t key = search_key(s, futsq);
  const uint64_t nodes0 = s->nodes;
  const bool bounded = len < TT_LEN_INF;

  TTProbe self;
  SearchResult res;
  tt_probe(&s->tt, key, hand, len, &self);
  s->tt_probes++;
  if (self.pn == 0 || self.dn == 0) {
    res = result_make(self.pn, self.dn, self.len, self.hand, false);
    res.hand_only = self.hand_only;
    return res;
  }

  MoveList *ml = &s->scratch; /* expansion finishes before any recursion */
  size_t base = s->arena_top;
  int n = 0;
  bool len_cut = false;

  if (or_node) {
    checkgen_generate(pos, ml);
    bool real_ok = !bounded || len >= 1;
    if (!ml->size) {
      /* no check at all: more of a kind already held adds no check, a new kind might */
      Hand def = pos->hand[color_flip(att)], dp = 0;
      for (int t = PAWN; t <= GOLD; t++)
        if (hand_has(hand, (PieceType)t))
          dp = hand_set(dp, (PieceType)t, hand_count(hand, (PieceType)t) + hand_count(def, (PieceType)t));
      res = result_make(PN_INF, 0, TT_LEN_INF, dp, false);
      goto store;
    }
    /* est[i]: escape estimate of the AND node after move i, 0 when not known */
    uint32_t *est = s->escape_est;
    uint64_t *mbh = s->move_bh;
    bool have_est = real_ok && s->opt.use_mate1 && !self.exact;
    if (have_est) { /* once: a stored node has been tried */
      const Square ek = pos->king[color_flip(att)]; /* on the board: there are checks */
      PosNear nr;
      pos_near_init(&nr, pos, ek);
      /* the children's clusters load while the 1-ply mate test runs */
      for (int i = 0; i < ml->size; i++) {
        mbh[i] = move_hash(s, pos, s->bh, ml->moves[i]);
        tt_prefetch(&s->tt, key_of(s, mbh[i], -1));
      }
      for (int i = 0; i < ml->size; i++) {
        Move m = ml->moves[i];
        /* every move here checks a king that is on the board: the king's free
         * squares give the estimate and, when there is one, refute the mate
         * without playing the move */
        est[i] = escape_estimate(pos, &nr, ek, m);
        if (est[i] > 1) continue;
        Undo u;
        pos_do_move_unkeyed(pos, m, &u);
        assert(pos->king[pos->side] != SQ_NONE && pos->checkers);
        bool esc = mate1_has_other_evasion(pos);
        Hand ph = esc ? 0 : search_mate_proof_hand(pos, att);
        pos_undo_move(pos, m, &u);
        if (!esc) {
          if (move_is_drop(m)) {
            ph = hand_add(ph, move_drop_type(m));
          } else if (pos->board[move_to(m)]) {
            PieceType ct = pt_demote(piece_type(pos->board[move_to(m)]));
            if (hand_has(ph, ct)) ph = hand_sub(ph, ct);
          }
          res = result_make(0, PN_INF, 1, ph, false);
          tt_store(&s->tt, key, hand, len, 0, PN_INF, ph, 1, 1, move_compact(m));
          return res;
        }
      }
    }
    if (!arena_reserve(s, (size_t)ml->size * 2)) {
      s->stopped = true;
      s->stop_reason = "memory";
      return result_make(self.pn, self.dn, 0, hand, false);
    }
    /* Budget 1: only a mate at once counts (or, with the 無駄合 rule, a check
     * answered by interpositions alone); every other check is refuted without a node. */
    bool last = bounded && len == 1;
    bool any_mate1 = false;
    Child *ch = s->arena + base;
    LookupScratch *ls = s->lookup;
    const uint8_t *dist4 = s->dist4[pos->king[color_flip(att)]];
    for (int i = 0; i < ml->size; i++) {
      Move m = ml->moves[i];
      uint64_t cbh = have_est ? mbh[i] : move_hash(s, pos, s->bh, m);
      if (last && real_ok) {
        Undo u;
        pos_do_move_unkeyed(pos, m, &u);
        bool keep = false;
        if (!mate1_has_evasion(pos)) {
          keep = any_mate1 = true;
        } else if (s->futile) {
          Bitboard btw = search_distant_check(pos);
          if (btw) {
            MoveList *ev = &s->scratch2;
            movegen_evasions(pos, ev);
            keep = true;
            for (int j = 0; j < ev->size && keep; j++) keep = bb_test(btw, move_to(ev->moves[j]));
          }
        }
        pos_undo_move(pos, m, &u);
        if (!keep) {
          if (futsq >= 0 && move_to(m) == (futsq & FUT_SQ) && !move_is_drop(m) && search_capture_free(pos, m))
            child_add(ch, ls, &n, (Child){m, 1, 1, 0, CHILD_VIRTUAL, 0, 0, order_key_or(pos, dist4, m)}, cbh);
          continue;
        }
      }
      uint32_t ok = order_key_or(pos, dist4, m);
      /* a known estimate rides in pn until children_lookup takes it */
      uint32_t e = have_est ? est[i] : 0;
      uint8_t ef = e ? CHILD_EST : 0;
      if (real_ok) child_add(ch, ls, &n, (Child){m, e ? e : 1, 1, 0, ef, 0, 0, ok}, cbh);
      if (futsq >= 0 && move_to(m) == (futsq & FUT_SQ) && !move_is_drop(m) && search_capture_free(pos, m))
        child_add(ch, ls, &n, (Child){m, e ? e : 1, 1, 0, (uint8_t)(CHILD_VIRTUAL | ef), 0, 0, ok}, cbh);
    }
    if (!real_ok || last) len_cut = true;
  } else {
    movegen_evasions(pos, ml);
    if (!ml->size) {
      Hand ph = search_mate_proof_hand(pos, att);
      res = result_make(0, PN_INF, 0, ph, false);
      goto store;
    }
    Bitboard fut = s->futile ? search_distant_check(pos) : 0;
    if (!arena_reserve(s, (size_t)ml->size)) {
      s->stopped = true;
      s->stop_reason = "memory";
      return result_make(self.pn, self.dn, 0, hand, false);
    }
    Child *ch = s->arena + base;
    LookupScratch *ls = s->lookup;
    for (int i = 0; i < ml->size; i++) {
      Move m = ml->moves[i];
      /* an interposition, dropped or moved there (移動合): a candidate of the 無駄合 rule */
      uint8_t fl = bb_test(fut, move_to(m)) ? CHILD_FUTCAND : 0;
      if (!fl && bounded && len < 2) {
        /* a real defence the budget cannot answer */
        res = result_make(PN_INF, 0, len, hand, false);
        goto store;
      }
      /* the clusters load while the children are built and sorted (a drop's in
       * children_lookup: most drops wait for a cheaper kind on their square) */
      uint64_t cbh = move_hash(s, pos, s->bh, m);
      if (!move_is_drop(m)) tt_prefetch(&s->tt, key_of(s, cbh, fl ? move_to(m) : -1));
      child_add(ch, ls, &n, (Child){m, 1, 1, 0, fl, 0, 0, order_key_and(pos, m)}, cbh);
    }
    /* Interpositions by drops: grouped by square, cheap kinds first. Only the first
     * open drop of a square takes part in the node (delayed expansion): once it is
     * proven the next kind usually follows from its proof pieces. */
    int first_drop = n;
    for (int i = 0; i < n; i++)
      if (move_is_drop(ch[i].move)) {
        first_drop = i;
        break;
      }
    for (int i = first_drop + 1; i < n; i++) {
      Child c = ch[i];
      uint64_t cbh = ls[i].bh;
      uint32_t kc = (uint32_t)move_to(c.move) * 16 + (uint32_t)move_drop_type(c.move);
      int j = i - 1;
      while (j >= first_drop && (uint32_t)move_to(ch[j].move) * 16 + (uint32_t)move_drop_type(ch[j].move) > kc) {
        ch[j + 1] = ch[j];
        ls[j + 1].bh = ls[j].bh;
        j--;
      }
      ch[j + 1] = c;
      ls[j + 1].bh = cbh;
    }
  }
  s->arena_top = base + (size_t)n;

  if (n == 0) {
    /* OR node whose real moves the budget forbids and without virtual moves */
    res = result_make(PN_INF, 0, len, hand, false);
    s->arena_top = base;
    goto store;
  }

  children_lookup(s, s->arena + base, n, len, depth, pk, futsq, true);

  /* The best move of the table entry goes first among equals. */
  if (self.best) {
    for (int i = 0; i < n; i++)
      if (move_compact(s->arena[base + (size_t)i].move) == self.best) {
        s->arena[base + (size_t)i].order = 0;
        break;
      }
  }

  uint32_t pn = 1, dn = 1;
  int best = -1;
  for (;;) {
    Child *ch = s->arena + base;
    /* aggregate */
    uint32_t sum = 0, min1 = PN_INF, min2 = PN_INF;
    best = -1;
    if (or_node) {
      uint64_t bk = UINT64_MAX;
      for (int i = 0; i < n; i++) {
        const Child *c = &ch[i];
        sum = sat_add(sum, c->dn);
        best_step(&bk, &min2, &best, c->pn, c->order, i);
      }
      min1 = (uint32_t)(bk >> 32);
      pn = min1;
      dn = s->expect_nomate ? or_dn_expecting_nomate(ch, n, sum) : sum;
      if (pn == 0) dn = PN_INF;
      if (pn >= PN_INF) dn = 0;
    } else {
      uint64_t bk = UINT64_MAX;
      for (int i = 0; i < n; i++) {
        const Child *c = &ch[i];
        if (drop_waits(ch, i)) continue;
        sum = sat_add(sum, c->pn);
        best_step(&bk, &min2, &best, c->dn, c->order, i);
      }
      min1 = (uint32_t)(bk >> 32);
      dn = min1;
      pn = sum;
      if (dn == 0) pn = PN_INF;
      if (dn >= PN_INF) pn = 0;
    }
    if (pn == 0 || dn == 0 || pn >= thpn || dn >= thdn || search_abort(s)) break;

    Child *c = &ch[best];
    uint32_t cthpn, cthdn;
    /* df-pn: the child may work until it is no longer the best (second best, widened);
     * PDS: it deepens by one step only (multiple iterative deepening at every node) */
    uint32_t bound = s->pds_mode ? sat_add(min1, 1) : widen(min2);
    if (or_node) {
      cthpn = thpn < bound ? thpn : bound;
      cthdn = thdn >= PN_INF - 1 ? PN_INF - 1 : thdn - dn + c->dn;
    } else {
      cthdn = thdn < bound ? thdn : bound;
      cthpn = thpn >= PN_INF - 1 ? PN_INF - 1 : thpn - pn + c->pn;
    }
    Move m = c->move;
    bool virt = c->flags & CHILD_VIRTUAL;
    int cfut = (c->flags & CHILD_FUTCAND) ? (int)move_to(m) | (move_is_drop(m) ? 0 : FUT_MOVED) : -1;
    uint64_t bh0 = s->bh;
    uint64_t cbh = move_hash(s, pos, bh0, m);
    tt_prefetch(&s->tt, key_of(s, cbh, cfut)); /* the child's own probe, while the move is played */
    uint64_t cfull = search_full_key(cbh, hand_after(s, pos, m, virt));
    Undo u;
    PieceType ret = PT_NONE;
    int clen = virt ? child_len_virtual(s, pos, len, m) : child_len(len);
    if (virt)
      search_virtual_do(pos, m, &u, &ret);
    else
      pos_do_move_unkeyed(pos, m, &u);
    s->bh = cbh;
    path_push(s, depth + 1, cfull);
    SearchResult r = mid(s, cthpn, cthdn, clen, depth + 1, path_next(pk, m, virt), cfut);
    path_pop(s, depth + 1);
    s->bh = bh0;
    if (virt)
      search_virtual_undo(pos, m, &u, ret);
    else
      pos_undo_move(pos, m, &u);
    c = &s->arena[base + (size_t)best];
    c->pn = r.pn;
    c->dn = r.dn;
    c->len = r.len;
    c->hand = r.hand;
    c->flags &= (uint8_t)~CHILD_HAND_ONLY;
    if (r.hand_only) c->flags |= CHILD_HAND_ONLY;
    if (r.dn == 0 && r.rep)
      child_set_rep(c, r.rdep);
    else
      c->flags &= (uint8_t)~CHILD_REP;
    if (virt) virtual_settle(s, c, best > 0 ? &s->arena[base + (size_t)best - 1] : NULL, len, futsq);
    if (!or_node && r.pn == 0 && move_is_drop(m)) {
      /* the next kind on this square becomes open: its proof may already be known, and
       * then the kind after it is open too */
      Child *ca = s->arena + base;
      for (int i = best + 1; i < n && drop_follows(ca, i) && !drop_waits(ca, i); i++)
        children_lookup(s, &ca[i], 1, len, depth, pk, futsq, false);
    }
  }

  {
    Child *ch = s->arena + base;
    bool only = false; /* the result rests on a child solved for its hand only */
    if (pn == 0) {
      if (or_node) {
        /* the proven child with the shortest mate */
        int bi = -1, bl = 0;
        for (int i = 0; i < n; i++) {
          if (ch[i].pn != 0) continue;
          /* a futile interposition is no defence: it adds nothing to the length of its AND node */
          int l = (ch[i].flags & CHILD_UNASKED) ? TT_LEN_INF
                  : (ch[i].flags & CHILD_VIRTUAL) ? -1
                  : ch[i].len >= TT_LEN_INF       ? TT_LEN_INF
                                                  : ch[i].len + 1;
          if (bi < 0 || l < bl) bi = i, bl = l;
        }
        Move m = ch[bi].move;
        Hand ph = ch[bi].hand;
        if (!(ch[bi].flags & CHILD_VIRTUAL)) {
          if (move_is_drop(m)) {
            ph = hand_add(ph, move_drop_type(m));
          } else if (pos->board[move_to(m)]) {
            PieceType ct = pt_demote(piece_type(pos->board[move_to(m)]));
            if (hand_has(ph, ct)) ph = hand_sub(ph, ct);
          }
        }
        ph = hand_min2(ph, hand);
        res = result_make(0, PN_INF, bl, ph, false);
        only = ch[bi].flags & CHILD_HAND_ONLY;
        best = bi;
      } else {
        int ml_ = 0;
        Hand ph = 0;
        for (int i = 0; i < n; i++) {
          int l = ch[i].len >= TT_LEN_INF ? TT_LEN_INF : ch[i].len + 1;
          if (l > ml_) ml_ = l;
          ph = hand_max2(ph, ch[i].hand);
          only |= (ch[i].flags & CHILD_HAND_ONLY) != 0;
        }
        if (ml_ < 0) ml_ = 0;
        ph = hand_min2(and_proof_fix(pos, att, ph), hand);
        res = result_make(0, PN_INF, ml_, ph, false);
      }
    } else if (dn == 0) {
      if (or_node) {
        int nl = len_cut ? len : TT_LEN_INF;
        Hand dp = 0x7fffffffu & ~HAND_BORROW_MASK; /* "every count": reduced below */
        bool rep = false;
        int rdep = SOLVER_MAX_DEPTH;
        for (int i = 0; i < n; i++) {
          Child *c = &ch[i];
          only |= (c->flags & CHILD_HAND_ONLY) != 0;
          if (c->flags & CHILD_REP) {
            rep = true;
            if (child_rep_depth(c) < rdep) rdep = child_rep_depth(c);
          }
          int l;
          Hand h = c->hand;
          if (c->flags & CHILD_VIRTUAL) {
            /* disproven within its budget: no mate by it within the budget that asked so */
            l = c->len >= TT_LEN_INF ? TT_LEN_INF : c->len - virtual_slack(pos, c->move);
          } else {
            l = c->len >= TT_LEN_INF ? TT_LEN_INF : c->len + 1;
            Move m = c->move;
            if (c->flags & CHILD_REP) {
              h = hand; /* a repetition: only the same hand is known */
            } else if (move_is_drop(m)) {
              h = hand_add(h, move_drop_type(m));
            } else if (pos->board[move_to(m)]) {
              PieceType ct = pt_demote(piece_type(pos->board[move_to(m)]));
              if (hand_has(h, ct)) h = hand_sub(h, ct);
            }
          }
          if (c->flags & CHILD_VIRTUAL && c->flags & CHILD_REP) h = hand;
          if (l < nl) nl = l;
          dp = hand_min2(dp, h);
        }
        for (int t = PAWN; t <= GOLD; t++)
          if (!hand_has(hand, (PieceType)t)) dp = hand_set(dp, (PieceType)t, 0);
        if (!hand_ge(dp, hand)) dp = hand;
        res = result_make(PN_INF, 0, nl, dp, rep);
        res.rdep = (int16_t)(rep ? rdep : -1);
      } else {
        int bi = -1;
        for (int i = 0; i < n; i++)
          if (ch[i].dn == 0 && (bi < 0 || and_disproof_better(&ch[i], &ch[bi]))) bi = i;
        Child *c = &ch[bi];
        int nl = c->len >= TT_LEN_INF ? TT_LEN_INF : c->len + 1;
        if ((c->flags & CHILD_FUTCAND) && nl > len) nl = len;
        Hand dp = (c->flags & CHILD_REP) ? hand : c->hand;
        if (move_is_drop(c->move)) {
          PieceType t = move_drop_type(c->move);
          int cap = hand_count(hand, t) + hand_count(pos->hand[pos->side], t) - 1;
          if (hand_count(dp, t) > cap) dp = hand_set(dp, t, cap);
        }
        if (!hand_ge(dp, hand)) dp = hand;
        res = result_make(PN_INF, 0, nl, dp, (c->flags & CHILD_REP) != 0);
        if (res.rep) res.rdep = (int16_t)child_rep_depth(c);
        only = c->flags & CHILD_HAND_ONLY;
        best = bi;
      }
    } else {
      res = result_make(pn, dn, len, hand, false);
    }
    if (only) {
      res.hand = hand;
      res.hand_only = true;
    }
  }
  uint16_t best_move = best >= 0 ? move_compact(s->arena[base + (size_t)best].move) : 0;
  s->arena_top = base;
  {
    uint64_t spent = s->nodes - nodes0 + self.amount;
    uint32_t amount = spent > UINT32_MAX ? UINT32_MAX : (uint32_t)spent;
    /* a disproof through repetitions of this node and its descendants only holds on any path:
     * whatever way the node is reached, the defender answers as here and the attacker never mates */
    if (res.dn == 0 && res.rep && res.rdep >= depth) res.rep = false;
    if (res.dn == 0 && res.rep) {
      search_rep_add(s, pk, res.rdep, res.len);
      tt_mark_rep(&s->tt, key, hand, len);
    } else {
      tt_store(&s->tt, key, hand, len, res.pn, res.dn, res.hand | (res.hand_only ? TT_HAND_ONLY : 0), res.len,
               amount, best_move);
    }
    if (s->tt.used * 4 > s->tt.size * 3) tt_gc(&s->tt);
  }
  return res;

store:
  if (!(res.dn == 0 && res.rep)) tt_store(&s->tt, key, hand, len, res.pn, res.dn, res.hand, res.len, 1, 0);
  return res;
}

SearchResult search_root(Solver *s, uint32_t thpn, uint32_t thdn, int len) {
  s->bh = search_board_hash(s, &s->pos);
  uint64_t full = search_full_key(s->bh, s->pos.hand[s->attacker]);
  path_push(s, 0, full);
  SearchResult r = mid(s, thpn, thdn, len, 0, 0x243f6a8885a308d3ULL, -1);
  path_pop(s, 0);
  return r;
}

SearchResult search_solve(Solver *s, int len) {
  SearchResult r;
  for (;;) {
    r = search_root(s, PN_INF - 1, PN_INF - 1, len);
    if (r.pn == 0 || r.dn == 0 || s->stopped) break;
  }
  return r;
}

SearchResult search_at(Solver *s, const Move *path, int n, uint32_t thpn, uint32_t thdn, int len) {
  Position *pos = &s->pos;
  Undo undo[64];
  uint64_t bhs[65];
  uint64_t pk = 0x243f6a8885a308d3ULL;
  if (n > 64) n = 64;
  s->bh = search_board_hash(s, pos);
  bhs[0] = s->bh;
  path_push(s, 0, search_full_key(s->bh, pos->hand[s->attacker]));
  int l = len;
  for (int i = 0; i < n; i++) {
    pk = path_next(pk, path[i], false);
    s->bh = search_move_hash(s, pos, s->bh, path[i]);
    bhs[i + 1] = s->bh;
    pos_do_move(pos, path[i], &undo[i]);
    path_push(s, i + 1, search_full_key(s->bh, pos->hand[s->attacker]));
    l = child_len(l);
  }
  SearchResult r;
  uint64_t full = s->path_full[n];
  if (n > 0 && path_find(s, n, full) != REP_NONE)
    r = result_make(PN_INF, 0, TT_LEN_INF, 0, true);
  else
    r = mid(s, thpn, thdn, l, n, pk, -1);
  for (int i = n - 1; i >= 0; i--) {
    path_pop(s, i + 1);
    pos_undo_move(pos, path[i], &undo[i]);
  }
  path_pop(s, 0);
  s->bh = bhs[0];
  return r;
}

void search_probe_pos(Solver *s, int len, TTProbe *out) {
  s->bh = search_board_hash(s, &s->pos);
  tt_probe(&s->tt, search_key(s, -1), s->pos.hand[s->attacker], len, out);
  s->tt_probes++;
}
