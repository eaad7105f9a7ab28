/*
 * solver_check.h - helpers of the solver tests: run a public data set through
 * the solver and count what passes.
 */
#ifndef TSUME_TEST_SOLVER_CHECK_H
#define TSUME_TEST_SOLVER_CHECK_H

#include <stdbool.h>

#include "solver.h"

typedef struct {
  int rows, passed, failed, skipped; /* skipped: SFEN rejected (e.g. 二歩 on the board) */
  double ms;
  unsigned long long nodes;
} CheckStats;

typedef enum {
  EXPECT_MATE,       /* mate of exactly `length` plies, exact, with a checked line */
  EXPECT_MATE_ODD,   /* some mate (odd length), with a checked line */
  EXPECT_NOMATE,     /* no mate at all */
  EXPECT_NOMATE_WITHIN /* no mate within `length` plies */
} ExpectKind;

typedef struct {
  const char *id;
  const char *sfen;
  ExpectKind kind;
  int length;
  bool futile_rule;
  const char *line; /* optional reference line: must replay as a legal mating line */
} CheckCase;

/* Solves one case with s (options futile_rule set from the case). Prints a
 * message for a failure. Returns 1 pass, 0 fail, -1 skipped (bad SFEN). */
int check_case(Solver *s, const CheckCase *c, CheckStats *st);
/* Prints "<name>: passed/rows (skipped), time, nodes". */
void check_report(const char *name, const CheckStats *st);
/* Independent line check without the solver: legal, every attacker move checks,
 * final position has no legal reply, or only interpositions (futile ones). */
bool check_line_plain(const Position *root, const Move *pv, int n);

#endif
