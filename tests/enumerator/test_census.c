/*
 * test_census.c - design.md §4 independent census for one- and two-piece
 * materials: forward brute force with the solver = retrograde = committed table.
 */
#include "census_check.h"

static void test_g1(void **s) { (void)s; census_check("G1"); }
static void test_s1(void **s) { (void)s; census_check("S1"); }
static void test_n1(void **s) { (void)s; census_check("N1"); }
static void test_p1(void **s) { (void)s; census_check("P1"); }
static void test_g2(void **s) { (void)s; census_check("G2"); }
static void test_n2(void **s) { (void)s; census_check("N2"); }
static void test_s2(void **s) { (void)s; census_check("S2"); }
static void test_g1p1(void **s) { (void)s; census_check("G1P1"); }
static void test_g1s1(void **s) { (void)s; census_check("G1S1"); }
/* ranging pieces: interpositions by drops from the defender's hand and the 無駄合 rule */
static void test_l1(void **s) { (void)s; census_check("L1"); }
static void test_l2(void **s) { (void)s; census_check("L2"); }

int main(void) {
  core_init();
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_g1), cmocka_unit_test(test_s1), cmocka_unit_test(test_n1),
      cmocka_unit_test(test_p1), cmocka_unit_test(test_g2), cmocka_unit_test(test_n2),
      cmocka_unit_test(test_s2), cmocka_unit_test(test_g1p1), cmocka_unit_test(test_g1s1),
      cmocka_unit_test(test_l1), cmocka_unit_test(test_l2),
  };
  return cmocka_run_group_tests_name("census", tests, NULL, NULL);
}
