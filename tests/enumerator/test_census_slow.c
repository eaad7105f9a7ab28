/* test_census_slow.c - the census for three-piece materials (slow label). */
#include "census_check.h"

static void test_n3(void **s) { (void)s; census_check("N3"); }
static void test_g2p1(void **s) { (void)s; census_check("G2P1"); }

int main(void) {
  core_init();
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_n3), cmocka_unit_test(test_g2p1)};
  return cmocka_run_group_tests_name("census_slow", tests, NULL, NULL);
}
