/*
 * source.h - reading a problem from a file: .sfen (first non-comment line),
 * .kif/.kifu (KIF with a BOD), .csa. Errors name the file, line and column.
 */
#ifndef TSUME_SOURCE_H
#define TSUME_SOURCE_H

#include "position.h"

/* Loads the start position of the problem in `path`. If line is not NULL and the
 * file carries a main line, its moves are stored there (up to 2048) with *line_n set. */
typedef struct {
  Move moves[2048];
  int n;
} SourceLine;

int source_load_file(const char *path, Position *pos, SourceLine *line, TsError *err);

#endif
