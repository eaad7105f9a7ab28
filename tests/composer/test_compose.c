/*
 * test_compose.c - the composer (composer/compose.h) judged from outside:
 * every work it returns as complete is checked again by a fresh checker with
 * the default options (compose's own verdict is not trusted); a run is the
 * same for the same seed; --keep-line keeps the line; and, given the JSON
 * lines of `tsume query --complete --json` on an enumerated database (argv[1]),
 * the works built back from a mate picture are exactly the database's works
 * ending in that picture.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compose.h"
#include "movegen.h"
#include "sfen.h"

static const char *g_query_file;

static void load(const char *sfen, Position *pos) {
  TsError err;
  if (sfen_parse(sfen, pos, "<test>", &err)) fail_msg("%s: %s", sfen, err.msg);
}

/* An independent judgement: a new checker, default options. */
static void assert_complete(const Position *pos, int length) {
  CheckOptions o;
  check_options_default(&o);
  Checker *c = check_create(&o);
  assert_non_null(c);
  CheckReport r;
  check_report_init(&r);
  assert_int_equal(check_problem(c, pos, NULL, 0, &r), TS_OK);
  char s[SFEN_MAX];
  sfen_write(pos, s, sizeof s);
  if (r.verdict != CHECK_COMPLETE) fail_msg("%s: checker says %s", s, check_verdict_name(r.verdict));
  if (length > 0) assert_int_equal(r.line_length, length);
  check_report_free(&r);
  check_free(c);
}

/* compose_run on sfen with the options o and a checker of 300,000 nodes a question. */
static void run_options(const char *sfen, const ComposeOptions *o, ComposeResult *r) {
  Position pos;
  load(sfen, &pos);
  CheckOptions co;
  check_options_default(&co);
  co.call_nodes = 300000;
  Checker *c = check_create(&co);
  assert_non_null(c);
  assert_int_equal(compose_run(c, &pos, o, r), TS_OK);
  check_free(c);
}

static void run(const char *sfen, uint64_t seed, uint64_t iterations, const Move *keep, int keep_n, ComposeResult *r) {
  ComposeOptions o;
  compose_options_default(&o);
  o.seed = seed;
  o.iterations = iterations;
  o.keep_line = keep;
  o.keep_n = keep_n;
  run_options(sfen, &o, r);
}

/* Type B inputs: small diagrams with 余詰 from the G2P1 enumeration. */
static const char *INPUTS[] = {
    "6k2/4+P4/5G2G/9/9/9/9/9/9 b - 1",
    "6k2/9/4+PG2G/9/9/9/9/9/9 b - 1",
    "6k2/4G4/5+P2G/9/9/9/9/9/9 b - 1",
};

static void test_outputs_rechecked(void **state) {
  (void)state;
  int complete = 0;
  for (size_t i = 0; i < sizeof INPUTS / sizeof INPUTS[0]; i++) {
    ComposeResult r;
    run(INPUTS[i], 1, 700, NULL, 0, &r);
    assert_true(r.start_score.valid);
    assert_true(r.start_score.yozume > 0); /* the inputs have 余詰 */
    if (r.complete) {
      complete++;
      assert_complete(&r.best, r.best_score.length);
      assert_int_equal(r.report.verdict, CHECK_COMPLETE);
    } else {
      assert_false(r.best_score.verdict == CHECK_COMPLETE && r.best_score.valid);
    }
    compose_result_free(&r);
  }
  assert_true(complete > 0);
}

static void test_deterministic(void **state) {
  (void)state;
  ComposeResult a, b;
  run(INPUTS[0], 7, 25, NULL, 0, &a);
  run(INPUTS[0], 7, 25, NULL, 0, &b);
  assert_true(pos_equal(&a.best, &b.best));
  assert_int_equal(a.iterations, b.iterations);
  assert_int_equal(a.checks, b.checks);
  assert_int_equal(a.accepted, b.accepted);
  compose_result_free(&a);
  compose_result_free(&b);
}

/* A diagram that stalls at once under --max-pieces 4 (B1S1P1 with the king):
 * the run restarts from changed diagrams until its budget, the same way for
 * the same seed, and never ends by itself. */
static void restarts_run(ComposeResult *r) {
  ComposeOptions o;
  compose_options_default(&o);
  o.seed = 5;
  o.iterations = 600;
  o.stall = 20;
  o.max_pieces = 4;
  run_options("7k1/9/6BP1/9/9/9/9/9/9 b S 1", &o, r);
}

static void test_restarts_until_budget(void **state) {
  (void)state;
  ComposeResult a, b;
  restarts_run(&a);
  restarts_run(&b);
  assert_string_equal(a.stop_reason, "iterations");
  assert_int_equal(a.iterations, 600);
  assert_true(a.restarts >= 5);
  assert_int_equal(a.restarts, b.restarts);
  assert_int_equal(a.checks, b.checks);
  assert_true(pos_equal(&a.best, &b.best));
  if (a.complete) assert_complete(&a.best, a.best_score.length);
  compose_result_free(&a);
  compose_result_free(&b);
}

/* The budget is the library's own: with no stop flag and no timer, a question in
 * progress ends at compose_run's deadline (19 pieces whose first check alone takes
 * many seconds), and the checker's earlier deadline comes back after the run. */
static void test_library_deadline(void **state) {
  (void)state;
  Position pos;
  load("6S+Pl/5s3/4L2l1/5gkBr/4pn3/5Gp2/9/6N2/7+R+n b BN2g2sl15p 1", &pos);
  CheckOptions co;
  check_options_default(&co);
  Checker *c = check_create(&co);
  assert_non_null(c);
  ComposeOptions o;
  compose_options_default(&o);
  o.seed = 4;
  o.time_ms = 400;
  ComposeResult r;
  assert_int_equal(compose_run(c, &pos, &o, &r), TS_OK);
  if (r.time_ms > 400 + 400 / 5 + 100) fail_msg("compose_run took %llu ms of a 400 ms budget", (unsigned long long)r.time_ms);
  assert_string_equal(r.stop_reason, "time");
  assert_int_equal(check_deadline(c), 0);
  compose_result_free(&r);
  check_set_deadline(c, 1); /* long past: every question ends at once */
  o.time_ms = 60000;
  assert_int_equal(compose_run(c, &pos, &o, &r), TS_OK);
  assert_true(r.time_ms < 1000);
  assert_false(r.complete);
  assert_int_equal(check_deadline(c), 1);
  compose_result_free(&r);
  check_free(c);
}

static void test_keep_line(void **state) {
  (void)state;
  Position pos;
  load(INPUTS[0], &pos);
  pos_give_remaining(&pos, WHITE);
  Move line[8];
  int n;
  TsError err;
  /* a mating line of the diagram (not necessarily its main line) */
  CheckOptions co;
  check_options_default(&co);
  Checker *c = check_create(&co);
  CheckReport rep;
  check_report_init(&rep);
  assert_int_equal(check_problem(c, &pos, NULL, 0, &rep), TS_OK);
  n = rep.line_length;
  assert_true(n > 0 && n <= 8);
  memcpy(line, rep.line, (size_t)n * sizeof *line);
  check_report_free(&rep);
  check_free(c);
  ComposeResult r;
  run(INPUTS[0], 3, 30, line, n, &r);
  assert_int_equal(r.report.line_length, n);
  for (int i = 0; i < n; i++) assert_int_equal(move_compact(r.report.line[i]), move_compact(line[i]));
  assert_true(solver_line_verify(&r.best, line, n, true, NULL));
  if (r.complete) assert_complete(&r.best, n);
  compose_result_free(&r);
  /* a line that is not a mate is refused */
  Move bad[1];
  assert_int_equal(usi_line_parse(&pos, "1c1d", bad, 1, &n, &err), TS_OK);
  Position p2;
  load(INPUTS[0], &p2);
  ComposeOptions o;
  compose_options_default(&o);
  o.keep_line = bad;
  o.keep_n = 1;
  o.iterations = 1;
  c = check_create(&co);
  assert_int_equal(compose_run(c, &p2, &o, &r), TS_ERR_ILLEGAL);
  compose_result_free(&r);
  check_free(c);
}

/* ---- --from-mate against the database ---- */

typedef struct {
  char start[SFEN_MAX];
  char final[SFEN_MAX];
  int length;
} DbWork;

static void canon(const Position *p, char *out) {
  Position m;
  pos_mirror(p, &m);
  char a[SFEN_MAX], b[SFEN_MAX];
  sfen_write(p, a, sizeof a);
  sfen_write(&m, b, sizeof b);
  strcpy(out, strcmp(a, b) <= 0 ? a : b);
}

static int read_db(DbWork **out) {
  FILE *f = fopen(g_query_file, "r");
  if (!f) fail_msg("cannot open %s", g_query_file);
  static char buf[8192];
  int n = 0, cap = 0;
  DbWork *v = NULL;
  while (fgets(buf, sizeof buf, f)) {
    char *s = strstr(buf, "\"sfen\":\""), *l = strstr(buf, "\"line\":[");
    if (!s || !l) continue;
    s += 8;
    *strchr(s, '"') = 0;
    l += 8;
    char moves[1024] = "";
    size_t nm = 0;
    for (char *q = l; *q && *q != ']' && nm + 1 < sizeof moves; q++)
      if (*q != '"') moves[nm++] = *q == ',' ? ' ' : *q;
    moves[nm] = 0;
    Position p;
    load(s, &p);
    Move mv[64];
    int k;
    TsError err;
    if (usi_line_parse(&p, moves, mv, 64, &k, &err)) fail_msg("%s: %s", moves, err.msg);
    if (n == cap) v = realloc(v, (size_t)(cap = cap ? 2 * cap : 1024) * sizeof *v);
    canon(&p, v[n].start);
    Position e = p;
    for (int i = 0; i < k; i++) {
      Undo u;
      pos_do_move(&e, mv[i], &u);
    }
    canon(&e, v[n].final);
    v[n].length = k;
    n++;
  }
  fclose(f);
  *out = v;
  return n;
}

typedef struct {
  char (*s)[SFEN_MAX];
  int n, cap;
} Found;

/* The material G2P1: two golds and a pawn on the board (either side, promoted or not) or in the attacker's hand. */
static bool is_g2p1(const Position *pos) {
  int count[PT_NB] = {0};
  for (Square s = 0; s < SQ_NB; s++)
    if (pos->board[s] && piece_type(pos->board[s]) != KING) count[pt_demote(piece_type(pos->board[s]))]++;
  for (int t = PAWN; t <= GOLD; t++) count[t] += hand_count(pos->hand[pos->side], (PieceType)t);
  for (int t = PAWN; t <= GOLD; t++)
    if (count[t] != (t == GOLD ? 2 : t == PAWN ? 1 : 0)) return false;
  return true;
}

static int on_work(void *ctx, const Position *pos, const Move *line, int n, const CheckReport *rep) {
  (void)line;
  (void)n;
  (void)rep;
  Found *f = ctx;
  if (!is_g2p1(pos)) return 0;
  if (f->n == f->cap) f->s = realloc(f->s, (size_t)(f->cap = f->cap ? 2 * f->cap : 256) * sizeof *f->s);
  canon(pos, f->s[f->n++]);
  return 0;
}

static int cmp_str(const void *a, const void *b) { return strcmp(a, b); }

static void test_from_mate_matches_db(void **state) {
  (void)state;
  if (!g_query_file) skip();
  DbWork *db;
  int n = read_db(&db);
  assert_true(n > 0);
  /* pictures: the final positions of the first works of lengths 1, 3 and 5 */
  int pictures = 0;
  for (int want = 1; want <= 5; want += 2) {
    int w = -1;
    for (int i = 0; i < n && w < 0; i++)
      if (db[i].length == want) w = i;
    if (w < 0) continue;
    Position mate;
    load(db[w].final, &mate);
    FromMateOptions o;
    compose_from_mate_options_default(&o);
    o.max_moves = 9;
    o.max_pieces = 4; /* the material's three pieces and the king: un-captures may bring back the pawn */
    Found f = {0};
    o.on_work = on_work;
    o.work_ctx = &f;
    CheckOptions co;
    check_options_default(&co);
    Checker *c = check_create(&co);
    FromMateResult r;
    TsError err;
    assert_int_equal(compose_from_mate(c, &mate, &o, &r, &err), TS_OK);
    check_free(c);
    assert_false(r.cut);
    /* the database's works ending in the picture (either orientation) */
    char (*want_s)[SFEN_MAX] = malloc((size_t)n * sizeof *want_s);
    int k = 0;
    for (int i = 0; i < n; i++)
      if (!strcmp(db[i].final, db[w].final)) strcpy(want_s[k++], db[i].start);
    qsort(want_s, (size_t)k, sizeof *want_s, cmp_str);
    qsort(f.s, (size_t)f.n, sizeof *f.s, cmp_str);
    /* from-mate keeps mirror twins apart only when both end in the picture; dedupe */
    int m = 0;
    for (int i = 0; i < f.n; i++)
      if (!m || strcmp(f.s[m - 1], f.s[i])) {
        if (m != i) memmove(f.s[m], f.s[i], strlen(f.s[i]) + 1);
        m++;
      }
    int kk = 0;
    for (int i = 0; i < k; i++)
      if (!kk || strcmp(want_s[kk - 1], want_s[i])) {
        if (kk != i) memmove(want_s[kk], want_s[i], strlen(want_s[i]) + 1);
        kk++;
      }
    if (m != kk) {
      for (int i = 0; i < m; i++) fprintf(stderr, "from-mate: %s\n", f.s[i]);
      for (int i = 0; i < kk; i++) fprintf(stderr, "database:  %s\n", want_s[i]);
      fail_msg("picture %s: from-mate %d works, database %d", db[w].final, m, kk);
    }
    for (int i = 0; i < m; i++) assert_string_equal(f.s[i], want_s[i]);
    fprintf(stderr, "picture %s: %d works (database: %d)\n", db[w].final, m, kk);
    free(want_s);
    free(f.s);
    pictures++;
  }
  assert_true(pictures > 0);
  free(db);
}

int main(int argc, char **argv) {
  core_init();
  g_query_file = argc > 1 ? argv[1] : NULL;
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_outputs_rechecked),
      cmocka_unit_test(test_deterministic),
      cmocka_unit_test(test_restarts_until_budget),
      cmocka_unit_test(test_library_deadline),
      cmocka_unit_test(test_keep_line),
      cmocka_unit_test(test_from_mate_matches_db),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
