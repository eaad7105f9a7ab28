/*
 * tt.h - the df-pn transposition table (internal to the solver).
 *
 * Entries are keyed by the board key (board + side to move, salted per
 * search root, see dfpn.c) and keep the attacker's hand beside the key, so one
 * lookup scans a small cluster and can answer from any entry of the same board:
 *
 *   proven  (pn = 0): hand = proof hand, len = length of the mate found;
 *                     answers every query with hand >= proof hand and len >= mate length
 *   disproven (dn = 0): hand = disproof hand, len = "no mate within len" (TT_LEN_INF = never);
 *                     answers every query with hand <= disproof hand and len <= that
 *   unknown:          hand = the node's hand, len = the budget it was last searched with;
 *                     answers the same hand, any budget (pn, dn are estimates only)
 *
 * Layout of one cluster of 8 entries (192 bytes, three cache lines), each field of
 * the 8 entries side by side (bytes):
 *
 *   line 0: tag[8] 32 | hand[8] 32       a probe that matches no tag reads this line only
 *   line 1: pn[8] 32 | dn[8] 32
 *   line 2: len[8] 16 | amount[8] 16 | best[8] 16 | flags[8] 8 | pad 8
 *
 * The low 32 bits of the key choose the cluster, the high 32 bits are the tag. When a
 * cluster is full the entry with the least search effort ("amount") is replaced;
 * when the table is more than 3/4 full tt_gc drops the half with the least effort.
 */
#ifndef TSUME_SOLVER_TT_H
#define TSUME_SOLVER_TT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "types.h"

#ifdef __SSE2__
#include <emmintrin.h>
#endif

#define TT_CLUSTER 8
#define TT_LEN_INF 30000
#define PN_INF 0x7fffffffu
#define PN_MAX (PN_INF - 2u) /* largest finite proof / disproof number */

enum { TT_FLAG_REP = 1 }; /* the node was once disproven by a repetition on some path */

/* Beside a solved entry's hand (a bit no hand uses): the proof or disproof holds for this
 * very hand only, not for larger (proof) or smaller (disproof) ones. A result that rests on
 * the 無駄合 rule's third condition (the same mate, which compares two mates of one hand)
 * carries it up the tree. */
#define TT_HAND_ONLY (1u << 31)

typedef struct {
  uint32_t tag[TT_CLUSTER]; /* high half of the key (the low half chose the cluster); 0 = empty */
  Hand hand[TT_CLUSTER];
  uint32_t pn[TT_CLUSTER], dn[TT_CLUSTER];
  int16_t len[TT_CLUSTER];
  uint16_t amount[TT_CLUSTER]; /* search effort, log-scaled (see tt.c) */
  uint16_t best[TT_CLUSTER];
  uint8_t flags[TT_CLUSTER];
  uint8_t pad[TT_CLUSTER];
} TTCluster;

typedef struct {
  TTCluster *c;
  void *mem;       /* the mapping (2 MiB-aligned), map_len bytes */
  size_t map_len;
  uint8_t *dirty;  /* per 4 KiB block: written since the last clear */
  size_t chunks;   /* blocks */
  size_t clusters; /* the table holds clusters * TT_CLUSTER entries */
  size_t size;     /* entries */
  size_t used;
} TT;

typedef struct {
  uint32_t pn, dn;
  int16_t len;    /* mate length (proven), no-mate length (disproven) */
  Hand hand;      /* proof / disproof hand when solved */
  uint16_t best;  /* compact best move from the exact entry, 0 if none */
  uint8_t flags;
  uint32_t amount;
  bool exact;     /* an unknown entry of this very hand and budget was found */
  bool hand_only; /* solved: the result holds for this very hand only (TT_HAND_ONLY) */
} TTProbe;

static inline TTCluster *tt_cluster(const TT *tt, uint64_t key) {
  return tt->c + (size_t)(((uint64_t)(uint32_t)key * tt->clusters) >> 32);
}

/* The tag line only: the other lines are read when a tag matches. */
static inline void tt_prefetch(const TT *tt, uint64_t key) { __builtin_prefetch(tt_cluster(tt, key)); }

/* The tag of a key: its high half, never 0 (0 marks an empty entry). */
#define TT_TAG(key) ((uint32_t)((key) >> 32) | 1u)

/* The effort an entry's amount code stands for (tt.c keeps it log-scaled). */
static inline uint64_t tt_amount_value(uint16_t c) {
  if (c < 4096) return c;
  int lg = (c - 4096) / 1024 + 12;
  return ((uint64_t)1024 + (c - 4096) % 1024) << (lg - 10);
}

/* Bit i set when entry i of the cluster carries `tag`. */
static inline unsigned tt_tag_matches(const TTCluster *c, uint32_t tag) {
#if defined(__SSE2__) && TT_CLUSTER == 8
  __m128i t = _mm_set1_epi32((int)tag);
  __m128i lo = _mm_cmpeq_epi32(_mm_load_si128((const __m128i *)c->tag), t);
  __m128i hi = _mm_cmpeq_epi32(_mm_load_si128((const __m128i *)c->tag + 1), t);
  return (unsigned)_mm_movemask_ps(_mm_castsi128_ps(lo)) | (unsigned)_mm_movemask_ps(_mm_castsi128_ps(hi)) << 4;
#else
  unsigned m = 0;
  for (int i = 0; i < TT_CLUSTER; i++) m |= (unsigned)(c->tag[i] == tag) << i;
  return m;
#endif
}

/* Does a solved entry of hand eh answer a query of hand h? A marked one (TT_HAND_ONLY) only its own. */
static inline bool tt_hand_fits(Hand eh, Hand h) { return !(eh & TT_HAND_ONLY) || eh == (h | TT_HAND_ONLY); }

/* Looks up (key, hand, len). Unknown: pn = dn = 1 with exact = false. Inline: a node
 * probes each of its children, and the callers use only part of the answer. */
static inline __attribute__((always_inline)) void tt_probe(const TT *tt, uint64_t key, Hand hand, int len,
                                                           TTProbe *out) {
  const TTCluster *c = tt_cluster(tt, key);
  int best_proof = -1, best_disproof = -1, exact = -1, hint = -1;
  for (unsigned m = tt_tag_matches(c, TT_TAG(key)); m; m &= m - 1) {
    int i = __builtin_ctz(m);
    /* the marker bit lies above every count: hand_ge ignores it */
    if (c->pn[i] == 0) {
      if (c->len[i] <= len && hand_ge(hand, c->hand[i]) && (best_proof < 0 || c->len[i] < c->len[best_proof])) {
        if (tt_hand_fits(c->hand[i], hand))
          best_proof = i;
        else
          hint = i; /* a proof of another hand: its move is the first to try */
      }
    } else if (c->dn[i] == 0) {
      if (c->len[i] >= len && hand_ge(c->hand[i], hand) && (best_disproof < 0 || c->len[i] > c->len[best_disproof]) &&
          tt_hand_fits(c->hand[i], hand))
        best_disproof = i;
    } else if (c->hand[i] == hand) {
      /* one unknown entry per board and hand: estimates from another budget are
       * still the best guess (proofs and disproofs are only taken as above) */
      exact = i;
    }
  }
  out->flags = 0;
  out->best = 0;
  out->amount = 0;
  out->exact = false;
  out->hand_only = false;
  if (best_proof >= 0) {
    int i = best_proof;
    out->pn = 0;
    out->dn = PN_INF;
    out->len = c->len[i];
    out->hand = c->hand[i] & ~TT_HAND_ONLY;
    out->hand_only = (c->hand[i] & TT_HAND_ONLY) != 0;
    out->best = c->best[i];
    out->amount = (uint32_t)tt_amount_value(c->amount[i]);
    return;
  }
  if (best_disproof >= 0) {
    int i = best_disproof;
    out->pn = PN_INF;
    out->dn = 0;
    out->len = c->len[i];
    out->hand = c->hand[i] & ~TT_HAND_ONLY;
    out->hand_only = (c->hand[i] & TT_HAND_ONLY) != 0;
    out->amount = (uint32_t)tt_amount_value(c->amount[i]);
    return;
  }
  out->len = 0;
  out->hand = hand;
  if (hint >= 0) out->best = c->best[hint];
  if (exact >= 0) {
    int i = exact;
    out->pn = c->pn[i];
    out->dn = c->dn[i];
    if (c->best[i]) out->best = c->best[i];
    out->flags = c->flags[i];
    out->amount = (uint32_t)tt_amount_value(c->amount[i]);
    out->exact = true;
    return;
  }
  out->pn = 1;
  out->dn = 1;
}

/* Maps mb MiB (at least one cluster), empty; pages are supplied (zeroed) as the
 * search first touches them. false when out of memory. */
bool tt_init(TT *tt, size_t mb);
void tt_release(TT *tt);
/* Empties the table: clears only the 4 KiB blocks written since the last clear. */
void tt_clear(TT *tt);
/* Stores the state of node (key, hand, len): unknown (pn, dn > 0) or a result
 * (pn == 0: rhand = proof hand, rlen = mate length; dn == 0: disproof hand,
 * no-mate length). The node's unknown entry is replaced by the result. */
void tt_store(TT *tt, uint64_t key, Hand hand, int len, uint32_t pn, uint32_t dn, Hand rhand, int rlen,
              uint32_t amount, uint16_t best);
/* Sets TT_FLAG_REP on the node's entry (creating an unknown entry if needed). */
void tt_mark_rep(TT *tt, uint64_t key, Hand hand, int len);
/* Drops about half of the entries (those with the least effort). */
void tt_gc(TT *tt);
/* Use in permille. */
int tt_hashfull(const TT *tt);

#endif
