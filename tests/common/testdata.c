#include "testdata.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef TSUME_PUBLIC_DATA
#define TSUME_PUBLIC_DATA "data/public"
#endif

static void copy_field(char *dst, size_t n, const char *src, size_t len) {
  if (len >= n) len = n - 1;
  memcpy(dst, src, len);
  dst[len] = 0;
}

int testdata_load(const char *file, TestRow **rows) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", TSUME_PUBLIC_DATA, file);
  FILE *f = fopen(path, "r");
  if (!f) return -1;
  size_t cap = 256, n = 0;
  TestRow *r = calloc(cap, sizeof *r);
  static char line[65536];
  bool sfen_file = strstr(file, ".sfen") != NULL;
  int lineno = -1;
  while (fgets(line, sizeof line, f)) {
    lineno++;
    size_t len = strlen(line);
    while (len && (line[len - 1] == '\n' || line[len - 1] == '\r')) line[--len] = 0;
    if (!len || line[0] == '#') continue;
    if (n == cap) {
      cap *= 2;
      r = realloc(r, cap * sizeof *r);
    }
    memset(&r[n], 0, sizeof r[n]);
    if (sfen_file) {
      snprintf(r[n].id, sizeof r[n].id, "%s:%d", file, lineno);
      copy_field(r[n].sfen, sizeof r[n].sfen, line, len);
    } else {
      char *cols[4] = {0};
      size_t clen[4] = {0};
      char *p = line;
      for (int c = 0; c < 4 && p; c++) {
        char *t = strchr(p, '\t');
        cols[c] = p;
        clen[c] = t ? (size_t)(t - p) : strlen(p);
        p = t ? t + 1 : NULL;
      }
      if (!cols[1]) continue;
      copy_field(r[n].id, sizeof r[n].id, cols[0], clen[0]);
      copy_field(r[n].sfen, sizeof r[n].sfen, cols[1], clen[1]);
      if (cols[2]) copy_field(r[n].solution, sizeof r[n].solution, cols[2], clen[2]);
      if (cols[3]) copy_field(r[n].extra, sizeof r[n].extra, cols[3], clen[3]);
    }
    n++;
  }
  fclose(f);
  *rows = r;
  return (int)n;
}

int testdata_load_all_sfens(char (**sfens)[256]) {
  static const char *FILES[] = {"zukou100.tsv", "tanuki_tsume_1979.tsv", "gts_tsume_120.tsv",
                                "yaneuraou_jissen_120.tsv", "antma_tsumeshogi_check_tests.tsv",
                                "edge_cases.tsv", "long_problems.tsv", "yaneuraou_mate3_head59.sfen",
                                "yaneuraou_mate5_head60.sfen"};
  size_t cap = 4096, n = 0;
  char(*out)[256] = calloc(cap, 256);
  for (size_t i = 0; i < sizeof FILES / sizeof FILES[0]; i++) {
    TestRow *rows;
    int k = testdata_load(FILES[i], &rows);
    if (k < 0) {
      free(out);
      return -1;
    }
    for (int j = 0; j < k; j++) {
      if (n == cap) {
        cap *= 2;
        out = realloc(out, cap * 256);
      }
      memcpy(out[n++], rows[j].sfen, 256);
    }
    free(rows);
  }
  *sfens = out;
  return (int)n;
}
