/*
 * retro_classify.c - the classification of every problem of the table: the
 * main line (shortest attack, longest defence, 駒余り tie-break), the flags
 * (余詰, 最終手余詰, 駒余り, 変同, 変長, and the tolerated alternatives 非限定,
 * 手順前後, 迂回), completeness and minimality. Positions outside the material
 * (after a drop of an outside piece) are valued by each thread's solver,
 * with a small per-thread cache.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "movegen.h"
#include "retro_internal.h"
#include "workers.h"

/* ---------- classification ---------- */

/*
 * Classification context: the tables, and for ranging materials a solver for
 * the positions outside the material (after a drop of an outside piece).
 */
typedef struct {
  uint64_t key;   /* 0 = empty */
  int16_t value;  /* plies to mate; -1 none within `bound`; -2 not searched */
  int16_t bound;
  int8_t left;    /* line_leftover: -1 unknown, else 0 / 1 */
} OutEntry;

/* The cache's entries: 2^20 a thread (16 MB; with 2^18 G2S2's classification
 * takes 10 % more time, most of it making main lines' ends again), fewer under
 * a small --mem (half the lists' share, which is free while the problems are
 * classified). */
#define OUT_CACHE_BITS 20
#define OUT_CACHE_MIN_BITS 10

/*
 * The first ply of the problems of one record (the enumeration paper's extended position:
 * fixed pieces B, the free piece f on each square s of a set). A check of
 * x(s) that neither moves nor takes f nor drops a pawn is a check of B, and the
 * position after it is B's plus f on s: its key is made from B's once per
 * record (KeyBase), so each square costs a look-up, not a move and a key.
 */
#define ORACLE_SLOTS 1024
typedef struct {
  Piece f;
  Square s;                 /* the square of the problem being classified */
  int n;
  Move mv[MAX_MOVES];
  KeyBase kb[MAX_MOVES];    /* B after mv[i] */
  uint16_t slot[ORACLE_SLOTS]; /* index + 1 of a move, by hash */
  /* is_minimal's first candidate, the same for every square: B with the hands
   * of the record's positions, made whole when a complete work first asks */
  Position base;            /* B (retro_record_base of a position of the record) */
  bool sub_made, sub_legal; /* sub_legal: neither side in check once the defender holds the rest */
  int sub_value;            /* value_of(B) */
  Position sub;             /* B made whole (the defender's hand given) */
  Key sub_key;              /* retro_key_plain(sub) */
} ChildOracle;

/* is_minimal's sub-problems already classified against a main line (the
 * same sub-problem comes back for many problems: most often the record's
 * fixed pieces alone, once its free piece is taken off). */
typedef struct {
  Key k;         /* the sub-problem's key as it stands (retro_key_plain); 0 empty */
  uint64_t line; /* the main line it was held against, hashed with the comparison kind */
  bool same;     /* a complete work with that line */
} MinMemo;
#define MIN_MEMO_BITS 12

typedef struct {
  Retro *r;
  Solver *s;
  MinMemo *memo;   /* the thread's (or NULL) */
  OutEntry *cache; /* positions outside the material, by Zobrist key (lossy) */
  uint64_t cache_mask;
  ChildOracle *oracle; /* the problem's record, for its first ply and is_minimal (or NULL) */
} Cls;

static unsigned oracle_hash(Move m) { return (unsigned)((m * 0x9e3779b1u) >> 22) & (ORACLE_SLOTS - 1); }

/* Builds the oracle of a record whose positions have f on a square of set; b is one of them. */
static void oracle_build(ChildOracle *o, const Position *x, Square s0, Piece f) {
  Position b = *x;
  retro_record_base(&b, s0);
  MoveList l;
  movegen_checks(&b, &l);
  o->f = f;
  o->n = 0;
  o->base = b;
  o->sub_made = false;
  memset(o->slot, 0, sizeof o->slot);
  for (int i = 0; i < l.size; i++) {
    Move m = l.moves[i];
    if (move_is_drop(m) && move_drop_type(m) == PAWN) continue; /* 打ち歩詰め depends on f */
    Position q = b;
    Undo u;
    pos_do_move(&q, m, &u);
    unsigned h = oracle_hash(m);
    while (o->slot[h]) h = (h + 1) & (ORACLE_SLOTS - 1);
    o->slot[h] = (uint16_t)(o->n + 1);
    o->mv[o->n] = m;
    retro_keybase_init(&o->kb[o->n], &q);
    o->n++;
  }
}

/* The record key (and square) after check m of x(o->s); false when the oracle does not know m. */
static bool oracle_key(const ChildOracle *o, Move m, Key *core, Square *sq) {
  /* f moves, or is taken (f may be the defender's piece) */
  if ((!move_is_drop(m) && move_from(m) == o->s) || move_to(m) == o->s) return false;
  for (unsigned h = oracle_hash(m); o->slot[h]; h = (h + 1) & (ORACLE_SLOTS - 1)) {
    int i = o->slot[h] - 1;
    if (o->mv[i] != m) continue;
    *core = retro_keybase_split(&o->kb[i], o->s, o->f, NULL, sq);
    return true;
  }
  return false;
}

static uint64_t out_key(const Position *pos) {
  /* the defender's hand is the rest of the 40 pieces, so board + attacker hand say it all */
  uint64_t h = (uint64_t)pos->hand[BLACK] * 0x9e3779b97f4a7c15ULL;
  h ^= h >> 29;
  return (pos->board_key ^ h) | 1;
}

static OutEntry *out_slot(Cls *c, const Position *pos) {
  if (!c->cache) return NULL;
  uint64_t k = out_key(pos);
  OutEntry *e = &c->cache[k & c->cache_mask];
  if (e->key != k) *e = (OutEntry){k, -2, -1, -1};
  return e;
}

static int value_of(Retro *r, const Position *pos) {
  int v = retro_table_get_pos(r, pos);
  return v == VAL_NONE ? -1 : v;
}

/* Plies to mate of any position when at most `bound` (else -1): the tables
 * inside the material, the solver outside it. */
static int cls_value_in(Cls *c, const Position *pos, int bound, bool within) {
  if (within) {
    int v = value_of(c->r, pos);
    return v <= bound ? v : -1;
  }
  if (!c->s || bound < 0) return -1;
  OutEntry *e = out_slot(c, pos);
  /* cached: an exact value, or "none within e->bound" */
  if (e && e->value >= 0) return e->value <= bound ? e->value : -1;
  if (e && e->value == -1 && e->bound >= bound) return -1;
  int v = solver_value(c->s, pos, BLACK, bound);
  if (v == SOLVER_VALUE_UNKNOWN) __atomic_fetch_add(&c->r->stats.anomalies, 1, __ATOMIC_RELAXED);
  v = v >= 0 ? v : -1;
  if (e) {
    e->value = (int16_t)v;
    e->bound = (int16_t)bound;
  }
  return v;
}

/* Is a position of a problem's lines inside the material? Only a drop of the defender adds a piece to it
 * (a capture moves one between the board and the attacker's hand, or out of it), and without a sliding
 * piece no check can be interposed: the lines of such materials never leave it. */
static bool cls_in(const Retro *r, const Position *pos) { return !r->ranging || retro_within_material(r, pos); }

static int cls_value(Cls *c, const Position *pos, int bound) { return cls_value_in(c, pos, bound, cls_in(c->r, pos)); }

static bool mated_at_all(const Position *after, void *vctx) {
  Cls *c = vctx;
  return cls_value(c, after, c->r->opt.max_moves) >= 0;
}

/*
 * 無駄合 (solver.h): an interposition (a drop, or a board piece moved) on a
 * square between a distant checker and the king is futile when some check
 * captures the piece for free (no defender piece, the king included, can take
 * the capturing piece) and leads, with the piece handed back, to a mated
 * position (at any length within the enumeration's reach) where the mate goes
 * on as without the interposition; value is pos's exact value.
 */
static bool interpose_futile(Cls *c, const Position *pos, Move m, int value) {
  return solver_futile_any_at(pos, m, c->s, value, mated_at_all, c);
}

static bool line_leftover(Cls *c, const Position *pos, int v);

/* The attacker's hand after its move m of pos: less a dropped piece, plus a captured one. */
static Hand hand_after(const Position *pos, Move m) {
  Hand h = pos->hand[BLACK];
  if (move_is_drop(m)) return hand_sub(h, move_drop_type(m));
  Piece cap = pos->board[move_to(m)];
  return cap ? hand_add(h, pt_demote(piece_type(cap))) : h;
}

static bool child_leftover(Cls *c, const Position *pos, Move m, int v) {
  /* m mates: what the attacker holds after it (line_leftover of the mate) */
  if (v == 0 && pos->side == BLACK) return hand_after(pos, m) != 0;
  Position q = *pos;
  Undo u;
  pos_do_move(&q, m, &u);
  return line_leftover(c, &q, v);
}

/* The record key (and square) of the position after the attacker's move m
 * of q, made on the board alone (no keys or checkers); q comes back as it was. */
static Key split_after(Position *q, Move m, Square *sq) {
  Hand h = q->hand[BLACK], after = hand_after(q, m);
  Piece cap;
  pos_place_move(q, m, &cap);
  q->hand[BLACK] = after;
  Color side = q->side;
  q->side = color_flip(side);
  Key c = retro_pos_split(q, NULL, sq);
  q->side = side;
  q->hand[BLACK] = h;
  pos_unplace_move(q, m, cap);
  return c;
}

/* The checks' values (vals: -1 beyond V-1) and counts of attacker_best: from got (the look-ups of a table
 * over ranks, made together) or, got NULL, from the table itself; inlined apart for each. *any counts
 * the checks that mate within bound, *within those of value V-1. */
static inline __attribute__((always_inline)) void check_values(Cls *c, Position *q, const MoveList *l, bool in,
                                                               int bound, int V, const Key *cores, const Square *sqs,
                                                               const int *got, int *vals, int *any, int *within) {
  for (int i = 0; i < l->size; i++) {
    int v;
    if (in) {
      v = got ? got[i] : table_probe(c->r->tab, c->r->cap, cores[i], sqs[i]);
      v = v < 0 || v == VAL_NONE || v > bound ? -1 : v;
    } else {
      Undo u;
      pos_do_move(q, l->moves[i], &u);
      v = cls_value_in(c, q, bound, in);
      pos_undo_move(q, l->moves[i], &u);
    }
    if (v >= 0) (*any)++;
    vals[i] = v <= V - 1 ? v : -1;
    if (vals[i] >= 0) (*within)++;
  }
}

/*
 * Attacker to move, value V: a check of value V-1 (the shortest), preferring
 * one whose line ends with an empty hand. *nwithin counts the checks that mate
 * within the remaining length (V-1 plies after them); *nmates, when not NULL,
 * counts every check that mates at all (any value the table knows), the
 * 余詰 test of design.md, or is -1 outside the material, where each value is
 * a solver question and alternatives_at asks the longer ones only while the
 * problem has no 余詰. Only children one ply shorter are followed, so the
 * recursion through line_leftover ends.
 */
/* The record keys (and squares) after the attacker's moves mv[0..n) of pos,
 * inside the material, each one's first slot prefetched: from the record's
 * oracle o when it knows the move, else made on a copy of pos. */
static void check_keys(const Retro *r, const Position *pos, const ChildOracle *o, const Move *mv, int n, Key *cores,
                       Square *sqs) {
  Position q;
  bool qmade = false;
  for (int i = 0; i < n; i++) {
    if (!o || !oracle_key(o, mv[i], &cores[i], &sqs[i])) {
      if (!qmade) {
        q = *pos;
        qmade = true;
      }
      cores[i] = split_after(&q, mv[i], &sqs[i]);
    }
    table_prefetch(r, cores[i]);
  }
}

static Move attacker_best(Cls *c, const Position *pos, int V, int *nwithin, int *nmates, const ChildOracle *o) {
  MoveList l;
  int vals[MAX_MOVES];
  movegen_checks(pos, &l);
  int any = 0, within = 0;
  /* an attacker move keeps the pieces of the material (a capture goes to the hand) */
  bool in = cls_in(c->r, pos);
  int bound = nmates && in ? c->r->opt.max_moves : V - 1;
  /* outside the material the checks are played on a copy of pos */
  Position q;
  if (!in) q = *pos;
  /* inside the material every child is a table look-up: the keys first, their
   * slots prefetched, then the look-ups (their cache misses overlap) */
  Key cores[MAX_MOVES];
  Square sqs[MAX_MOVES];
  if (in) check_keys(c->r, pos, o, l.moves, l.size, cores, sqs);
  if (__builtin_expect(in && c->r->shares != NULL, 0)) {
    /* the table over ranks: the look-ups of other machines' shares made together */
    int got[MAX_MOVES];
    c->r->shares->many(c->r->shares, l.size, cores, sqs, got);
    check_values(c, &q, &l, in, bound, V, cores, sqs, got, vals, &any, &within);
  } else {
    check_values(c, &q, &l, in, bound, V, cores, sqs, NULL, vals, &any, &within);
  }
  Move bm = MOVE_NONE;
  for (int i = 0; i < l.size; i++)
    if (vals[i] == V - 1) {
      if (bm == MOVE_NONE) bm = l.moves[i];
      if (!child_leftover(c, pos, l.moves[i], V - 1)) {
        bm = l.moves[i];
        break;
      }
    }
  *nwithin = within;
  if (nmates) *nmates = in ? any : -1;
  return bm;
}

/*
 * Defender to move with value R: a reply of value R-1 (the longest), futile
 * interpositions left out, preferring one whose line leaves no attacker piece;
 * *nsame counts the longest replies whose line leaves none. When every reply
 * is a futile interposition but R > 0 (one can be futile at R and also last R-1
 * plies itself: the capture that makes it futile is answered, and the mate
 * takes the same R plies), those of value R-1 are the longest defences.
 * MOVE_NONE when only futile interpositions are left and R = 0 (mated).
 */
static Move defender_best(Cls *c, const Position *pos, int R, int *nsame) {
  MoveList l;
  movegen_legal(pos, &l);
  Bitboard btw = solver_interpose_squares(pos);
  FutileMemo fm = {0, 0};
  Move fut[MAX_MOVES];
  int nfut = 0;
  Move bm = MOVE_NONE;
  int same = 0;
  for (int pass = 0; pass < 2 && bm == MOVE_NONE && R > 0; pass++) {
    int n = pass == 0 ? l.size : nfut;
    for (int i = 0; i < n; i++) {
      Move m = pass == 0 ? l.moves[i] : fut[i];
      if (pass == 0 && bb_test(btw, move_to(m))) {
        int f = futile_memo_get(&fm, m);
        if (f < 0) {
          f = interpose_futile(c, pos, m, R);
          futile_memo_put(&fm, m, f);
        }
        if (f) {
          fut[nfut++] = m;
          continue;
        }
      }
      Position q = *pos;
      Undo u;
      pos_do_move(&q, m, &u);
      /* the longest: mated within R-1 but not within R-3 */
      if (pass == 1 && cls_value(c, &q, R - 1) < 0) continue;
      if (R >= 3 && cls_value(c, &q, R - 3) >= 0) continue;
      if (bm == MOVE_NONE) bm = m;
      if (!line_leftover(c, &q, R - 1)) {
        if (same++ == 0) bm = m;
      }
    }
  }
  *nsame = same;
  return bm;
}

/*
 * line_leftover of a mate in one, attacker to move: the hand after the mate
 * attacker_best takes, the one that empties the hand when there is one. When
 * every check empties it (the attacker holds nothing, or one piece and each
 * check drops it) the answer is no, when none does it is yes, with no position
 * made or looked up; else only the checks that empty it are looked up, as one
 * batch. -1 when the table must be asked otherwise (outside the material, or
 * a table over ranks): the caller then takes the general way.
 */
static int mate1_leftover(Cls *c, const Position *pos) {
  MoveList l;
  movegen_checks(pos, &l);
  Move empty[MAX_MOVES];
  int n = 0;
  for (int i = 0; i < l.size; i++)
    if (hand_after(pos, l.moves[i]) == 0) empty[n++] = l.moves[i];
  if (n == l.size && n > 0) return 0;
  if (n == 0) return l.size > 0 || pos->hand[BLACK] != 0;
  if (!cls_in(c->r, pos) || c->r->shares) return -1;
  Key cores[MAX_MOVES];
  Square sqs[MAX_MOVES];
  check_keys(c->r, pos, NULL, empty, n, cores, sqs);
  for (int i = 0; i < n; i++)
    if (table_probe(c->r->tab, c->r->cap, cores[i], sqs[i]) == 0) return 0;
  return 1;
}

/* Does the main line from pos (value v) end with pieces in the attacker's hand?
 * A hand too large to be emptied and a mate in one are told without the
 * thread's cache; the other positions are memoised in it. */
static bool line_leftover(Cls *c, const Position *pos, int v) {
  if (v == 0) return pos->hand[BLACK] != 0; /* mated: what the attacker still holds */
  /* Each attacker move of the line drops at most one piece of the hand (a capture adds one): a hand of more
   * pieces than the line has attacker moves is not emptied by any line. */
  if (pos->hand[BLACK] && hand_total(pos->hand[BLACK]) > (v + (pos->side == BLACK)) / 2) return true;
  if (v == 1 && pos->side == BLACK) {
    int k = mate1_leftover(c, pos);
    if (k >= 0) return k != 0;
  }
  OutEntry *e = out_slot(c, pos);
  if (e && e->left >= 0) return e->left != 0;
  bool left;
  Move m = MOVE_NONE;
  if (v > 0) {
    if (pos->side == BLACK) {
      int nw;
      m = attacker_best(c, pos, v, &nw, NULL, NULL);
    } else {
      int ns;
      m = defender_best(c, pos, v, &ns);
    }
  }
  if (m == MOVE_NONE) {
    /* mated (or only futile interpositions left) */
    left = pos->hand[BLACK] != 0;
  } else {
    left = child_leftover(c, pos, m, v - 1);
  }
  if ((e = out_slot(c, pos)) != NULL) e->left = left;
  return left;
}

/* Visits of one rejoin search (手順前後 / 迂回); past it the alternative is 余詰. */
#define REJOIN_BUDGET 20000

/* The attacker moves mv[0..nmv) and the main line's attacker moves from ply i
 * to ply j, as multisets: equal (手順前後)? */
static bool same_attacker_moves(const uint16_t *mv, int nmv, const Move *line, int i, int j) {
  uint16_t ref[RETRO_LINE_MAX];
  int nref = 0;
  for (int k = i; k < j; k += 2) ref[nref++] = move_compact(line[k]);
  bool perm = nref == nmv;
  for (int a = 0; a < nmv && perm; a++) {
    int hits = 0, want = 0;
    for (int b = 0; b < nmv; b++) {
      hits += ref[b] == mv[a];
      want += mv[b] == mv[a];
    }
    perm = hits == want;
  }
  return perm;
}

typedef struct {
  const Position *main;
  const Move *line;
  int nmain, length, i, budget, nmv;
  uint16_t mv[RETRO_LINE_MAX];
} Rejoin;

/* From q (exact value w) on a main line of an alternative played at ply
 * rj->i: does some main line of it (shortest checks; longest replies, futile
 * interpositions left out unless no other reply is longest) reach a position of the
 * line, main[j] with j >= i and the same value (j = length - w)? The
 * alternative may be as long as the line or longer (a detour that comes
 * back). 2 when one does with the same attacker moves (手順前後), 1 when one
 * does (迂回), 0 no. */
static int rejoin_any(Cls *c, Rejoin *rj, const Position *q, int w) {
  int j = rj->length - w;
  if (j >= rj->i && j < rj->length && j <= rj->nmain && pos_equal(q, &rj->main[j]))
    return same_attacker_moves(rj->mv, rj->nmv, rj->line, rj->i, j) ? 2 : 1;
  if (w <= 1 || rj->budget-- <= 0) return 0;
  int R = w;
  bool att = q->side == BLACK;
  MoveList l;
  if (att)
    movegen_checks(q, &l);
  else
    movegen_legal(q, &l);
  Bitboard btw = att ? 0 : solver_interpose_squares(q);
  Move cand[MAX_MOVES], fut[MAX_MOVES];
  int nc = 0, nf = 0;
  for (int pass = 0; pass < 2 && nc == 0; pass++) {
    int n = pass == 0 ? l.size : nf;
    for (int k = 0; k < n; k++) {
      Move m = pass == 0 ? l.moves[k] : fut[k];
      if (pass == 0 && bb_test(btw, move_to(m)) && interpose_futile(c, q, m, R)) {
        fut[nf++] = m;
        continue;
      }
      Position p = *q;
      Undo u;
      pos_do_move(&p, m, &u);
      if (cls_value(c, &p, R - 1) == R - 1) cand[nc++] = m;
    }
  }
  int best = 0;
  for (int k = 0; k < nc && best < 2; k++) {
    Position p = *q;
    Undo u;
    pos_do_move(&p, cand[k], &u);
    bool push = att && rj->nmv < RETRO_LINE_MAX;
    if (push) rj->mv[rj->nmv++] = move_compact(cand[k]);
    int r = rejoin_any(c, rj, &p, w - 1);
    if (push) rj->nmv--;
    if (r > best) best = r;
  }
  return best;
}

/*
 * An alternative `alt` at ply i of the main line (positions main[0..nmain]),
 * not the last, that mates in w plies after it (w >= the plies left after the
 * line's move): when some main line of it reaches a position of the line the
 * alternative is 手順前後 (the same attacker moves in another order: the same
 * length only) or 迂回 (other moves, or a detour that comes back); at the same
 * length the same move but for promotion, or the same piece dropped on the
 * same line, is 非限定; else 余詰. The flaw checker (solver/check.c)
 * classifies by the same rule.
 */
static uint32_t alternative_kind(Cls *c, const Position *main, int nmain, const Move *line, int length, int i,
                                 Move alt, int w) {
  if (w == length - i - 1 && check_non_limiting(&main[i], line[i], alt)) return RETRO_F_HIGENTEI;
  Position q = main[i];
  Undo u;
  pos_do_move(&q, alt, &u);
  Rejoin rj = {.main = main, .line = line, .nmain = nmain, .length = length, .i = i, .budget = REJOIN_BUDGET,
               .nmv = 1};
  rj.mv[0] = move_compact(alt);
  int r = rejoin_any(c, &rj, &q, w);
  return r == 2 ? RETRO_F_TEJUN_ZENGO : r == 1 ? RETRO_F_UKAI : RETRO_F_YOZUME;
}

/* The kinds of every other check at attacker ply i (not the last) after which
 * the defender is mated at all: within the remaining length or longer. The
 * longer ones are looked at only while no 余詰 is known (flags): past one the
 * problem is not complete, and a longer alternative can only add 余詰 or 迂回. */
static uint32_t alternatives_at(Cls *c, const Position *main, int nmain, const Move *line, int length, int i,
                                uint32_t flags) {
  MoveList l;
  movegen_checks(&main[i], &l);
  uint32_t f = 0;
  int R = length - i;
  for (int k = 0; k < l.size; k++) {
    Move m = l.moves[k];
    if (m == line[i]) continue;
    Position q = main[i];
    Undo u;
    pos_do_move(&q, m, &u);
    /* inside the material one look-up gives any value; outside it a longer mate costs a
     * solver question, asked only while no 余詰 is known */
    bool in = cls_in(c->r, &q);
    bool known = (flags | f) & RETRO_F_YOZUME;
    int w = cls_value_in(c, &q, in || !known ? c->r->opt.max_moves : R - 1, in);
    if (w < 0 || (w > R - 1 && known)) continue;
    f |= alternative_kind(c, main, nmain, line, length, i, m, w);
  }
  return f;
}

/* 変長: at a defender ply of a main line ending with 駒余り, a reply 2 or 4
 * plies shorter (not a futile interposition) whose line ends with the hand empty. */
static bool henchou_at(Cls *c, const Position *pos, int R) {
  MoveList l;
  movegen_legal(pos, &l);
  Bitboard btw = solver_interpose_squares(pos);
  for (int k = 0; k < l.size; k++) {
    Move m = l.moves[k];
    Position q = *pos;
    Undo u;
    pos_do_move(&q, m, &u);
    int v = R >= 3 ? cls_value(c, &q, R - 3) : -1;
    if (v < 0 || v < R - 5) continue;
    if (bb_test(btw, move_to(m)) && interpose_futile(c, pos, m, R)) continue;
    if (!line_leftover(c, &q, v)) return true;
  }
  return false;
}

/*
 * The main line and flags of start (value length) into pb. With expect, a
 * line that leaves it (a move other than expect[ply], compared whole or,
 * with compact, as move_compact) stops the classification there: pb then has
 * the line so far and no complete flag (is_minimal asks only whether a
 * sub-problem is complete with the same line).
 */
static void classify_as(Cls *c, const Position *start, int length, RetroProblem *pb, const Move *expect, int nexpect,
                        bool compact) {
  Retro *r = c->r;
  Position main[RETRO_LINE_MAX + 1];
  Position pos = *start;
  pb->pos = *start;
  pb->length = length;
  pb->flags = 0;
  pb->line_len = 0;
  uint8_t alt_at[RETRO_LINE_MAX];
  int nalt = 0, root_within = 0;
  for (int ply = 0; ply < length && pb->line_len < RETRO_LINE_MAX; ply++) {
    Move m;
    main[ply] = pos;
    if (pos.side == BLACK) {
      int nw, nm = 0;
      bool last = ply == length - 1;
      /* every check that mates at all, but on the last move of a longer line (only
       * another mate in one counts there) */
      m = attacker_best(c, &pos, length - ply, &nw, ply == 0 || !last ? &nm : NULL, ply == 0 ? c->oracle : NULL);
      if (ply == 0) {
        pb->root_mates = nm;
        root_within = nw;
      }
      if (nw > 1 && last) pb->flags |= RETRO_F_LAST_MOVE_ALT;
      if (!last && (nm > 1 || nm < 0)) alt_at[nalt++] = (uint8_t)ply;
    } else {
      int ns;
      m = defender_best(c, &pos, length - ply, &ns);
      /* 変同 is not a flaw at the second-last ply */
      if (ns > 1 && ply < length - 2) pb->flags |= RETRO_F_HENDOU;
    }
    if (m == MOVE_NONE) {
      pb->flags |= RETRO_F_FUTILE_CUT;
      break;
    }
    if (expect && (ply >= nexpect || (compact ? move_compact(m) != move_compact(expect[ply]) : m != expect[ply]))) {
      pb->flags &= ~RETRO_F_COMPLETE;
      return;
    }
    pb->line[pb->line_len++] = m;
    Undo u;
    pos_do_move(&pos, m, &u);
  }
  main[pb->line_len] = pos;
  for (int k = 0; k < nalt; k++)
    pb->flags |= alternatives_at(c, main, pb->line_len, pb->line, length, alt_at[k], pb->flags);
  if (pos.hand[BLACK]) {
    pb->flags |= RETRO_F_KOMAAMARI;
    for (int ply = 1; ply < pb->line_len; ply += 2)
      if (henchou_at(c, &main[ply], length - ply)) {
        pb->flags |= RETRO_F_HENCHOU;
        break;
      }
  }
  uint32_t flaws = RETRO_F_YOZUME | RETRO_F_KOMAAMARI | RETRO_F_FUTILE_CUT;
  if (r->opt.strict_alternatives) flaws |= RETRO_F_TEJUN_ZENGO | RETRO_F_UKAI | RETRO_F_HIGENTEI;
  bool complete = !(pb->flags & flaws);
  /* a 1-move problem needs a unique mating move: another mate in one is not accepted (the checker's
   * last-move-alt, not tolerated there), and another check that mates longer is 余詰 */
  if (length == 1 && pb->root_mates > 1) {
    if (pb->root_mates > root_within) pb->flags |= RETRO_F_YOZUME;
    complete = false;
  }
  if (r->opt.strict_last_move && (pb->flags & RETRO_F_LAST_MOVE_ALT)) complete = false;
  if (complete) pb->flags |= r->stats.layers_cut ? RETRO_F_UNSETTLED : RETRO_F_COMPLETE;
}

static void classify(Cls *c, const Position *start, int length, RetroProblem *pb) {
  classify_as(c, start, length, pb, NULL, 0, false);
}

/* A main line hashed, with the comparison kind (compact: move_compact). */
static uint64_t line_hash(const Move *line, int n, bool compact) {
  uint64_t h = compact ? 0x9e3779b97f4a7c15ULL : 0x7f4a7c159e3779b9ULL;
  for (int i = 0; i < n; i++) {
    h ^= compact ? move_compact(line[i]) : line[i];
    h *= 0xbf58476d1ce4e5b9ULL;
    h ^= h >> 31;
  }
  return h;
}

/* Is the sub-problem q (value pb->length) a complete work with pb's line
 * (compact: compared as move_compact)? Asked of the thread's memo first. */
static bool sub_same_keyed(Cls *c, const Position *q, Key k, const RetroProblem *pb, bool compact) {
  MinMemo *e = NULL;
  uint64_t lh = 0;
  if (c->memo) {
    lh = line_hash(pb->line, pb->line_len, compact);
    e = &c->memo[(key_hash(k) ^ lh) & ((1u << MIN_MEMO_BITS) - 1)];
    if (e->k == k && e->line == lh) return e->same;
  }
  RetroProblem sub;
  classify_as(c, q, pb->length, &sub, pb->line, pb->line_len, compact);
  bool same = (sub.flags & RETRO_F_COMPLETE) && sub.line_len == pb->line_len;
  for (int i = 0; i < sub.line_len && same; i++)
    same = compact ? move_compact(sub.line[i]) == move_compact(pb->line[i]) : sub.line[i] == pb->line[i];
  if (e) *e = (MinMemo){k, lh, same};
  return same;
}

static bool sub_same(Cls *c, const Position *q, const RetroProblem *pb, bool compact) {
  return sub_same_keyed(c, q, c->memo ? retro_key_plain(q) : 0, pb, compact);
}

/* A position less one of its pieces, made a problem: the defender holds the
 * rest. Whether it is legal (neither side in check). */
static bool sub_whole(Position *q) {
  q->hand[WHITE] = 0;
  pos_give_remaining(q, WHITE);
  pos_finish_setup(q);
  return !q->checkers && !pos_checkers_of(q, WHITE);
}

/* Is pos less its piece on s (sent to the defender's hand) a complete work
 * with pb's line? */
static bool board_sub_same(Cls *c, const Position *pos, const RetroProblem *pb, Square s) {
  Position q = *pos;
  pos_remove(&q, s);
  if (value_of(c->r, &q) != pb->length) return false;
  if (!sub_whole(&q)) return false;
  return sub_same(c, &q, pb, true);
}

/* board_sub_same of the record's free piece: B, the same for every square,
 * made and valued once per record. */
static bool base_sub_same(Cls *c, ChildOracle *o, const RetroProblem *pb) {
  if (!o->sub_made) {
    o->sub = o->base;
    o->sub_value = value_of(c->r, &o->sub);
    o->sub_legal = o->sub_value >= 0 && sub_whole(&o->sub);
    if (o->sub_legal) o->sub_key = c->memo ? retro_key_plain(&o->sub) : 0;
    o->sub_made = true;
  }
  if (o->sub_value != pb->length || !o->sub_legal) return false;
  return sub_same_keyed(c, &o->sub, o->sub_key, pb, true);
}

/*
 * Minimal: no single piece can go to the defender's hand leaving a complete
 * work with the same line. Each candidate is first looked up by its key alone
 * (board, king, attacker's hand): only one of the same value is made whole
 * (the defender's hand, keys, checks) and classified. Most complete works
 * are not minimal, and the first candidate of the same value mostly shows it.
 */
static bool is_minimal(Cls *cp, const RetroProblem *pb) {
  Cls sub_cls = *cp, *c = &sub_cls;
  c->oracle = NULL; /* the sub-problems are other positions */
  Retro *r = c->r;
  const Position *pos = &pb->pos;
  /* The record's free piece first (the answer does not depend on the order):
   * without it the problem is the record's base, the same for every square
   * of the record, and the memo answers for the other squares. */
  Bitboard occ = pos_occupied(pos) & ~BB_SQ[pos->king[WHITE]];
  if (cp->oracle && bb_test(occ, cp->oracle->s)) {
    if (base_sub_same(c, cp->oracle, pb)) return false;
    occ &= ~BB_SQ[cp->oracle->s];
  }
  for (int t = PAWN; t <= GOLD; t++) {
    if (!hand_has(pos->hand[BLACK], (PieceType)t)) continue;
    Position q = *pos;
    q.hand[BLACK] = hand_sub(q.hand[BLACK], (PieceType)t);
    if (value_of(r, &q) != pb->length) continue;
    pos_give_remaining(&q, WHITE);
    pos_finish_setup(&q);
    if (sub_same(c, &q, pb, false)) return false;
  }
  while (occ)
    if (board_sub_same(c, pos, pb, bb_pop(&occ))) return false;
  return true;
}

static bool material_is(const Position *pos, const int count[HAND_PT_NB]) {
  int cnt[PT_NB] = {0};
  Bitboard occ = pos_occupied(pos);
  while (occ) {
    Piece p = pos->board[bb_pop(&occ)];
    cnt[pt_demote(piece_type(p))]++;
  }
  for (int t = PAWN; t <= GOLD; t++)
    if (cnt[t] + hand_count(pos->hand[BLACK], (PieceType)t) != count[t]) return false;
  return true;
}

typedef struct {
  Retro *r;
  const int *count;
  int (*cb)(const RetroProblem *p, void *ctx);
  void *ctx;
  pthread_mutex_t *lock;
  uint64_t *next_chunk;
  int *stop;
  int id;
  uint64_t done;
  RetroProblem *pb; /* CLASSIFY_BATCH problems, handed to cb under one lock */
  int npb;
  OutEntry *cache;
  uint64_t cache_mask;
  MinMemo *memo;
  ChildOracle *oracle;
} ClassifyWorker;

/* Problems a thread classifies before it takes the lock and hands them to cb. */
#define CLASSIFY_BATCH 64

static void flush_problems(ClassifyWorker *w) {
  if (!w->npb) return;
  pthread_mutex_lock(w->lock);
  for (int i = 0; i < w->npb && !*w->stop; i++) {
    int rc = w->cb(&w->pb[i], w->ctx);
    if (rc) *w->stop = rc;
  }
  pthread_mutex_unlock(w->lock);
  w->done += (uint64_t)w->npb;
  w->npb = 0;
}

static void *classify_worker(void *arg) {
  ClassifyWorker *w = arg;
  Retro *r = w->r;
  for (;;) {
    uint64_t c = __atomic_fetch_add(w->next_chunk, 1, __ATOMIC_RELAXED);
    uint64_t begin = c * LAYER_CHUNK;
    if (begin >= r->cap || __atomic_load_n(w->stop, __ATOMIC_RELAXED)) break;
    uint64_t end = begin + LAYER_CHUNK < r->cap ? begin + LAYER_CHUNK : r->cap;
    for (uint64_t i = begin; i < end; i++) {
      const XRecord *x = &r->tab[i];
      if (!x->core || key_side(x->core)) continue;
      if (r->nranks > 1 && retro_owner(x->core, r->nranks) != r->rank) continue;
      int len = xr_value(x) & VAL_LEN_MASK;
      Square sqs[SQ_NB];
      int ns = retro_xr_squares(x, sqs);
      Piece f = (Piece)(x->core & 31);
      bool by_record = w->oracle && !r->ranging && !r->opt.concrete_unmoves && f != PIECE_NONE && ns >= 2;
      Position base; /* by record: B, the fixed pieces; each problem is B + f on its square */
      for (int k = 0; k < ns; k++) {
        Position pos;
        if (by_record && k > 0) {
          pos = base;
          pos_add(&pos, sqs[k], f);
        } else {
          retro_key_decode(retro_xkey_join(x->core, sqs[k]), &pos);
          if (by_record) {
            base = pos;
            retro_record_base(&base, sqs[0]);
          }
        }
        if (k == 0 && !material_is(&pos, w->count)) break; /* the record's positions share their material */
        if (by_record && k == 0) oracle_build(w->oracle, &pos, sqs[0], f);
        if (by_record) w->oracle->s = sqs[k];
        Cls c = {r, r->nsolvers > w->id ? r->solvers[w->id] : NULL, w->memo, w->cache, w->cache_mask,
                 by_record ? w->oracle : NULL};
        RetroProblem *pb = &w->pb[w->npb];
        classify(&c, &pos, len, pb);
        if (pb->flags & RETRO_F_COMPLETE)
          if (is_minimal(&c, pb)) pb->flags |= RETRO_F_MINIMAL;
        pb->code_len = (int)pos_canonical_sym(&pb->pos, pb->code, &pb->mirrored, &pb->symmetric);
        if (++w->npb == CLASSIFY_BATCH) flush_problems(w);
      }
    }
    if (w->id == 0) retro_report(r, "classify", 0, w->done, end, r->cap);
  }
  flush_problems(w);
  return NULL;
}

int retro_foreach_problem(Retro *r, const int count[HAND_PT_NB], int (*cb)(const RetroProblem *p, void *ctx),
                          void *ctx) {
  int nt = r->opt.threads > 0 ? r->opt.threads : 1;
  ClassifyWorker *ws = calloc((size_t)nt, sizeof *ws);
  if (!ws) return TS_ERR_NOMEM;
  pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
  uint64_t next_chunk = 0;
  int stop = 0;
  int bits = OUT_CACHE_BITS;
  while (bits > OUT_CACHE_MIN_BITS && r->opt.list_mem &&
         ((uint64_t)sizeof(OutEntry) << bits) > r->opt.list_mem / 2 / (uint64_t)nt)
    bits--;
  for (int t = 0; t < nt; t++) {
    ws[t] = (ClassifyWorker){.r = r, .count = count, .cb = cb, .ctx = ctx, .lock = &lock,
                             .next_chunk = &next_chunk, .stop = &stop, .id = t};
    ws[t].cache = calloc((size_t)1 << bits, sizeof(OutEntry));
    ws[t].cache_mask = ((uint64_t)1 << bits) - 1;
    ws[t].memo = calloc((size_t)1 << MIN_MEMO_BITS, sizeof(MinMemo));
    ws[t].oracle = malloc(sizeof *ws[t].oracle);
    ws[t].pb = malloc(CLASSIFY_BATCH * sizeof *ws[t].pb);
    if (!ws[t].cache || !ws[t].memo || !ws[t].oracle || !ws[t].pb) stop = TS_ERR_NOMEM;
  }
  if (!stop) workers_run(nt, classify_worker, ws, sizeof *ws);
  for (int t = 0; t < nt; t++) {
    free(ws[t].cache);
    free(ws[t].memo);
    free(ws[t].oracle);
    free(ws[t].pb);
  }
  free(ws);
  return stop;
}

