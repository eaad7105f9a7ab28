/*
 * sfen.h - SFEN positions and USI moves.
 *
 * SFEN: "<board> <b|w> <hands|-> [move number]". The tsume form without the
 * sente king is accepted; hands may come in any order and are written in the
 * standard order R B G S N L P, sente's first.
 */
#ifndef TSUME_SFEN_H
#define TSUME_SFEN_H

#include <stddef.h>

#include "position.h"

#define SFEN_MAX 160

/*
 * Parses s into pos and validates it (pos_validate). s may start as USI's
 * `position` command does ("position sfen <SFEN>", "sfen <SFEN>", "startpos").
 * `where` names the source for messages ("<arg>", a file name). Returns TS_OK, TS_ERR_PARSE (column of
 * the fault in err) or TS_ERR_ILLEGAL (with the reason).
 */
int sfen_parse(const char *s, Position *pos, const char *where, TsError *err);
/*
 * Reads a .sfen text: the first line that is neither blank nor a '#' comment is
 * a SFEN, optionally followed by " moves <usi>..." or, as `tsume export --sfen`
 * writes a line, by "<TAB>length<TAB>flags<TAB><usi>..."; the moves are checked to be legal
 * in sequence and stored in moves[0..cap) when moves is not NULL (*n_moves, which
 * may be NULL, receives their number). Lines end in LF, CRLF or CR.
 * Returns TS_OK, or with err filled (line of the SFEN, column in it):
 * TS_ERR_PARSE (malformed, NUL byte, more than cap moves, no SFEN line),
 * TS_ERR_ILLEGAL (impossible position, illegal move), TS_ERR_NOMEM.
 */
int sfen_text_parse(const char *text, size_t len, const char *where, Position *pos, Move *moves, int cap, int *n_moves,
                    TsError *err);
/* Writes the SFEN of pos (with its move number) into out (SFEN_MAX bytes is enough). */
void sfen_write(const Position *pos, char *out, size_t n);

/* Parses one USI move ("7g7f", "8h2b+", "G*5b") and checks it is legal in pos. */
int usi_move_parse(const Position *pos, const char *s, Move *m, TsError *err);
/* Writes the square s in USI notation ("7g"). */
void usi_square_write(Square s, char out[3]);
/* Writes m in USI notation (at most 6 chars + NUL). */
void usi_move_write(Move m, char out[8]);

/* Parses a whitespace-separated list of USI moves, playing them on a copy of pos
 * to check each; fills moves (up to cap; moves may be NULL: checked, not kept) and *n.
 * An illegal move after a position that is mate adds ": the line goes on past
 * mate (mate after move N)" to its message. */
int usi_line_parse(const Position *pos, const char *s, Move *moves, int cap, int *n, TsError *err);

#endif
