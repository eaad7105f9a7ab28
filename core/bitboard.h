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
/* Chebyshev distance between two squares (king steps on an empty board). */
extern uint8_t SQ_DIST[SQ_NB][SQ_NB];

static inline Bitboard bb_sq(Square s) { return BB_SQ[s]; }
static inline bool bb_test(Bitboard b, Square s) {
  uint64_t w = s < 64 ? (uint64_t)b : (uint64_t)(b >> 64); /* one word, not a 128-bit shift */
  return (w >> (s & 63)) & 1;
}
static inline bool bb_any(Bitboard b) { return b != 0; }
static inline int bb_popcount(Bitboard b) {
#ifdef __POPCNT__
  return __builtin_popcountll((uint64_t)b) + __builtin_popcountll((uint64_t)(b >> 64));
#else
  /* without the instruction the builtin is a library call: count in parallel instead */
  uint64_t x[2] = {(uint64_t)b, (uint64_t)(b >> 64)};
  int n = 0;
  for (int i = 0; i < 2; i++) {
    uint64_t v = x[i] - ((x[i] >> 1) & 0x5555555555555555ULL);
    v = (v & 0x3333333333333333ULL) + ((v >> 2) & 0x3333333333333333ULL);
    v = (v + (v >> 4)) & 0x0f0f0f0f0f0f0f0fULL;
    n += (int)((v * 0x0101010101010101ULL) >> 56);
  }
  return n;
#endif
}
/* bb_popcount for sets of a few squares (a king's neighbourhood): one step per square. */
static inline int bb_popcount_sparse(Bitboard b) {
#ifdef __POPCNT__
  return bb_popcount(b);
#else
  int n = 0;
  for (uint64_t w = (uint64_t)b; w; w &= w - 1) n++;
  for (uint64_t w = (uint64_t)(b >> 64); w; w &= w - 1) n++;
  return n;
#endif
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
  uint64_t lo = (uint64_t)*b, hi = (uint64_t)(*b >> 64);
  if (lo) {
    *b = (Bitboard)hi << 64 | (lo & (lo - 1));
    return __builtin_ctzll(lo);
  }
  *b = (Bitboard)(hi & (hi - 1)) << 64;
  return 64 + __builtin_ctzll(hi);
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
/* NEAR_SQUARES[sq]: the squares within two files and three ranks of sq, where any
 * piece that attacks a neighbour of sq by a step (knight jumps included) stands. */
extern Bitboard NEAR_SQUARES[SQ_NB];
/* STEP_CHECK_SQUARES[sq]: the squares within two files and four ranks of sq, where
 * any piece stands that can give check to a king on sq by a step (a knight's jump
 * or a promotion included). */
extern Bitboard STEP_CHECK_SQUARES[SQ_NB];

/* Rays: BB_RAY[d][sq] = the squares from sq in direction d, sq excluded. N is
 * towards rank 1, E towards file 1. Along S, W, NW and SW the square index grows,
 * so the first blocker is the lowest bit; along the others it is the highest. */
enum { BB_DIR_N, BB_DIR_S, BB_DIR_E, BB_DIR_W, BB_DIR_NE, BB_DIR_NW, BB_DIR_SE, BB_DIR_SW, BB_DIR_NB };
extern Bitboard BB_RAY[BB_DIR_NB][SQ_NB];

static inline Bitboard bb_ray_up(int d, Square s, Bitboard occ) {
  Bitboard ray = BB_RAY[d][s], blk = ray & occ;
  return blk ? ray ^ BB_RAY[d][bb_lsb(blk)] : ray;
}

static inline Bitboard bb_ray_down(int d, Square s, Bitboard occ) {
  Bitboard ray = BB_RAY[d][s], blk = ray & occ;
  return blk ? ray ^ BB_RAY[d][bb_msb(blk)] : ray;
}

static inline Bitboard bb_lance_attacks(Color c, Square s, Bitboard occ) {
  return c == BLACK ? bb_ray_down(BB_DIR_N, s, occ) : bb_ray_up(BB_DIR_S, s, occ);
}

static inline Bitboard bb_bishop_attacks(Square s, Bitboard occ) {
  return bb_ray_down(BB_DIR_NE, s, occ) | bb_ray_up(BB_DIR_NW, s, occ) | bb_ray_down(BB_DIR_SE, s, occ) |
         bb_ray_up(BB_DIR_SW, s, occ);
}

static inline Bitboard bb_rook_attacks(Square s, Bitboard occ) {
  return bb_ray_down(BB_DIR_N, s, occ) | bb_ray_up(BB_DIR_S, s, occ) | bb_ray_down(BB_DIR_E, s, occ) |
         bb_ray_up(BB_DIR_W, s, occ);
}

/* Attacks of any piece of colour c and kind t standing on s, given the occupancy. */
static inline Bitboard bb_attacks(Color c, PieceType t, Square s, Bitboard occ) {
  switch (t) {
  case LANCE: return bb_lance_attacks(c, s, occ);
  case BISHOP: return bb_bishop_attacks(s, occ);
  case ROOK: return bb_rook_attacks(s, occ);
  case HORSE: return bb_bishop_attacks(s, occ) | STEP_ATTACKS[c][KING][s];
  case DRAGON: return bb_rook_attacks(s, occ) | STEP_ATTACKS[c][KING][s];
  default: return STEP_ATTACKS[c][t][s];
  }
}
/* Attacks of kind t ignoring blockers (empty-board reach). */
Bitboard bb_pseudo_attacks(Color c, PieceType t, Square s);

/* Builds every table above; call once before any other core function. Idempotent. */
void core_init(void);

#endif
