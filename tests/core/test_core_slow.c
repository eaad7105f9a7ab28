/* test_core_slow.c - perft(initial, 6) = 547581517 (slow label). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "movegen.h"
#include "sfen.h"

static void test_perft_initial_6(void **s) {
  (void)s;
  Position pos;
  TsError err;
  assert_int_equal(sfen_parse("lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1", &pos, "<t>", &err), 0);
  assert_int_equal(perft(&pos, 6, true), 547581517ULL);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_perft_initial_6)};
  return cmocka_run_group_tests_name("core_slow", tests, NULL, NULL);
}
