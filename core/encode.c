#include "encode.h"

#include <string.h>

/* Field widths of the 21-bit hand code, from the high bits down: P L N S G B R. */
static const PieceType HAND_ORDER[7] = {PAWN, LANCE, KNIGHT, SILVER, GOLD, BISHOP, ROOK};
static const int HAND_BITS[7] = {5, 3, 3, 3, 3, 2, 2};

uint32_t hand_pack21(Hand h) {
  uint32_t v = 0;
  for (int i = 0; i < 7; i++) v = (v << HAND_BITS[i]) | (uint32_t)hand_count(h, HAND_ORDER[i]);
  return v;
}

Hand hand_unpack21(uint32_t v) {
  Hand h = 0;
  for (int i = 6; i >= 0; i--) {
    int n = (int)(v & ((1u << HAND_BITS[i]) - 1));
    v >>= HAND_BITS[i];
    h = hand_set(h, HAND_ORDER[i], n);
  }
  return h;
}

/* The end of a code from out[n] on: the 0xFF mark and both hands; the code's length. */
static size_t encode_hands(const Position *pos, uint8_t *out, size_t n) {
  out[n++] = 0xFF;
  for (int c = 0; c < COLOR_NB; c++) {
    uint32_t v = hand_pack21(pos->hand[c]);
    out[n++] = (uint8_t)(v >> 16);
    out[n++] = (uint8_t)(v >> 8);
    out[n++] = (uint8_t)v;
  }
  return n;
}

/* The side and the board of a code (pos_encode without the end). */
static size_t encode_board(const Position *pos, uint8_t *out) {
  size_t n = 0;
  out[n++] = (uint8_t)pos->side;
  Bitboard occ = pos_occupied(pos);
  while (occ) {
    Square s = bb_pop(&occ);
    out[n++] = (uint8_t)s;
    out[n++] = pos->board[s];
  }
  return n;
}

size_t pos_encode(const Position *pos, uint8_t *out) { return encode_hands(pos, out, encode_board(pos, out)); }

int pos_decode(const uint8_t *code, size_t len, Position *pos, TsError *err) {
  pos_clear(pos);
  if (len < 8 || len > POS_CODE_MAX) return ts_error_set(err, TS_ERR_PARSE, "<key>", 0, 0, "bad key length %zu", len);
  if (code[0] > 1) return ts_error_set(err, TS_ERR_PARSE, "<key>", 0, 1, "bad side byte %u", code[0]);
  pos->side = (Color)code[0];
  size_t i = 1;
  int last = -1;
  while (i < len && code[i] != 0xFF) {
    if (i + 1 >= len) return ts_error_set(err, TS_ERR_PARSE, "<key>", 0, (int)i + 1, "truncated square/piece pair");
    int s = code[i], p = code[i + 1];
    PieceType t = piece_type((Piece)p);
    if (s >= SQ_NB || s <= last || t == PT_NONE || t >= PT_NB || (p >> 4) > 1)
      return ts_error_set(err, TS_ERR_PARSE, "<key>", 0, (int)i + 1, "bad square/piece pair %d/%d", s, p);
    pos_put(pos, s, (Piece)p);
    last = s;
    i += 2;
  }
  if (i + 7 != len) return ts_error_set(err, TS_ERR_PARSE, "<key>", 0, (int)i + 1, "bad hand section");
  i++;
  for (int c = 0; c < COLOR_NB; c++) {
    uint32_t v = (uint32_t)code[i] << 16 | (uint32_t)code[i + 1] << 8 | code[i + 2];
    if (v >> 21) return ts_error_set(err, TS_ERR_PARSE, "<key>", 0, (int)i + 1, "bad hand code");
    pos->hand[c] = hand_unpack21(v);
    i += 3;
  }
  pos_finish_setup(pos);
  return TS_OK;
}

/* encode_board of pos_mirror(pos), read off pos: the mirrored squares ascend as
 * the files descend (ranks ascending within a file). */
static size_t encode_board_mirrored(const Position *pos, uint8_t *out) {
  size_t n = 0;
  out[n++] = (uint8_t)pos->side;
  Bitboard occ = pos_occupied(pos);
  for (int f = 9; f >= 1; f--) {
    unsigned bits = (unsigned)(occ >> (9 * (f - 1))) & 0x1ff;
    while (bits) {
      Square s = sq_make(f, __builtin_ctz(bits) + 1);
      bits &= bits - 1;
      out[n++] = (uint8_t)sq_mirror(s);
      out[n++] = pos->board[s];
    }
  }
  return n;
}

size_t pos_canonical_sym(const Position *pos, uint8_t *out, bool *mirrored, bool *symmetric) {
  /* the two orientations have the same pieces and hands: their codes differ in the board only, which has
   * the same length in both */
  uint8_t b[POS_CODE_MAX];
  size_t n = encode_board(pos, out);
  encode_board_mirrored(pos, b);
  int c = memcmp(out, b, n);
  if (mirrored) *mirrored = c > 0;
  /* the code is exact: equal codes, equal positions */
  if (symmetric) *symmetric = c == 0;
  if (c > 0) memcpy(out, b, n);
  return encode_hands(pos, out, n);
}

size_t pos_canonical(const Position *pos, uint8_t *out, bool *mirrored) {
  return pos_canonical_sym(pos, out, mirrored, NULL);
}
