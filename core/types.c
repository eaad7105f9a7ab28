#include "types.h"

const int PIECE_INVENTORY[PT_NB] = {
    [PAWN] = 18, [LANCE] = 4, [KNIGHT] = 4, [SILVER] = 4, [BISHOP] = 2, [ROOK] = 2, [GOLD] = 4, [KING] = 2,
};

const int HAND_SHIFT[HAND_PT_NB] = {
    [PAWN] = 0, [LANCE] = 6, [KNIGHT] = 10, [SILVER] = 14, [GOLD] = 18, [BISHOP] = 22, [ROOK] = 25,
};

const uint32_t HAND_MASK[HAND_PT_NB] = {
    [PAWN] = 31u << 0, [LANCE] = 7u << 6, [KNIGHT] = 7u << 10, [SILVER] = 7u << 14,
    [GOLD] = 7u << 18, [BISHOP] = 3u << 22, [ROOK] = 3u << 25,
};

int hand_total(Hand h) {
  int n = 0;
  for (int t = PAWN; t <= GOLD; t++) n += hand_count(h, (PieceType)t);
  return n;
}
