/*
 * testdata.h - helpers shared by the tests: the SFENs of data/public.
 */
#ifndef TSUME_TESTDATA_H
#define TSUME_TESTDATA_H

#include <stddef.h>

typedef struct {
  char id[64];
  char sfen[256];
  char solution[16384]; /* USI moves separated by spaces; empty if unknown */
  char extra[256];      /* next column after the solution (length / status) */
} TestRow;

/*
 * Reads the rows of a public data file (TSV: id, sfen, solution...; or one SFEN
 * a line for *.sfen). Returns the number of rows (malloc'd array in *rows) or -1.
 */
int testdata_load(const char *file, TestRow **rows);
/* Every SFEN of every public data file; returns the count, -1 on error. */
int testdata_load_all_sfens(char (**sfens)[256]);

#endif
