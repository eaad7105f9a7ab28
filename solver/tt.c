#include "tt.h"

#include <stdlib.h>
#include <string.h>

bool tt_init(TT *tt, size_t mb) {
  size_t bytes = (mb ? mb : 1) << 20;
  size_t n = bytes / sizeof(TTEntry);
  if (n < TT_CLUSTER) n = TT_CLUSTER;
  TTEntry *e = calloc(n + TT_CLUSTER, sizeof *e);
  if (!e) return false;
  tt->e = e;
  tt->size = n;
  tt->used = 0;
  return true;
}

void tt_release(TT *tt) {
  free(tt->e);
  tt->e = NULL;
  tt->size = tt->used = 0;
}

void tt_clear(TT *tt) {
  memset(tt->e, 0, (tt->size + TT_CLUSTER) * sizeof *tt->e);
  tt->used = 0;
}

static inline TTEntry *cluster(const TT *tt, uint64_t key) {
  /* multiply-shift maps the key onto [0, size) without a division */
  return tt->e + (size_t)(((unsigned __int128)key * tt->size) >> 64);
}

void tt_probe(const TT *tt, uint64_t key, Hand hand, int len, TTProbe *out) {
  const TTEntry *c = cluster(tt, key);
  int best_proof = -1, best_disproof = -1, exact = -1;
  for (int i = 0; i < TT_CLUSTER; i++) {
    const TTEntry *e = &c[i];
    if (e->key != key) continue;
    if (e->pn == 0) {
      if (e->len <= len && hand_ge(hand, e->hand) && (best_proof < 0 || e->len < c[best_proof].len)) best_proof = i;
    } else if (e->dn == 0) {
      if (e->len >= len && hand_ge(e->hand, hand) && (best_disproof < 0 || e->len > c[best_disproof].len))
        best_disproof = i;
    } else if (e->hand == hand && e->len == len) {
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
    out->amount = e->amount;
    return;
  }
  if (best_disproof >= 0) {
    const TTEntry *e = &c[best_disproof];
    out->pn = PN_INF;
    out->dn = 0;
    out->len = e->len;
    out->hand = e->hand;
    out->amount = e->amount;
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
    out->amount = e->amount;
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
    if (!c[i].key) {
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
  TTEntry *slot = NULL;
  bool solved = pn == 0 || dn == 0;
  for (int i = 0; i < TT_CLUSTER; i++) {
    TTEntry *e = &c[i];
    if (e->key != key) continue;
    if (e->pn != 0 && e->dn != 0 && e->hand == hand && e->len == len) {
      slot = e; /* the node's own unknown entry: overwritten by its new state */
      break;
    }
    if (solved && ((pn == 0 && e->pn == 0) || (dn == 0 && e->dn == 0)) && e->hand == rhand) {
      /* the same result hand already stored: keep the stronger length */
      if (pn == 0 && rlen < e->len) e->len = (int16_t)rlen;
      if (dn == 0 && rlen > e->len) e->len = (int16_t)rlen;
      if (amount > e->amount) e->amount = amount;
      return;
    }
  }
  if (!slot) slot = victim(tt, c);
  slot->key = key;
  slot->pn = pn;
  slot->dn = dn;
  slot->amount = amount;
  slot->best = best;
  if (solved) {
    slot->hand = rhand;
    slot->len = (int16_t)rlen;
    slot->flags = 0;
  } else {
    if (slot->hand != hand || slot->len != len) slot->flags = 0;
    slot->hand = hand;
    slot->len = (int16_t)len;
  }
}

void tt_mark_rep(TT *tt, uint64_t key, Hand hand, int len) {
  TTEntry *c = cluster(tt, key);
  for (int i = 0; i < TT_CLUSTER; i++) {
    TTEntry *e = &c[i];
    if (e->key == key && e->pn != 0 && e->dn != 0 && e->hand == hand && e->len == len) {
      e->flags |= TT_FLAG_REP;
      return;
    }
  }
  TTEntry *slot = victim(tt, c);
  slot->key = key;
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
  uint32_t sample[SAMPLE];
  int n = 0;
  size_t step = tt->size / SAMPLE + 1;
  for (size_t i = 0; i < tt->size && n < SAMPLE; i += step)
    if (tt->e[i].key) sample[n++] = tt->e[i].amount;
  if (!n) return;
  /* nth element by counting: efforts are small integers mostly, so a histogram on log2 works */
  int hist[33] = {0};
  for (int i = 0; i < n; i++) hist[sample[i] ? 32 - __builtin_clz(sample[i]) : 0]++;
  int acc = 0, bucket = 0;
  for (; bucket < 33; bucket++) {
    acc += hist[bucket];
    if (acc * 2 >= n) break;
  }
  uint32_t limit = bucket == 0 ? 0 : (bucket >= 32 ? UINT32_MAX : (1u << bucket) - 1);
  size_t used = 0;
  for (size_t i = 0; i < tt->size + TT_CLUSTER; i++) {
    TTEntry *e = &tt->e[i];
    if (!e->key) continue;
    if (e->amount <= limit) {
      memset(e, 0, sizeof *e);
    } else {
      e->amount = e->amount / 2 + 1; /* old effort fades */
      used++;
    }
  }
  tt->used = used;
}

int tt_hashfull(const TT *tt) { return tt->size ? (int)(tt->used * 1000 / tt->size) : 0; }
