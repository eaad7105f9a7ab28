/*
 * position.h - a shogi position with both hands, side to move, incremental
 * Zobrist keys, do/undo, check detection and the left-right mirror.
 *
 * Either king may be absent (tsume positions have only the defender's king).
 * Keys: board_key covers the board and the side to move; hand_key covers both
 * hands (additive per piece). df-pn tables key on board_key and keep the
 * attacker's hand beside it, so superior/inferior hands can be found.
 *
 * Typical use:
 *   Position pos; TsError err;
 *   if (sfen_parse("8k/9/... b G 1", &pos, "<arg>", &err)) ...;
 *   Undo u; pos_do_move(&pos, m, &u); ...; pos_undo_move(&pos, m, &u);
 */
#ifndef TSUME_POSITION_H
#define TSUME_POSITION_H

#include <stddef.h>

#include "bitboard.h"
#include "error.h"
#include "types.h"

typedef struct {
  Piece board[SQ_NB];
  Bitboard by_color[COLOR_NB];
  Bitboard by_type[PT_NB]; /* both colours */
  Hand hand[COLOR_NB];
  Color side;
  Square king[COLOR_NB]; /* SQ_NONE when absent */
  uint64_t board_key;    /* board + side to move */
  uint64_t hand_key;     /* both hands */
  Bitboard checkers;     /* pieces giving check to the side to move */
  int ply;               /* move number as written in SFEN */
} Position;

typedef struct {
  Piece captured;
  uint64_t board_key, hand_key;
  Bitboard checkers;
} Undo;

/* ---- set-up ---- */
void pos_clear(Position *pos);
/* Puts p on an empty square s (set-up only; keys are fixed by pos_finish_setup). */
void pos_put(Position *pos, Square s, Piece p);
/* Puts p (not a king) on an empty square s of a finished position, its keys and
 * checkers kept: the hands are the caller's (p comes from no hand). */
void pos_add(Position *pos, Square s, Piece p);
void pos_remove(Position *pos, Square s);
/* Recomputes keys, kings and checkers after set-up edits. */
void pos_finish_setup(Position *pos);
/* Fills the hand of c with every piece (kings excluded) not on the board and
 * not in the other hand: the tsume defender's "all remaining" hand. */
void pos_give_remaining(Position *pos, Color c);

/*
 * Checks that pos could occur: at most one king per side, no more pieces of a
 * kind than a set holds, no 二歩, no piece without a future move, the side not
 * to move not in check. Returns TS_OK or TS_ERR_ILLEGAL with the reason in err.
 */
int pos_validate(const Position *pos, const char *where, TsError *err);
/*
 * Checks that pos is a tsume problem a solver can be asked about: pos_validate,
 * and the defender (the side not to move) has a king. Reading and showing a
 * position needs only pos_validate; every command that solves one checks this.
 * Returns TS_OK or TS_ERR_ILLEGAL with the reason in err.
 */
int pos_validate_problem(const Position *pos, const char *where, TsError *err);

/* ---- queries ---- */
static inline Piece pos_piece_on(const Position *pos, Square s) { return pos->board[s]; }
static inline Bitboard pos_occupied(const Position *pos) { return pos->by_color[BLACK] | pos->by_color[WHITE]; }
static inline Bitboard pos_pieces(const Position *pos, Color c, PieceType t) {
  return pos->by_color[c] & pos->by_type[t];
}
static inline bool pos_in_check(const Position *pos) { return pos->checkers != 0; }
static inline uint64_t pos_key(const Position *pos) { return pos->board_key ^ pos->hand_key; }
/* Pieces of colour `by` that attack s, with the given occupancy. */
Bitboard pos_attackers_to(const Position *pos, Square s, Color by, Bitboard occ);
/* pos_attackers_to(pos, s, by, occ) != 0, stopping at the first attacker found. */
static inline bool pos_attacked(const Position *pos, Square s, Color by, Bitboard occ) {
  Color o = color_flip(by);
  const Bitboard *T = pos->by_type;
  Bitboard mine = pos->by_color[by];
  Bitboard gold = T[GOLD] | T[PRO_PAWN] | T[PRO_LANCE] | T[PRO_KNIGHT] | T[PRO_SILVER];
  if (((STEP_ATTACKS[o][PAWN][s] & T[PAWN]) | (STEP_ATTACKS[o][KNIGHT][s] & T[KNIGHT]) |
       (STEP_ATTACKS[o][SILVER][s] & T[SILVER]) | (STEP_ATTACKS[o][GOLD][s] & gold) |
       (STEP_ATTACKS[o][KING][s] & (T[KING] | T[HORSE] | T[DRAGON]))) &
      mine)
    return true;
  Bitboard sliders = ((LANCE_REACH[o][s] & T[LANCE]) | (BISHOP_REACH[s] & (T[BISHOP] | T[HORSE])) |
                      (ROOK_REACH[s] & (T[ROOK] | T[DRAGON]))) &
                     mine;
  while (sliders)
    if (!(BETWEEN[s][bb_pop(&sliders)] & occ)) return true;
  return false;
}
/* The squares of `targets` (neighbours of k only) that some piece of colour `by`
 * attacks, with the given occupancy: the king's escape squares in one pass over
 * the pieces near k and the ranging pieces. */
Bitboard pos_attacks_near(const Position *pos, Color by, Square k, Bitboard targets, Bitboard occ);
/* pos_attacks_near for the side to move on the position after its move m (pieces
 * and occupancy as they will be; occ = that occupancy, usually without k), asked
 * of pos as it is: an attack test of a move without playing it. targets must be
 * neighbours of k. */
Bitboard pos_attacks_near_after(const Position *pos, Move m, Square k, Bitboard targets, Bitboard occ);
/* The same for many moves around one square k: pos_near_init once (the side to
 * move's pieces as they stand), then pos_near_after(nr, pos, m, targets, occ)
 * = pos_attacks_near_after(pos, m, k, targets, occ) for any move m of pos. */
typedef struct {
  Bitboard step1, step2; /* squares next to k stepped on by at least one / two pieces */
  int sliders;
  Square slider_sq[10];       /* ranging pieces with a line through a square next to k */
  Bitboard slider_reach[10];  /* those squares (blockers not tested) */
} PosNear;
void pos_near_init(PosNear *nr, const Position *pos, Square k);
Bitboard pos_near_after(const PosNear *nr, const Position *pos, Move m, Bitboard targets, Bitboard occ);
/* Pieces of colour `by` giving check to the king of c (0 if c has no king). */
Bitboard pos_checkers_of(const Position *pos, Color c);
/* Pieces of either colour that alone stand between the king of `kc` and a slider of `slider_color`. */
Bitboard pos_blockers(const Position *pos, Color kc, Color slider_color);

/* ---- moves ---- */
/* Plays a legal move. u receives what pos_undo_move needs. The new checkers are
 * found from the moved piece and the lines through its old square, which is
 * exact when the side not to move was not in check (any position pos_validate
 * accepts, and every position reached from one by legal moves). */
void pos_do_move(Position *pos, Move m, Undo *u);
/* pos_do_move without the Zobrist keys: board_key and hand_key keep their old
 * values until the matching pos_undo_move, which restores them. For searches
 * that hash positions themselves. */
void pos_do_move_unkeyed(Position *pos, Move m, Undo *u);
void pos_undo_move(Position *pos, Move m, const Undo *u);
/* Takes back m as the last move of the side not to move: the piece goes back
 * (demoted if m promoted), `captured` (PIECE_NONE or a piece of the side to move)
 * comes back on m's square out of the mover's hand, a drop returns to the hand.
 * Keys and checkers are updated; retro.h lists the legal un-moves. */
void pos_unmove(Position *pos, Move m, Piece captured);
/* Moves the pieces of move m on the board only (board, by_color, by_type, king
 * squares); hands, keys, checkers and the side to move stay as they were. For
 * quick attack tests on the position after m; pos_unplace_move(pos, m, *captured)
 * puts everything back. */
void pos_place_move(Position *pos, Move m, Piece *captured);
void pos_unplace_move(Position *pos, Move m, Piece captured);
/* True when the legal move m gives check. */
bool pos_gives_check(const Position *pos, Move m);
/* Full validity test of an arbitrary Move value (e.g. read from a file or DB):
 * true exactly when m is one of the legal moves of pos. */
bool pos_move_is_legal(const Position *pos, Move m);

/* ---- symmetry ---- */
/* out = pos reflected left-right (file f <-> 10-f); hands and side unchanged. */
void pos_mirror(const Position *pos, Position *out);
Move move_mirror(Move m);
/* Structural equality (board, hands, side). */
bool pos_equal(const Position *a, const Position *b);

/* ---- debug ---- */
/* Internal consistency (bitboards vs board, keys, kings); used in asserts. */
bool pos_is_ok(const Position *pos);

#endif
