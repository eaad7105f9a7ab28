/*
 * test_bulk.c - cmocka tests of the sorted bulk write (tsdb_bulk.h) and the
 * count table (tsdb_counts.h) on real LMDB files: records added in a shuffled
 * order come out in key order, the same with spilled runs as in memory; a
 * bulk made with the stored checkpoint as skip writes only the rest; a bulk
 * takes another database's records; a run cut short on disk is named as
 * damaged; the file's pages dropped from the page cache as it is written
 * leave the same records; counts survive the meta round trip; a bad record or a key given
 * twice in a bulk is refused or stored once by the write.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tsdb.h"
#include "tsdb_bulk.h"
#include "tsdb_counts.h"

#define N_RECORDS 30000u

typedef struct {
  char dir[64];
  char path[128];
} Fixture;

static int setup(void **state) {
  Fixture *f = calloc(1, sizeof *f);
  if (!f) return -1;
  snprintf(f->dir, sizeof f->dir, "/tmp/tsdb_bulk_XXXXXX");
  if (!mkdtemp(f->dir)) return -1;
  snprintf(f->path, sizeof f->path, "%s/b.mdb", f->dir);
  *state = f;
  return 0;
}

static int teardown(void **state) {
  Fixture *f = *state;
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf %s", f->dir);
  if (system(cmd) != 0) return -1;
  free(f);
  return 0;
}

/* Record i: a 9-byte key from i, length 1 + 2 (i % 7), a line of i % 5 moves. */
static void make_record(uint32_t i, TsRecord *r) {
  memset(r, 0, sizeof *r);
  uint32_t h = i * 2654435761u;
  r->key_len = 9;
  r->key[0] = 0x80;
  for (int b = 0; b < 4; b++) r->key[1 + b] = (uint8_t)(h >> (24 - 8 * b));
  for (int b = 0; b < 4; b++) r->key[5 + b] = (uint8_t)(i >> (24 - 8 * b));
  r->length = (uint16_t)(1 + 2 * (i % 7));
  r->flags = i % 3 ? 1u : 3u;
  r->root_mates = (uint8_t)(i % 4);
  r->line_len = (uint16_t)(i % 5);
  for (int m = 0; m < r->line_len; m++) r->line[m] = (uint16_t)((i + (uint32_t)m) % 81 | (uint16_t)(m % 81) << 7);
}

static TsDb *open_db(const char *path) {
  TsDbMeta meta = {.material = "T1"};
  TsDb *db;
  TsError err;
  assert_int_equal(tsdb_open(path, TSDB_CREATE | TSDB_NOSYNC, &meta, &db, &err), TS_OK);
  return db;
}

/* Adds records [0, n) in a shuffled order (the same for every call) and finishes;
 * lag: the options' release_lag. */
static void bulk_write_lag(TsDb *db, const char *path, size_t mem, uint64_t skip, uint32_t n, size_t lag,
                           TsDbBulkStats *st) {
  uint32_t *order = malloc(n * sizeof *order);
  assert_non_null(order);
  for (uint32_t i = 0; i < n; i++) order[i] = i;
  uint32_t x = 12345;
  for (uint32_t i = n - 1; i > 0; i--) {
    x = x * 1103515245u + 12345u;
    uint32_t j = x % (i + 1), t = order[i];
    order[i] = order[j];
    order[j] = t;
  }
  TsDbBulkOptions o = {.mem_limit = mem, .batch = 1000, .skip = skip, .release_lag = lag};
  TsDbBulk *b;
  TsError err;
  assert_int_equal(tsdb_bulk_create(db, path, &o, &b, &err), TS_OK);
  static TsRecord r;
  for (uint32_t i = 0; i < n; i++) {
    make_record(order[i], &r);
    assert_int_equal(tsdb_bulk_add(b, &r, &err), TS_OK);
  }
  assert_int_equal(tsdb_bulk_finish(b, &err), TS_OK);
  tsdb_bulk_stats(b, st);
  tsdb_bulk_free(b);
  free(order);
}

static void bulk_write(TsDb *db, const char *path, size_t mem, uint64_t skip, uint32_t n, TsDbBulkStats *st) {
  bulk_write_lag(db, path, mem, skip, n, 0, st);
}

typedef struct {
  uint8_t last[TSDB_KEY_MAX];
  size_t last_len;
  uint64_t n;
  int bad;
} Walk;

static int walk(const TsRecord *r, void *ctx) {
  Walk *w = ctx;
  if (w->n && (memcmp(w->last, r->key, 9) >= 0)) w->bad++;
  memcpy(w->last, r->key, r->key_len);
  w->last_len = r->key_len;
  uint32_t i = (uint32_t)r->key[5] << 24 | (uint32_t)r->key[6] << 16 | (uint32_t)r->key[7] << 8 | r->key[8];
  static TsRecord want;
  make_record(i, &want);
  if (r->length != want.length || r->flags != want.flags || r->line_len != want.line_len ||
      memcmp(r->line, want.line, 2 * (size_t)r->line_len) != 0)
    w->bad++;
  w->n++;
  return 0;
}

static void check_db(TsDb *db, uint64_t n) {
  Walk w = {0};
  TsError err;
  assert_int_equal(tsdb_foreach(db, -1, walk, &w, &err), TS_OK);
  assert_int_equal(w.bad, 0);
  assert_int_equal(w.n, n);
}

static void test_sorted_in_memory_and_runs(void **state) {
  Fixture *f = *state;
  TsDb *db = open_db(f->path);
  TsDbBulkStats st;
  bulk_write(db, f->path, (size_t)64 << 20, 0, N_RECORDS, &st);
  assert_int_equal(st.runs, 0);
  assert_int_equal(st.added, N_RECORDS);
  assert_int_equal(st.written, N_RECORDS);
  check_db(db, N_RECORDS);
  tsdb_close(db);
  /* 64 KB of arena: many runs, more than a merge reads at once (4 under so
   * little memory), so groups of them are merged into runs first; the same
   * records in key order, no run file left */
  char p2[160];
  snprintf(p2, sizeof p2, "%s/r.mdb", f->dir);
  db = open_db(p2);
  bulk_write(db, p2, (size_t)64 << 10, 0, N_RECORDS, &st);
  assert_true(st.runs > 10);
  assert_int_equal(st.merge_width, 4);
  assert_true(st.merges >= (st.runs - 2) / 3);
  assert_true(st.runs_peak <= st.runs + 1);
  check_db(db, N_RECORDS);
  uint64_t skip = 0;
  TsError err;
  assert_int_equal(tsdb_bulk_resume_point(db, &skip, &err), TS_OK);
  assert_int_equal(skip, N_RECORDS);
  tsdb_close(db);
  char cmd[256];
  snprintf(cmd, sizeof cmd, "ls %s | grep -q sort-", f->dir);
  assert_int_not_equal(system(cmd), 0);
}

/* More runs than may stay open while spilling (512): the oldest are merged
 * into one before the next arena goes, and the database is the same. */
static void test_many_runs(void **state) {
  Fixture *f = *state;
  TsDb *db = open_db(f->path);
  TsDbBulkStats st;
  uint32_t n = 16 * N_RECORDS; /* some 670 runs of 64 KB */
  bulk_write(db, f->path, (size_t)64 << 10, 0, n, &st);
  assert_true(st.runs > 512);
  assert_true(st.runs_peak <= 513);
  assert_int_equal(st.written, n);
  check_db(db, n);
  tsdb_close(db);
}

/* The file's pages dropped from the page cache as it is written (a lag of 1 MB
 * instead of 64): the records read back whole and in order, through pages
 * read again from the disk, and again from a second open. */
static void test_released_pages(void **state) {
  Fixture *f = *state;
  TsDb *db = open_db(f->path);
  TsDbBulkStats st;
  uint32_t n = 8 * N_RECORDS;
  bulk_write_lag(db, f->path, (size_t)1 << 20, 0, n, (size_t)1 << 20, &st);
  assert_true(st.released >= ((uint64_t)1 << 20));
  struct stat sb;
  assert_int_equal(stat(f->path, &sb), 0);
  assert_true(st.released < (uint64_t)sb.st_size);
  check_db(db, n);
  tsdb_close(db);
  db = open_db(f->path);
  check_db(db, n);
  tsdb_close(db);
  /* the default lag keeps a small file whole in the page cache */
  char p2[160];
  snprintf(p2, sizeof p2, "%s/d.mdb", f->dir);
  db = open_db(p2);
  bulk_write(db, p2, (size_t)1 << 20, 0, n, &st);
  assert_int_equal(st.released, 0);
  check_db(db, n);
  tsdb_close(db);
}

typedef struct {
  uint64_t at, n;
  uint8_t key[TSDB_KEY_MAX];
} NthKey;

static int nth_key(const TsRecord *r, void *ctx) {
  NthKey *k = ctx;
  if (k->n++ == k->at) {
    memcpy(k->key, r->key, r->key_len);
    return 1;
  }
  return 0;
}

static void test_resume_and_add_db(void **state) {
  Fixture *f = *state;
  TsDb *full = open_db(f->path);
  TsDbBulkStats st;
  TsError err;
  bulk_write(full, f->path, (size_t)1 << 20, 0, N_RECORDS, &st);
  /* a resumed run whose checkpoint says 20,000: only the rest in key order is written */
  char p2[160];
  snprintf(p2, sizeof p2, "%s/res.mdb", f->dir);
  TsDb *res = open_db(p2);
  bulk_write(res, p2, (size_t)64 << 10, 20000, N_RECORDS, &st);
  assert_int_equal(st.written, N_RECORDS);
  check_db(res, N_RECORDS - 20000);
  uint64_t skip = 0;
  assert_int_equal(tsdb_bulk_resume_point(res, &skip, &err), TS_OK);
  assert_int_equal(skip, N_RECORDS);
  NthKey a = {.at = 20000}, b = {.at = 0};
  tsdb_foreach(full, -1, nth_key, &a, &err);
  tsdb_foreach(res, -1, nth_key, &b, &err);
  assert_memory_equal(a.key, b.key, 9);
  tsdb_close(res);
  /* another database's records through a bulk: the same database */
  char p3[160];
  snprintf(p3, sizeof p3, "%s/copy.mdb", f->dir);
  TsDb *copy = open_db(p3);
  TsDbBulkOptions o = {.batch = 700};
  TsDbBulk *bk;
  assert_int_equal(tsdb_bulk_create(copy, p3, &o, &bk, &err), TS_OK);
  uint64_t added = 0;
  assert_int_equal(tsdb_bulk_add_db(bk, full, &added, &err), TS_OK);
  assert_int_equal(added, N_RECORDS);
  assert_int_equal(tsdb_bulk_finish(bk, &err), TS_OK);
  tsdb_bulk_free(bk);
  check_db(copy, N_RECORDS);
  tsdb_close(copy);
  tsdb_close(full);
}

/* The first sort run's file, found among this process's descriptors: -1 if none. */
static int first_run_fd(void) {
  for (int fd = 3; fd < 1024; fd++) {
    char link[64], target[512];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, target, sizeof target - 1);
    if (n <= 0) continue;
    target[n] = '\0';
    if (strstr(target, ".sort-")) return fd;
  }
  return -1;
}

/* A run cut short on disk before the merge reads it: the finish says so, names the database, and fails. */
static void test_damaged_run(void **state) {
  Fixture *f = *state;
  TsDb *db = open_db(f->path);
  TsDbBulkOptions o = {.mem_limit = (size_t)64 << 10, .batch = 1000};
  TsDbBulk *b;
  TsError err;
  assert_int_equal(tsdb_bulk_create(db, f->path, &o, &b, &err), TS_OK);
  static TsRecord r;
  for (uint32_t i = 0; i < N_RECORDS; i++) {
    make_record((i * 7919u) % N_RECORDS, &r);
    assert_int_equal(tsdb_bulk_add(b, &r, &err), TS_OK);
  }
  int fd = first_run_fd();
  assert_true(fd >= 0);
  struct stat sb;
  assert_int_equal(fstat(fd, &sb), 0);
  assert_true(sb.st_size > 16);
  assert_int_equal(ftruncate(fd, sb.st_size / 2), 0);
  assert_int_equal(tsdb_bulk_finish(b, &err), TS_ERR_IO);
  assert_non_null(strstr(err.msg, "damaged"));
  assert_string_equal(err.where, f->path);
  tsdb_bulk_free(b);
  tsdb_close(db);
}

static void test_counts_round_trip(void **state) {
  Fixture *f = *state;
  TsDb *db = open_db(f->path);
  TsDbCounts *c = tsdb_counts_new();
  assert_non_null(c);
  for (uint32_t i = 0; i < 5000; i++) assert_int_equal(tsdb_counts_add(c, 1 + 2 * (i % 9), i % 11, i % 13 == 0), TS_OK);
  TsError err;
  assert_int_equal(tsdb_counts_store(db, c, "complete", &err), TS_OK);
  TsDbCounts *back, *sum = tsdb_counts_new();
  char store[16];
  assert_int_equal(tsdb_counts_load(db, &back, store, sizeof store, &err), TS_OK);
  assert_string_equal(store, "complete");
  assert_int_equal(tsdb_counts_size(back), tsdb_counts_size(c));
  uint64_t total = 0, both = 0;
  for (size_t i = 0; i < tsdb_counts_size(back); i++) {
    TsDbCountRow r, s;
    tsdb_counts_at(back, i, &r);
    tsdb_counts_at(c, i, &s);
    assert_int_equal(r.length, s.length);
    assert_int_equal(r.flags, s.flags);
    assert_int_equal(r.count, s.count);
    total += r.count;
    both += r.count_both;
  }
  assert_int_equal(total, 5000);
  assert_int_equal(both, 2 * 5000 - (5000 + 12) / 13);
  /* merging a table twice doubles every row */
  assert_int_equal(tsdb_counts_merge(sum, back), TS_OK);
  assert_int_equal(tsdb_counts_merge(sum, back), TS_OK);
  assert_int_equal(tsdb_counts_store(db, sum, "all", &err), TS_OK);
  tsdb_counts_free(back);
  assert_int_equal(tsdb_counts_load(db, &back, store, sizeof store, &err), TS_OK);
  total = 0;
  for (size_t i = 0; i < tsdb_counts_size(back); i++) {
    TsDbCountRow r;
    tsdb_counts_at(back, i, &r);
    total += r.count;
  }
  assert_int_equal(total, 10000);
  tsdb_counts_free(back);
  tsdb_counts_free(sum);
  tsdb_counts_free(c);
  /* no table kept: NOTFOUND */
  char p2[160];
  snprintf(p2, sizeof p2, "%s/none.mdb", f->dir);
  TsDb *none = open_db(p2);
  assert_int_equal(tsdb_counts_load(none, &back, store, sizeof store, &err), TS_ERR_NOTFOUND);
  tsdb_close(none);
  tsdb_close(db);
}

/* The write checks each batch the merge hands it: a bad record is refused by its place in the batch
 * (nothing of that batch stored, the batches before it kept), a key given twice is stored once. */
static void test_unchecked_batches(void **state) {
  Fixture *f = *state;
  TsDb *db = open_db(f->path);
  TsDbBulkOptions o = {.mem_limit = (size_t)4 << 20, .batch = 100};
  TsDbBulk *b;
  TsError err;
  static TsRecord r;
  /* a key given twice: stored once */
  assert_int_equal(tsdb_bulk_create(db, f->path, &o, &b, &err), TS_OK);
  for (uint32_t i = 0; i < 500; i++) {
    make_record(i, &r);
    assert_int_equal(tsdb_bulk_add(b, &r, &err), TS_OK);
  }
  make_record(7, &r);
  assert_int_equal(tsdb_bulk_add(b, &r, &err), TS_OK);
  assert_int_equal(tsdb_bulk_finish(b, &err), TS_OK);
  tsdb_bulk_free(b);
  check_db(db, 500);
  tsdb_close(db);
  /* a main line holding a value that is no compact move: the write refuses it, by its place in the batch */
  assert_int_equal(unlink(f->path), 0);
  db = open_db(f->path);
  assert_int_equal(tsdb_bulk_create(db, f->path, &o, &b, &err), TS_OK);
  for (uint32_t i = 0; i < 500; i++) {
    make_record(i, &r);
    if (i == 123) {
      r.line_len = 2;
      r.line[1] = 0xffff;
    }
    assert_int_equal(tsdb_bulk_add(b, &r, &err), TS_OK);
  }
  assert_int_equal(tsdb_bulk_finish(b, &err), TS_ERR_USAGE);
  assert_non_null(strstr(err.msg, "not a compact move"));
  tsdb_bulk_free(b);
  uint64_t stored = 0;
  assert_int_equal(tsdb_count(db, &stored, &err), TS_OK);
  assert_true(stored < 500 && stored % 100 == 0);
  tsdb_close(db);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_sorted_in_memory_and_runs, setup, teardown),
      cmocka_unit_test_setup_teardown(test_many_runs, setup, teardown),
      cmocka_unit_test_setup_teardown(test_released_pages, setup, teardown),
      cmocka_unit_test_setup_teardown(test_resume_and_add_db, setup, teardown),
      cmocka_unit_test_setup_teardown(test_damaged_run, setup, teardown),
      cmocka_unit_test_setup_teardown(test_counts_round_trip, setup, teardown),
      cmocka_unit_test_setup_teardown(test_unchecked_batches, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
