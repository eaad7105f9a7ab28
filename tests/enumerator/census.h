/*
 * census.h - the independent census of design.md §4: every legal position of a
 * material, solved forward with the df-pn solver and classified by the rules
 * of design.md §2, counted by length and flag; and the same counts from the
 * retrograde engine, for comparison.
 */
#ifndef TSUME_CENSUS_H
#define TSUME_CENSUS_H

#include <stdint.h>

#include "material.h"

#define CENSUS_MAX_LEN 64
/* columns: problems, complete, minimal complete, yozume, komaamari, last-move-alt,
 * higentei, tejun-zengo, ukai, henchou. 余詰 is design.md §2's: another check
 * that mates at any length at a move of the line but the last. ukai counts the
 * records without yozume only (past a 余詰 the longer alternatives are not
 * classified further). */
#define CENSUS_COLS 10
typedef struct {
  uint64_t n[CENSUS_MAX_LEN][CENSUS_COLS];
  uint64_t positions; /* legal attacker-to-move positions examined (one per mirror pair) */
} CensusTable;

/* Forward brute force over every position of the exact material. */
int census_forward(const Material *m, CensusTable *t);
/* The retrograde engine's counts for the exact material. */
int census_retro(const Material *m, CensusTable *t);
/* Text form, one line per length: "len" and the columns above. */
void census_format(const CensusTable *t, char *out, size_t n);

#endif
