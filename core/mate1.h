/*
 * mate1.h - 1-ply mate detection (the 1-ply mate paper): does the side to move have a
 * checking move after which the opponent has no legal reply?
 *
 * The test does not play every legal move: candidate checks come from the
 * check generator, and each one is refuted as cheaply as possible, in the
 * order of the 1-ply mate paper (an escape square of the king first, then a capture of
 * the checker, then an interposition), so most non-mating checks are thrown
 * out after a few bitboard operations. Double checks only need the king test.
 * 打ち歩詰め is respected (a mating pawn drop is not generated at all).
 *
 * Typical use at an OR node of a mate search:
 *   Move m = mate1_find(&pos);           // pos is left unchanged
 *   if (m != MOVE_NONE) ...               // proven in 1
 */
#ifndef TSUME_MATE1_H
#define TSUME_MATE1_H

#include "position.h"

/* A move of the side to move that mates at once, or MOVE_NONE. pos is restored. */
Move mate1_find(Position *pos);

/*
 * True when the side to move (in check) has at least one legal move; stops at
 * the first one found. Same answer as movegen_has_legal, faster when in check.
 */
bool mate1_has_evasion(const Position *pos);

/* The two halves of mate1_has_evasion, for a caller that wants the king's escape
 * squares themselves. The side to move must be in check and have a king.
 *   mate1_king_escapes:      the squares its king can step to (0 without a king)
 *   mate1_has_other_evasion: whether a capture of the checker or an interposition
 *                            (by a move or a drop) is legal; false in double check */
Bitboard mate1_king_escapes(const Position *pos);
bool mate1_has_other_evasion(const Position *pos);

#endif
