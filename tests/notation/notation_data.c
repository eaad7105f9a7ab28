#include "notation_data.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Files whose third column is a USI solution line. */
static int has_solution(const char *file) {
  static const char *const FILES[] = {"tanuki_tsume_1979.tsv", "gts_tsume_120.tsv", "yaneuraou_jissen_120.tsv",
                                      "zukou100.tsv", "long_problems_solutions.tsv"};
  for (size_t i = 0; i < sizeof FILES / sizeof FILES[0]; i++)
    if (strcmp(file, FILES[i]) == 0) return 1;
  return 0;
}

static int ends_with(const char *s, const char *suffix) {
  size_t a = strlen(s), b = strlen(suffix);
  return a >= b && strcmp(s + a - b, suffix) == 0;
}

static int name_cmp(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static int load_file(const char *dir, const char *file, NotationRow **rows, int *n, int *cap) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", dir, file);
  FILE *f = fopen(path, "rb");
  if (!f) return -1;
  int tsv = ends_with(file, ".tsv"), sol = has_solution(file);
  size_t lcap = 1 << 16;
  char *line = malloc(lcap);
  int lineno = 0;
  for (;;) {
    /* read one whole line, however long */
    size_t len = 0;
    int c;
    while ((c = fgetc(f)) != EOF && c != '\n') {
      if (len + 1 >= lcap) line = realloc(line, lcap *= 2);
      line[len++] = (char)c;
    }
    if (c == EOF && len == 0) break;
    line[len] = 0;
    lineno++;
    while (len && line[len - 1] == '\r') line[--len] = 0;
    if (!len || line[0] == '#') continue;
    NotationRow r;
    memset(&r, 0, sizeof r);
    snprintf(r.file, sizeof r.file, "%s", file);
    if (tsv) {
      char *cols[3] = {0};
      char *p = line;
      for (int k = 0; k < 3 && p; k++) {
        cols[k] = p;
        char *t = strchr(p, '\t');
        if (t) *t = 0;
        p = t ? t + 1 : NULL;
      }
      if (!cols[1]) continue;
      snprintf(r.id, sizeof r.id, "%s", cols[0]);
      snprintf(r.sfen, sizeof r.sfen, "%s", cols[1]);
      if (sol && cols[2] && cols[2][0]) r.solution = strdup(cols[2]);
    } else {
      snprintf(r.id, sizeof r.id, "%s:%d", file, lineno);
      snprintf(r.sfen, sizeof r.sfen, "%s", line);
    }
    if (*n == *cap) *rows = realloc(*rows, (size_t)(*cap *= 2) * sizeof **rows);
    (*rows)[(*n)++] = r;
  }
  free(line);
  fclose(f);
  return 0;
}

int notation_rows_load(const char *dir, NotationRow **rows) {
  DIR *d = opendir(dir);
  if (!d) return -1;
  char *names[64];
  int nn = 0;
  struct dirent *e;
  while ((e = readdir(d)) && nn < 64)
    if (ends_with(e->d_name, ".tsv") || ends_with(e->d_name, ".sfen")) names[nn++] = strdup(e->d_name);
  closedir(d);
  qsort(names, (size_t)nn, sizeof names[0], name_cmp);
  int n = 0, cap = 1024;
  *rows = malloc((size_t)cap * sizeof **rows);
  int rc = 0;
  for (int i = 0; i < nn; i++) {
    if (load_file(dir, names[i], rows, &n, &cap)) rc = -1;
    free(names[i]);
  }
  if (rc) {
    notation_rows_free(*rows, n);
    return -1;
  }
  return n;
}

void notation_rows_free(NotationRow *rows, int n) {
  for (int i = 0; i < n; i++) free(rows[i].solution);
  free(rows);
}
