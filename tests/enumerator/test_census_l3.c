/* test_census_l3.c - the census for three lances (slow label): interpositions by
 * every piece of the defender's hand and the 無駄合 rule with several lances on
 * one file. */
#include "census_check.h"

static void test_l3(void **s) { (void)s; census_check("L3"); }

int main(void) {
  core_init();
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_l3)};
  return cmocka_run_group_tests_name("census_l3", tests, NULL, NULL);
}
