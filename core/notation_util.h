/*
 * notation_util.h - internal helpers of the notation modules (csa.c, kif.c,
 * diagram.c); not part of the public API.
 *
 * NotationBuf: an output sink with snprintf semantics over a fixed buffer, or a
 * growing malloc'd buffer.
 *   NotationBuf tb; notation_buf_init_fixed(&tb, out, n); notation_buf_add(&tb, "x"); return tb.len;
 *   NotationBuf tb; notation_buf_init_dynamic(&tb); ...; if (tb.failed) -> TS_ERR_NOMEM; free(tb.data);
 *
 * notation_line_next: splits text into lines ending in LF, CRLF or CR (old Mac
 * files), in any mix.
 *
 * NotationSetup: builds a Position from a text diagram while remembering where each
 * piece came from (line, column), so that an illegal position can be reported
 * at the offending piece.
 */
#ifndef TSUME_NOTATION_UTIL_H
#define TSUME_NOTATION_UTIL_H

#include <stdbool.h>
#include <stddef.h>

#include "error.h"
#include "position.h"

typedef struct {
  char *data;
  size_t len; /* bytes that were (or would have been) written, NUL excluded */
  size_t cap;
  bool fixed;  /* caller's buffer: never grows, output is truncated */
  bool failed; /* dynamic buffer: an allocation failed */
} NotationBuf;

/* The note an illegal move of a line gets when the position before it is mate
 * (the line goes on past mate), "" otherwise: one wording for KIF and CSA. */
const char *notation_past_mate(const Position *pos);

void notation_buf_init_fixed(NotationBuf *tb, char *out, size_t n);
void notation_buf_init_dynamic(NotationBuf *tb);
void notation_buf_addn(NotationBuf *tb, const char *s, size_t n);
void notation_buf_add(NotationBuf *tb, const char *s);
void notation_buf_printf(NotationBuf *tb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * The line that starts at text[i] (i < len) ends at the returned offset (its line
 * end excluded); *next receives where the following line starts (len at the end).
 * A line end is LF, CRLF or a CR not followed by LF.
 */
size_t notation_line_next(const char *text, size_t len, size_t i, size_t *next);

typedef struct {
  Position pos;
  int count[PT_NB]; /* pieces of each base kind placed so far (board and hands) */
  int line[SQ_NB], column[SQ_NB];
} NotationSetup;

void notation_setup_init(NotationSetup *st);
/*
 * Puts p on s. TS_ERR_PARSE if s is occupied, TS_ERR_ILLEGAL if a set has no
 * more pieces of that kind; line and column are for the message.
 */
int notation_setup_put(NotationSetup *st, Square s, Piece p, const char *where, int line, int column, TsError *err);
/* Adds n pieces of kind t (PAWN..GOLD) to the hand of c; TS_ERR_ILLEGAL as above. */
int notation_setup_hand_add(NotationSetup *st, Color c, PieceType t, int n, const char *where, int line, int column,
                   TsError *err);
/*
 * Finishes the position: gives the remaining pieces to `remaining` (if it is
 * BLACK or WHITE; pass -1 for none), sets the side, validates. On
 * TS_ERR_ILLEGAL the error names the offending piece's line and column when
 * one can be found, else (end_line, end_column).
 */
int notation_setup_finish(NotationSetup *st, int remaining, Color side, const char *where, int end_line, int end_column,
                 TsError *err);

/* Appends the BOD block of pos (UTF-8, LF line ends) - implemented in diagram.c. */
void diagram_emit(NotationBuf *tb, const Position *pos);

#endif
