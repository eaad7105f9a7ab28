#include "bitboard.h"

#include <stdatomic.h>
#include <stdlib.h>

Bitboard BB_ALL;
Bitboard BB_SQ[SQ_NB + 1];
Bitboard BB_FILE[10];
Bitboard BB_RANK[10];
Bitboard BB_ZONE[COLOR_NB];
uint8_t SQ_DIST[SQ_NB][SQ_NB];
Bitboard STEP_ATTACKS[COLOR_NB][PT_NB][SQ_NB];
Bitboard BETWEEN[SQ_NB][SQ_NB];
Bitboard LINE[SQ_NB][SQ_NB];
Bitboard LANCE_REACH[COLOR_NB][SQ_NB];
Bitboard BISHOP_REACH[SQ_NB];
Bitboard ROOK_REACH[SQ_NB];
Bitboard NEAR_SQUARES[SQ_NB];
Bitboard STEP_CHECK_SQUARES[SQ_NB];

/* Directions as (file delta, rank delta); the index step is df*9 + dr. */
static const int DIR_DF[BB_DIR_NB] = {0, 0, -1, 1, -1, 1, -1, 1};
static const int DIR_DR[BB_DIR_NB] = {-1, 1, 0, 0, -1, -1, 1, 1};
Bitboard BB_RAY[BB_DIR_NB][SQ_NB];

static bool on_board(int f, int r) { return f >= 1 && f <= 9 && r >= 1 && r <= 9; }

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
  for (Square a = 0; a < SQ_NB; a++)
    for (Square b = 0; b < SQ_NB; b++) {
      int df = abs(sq_file(a) - sq_file(b)), dr = abs(sq_rank(a) - sq_rank(b));
      SQ_DIST[a][b] = (uint8_t)(df > dr ? df : dr);
    }
  BB_ZONE[BLACK] = BB_RANK[1] | BB_RANK[2] | BB_RANK[3];
  BB_ZONE[WHITE] = BB_RANK[7] | BB_RANK[8] | BB_RANK[9];

  for (int d = 0; d < BB_DIR_NB; d++)
    for (Square s = 0; s < SQ_NB; s++) {
      Bitboard b = 0;
      int f = sq_file(s) + DIR_DF[d], r = sq_rank(s) + DIR_DR[d];
      while (on_board(f, r)) {
        b |= BB_SQ[sq_make(f, r)];
        f += DIR_DF[d];
        r += DIR_DR[d];
      }
      BB_RAY[d][s] = b;
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
    for (int d = 0; d < BB_DIR_NB; d++) {
      Bitboard ray = BB_RAY[d][a];
      Bitboard walk = ray;
      while (walk) {
        Square b = bb_pop(&walk);
        BETWEEN[a][b] = ray & ~BB_RAY[d][b] & ~BB_SQ[b];
      }
    }
  /* LINE: both rays through a in the direction of b, plus a. Opposite direction pairs. */
  static const int OPP[BB_DIR_NB] = {BB_DIR_S, BB_DIR_N, BB_DIR_W, BB_DIR_E, BB_DIR_SW, BB_DIR_SE, BB_DIR_NW, BB_DIR_NE};
  for (Square a = 0; a < SQ_NB; a++)
    for (int d = 0; d < BB_DIR_NB; d++) {
      Bitboard walk = BB_RAY[d][a];
      Bitboard line = BB_RAY[d][a] | BB_RAY[OPP[d]][a] | BB_SQ[a];
      while (walk) {
        Square b = bb_pop(&walk);
        LINE[a][b] = line;
      }
    }
  for (Square s = 0; s < SQ_NB; s++) {
    LANCE_REACH[BLACK][s] = BB_RAY[BB_DIR_N][s];
    LANCE_REACH[WHITE][s] = BB_RAY[BB_DIR_S][s];
    BISHOP_REACH[s] = BB_RAY[BB_DIR_NE][s] | BB_RAY[BB_DIR_NW][s] | BB_RAY[BB_DIR_SE][s] | BB_RAY[BB_DIR_SW][s];
    ROOK_REACH[s] = BB_RAY[BB_DIR_N][s] | BB_RAY[BB_DIR_S][s] | BB_RAY[BB_DIR_E][s] | BB_RAY[BB_DIR_W][s];
  }
  for (Square s = 0; s < SQ_NB; s++) {
    NEAR_SQUARES[s] = STEP_CHECK_SQUARES[s] = 0;
    for (Square q = 0; q < SQ_NB; q++) {
      int df = abs(sq_file(q) - sq_file(s)), dr = abs(sq_rank(q) - sq_rank(s));
      if (df <= 2 && dr <= 3) NEAR_SQUARES[s] |= BB_SQ[q];
      if (df <= 2 && dr <= 4) STEP_CHECK_SQUARES[s] |= BB_SQ[q];
    }
  }
  atomic_store(&core_ready, 1);
}
