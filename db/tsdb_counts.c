/*
 * tsdb_counts.c - the count table of a generation (tsdb_counts.h): an
 * open-addressing hash on (length, flags) while counting, sorted rows once
 * stored or loaded.
 */
#include "tsdb_counts.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct TsDbCounts {
  TsDbCountRow *rows; /* hash slots; count 0 = empty */
  size_t cap, n;
  bool sorted;        /* rows[0..n) are packed and sorted */
};

TsDbCounts *tsdb_counts_new(void) {
  TsDbCounts *c = calloc(1, sizeof *c);
  if (!c) return NULL;
  c->cap = 1024;
  c->rows = calloc(c->cap, sizeof *c->rows);
  if (!c->rows) {
    free(c);
    return NULL;
  }
  return c;
}

void tsdb_counts_free(TsDbCounts *c) {
  if (!c) return;
  free(c->rows);
  free(c);
}

static size_t slot_of(const TsDbCounts *c, unsigned length, uint32_t flags) {
  uint64_t x = ((uint64_t)length << 32 | flags) * 0x9e3779b97f4a7c15ULL;
  size_t mask = c->cap - 1, i = (size_t)(x >> 32) & mask;
  while (c->rows[i].count && (c->rows[i].length != length || c->rows[i].flags != flags)) i = (i + 1) & mask;
  return i;
}

static int grow(TsDbCounts *c) {
  TsDbCounts bigger = {calloc(c->cap * 2, sizeof *c->rows), c->cap * 2, 0, false};
  if (!bigger.rows) return TS_ERR_NOMEM;
  for (size_t i = 0; i < c->cap; i++)
    if (c->rows[i].count) bigger.rows[slot_of(&bigger, c->rows[i].length, c->rows[i].flags)] = c->rows[i];
  free(c->rows);
  c->rows = bigger.rows;
  c->cap = bigger.cap;
  return TS_OK;
}

int tsdb_counts_add(TsDbCounts *c, unsigned length, uint32_t flags, bool symmetric) {
  if (c->sorted) return TS_ERR_USAGE;
  if ((c->n + 1) * 2 > c->cap && grow(c)) return TS_ERR_NOMEM;
  TsDbCountRow *r = &c->rows[slot_of(c, length, flags)];
  if (!r->count) {
    r->length = length;
    r->flags = flags;
    c->n++;
  }
  r->count++;
  r->count_both += symmetric ? 1 : 2;
  return TS_OK;
}

size_t tsdb_counts_size(const TsDbCounts *c) { return c->n; }

static int row_cmp(const void *a, const void *b) {
  const TsDbCountRow *x = a, *y = b;
  if (x->length != y->length) return x->length < y->length ? -1 : 1;
  return x->flags < y->flags ? -1 : x->flags > y->flags;
}

static void pack(TsDbCounts *c) {
  if (c->sorted) return;
  size_t n = 0;
  for (size_t i = 0; i < c->cap; i++)
    if (c->rows[i].count) c->rows[n++] = c->rows[i];
  qsort(c->rows, n, sizeof *c->rows, row_cmp);
  c->sorted = true;
}

void tsdb_counts_at(const TsDbCounts *c, size_t i, TsDbCountRow *row) { *row = c->rows[i]; }

int tsdb_counts_store(TsDb *db, TsDbCounts *c, const char *store, TsError *err) {
  pack(c);
  size_t cap = 64 + c->n * 64, len = 0;
  char *t = malloc(cap);
  if (!t) return ts_error_set(err, TS_ERR_NOMEM, "", 0, 0, "out of memory");
  len += (size_t)snprintf(t + len, cap - len, "store\t%s\n", store);
  for (size_t i = 0; i < c->n; i++)
    len += (size_t)snprintf(t + len, cap - len, "%u\t%" PRIx32 "\t%" PRIu64 "\t%" PRIu64 "\n", c->rows[i].length,
                            c->rows[i].flags, c->rows[i].count, c->rows[i].count_both);
  int rc = tsdb_meta_put_raw(db, TSDB_META_COUNTS, t, len, err);
  free(t);
  return rc;
}

int tsdb_counts_load(TsDb *db, TsDbCounts **out, char *store, size_t store_cap, TsError *err) {
  size_t len = 0;
  *out = NULL;
  int rc = tsdb_meta_get_raw(db, TSDB_META_COUNTS, NULL, 0, &len, err);
  if (rc) return rc;
  char *t = malloc(len + 1);
  TsDbCounts *c = calloc(1, sizeof *c);
  if (!t || !c) {
    free(t);
    free(c);
    return ts_error_set(err, TS_ERR_NOMEM, "", 0, 0, "out of memory");
  }
  if ((rc = tsdb_meta_get_raw(db, TSDB_META_COUNTS, t, len, &len, err))) {
    free(t);
    free(c);
    return rc;
  }
  t[len] = 0;
  size_t lines = 0;
  for (size_t i = 0; i < len; i++) lines += t[i] == '\n';
  c->rows = calloc(lines ? lines : 1, sizeof *c->rows);
  c->cap = lines;
  c->sorted = true;
  rc = c->rows ? TS_OK : ts_error_set(err, TS_ERR_NOMEM, "", 0, 0, "out of memory");
  char *save = NULL;
  char *line = rc ? NULL : strtok_r(t, "\n", &save);
  char mode[32] = "";
  if (line && sscanf(line, "store\t%31s", mode) != 1) line = NULL;
  if (!rc && !line) rc = ts_error_set(err, TS_ERR_DB, "", 0, 0, "damaged count table in the database's meta");
  while (!rc && (line = strtok_r(NULL, "\n", &save)) != NULL) {
    TsDbCountRow r;
    int used = 0;
    if (sscanf(line, "%u\t%" SCNx32 "\t%" SCNu64 "\t%" SCNu64 "%n", &r.length, &r.flags, &r.count, &r.count_both,
               &used) != 4 || line[used] || c->n == c->cap)
      rc = ts_error_set(err, TS_ERR_DB, "", 0, 0, "damaged count table in the database's meta");
    else
      c->rows[c->n++] = r;
  }
  free(t);
  if (rc) {
    tsdb_counts_free(c);
    return rc;
  }
  snprintf(store, store_cap, "%s", mode);
  *out = c;
  return TS_OK;
}
