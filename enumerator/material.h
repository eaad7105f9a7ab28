/*
 * material.h - material specs (図式): which attacker-side pieces a problem uses.
 *
 * "N4" = four knights, "G2P1" = two golds and a pawn, "S1N1P1", "G4S4"; a range
 * on one kind, "N1-4", stands for N1, N2, N3 and N4 (each enumerated and
 * counted on its own). Each piece of the spec is on the board (either side,
 * promoted or not where legal) or in the attacker's hand; every other piece
 * of the 40-piece set (kings excepted) is in the defender's hand, and the
 * defender's king is on the board. The attacker has no king.
 */
#ifndef TSUME_MATERIAL_H
#define TSUME_MATERIAL_H

#include <stddef.h>

#include "error.h"
#include "types.h"

#define MATERIAL_MAX_PIECES 8
/* With a rook, bishop or lance every square can matter to a mate, so the mate
 * phase places every piece everywhere: materials with ranging pieces are
 * limited to this many pieces. */
#define MATERIAL_MAX_RANGING 4

typedef struct {
  int count[HAND_PT_NB];     /* pieces of each kind (PAWN..GOLD) */
  int min_count[HAND_PT_NB]; /* lower end of a range (= count without a range) */
  char text[32];             /* the spec as given, normalised */
} Material;

/* Parses a spec; TS_ERR_PARSE (column set) or TS_ERR_USAGE for unsupported kinds. */
int material_parse(const char *spec, Material *m, TsError *err);
/* Total pieces (upper end of a range). */
int material_total(const Material *m);
/* Writes the canonical text of exact counts, e.g. "G2P1" (kinds in R B G S N L P order). */
void material_format(const int count[HAND_PT_NB], char *out, size_t n);

#endif
