/*
 * retro.h - un-moves: the moves that could have led to a position.
 *
 * An un-move is the forward move m that was played from the predecessor plus
 * the piece m captured (PIECE_NONE if none). The mover is the side NOT to move
 * in the given position. Generated: ordinary un-moves, un-promotions (the
 * piece was unpromoted before and the move touched the zone), un-captures (a
 * piece of the mover's hand goes back to the board as the opponent's piece,
 * promoted or not) and un-drops (an unpromoted piece goes back to the hand).
 *
 * Every predecessor produced is a legal position in which m is a legal move
 * and do(prev, m) equals the given position; conversely every legal move
 * leading to the position is produced (tested against forward generation).
 */
#ifndef TSUME_RETRO_H
#define TSUME_RETRO_H

#include "position.h"

typedef struct {
  Move move;      /* the forward move, as movegen would produce it in the predecessor */
  Piece captured; /* the piece that stood on move_to(move), or PIECE_NONE */
} UnMove;

#define MAX_UNMOVES 4096
typedef struct {
  UnMove u[MAX_UNMOVES];
  int size;
  /* NULL, or MAX_UNMOVES positions: prev[i] then receives the predecessor by
   * u[i], as retro_apply would give it (set by the caller; generation keeps it) */
  Position *prev;
} UnMoveList;

/* Every un-move of the side that just moved (color_flip(pos->side)). */
void retro_generate(const Position *pos, UnMoveList *list);
/* The same, with un-captures limited to the kinds whose bit (1 << kind) is set in
 * uncapture_kinds (e.g. only the kinds of an enumerated material). */
void retro_generate_kinds(const Position *pos, UnMoveList *list, unsigned uncapture_kinds);
/* The same, limited to the un-moves of the pieces standing on to_mask. */
void retro_generate_to(const Position *pos, UnMoveList *list, unsigned uncapture_kinds, Bitboard to_mask);
/* retro_generate_to, keeping only the predecessors in which the mover is in
 * check (the un-moves of a side that answered a check). */
void retro_generate_checked(const Position *pos, UnMoveList *list, unsigned uncapture_kinds, Bitboard to_mask);
/* The squares of the mover's pieces whose un-moves may pass the check tests of
 * retro_generate_to (checked: of retro_generate_checked), found once per
 * position: the generators make no un-move to another square. */
Bitboard retro_unmove_squares(const Position *pos, unsigned uncapture_kinds, bool checked);
/* prev = the predecessor of pos by the un-move u (keys and checkers set). */
void retro_apply(const Position *pos, const UnMove *u, Position *prev);

#endif
