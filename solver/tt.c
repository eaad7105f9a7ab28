#include "tt.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

bool tt_init(TT *tt, size_t mb) {
  size_t bytes = (mb ? mb : 1) << 20;
  size_t nc = bytes / (sizeof(TTEntry) * TT_CLUSTER);
  if (nc < 1) nc = 1;
  if (nc > UINT32_MAX) nc = UINT32_MAX;
  size_t total = nc * TT_CLUSTER * sizeof(TTEntry);
  /* 2 MiB alignment lets the kernel back the table with huge pages (fewer TLB misses) */
  size_t align = (size_t)2 << 20;
  size_t alloc = (total + align - 1) / align * align;
  void *mem = aligned_alloc(align, alloc);
  if (!mem) return false;
#ifdef MADV_HUGEPAGE
  madvise(mem, alloc, MADV_HUGEPAGE);
#endif
  memset(mem, 0, total);
  tt->mem = mem;
  tt->e = mem;
  tt->clusters = nc;
  tt->size = nc * TT_CLUSTER;
  tt->used = 0;
  return true;
}

void tt_release(TT *tt) {
  free(tt->mem);
  tt->mem = NULL;
  tt->e = NULL;
  tt->size = tt->used = tt->clusters = 0;
}

void tt_clear(TT *tt) {
  memset(tt->e, 0, tt->size * sizeof *tt->e);
  tt->used = 0;
}

#define cluster tt_cluster
#define TAG(key) ((uint32_t)((key) >> 32) | 1u)

/* Effort kept as a 16-bit log-like code: exact below 4096, then coarse. */
static inline uint16_t amount_code(uint64_t a) {
  if (a < 4096) return (uint16_t)a;
  int lg = 63 - __builtin_clzll(a);
  uint64_t c = 4096 + (uint64_t)(lg - 12) * 1024 + ((a >> (lg - 10)) & 1023);
  return c > 65535 ? 65535 : (uint16_t)c;
}

static uint64_t tt_amount_value(uint16_t c) {
  if (c < 4096) return c;
  int lg = (c - 4096) / 1024 + 12;
  return ((uint64_t)1024 + (c - 4096) % 1024) << (lg - 10);
}

void tt_probe(const TT *tt, uint64_t key, Hand hand, int len, TTProbe *out) {
  const TTEntry *c = cluster(tt, key);
  const uint32_t tag = TAG(key);
  int best_proof = -1, best_disproof = -1, exact = -1;
  for (int i = 0; i < TT_CLUSTER; i++) {
    const TTEntry *e = &c[i];
    if (e->tag != tag) continue;
    if (e->pn == 0) {
      if (e->len <= len && hand_ge(hand, e->hand) && (best_proof < 0 || e->len < c[best_proof].len)) best_proof = i;
    } else if (e->dn == 0) {
      if (e->len >= len && hand_ge(e->hand, hand) && (best_disproof < 0 || e->len > c[best_disproof].len))
        best_disproof = i;
    } else if (e->hand == hand) {
      /* one unknown entry per board and hand: estimates from another budget are
       * still the best guess (proofs and disproofs are only taken as above) */
      exact = i;
    }
  }
  out->flags = 0;
  out->best = 0;
  out->amount = 0;
  out->exact = false;
  if (best_proof >= 0) {
    const TTEntry *e = &c[best_proof];
    out->pn = 0;
    out->dn = PN_INF;
    out->len = e->len;
    out->hand = e->hand;
    out->best = e->best;
    out->amount = (uint32_t)tt_amount_value(e->amount);
    return;
  }
  if (best_disproof >= 0) {
    const TTEntry *e = &c[best_disproof];
    out->pn = PN_INF;
    out->dn = 0;
    out->len = e->len;
    out->hand = e->hand;
    out->amount = (uint32_t)tt_amount_value(e->amount);
    return;
  }
  out->len = 0;
  out->hand = hand;
  if (exact >= 0) {
    const TTEntry *e = &c[exact];
    out->pn = e->pn;
    out->dn = e->dn;
    out->best = e->best;
    out->flags = e->flags;
    out->amount = (uint32_t)tt_amount_value(e->amount);
    out->exact = true;
    return;
  }
  out->pn = 1;
  out->dn = 1;
}

/* The slot for a new entry in cluster c: an empty one, else the least effort. */
static TTEntry *victim(TT *tt, TTEntry *c) {
  TTEntry *v = NULL;
  for (int i = 0; i < TT_CLUSTER; i++) {
    if (!c[i].tag) {
      tt->used++;
      return &c[i];
    }
    if (!v || c[i].amount < v->amount) v = &c[i];
  }
  return v;
}

void tt_store(TT *tt, uint64_t key, Hand hand, int len, uint32_t pn, uint32_t dn, Hand rhand, int rlen,
              uint32_t amount, uint16_t best) {
  TTEntry *c = cluster(tt, key);
  const uint32_t tag = TAG(key);
  TTEntry *slot = NULL;
  bool solved = pn == 0 || dn == 0;
  for (int i = 0; i < TT_CLUSTER; i++) {
    TTEntry *e = &c[i];
    if (e->tag != tag) continue;
    if (e->pn != 0 && e->dn != 0 && e->hand == hand) {
      slot = e; /* the node's own unknown entry: overwritten by its new state */
      break;
    }
    if (solved && ((pn == 0 && e->pn == 0) || (dn == 0 && e->dn == 0)) && e->hand == rhand) {
      /* the same result hand already stored: keep the stronger length */
      if (pn == 0 && rlen < e->len) e->len = (int16_t)rlen;
      if (dn == 0 && rlen > e->len) e->len = (int16_t)rlen;
      if (amount_code(amount) > e->amount) e->amount = amount_code(amount);
      return;
    }
  }
  if (!slot) slot = victim(tt, c);
  slot->tag = tag;
  slot->pn = pn;
  slot->dn = dn;
  slot->amount = amount_code(amount);
  slot->best = best;
  if (solved) {
    slot->hand = rhand;
    slot->len = (int16_t)rlen;
    slot->flags = 0;
  } else {
    if (slot->hand != hand) slot->flags = 0;
    slot->hand = hand;
    slot->len = (int16_t)len;
  }
}

void tt_mark_rep(TT *tt, uint64_t key, Hand hand, int len) {
  TTEntry *c = cluster(tt, key);
  const uint32_t tag = TAG(key);
  for (int i = 0; i < TT_CLUSTER; i++) {
    TTEntry *e = &c[i];
    if (e->tag == tag && e->pn != 0 && e->dn != 0 && e->hand == hand) {
      e->flags |= TT_FLAG_REP;
      return;
    }
  }
  TTEntry *slot = victim(tt, c);
  slot->tag = tag;
  slot->hand = hand;
  slot->len = (int16_t)len;
  slot->pn = slot->dn = 1;
  slot->amount = 1;
  slot->best = 0;
  slot->flags = TT_FLAG_REP;
}

void tt_gc(TT *tt) {
  /* Median effort from a sample decides what goes. */
  enum { SAMPLE = 4096 };
  uint16_t sample[SAMPLE];
  int n = 0;
  size_t step = tt->size / SAMPLE + 1;
  for (size_t i = 0; i < tt->size && n < SAMPLE; i += step)
    if (tt->e[i].tag) sample[n++] = tt->e[i].amount;
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
  for (size_t i = 0; i < tt->size; i++) {
    TTEntry *e = &tt->e[i];
    if (!e->tag) continue;
    if (e->amount <= limit) {
      memset(e, 0, sizeof *e);
    } else {
      e->amount = amount_code(tt_amount_value(e->amount) / 2 + 1); /* old effort fades */
      used++;
    }
  }
  tt->used = used;
}

int tt_hashfull(const TT *tt) { return tt->size ? (int)(tt->used * 1000 / tt->size) : 0; }
