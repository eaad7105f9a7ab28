/*
 * encode.h - compact, injective byte encoding of a position and the canonical
 * key of design.md §4 (the smaller encoding of a position and its mirror).
 *
 *   byte 0        side to move (0 = sente, 1 = gote)
 *   then pairs    (square, piece) for every occupied square in square order
 *   then 0xFF     separator (no square or piece byte equals 0xFF)
 *   then 3 bytes  sente's hand, 3 bytes gote's hand, each big-endian 21 bits:
 *                 P 5 | L 3 | N 3 | S 3 | G 3 | B 2 | R 2  (P in the high bits)
 *
 * With 40 pieces on the board the code is 1 + 80 + 1 + 6 = 88 bytes.
 */
#ifndef TSUME_ENCODE_H
#define TSUME_ENCODE_H

#include <stddef.h>
#include <stdint.h>

#include "position.h"

#define POS_CODE_MAX 96

/* A hand as the 21-bit code above (P in the high bits) and back. */
uint32_t hand_pack21(Hand h);
Hand hand_unpack21(uint32_t v);

/* Encodes pos into out (POS_CODE_MAX bytes); returns the length. */
size_t pos_encode(const Position *pos, uint8_t *out);
/* Decodes a code made by pos_encode. Returns TS_OK or TS_ERR_PARSE for bytes
 * that are not a code (it does not check that the position is legal). */
int pos_decode(const uint8_t *code, size_t len, Position *pos, TsError *err);
/* Canonical key: the smaller (memcmp, then length) of the codes of pos and of
 * its mirror. *mirrored (may be NULL) tells whether the mirror's code was taken. */
size_t pos_canonical(const Position *pos, uint8_t *out, bool *mirrored);
/* pos_canonical, and whether pos equals its mirror image (*symmetric, when not NULL). */
size_t pos_canonical_sym(const Position *pos, uint8_t *out, bool *mirrored, bool *symmetric);

#endif
