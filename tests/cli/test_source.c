/*
 * test_source.c - tools/source.c: loading a problem and its main line from
 * .kifu / .kif (UTF-8 and CP932) / .csa / .sfen files, and its errors.
 * The fixtures are the ones cli_test.sh uses (tests/cli/data, tests/cli/bad).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "bitboard.h"
#include "sfen.h"
#include "source.h"

#define TG3_SFEN "8k/7P1/6+B2/9/9/9/9/9/9 b G2rb3g4s4n4l17p 1"

static int setup(void **state) {
  (void)state;
  core_init();
  return 0;
}

static void load_tg3(const char *name) {
  char path[512];
  snprintf(path, sizeof path, "%s/data/%s", TSUME_CLI_DIR, name);
  Position pos;
  SourceLine *line = test_malloc(sizeof *line);
  TsError err;
  int rc = source_load_file(path, &pos, line, &err);
  if (rc) print_error("%s: %s\n", path, err.msg);
  assert_int_equal(rc, TS_OK);
  char sfen[SFEN_MAX];
  sfen_write(&pos, sfen, sizeof sfen);
  assert_string_equal(sfen, TG3_SFEN);
  /* Main line 1.２一歩成 同玉 2.２二金打 (the 変化 and 詰み are not part of it). */
  assert_int_equal(line->n, 3);
  static const char *const USI[3] = {"2b2a+", "1a2a", "G*2b"};
  for (int i = 0; i < 3; i++) {
    char mv[8];
    usi_move_write(line->moves[i], mv);
    assert_string_equal(mv, USI[i]);
  }
  /* Without a line: the same position. */
  Position pos2;
  assert_int_equal(source_load_file(path, &pos2, NULL, &err), TS_OK);
  assert_true(pos_equal(&pos, &pos2));
  test_free(line);
}

static void test_load_kifu(void **state) {
  (void)state;
  load_tg3("TG3-000001.kifu");
}

static void test_load_kif_cp932(void **state) {
  (void)state;
  load_tg3("TG3-000001.kif");
  load_tg3("TG3-noheader-cp932.kif");
}

static void test_load_kif_utf8(void **state) {
  (void)state;
  load_tg3("TG3-noheader-utf8.kif");
}

static void test_load_csa(void **state) {
  (void)state;
  load_tg3("TG3-000001.csa");
}

static void test_load_sfen(void **state) {
  (void)state;
  load_tg3("TG3-000001.sfen");
}

static void expect_error(const char *name, int code, int line, int column) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", TSUME_CLI_DIR, name);
  Position pos;
  SourceLine *sl = test_malloc(sizeof *sl);
  TsError err;
  int rc = source_load_file(path, &pos, sl, &err);
  assert_int_equal(rc, code);
  assert_int_equal(err.code, code);
  assert_string_equal(err.where, path);
  assert_int_equal(err.line, line);
  assert_int_equal(err.column, column);
  assert_int_equal(sl->n, 0);
  /* Moves are checked even when the caller does not ask for them. */
  assert_int_equal(source_load_file(path, &pos, NULL, &err), code);
  test_free(sl);
}

static void test_errors(void **state) {
  (void)state;
  expect_error("bad/missing.kif", TS_ERR_IO, 0, 0);
  expect_error("bad/missing.csa", TS_ERR_IO, 0, 0);
  expect_error("bad/bad_row.kifu", TS_ERR_PARSE, 13, 19);
  expect_error("bad/bad_piece.kif", TS_ERR_PARSE, 13, 19);
  expect_error("bad/nifu.kifu", TS_ERR_ILLEGAL, 14, 17);
  expect_error("bad/illegal_move.kifu", TS_ERR_ILLEGAL, 28, 6);
  expect_error("bad/bad_piece.csa", TS_ERR_PARSE, 6, 22);
  expect_error("bad/no_side.csa", TS_ERR_PARSE, 15, 1);
  expect_error("bad/nifu.csa", TS_ERR_ILLEGAL, 7, 24);
  expect_error("bad/check.csa", TS_ERR_ILLEGAL, 15, 1);
  expect_error("bad/illegal_move.csa", TS_ERR_ILLEGAL, 18, 1);
  expect_error("bad/ten_ranks.sfen", TS_ERR_PARSE, 2, 19);
  expect_error("bad/nifu.sfen", TS_ERR_ILLEGAL, 1, 0);
  expect_error("bad/illegal_move.sfen", TS_ERR_ILLEGAL, 3, 57);
  expect_error("bad/cr_illegal_move.kifu", TS_ERR_ILLEGAL, 28, 6);
  expect_error("bad/no_diagram.kifu", TS_ERR_PARSE, 0, 0);
  expect_error("bad/unknown.dat", TS_ERR_PARSE, 0, 0);
  expect_error("bad", TS_ERR_IO, 0, 0); /* a directory */
}

/* Line ends CR or mixed; an extension in any case, or none that says the format. */
static void test_load_any_name(void **state) {
  (void)state;
  static const char *const NAMES[] = {"bad/cr_only.kifu", "bad/cr_only.kif",   "bad/cr_only.csa",     "bad/cr_only.sfen",
                                      "bad/mixed_eol.kifu", "bad/GOOD.KIF", "bad/kif_content.txt", "bad/csa_content.rec"};
  for (size_t i = 0; i < sizeof NAMES / sizeof NAMES[0]; i++) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s", TSUME_CLI_DIR, NAMES[i]);
    Position pos;
    SourceLine *line = test_malloc(sizeof *line);
    TsError err;
    int rc = source_load_file(path, &pos, line, &err);
    if (rc) fail_msg("%s: %s", NAMES[i], err.msg);
    char sfen[SFEN_MAX];
    sfen_write(&pos, sfen, sizeof sfen);
    assert_string_equal(sfen, TG3_SFEN);
    assert_int_equal(line->n, 3);
    test_free(line);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_load_kifu), cmocka_unit_test(test_load_kif_cp932), cmocka_unit_test(test_load_kif_utf8),
      cmocka_unit_test(test_load_csa),  cmocka_unit_test(test_load_sfen),      cmocka_unit_test(test_errors),
      cmocka_unit_test(test_load_any_name),
  };
  return cmocka_run_group_tests(tests, setup, NULL);
}
