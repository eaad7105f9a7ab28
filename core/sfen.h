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
 * Parses s into pos and validates it (pos_validate). `where` names the source
 * for messages ("<arg>", a file name). Returns TS_OK, TS_ERR_PARSE (column of
 * the fault in err) or TS_ERR_ILLEGAL (with the reason).
 */
int sfen_parse(const char *s, Position *pos, const char *where, TsError *err);
/* Writes the SFEN of pos (with its move number) into out (SFEN_MAX bytes is enough). */
void sfen_write(const Position *pos, char *out, size_t n);

/* Parses one USI move ("7g7f", "8h2b+", "G*5b") and checks it is legal in pos. */
int usi_move_parse(const Position *pos, const char *s, Move *m, TsError *err);
/* Writes m in USI notation (at most 6 chars + NUL). */
void usi_move_write(Move m, char out[8]);

/* Parses a whitespace-separated list of USI moves, playing them on a copy of pos
 * to check each; fills moves (up to cap) and *n. */
int usi_line_parse(const Position *pos, const char *s, Move *moves, int cap, int *n, TsError *err);

#endif
