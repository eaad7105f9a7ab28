/*
 * source.h - reading a problem from a file, chosen by the extension (any case):
 *   .kifu  KIF, UTF-8 unless the file declares otherwise (core/kif.h);
 *   .kif   KIF, encoding declared by the file, else detected (UTF-8 if the bytes
 *          are valid UTF-8, else CP932);
 *   .csa   CSA V2.2 / V3.0, first record (core/csa.h);
 *   .sfen  SFEN text: the first line that is neither empty nor a '#' comment,
 *          optionally followed by " moves <usi>..." or by the fields of an export
 *          line (core/sfen.h sfen_text_parse); each such line is a problem;
 *   other  read as the format its text shows: KIF key words (手合割, 持駒, 手数----,
 *          "#KIF", in UTF-8 or CP932) or a diagram border, CSA P1/PI/V2 lines, or a
 *          SFEN first line; else "unknown file type". A reader's error then says
 *          which format the file was read as.
 * Line ends may be LF, CRLF or CR. Errors name the file, line and column as the
 * readers report them.
 */
#ifndef TSUME_SOURCE_H
#define TSUME_SOURCE_H

#include "position.h"

/* The most moves a line may have, wherever it comes from (a file's main line,
 * the "moves" after a SFEN, --line, a TSV column): longer ones are refused with
 * one message, "a line longer than 2048 moves (the most one may have)". */
#define SOURCE_LINE_MAX 2048

/* A main line: moves[0..n), legal in sequence from the start position. */
typedef struct {
  Move moves[SOURCE_LINE_MAX];
  int n;
} SourceLine;

/*
 * Loads the start position of the problem in `path` into *pos. If line is not
 * NULL it receives the main line (KIF: the first child at every ply, up to the
 * special move; CSA: every move; SFEN: the "moves" part), n = 0 when there is none.
 * Returns TS_OK, or with err filled:
 *   TS_ERR_IO       the file cannot be opened or read (a directory);
 *   TS_ERR_PARSE    malformed text, a main line longer than SOURCE_LINE_MAX moves, unknown
 *                   file type, a file larger than SOURCE_FILE_MAX (bad input, not an I/O fault);
 *   TS_ERR_ILLEGAL  impossible position or illegal move (line and column of the reader);
 *   TS_ERR_NOMEM.
 */
int source_load_file(const char *path, Position *pos, SourceLine *line, TsError *err);

/* Where a record of a file is: the file's records, and the line the record starts on. */
typedef struct {
  int count;          /* problems in the file (1 but for the files below) */
  int first_line;     /* 1-based */
  const char *format; /* what the text was read as: "KIF", "CSA", "SFEN" ("" when unknown) */
} SourceRecord;
/*
 * source_load_file for one of several problems in a file: a KIF of several
 * records one after another, each starting with its "#KIF" line (`tsume export
 * --kif-file`), or a .sfen list of one problem a line (`tsume export --sfen`,
 * whose lines add <TAB>length<TAB>flags<TAB>moves). index is 0-based; *info (may
 * be NULL) receives the number of problems and where this one starts, also on
 * a parse error of the record (so a caller can go on to the next). Errors name
 * the file and the line in it. An index past the last is TS_ERR_USAGE.
 */
int source_load_record(const char *path, int index, Position *pos, SourceLine *line, SourceRecord *info, TsError *err);
/* source_load_record on text already read (text[0..len), NUL-terminated) as the file
 * path would be read: its format from path's extension, else from the text. */
int source_load_text(const char *path, const char *text, size_t len, int index, Position *pos, SourceLine *line,
                     SourceRecord *info, TsError *err);

/* The most bytes a problem file (KIF, CSA, SFEN, a TSV or SFEN list) may hold. */
#define SOURCE_FILE_MAX (64u << 20)
/*
 * Reads the whole file into *out (NUL-terminated, *len bytes without the NUL;
 * free() it); the path "-" is standard input. A regular file larger than SOURCE_FILE_MAX is refused before it is
 * read; a pipe or a FIFO is read up to that size. Returns TS_OK, TS_ERR_IO (cannot
 * open or read), TS_ERR_PARSE (too large), TS_ERR_NOMEM.
 */
int source_read_file(const char *path, char **out, size_t *len, TsError *err);

#endif
