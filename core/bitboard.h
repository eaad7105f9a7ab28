/*
 * bitboard.h - 81-square sets as one 128-bit integer (bit sq = square sq of types.h)
 * and the attack tables built once by core_init().
 */
#ifndef TSUME_BITBOARD_H
#define TSUME_BITBOARD_H

#include "types.h"

typedef unsigned __int128 Bitboard;

#define BB_ZERO ((Bitboard)0)
extern Bitboard BB_ALL;          /* the 81 squares */
extern Bitboard BB_SQ[SQ_NB + 1]; /* BB_SQ[SQ_NONE] = 0 */
extern Bitboard BB_FILE[10];     /* index 1..9 */
extern Bitboard BB_RANK[10];     /* index 1..9 */
extern Bitboard BB_ZONE[COLOR_NB]; /* promotion zone of each colour */

static inline Bitboard bb_sq(Square s) { return BB_SQ[s]; }
static inline bool bb_test(Bitboard b, Square s) { return (b >> s) & 1; }
static inline bool bb_any(Bitboard b) { return b != 0; }
static inline int bb_popcount(Bitboard b) {
  return __builtin_popcountll((uint64_t)b) + __builtin_popcountll((uint64_t)(b >> 64));
}
static inline Square bb_lsb(Bitboard b) {
  uint64_t lo = (uint64_t)b;
  return lo ? __builtin_ctzll(lo) : 64 + __builtin_ctzll((uint64_t)(b >> 64));
}
static inline Square bb_msb(Bitboard b) {
  uint64_t hi = (uint64_t)(b >> 64);
  return hi ? 127 - __builtin_clzll(hi) : 63 - __builtin_clzll((uint64_t)b);
}
static inline Square bb_pop(Bitboard *b) {
  Square s = bb_lsb(*b);
  *b &= *b - 1;
  return s;
}
static inline bool bb_more_than_one(Bitboard b) { return (b & (b - 1)) != 0; }

/* Step attacks of non-sliding kinds: STEP_ATTACKS[colour][kind][sq] (sliders' step parts too). */
extern Bitboard STEP_ATTACKS[COLOR_NB][PT_NB][SQ_NB];
/* Squares strictly between two aligned squares (0 if not aligned). */
extern Bitboard BETWEEN[SQ_NB][SQ_NB];
/* The whole line through two aligned squares (0 if not aligned). */
extern Bitboard LINE[SQ_NB][SQ_NB];
/* Empty-board reach of the ranging kinds: LANCE_REACH[colour][sq], BISHOP_REACH[sq], ROOK_REACH[sq]. */
extern Bitboard LANCE_REACH[COLOR_NB][SQ_NB];
extern Bitboard BISHOP_REACH[SQ_NB];
extern Bitboard ROOK_REACH[SQ_NB];

Bitboard bb_lance_attacks(Color c, Square s, Bitboard occ);
Bitboard bb_bishop_attacks(Square s, Bitboard occ);
Bitboard bb_rook_attacks(Square s, Bitboard occ);
/* Attacks of any piece of colour c and kind t standing on s, given the occupancy. */
Bitboard bb_attacks(Color c, PieceType t, Square s, Bitboard occ);
/* Attacks of kind t ignoring blockers (empty-board reach). */
Bitboard bb_pseudo_attacks(Color c, PieceType t, Square s);

/* Builds every table above; call once before any other core function. Idempotent. */
void core_init(void);

#endif
