/*
 * kifvar.h - 変化 branches of a KIF record from the solver: every other defender
 * reply on a line (futile interpositions, 無駄合, left out) with its own main line, and
 * the other replies inside each branch the same way, as export and compose
 * write them.
 */
#ifndef TSUME_KIFVAR_H
#define TSUME_KIFVAR_H

#include "check.h"
#include "kif.h"
#include "solver.h"

/*
 * Adds the branches below `node`, whose line from `start` (attacker: `attacker`)
 * is line[0..n) and already in rec. At most *budget branches are added; each
 * added one takes one from *budget. Uses s with its current options (limits).
 * TS_OK, TS_ERR_ILLEGAL when the line is not in rec, or kif_line_add's error.
 */
int kifvar_add(Solver *s, KifRecord *rec, KifNode *node, const Position *start, Color attacker, const Move *line,
               int n, int *budget);

/*
 * The 完全性 header of a KIF, in Japanese as export and compose write it: 完全作
 * with the tolerated キズ of a complete work in brackets (完全作（最終手余詰あり）),
 * else the fatal flaws' names joined by ・ (余詰・駒余り), 不完全 when none is
 * named. Written into buf (n bytes); returns buf, or a constant string.
 */
const char *kifvar_completeness(const CheckReport *r, char *buf, size_t n);

#endif
