/*
 * movegen.h - generation of legal moves, check-giving moves and evasions.
 *
 * Every legal move is generated, non-promotions included (where the piece
 * keeps a future move), with 二歩 and 打ち歩詰め (a pawn drop that mates) excluded.
 * When the side to move has no king, every move that obeys the piece rules is legal.
 */
#ifndef TSUME_MOVEGEN_H
#define TSUME_MOVEGEN_H

#include "position.h"

/* All legal moves of the side to move. */
void movegen_legal(const Position *pos, MoveList *list);
/* Legal moves that give check to the opponent's king (none if it has no king). */
void movegen_checks(const Position *pos, MoveList *list);
/* Legal moves when the side to move is in check (same set as movegen_legal then). */
void movegen_evasions(const Position *pos, MoveList *list);
/* True if the side to move has at least one legal move. */
bool movegen_has_legal(const Position *pos);
/* True if the side to move is in check and has no legal move. */
bool pos_is_mate(const Position *pos);

/*
 * perft: number of leaf nodes of the legal-move tree of the given depth.
 * With bulk set, the last ply is counted from the move list without playing it.
 */
uint64_t perft(Position *pos, int depth, bool bulk);

#endif
