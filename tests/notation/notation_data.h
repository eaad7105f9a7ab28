/*
 * notation_data.h - the rows of data/public for the notation tests:
 * every SFEN of every *.tsv (column 2) and *.sfen file (one a line), '#' lines
 * skipped, with the USI solution (column 3) of the files that have one.
 */
#ifndef TSUME_NOTATION_DATA_H
#define TSUME_NOTATION_DATA_H

typedef struct {
  char file[64];
  char id[64];
  char sfen[256];
  char *solution; /* malloc'd, NULL when the file has no solution column */
} NotationRow;

/* Loads every row of dir; returns the count (array in *rows) or -1. */
int notation_rows_load(const char *dir, NotationRow **rows);
void notation_rows_free(NotationRow *rows, int n);

#endif
