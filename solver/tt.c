#include "tt.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

_Static_assert(sizeof(TTCluster) == 192, "a cluster is three cache lines");

/* Huge pages: the table is mapped 2 MiB-aligned and advised for them, so the kernel
 * backs it with few, large pages (far fewer page faults and TLB misses). */
#define TT_CHUNK_SHIFT 21
/* What a clear tracks: 4 KiB blocks, so that clearing after an easy problem
 * (a few hundred clusters spread over the whole table) writes a few hundred
 * blocks rather than every 2 MiB chunk the clusters fell in. */
#define TT_DIRTY_SHIFT 12

/* The kernel supplies the table's pages here, in the set-up, rather than at the
 * search's first touch of each: a fault on a huge page zeroes 2 MiB, and a
 * search over a large table touches a new page at almost every probe at first,
 * so a lazy table spent its first second or more in the kernel, inside the
 * search's time limit (`solve --time-ms 1 --hash 4096` ran 1.4 s). A table
 * larger than half the memory still free is left to fault in lazily: filling
 * it here could exhaust the machine, while a search may never use all of it. */
static void tt_populate(uint8_t *mem, size_t len) {
  long pages = sysconf(_SC_AVPHYS_PAGES), psize = sysconf(_SC_PAGESIZE);
  if (pages <= 0 || psize <= 0 || len > (size_t)pages * (size_t)psize / 2) return;
#ifdef MADV_POPULATE_WRITE
  if (madvise(mem, len, MADV_POPULATE_WRITE) == 0) return;
#endif
  for (size_t k = 0; k < len; k += (size_t)psize) ((volatile uint8_t *)mem)[k] = 0; /* older kernels */
}

bool tt_init(TT *tt, size_t mb) {
  size_t bytes = (mb ? mb : 1) << 20;
  size_t nc = bytes / sizeof(TTCluster);
  if (nc < 1) nc = 1;
  if (nc > UINT32_MAX) nc = UINT32_MAX;
  size_t total = nc * sizeof(TTCluster);
  const size_t align = (size_t)1 << TT_CHUNK_SHIFT;
  size_t len = (total + align - 1) / align * align;
  /* Fresh anonymous memory reads as zero: no memset of the whole table
   * (tt_populate has the kernel supply the zeroed pages now). */
  size_t maplen = len + align;
  uint8_t *raw = mmap(NULL, maplen, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) return false;
  uintptr_t a = ((uintptr_t)raw + align - 1) & ~(uintptr_t)(align - 1);
  uint8_t *mem = (uint8_t *)a;
  if (mem > raw) munmap(raw, (size_t)(mem - raw));
  if (raw + maplen > mem + len) munmap(mem + len, (size_t)(raw + maplen - (mem + len)));
  size_t nchunks = len >> TT_DIRTY_SHIFT;
  uint8_t *dirty = calloc(nchunks, 1);
  if (!dirty) {
    munmap(mem, len);
    return false;
  }
#ifdef MADV_HUGEPAGE
  madvise(mem, len, MADV_HUGEPAGE);
#endif
  tt_populate(mem, len);
  tt->mem = mem;
  tt->map_len = len;
  tt->dirty = dirty;
  tt->chunks = nchunks;
  tt->c = (TTCluster *)mem;
  tt->clusters = nc;
  tt->size = nc * TT_CLUSTER;
  tt->used = 0;
  return true;
}

void tt_release(TT *tt) {
  if (tt->mem) munmap(tt->mem, tt->map_len);
  free(tt->dirty);
  tt->mem = NULL;
  tt->dirty = NULL;
  tt->c = NULL;
  tt->map_len = tt->chunks = 0;
  tt->size = tt->used = tt->clusters = 0;
}

/* Only the blocks written since the last clear are cleared: a table that an easy
 * problem barely used is cleared as cheaply as it was filled. */
void tt_clear(TT *tt) {
  uint8_t *mem = tt->mem;
  size_t end = tt->clusters * sizeof *tt->c;
  for (size_t k = 0; k < tt->chunks; k++) {
    if (!tt->dirty[k]) continue;
    size_t from = k << TT_DIRTY_SHIFT, to = (k + 1) << TT_DIRTY_SHIFT;
    if (to > end) to = end;
    if (from < to) memset(mem + from, 0, to - from);
    tt->dirty[k] = 0;
  }
  tt->used = 0;
}

/* Effort kept as a 16-bit log-like code: exact below 4096, then coarse. */
static inline uint16_t amount_code(uint64_t a) {
  if (a < 4096) return (uint16_t)a;
  int lg = 63 - __builtin_clzll(a);
  uint64_t c = 4096 + (uint64_t)(lg - 12) * 1024 + ((a >> (lg - 10)) & 1023);
  return c > 65535 ? 65535 : (uint16_t)c;
}

static inline bool entry_unknown(const TTCluster *c, int i) { return c->pn[i] != 0 && c->dn[i] != 0; }

/* The slot for a new entry in cluster c: the first empty one, else the first with the least effort. */
static int victim(TT *tt, const TTCluster *c) {
  unsigned empty = tt_tag_matches(c, 0);
  if (empty) {
    /* every write reaches a cluster through an empty slot first: this marks its
     * chunk (or two: a cluster may straddle a chunk boundary) */
    size_t off = (size_t)((const uint8_t *)c - (const uint8_t *)tt->mem);
    tt->dirty[off >> TT_DIRTY_SHIFT] = 1;
    tt->dirty[(off + sizeof *c - 1) >> TT_DIRTY_SHIFT] = 1;
    tt->used++;
    return __builtin_ctz(empty);
  }
  int v = 0;
  for (int i = 1; i < TT_CLUSTER; i++)
    if (c->amount[i] < c->amount[v]) v = i;
  return v;
}

void tt_store(TT *tt, uint64_t key, Hand hand, int len, uint32_t pn, uint32_t dn, Hand rhand, int rlen,
              uint32_t amount, uint16_t best) {
  TTCluster *c = tt_cluster(tt, key);
  const uint32_t tag = TT_TAG(key);
  int slot = -1;
  bool solved = pn == 0 || dn == 0;
  for (unsigned m = tt_tag_matches(c, tag); m; m &= m - 1) {
    int i = __builtin_ctz(m);
    if (entry_unknown(c, i) && c->hand[i] == hand) {
      slot = i; /* the node's own unknown entry: overwritten by its new state */
      break;
    }
    if (solved && ((pn == 0 && c->pn[i] == 0) || (dn == 0 && c->dn[i] == 0)) && c->hand[i] == rhand) {
      /* the same result hand already stored: keep the stronger length */
      if (pn == 0 && rlen < c->len[i]) c->len[i] = (int16_t)rlen;
      if (dn == 0 && rlen > c->len[i]) c->len[i] = (int16_t)rlen;
      if (amount_code(amount) > c->amount[i]) c->amount[i] = amount_code(amount);
      return;
    }
  }
  if (slot < 0) slot = victim(tt, c);
  c->tag[slot] = tag;
  c->pn[slot] = pn;
  c->dn[slot] = dn;
  c->amount[slot] = amount_code(amount);
  c->best[slot] = best;
  if (solved) {
    c->hand[slot] = rhand;
    c->len[slot] = (int16_t)rlen;
    c->flags[slot] = 0;
  } else {
    if (c->hand[slot] != hand) c->flags[slot] = 0;
    c->hand[slot] = hand;
    c->len[slot] = (int16_t)len;
  }
}

void tt_mark_rep(TT *tt, uint64_t key, Hand hand, int len) {
  TTCluster *c = tt_cluster(tt, key);
  const uint32_t tag = TT_TAG(key);
  for (unsigned m = tt_tag_matches(c, tag); m; m &= m - 1) {
    int i = __builtin_ctz(m);
    if (entry_unknown(c, i) && c->hand[i] == hand) {
      c->flags[i] |= TT_FLAG_REP;
      return;
    }
  }
  int slot = victim(tt, c);
  c->tag[slot] = tag;
  c->hand[slot] = hand;
  c->len[slot] = (int16_t)len;
  c->pn[slot] = c->dn[slot] = 1;
  c->amount[slot] = 1;
  c->best[slot] = 0;
  c->flags[slot] = TT_FLAG_REP;
}

static void entry_clear(TTCluster *c, int i) {
  c->tag[i] = 0;
  c->hand[i] = 0;
  c->pn[i] = c->dn[i] = 0;
  c->len[i] = 0;
  c->amount[i] = 0;
  c->best[i] = 0;
  c->flags[i] = 0;
}

void tt_gc(TT *tt) {
  /* Median effort from a sample decides what goes. */
  enum { SAMPLE = 4096 };
  uint16_t sample[SAMPLE];
  int n = 0;
  size_t step = tt->size / SAMPLE + 1;
  for (size_t i = 0; i < tt->size && n < SAMPLE; i += step) {
    const TTCluster *c = &tt->c[i / TT_CLUSTER];
    if (c->tag[i % TT_CLUSTER]) sample[n++] = c->amount[i % TT_CLUSTER];
  }
  if (!n) return;
  /* nth element by counting: efforts are small integers mostly, so a histogram on log2 works */
  /* the median code of the sample */
  enum { B = 64 };
  int hist[64] = {0};
  for (int i = 0; i < n; i++) hist[sample[i] >> 10]++;
  int acc = 0, bucket = 0;
  for (; bucket < B; bucket++) {
    acc += hist[bucket];
    if (acc * 2 >= n) break;
  }
  int lo = bucket << 10, cnt[1024] = {0};
  for (int i = 0; i < n; i++)
    if ((sample[i] >> 10) == bucket) cnt[sample[i] - lo]++;
  acc -= hist[bucket];
  int k = 0;
  for (; k < 1024; k++) {
    acc += cnt[k];
    if (acc * 2 >= n) break;
  }
  uint16_t limit = (uint16_t)(lo + k);
  size_t used = 0;
  for (size_t ci = 0; ci < tt->clusters; ci++) {
    TTCluster *c = &tt->c[ci];
    for (int i = 0; i < TT_CLUSTER; i++) {
      if (!c->tag[i]) continue;
      if (c->amount[i] <= limit) {
        entry_clear(c, i);
      } else {
        c->amount[i] = amount_code(tt_amount_value(c->amount[i]) / 2 + 1); /* old effort fades */
        used++;
      }
    }
  }
  tt->used = used;
}

int tt_hashfull(const TT *tt) { return tt->size ? (int)(tt->used * 1000 / tt->size) : 0; }
