/*
 * checkgen.h - direct generation of the checking moves (the OR-node moves of
 * a mate search) without generating every legal move first.
 *
 * The set is exactly that of movegen_checks (a test compares them on every
 * public position and on positions reached from them); the order differs.
 * Drops and board moves are kept to the squares from which the moved piece
 * (promoted or not) attacks the king, plus every move of a piece that uncovers
 * a ranging attack on it (discovered check). The side to move may have a king:
 * pinned pieces stay on their line, king moves avoid attacked squares; when
 * the side to move is itself in check the general generator is used.
 */
#ifndef TSUME_CHECKGEN_H
#define TSUME_CHECKGEN_H

#include "position.h"

/* Legal moves of the side to move that give check, into l. */
void checkgen_generate(const Position *pos, MoveList *l);

#endif
