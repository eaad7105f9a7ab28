/*
 * test_flaw_lengths.c - every length the checker reports, asked again by a search
 * with an empty table.
 *
 * A check shares one solver table among all its questions, and a bounded search
 * decides the 無駄合 rule within its budget: an answer the table gives for a hand
 * or a budget it does not hold for, or a futility read wrongly at a bound, shows
 * as a wrong length. For every tanuki row of at most 7 plies (data/public),
 * checked with a node budget, each flaw with a length L (an alternative check or
 * reply, L plies from it to mate, itself included) is asked again with an empty
 * table: mated within L-1 plies after it, and not within L-3. A question that its
 * node limit stops is counted as not asked; an answer that contradicts the
 * report fails the test.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "check.h"
#include "common/testdata.h"
#include "search.h"
#include "sfen.h"

#define MAX_PLIES 7
#define CHECK_NODES 150000
#define ASK_NODES 1000000

/* Is q mated within L plies, asked with an empty table: 1, 0, or -1 when the limit stops it. */
static int fresh_within(Solver *s, const Position *q, Color att, int L) {
  if (L < 0) return 0;
  solver_clear(s);
  search_call_reset(s);
  s->node_limit = ASK_NODES;
  int m = 0;
  return pv_mate_within(s, q, att, L, &m);
}

static void test_tanuki_lengths(void **state) {
  (void)state;
  TestRow *rows = NULL;
  int n = testdata_load("tanuki_tsume_1979.tsv", &rows);
  assert_true(n > 0);
  CheckOptions o;
  check_options_default(&o);
  o.hash_mb = 16;
  o.max_nodes = CHECK_NODES;
  Checker *k = check_create(&o);
  assert_non_null(k);
  SolverOptions so;
  solver_options_default(&so);
  so.hash_mb = 16;
  Solver *s = solver_create(&so);
  assert_non_null(s);
  int problems = 0, asked = 0, confirmed = 0, stopped = 0, wrong = 0;
  static Move line[4096];
  for (int i = 0; i < n; i++) {
    Position pos;
    TsError err;
    if (sfen_parse(rows[i].sfen, &pos, rows[i].id, &err) != TS_OK) continue;
    if (pos_validate_problem(&pos, NULL, NULL) != TS_OK) continue; /* the rows with two pawns on a file */
    int len = 0;
    if (usi_line_parse(&pos, rows[i].solution, line, 4096, &len, &err) != TS_OK || len > MAX_PLIES) continue;
    CheckReport r;
    check_report_init(&r);
    assert_int_equal(check_problem(k, &pos, line, len, &r), TS_OK);
    problems++;
    for (int j = 0; j < r.nflaws; j++) {
      const CheckFlaw *f = &r.flaws[j];
      if (f->alt == MOVE_NONE || f->alt_length < 1 || f->ply > len) continue;
      Position q = pos;
      for (int p = 0; p + 1 < f->ply; p++) {
        Undo u;
        pos_do_move(&q, line[p], &u);
      }
      Undo u;
      pos_do_move(&q, f->alt, &u);
      int L = f->alt_length;
      int in = fresh_within(s, &q, pos.side, L - 1);
      int before = in == 1 ? fresh_within(s, &q, pos.side, L - 3) : -1;
      asked++;
      if (in == 0 || before == 1) {
        char mv[8];
        usi_move_write(f->alt, mv);
        print_message("%s: ply %d %s (%s): reported mate in %d; a fresh search: within %d %s, within %d %s\n",
                      rows[i].id, f->ply, mv, check_flaw_name(f->kind), L, L - 1, in ? "yes" : "no", L - 3,
                      before == 1 ? "yes" : before == 0 ? "no" : "not asked");
        wrong++;
      } else if (in < 0 || before < 0) {
        stopped++;
      } else {
        confirmed++;
      }
    }
    check_report_free(&r);
  }
  print_message("%d problems of at most %d plies, %d flaw lengths asked again: %d confirmed, %d stopped by the "
                "limit, %d contradicted\n",
                problems, MAX_PLIES, asked, confirmed, stopped, wrong);
  assert_true(problems > 1000);
  assert_true(confirmed > asked * 9 / 10);
  assert_int_equal(wrong, 0);
  solver_free(s);
  check_free(k);
  free(rows);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_tanuki_lengths)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
