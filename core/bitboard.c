#include "bitboard.h"

#include <stdatomic.h>

Bitboard BB_ALL;
Bitboard BB_SQ[SQ_NB + 1];
Bitboard BB_FILE[10];
Bitboard BB_RANK[10];
Bitboard BB_ZONE[COLOR_NB];
Bitboard STEP_ATTACKS[COLOR_NB][PT_NB][SQ_NB];
Bitboard BETWEEN[SQ_NB][SQ_NB];
Bitboard LINE[SQ_NB][SQ_NB];
Bitboard LANCE_REACH[COLOR_NB][SQ_NB];
Bitboard BISHOP_REACH[SQ_NB];
Bitboard ROOK_REACH[SQ_NB];

/* Rays: RAY[d][s] = squares from s in direction d, s excluded. Directions as
 * (file delta, rank delta); the index step is df*9 + dr. */
enum { DIR_N, DIR_S, DIR_E, DIR_W, DIR_NE, DIR_NW, DIR_SE, DIR_SW, DIR_NB };
static const int DIR_DF[DIR_NB] = {0, 0, -1, 1, -1, 1, -1, 1};
static const int DIR_DR[DIR_NB] = {-1, 1, 0, 0, -1, -1, 1, 1};
static Bitboard RAY[DIR_NB][SQ_NB];

static bool on_board(int f, int r) { return f >= 1 && f <= 9 && r >= 1 && r <= 9; }

/* A direction "increases" the square index when df*9+dr > 0: the first blocker is then the lsb. */
static inline bool dir_positive(int d) { return DIR_DF[d] * 9 + DIR_DR[d] > 0; }

static inline Bitboard ray_attack(int d, Square s, Bitboard occ) {
  Bitboard ray = RAY[d][s];
  Bitboard blk = ray & occ;
  if (!blk) return ray;
  Square b = dir_positive(d) ? bb_lsb(blk) : bb_msb(blk);
  return ray ^ RAY[d][b];
}

Bitboard bb_lance_attacks(Color c, Square s, Bitboard occ) {
  return ray_attack(c == BLACK ? DIR_N : DIR_S, s, occ);
}

Bitboard bb_bishop_attacks(Square s, Bitboard occ) {
  return ray_attack(DIR_NE, s, occ) | ray_attack(DIR_NW, s, occ) | ray_attack(DIR_SE, s, occ) |
         ray_attack(DIR_SW, s, occ);
}

Bitboard bb_rook_attacks(Square s, Bitboard occ) {
  return ray_attack(DIR_N, s, occ) | ray_attack(DIR_S, s, occ) | ray_attack(DIR_E, s, occ) |
         ray_attack(DIR_W, s, occ);
}

Bitboard bb_attacks(Color c, PieceType t, Square s, Bitboard occ) {
  switch (t) {
  case LANCE: return bb_lance_attacks(c, s, occ);
  case BISHOP: return bb_bishop_attacks(s, occ);
  case ROOK: return bb_rook_attacks(s, occ);
  case HORSE: return bb_bishop_attacks(s, occ) | STEP_ATTACKS[c][KING][s];
  case DRAGON: return bb_rook_attacks(s, occ) | STEP_ATTACKS[c][KING][s];
  default: return STEP_ATTACKS[c][t][s];
  }
}

Bitboard bb_pseudo_attacks(Color c, PieceType t, Square s) { return bb_attacks(c, t, s, BB_ZERO); }

static void add_step(Color c, PieceType t, Square s, int df, int dr) {
  int f = sq_file(s) + df, r = sq_rank(s) + (c == BLACK ? dr : -dr);
  if (on_board(f, r)) STEP_ATTACKS[c][t][s] |= BB_SQ[sq_make(f, r)];
}

static atomic_int core_ready;

void core_init(void) {
  if (atomic_load(&core_ready)) return;
  BB_ALL = 0;
  for (Square s = 0; s < SQ_NB; s++) {
    BB_SQ[s] = (Bitboard)1 << s;
    BB_ALL |= BB_SQ[s];
    BB_FILE[sq_file(s)] |= BB_SQ[s];
    BB_RANK[sq_rank(s)] |= BB_SQ[s];
  }
  BB_SQ[SQ_NONE] = 0;
  BB_ZONE[BLACK] = BB_RANK[1] | BB_RANK[2] | BB_RANK[3];
  BB_ZONE[WHITE] = BB_RANK[7] | BB_RANK[8] | BB_RANK[9];

  for (int d = 0; d < DIR_NB; d++)
    for (Square s = 0; s < SQ_NB; s++) {
      Bitboard b = 0;
      int f = sq_file(s) + DIR_DF[d], r = sq_rank(s) + DIR_DR[d];
      while (on_board(f, r)) {
        b |= BB_SQ[sq_make(f, r)];
        f += DIR_DF[d];
        r += DIR_DR[d];
      }
      RAY[d][s] = b;
    }

  /* Step patterns, written for sente (dr = -1 is forward); gote's are mirrored vertically. */
  for (int c = 0; c < COLOR_NB; c++)
    for (Square s = 0; s < SQ_NB; s++) {
      add_step(c, PAWN, s, 0, -1);
      add_step(c, KNIGHT, s, -1, -2);
      add_step(c, KNIGHT, s, 1, -2);
      static const int sil[5][2] = {{-1, -1}, {0, -1}, {1, -1}, {-1, 1}, {1, 1}};
      static const int gol[6][2] = {{-1, -1}, {0, -1}, {1, -1}, {-1, 0}, {1, 0}, {0, 1}};
      for (int i = 0; i < 5; i++) add_step(c, SILVER, s, sil[i][0], sil[i][1]);
      for (int i = 0; i < 6; i++) add_step(c, GOLD, s, gol[i][0], gol[i][1]);
      for (int df = -1; df <= 1; df++)
        for (int dr = -1; dr <= 1; dr++)
          if (df || dr) add_step(c, KING, s, df, dr);
      STEP_ATTACKS[c][PRO_PAWN][s] = STEP_ATTACKS[c][GOLD][s];
      STEP_ATTACKS[c][PRO_LANCE][s] = STEP_ATTACKS[c][GOLD][s];
      STEP_ATTACKS[c][PRO_KNIGHT][s] = STEP_ATTACKS[c][GOLD][s];
      STEP_ATTACKS[c][PRO_SILVER][s] = STEP_ATTACKS[c][GOLD][s];
      STEP_ATTACKS[c][HORSE][s] = STEP_ATTACKS[c][KING][s];
      STEP_ATTACKS[c][DRAGON][s] = STEP_ATTACKS[c][KING][s];
    }

  for (Square a = 0; a < SQ_NB; a++)
    for (int d = 0; d < DIR_NB; d++) {
      Bitboard ray = RAY[d][a];
      Bitboard walk = ray;
      while (walk) {
        Square b = bb_pop(&walk);
        BETWEEN[a][b] = ray & ~RAY[d][b] & ~BB_SQ[b];
      }
    }
  /* LINE: both rays through a in the direction of b, plus a. Opposite direction pairs. */
  static const int OPP[DIR_NB] = {DIR_S, DIR_N, DIR_W, DIR_E, DIR_SW, DIR_SE, DIR_NW, DIR_NE};
  for (Square a = 0; a < SQ_NB; a++)
    for (int d = 0; d < DIR_NB; d++) {
      Bitboard walk = RAY[d][a];
      Bitboard line = RAY[d][a] | RAY[OPP[d]][a] | BB_SQ[a];
      while (walk) {
        Square b = bb_pop(&walk);
        LINE[a][b] = line;
      }
    }
  for (Square s = 0; s < SQ_NB; s++) {
    LANCE_REACH[BLACK][s] = RAY[DIR_N][s];
    LANCE_REACH[WHITE][s] = RAY[DIR_S][s];
    BISHOP_REACH[s] = RAY[DIR_NE][s] | RAY[DIR_NW][s] | RAY[DIR_SE][s] | RAY[DIR_SW][s];
    ROOK_REACH[s] = RAY[DIR_N][s] | RAY[DIR_S][s] | RAY[DIR_E][s] | RAY[DIR_W][s];
  }
  atomic_store(&core_ready, 1);
}
