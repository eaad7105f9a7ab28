/*
 * test_db.c - cmocka tests of db/ (tsdb.h) on real LMDB files in a fresh
 * mkdtemp directory per test. Some tests fork readers, writers and killed
 * writers; children report through their exit status.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <lmdb.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tsdb.h"
#include "tsdb_check.h"
#include "tsdb_codec.h"

typedef struct {
  char dir[64];
  char path[128];
} Fixture;

static int setup(void **state) {
  Fixture *f = calloc(1, sizeof *f);
  if (!f) return -1;
  snprintf(f->dir, sizeof f->dir, "/tmp/tsdb_test_XXXXXX");
  if (!mkdtemp(f->dir)) return -1;
  snprintf(f->path, sizeof f->path, "%s/keima.mdb", f->dir);
  *state = f;
  return 0;
}

static int teardown(void **state) {
  Fixture *f = *state;
  DIR *d = opendir(f->dir);
  if (d) {
    struct dirent *e;
    char p[512];
    while ((e = readdir(d)))
      if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
        snprintf(p, sizeof p, "%s/%s", f->dir, e->d_name);
        unlink(p);
      }
    closedir(d);
  }
  rmdir(f->dir);
  free(f);
  return 0;
}

/* ---- record helpers ---- */

static uint64_t rng_next(uint64_t *s) {
  *s ^= *s << 13;
  *s ^= *s >> 7;
  *s ^= *s << 17;
  return *s;
}

static uint16_t random_move(uint64_t *s) {
  unsigned to = (unsigned)(rng_next(s) % 81);
  if (rng_next(s) % 4 == 0) return (uint16_t)(to | (81u + 1 + (unsigned)(rng_next(s) % 7)) << 7);
  unsigned from = (unsigned)(rng_next(s) % 81), promote = (unsigned)(rng_next(s) % 2);
  return (uint16_t)(to | from << 7 | promote << 14);
}

/* Record number id (unique key prefix), random contents, line_len moves. */
static void make_record(TsRecord *r, uint32_t id, uint64_t *s, unsigned line_len) {
  memset(r, 0, sizeof *r);
  r->key_len = (uint8_t)(8 + rng_next(s) % 20);
  r->key[0] = (uint8_t)(id >> 24);
  r->key[1] = (uint8_t)(id >> 16);
  r->key[2] = (uint8_t)(id >> 8);
  r->key[3] = (uint8_t)id;
  for (unsigned i = 4; i < r->key_len; i++) r->key[i] = (uint8_t)rng_next(s);
  r->length = (uint16_t)(line_len ? line_len : rng_next(s) % 3 * 1000);
  r->flags = (uint32_t)rng_next(s) & (rng_next(s) % 2 ? 0xffffffffu : 0x3ffu);
  r->root_mates = (uint8_t)rng_next(s);
  r->line_len = (uint16_t)line_len;
  for (unsigned i = 0; i < line_len; i++) r->line[i] = random_move(s);
  if (rng_next(s) % 3 == 0) {
    r->ext_len = (uint8_t)(1 + rng_next(s) % TSDB_EXT_MAX);
    for (unsigned i = 0; i < r->ext_len; i++) r->ext[i] = (uint8_t)rng_next(s);
  }
}

static void assert_record_equal(const TsRecord *a, const TsRecord *b) {
  assert_int_equal(a->key_len, b->key_len);
  assert_memory_equal(a->key, b->key, a->key_len);
  assert_int_equal(a->length, b->length);
  assert_int_equal(a->flags, b->flags);
  assert_int_equal(a->root_mates, b->root_mates);
  assert_int_equal(a->line_len, b->line_len);
  if (a->line_len) assert_memory_equal(a->line, b->line, 2u * a->line_len);
  assert_int_equal(a->ext_len, b->ext_len);
  if (a->ext_len) assert_memory_equal(a->ext, b->ext, a->ext_len);
}

static TsDbMeta meta_make(const char *material, uint32_t rules) {
  TsDbMeta m = {.rule_options = rules};
  snprintf(m.material, sizeof m.material, "%s", material);
  return m;
}

static TsDb *db_create(const char *path, const TsDbMeta *m) {
  TsDb *db = NULL;
  TsError err;
  int rc = tsdb_open(path, TSDB_CREATE, m, &db, &err);
  if (rc) fprintf(stderr, "open: %s: %s\n", err.where, err.msg);
  assert_int_equal(rc, TS_OK);
  return db;
}

static int key_cmp(const uint8_t *a, size_t na, const uint8_t *b, size_t nb) {
  int c = memcmp(a, b, na < nb ? na : nb);
  return c ? c : (na > nb) - (na < nb);
}

typedef struct {
  uint64_t n;
  uint8_t last[TSDB_KEY_MAX];
  size_t last_len;
  int order_ok;
  int length; /* expected length or -1 */
  int length_ok;
} Walk;

static int walk_cb(const TsRecord *r, void *ctx) {
  Walk *w = ctx;
  if (w->n && key_cmp(w->last, w->last_len, r->key, r->key_len) >= 0) w->order_ok = 0;
  if (w->length >= 0 && r->length != w->length) w->length_ok = 0;
  memcpy(w->last, r->key, r->key_len);
  w->last_len = r->key_len;
  w->n++;
  return 0;
}

static Walk walk(TsDb *db, int length) {
  Walk w = {.order_ok = 1, .length_ok = 1, .length = length};
  TsError err;
  assert_int_equal(tsdb_foreach(db, length, walk_cb, &w, &err), TS_OK);
  return w;
}

/* ---- tests ---- */

/* Many random records, incl. 0- and 1024-move lines and full extensions,
 * read back field by field, before and after reopening; key order of walks. */
static void test_roundtrip(void **state) {
  Fixture *f = *state;
  TsDbMeta m = meta_make("N4", 0);
  TsDb *db = db_create(f->path, &m);
  enum { N = 3000 };
  TsRecord *recs = calloc(N, sizeof *recs);
  uint64_t s = 12345;
  for (uint32_t i = 0; i < N; i++)
    make_record(&recs[i], i * 7919u % N, &s, i % 100 == 0 ? TSDB_LINE_MAX : (i % 7 == 0 ? 0 : 1 + i % 31));
  recs[5].ext_len = TSDB_EXT_MAX;
  recs[6].flags = 0xffffffffu;
  recs[7].length = 65535;
  recs[8].key_len = TSDB_KEY_MAX;
  TsError err;
  assert_int_equal(tsdb_put_batch(db, recs, N / 2, NULL, 0, &err), TS_OK);
  assert_int_equal(tsdb_put_batch(db, recs + N / 2, N - N / 2, NULL, 0, &err), TS_OK);
  uint64_t total = 0;
  assert_int_equal(tsdb_count(db, &total, &err), TS_OK);
  assert_int_equal(total, N);
  TsRecord *got = malloc(sizeof *got);
  for (int pass = 0; pass < 2; pass++) {
    for (uint32_t i = 0; i < N; i++) {
      memset(got, 0xAA, sizeof *got);
      assert_int_equal(tsdb_get(db, recs[i].key, recs[i].key_len, got, &err), TS_OK);
      assert_record_equal(&recs[i], got);
    }
    uint8_t absent[5] = {0xff, 0xff, 0xff, 0xff, 1};
    assert_int_equal(tsdb_get(db, absent, sizeof absent, got, &err), TS_ERR_NOTFOUND);
    Walk w = walk(db, -1);
    assert_int_equal(w.n, N);
    assert_true(w.order_ok);
    uint64_t by_len_sum = 0;
    for (int len = 0; len <= TSDB_LINE_MAX; len++) {
      uint64_t c;
      assert_int_equal(tsdb_count_length(db, (unsigned)len, &c, &err), TS_OK);
      by_len_sum += c;
    }
    uint64_t c2000, c65535;
    assert_int_equal(tsdb_count_length(db, 2000, &c2000, &err), TS_OK);
    assert_int_equal(tsdb_count_length(db, 65535, &c65535, &err), TS_OK);
    assert_int_equal(by_len_sum + c2000 + c65535, N);
    Walk w31 = walk(db, 31);
    uint64_t expect31 = 0;
    for (uint32_t i = 0; i < N; i++) expect31 += recs[i].length == 31;
    assert_true(expect31 > 0);
    assert_int_equal(w31.n, expect31);
    assert_true(w31.order_ok && w31.length_ok);
    /* the unlisted length: picked out of a scan, in key order all the same */
    Walk w1 = walk(db, TSDB_UNLISTED_LENGTH);
    uint64_t expect1 = 0, c1;
    for (uint32_t i = 0; i < N; i++) expect1 += recs[i].length == TSDB_UNLISTED_LENGTH;
    assert_true(expect1 > 0);
    assert_int_equal(w1.n, expect1);
    assert_true(w1.order_ok && w1.length_ok);
    assert_int_equal(tsdb_count_length(db, TSDB_UNLISTED_LENGTH, &c1, &err), TS_OK);
    assert_int_equal(c1, expect1);
    tsdb_close(db);
    assert_int_equal(tsdb_open(f->path, TSDB_RDONLY, NULL, &db, &err), TS_OK);
  }
  TsDbStats st;
  assert_int_equal(tsdb_stats(db, &st, &err), TS_OK);
  uint64_t unlisted = 0;
  for (uint32_t i = 0; i < N; i++) unlisted += recs[i].length == TSDB_UNLISTED_LENGTH;
  assert_int_equal(st.entries, N);
  assert_int_equal(st.by_len_entries, N - unlisted);
  assert_int_equal(st.format_version, TSDB_FORMAT_VERSION);
  assert_int_equal(st.batches, 2);
  assert_int_equal(st.puts, N);
  assert_true(st.file_bytes > 0 && st.used_bytes <= st.file_bytes && st.map_size >= st.file_bytes);
  tsdb_close(db);
  free(got);
  free(recs);
}

/* Overwrites move the by_len entry; duplicates in one batch: the later wins. */
static void test_overwrite_length(void **state) {
  Fixture *f = *state;
  TsDbMeta m = meta_make("G2P1", 0);
  TsDb *db = db_create(f->path, &m);
  TsError err;
  TsRecord r[3], got;
  uint64_t s = 99, c;
  make_record(&r[0], 1, &s, 5);
  assert_int_equal(tsdb_put_batch(db, r, 1, NULL, 0, &err), TS_OK);
  assert_int_equal(tsdb_count_length(db, 5, &c, &err), TS_OK);
  assert_int_equal(c, 1);
  r[1] = r[0];
  r[1].length = 7;
  r[1].line_len = 7;
  r[1].line[5] = r[1].line[6] = 0x0102;
  assert_int_equal(tsdb_put_batch(db, &r[1], 1, NULL, 0, &err), TS_OK);
  assert_int_equal(tsdb_count_length(db, 5, &c, &err), TS_OK);
  assert_int_equal(c, 0);
  assert_int_equal(tsdb_count_length(db, 7, &c, &err), TS_OK);
  assert_int_equal(c, 1);
  assert_int_equal(walk(db, 5).n, 0);
  Walk w = walk(db, 7);
  assert_int_equal(w.n, 1);
  assert_memory_equal(w.last, r[0].key, r[0].key_len);
  assert_int_equal(tsdb_get(db, r[0].key, r[0].key_len, &got, &err), TS_OK);
  assert_record_equal(&r[1], &got);
  /* same key twice in one batch, and an unchanged length */
  r[2] = r[1];
  r[2].length = 9;
  r[2].flags = TSDB_F_COMPLETE;
  TsRecord pair[2] = {r[1], r[2]};
  assert_int_equal(tsdb_put_batch(db, pair, 2, NULL, 0, &err), TS_OK);
  assert_int_equal(tsdb_get(db, r[0].key, r[0].key_len, &got, &err), TS_OK);
  assert_record_equal(&r[2], &got);
  assert_int_equal(tsdb_put_batch(db, &r[2], 1, NULL, 0, &err), TS_OK);
  TsDbStats st;
  assert_int_equal(tsdb_stats(db, &st, &err), TS_OK);
  assert_int_equal(st.entries, 1);
  assert_int_equal(st.by_len_entries, 1);
  assert_int_equal(tsdb_count_length(db, 7, &c, &err), TS_OK);
  assert_int_equal(c, 0);
  assert_int_equal(tsdb_count_length(db, 9, &c, &err), TS_OK);
  assert_int_equal(c, 1);
  /* to the unlisted length and back: no index entry while it is 1 ply */
  TsRecord one = r[2], three = r[2];
  one.length = 1;
  three.length = 3;
  assert_int_equal(tsdb_put_batch(db, &one, 1, NULL, 0, &err), TS_OK);
  assert_int_equal(tsdb_stats(db, &st, &err), TS_OK);
  assert_int_equal(st.by_len_entries, 0);
  assert_int_equal(tsdb_count_length(db, 9, &c, &err), TS_OK);
  assert_int_equal(c, 0);
  assert_int_equal(tsdb_count_length(db, 1, &c, &err), TS_OK);
  assert_int_equal(c, 1);
  assert_int_equal(walk(db, 1).n, 1);
  assert_int_equal(tsdb_put_batch(db, &three, 1, NULL, 0, &err), TS_OK);
  assert_int_equal(tsdb_count_length(db, 1, &c, &err), TS_OK);
  assert_int_equal(c, 0);
  assert_int_equal(walk(db, 1).n, 0);
  assert_int_equal(tsdb_count_length(db, 3, &c, &err), TS_OK);
  assert_int_equal(c, 1);
  assert_int_equal(walk(db, 3).n, 1);
  tsdb_close(db);
}

/* Puts key=value into a named table of a plain LMDB file. */
static void lmdb_raw_put(const char *path, const char *table, unsigned dbflags, const void *key, size_t klen,
                         const void *v, size_t n) {
  MDB_env *env;
  MDB_txn *txn;
  MDB_dbi dbi;
  assert_int_equal(mdb_env_create(&env), 0);
  mdb_env_set_maxdbs(env, 4);
  assert_int_equal(mdb_env_open(env, path, MDB_NOSUBDIR, 0644), 0);
  assert_int_equal(mdb_txn_begin(env, NULL, 0, &txn), 0);
  assert_int_equal(mdb_dbi_open(txn, table, MDB_CREATE | dbflags, &dbi), 0);
  MDB_val k = {klen, (void *)key}, val = {n, (void *)v};
  assert_int_equal(mdb_put(txn, dbi, &k, &val, 0), 0);
  assert_int_equal(mdb_txn_commit(txn), 0);
  mdb_env_close(env);
}

/* Writes name=value into a named table of a plain LMDB file. */
static void lmdb_put(const char *path, const char *table, const char *name, const void *v, size_t n) {
  lmdb_raw_put(path, table, 0, name, strlen(name), v, n);
}

/* Adds (length, key) to by_len of a plain LMDB file, as format version 1 lists every length. */
static void lmdb_list(const char *path, unsigned length, const uint8_t *key, size_t key_len) {
  uint8_t lk[2] = {(uint8_t)(length >> 8), (uint8_t)length};
  lmdb_raw_put(path, "by_len", MDB_DUPSORT, lk, 2, key, key_len);
}

/* A file of format version 1 lists its 1-ply records in by_len: read from
 * there, kept there by an overwrite, and db-check accepts it. */
static void test_version1_file(void **state) {
  Fixture *f = *state;
  TsDbMeta m = meta_make("G2P1", 0);
  TsDb *db = db_create(f->path, &m);
  TsError err;
  TsRecord r[2];
  uint64_t s = 7, c;
  make_record(&r[0], 1, &s, 1);
  make_record(&r[1], 2, &s, 3);
  assert_int_equal(tsdb_put_batch(db, r, 2, NULL, 0, &err), TS_OK);
  tsdb_close(db);
  lmdb_list(f->path, 1, r[0].key, r[0].key_len);
  const uint8_t v1[4] = {0, 0, 0, 1};
  lmdb_put(f->path, "meta", "tsdb.version", v1, 4);
  TsDbCheckStats cst;
  assert_int_equal(tsdb_check_file(f->path, NULL, NULL, &cst, &err), TS_OK);
  assert_int_equal(cst.damages, 0);
  assert_int_equal(tsdb_open(f->path, 0, NULL, &db, &err), TS_OK);
  TsDbStats st;
  assert_int_equal(tsdb_stats(db, &st, &err), TS_OK);
  assert_int_equal(st.format_version, 1);
  assert_int_equal(st.by_len_entries, 2);
  assert_int_equal(tsdb_count_length(db, 1, &c, &err), TS_OK);
  assert_int_equal(c, 1);
  assert_int_equal(walk(db, 1).n, 1);
  /* a third record of 1 ply is listed too, as the file's version wants */
  TsRecord third;
  make_record(&third, 3, &s, 1);
  assert_int_equal(tsdb_put_batch(db, &third, 1, NULL, 0, &err), TS_OK);
  assert_int_equal(tsdb_stats(db, &st, &err), TS_OK);
  assert_int_equal(st.by_len_entries, 3);
  assert_int_equal(tsdb_count_length(db, 1, &c, &err), TS_OK);
  assert_int_equal(c, 2);
  tsdb_close(db);
  assert_int_equal(tsdb_check_file(f->path, NULL, NULL, &cst, &err), TS_OK);
  assert_int_equal(cst.damages, 0);
}

/* A 64 KiB map grows (doubling) under thousands of records. */
static void test_map_growth(void **state) {
  Fixture *f = *state;
  TsDbMeta m = meta_make("N4", 0);
  m.map_size = 64 * 1024;
  TsDb *db = db_create(f->path, &m);
  TsError err;
  enum { N = 6000, B = 1500 };
  TsRecord *recs = calloc(N, sizeof *recs);
  uint64_t s = 7;
  for (uint32_t i = 0; i < N; i++) make_record(&recs[i], i, &s, 5 + i % 21);
  TsDbStats st;
  assert_int_equal(tsdb_stats(db, &st, &err), TS_OK);
  assert_int_equal(st.map_size, 64 * 1024);
  for (int b = 0; b < N / B; b++)
    assert_int_equal(tsdb_put_batch(db, recs + b * B, B, NULL, 0, &err), TS_OK);
  assert_int_equal(tsdb_stats(db, &st, &err), TS_OK);
  assert_true(st.map_size >= 1024 * 1024);
  assert_int_equal(st.entries, N);
  tsdb_close(db);
  assert_int_equal(tsdb_open(f->path, 0, &m, &db, &err), TS_OK);
  TsRecord got;
  for (uint32_t i = 0; i < N; i += 7) {
    assert_int_equal(tsdb_get(db, recs[i].key, recs[i].key_len, &got, &err), TS_OK);
    assert_record_equal(&recs[i], &got);
  }
  tsdb_close(db);
  free(recs);
}

/* Counts the stored values with each tag by reading prob through LMDB. */
static void count_tags(const char *path, size_t *raw, size_t *dict) {
  MDB_env *env;
  MDB_txn *txn;
  MDB_dbi dbi;
  MDB_cursor *c;
  MDB_val k, v;
  *raw = *dict = 0;
  assert_int_equal(mdb_env_create(&env), 0);
  mdb_env_set_maxdbs(env, 4);
  assert_int_equal(mdb_env_open(env, path, MDB_NOSUBDIR | MDB_RDONLY, 0644), 0);
  assert_int_equal(mdb_txn_begin(env, NULL, MDB_RDONLY, &txn), 0);
  assert_int_equal(mdb_dbi_open(txn, "prob", 0, &dbi), 0);
  assert_int_equal(mdb_cursor_open(txn, dbi, &c), 0);
  while (mdb_cursor_get(c, &k, &v, MDB_NEXT) == 0) {
    uint8_t tag = ((uint8_t *)v.mv_data)[0];
    assert_true(tag == TSDB_TAG_RAW || tag == TSDB_TAG_DICT);
    *(tag == TSDB_TAG_RAW ? raw : dict) += 1;
  }
  mdb_cursor_close(c);
  mdb_txn_abort(txn);
  mdb_env_close(env);
}

/* Small first batches stay raw; the first large batch trains the
 * dictionary, kept because these lines compress; old and new records decode,
 * also after reopening. Random lines: the dictionary is refused for good. */
static void test_dictionary(void **state) {
  Fixture *f = *state;
  TsDbMeta m = meta_make("S2P1", 3);
  m.dict_min_records = 2000;
  TsDb *db = db_create(f->path, &m);
  TsError err;
  enum { N = 6000 };
  TsRecord *recs = calloc(N, sizeof *recs);
  uint64_t s = 4242;
  for (uint32_t i = 0; i < N; i++) {
    make_record(&recs[i], i, &s, 5 + 2 * (i % 11));
    recs[i].flags &= 0x3ff;
    recs[i].ext_len = 0;
    for (unsigned j = 0; j < recs[i].line_len; j++) /* realistic: moves near one corner */
      recs[i].line[j] = (uint16_t)((j % 2 ? 1 + j % 3 : 84 + j % 4) << 7 | (j % 5));
  }
  TsDbStats st;
  assert_int_equal(tsdb_put_batch(db, recs, 500, NULL, 0, &err), TS_OK);
  assert_int_equal(tsdb_stats(db, &st, &err), TS_OK);
  assert_int_equal(st.dict_bytes, 0);
  assert_int_equal(tsdb_put_batch(db, recs + 500, 3000, NULL, 0, &err), TS_OK);
  assert_int_equal(tsdb_stats(db, &st, &err), TS_OK);
  assert_true(st.dict_bytes > 0);
  assert_int_equal(tsdb_put_batch(db, recs + 3500, N - 3500, NULL, 0, &err), TS_OK);
  tsdb_close(db);
  size_t raw, dict;
  count_tags(f->path, &raw, &dict);
  assert_int_equal(raw + dict, N);
  assert_true(raw >= 500);
  assert_true(dict >= N / 2);
  assert_int_equal(tsdb_open(f->path, TSDB_RDONLY, NULL, &db, &err), TS_OK);
  TsRecord got;
  for (uint32_t i = 0; i < N; i++) {
    assert_int_equal(tsdb_get(db, recs[i].key, recs[i].key_len, &got, &err), TS_OK);
    assert_record_equal(&recs[i], &got);
  }
  assert_int_equal(walk(db, -1).n, N);
  tsdb_close(db);

  /* random lines do not compress: the decision "stay raw" is stored, kept
   * across reopening, and every record is raw */
  char path2[160];
  snprintf(path2, sizeof path2, "%s/random.mdb", f->dir);
  db = db_create(path2, &m);
  for (uint32_t i = 0; i < N; i++) make_record(&recs[i], i, &s, 5 + i % 21);
  assert_int_equal(tsdb_put_batch(db, recs, 3000, NULL, 0, &err), TS_OK);
  size_t len = 99;
  assert_int_equal(tsdb_meta_get_raw(db, "tsdb.zdict", NULL, 0, &len, &err), TS_OK);
  assert_int_equal(len, 0);
  tsdb_close(db);
  assert_int_equal(tsdb_open(path2, 0, &m, &db, &err), TS_OK);
  assert_int_equal(tsdb_put_batch(db, recs + 3000, N - 3000, NULL, 0, &err), TS_OK);
  assert_int_equal(tsdb_stats(db, &st, &err), TS_OK);
  assert_int_equal(st.dict_bytes, 0);
  for (uint32_t i = 0; i < N; i += 3) {
    assert_int_equal(tsdb_get(db, recs[i].key, recs[i].key_len, &got, &err), TS_OK);
    assert_record_equal(&recs[i], &got);
  }
  tsdb_close(db);
  count_tags(path2, &raw, &dict);
  assert_int_equal(raw, N);
  assert_int_equal(dict, 0);
  free(recs);
}

/* Reopening with another material or other rule options fails, naming both. */
static void test_meta_mismatch(void **state) {
  Fixture *f = *state;
  TsDbMeta m = meta_make("N4", 5);
  tsdb_close(db_create(f->path, &m));
  TsDb *db = NULL;
  TsError err;
  TsDbMeta other = meta_make("G2P1", 5);
  assert_int_equal(tsdb_open(f->path, 0, &other, &db, &err), TS_ERR_DB);
  assert_null(db);
  assert_non_null(strstr(err.msg, "\"N4\""));
  assert_non_null(strstr(err.msg, "\"G2P1\""));
  assert_string_equal(err.where, f->path);
  other = meta_make("N4", 4);
  assert_int_equal(tsdb_open(f->path, TSDB_RDONLY, &other, &db, &err), TS_ERR_DB);
  assert_non_null(strstr(err.msg, "0x5"));
  assert_non_null(strstr(err.msg, "0x4"));
  assert_int_equal(tsdb_open(f->path, TSDB_CREATE, &other, &db, &err), TS_ERR_DB);
  assert_int_equal(tsdb_open(f->path, TSDB_RDONLY, NULL, &db, &err), TS_OK);
  TsDbMeta got;
  assert_int_equal(tsdb_meta_get(db, &got, &err), TS_OK);
  assert_string_equal(got.material, "N4");
  assert_int_equal(got.rule_options, 5);
  tsdb_close(db);
  assert_int_equal(tsdb_open(f->path, 0, &m, &db, &err), TS_OK);
  tsdb_close(db);
}

static void write_file(const char *path, const void *data, size_t n) {
  FILE *fp = fopen(path, "wb");
  assert_non_null(fp);
  assert_int_equal(fwrite(data, 1, n, fp), n);
  fclose(fp);
}

/* Random bytes, short text, an empty file, a missing file: clear errors
 * naming the path, and no lock file left beside a foreign file. */
static void test_foreign_file(void **state) {
  Fixture *f = *state;
  TsDbMeta m = meta_make("N4", 0);
  TsDb *db = NULL;
  TsError err;
  char lock[160];
  snprintf(lock, sizeof lock, "%s-lock", f->path);
  assert_int_equal(tsdb_open(f->path, 0, &m, &db, &err), TS_ERR_IO);
  assert_non_null(strstr(err.msg, "no such"));
  assert_int_equal(access(f->path, F_OK), -1);
  uint8_t *junk = malloc(65536);
  uint64_t s = 1;
  for (int i = 0; i < 65536; i++) junk[i] = (uint8_t)rng_next(&s);
  write_file(f->path, junk, 65536);
  for (unsigned fl = 0; fl < 3; fl++) {
    unsigned flags = fl == 0 ? 0 : fl == 1 ? TSDB_RDONLY : TSDB_CREATE;
    assert_int_equal(tsdb_open(f->path, flags, fl == 1 ? NULL : &m, &db, &err), TS_ERR_DB);
    assert_null(db);
    assert_string_equal(err.where, f->path);
    assert_non_null(strstr(err.msg, "not an LMDB"));
    assert_int_equal(access(lock, F_OK), -1);
  }
  write_file(f->path, "hello, world\n", 13);
  assert_int_equal(tsdb_open(f->path, 0, &m, &db, &err), TS_ERR_DB);
  write_file(f->path, "", 0);
  assert_int_equal(tsdb_open(f->path, 0, &m, &db, &err), TS_ERR_DB);
  assert_non_null(strstr(err.msg, "empty"));
  /* the untouched junk file is still junk */
  write_file(f->path, junk, 65536);
  assert_int_equal(tsdb_open(f->path, 0, &m, &db, &err), TS_ERR_DB);
  FILE *fp = fopen(f->path, "rb");
  uint8_t back[64];
  assert_int_equal(fread(back, 1, 64, fp), 64);
  fclose(fp);
  assert_memory_equal(back, junk, 64);
  assert_int_equal(tsdb_open(f->dir, 0, &m, &db, &err), TS_ERR_IO);
  free(junk);
}


/* LMDB files that are not ours, and a newer format version, are refused. */
static void test_lmdb_not_ours(void **state) {
  Fixture *f = *state;
  TsDbMeta m = meta_make("N4", 0);
  TsDb *db = NULL;
  TsError err;
  lmdb_put(f->path, NULL, "hello", "world", 5); /* data in the unnamed table */
  assert_int_equal(tsdb_open(f->path, TSDB_CREATE, &m, &db, &err), TS_ERR_DB);
  assert_non_null(strstr(err.msg, "not a tsume database"));
  assert_int_equal(tsdb_open(f->path, TSDB_RDONLY, NULL, &db, &err), TS_ERR_DB);
  assert_non_null(strstr(err.msg, "not a tsume database"));
  unlink(f->path);
  lmdb_put(f->path, "meta", "tsdb.magic", "other-db", 8); /* a meta table, wrong magic */
  assert_int_equal(tsdb_open(f->path, 0, &m, &db, &err), TS_ERR_DB);
  assert_non_null(strstr(err.msg, "magic"));
  assert_string_equal(err.where, f->path);
  unlink(f->path);
  tsdb_close(db_create(f->path, &m));
  uint8_t v2[4] = {0, 0, 0, TSDB_FORMAT_VERSION + 1};
  lmdb_put(f->path, "meta", "tsdb.version", v2, 4);
  assert_int_equal(tsdb_open(f->path, TSDB_RDONLY, NULL, &db, &err), TS_ERR_DB);
  assert_non_null(strstr(err.msg, "newer"));
  assert_string_equal(err.where, f->path);
}

/* Corrupt stored values give TS_ERR_DB from get, foreach and the codec
 * itself (random bytes too); a put over a corrupt record repairs it. */
static void test_corrupt_record(void **state) {
  Fixture *f = *state;
  TsDbMeta m = meta_make("N4", 0);
  TsDb *db = db_create(f->path, &m);
  TsError err;
  enum { N = 8 };
  TsRecord recs[N], got;
  uint64_t s = 5;
  for (uint32_t i = 0; i < N; i++) make_record(&recs[i], i, &s, 9);
  assert_int_equal(tsdb_put_batch(db, recs, N, NULL, 0, &err), TS_OK);
  tsdb_close(db);
  static const struct {
    const char *bytes;
    size_t n;
  } bad[N] = {
      {"", 0},                           /* empty */
      {"\x07\x09\x00\x00\x00", 5},       /* unknown tag */
      {"\x01\x09\x00\x00\x12\x01", 6},   /* 9 moves announced, 1 byte left */
      {"\x01\x89\x00\x00\x00\x00", 6},   /* non-shortest varint */
      {"\x01\x09\x00\x00\x02\x51\x00", 7}, /* move "to" 81 */
      {"\x02\x09\xde\xad\xbe\xef", 6},   /* dictionary tag, no dictionary */
      {"\x01\x09\x00\x00\x01\x00", 6},   /* extension flagged, length 0 */
      {"\x01\xff\xff\xff\x7f", 5},       /* length varint too long */
  };
  for (int i = 0; i < N; i++) {
    MDB_env *env;
    MDB_txn *txn;
    MDB_dbi dbi;
    assert_int_equal(mdb_env_create(&env), 0);
    mdb_env_set_maxdbs(env, 4);
    assert_int_equal(mdb_env_open(env, f->path, MDB_NOSUBDIR, 0644), 0);
    assert_int_equal(mdb_txn_begin(env, NULL, 0, &txn), 0);
    assert_int_equal(mdb_dbi_open(txn, "prob", 0, &dbi), 0);
    MDB_val k = {recs[i].key_len, recs[i].key}, v = {bad[i].n, (void *)bad[i].bytes};
    assert_int_equal(mdb_put(txn, dbi, &k, &v, 0), 0);
    assert_int_equal(mdb_txn_commit(txn), 0);
    mdb_env_close(env);
  }
  assert_int_equal(tsdb_open(f->path, 0, &m, &db, &err), TS_OK);
  for (int i = 0; i < N; i++) {
    ts_error_clear(&err);
    assert_int_equal(tsdb_get(db, recs[i].key, recs[i].key_len, &got, &err), TS_ERR_DB);
    assert_string_equal(err.where, f->path);
    assert_true(strlen(err.msg) > 0);
  }
  assert_int_equal(tsdb_foreach(db, -1, walk_cb, &(Walk){0}, &err), TS_ERR_DB);
  assert_int_equal(tsdb_foreach(db, 9, walk_cb, &(Walk){0}, &err), TS_ERR_DB);
  /* overwrite the corrupt ones with a new length: by_len follows */
  for (int i = 0; i < N; i++) recs[i].length = 11;
  assert_int_equal(tsdb_put_batch(db, recs, N, NULL, 0, &err), TS_OK);
  uint64_t c9, c11;
  assert_int_equal(tsdb_count_length(db, 9, &c9, &err), TS_OK);
  assert_int_equal(tsdb_count_length(db, 11, &c11, &err), TS_OK);
  assert_int_equal(c9, 0);
  assert_int_equal(c11, N);
  Walk w = walk(db, 11);
  assert_int_equal(w.n, N);
  tsdb_close(db);

  /* the codec on random bytes, with and without a dictionary */
  TsDbCodec *codec;
  assert_int_equal(tsdb_codec_create(3, &codec, &err), TS_OK);
  uint8_t buf[300];
  for (int round = 0; round < 2; round++) {
    for (int i = 0; i < 100000; i++) {
      size_t n = rng_next(&s) % sizeof buf;
      for (size_t j = 0; j < n; j++) buf[j] = (uint8_t)rng_next(&s);
      if (n) buf[0] = (uint8_t)(1 + rng_next(&s) % 2);
      int rc = tsdb_codec_decode(codec, buf, n, &got, "<fuzz>", &err);
      assert_true(rc == TS_OK || rc == TS_ERR_DB);
      if (rc == TS_OK) assert_true(got.line_len <= TSDB_LINE_MAX);
    }
    assert_int_equal(tsdb_codec_dict_set(codec, "some raw dictionary content", 27, "<t>", &err), TS_OK);
  }
  tsdb_codec_free(codec);
}

/* The checkpoint of the last batch survives reopening; raw meta values. */
static void test_checkpoint(void **state) {
  Fixture *f = *state;
  TsDbMeta m = meta_make("N4", 0);
  TsDb *db = db_create(f->path, &m);
  TsError err;
  size_t len = 0;
  char buf[64];
  assert_int_equal(tsdb_checkpoint_get(db, NULL, 0, &len, &err), TS_ERR_NOTFOUND);
  TsRecord r;
  uint64_t s = 3;
  make_record(&r, 1, &s, 3);
  assert_int_equal(tsdb_put_batch(db, &r, 1, "layer=3;pos=17", 14, &err), TS_OK);
  make_record(&r, 2, &s, 3);
  assert_int_equal(tsdb_put_batch(db, &r, 1, "layer=4;pos=0", 13, &err), TS_OK);
  assert_int_equal(tsdb_put_batch(db, &r, 1, NULL, 0, &err), TS_OK); /* keeps it */
  assert_int_equal(tsdb_meta_put_raw(db, "census", "1,2,3", 5, &err), TS_OK);
  assert_int_equal(tsdb_meta_put_raw(db, "tsdb.checkpoint", "x", 1, &err), TS_ERR_USAGE);
  tsdb_close(db);
  assert_int_equal(tsdb_open(f->path, TSDB_RDONLY, NULL, &db, &err), TS_OK);
  assert_int_equal(tsdb_checkpoint_get(db, NULL, 0, &len, &err), TS_OK);
  assert_int_equal(len, 13);
  assert_int_equal(tsdb_checkpoint_get(db, buf, 5, &len, &err), TS_ERR_USAGE);
  assert_int_equal(tsdb_checkpoint_get(db, buf, sizeof buf, &len, &err), TS_OK);
  assert_memory_equal(buf, "layer=4;pos=0", 13);
  assert_int_equal(tsdb_meta_get_raw(db, "census", buf, sizeof buf, &len, &err), TS_OK);
  assert_int_equal(len, 5);
  assert_memory_equal(buf, "1,2,3", 5);
  assert_int_equal(tsdb_meta_get_raw(db, "tsdb.magic", buf, sizeof buf, &len, &err), TS_OK);
  assert_memory_equal(buf, "tsume-db", 8);
  assert_int_equal(tsdb_meta_get_raw(db, "nothing", buf, sizeof buf, &len, &err), TS_ERR_NOTFOUND);
  TsDbStats st;
  assert_int_equal(tsdb_stats(db, &st, &err), TS_OK);
  assert_int_equal(st.batches, 3);
  assert_int_equal(st.entries, 2);
  tsdb_close(db);
}

static int write_in_foreach_cb(const TsRecord *r, void *ctx) {
  TsError err;
  TsRecord copy = *r;
  int rc = tsdb_put_batch(ctx, &copy, 1, NULL, 0, &err);
  TsRecord got;
  int rc2 = tsdb_get(ctx, r->key, r->key_len, &got, &err); /* nested reads are fine */
  return rc == TS_ERR_USAGE && rc2 == TS_OK ? 42 : 1;
}

/* Bad arguments are TS_ERR_USAGE with the culprit named. */
static void test_bad_args(void **state) {
  Fixture *f = *state;
  TsDbMeta m = meta_make("N4", 0);
  TsDb *db = NULL;
  TsError err;
  assert_int_equal(tsdb_open(f->path, TSDB_CREATE | TSDB_RDONLY, &m, &db, &err), TS_ERR_USAGE);
  assert_int_equal(tsdb_open(f->path, TSDB_CREATE, NULL, &db, &err), TS_ERR_USAGE);
  assert_int_equal(tsdb_open(f->path, 0x100, &m, &db, &err), TS_ERR_USAGE);
  db = db_create(f->path, &m);
  TsRecord r[4];
  uint64_t s = 8;
  for (int i = 0; i < 4; i++) make_record(&r[i], (uint32_t)i, &s, 3);
  r[3].key_len = 0;
  assert_int_equal(tsdb_put_batch(db, r, 4, NULL, 0, &err), TS_ERR_USAGE);
  assert_non_null(strstr(err.msg, "record 3"));
  r[3].key_len = 10;
  r[2].line_len = TSDB_LINE_MAX + 1;
  assert_int_equal(tsdb_put_batch(db, r, 4, NULL, 0, &err), TS_ERR_USAGE);
  r[2].line_len = 3;
  r[1].line[0] = 0x8000;
  assert_int_equal(tsdb_put_batch(db, r, 4, NULL, 0, &err), TS_ERR_USAGE);
  r[1].line[0] = (uint16_t)(1 << 14 | (81 + 1) << 7 | 5); /* promoting drop */
  assert_int_equal(tsdb_put_batch(db, r, 4, NULL, 0, &err), TS_ERR_USAGE);
  r[1].line[0] = 5;
  uint64_t c;
  assert_int_equal(tsdb_count(db, &c, &err), TS_OK);
  assert_int_equal(c, 0); /* nothing of a refused batch was written */
  assert_int_equal(tsdb_put_batch(db, r, 4, NULL, 0, &err), TS_OK);
  uint8_t key[TSDB_KEY_MAX + 1] = {0};
  TsRecord got;
  assert_int_equal(tsdb_get(db, key, sizeof key, &got, &err), TS_ERR_USAGE);
  assert_int_equal(tsdb_get(db, key, 0, &got, &err), TS_ERR_USAGE);
  assert_int_equal(tsdb_foreach(db, 70000, walk_cb, &(Walk){0}, &err), TS_ERR_USAGE);
  assert_int_equal(tsdb_foreach(db, -1, write_in_foreach_cb, db, &err), 42);
  tsdb_close(db);
  assert_int_equal(tsdb_open(f->path, TSDB_RDONLY, NULL, &db, &err), TS_OK);
  assert_int_equal(tsdb_put_batch(db, r, 1, NULL, 0, &err), TS_ERR_USAGE);
  assert_int_equal(tsdb_meta_put_raw(db, "x", "y", 1, &err), TS_ERR_USAGE);
  tsdb_close(db);
}

static void sleep_ms(int ms) {
  struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
  nanosleep(&ts, NULL);
}

/*
 * A forked reader counts (tsdb_count and a full walk) while the parent
 * writes batches into a small, growing map: counts only ever grow, always by
 * whole batches, and the reader ends by seeing the last batch. Then a
 * compacted copy (tsdb_copy) holds the same records.
 */
static void test_reader_while_writing(void **state) {
  Fixture *f = *state;
  TsDbMeta m = meta_make("N4", 0);
  m.map_size = 256 * 1024;
  TsDb *db = db_create(f->path, &m);
  TsError err;
  enum { B = 1000, NB = 25 };
  TsRecord *recs = calloc(B, sizeof *recs);
  uint64_t s = 77;
  for (uint32_t i = 0; i < B; i++) make_record(&recs[i], i, &s, 5 + i % 21);
  assert_int_equal(tsdb_put_batch(db, recs, B, NULL, 0, &err), TS_OK);
  int ready[2];
  assert_int_equal(pipe(ready), 0);
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    TsDb *rd;
    TsError e;
    int code = 0;
    if (tsdb_open(f->path, TSDB_RDONLY, NULL, &rd, &e)) _exit(10);
    if (write(ready[1], "r", 1) != 1) _exit(11);
    uint64_t last = 0, seen = 0;
    for (int i = 0; i < 100000 && last < (uint64_t)B * NB; i++) {
      uint64_t n;
      Walk w = {.order_ok = 1, .length = -1, .length_ok = 1};
      if (tsdb_count(rd, &n, &e)) { code = 12; break; }
      if (n < last || n % B) { code = 13; break; }
      if (tsdb_foreach(rd, -1, walk_cb, &w, &e)) { code = 14; break; }
      if (w.n < n || w.n % B || !w.order_ok) { code = 15; break; }
      seen += n != last;
      last = n;
    }
    tsdb_close(rd);
    if (!code && last != (uint64_t)B * NB) code = 16;
    if (!code && seen < 2) code = 17;
    _exit(code);
  }
  close(ready[1]); /* a child that dies early makes read() return 0 */
  char c;
  assert_int_equal(read(ready[0], &c, 1), 1);
  for (int b = 1; b < NB; b++) {
    for (uint32_t i = 0; i < B; i++) {
      uint32_t id = (uint32_t)(b * B) + i;
      recs[i].key[0] = (uint8_t)(id >> 24);
      recs[i].key[1] = (uint8_t)(id >> 16);
      recs[i].key[2] = (uint8_t)(id >> 8);
      recs[i].key[3] = (uint8_t)id;
    }
    assert_int_equal(tsdb_put_batch(db, recs, B, NULL, 0, &err), TS_OK);
    sleep_ms(10);
  }
  int status;
  assert_int_equal(waitpid(pid, &status, 0), pid);
  assert_true(WIFEXITED(status));
  assert_int_equal(WEXITSTATUS(status), 0);
  TsDbStats st;
  assert_int_equal(tsdb_stats(db, &st, &err), TS_OK);
  assert_int_equal(st.entries, B * NB);
  assert_true(st.map_size > 256 * 1024);
  /* a compacted copy holds the same records in no more space */
  char copy[160];
  snprintf(copy, sizeof copy, "%s/copy.mdb", f->dir);
  assert_int_equal(tsdb_copy(db, copy, &err), TS_OK);
  assert_int_equal(tsdb_copy(db, copy, &err), TS_ERR_IO);
  tsdb_close(db);
  TsDbStats cst;
  assert_int_equal(tsdb_open(copy, TSDB_RDONLY, NULL, &db, &err), TS_OK);
  assert_int_equal(tsdb_stats(db, &cst, &err), TS_OK);
  assert_int_equal(cst.entries, B * NB);
  assert_int_equal(cst.by_len_entries, B * NB);
  assert_true(cst.file_bytes <= st.file_bytes);
  assert_int_equal(walk(db, -1).n, B * NB);
  tsdb_close(db);
  close(ready[0]);
  free(recs);
}

/* Fills batch number b: keys (b, i), contents derived from b and i. */
static void fill_batch(TsRecord *recs, int nrec, uint32_t b) {
  uint64_t s = 1000003u * (b + 1);
  for (int i = 0; i < nrec; i++) make_record(&recs[i], b << 16 | (uint32_t)i, &s, 5 + (unsigned)i % 21);
}

/*
 * A writer child is SIGKILLed mid-run. The database opens, its checkpoint k
 * names the last committed batch, exactly batches 0..k are there with the
 * right contents, and writing resumes.
 */
static void test_sigkill_writer(void **state) {
  Fixture *f = *state;
  TsDbMeta m = meta_make("N4", 0);
  m.map_size = 128 * 1024; /* growth happens while being killed, too */
  enum { B = 2000 };
  int ready[2];
  assert_int_equal(pipe(ready), 0);
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    TsDb *db;
    TsError e;
    TsRecord *recs = calloc(B, sizeof *recs);
    if (!recs || tsdb_open(f->path, TSDB_CREATE | TSDB_NOSYNC, &m, &db, &e)) _exit(10);
    for (uint32_t b = 0;; b++) {
      fill_batch(recs, B, b);
      if (tsdb_put_batch(db, recs, B, &b, sizeof b, &e)) _exit(11);
      if (b == 3 && write(ready[1], "r", 1) != 1) _exit(12);
    }
  }
  close(ready[1]); /* a child that dies early makes read() return 0 */
  char c;
  assert_int_equal(read(ready[0], &c, 1), 1);
  sleep_ms(150);
  assert_int_equal(kill(pid, SIGKILL), 0);
  int status;
  assert_int_equal(waitpid(pid, &status, 0), pid);
  assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
  close(ready[0]);

  TsDb *db;
  TsError err;
  assert_int_equal(tsdb_open(f->path, 0, &m, &db, &err), TS_OK);
  uint32_t k;
  size_t len;
  assert_int_equal(tsdb_checkpoint_get(db, &k, sizeof k, &len, &err), TS_OK);
  assert_int_equal(len, sizeof k);
  assert_true(k >= 3);
  uint64_t total;
  assert_int_equal(tsdb_count(db, &total, &err), TS_OK);
  assert_int_equal(total, (uint64_t)(k + 1) * B);
  TsRecord *recs = calloc(B, sizeof *recs);
  TsRecord got;
  for (uint32_t b = 0; b <= k; b++) {
    fill_batch(recs, B, b);
    for (int i = 0; i < B; i += 13) {
      assert_int_equal(tsdb_get(db, recs[i].key, recs[i].key_len, &got, &err), TS_OK);
      assert_record_equal(&recs[i], &got);
    }
  }
  fill_batch(recs, B, k + 1);
  assert_int_equal(tsdb_get(db, recs[0].key, recs[0].key_len, &got, &err), TS_ERR_NOTFOUND);
  uint32_t next = k + 1;
  assert_int_equal(tsdb_put_batch(db, recs, B, &next, sizeof next, &err), TS_OK);
  assert_int_equal(tsdb_count(db, &total, &err), TS_OK);
  assert_int_equal(total, (uint64_t)(k + 2) * B);
  tsdb_close(db);
  free(recs);
}

/*
 * A write that hits the file-size limit (as a full disk would) returns
 * TS_ERR_IO; the committed batch stays intact and the file reopens.
 */
static void test_full_disk(void **state) {
  Fixture *f = *state;
  TsDbMeta m = meta_make("N4", 0);
  enum { B = 500, BIG = 20000 };
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    TsDb *db;
    TsError e;
    TsRecord *recs = calloc(BIG, sizeof *recs);
    if (!recs || tsdb_open(f->path, TSDB_CREATE, &m, &db, &e)) _exit(10);
    fill_batch(recs, B, 0);
    if (tsdb_put_batch(db, recs, B, "one", 3, &e)) _exit(11);
    struct stat st;
    if (stat(f->path, &st)) _exit(12);
    signal(SIGXFSZ, SIG_IGN);
    struct rlimit rl = {(rlim_t)st.st_size + 65536, (rlim_t)st.st_size + 65536};
    if (setrlimit(RLIMIT_FSIZE, &rl)) _exit(13);
    fill_batch(recs, BIG, 1);
    int rc = tsdb_put_batch(db, recs, BIG, "two", 3, &e);
    if (rc != TS_ERR_IO) _exit(20 + rc);
    if (strcmp(e.where, f->path)) _exit(14);
    tsdb_close(db);
    _exit(0);
  }
  int status;
  assert_int_equal(waitpid(pid, &status, 0), pid);
  assert_true(WIFEXITED(status));
  assert_int_equal(WEXITSTATUS(status), 0);
  TsDb *db;
  TsError err;
  assert_int_equal(tsdb_open(f->path, 0, &m, &db, &err), TS_OK);
  uint64_t total;
  assert_int_equal(tsdb_count(db, &total, &err), TS_OK);
  assert_int_equal(total, B);
  char buf[8];
  size_t len;
  assert_int_equal(tsdb_checkpoint_get(db, buf, sizeof buf, &len, &err), TS_OK);
  assert_int_equal(len, 3);
  assert_memory_equal(buf, "one", 3);
  TsRecord *recs = calloc(B, sizeof *recs);
  TsRecord got;
  fill_batch(recs, B, 0);
  for (int i = 0; i < B; i++) {
    assert_int_equal(tsdb_get(db, recs[i].key, recs[i].key_len, &got, &err), TS_OK);
    assert_record_equal(&recs[i], &got);
  }
  fill_batch(recs, B, 2);
  assert_int_equal(tsdb_put_batch(db, recs, B, NULL, 0, &err), TS_OK);
  assert_int_equal(tsdb_count(db, &total, &err), TS_OK);
  assert_int_equal(total, 2 * B);
  tsdb_close(db);
  free(recs);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_roundtrip, setup, teardown),
      cmocka_unit_test_setup_teardown(test_overwrite_length, setup, teardown),
      cmocka_unit_test_setup_teardown(test_version1_file, setup, teardown),
      cmocka_unit_test_setup_teardown(test_map_growth, setup, teardown),
      cmocka_unit_test_setup_teardown(test_dictionary, setup, teardown),
      cmocka_unit_test_setup_teardown(test_meta_mismatch, setup, teardown),
      cmocka_unit_test_setup_teardown(test_foreign_file, setup, teardown),
      cmocka_unit_test_setup_teardown(test_lmdb_not_ours, setup, teardown),
      cmocka_unit_test_setup_teardown(test_corrupt_record, setup, teardown),
      cmocka_unit_test_setup_teardown(test_checkpoint, setup, teardown),
      cmocka_unit_test_setup_teardown(test_bad_args, setup, teardown),
      cmocka_unit_test_setup_teardown(test_reader_while_writing, setup, teardown),
      cmocka_unit_test_setup_teardown(test_sigkill_writer, setup, teardown),
      cmocka_unit_test_setup_teardown(test_full_disk, setup, teardown),
  };
  return cmocka_run_group_tests_name("db", tests, NULL, NULL);
}
