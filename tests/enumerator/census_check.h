/* census_check.h - one census comparison as a cmocka check (shared by the fast and slow tests). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bitboard.h"
#include "census.h"

/* Forward census = retrograde counts = the table committed in data/census/<spec>.txt.
 * With TSUME_CENSUS_WRITE=1 in the environment the table file is (re)written. */
static void census_check(const char *spec) {
  Material m;
  TsError err;
  assert_int_equal(material_parse(spec, &m, &err), TS_OK);
  static CensusTable fwd, retro;
  assert_int_equal(census_forward(&m, &fwd), 0);
  assert_int_equal(census_retro(&m, &retro), 0);
  static char a[8192], b[8192], c[8192];
  census_format(&fwd, a, sizeof a);
  census_format(&retro, b, sizeof b);
  print_message("%s: %llu positions, forward:\n%sretrograde:\n%s", spec, (unsigned long long)fwd.positions, a, b);
  assert_string_equal(a, b);
  char path[1024];
  snprintf(path, sizeof path, "%s/census/%s.txt", TSUME_DATA_DIR, spec);
  const char *w = getenv("TSUME_CENSUS_WRITE");
  if (w && !strcmp(w, "1")) {
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f, "# census of %s: length problems complete minimal-complete yozume komaamari last-move-alt higentei tejun-zengo ukai(without-yozume) henchou\n%s", spec, a);
    fclose(f);
  }
  FILE *f = fopen(path, "r");
  if (!f) fail_msg("missing %s (run with TSUME_CENSUS_WRITE=1 to create it)", path);
  size_t n = fread(c, 1, sizeof c - 1, f);
  fclose(f);
  c[n] = 0;
  char *body = strchr(c, '\n');
  assert_non_null(body);
  assert_string_equal(body + 1, a);
}
