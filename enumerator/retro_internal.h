/*
 * retro_internal.h - what the phases of the retrograde enumerator share
 * (retro_table.c, retro_mates.c, retro_layers.c, retro_classify.c): the
 * 128-bit position keys, the table of extended positions, and each phase's
 * entry point. Not part of the library's interface (retro_enum.h is).
 */
#ifndef TSUME_RETRO_INTERNAL_H
#define TSUME_RETRO_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "retro_enum.h"
#include "page_release.h"
#include "solver_value.h"

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
 * Extended positions (拡張局面, the enumeration paper). The table's records each stand for
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

struct SpillList;

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
  /* distributed runs (retro_mpi.c): this process's rank among nranks (0 of 1
   * otherwise); the mate phase takes the king squares king_first,
   * king_first + king_step, ... and, with mates_deliver, hands its lists of
   * mates to it (which sends them to their owners, who insert them) instead
   * of inserting them; classification takes only the records this rank owns */
  int rank, nranks;
  bool over_limit; /* the table would have passed opt.table_limit */
  bool dense;      /* a doubling was refused by opt.table_limit: the table fills up to 90 % */
  /* past that, the table is a shared mapping of an unlinked file beside the
   * database (tab_fd), which the system pages to disk; tab_errno: why a file
   * could not take it */
  bool tab_file;
  int tab_fd, tab_errno;
  /* a table not allocated by retro_table.c (retro_mpi.c's shared one): released by tab_release */
  void *tab_owner;
  void (*tab_release)(Retro *r);
  int king_first, king_step;
  /* a distributed run's layers and classification read the table through
   * the ranks' shares (retro_mpi.c): each rank's records stay with it, tab is
   * this rank's share; NULL when this process reads its table alone */
  const struct RetroShares *shares;
  /* every rank calls it, with its failure so far (rc); it returns the outcome, and the mates it inserted
   * in *found */
  int (*mates_deliver)(struct Retro *r, struct SpillList *const *lists, int nl, int rc, uint64_t *found);
  void *mates_ctx;
};

/* A position and its value; packed (18 bytes instead of 32) for the layers' new positions. */
typedef struct __attribute__((packed)) {
  Key k;
  uint16_t v;
} KeyVal;

/* Records the table holds before it doubles: 60 % of its slots, or 90 % once
 * the memory ceiling (opt.table_limit) has refused a doubling (longer probe
 * runs, slower look-ups, but the run goes on). */
/* The table's slots when a run starts. */
#define TABLE_START ((uint64_t)1 << 16)

static inline uint64_t table_most(const Retro *r) { return r->cap * (r->dense ? 9 : 6) / 10; }

/* Table slots handed to a worker thread at a time (layers, classification). */
#define LAYER_CHUNK 1024

/* Chebyshev distance between two squares. */
static inline int sq_distance(Square a, Square b) { return SQ_DIST[a][b]; }

static inline uint64_t key_hash(Key k) {
  uint64_t x = (uint64_t)k ^ ((uint64_t)(k >> 64) * 0x9e3779b97f4a7c15ULL);
  x ^= x >> 31;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 29;
  return x;
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

/* The value of (record key c, square sq) in a table of cap slots, or -1. */
static inline int table_probe(const XRecord *tab, uint64_t cap, Key c, Square sq) {
  uint64_t mask = cap - 1, i = key_hash(c) & mask;
  for (; tab[i].core; i = (i + 1) & mask)
    if (tab[i].core == c && xr_has(&tab[i], sq)) return xr_value(&tab[i]);
  return -1;
}

/* The rank that owns a record key in a run over nranks processes (high bits
 * of the hash: the table's slots use the low ones). */
static inline int retro_owner(Key core, int nranks) {
  return (int)(((key_hash(core) >> 32) * (uint64_t)nranks) >> 32);
}

/*
 * The table's shares over the ranks, for the layers and the classification
 * of a distributed run, which leave each record with its owner: a share this
 * process can read in memory (its own, and in the classification those of
 * the ranks of its machine) is in base[rank], its slots laid out as the
 * owner's table; another one is read by remote() (one-sided MPI reads).
 */
typedef struct RetroShares {
  int nranks;
  const XRecord **base; /* per rank; NULL: read through remote */
  const uint64_t *cap;  /* per rank: its share's slots */
  int (*remote)(const struct RetroShares *s, int owner, Key c, Square sq);
  /* n look-ups at once (values or -1 into out): the remote ones in one round trip */
  void (*many)(const struct RetroShares *s, int n, const Key *c, const Square *sq, int *out);
  void *ctx;
} RetroShares;

static inline int shares_get(const RetroShares *s, Key c, Square sq) {
  int o = retro_owner(c, s->nranks);
  return s->base[o] ? table_probe(s->base[o], s->cap[o], c, sq) : s->remote(s, o, c, sq);
}

/* The stored value of the concrete position (record key c, square sq), or -1. */
static inline int table_get_split(const Retro *r, Key c, Square sq) {
  if (__builtin_expect(r->shares != NULL, 0)) return shares_get(r->shares, c, sq);
  return table_probe(r->tab, r->cap, c, sq);
}

/* An attacker layer's 余詰め判定 of a predecessor (record key c, square sq): its value when known without a
 * read, else -1. Over ranks only the shares this process holds are asked: a predecessor another rank owns
 * goes to it unchecked, and its owner's insert finds it there, which counts the same (the tests that hit
 * are those found here and the positions listed but not inserted). */
static inline int table_get_near(const Retro *r, Key c, Square sq) {
  if (__builtin_expect(r->shares != NULL, 0)) {
    int o = retro_owner(c, r->shares->nranks);
    return r->shares->base[o] ? table_probe(r->shares->base[o], r->shares->cap[o], c, sq) : -1;
  }
  return table_probe(r->tab, r->cap, c, sq);
}

/* n look-ups at once (values or -1 into out): a table over ranks reads the others' positions in one round trip. */
static inline void table_get_many(const Retro *r, int n, const Key *c, const Square *sq, int *out) {
  if (__builtin_expect(r->shares != NULL, 0)) {
    r->shares->many(r->shares, n, c, sq, out);
    return;
  }
  for (int i = 0; i < n; i++) out[i] = table_probe(r->tab, r->cap, c[i], sq[i]);
}

/* Puts the concrete position (record key core, square sq) of value v in the
 * table from slot s on: into the first record of that key and value on the
 * run of slots, else a new record (*made) on the run's empty end. 1 placed,
 * 0 already there, -1 when the run reaches slot end before its empty end
 * (nothing written). */
static inline int table_place(XRecord *tab, uint64_t mask, Key core, Square sq, uint16_t v, uint64_t s,
                              uint64_t end, bool *made) {
  XRecord *same = NULL;
  for (; tab[s].core; s = (s + 1) & mask) {
    XRecord *x = &tab[s];
    if (x->core == core) {
      if (xr_has(x, sq)) return 0;
      if (xr_value(x) == v && !same) same = x;
    }
    if (s + 1 == end) return -1;
  }
  *made = !same;
  if (!same) {
    same = &tab[s];
    *same = (XRecord){core, 0, (uint64_t)v << 48};
  }
  xr_add(same, sq);
  return 1;
}

/* Starts loading the first slot a look-up of record key c reads (look-ups made
 * in batches overlap their cache misses). Over ranks (r->shares) it loads a
 * slot of this rank's share, as the key's owner may not be this rank: no use
 * then, and no harm. */
static inline void table_prefetch(const Retro *r, Key c) {
  __builtin_prefetch(&r->tab[key_hash(c) & (r->cap - 1)]);
}

/* ---------- keys and table (retro_table.c) ---------- */

/* The canonical key of a position. */
Key retro_key_of(const Position *pos);
/* The key of a position as it stands (not mirrored to the canonical side):
 * two positions have the same one only when they are the same. */
Key retro_key_plain(const Position *pos);
/* The record key of a position, its concrete key (*full, when not NULL) and
 * the square of its free piece. */
Key retro_pos_split(const Position *pos, Key *full, Square *sq);
/* A position's key parts made once, for the keys of that position with one
 * more piece on each of many squares (the un-moves of an extended position). */
typedef struct {
  unsigned e[2][SQ_NB]; /* entries in the plain and the mirrored orientation (only the one of orient
                         * when it is 0 or 1) */
  int n;
  Square king, ck;      /* the defender king's square, plain and canonical */
  int orient;           /* 0 plain, 1 mirrored, 2 decided by the entries (5th file) */
  int dmax;             /* the entries' greatest distance to the king (-1: none) */
  int lastmax[2];       /* per orientation, the last entry at that distance */
  Key head;
  Key pack[2];          /* the entries packed as in a key, per orientation */
  Key rest[2];          /* the same without the entry lastmax */
} KeyBase;
void retro_keybase_init(KeyBase *kb, const Position *base);
/* retro_pos_split of the base with piece f added on the empty square s. */
Key retro_keybase_split(const KeyBase *kb, Square s, Piece f, Key *full, Square *sq);
/* The position of a concrete key (the defender holds the rest). */
void retro_key_decode(Key k, Position *pos);
/* The record key of a concrete key and the square of its free piece. */
Key retro_xkey_split(Key k, Square *sq);
/* The concrete key of a record key with its free piece on sq. */
Key retro_xkey_join(Key core, Square sq);
/* A record's base B (its fixed pieces): pos, one of its positions, with the
 * free piece on s taken off (the defender's hand unchanged). */
void retro_record_base(Position *pos, Square s);
/* The squares of a record's free piece, in increasing order; returns their number. */
int retro_xr_squares(const XRecord *x, Square out[SQ_NB]);
/* The stored value of a position, or -1 when absent. */
int retro_table_get_pos(const Retro *r, const Position *pos);
/* Inserts k with value v if absent; returns 1 if inserted, 0 if present, <0 on error. */
int retro_table_insert(Retro *r, Key k, uint16_t v);
/* Puts a whole record (from another rank: its key is not in the table) into
 * the table. TS_ERR_NOMEM. */
int retro_table_put_record(Retro *r, const XRecord *x);
/* Replaces the table by an empty one of cap slots (a power of two), counts
 * cleared; TS_ERR_NOMEM (the table unchanged). */
int retro_table_reset(Retro *r, uint64_t cap);
/* Releases the table's memory (allocated by retro_table.c). */
void retro_table_free_mem(Retro *r);
/* Appends k to a growing array. TS_ERR_NOMEM. */
int retro_keys_push(Key **arr, uint64_t *n, uint64_t *cap, Key k);
/* Inserts a position valued v while layer n is built (see the definition). */
int retro_record_value(Retro *r, Key k, uint16_t v, int n, uint64_t *added);
uint64_t retro_now_ms(void);
/* Calls the progress callback, if any. */
void retro_report(Retro *r, const char *phase, int layer, uint64_t layer_new, uint64_t done, uint64_t total);

/* ---------- lists that spill to disk (retro_spill.c) ---------- */

/* Items of elem bytes (at most 64) pushed in order: up to cap in memory, the
 * rest in an unlinked file "<prefix>.spill-XXXXXX" (prefix NULL or cap 0:
 * all in memory). */
typedef struct SpillList {
  size_t elem, cap;
  const char *prefix;
  uint8_t *buf;
  size_t n, bufcap;
  FILE *f;
  char *iobuf;
  uint64_t nfile;
  PageRelease rel; /* of the file, as it is written and as it is read back */
} SpillList;

void retro_spill_init(SpillList *l, size_t elem, size_t cap, const char *prefix);
/* TS_ERR_NOMEM, TS_ERR_IO (the file beside the database cannot be written). */
int retro_spill_push(SpillList *l, const void *item);
uint64_t retro_spill_count(const SpillList *l);
/* fn for every item in push order; stops at a non-zero return (returned). TS_ERR_IO. */
int retro_spill_foreach(SpillList *l, int (*fn)(const void *item, void *ctx), void *ctx);
void retro_spill_free(SpillList *l);
/* Items of elem bytes each thread may keep in memory under opt.list_mem. */
size_t retro_spill_cap(const Retro *r, size_t elem);

/* ---------- inserting a phase's lists (retro_insert.c) ---------- */

/* The items of lists[0..nl) (KeyVal with with_value, else Key of value 0) into
 * the table as retro_record_value one by one would (layer n, *added when not
 * NULL), on opt.threads threads. TS_ERR_NOMEM, TS_ERR_IO. */
int retro_table_insert_lists(Retro *r, SpillList *const *lists, int nl, bool with_value, int n,
                             uint64_t *added);

/*
 * One phase's un-moves (layer n from the frontier, layer n-1), by the
 * threads over the records of r->tab (retro_layers.c): the new positions
 * (KeyVal) in lists[0..*nl), not inserted; *hits: the 余詰め判定 or
 * 不詰め判定 that hit; *outs: the positions listed. The lists live until
 * retro_phase_free(*phase), which is called whatever the outcome.
 */
typedef struct LayerPhase LayerPhase;
int retro_phase_unmove(Retro *r, int n, bool defender, unsigned kinds, LayerPhase **phase, SpillList *const **lists,
                       int *nl, uint64_t *hits, uint64_t *outs);
void retro_phase_free(LayerPhase *phase);

/* ---------- mates (retro_mates.c) ---------- */

/* Every mate of the material and its sub-materials into the table (value 0). */
int retro_mates_run(Retro *r, TsError *err);
/* The solver's value of a defender position (VAL_NONE: not mated within the
 * bound), known to be at least lo. */
uint16_t retro_solver_value(Retro *r, Solver *s, const Position *q, int lo);

/* ---------- layers (retro_layers.c) ---------- */

/* Is the material of pos inside the spec (each kind at most the spec count)? */
bool retro_within_material(const Retro *r, const Position *pos);
/* The layers, from mates in 1 up to opt.max_moves. */
int retro_layers_run(Retro *r, TsError *err);

#endif
