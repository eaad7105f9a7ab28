#include "retro_enum.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "encode.h"
#include "movegen.h"
#include "retro.h"
#include "solver_value.h"
#include "workers.h"

/*
 * Position key, 128 bits (the defender's hand is implied: everything else):
 *
 *   bit 127     always 1 (so 0 marks an empty slot)
 *   bit 126     side to move (1 = gote)
 *   bits 125-105 attacker's hand, 21 bits: P 5 | L 3 | N 3 | S 3 | G 3 | B 2 | R 2
 *   bits 104-98 defender king square
 *   bits 97-2   up to 8 entries of 12 bits, square (7) << 5 | piece (5), in
 *               increasing square order from the top; unused entries are 0
 */
typedef unsigned __int128 Key;

#define VAL_LEN_MASK 0x03ffu
/* a defender position already valued by the solver and found not mated within the bound */
#define VAL_NONE VAL_LEN_MASK

/*
 * Extended positions (拡張局面, seed 002). The table's records each stand for
 * several concrete positions of one value: every piece is fixed but one, the
 * piece farthest from the defender's king (where a piece most often does not
 * matter), which may stand on any square of a set. A record is keyed by the
 * position without that piece (its piece code kept in the low bits) and holds
 * the set of its squares and the value. Every concrete key belongs to exactly
 * one (record key, square) pair, so the table is an exact map from concrete
 * positions to values; records of one key with different values coexist.
 */
typedef struct {
  Key core;    /* record key; 0 marks an empty slot */
  uint64_t lo; /* squares 0-63 */
  uint64_t hi; /* squares 64-80 in bits 0-16, the value in bits 48-63 */
} XRecord;

struct Retro {
  Material mat;
  RetroOptions opt;
  XRecord *tab;
  uint64_t cap, used, records; /* slots, concrete positions, records */
  RetroStats stats;
  /* positions in the table by side to move (0 attacker, 1 defender) and value;
   * a layer's frontier is the table's positions of one side and value */
  uint64_t count[2][RETRO_MAX_LEN + 2];
  bool ranging;
  Solver **solvers; /* one per thread (ranging materials only) */
  int nsolvers;
};

/* ---------- keys ---------- */

/* A key's piece entries, top down: (square << 5 | piece) of every piece but the
 * defender's king, in increasing square order of the plain or mirrored board. */
static int key_entries(const Position *pos, bool mirror, unsigned e[SQ_NB]) {
  Bitboard occ = pos_occupied(pos) & ~BB_SQ[pos->king[WHITE]];
  int n = 0;
  if (!mirror) {
    while (occ) {
      Square s = bb_pop(&occ);
      e[n++] = ((unsigned)s << 5) | pos->board[s];
    }
    return n;
  }
  /* mirrored squares ascend as the files descend (ranks ascending within a file) */
  for (int f = 9; f >= 1 && occ; f--) {
    unsigned bits = (unsigned)(occ >> (9 * (f - 1))) & 0x1ff;
    while (bits) {
      Square s = sq_make(f, __builtin_ctz(bits) + 1);
      bits &= bits - 1;
      e[n++] = ((unsigned)sq_mirror(s) << 5) | pos->board[s];
    }
  }
  return n;
}

/* The canonical orientation's entries (the smaller key) and king square. The
 * king's square decides unless the king is on the 5th file. */
static int canon_entries(const Position *pos, unsigned e[SQ_NB], Square *king) {
  Square k = pos->king[WHITE], m = sq_mirror(k);
  *king = k < m ? k : m;
  if (k != m) return key_entries(pos, k > m, e);
  unsigned f[SQ_NB];
  int n = key_entries(pos, false, e);
  key_entries(pos, true, f);
  for (int i = 0; i < n; i++)
    if (e[i] != f[i]) {
      if (f[i] < e[i]) memcpy(e, f, sizeof *e * (size_t)n);
      break;
    }
  return n;
}

static Key key_head(const Position *pos, Square king) {
  return ((Key)1 << 127) | ((Key)pos->side << 126) | ((Key)hand_pack21(pos->hand[BLACK]) << 105) | ((Key)king << 98);
}

/* Entries packed from bit 86 down, skipping entry `skip` (-1: none). */
static Key key_pack(const unsigned *e, int n, int skip) {
  Key acc = 0;
  int m = 0;
  for (int i = 0; i < n; i++)
    if (i != skip) {
      acc = (acc << 12) | e[i];
      m++;
    }
  return m ? acc << (98 - 12 * m) : 0;
}

static Key key_of(const Position *pos) {
  unsigned e[SQ_NB];
  Square king;
  int n = canon_entries(pos, e, &king);
  return key_head(pos, king) | key_pack(e, n, -1);
}

static uint8_t DIST[SQ_NB][SQ_NB]; /* Chebyshev distance between two squares */

static void dist_init(void) {
  for (Square a = 0; a < SQ_NB; a++)
    for (Square b = 0; b < SQ_NB; b++) {
      int df = abs(sq_file(a) - sq_file(b)), dr = abs(sq_rank(a) - sq_rank(b));
      DIST[a][b] = (uint8_t)(df > dr ? df : dr);
    }
}

/* The free piece of a record: the farthest entry from the king, the later on a tie. */
static int free_entry(const unsigned *e, int n, Square king) {
  int at = -1, far = -1;
  for (int i = 0; i < n; i++) {
    int d = DIST[e[i] >> 5][king];
    if (d >= far) {
      far = d;
      at = i;
    }
  }
  return at;
}

/* The concrete key, its record key and the free piece's square of a position
 * (xkey_split of key_of, in one pass). */
static Key pos_split(const Position *pos, Key *full, Square *sq) {
  unsigned e[SQ_NB];
  Square king;
  int n = canon_entries(pos, e, &king);
  Key head = key_head(pos, king);
  if (full) *full = head | key_pack(e, n, -1);
  int at = free_entry(e, n, king);
  if (at < 0) {
    *sq = 0;
    return head;
  }
  *sq = (Square)(e[at] >> 5);
  Key core = head | key_pack(e, n, at) | (Key)(e[at] & 31);
  return core;
}

static void key_decode(Key k, Position *pos) {
  pos_clear(pos);
  pos->side = (Color)((k >> 126) & 1);
  pos->hand[BLACK] = hand_unpack21((uint32_t)(k >> 105) & 0x1fffff);
  pos_put(pos, (Square)((k >> 98) & 127), piece_make(WHITE, KING));
  for (int shift = 86; shift >= 2; shift -= 12) {
    unsigned e = (unsigned)(k >> shift) & 0xfff;
    if (!e) break;
    pos_put(pos, (Square)(e >> 5), (Piece)(e & 31));
  }
  pos_give_remaining(pos, WHITE);
  pos_finish_setup(pos);
}

/* ---------- table ---------- */

static inline uint64_t key_hash(Key k) {
  uint64_t x = (uint64_t)k ^ ((uint64_t)(k >> 64) * 0x9e3779b97f4a7c15ULL);
  x ^= x >> 31;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 29;
  return x;
}

/* The record key of concrete key k, and the square of its free piece (0 when
 * only the king is on the board). The free piece is the farthest from the king,
 * the later entry on a tie; its entry is removed and its piece code goes to the
 * low bits, which entries never reach once one is removed. */
static Key xkey_split(Key k, Square *sq) {
  Square ks = (Square)((k >> 98) & 127);
  int at = -1, far = -1;
  for (int shift = 86; shift >= 2; shift -= 12) {
    unsigned e = (unsigned)(k >> shift) & 0xfff;
    if (!e) break;
    int d = DIST[e >> 5][ks];
    if (d >= far) {
      far = d;
      at = shift;
    }
  }
  if (at < 0) {
    *sq = 0;
    return k;
  }
  unsigned e = (unsigned)(k >> at) & 0xfff;
  *sq = (Square)(e >> 5);
  Key above = k & ~(((Key)1 << (at + 12)) - 1);
  Key below = k & (((Key)1 << at) - 1);
  return above | (below << 12) | (Key)(e & 31);
}

/* The concrete key of a record key with its free piece on sq (xkey_split's inverse). */
static Key xkey_join(Key core, Square sq) {
  unsigned piece = (unsigned)core & 31;
  if (!piece) return core;
  Key k = core & ~(Key)0xfff;
  int shift = 86;
  for (; shift >= 2; shift -= 12) {
    unsigned e = (unsigned)(k >> shift) & 0xfff;
    if (!e || (Square)(e >> 5) > sq) break;
  }
  Key keep = k & ~(((Key)1 << (shift + 12)) - 1);
  Key moved = (k & (((Key)1 << (shift + 12)) - 1)) >> 12;
  return keep | moved | ((Key)(((unsigned)sq << 5) | piece) << shift);
}

static inline bool xr_has(const XRecord *x, Square sq) {
  return sq < 64 ? (x->lo >> sq) & 1 : (x->hi >> (sq - 64)) & 1;
}
static inline void xr_add(XRecord *x, Square sq) {
  if (sq < 64)
    x->lo |= (uint64_t)1 << sq;
  else
    x->hi |= (uint64_t)1 << (sq - 64);
}
static inline uint16_t xr_value(const XRecord *x) { return (uint16_t)(x->hi >> 48); }
/* Side to move of a key or record key (1: the defender). */
static inline int key_side(Key k) { return (int)((k >> 126) & 1); }

/* The squares of a record's free piece, in increasing order; returns their number. */
static int xr_squares(const XRecord *x, Square out[SQ_NB]) {
  int n = 0;
  for (uint64_t b = x->lo; b; b &= b - 1) out[n++] = (Square)__builtin_ctzll(b);
  for (uint64_t b = x->hi & 0x1ffffu; b; b &= b - 1) out[n++] = (Square)(64 + __builtin_ctzll(b));
  return n;
}

static int table_alloc(Retro *r, uint64_t cap) {
  r->tab = calloc(cap, sizeof *r->tab);
  if (!r->tab) return TS_ERR_NOMEM;
  r->cap = cap;
  r->records = 0;
  return TS_OK;
}

/* The stored value of the concrete position (record key c, square sq), or -1. */
static int table_get_split(const Retro *r, Key c, Square sq) {
  uint64_t mask = r->cap - 1, i = key_hash(c) & mask;
  for (; r->tab[i].core; i = (i + 1) & mask)
    if (r->tab[i].core == c && xr_has(&r->tab[i], sq)) return xr_value(&r->tab[i]);
  return -1;
}

/* The stored value of a position, or -1 when absent. */
static int table_get_pos(const Retro *r, const Position *pos) {
  Square sq;
  Key c = pos_split(pos, NULL, &sq);
  return table_get_split(r, c, sq);
}

static int table_grow(Retro *r);

/* Inserts k with value v if absent; returns 1 if inserted, 0 if present, <0 on error. */
static int table_insert(Retro *r, Key k, uint16_t v) {
  if ((r->records + 1) * 10 > r->cap * 6) {
    int rc = table_grow(r);
    if (rc) return -rc;
  }
  Square sq;
  Key c = xkey_split(k, &sq);
  uint64_t mask = r->cap - 1, i = key_hash(c) & mask;
  XRecord *same = NULL;
  for (; r->tab[i].core; i = (i + 1) & mask) {
    XRecord *x = &r->tab[i];
    if (x->core != c) continue;
    if (xr_has(x, sq)) return 0;
    if (xr_value(x) == v && !same) same = x;
  }
  if (!same) {
    same = &r->tab[i];
    *same = (XRecord){c, 0, (uint64_t)v << 48};
    r->records++;
  }
  xr_add(same, sq);
  r->used++;
  if (v <= RETRO_MAX_LEN + 1) r->count[key_side(k)][v]++;
  return 1;
}

static int table_grow(Retro *r) {
  XRecord *old = r->tab;
  uint64_t oc = r->cap, records = r->records;
  if (table_alloc(r, oc * 2)) {
    r->tab = old;
    r->cap = oc;
    r->records = records;
    return TS_ERR_NOMEM;
  }
  uint64_t mask = r->cap - 1;
  for (uint64_t i = 0; i < oc; i++)
    if (old[i].core) {
      uint64_t j = key_hash(old[i].core) & mask;
      while (r->tab[j].core) j = (j + 1) & mask;
      r->tab[j] = old[i];
    }
  r->records = records;
  free(old);
  return TS_OK;
}

static int push_key(Key **arr, uint64_t *n, uint64_t *cap, Key k) {
  if (*n == *cap) {
    uint64_t nc = *cap ? *cap * 2 : 1 << 16;
    Key *na = realloc(*arr, nc * sizeof *na);
    if (!na) return TS_ERR_NOMEM;
    *arr = na;
    *cap = nc;
  }
  (*arr)[(*n)++] = k;
  return TS_OK;
}

int retro_lookup(Retro *r, const Position *pos) {
  int v = table_get_pos(r, pos);
  return v == VAL_NONE ? -1 : v;
}

/* ---------- life cycle ---------- */

int retro_create(const Material *m, const RetroOptions *o, Retro **out, TsError *err) {
  core_init();
  dist_init();
  Retro *r = calloc(1, sizeof *r);
  if (!r) return ts_error_set(err, TS_ERR_NOMEM, "enumerate", 0, 0, "out of memory");
  r->mat = *m;
  if (o) r->opt = *o;
  if (r->opt.max_moves <= 0) r->opt.max_moves = 31;
  if (r->opt.max_moves > RETRO_MAX_LEN) r->opt.max_moves = RETRO_MAX_LEN;
  r->ranging = m->count[LANCE] || m->count[BISHOP] || m->count[ROOK];
  if (table_alloc(r, 1 << 16)) {
    retro_free(r);
    return ts_error_set(err, TS_ERR_NOMEM, "enumerate", 0, 0, "out of memory");
  }
  if (r->ranging) {
    int nt = r->opt.threads > 0 ? r->opt.threads : 1;
    r->solvers = calloc((size_t)nt, sizeof *r->solvers);
    SolverOptions so;
    solver_options_default(&so);
    so.hash_mb = r->opt.solver_hash_mb > 0 ? (size_t)r->opt.solver_hash_mb : RETRO_SOLVER_HASH_MB;
    so.prove_exact = false;
    for (int t = 0; r->solvers && t < nt; t++, r->nsolvers++)
      if (!(r->solvers[t] = solver_create(&so))) break;
    if (!r->solvers || r->nsolvers < nt) {
      retro_free(r);
      return ts_error_set(err, TS_ERR_NOMEM, "enumerate", 0, 0, "out of memory");
    }
  }
  *out = r;
  return TS_OK;
}

void retro_free(Retro *r) {
  if (!r) return;
  free(r->tab);
  for (int t = 0; t < r->nsolvers; t++) solver_free(r->solvers[t]);
  free(r->solvers);
  free(r);
}

const RetroStats *retro_stats(const Retro *r) { return &r->stats; }

static uint64_t now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static void report(Retro *r, const char *phase, int layer, uint64_t layer_new, uint64_t done, uint64_t total) {
  if (!r->opt.progress) return;
  RetroProgress p = {phase, layer, r->used, layer_new, done, total};
  r->opt.progress(&p, r->opt.progress_ctx);
}

/* ---------- mates ---------- */

/* The states one piece of kind t can take: attacker's hand, defender's hand,
 * or a square with an owner and promotion (dead squares left out). */
typedef struct {
  int8_t where; /* -1 attacker hand, -2 defender hand, else square */
  Piece piece;
} PieceState;

static inline int rel_rank(Color c, Square s) { return c == BLACK ? sq_rank(s) : 10 - sq_rank(s); }
static inline bool dead_on(Color c, PieceType t, Square s) {
  int rr = rel_rank(c, s);
  return ((t == PAWN || t == LANCE) && rr == 1) || (t == KNIGHT && rr <= 2);
}

static int build_states(PieceType t, PieceState **out) {
  PieceState *s = malloc(sizeof *s * (2 + SQ_NB * 4));
  if (!s) return -1;
  int n = 0;
  s[n++] = (PieceState){-1, 0};
  s[n++] = (PieceState){-2, 0};
  for (Square q = 0; q < SQ_NB; q++)
    for (int c = 0; c < 2; c++)
      for (int pr = 0; pr < 2; pr++) {
        if (pr && !pt_can_promote(t)) continue;
        PieceType pt = pr ? pt_promote(t) : t;
        if (!pr && dead_on((Color)c, t, q)) continue;
        s[n++] = (PieceState){(int8_t)q, piece_make((Color)c, pt)};
      }
  *out = s;
  return n;
}

/*
 * Mate generation. A mate needs a checker: a black piece attacking the king.
 * With non-ranging pieces only, a piece can take part in the mate only from
 * the 7x7 squares around the king (covering an escape square, being one, or
 * guarding a piece the king could take) or the 5x5 around the checker
 * (capturing or guarding it); anywhere else it changes nothing. So the
 * generator places the checker, then the other pieces on those "near" squares
 * or in a hand; a piece left in the defender's hand stands for "anywhere far"
 * and is expanded over every far square once the core is known to mate.
 * Duplicates (the same position from two checkers) are merged by the table.
 */
typedef struct {
  Retro *r;
  Position pos;
  PieceType kinds[MATERIAL_MAX_PIECES];
  int npieces;
  PieceState *states[HAND_PT_NB];
  int nstates[HAND_PT_NB];
  int chosen[MATERIAL_MAX_PIECES];
  Bitboard near;
  Square king;
  int rc;
  uint64_t found;
  /* expansion */
  PieceType freek[MATERIAL_MAX_PIECES];
  int nfree;
  int fchosen[MATERIAL_MAX_PIECES];
  /* this thread's mates (merged into the table after the threads join) */
  Key *out;
  uint64_t nout, cap;
  int id;
  int *next_king; /* shared work counter over the 45 king squares */
  /* ranging materials: positions in check whose only replies are drops */
  bool ranging;
  Key *seeds;
  uint64_t nseeds, capseeds;
} MateGen;

static bool nifu(const Position *pos) {
  for (int c = 0; c < 2; c++) {
    Bitboard p = pos_pieces(pos, (Color)c, PAWN);
    for (int f = 1; f <= 9 && p; f++)
      if (bb_more_than_one(p & BB_FILE[f])) return true;
  }
  return false;
}

/* Mate test for positions without ranging pieces: the king in check with no
 * escape, and a double check or a checker no defender piece can take. Without
 * ranging pieces the attacker's squares do not depend on the occupancy. */
static bool fast_mate(const Position *pos, Square k) {
  Bitboard att = 0, black = pos->by_color[BLACK];
  while (black) {
    Square s = bb_pop(&black);
    PieceType t = piece_type(pos->board[s]);
    att |= STEP_ATTACKS[BLACK][pt_is_promoted(t) ? GOLD : t][s];
  }
  if (!bb_test(att, k) || (STEP_ATTACKS[WHITE][KING][k] & ~pos->by_color[WHITE] & ~att)) return false;
  Bitboard occ = pos_occupied(pos);
  Bitboard checkers = pos_attackers_to(pos, k, BLACK, occ);
  if (bb_more_than_one(checkers)) return true;
  Square c = bb_lsb(checkers);
  return (pos_attackers_to(pos, c, WHITE, occ) & ~BB_SQ[k]) == 0;
}

static void mate_store(MateGen *g, Position *q) {
  if (nifu(q)) return;
  q->side = WHITE;
  pos_give_remaining(q, WHITE);
  pos_finish_setup(q);
  if (push_key(&g->out, &g->nout, &g->cap, key_of(q))) g->rc = TS_ERR_NOMEM;
}

/* Places the free pieces on far squares or leaves them in the defender's hand. */
static void mate_expand(MateGen *g, Position *q, int i) {
  if (g->rc) return;
  if (i == g->nfree) {
    Position c = *q;
    mate_store(g, &c);
    return;
  }
  PieceType t = g->freek[i];
  int start = (i > 0 && g->freek[i - 1] == t) ? g->fchosen[i - 1] : 1;
  for (int s = start; s < g->nstates[t]; s++) {
    PieceState st = g->states[t][s];
    if (st.where == -1) continue;
    if (st.where >= 0 && (bb_test(g->near, st.where) || q->board[st.where])) continue;
    g->fchosen[i] = s;
    if (st.where >= 0) pos_put(q, st.where, st.piece);
    mate_expand(g, q, i + 1);
    if (st.where >= 0) pos_remove(q, st.where);
  }
}

static void mate_leaf(MateGen *g) {
  Position *pos = &g->pos;
  if (!fast_mate(pos, g->king)) return;
  Position q = *pos;
  q.hand[BLACK] = 0;
  q.hand[WHITE] = 0;
  g->nfree = 0;
  for (int i = 0; i < g->npieces; i++) {
    PieceState st = g->states[g->kinds[i]][g->chosen[i]];
    if (st.where == -1) q.hand[BLACK] = hand_add(q.hand[BLACK], g->kinds[i]);
    if (st.where == -2) g->freek[g->nfree++] = g->kinds[i];
  }
  mate_expand(g, &q, 0);
}

/*
 * With ranging pieces a piece anywhere can matter (a rook guards a whole file),
 * so every piece is placed on every square. A leaf is kept when the king is in
 * check with no escape square, and then either no reply exists (a mate) or the
 * only replies are drops between a distant checker and the king (a seed: the
 * solver values it, since those drops bring in pieces from outside the
 * material, and it may even be a mate under the 無駄合 rule).
 */
static void rmate_leaf(MateGen *g) {
  Position *pos = &g->pos;
  Square k = g->king;
  Bitboard occ = pos_occupied(pos);
  if (!pos_attackers_to(pos, k, BLACK, occ)) return;
  Bitboard esc = STEP_ATTACKS[WHITE][KING][k] & ~pos->by_color[WHITE];
  Bitboard occk = occ & ~BB_SQ[k];
  while (esc) {
    Square e = bb_pop(&esc);
    if (!pos_attackers_to(pos, e, BLACK, occk)) return;
  }
  if (nifu(pos)) return;
  Position q = *pos;
  q.hand[BLACK] = 0;
  q.hand[WHITE] = 0;
  for (int i = 0; i < g->npieces; i++)
    if (g->states[g->kinds[i]][g->chosen[i]].where == -1) q.hand[BLACK] = hand_add(q.hand[BLACK], g->kinds[i]);
  q.side = WHITE;
  pos_give_remaining(&q, WHITE);
  pos_finish_setup(&q);
  MoveList l;
  movegen_legal(&q, &l);
  if (l.size == 0) {
    if (push_key(&g->out, &g->nout, &g->cap, key_of(&q))) g->rc = TS_ERR_NOMEM;
    return;
  }
  if (!solver_drop_squares(&q)) return;
  for (int i = 0; i < l.size; i++)
    if (!move_is_drop(l.moves[i])) return;
  if (push_key(&g->seeds, &g->nseeds, &g->capseeds, key_of(&q))) g->rc = TS_ERR_NOMEM;
}

static void mate_place(MateGen *g, int i) {
  if (g->rc) return;
  if (i == g->npieces) {
    if (g->ranging)
      rmate_leaf(g);
    else
      mate_leaf(g);
    return;
  }
  PieceType t = g->kinds[i];
  int start = (i > 0 && g->kinds[i - 1] == t) ? g->chosen[i - 1] : 0;
  for (int s = start; s < g->nstates[t]; s++) {
    PieceState st = g->states[t][s];
    if (st.where >= 0 && (g->pos.board[st.where] || !bb_test(g->near, st.where))) continue;
    g->chosen[i] = s;
    if (st.where >= 0) pos_put(&g->pos, st.where, st.piece);
    mate_place(g, i + 1);
    if (st.where >= 0) pos_remove(&g->pos, st.where);
  }
}

static Bitboard square_area(Square s, int d) {
  Bitboard b = 0;
  for (int f = sq_file(s) - d; f <= sq_file(s) + d; f++)
    for (int r = sq_rank(s) - d; r <= sq_rank(s) + d; r++)
      if (f >= 1 && f <= 9 && r >= 1 && r <= 9) b |= BB_SQ[sq_make(f, r)];
  return b;
}

static void *mate_worker(void *arg) {
  MateGen *g = arg;
  Retro *r = g->r;
  for (;;) {
    int ki = __atomic_fetch_add(g->next_king, 1, __ATOMIC_RELAXED);
    if (ki >= 45 || g->rc) break;
    /* the king on files 1..5: the mirror covers files 6..9 */
    g->king = (Square)ki;
    for (int ct = PAWN; ct <= GOLD && !g->rc; ct++) {
      if (!r->mat.count[ct]) continue;
      /* the checker: one piece of kind ct, sente's, on a square attacking the king */
      g->npieces = 0;
      for (int t = PAWN; t <= GOLD; t++)
        for (int k = 0; k < r->mat.count[t] - (t == ct); k++) g->kinds[g->npieces++] = (PieceType)t;
      for (int s = 2; s < g->nstates[ct] && !g->rc; s++) {
        PieceState st = g->states[ct][s];
        if (piece_color(st.piece) != BLACK || st.where == g->king) continue;
        if (!bb_test(bb_attacks(BLACK, piece_type(st.piece), st.where, 0), g->king)) continue;
        pos_clear(&g->pos);
        pos_put(&g->pos, g->king, piece_make(WHITE, KING));
        pos_put(&g->pos, st.where, st.piece);
        g->near = g->ranging ? BB_ALL : square_area(g->king, 3) | square_area(st.where, 2);
        mate_place(g, 0);
      }
    }
    if (g->id == 0) report(r, "mates", 0, g->nout, (uint64_t)ki + 1, 45);
  }
  return NULL;
}

/* ---------- defender positions valued by the solver (ranging pieces) ---------- */

/* packed: 18 bytes instead of 32, for the layers' new positions */
typedef struct __attribute__((packed)) {
  Key k;
  uint16_t v;
} KeyVal;

/* The solver's value of a defender position (VAL_NONE: not mated within the bound),
 * known to be at least lo. */
static uint16_t solver_and_value(Retro *r, Solver *s, const Position *q, int lo) {
  int v = solver_value_above(s, q, BLACK, lo, r->opt.max_moves - 1);
  __atomic_fetch_add(&r->stats.solver_calls, 1, __ATOMIC_RELAXED);
  if (v == SOLVER_VALUE_UNKNOWN) __atomic_fetch_add(&r->stats.anomalies, 1, __ATOMIC_RELAXED);
  return v >= 0 ? (uint16_t)v : (uint16_t)VAL_NONE;
}

/*
 * Records a position whose value v was found while building layer n: in the
 * layer (v == n), ahead of its layer (a defender position valued by the solver;
 * it joins layer v's frontier when that comes), or as not mated. A value below
 * n would mean the position was missed by an earlier layer; it is counted as an
 * anomaly (the census tests check there are none).
 */
static int record_value(Retro *r, Key k, uint16_t v, int n, uint64_t *added) {
  int ins = table_insert(r, k, v);
  if (ins < 0) return -ins;
  if (!ins) return TS_OK;
  if (v == n && added) (*added)++;
  if (v < n) r->stats.anomalies++;
  return TS_OK;
}

typedef struct {
  Retro *r;
  const Key *keys;
  uint64_t n;
  uint64_t *next;
  KeyVal *out;
  int id;
} SeedWorker;

static void *seed_worker(void *arg) {
  SeedWorker *w = arg;
  for (;;) {
    uint64_t i = __atomic_fetch_add(w->next, 1, __ATOMIC_RELAXED);
    if (i >= w->n) break;
    Position q;
    key_decode(w->keys[i], &q);
    w->out[i] = (KeyVal){w->keys[i], solver_and_value(w->r, w->r->solvers[w->id], &q, 0)};
    if (w->id == 0 && (i & 255) == 0) report(w->r, "mates", 0, i, i, w->n);
  }
  return NULL;
}

static int key_cmp(const void *a, const void *b) {
  Key x = *(const Key *)a, y = *(const Key *)b;
  return x < y ? -1 : x > y;
}

/* Values the seeds of the mate phase (in check, only drops as replies). */
static int value_seeds(Retro *r, Key *seeds, uint64_t n, uint64_t *found) {
  qsort(seeds, n, sizeof *seeds, key_cmp);
  uint64_t u = 0;
  for (uint64_t i = 0; i < n; i++)
    if (!u || seeds[u - 1] != seeds[i]) seeds[u++] = seeds[i];
  r->stats.seeds = u;
  KeyVal *out = malloc((u ? u : 1) * sizeof *out);
  int nt = r->nsolvers > 0 ? r->nsolvers : 1;
  SeedWorker *ws = calloc((size_t)nt, sizeof *ws);
  int rc = (out && ws) ? TS_OK : TS_ERR_NOMEM;
  if (!rc) {
    uint64_t next = 0;
    for (int t = 0; t < nt; t++)
      ws[t] = (SeedWorker){.r = r, .keys = seeds, .n = u, .next = &next, .out = out, .id = t};
    workers_run(nt, seed_worker, ws, sizeof *ws);
    for (uint64_t i = 0; i < u && !rc; i++)
      rc = record_value(r, out[i].k, out[i].v, 0, found);
  }
  free(out);
  free(ws);
  return rc;
}

static int gen_mates(Retro *r, TsError *err) {
  int nt = r->opt.threads > 0 ? r->opt.threads : 1;
  MateGen *gs = calloc((size_t)nt, sizeof *gs);
  PieceState *states[HAND_PT_NB] = {0};
  int nstates[HAND_PT_NB] = {0};
  int rc = gs ? TS_OK : TS_ERR_NOMEM;
  for (int t = PAWN; t <= GOLD && !rc; t++)
    if (r->mat.count[t]) {
      nstates[t] = build_states((PieceType)t, &states[t]);
      if (nstates[t] < 0) rc = TS_ERR_NOMEM;
    }
  int next_king = 0, started = 0;
  if (!rc) {
    for (int t = 0; t < nt; t++) {
      gs[t].r = r;
      gs[t].id = t;
      gs[t].next_king = &next_king;
      gs[t].ranging = r->ranging;
      memcpy(gs[t].states, states, sizeof states);
      memcpy(gs[t].nstates, nstates, sizeof nstates);
    }
    started = workers_run(nt, mate_worker, gs, sizeof *gs);
  }
  uint64_t found = 0;
  for (int t = 0; t < started && !rc; t++) {
    if (gs[t].rc) rc = gs[t].rc;
    for (uint64_t i = 0; i < gs[t].nout && !rc; i++) {
      int ins = table_insert(r, gs[t].out[i], 0);
      if (ins < 0) rc = -ins;
      else if (ins) found++;
    }
    free(gs[t].out);
    gs[t].out = NULL;
  }
  Key *seeds = NULL;
  uint64_t nseeds = 0, capseeds = 0;
  for (int t = 0; t < started && !rc; t++)
    for (uint64_t i = 0; i < gs[t].nseeds && !rc; i++)
      if (push_key(&seeds, &nseeds, &capseeds, gs[t].seeds[i])) rc = TS_ERR_NOMEM;
  for (int t = 0; t < nt && gs; t++) {
    free(gs[t].out);
    free(gs[t].seeds);
  }
  for (int t = 0; t < HAND_PT_NB; t++) free(states[t]);
  free(gs);
  if (!rc && nseeds) rc = value_seeds(r, seeds, nseeds, &found);
  free(seeds);
  r->stats.mates = found;
  r->stats.defender_by_len[0] = found;
  if (rc) return ts_error_set(err, rc, "enumerate", 0, 0, "out of memory while generating mates");
  return TS_OK;
}

/* ---------- layers ---------- */

/* Is the material of pos inside the spec (each kind at most the spec count)? */
static bool within_material(const Retro *r, const Position *pos) {
  int cnt[PT_NB] = {0};
  Bitboard occ = pos_occupied(pos);
  while (occ) {
    Piece p = pos->board[bb_pop(&occ)];
    cnt[pt_demote(piece_type(p))]++;
  }
  for (int t = PAWN; t <= GOLD; t++) {
    cnt[t] += hand_count(pos->hand[BLACK], (PieceType)t);
    if (cnt[t] > r->mat.count[t]) return false;
  }
  return true;
}

/* Defender to move: 1 + the longest reply if every reply reaches a known mate, else -1. */
static int eval_defender(Retro *r, const Position *q) {
  MoveList l;
  movegen_legal(q, &l);
  if (l.size == 0) return 0;
  int best = -1;
  for (int i = 0; i < l.size; i++) {
    Position p = *q;
    Undo u;
    pos_do_move(&p, l.moves[i], &u);
    int v = table_get_pos(r, &p);
    if (v < 0) return -1;
    if (v > best) best = v;
  }
  return best + 1;
}

/*
 * A defender position in a distant check: do all its replies that are board
 * moves (never futile) reach known mates? A board reply not yet valued is worth
 * more than the layer being built (or is no mate), and the position is
 * generated again from that reply when it gets its value.
 */
static bool board_replies_known(Retro *r, const Position *q) {
  MoveList l;
  movegen_legal(q, &l);
  for (int i = 0; i < l.size; i++) {
    if (move_is_drop(l.moves[i])) continue;
    Position p = *q;
    Undo u;
    pos_do_move(&p, l.moves[i], &u);
    if (table_get_pos(r, &p) < 0) return false;
  }
  return true;
}

/*
 * Layers run on opt.threads threads. Within a phase the table is only read
 * (an attacker layer needs the defender values found before it, a defender
 * layer the attacker values up to n); each thread collects its new keys, and
 * the keys are inserted after the threads have joined.
 */
typedef struct {
  Retro *r;
  int n;           /* plies of the layer being built */
  bool defender;   /* building defender positions (else attacker) */
  unsigned kinds;  /* kinds of the material (for un-captures) */
  int id;
  uint64_t *next_chunk; /* shared work counter */
  KeyVal *out;
  uint64_t nout, cap;
  uint64_t hits; /* yozume (attacker phase) or fuzume (defender phase) tests that hit */
  UnMoveList ul;
  int rc;
} LayerWorker;

#define LAYER_CHUNK 1024

static int kv_push(LayerWorker *w, Key k, uint16_t v) {
  if (w->nout == w->cap) {
    uint64_t nc = w->cap ? w->cap * 2 : 4096;
    KeyVal *na = realloc(w->out, nc * sizeof *na);
    if (!na) return TS_ERR_NOMEM;
    w->out = na;
    w->cap = nc;
  }
  w->out[w->nout++] = (KeyVal){k, v};
  return TS_OK;
}

/* Un-moves from one position x of the frontier; new positions go to w->out. */
static void layer_position(LayerWorker *w, const Position *x) {
  Retro *r = w->r;
  if (!w->defender) {
    retro_generate(x, &w->ul);
    for (int j = 0; j < w->ul.size; j++) {
      Key k;
      Square sq;
      Key c = pos_split(&w->ul.prev[j], &k, &sq);
      if (table_get_split(r, c, sq) >= 0) {
        w->hits++;
        continue;
      }
      if (kv_push(w, k, (uint16_t)w->n)) w->rc = TS_ERR_NOMEM;
    }
    return;
  }
  retro_generate_kinds(x, &w->ul, w->kinds);
  for (int j = 0; j < w->ul.size; j++) {
    const Position *q = &w->ul.prev[j];
    if (!q->checkers) continue;
    if (w->ul.u[j].captured && !within_material(r, q)) continue;
    Key k;
    Square sq;
    Key c = pos_split(q, &k, &sq);
    if (table_get_split(r, c, sq) >= 0) continue;
    if (r->ranging && solver_drop_squares(q)) {
      /* drops between checker and king bring in outside pieces: the solver values it,
       * once every board reply has a known value (else it comes back at a later layer) */
      if (!board_replies_known(r, q)) {
        w->hits++;
        continue;
      }
      /* a board move leads from q to x, valued n - 1: q is at least n */
      int lo = move_is_drop(w->ul.u[j].move) ? 0 : w->n;
      if (kv_push(w, k, solver_and_value(r, r->solvers[w->id], q, lo))) w->rc = TS_ERR_NOMEM;
      continue;
    }
    int v = eval_defender(r, q);
    if (v < 0) {
      w->hits++;
      continue;
    }
    if (kv_push(w, k, (uint16_t)v)) w->rc = TS_ERR_NOMEM;
  }
}

static void *layer_worker(void *arg) {
  LayerWorker *w = arg;
  Retro *r = w->r;
  for (;;) {
    uint64_t c = __atomic_fetch_add(w->next_chunk, 1, __ATOMIC_RELAXED);
    uint64_t begin = c * LAYER_CHUNK;
    if (begin >= r->cap || w->rc) break;
    uint64_t end = begin + LAYER_CHUNK < r->cap ? begin + LAYER_CHUNK : r->cap;
    for (uint64_t i = begin; i < end; i++) {
      /* the frontier: positions of the previous layer (defender positions of
       * value n-1 for an attacker layer, attacker positions of n-1 for a defender one) */
      const XRecord *rec = &r->tab[i];
      if (!rec->core || key_side(rec->core) == (int)w->defender || xr_value(rec) != w->n - 1) continue;
      Square sqs[SQ_NB];
      int ns = xr_squares(rec, sqs);
      for (int k = 0; k < ns; k++) {
        Position x;
        key_decode(xkey_join(rec->core, sqs[k]), &x);
        layer_position(w, &x);
      }
    }
    if (w->id == 0) report(r, "layers", w->n, w->nout, end, r->cap);
  }
  return NULL;
}

/* Runs one phase: the new positions of layer n from the frontier (layer n-1). */
static int run_phase(Retro *r, int n, bool defender, unsigned kinds, TsError *err) {
  int nt = r->opt.threads > 0 ? r->opt.threads : 1;
  LayerWorker *ws = calloc((size_t)nt, sizeof *ws);
  if (!ws) return ts_error_set(err, TS_ERR_NOMEM, "enumerate", 0, 0, "out of memory at layer %d", n);
  uint64_t next_chunk = 0;
  int rc = TS_OK;
  for (int t = 0; t < nt; t++) {
    ws[t] = (LayerWorker){.r = r, .n = n, .defender = defender, .kinds = kinds, .id = t, .next_chunk = &next_chunk};
    ws[t].ul.prev = malloc(MAX_UNMOVES * sizeof *ws[t].ul.prev);
    if (!ws[t].ul.prev) rc = TS_ERR_NOMEM;
  }
  int started = rc ? 0 : workers_run(nt, layer_worker, ws, sizeof *ws);
  uint64_t hits = 0, outs = 0, used0 = r->used;
  for (int t = 0; t < started && !rc; t++) {
    if (ws[t].rc) rc = ws[t].rc;
    hits += ws[t].hits;
    outs += ws[t].nout;
    for (uint64_t i = 0; i < ws[t].nout && !rc; i++)
      rc = record_value(r, ws[t].out[i].k, ws[t].out[i].v, n, NULL);
    free(ws[t].out);
    ws[t].out = NULL;
  }
  if (defender)
    r->stats.fuzume_hits[n] = hits;
  else
    r->stats.yozume_hits[n] = hits + (outs - (r->used - used0));
  for (int t = 0; t < nt; t++) {
    free(ws[t].out);
    free(ws[t].ul.prev);
  }
  free(ws);
  if (rc) return ts_error_set(err, rc, "enumerate", 0, 0, "out of memory at layer %d", n);
  return TS_OK;
}

/* Positions of layer n (attacker positions when n is odd). */
static uint64_t layer_size(const Retro *r, int n) { return r->count[n & 1 ? 0 : 1][n]; }

/* Are defender positions valued ahead of their layer waiting for a layer after n? */
static bool pending_after(const Retro *r, int n) {
  for (int v = n + 1; v <= RETRO_MAX_LEN + 1; v++)
    if (r->count[1][v]) return true;
  return false;
}

static int run_layers(Retro *r, TsError *err) {
  unsigned kinds = 0;
  for (int t = PAWN; t <= GOLD; t++)
    if (r->mat.count[t]) kinds |= 1u << t;
  for (int n = 1; n <= r->opt.max_moves; n += 2) {
    /* attacker layer n: predecessors of the defender positions of value n-1 */
    int rc = run_phase(r, n, false, kinds, err);
    if (rc) return rc;
    r->stats.attacker_by_len[n] = layer_size(r, n);
    r->stats.last_layer = n;
    if ((layer_size(r, n) == 0 && !pending_after(r, n)) || n + 1 > r->opt.max_moves) break;
    /* defender layer n+1: positions all of whose replies reach known mates */
    rc = run_phase(r, n + 1, true, kinds, err);
    if (rc) return rc;
    r->stats.defender_by_len[n + 1] = layer_size(r, n + 1);
    if (layer_size(r, n + 1) == 0 && !pending_after(r, n + 1)) break;
  }
  return TS_OK;
}

int retro_run(Retro *r, TsError *err) {
  uint64_t t0 = now_ms();
  int rc = gen_mates(r, err);
  if (rc) return rc;
  uint64_t t1 = now_ms();
  r->stats.ms_mates = t1 - t0;
  rc = run_layers(r, err);
  r->stats.ms_layers = now_ms() - t1;
  r->stats.entries = r->used;
  r->stats.records = r->records;
  r->stats.table_bytes = r->cap * sizeof(XRecord);
  return rc;
}

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

#define OUT_CACHE_BITS 18

typedef struct {
  Retro *r;
  Solver *s;
  OutEntry *cache; /* positions outside the material, by Zobrist key (lossy) */
} Cls;

static uint64_t out_key(const Position *pos) {
  /* the defender's hand is the rest of the 40 pieces, so board + attacker hand say it all */
  uint64_t h = (uint64_t)pos->hand[BLACK] * 0x9e3779b97f4a7c15ULL;
  h ^= h >> 29;
  return (pos->board_key ^ h) | 1;
}

static OutEntry *out_slot(Cls *c, const Position *pos) {
  if (!c->cache) return NULL;
  uint64_t k = out_key(pos);
  OutEntry *e = &c->cache[k & (((uint64_t)1 << OUT_CACHE_BITS) - 1)];
  if (e->key != k) *e = (OutEntry){k, -2, -1, -1};
  return e;
}

static int value_of(Retro *r, const Position *pos) {
  int v = table_get_pos(r, pos);
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

static int cls_value(Cls *c, const Position *pos, int bound) {
  return cls_value_in(c, pos, bound, within_material(c->r, pos));
}

typedef struct {
  Cls *c;
  int R;
} FutileTest;

static bool mated_within_R(const Position *after, void *vctx) {
  FutileTest *t = vctx;
  return cls_value(t->c, after, t->R) >= 0;
}

/*
 * 無駄合 (solver.h): a drop on a square between a distant checker and the king
 * is futile at remaining length R when some check capturing the dropped piece
 * leads, with the piece handed back, to a position mated within R.
 */
static bool drop_futile(Cls *c, const Position *pos, Move drop, int R) {
  FutileTest t = {c, R};
  return solver_futile_any(pos, drop, mated_within_R, &t);
}

static bool line_leftover(Cls *c, const Position *pos, int v);

static bool child_leftover(Cls *c, const Position *pos, Move m, int v) {
  Position q = *pos;
  Undo u;
  pos_do_move(&q, m, &u);
  return line_leftover(c, &q, v);
}

/*
 * Attacker to move, value V: a check of value V-1 (the shortest), preferring
 * one whose line ends with an empty hand. *nwithin counts the checks that mate
 * within the remaining length (V-1 plies after them: rules.md's 余詰 test);
 * *nmates, when not NULL, counts every check that mates within max_moves
 * (positions of the material only). Only children one ply shorter are
 * followed, so the recursion through line_leftover ends.
 */
static Move attacker_best(Cls *c, const Position *pos, int V, int *nwithin, int *nmates) {
  MoveList l;
  int vals[MAX_MOVES];
  movegen_checks(pos, &l);
  int any = 0, within = 0;
  /* an attacker move keeps the pieces of the material (a capture goes to the hand) */
  bool in = within_material(c->r, pos);
  Position q = *pos;
  for (int i = 0; i < l.size; i++) {
    Undo u;
    pos_do_move(&q, l.moves[i], &u);
    int v = cls_value_in(c, &q, nmates ? c->r->opt.max_moves : V - 1, in);
    pos_undo_move(&q, l.moves[i], &u);
    if (v >= 0) any++;
    vals[i] = v <= V - 1 ? v : -1;
    if (vals[i] >= 0) within++;
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
  if (nmates) *nmates = any;
  return bm;
}

/*
 * Defender to move with value R: a reply of value R-1 (the longest), futile
 * drops left out, preferring one whose line leaves no attacker piece; *nsame
 * counts the longest replies whose line leaves none. When every reply is a
 * futile drop but R > 0 (a drop can be futile at R and also last R-1 plies
 * itself: the capture that makes it futile is answered, and the mate takes
 * the same R plies), the drops of value R-1 are the longest defences. MOVE_NONE
 * when only futile drops are left and R = 0 (mated).
 */
static Move defender_best(Cls *c, const Position *pos, int R, int *nsame) {
  MoveList l;
  movegen_legal(pos, &l);
  bool dc = solver_drop_squares(pos) != 0;
  Bitboard tested = 0, futile = 0;
  Move fut[MAX_MOVES];
  int nfut = 0;
  Move bm = MOVE_NONE;
  int same = 0;
  for (int pass = 0; pass < 2 && bm == MOVE_NONE && R > 0; pass++) {
    int n = pass == 0 ? l.size : nfut;
    for (int i = 0; i < n; i++) {
      Move m = pass == 0 ? l.moves[i] : fut[i];
      if (pass == 0 && dc && move_is_drop(m)) {
        Square sq = move_to(m);
        if (!bb_test(tested, sq)) {
          tested |= BB_SQ[sq];
          if (drop_futile(c, pos, m, R)) futile |= BB_SQ[sq];
        }
        if (bb_test(futile, sq)) {
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

/* Does the main line from pos (value v) end with pieces in the attacker's hand?
 * Memoised in the thread's cache. */
static bool line_leftover(Cls *c, const Position *pos, int v) {
  OutEntry *e = out_slot(c, pos);
  if (e && e->left >= 0) return e->left != 0;
  bool left;
  Move m = MOVE_NONE;
  if (v > 0) {
    if (pos->side == BLACK) {
      int nw;
      m = attacker_best(c, pos, v, &nw, NULL);
    } else {
      int ns;
      m = defender_best(c, pos, v, &ns);
    }
  }
  if (m == MOVE_NONE) {
    /* mated (or only futile drops left) */
    left = pos->hand[BLACK] != 0;
  } else {
    left = child_leftover(c, pos, m, v - 1);
  }
  if ((e = out_slot(c, pos)) != NULL) e->left = left;
  return left;
}

/* 非限定: the same move but for promotion, or the same piece dropped on
 * another square of the same line to the king. */
static bool non_limiting(const Position *pos, Move m, Move alt) {
  if (move_is_drop(m) || move_is_drop(alt)) {
    if (!move_is_drop(m) || !move_is_drop(alt) || move_drop_type(m) != move_drop_type(alt)) return false;
    Square k = pos->king[WHITE], a = move_to(m), b = move_to(alt);
    return bb_test(BETWEEN[k][a], b) || bb_test(BETWEEN[k][b], a);
  }
  return move_from(m) == move_from(alt) && move_to(m) == move_to(alt);
}

/*
 * An alternative `alt` at ply i of the main line (positions main[0..nmain])
 * that mates within the remaining length: its own main line is followed; when
 * it reaches the main line's position at the same ply the alternative is
 * 手順前後 (the same attacker moves in another order) or 迂回 (other moves);
 * else it is 余詰.
 */
static uint32_t alternative_kind(Cls *c, const Position *main, int nmain, const Move *line, int length, int i,
                                 Move alt) {
  if (non_limiting(&main[i], line[i], alt)) return RETRO_F_HIGENTEI;
  Position q = main[i];
  Undo u;
  pos_do_move(&q, alt, &u);
  uint16_t mv[RETRO_LINE_MAX];
  int nmv = 0;
  mv[nmv++] = move_compact(alt);
  for (int j = i + 1; j < length; j++) {
    if (j <= nmain && pos_equal(&q, &main[j])) {
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
      return perm ? RETRO_F_TEJUN_ZENGO : RETRO_F_UKAI;
    }
    Move m;
    if (q.side == BLACK) {
      int nw;
      m = attacker_best(c, &q, length - j, &nw, NULL);
      if (m != MOVE_NONE) mv[nmv++] = move_compact(m);
    } else {
      int ns;
      m = defender_best(c, &q, length - j, &ns);
    }
    if (m == MOVE_NONE) break;
    pos_do_move(&q, m, &u);
  }
  return RETRO_F_YOZUME;
}

/* The kinds of every alternative at attacker ply i (not the last) that mates
 * within the remaining length. */
static uint32_t alternatives_at(Cls *c, const Position *main, int nmain, const Move *line, int length, int i) {
  MoveList l;
  movegen_checks(&main[i], &l);
  uint32_t f = 0;
  for (int k = 0; k < l.size; k++) {
    Move m = l.moves[k];
    if (m == line[i]) continue;
    Position q = main[i];
    Undo u;
    pos_do_move(&q, m, &u);
    if (cls_value(c, &q, length - i - 1) < 0) continue;
    f |= alternative_kind(c, main, nmain, line, length, i, m);
  }
  return f;
}

/* 変長: at a defender ply of a main line ending with 駒余り, a reply 2 or 4
 * plies shorter (not a futile drop) whose line ends with the hand empty. */
static bool henchou_at(Cls *c, const Position *pos, int R) {
  MoveList l;
  movegen_legal(pos, &l);
  bool dc = solver_drop_squares(pos) != 0;
  for (int k = 0; k < l.size; k++) {
    Move m = l.moves[k];
    Position q = *pos;
    Undo u;
    pos_do_move(&q, m, &u);
    int v = R >= 3 ? cls_value(c, &q, R - 3) : -1;
    if (v < 0 || v < R - 5) continue;
    if (dc && move_is_drop(m) && drop_futile(c, pos, m, R)) continue;
    if (!line_leftover(c, &q, v)) return true;
  }
  return false;
}

static void classify(Cls *c, const Position *start, int length, RetroProblem *pb) {
  Retro *r = c->r;
  Position main[RETRO_LINE_MAX + 1];
  Position pos = *start;
  pb->pos = *start;
  pb->length = length;
  pb->flags = 0;
  pb->line_len = 0;
  uint8_t alt_at[RETRO_LINE_MAX];
  int nalt = 0;
  for (int ply = 0; ply < length && pb->line_len < RETRO_LINE_MAX; ply++) {
    Move m;
    main[ply] = pos;
    if (pos.side == BLACK) {
      int nw, nm;
      m = attacker_best(c, &pos, length - ply, &nw, ply == 0 ? &nm : NULL);
      if (ply == 0) pb->root_mates = nm;
      bool last = ply == length - 1;
      if (nw > 1 && last) pb->flags |= RETRO_F_LAST_MOVE_ALT;
      if (nw > 1 && !last) alt_at[nalt++] = (uint8_t)ply;
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
    pb->line[pb->line_len++] = m;
    Undo u;
    pos_do_move(&pos, m, &u);
  }
  main[pb->line_len] = pos;
  for (int k = 0; k < nalt; k++) pb->flags |= alternatives_at(c, main, pb->line_len, pb->line, length, alt_at[k]);
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
  /* a 1-move problem with two mating moves is not accepted */
  if (length == 1 && pb->root_mates > 1) complete = false;
  if (r->opt.strict_last_move && (pb->flags & RETRO_F_LAST_MOVE_ALT)) complete = false;
  if (complete) pb->flags |= RETRO_F_COMPLETE;
}

/* Minimal: no single piece can go to the defender's hand leaving a complete work with the same line. */
static bool is_minimal(Cls *c, const RetroProblem *pb) {
  Retro *r = c->r;
  const Position *pos = &pb->pos;
  for (int t = PAWN; t <= GOLD; t++) {
    if (!hand_has(pos->hand[BLACK], (PieceType)t)) continue;
    Position q = *pos;
    q.hand[BLACK] = hand_sub(q.hand[BLACK], (PieceType)t);
    pos_give_remaining(&q, WHITE);
    pos_finish_setup(&q);
    int v = value_of(r, &q);
    if (v != pb->length) continue;
    RetroProblem sub;
    classify(c, &q, v, &sub);
    if ((sub.flags & RETRO_F_COMPLETE) && sub.line_len == pb->line_len &&
        memcmp(sub.line, pb->line, sizeof(Move) * (size_t)pb->line_len) == 0)
      return false;
  }
  Bitboard occ = pos_occupied(pos) & ~BB_SQ[pos->king[WHITE]];
  while (occ) {
    Square s = bb_pop(&occ);
    Position q = *pos;
    pos_remove(&q, s);
    q.hand[WHITE] = 0;
    pos_give_remaining(&q, WHITE);
    pos_finish_setup(&q);
    if (q.checkers || pos_checkers_of(&q, WHITE)) continue;
    int v = value_of(r, &q);
    if (v != pb->length) continue;
    RetroProblem sub;
    classify(c, &q, v, &sub);
    if (!(sub.flags & RETRO_F_COMPLETE) || sub.line_len != pb->line_len) continue;
    bool same = true;
    for (int i = 0; i < sub.line_len && same; i++) same = move_compact(sub.line[i]) == move_compact(pb->line[i]);
    if (same) return false;
  }
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
  RetroProblem pb;
  OutEntry *cache;
} ClassifyWorker;

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
      int len = xr_value(x) & VAL_LEN_MASK;
      Square sqs[SQ_NB];
      int ns = xr_squares(x, sqs);
      for (int k = 0; k < ns; k++) {
        Position pos;
        key_decode(xkey_join(x->core, sqs[k]), &pos);
        if (!material_is(&pos, w->count)) break; /* the record's positions share their material */
        Cls c = {r, r->nsolvers > w->id ? r->solvers[w->id] : NULL, w->cache};
        classify(&c, &pos, len, &w->pb);
        if (w->pb.flags & RETRO_F_COMPLETE)
          if (is_minimal(&c, &w->pb)) w->pb.flags |= RETRO_F_MINIMAL;
        pthread_mutex_lock(w->lock);
        int rc = *w->stop ? 0 : w->cb(&w->pb, w->ctx);
        if (rc && !*w->stop) *w->stop = rc;
        pthread_mutex_unlock(w->lock);
        w->done++;
      }
    }
    if (w->id == 0) report(r, "classify", 0, w->done, end, r->cap);
  }
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
  for (int t = 0; t < nt; t++) {
    ws[t] = (ClassifyWorker){.r = r, .count = count, .cb = cb, .ctx = ctx, .lock = &lock,
                             .next_chunk = &next_chunk, .stop = &stop, .id = t};
    ws[t].cache = calloc((size_t)1 << OUT_CACHE_BITS, sizeof(OutEntry));
  }
  workers_run(nt, classify_worker, ws, sizeof *ws);
  for (int t = 0; t < nt; t++) free(ws[t].cache);
  free(ws);
  return stop;
}
