/* test_census_slow.c - the census for three-piece materials and for two-piece
 * materials with a rook or bishop (slow label). */
#include "census_check.h"

static void test_n3(void **s) { (void)s; census_check("N3"); }
static void test_g2p1(void **s) { (void)s; census_check("G2P1"); }
static void test_b1g1(void **s) { (void)s; census_check("B1G1"); }
static void test_r1g1(void **s) { (void)s; census_check("R1G1"); }

int main(void) {
  core_init();
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_n3), cmocka_unit_test(test_g2p1),
                                     cmocka_unit_test(test_b1g1), cmocka_unit_test(test_r1g1)};
  return cmocka_run_group_tests_name("census_slow", tests, NULL, NULL);
}
