/*
 * retro_table.c - the table of extended positions (拡張局面, the enumeration paper) and the
 * enumerator's life cycle.
 *
 * Positions are keyed by exact 128-bit keys of the canonical orientation
 * (retro_internal.h). The table is an open-addressing hash of records: each
 * record holds every piece but one fixed, the set of squares of the free
 * piece (the one farthest from the defender's king) and one value, so it
 * stands for several concrete positions of that value. Every concrete
 * position belongs to exactly one (record key, square) pair, so the table is
 * an exact map from positions to values (mate length for the attacker to
 * move, plies to mate for the defender, VAL_NONE for "not mated within the
 * bound"). The phases read it concurrently and insert only between phases.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "encode.h"
#include "retro_internal.h"

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

Key retro_key_of(const Position *pos) {
  unsigned e[SQ_NB];
  Square king;
  int n = canon_entries(pos, e, &king);
  return key_head(pos, king) | key_pack(e, n, -1);
}

Key retro_key_plain(const Position *pos) {
  unsigned e[SQ_NB];
  int n = key_entries(pos, false, e);
  return key_head(pos, pos->king[WHITE]) | key_pack(e, n, -1);
}

/* The free piece of a record: the farthest entry from the king, the later on a tie. */
static int free_entry(const unsigned *e, int n, Square king) {
  int at = -1, far = -1;
  for (int i = 0; i < n; i++) {
    int d = sq_distance((Square)(e[i] >> 5), king);
    if (d >= far) {
      far = d;
      at = i;
    }
  }
  return at;
}

/* The concrete key, its record key and the free piece's square of a position
 * (retro_xkey_split of retro_key_of, in one pass). */
Key retro_pos_split(const Position *pos, Key *full, Square *sq) {
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

/* Packed entries (key_pack) with entry fe put in at index i: those after it move down one place. */
static inline Key pack_insert(Key p, int i, unsigned fe) {
  int hi = 98 - 12 * i; /* the entries before i are above bit hi */
  Key below = ((Key)1 << hi) - 1;
  return (p & ~below) | ((Key)fe << (hi - 12)) | ((p & below) >> 12);
}

/* Packed entries without the one at index i: those after it move up one place. */
static inline Key pack_remove(Key p, int i) {
  int hi = 98 - 12 * i; /* entry i is just below bit hi */
  return (p & ~(((Key)1 << hi) - 1)) | ((p & (((Key)1 << (hi - 12)) - 1)) << 12);
}

/*
 * Keys of one position with one piece more (retro_internal.h's KeyBase): the
 * entries of the base in both orientations are made once, and each square of
 * the added piece costs a merge of at most eight entries, no Position.
 */
void retro_keybase_init(KeyBase *kb, const Position *base) {
  Square k = base->king[WHITE], m = sq_mirror(k);
  kb->king = k;
  kb->ck = k < m ? k : m;
  kb->orient = k < m ? 0 : k > m ? 1 : 2;
  kb->head = key_head(base, kb->ck);
  kb->dmax = -1;
  kb->lastmax[0] = kb->lastmax[1] = -1;
  /* only the orientation a key takes is made (both when the king stands on the 5th file) */
  for (int o = 0; o < 2; o++) {
    if (kb->orient != 2 && o != kb->orient) continue;
    Square ko = o ? m : k;
    kb->n = key_entries(base, o == 1, kb->e[o]);
    kb->pack[o] = key_pack(kb->e[o], kb->n, -1);
    /* distances do not depend on the orientation: the king is mirrored with the entries */
    if (kb->dmax < 0)
      for (int i = 0; i < kb->n; i++) {
        int d = sq_distance((Square)(kb->e[o][i] >> 5), ko);
        if (d > kb->dmax) kb->dmax = d;
      }
    for (int i = 0; i < kb->n; i++)
      if (sq_distance((Square)(kb->e[o][i] >> 5), ko) == kb->dmax) kb->lastmax[o] = i;
    kb->rest[o] = kb->lastmax[o] >= 0 ? pack_remove(kb->pack[o], kb->lastmax[o]) : 0;
  }
}

/* Index of the base's entries in orientation o at which the entry fe goes (the squares are distinct). */
static inline int kb_index(const KeyBase *kb, int o, unsigned fe) {
  int i = 0;
  while (i < kb->n && kb->e[o][i] < fe) i++;
  return i;
}

Key retro_keybase_split(const KeyBase *kb, Square s, Piece f, Key *full, Square *sq) {
  int o = kb->orient;
  unsigned fe = ((unsigned)(o == 1 ? sq_mirror(s) : s) << 5) | (unsigned)f;
  int fi = kb_index(kb, o == 1, fe);
  if (o == 2) {
    /* the smaller of the two orientations' entries, compared as packed (the first entry that differs) */
    unsigned ge = ((unsigned)sq_mirror(s) << 5) | (unsigned)f;
    int gi = kb_index(kb, 1, ge);
    Key x = pack_insert(kb->pack[0], fi, fe), y = pack_insert(kb->pack[1], gi, ge);
    o = 0;
    if (y < x) {
      x = y;
      fe = ge;
      fi = gi;
      o = 1;
    }
    if (full) *full = kb->head | x;
  } else if (full) {
    *full = kb->head | pack_insert(kb->pack[o], fi, fe);
  }
  /* free_entry of the merged entries, from the base's: the added piece when it
   * is farther than every entry, or as far and later than the last such; the
   * record key is then the base's entries, else those without the last such
   * with the added one put in */
  int df = sq_distance(s, kb->king), j = kb->lastmax[o];
  if (df > kb->dmax || (df == kb->dmax && fi > j)) {
    *sq = (Square)(fe >> 5);
    return kb->head | kb->pack[o] | (Key)(fe & 31);
  }
  unsigned ea = kb->e[o][j];
  *sq = (Square)(ea >> 5);
  return kb->head | pack_insert(kb->rest[o], fi - (fi > j), fe) | (Key)(ea & 31);
}

void retro_key_decode(Key k, Position *pos) {
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

/* The record key of concrete key k, and the square of its free piece (0 when
 * only the king is on the board). The free piece is the farthest from the king,
 * the later entry on a tie; its entry is removed and its piece code goes to the
 * low bits, which entries never reach once one is removed. */
Key retro_xkey_split(Key k, Square *sq) {
  Square ks = (Square)((k >> 98) & 127);
  int at = -1, far = -1;
  for (int shift = 86; shift >= 2; shift -= 12) {
    unsigned e = (unsigned)(k >> shift) & 0xfff;
    if (!e) break;
    int d = sq_distance((Square)(e >> 5), ks);
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

/* The concrete key of a record key with its free piece on sq (retro_xkey_split's inverse). */
Key retro_xkey_join(Key core, Square sq) {
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

/* A record's base: one of its positions with the free piece (on s) taken off. */
void retro_record_base(Position *pos, Square s) {
  pos_remove(pos, s);
  pos_finish_setup(pos);
}

/* The squares of a record's free piece, in increasing order; returns their number. */
int retro_xr_squares(const XRecord *x, Square out[SQ_NB]) {
  int n = 0;
  for (uint64_t b = x->lo; b; b &= b - 1) out[n++] = (Square)__builtin_ctzll(b);
  for (uint64_t b = x->hi & 0x1ffffu; b; b &= b - 1) out[n++] = (Square)(64 + __builtin_ctzll(b));
  return n;
}

/*
 * The table's memory: anonymous pages (zero when first touched), on 2 MB
 * boundaries and advised as huge pages, since every look-up lands on a random
 * slot (with 4 KB pages a table of gigabytes misses the TLB on nearly each one).
 */
#define TAB_ALIGN ((size_t)2 << 20)

/* The first 2 MB boundary at or after raw. */
static uint8_t *tab_align(uint8_t *raw) {
  return (uint8_t *)(((uintptr_t)raw + TAB_ALIGN - 1) & ~(uintptr_t)(TAB_ALIGN - 1));
}

/* A mapping of maplen bytes at raw cut down to the len bytes from mem (its
 * 2 MB boundary), advised as huge pages. */
static XRecord *tab_fit(uint8_t *raw, size_t maplen, uint8_t *mem, size_t len) {
  if (mem > raw) munmap(raw, (size_t)(mem - raw));
  if (raw + maplen > mem + len) munmap(mem + len, (size_t)(raw + maplen - (mem + len)));
#ifdef MADV_HUGEPAGE
  madvise(mem, len, MADV_HUGEPAGE);
#endif
  return (XRecord *)mem;
}

static XRecord *tab_map(uint64_t cap) {
  size_t len = (size_t)cap * sizeof(XRecord), maplen = len + TAB_ALIGN;
  uint8_t *raw = mmap(NULL, maplen, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) return NULL;
  return tab_fit(raw, maplen, tab_align(raw), len);
}

/* The mapping of tab (cap slots) made twice as long on a 2 MB boundary: its
 * pages are moved, not copied, and the new half reads as zeros. NULL (tab
 * unchanged) when the system refuses. */
static XRecord *tab_extend(XRecord *tab, uint64_t cap) {
  size_t len = (size_t)cap * sizeof(XRecord), nlen = 2 * len, maplen = nlen + TAB_ALIGN;
  /* an address range to move it to, reserved first */
  uint8_t *raw = mmap(NULL, maplen, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (raw == MAP_FAILED) return NULL;
  uint8_t *mem = tab_align(raw);
  if (mremap(tab, len, nlen, MREMAP_MAYMOVE | MREMAP_FIXED, mem) == MAP_FAILED) {
    munmap(raw, maplen);
    return NULL;
  }
  return tab_fit(raw, maplen, mem, nlen);
}

static void tab_unmap(XRecord *tab, uint64_t cap) {
  if (tab) munmap(tab, (size_t)cap * sizeof(XRecord));
}

/* The table's memory given back (and its file closed, which frees its disk space). */
static void table_release(Retro *r) {
  tab_unmap(r->tab, r->cap);
  if (r->tab_file) close(r->tab_fd);
  r->tab_file = false;
}

void retro_table_free_mem(Retro *r) {
  table_release(r);
  r->tab = NULL;
}

/* A new unlinked file beside the database with its blocks for len bytes
 * reserved (a full disk fails here, not on a later store): its descriptor, or
 * -1 (r->tab_errno says why). */
static int tab_file_new(Retro *r, size_t len) {
  if (!r->opt.spill_prefix) {
    r->tab_errno = ENOMEM;
    return -1;
  }
  char name[4096];
  snprintf(name, sizeof name, "%s.table-XXXXXX", r->opt.spill_prefix);
  int fd = mkostemp(name, O_CLOEXEC);
  if (fd < 0) {
    r->tab_errno = errno;
    return -1;
  }
  unlink(name);
  int e = posix_fallocate(fd, 0, (off_t)len);
  if (e) {
    close(fd);
    r->tab_errno = e;
    return -1;
  }
  return fd;
}

/* A shared mapping of len bytes of fd, advised for random access; NULL on failure. */
static XRecord *tab_file_map(Retro *r, int fd, size_t len) {
  void *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (m == MAP_FAILED) {
    r->tab_errno = errno;
    return NULL;
  }
  madvise(m, len, MADV_RANDOM); /* every look-up lands on a random slot: no read-ahead */
  return m;
}

/*
 * Past the memory ceiling (a doubling refused once already, the table filled
 * to 90 %): the table of nc slots as a shared mapping of an unlinked file
 * beside the database, "<spill_prefix>.table-XXXXXX", so the system keeps in
 * memory what fits and pages the rest to disk. The first time the table is
 * copied into the file; after that the file and its mapping are extended.
 * NULL when there is no folder to spill to or the file cannot be made or
 * extended (r->tab_errno says why).
 */
static XRecord *tab_to_file(Retro *r, uint64_t nc) {
  size_t len = (size_t)r->cap * sizeof(XRecord), nlen = (size_t)nc * sizeof(XRecord);
  if (r->tab_file) {
    int e = posix_fallocate(r->tab_fd, 0, (off_t)nlen);
    if (e) {
      r->tab_errno = e;
      return NULL;
    }
    void *m = mremap(r->tab, len, nlen, MREMAP_MAYMOVE);
    if (m == MAP_FAILED) {
      r->tab_errno = errno;
      return NULL;
    }
    madvise(m, nlen, MADV_RANDOM);
    return m;
  }
  int fd = tab_file_new(r, nlen);
  if (fd < 0) return NULL;
  XRecord *m = tab_file_map(r, fd, nlen);
  if (!m) {
    close(fd);
    return NULL;
  }
  memcpy(m, r->tab, len);
  tab_unmap(r->tab, r->cap);
  r->tab_fd = fd;
  r->tab_file = true;
  return m;
}

static int table_alloc(Retro *r, uint64_t cap) {
  r->tab = tab_map(cap);
  if (!r->tab) return TS_ERR_NOMEM;
  r->cap = cap;
  r->records = 0;
  return TS_OK;
}

int retro_table_reset(Retro *r, uint64_t cap) {
  size_t len = (size_t)cap * sizeof(XRecord);
  if (r->opt.table_limit && len > r->opt.table_limit && cap > TABLE_START) {
    /* past the ceiling: in a file, as table_grow would have put it (the
     * starting table is in memory whatever the ceiling, as retro_create makes it) */
    int fd = tab_file_new(r, len);
    XRecord *t = fd < 0 ? NULL : tab_file_map(r, fd, len);
    if (!t) {
      if (fd >= 0) close(fd);
      return TS_ERR_NOMEM;
    }
    table_release(r);
    r->tab = t;
    r->tab_fd = fd;
    r->tab_file = true;
  } else {
    XRecord *t = tab_map(cap);
    if (!t) return TS_ERR_NOMEM;
    table_release(r);
    r->tab = t;
  }
  r->cap = cap;
  r->records = r->used = 0;
  memset(r->count, 0, sizeof r->count);
  return TS_OK;
}

/* The stored value of a position, or -1 when absent. */
int retro_table_get_pos(const Retro *r, const Position *pos) {
  Square sq;
  Key c = retro_pos_split(pos, NULL, &sq);
  return table_get_split(r, c, sq);
}

static int table_grow(Retro *r);

/* Inserts k with value v if absent; returns 1 if inserted, 0 if present, <0 on error. */
int retro_table_insert(Retro *r, Key k, uint16_t v) {
  if (r->records + 1 > table_most(r)) {
    int rc = table_grow(r);
    if (rc) return -rc;
  }
  Square sq;
  Key c = retro_xkey_split(k, &sq);
  bool made;
  int in = table_place(r->tab, r->cap - 1, c, sq, v, key_hash(c) & (r->cap - 1), UINT64_MAX, &made);
  if (!in) return 0;
  r->records += made;
  r->used++;
  if (v <= RETRO_MAX_LEN + 1) r->count[key_side(k)][v]++;
  return 1;
}

/* Records put aside while the table doubles (see table_grow). */
typedef struct {
  XRecord *x;
  size_t n, cap;
} Aside;

static int aside_push(Aside *a, const XRecord *x) {
  if (a->n == a->cap) {
    size_t nc = a->cap ? 2 * a->cap : 1024;
    XRecord *nx = realloc(a->x, nc * sizeof *nx);
    if (!nx) return TS_ERR_NOMEM;
    a->x = nx;
    a->cap = nc;
  }
  a->x[a->n++] = *x;
  return TS_OK;
}

/*
 * Doubles the table in place, so it never takes more than its new size: the
 * mapping is extended (tab_extend), then each record of the old half, in slot
 * order, is taken out and put back from its new first slot (the old one, or
 * that plus the old capacity). A record after the first empty slot started its
 * run at or before its own slot, so put back in the old half it lands at or
 * before it, on slots already done: no run is ever cut by a slot emptied later.
 * The records before the first empty slot (a run that wraps past the old end)
 * and the rare one whose new run would wrap past the new end are put back last.
 */
static int table_grow(Retro *r) {
  uint64_t oc = r->cap, nc = 2 * oc;
  XRecord *t;
  if (r->tab_file || (r->opt.table_limit && nc * sizeof(XRecord) > r->opt.table_limit)) {
    if (!r->dense) {
      r->dense = true; /* no doubling: more records in these slots */
      return TS_OK;
    }
    t = tab_to_file(r, nc); /* past the ceiling: on in a file */
    if (!t) {
      r->over_limit = true;
      return TS_ERR_NOMEM;
    }
  } else {
    t = tab_extend(r->tab, oc);
    if (!t) return TS_ERR_NOMEM;
  }
  r->tab = t;
  r->cap = nc;
  uint64_t mask = nc - 1, head = 0;
  Aside aside = {0};
  int rc = TS_OK;
  while (head < oc && t[head].core) head++;
  for (uint64_t i = 0; i < head && !rc; i++) {
    rc = aside_push(&aside, &t[i]);
    t[i] = (XRecord){0, 0, 0};
  }
  for (uint64_t i = head; i < oc && !rc; i++) {
    if (!t[i].core) continue;
    XRecord e = t[i];
    t[i] = (XRecord){0, 0, 0};
    uint64_t j = key_hash(e.core) & mask;
    while (t[j].core && j + 1 < nc) j++;
    if (t[j].core)
      rc = aside_push(&aside, &e);
    else
      t[j] = e;
  }
  for (size_t k = 0; k < aside.n; k++) {
    uint64_t j = key_hash(aside.x[k].core) & mask;
    while (t[j].core) j = (j + 1) & mask;
    t[j] = aside.x[k];
  }
  free(aside.x);
  return rc;
}

int retro_table_put_record(Retro *r, const XRecord *x) {
  if (r->records + 1 > table_most(r)) {
    int rc = table_grow(r);
    if (rc) return rc;
  }
  uint64_t mask = r->cap - 1, i = key_hash(x->core) & mask;
  while (r->tab[i].core) i = (i + 1) & mask;
  r->tab[i] = *x;
  r->records++;
  r->used += (uint64_t)__builtin_popcountll(x->lo) + (uint64_t)__builtin_popcountll(x->hi & 0x1ffffu);
  return TS_OK;
}

int retro_keys_push(Key **arr, uint64_t *n, uint64_t *cap, Key k) {
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
  int v = retro_table_get_pos(r, pos);
  return v == VAL_NONE ? -1 : v;
}

/* ---------- life cycle ---------- */

int retro_create(const Material *m, const RetroOptions *o, Retro **out, TsError *err) {
  core_init();
  Retro *r = calloc(1, sizeof *r);
  if (!r) return ts_error_set(err, TS_ERR_NOMEM, "enumerate", 0, 0, "out of memory");
  r->mat = *m;
  if (o) r->opt = *o;
  if (r->opt.max_moves <= 0) r->opt.max_moves = 31;
  if (r->opt.max_moves > RETRO_MAX_LEN) r->opt.max_moves = RETRO_MAX_LEN;
  r->ranging = m->count[LANCE] || m->count[BISHOP] || m->count[ROOK];
  r->nranks = 1;
  r->king_step = 1;
  if (table_alloc(r, TABLE_START)) {
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
  if (r->tab_release)
    r->tab_release(r);
  else
    retro_table_free_mem(r);
  for (int t = 0; t < r->nsolvers; t++) solver_free(r->solvers[t]);
  free(r->solvers);
  free(r);
}

const RetroStats *retro_stats(const Retro *r) { return &r->stats; }

size_t retro_spill_cap(const Retro *r, size_t elem) {
  if (!r->opt.list_mem || !r->opt.spill_prefix) return 0;
  int nt = r->opt.threads > 0 ? r->opt.threads : 1;
  size_t cap = (size_t)(r->opt.list_mem / (uint64_t)nt / elem);
  return cap < 4096 ? 4096 : cap;
}

uint64_t retro_now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

void retro_report(Retro *r, const char *phase, int layer, uint64_t layer_new, uint64_t done, uint64_t total) {
  if (!r->opt.progress) return;
  RetroProgress p = {phase, layer, r->used, layer_new, done, total};
  r->opt.progress(&p, r->opt.progress_ctx);
}


/*
 * Records a position whose value v was found while building layer n: in the
 * layer (v == n), ahead of its layer (a defender position valued by the solver;
 * it joins layer v's frontier when that comes), or as not mated. A value below
 * n would mean the position was missed by an earlier layer; it is counted as an
 * anomaly (the census tests check there are none).
 */
int retro_record_value(Retro *r, Key k, uint16_t v, int n, uint64_t *added) {
  int ins = retro_table_insert(r, k, v);
  if (ins < 0) return -ins;
  if (!ins) return TS_OK;
  if (v == n && added) (*added)++;
  if (v < n) r->stats.anomalies++;
  return TS_OK;
}
