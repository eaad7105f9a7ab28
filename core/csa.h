/*
 * csa.h - CSA standard record format (V2.2 / V3.0): a start position and a
 * list of moves. Reference: shared/reference/formats.md §2.4.
 *
 * Reading accepts:
 *   'comment lines ('CSA encoding=... included), V2.2 / V3.0, N+ N- $KEY:value (ignored);
 *   PI[<sq><piece>]*      hirate minus the listed pieces (e.g. PI82HI22KA);
 *   P1 .. P9              nine rows, 9 cells each from file 9 to file 1: "+FU", "-OU", " * "
 *                         (trailing blanks of a row may be cut);
 *   P+ / P- <sq><piece>*  extra pieces; square 00 = hand; "P-00AL" (or P+00AL) gives that side
 *                         every piece not placed elsewhere (kings excluded), whatever line order;
 *   "+" / "-"             side to move (ends the position; mandatory);
 *   then moves "+7776FU" / "-0022KI" (piece after the move: "+2221TO" promotes), several
 *   statements per line separated by ',', times "T12" and "%TSUMI"/"%TORYO"... ignored.
 *   A "/" line ends the record; the rest of the text is not read. Lines end in LF,
 *   CRLF or CR, in any mix.
 * Pieces: FU KY KE GI KI KA HI OU TO NY NK NG UM RY; squares "11".."99" (file, rank).
 *
 * Writing gives P1..P9, "P+" / "P-" hand lines (only when the hand is not empty,
 * pieces in the order HI KA KI GI KE KY FU), the side line and one move per line,
 * all with LF line ends:
 *
 *   P1 *  *  *  *  *  *  *  * -OU
 *   ...
 *   P+00KI
 *   P-00HI00HI00KA...
 *   +
 *   +2221TO
 */
#ifndef TSUME_CSA_H
#define TSUME_CSA_H

#include <stddef.h>

#include "position.h"

/* Bytes enough for csa_write of a position alone (moves add 8 bytes each). */
#define CSA_POSITION_MAX 1024

/*
 * Parses the first record of text[0..len) (no NUL needed). `where` names the
 * source in messages. *pos receives the start position; the moves are checked
 * one by one against the position they are played from and stored in
 * moves[0..cap) (moves may be NULL with cap 0 to only check them); *n_moves
 * (may be NULL) receives their number.
 *
 * Returns TS_OK, or with err filled (line and column 1-based, byte columns):
 *   TS_ERR_PARSE    malformed line, truncated row, bad piece code or square, a
 *                   square given twice, missing side line, empty text, more than cap moves;
 *   TS_ERR_ILLEGAL  the position is impossible (too many pieces of a kind, 二歩,
 *                   a piece with no future move, two kings of a side, the side not
 *                   to move in check: reported at the offending piece when there is
 *                   one, else at the side line), or a move that is not legal.
 */
int csa_parse(const char *text, size_t len, const char *where, Position *pos, Move *moves, int cap,
              int *n_moves, TsError *err);

/*
 * Writes pos and the moves (which must be legal in sequence from pos) into
 * out[0..n), always NUL-terminated when n > 0. Returns the length the full text
 * needs (excluding the NUL), like snprintf: the output was cut if it is >= n.
 */
size_t csa_write(const Position *pos, const Move *moves, int n_moves, char *out, size_t n);

/* One move as "+7776FU" / "-0022KI" / "+2221TO" (7 chars + NUL). */
void csa_move_write(Move m, char out[8]);

#endif
