/*
 * bench_db.c - writes synthetic but realistic problem records through
 * tsdb_put_batch and reports puts/s, bytes per record and file size.
 *
 *   bench_db [-n records] [-b batch] [-d dir] [--sync] [--nodict]
 *
 * Defaults: 1,000,000 records in batches of 50,000, TSDB_NOSYNC, dictionary
 * on, a fresh file in a mkdtemp directory under /tmp (removed at the end).
 * Records: keys laid out as core/encode.h does (side, (square, piece) pairs,
 * 0xFF, two 3-byte hands; 4-7 pieces -> 16-22 bytes), odd main lines of
 * 5-25 moves around the defender's king, flags and root mates as an
 * enumerator would set them, an extension blob on one record in ten.
 */
#include <lmdb.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "tsdb.h"
#include "tsdb_codec.h"

static uint64_t rng_next(uint64_t *s) {
  *s ^= *s << 13;
  *s ^= *s >> 7;
  *s ^= *s << 17;
  return *s;
}
static unsigned rnd(uint64_t *s, unsigned n) { return (unsigned)(rng_next(s) % n); }

static int near(uint64_t *s, int sq) { /* a square within two files/ranks of sq */
  int f = sq / 9 + (int)rnd(s, 5) - 2, r = sq % 9 + (int)rnd(s, 5) - 2;
  f = f < 0 ? 0 : f > 8 ? 8 : f;
  r = r < 0 ? 0 : r > 8 ? 8 : r;
  return f * 9 + r;
}

static void make_record(TsRecord *r, uint64_t *s) {
  memset(r, 0, sizeof *r);
  int king = (int)rnd(s, 9) * 9 + (int)rnd(s, 3); /* defender king near the top */
  int npieces = 3 + (int)rnd(s, 4), sq[8], n = 0;
  sq[n++] = king;
  while (n < npieces + 1) {
    int x = near(s, king), dup = 0;
    for (int i = 0; i < n; i++) dup |= sq[i] == x;
    if (!dup) sq[n++] = x;
  }
  for (int i = 1; i < n; i++) /* sort squares (insertion) */
    for (int j = i; j > 0 && sq[j] < sq[j - 1]; j--) {
      int t = sq[j];
      sq[j] = sq[j - 1];
      sq[j - 1] = t;
    }
  size_t k = 0;
  r->key[k++] = 0;
  for (int i = 0; i < n; i++) {
    r->key[k++] = (uint8_t)sq[i];
    r->key[k++] = (uint8_t)(sq[i] == king ? 16 + 8 : (rnd(s, 4) ? 0 : 16) + 1 + rnd(s, 7));
  }
  r->key[k++] = 0xFF;
  uint32_t atk = rnd(s, 2) ? (uint32_t)(1 + rnd(s, 2)) << 9 : 0, def = 0x3c0000u | rnd(s, 1u << 16);
  for (int i = 0; i < 3; i++) r->key[k++] = (uint8_t)(atk >> (16 - 8 * i));
  for (int i = 0; i < 3; i++) r->key[k++] = (uint8_t)(def >> (16 - 8 * i));
  r->key_len = (uint8_t)k;

  unsigned len = 5 + 2 * rnd(s, 11); /* 5..25, odd */
  r->length = (uint16_t)len;
  r->line_len = (uint16_t)len;
  for (unsigned i = 0; i < len; i++) {
    unsigned from, to, promote = 0;
    if (i % 2) { /* defender: king steps (or interposes by a drop now and then) */
      to = (unsigned)near(s, king);
      from = rnd(s, 8) ? (unsigned)king : 81 + 1 + rnd(s, 7);
      if (from == (unsigned)king) king = (int)to;
    } else if (rnd(s, 5) < 2) { /* attacker drop next to the king */
      to = (unsigned)near(s, king);
      from = 81 + 3 + rnd(s, 5);
    } else {
      to = (unsigned)near(s, king);
      from = (unsigned)near(s, (int)to);
      promote = rnd(s, 5) == 0;
    }
    r->line[i] = (uint16_t)(to | from << 7 | promote << 14);
  }
  r->flags = TSDB_F_EXACT | (rnd(s, 3) ? TSDB_F_COMPLETE : TSDB_F_YOZUME | (rnd(s, 2) ? TSDB_F_LAST_MOVE_ALT : 0));
  if (rnd(s, 10) == 0) r->flags |= TSDB_F_KOMAAMARI;
  if (rnd(s, 2)) r->flags |= TSDB_F_MIRRORED;
  r->root_mates = (uint8_t)(rnd(s, 4) ? 1 : 2 + rnd(s, 3));
  if (rnd(s, 10) == 0) {
    r->flags |= TSDB_F_EXTENDED;
    r->ext_len = (uint8_t)(8 + rnd(s, 9));
    for (unsigned i = 0; i < r->ext_len; i++) r->ext[i] = (uint8_t)(rnd(s, 3) ? 0 : rng_next(s));
  }
}

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
  size_t total = 1000000, batch = 50000;
  const char *dir = NULL;
  unsigned flags = TSDB_CREATE | TSDB_NOSYNC;
  TsDbMeta meta = {.material = "G2S2"};
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "-n") && i + 1 < argc) total = strtoull(argv[++i], NULL, 10);
    else if (!strcmp(argv[i], "-b") && i + 1 < argc) batch = strtoull(argv[++i], NULL, 10);
    else if (!strcmp(argv[i], "-d") && i + 1 < argc) dir = argv[++i];
    else if (!strcmp(argv[i], "--sync")) flags &= ~TSDB_NOSYNC;
    else if (!strcmp(argv[i], "--nodict")) meta.dict_min_records = UINT32_MAX;
    else {
      fprintf(stderr, "usage: %s [-n records] [-b batch] [-d dir] [--sync] [--nodict]\n", argv[0]);
      return 2;
    }
  }
  char tmp[64] = "/tmp/bench_db_XXXXXX", path[1024], lock[1100];
  if (!dir && !(dir = mkdtemp(tmp))) {
    perror("mkdtemp");
    return 3;
  }
  snprintf(path, sizeof path, "%s/bench.mdb", dir);
  snprintf(lock, sizeof lock, "%s-lock", path);
  unlink(path);
  TsDb *db;
  TsError err;
  if (tsdb_open(path, flags, &meta, &db, &err)) {
    fprintf(stderr, "%s: %s\n", err.where, err.msg);
    return 3;
  }
  TsRecord *recs = malloc(batch * sizeof *recs);
  if (!recs) return 3;
  uint64_t s = 0x9e3779b97f4a7c15u;
  uint64_t key_bytes = 0, body_bytes = 0, raw_value_bytes = 0, lines = 0;
  uint8_t body[TSDB_BODY_MAX];
  double t_gen = 0, t_put = 0;
  for (size_t done = 0; done < total;) {
    size_t n = total - done < batch ? total - done : batch;
    double t0 = now();
    for (size_t i = 0; i < n; i++) {
      make_record(&recs[i], &s);
      size_t b = tsdb_record_body_write(&recs[i], body);
      key_bytes += recs[i].key_len;
      body_bytes += b;
      raw_value_bytes += 1 + (recs[i].length < 128 ? 1 : 2) + b;
      lines += recs[i].line_len;
    }
    double t1 = now();
    uint64_t ck = done + n;
    if (tsdb_put_batch(db, recs, n, &ck, sizeof ck, &err)) {
      fprintf(stderr, "%s: %s\n", err.where, err.msg);
      return 3;
    }
    t_put += now() - t1;
    t_gen += t1 - t0;
    done += n;
  }
  double t1 = now();
  if (tsdb_sync(db, &err)) return 3;
  t_put += now() - t1;
  TsDbStats st;
  if (tsdb_stats(db, &st, &err)) return 3;
  char copy[1100];
  snprintf(copy, sizeof copy, "%s/compact.mdb", dir);
  unlink(copy);
  double t2 = now();
  if (tsdb_copy(db, copy, &err)) {
    fprintf(stderr, "%s: %s\n", err.where, err.msg);
    return 3;
  }
  double t_copy = now() - t2;
  struct stat cs;
  if (stat(copy, &cs)) return 3;
  tsdb_close(db);

  /* stored value sizes, read back through LMDB */
  MDB_env *env;
  MDB_txn *txn;
  MDB_dbi dbi;
  MDB_cursor *c;
  MDB_val k, v;
  uint64_t stored = 0, nvals = 0, ndict = 0;
  MDB_stat ps, ls;
  mdb_env_create(&env);
  mdb_env_set_maxdbs(env, 4);
  if (mdb_env_open(env, path, MDB_NOSUBDIR | MDB_RDONLY, 0644)) return 3;
  mdb_txn_begin(env, NULL, MDB_RDONLY, &txn);
  mdb_dbi_open(txn, "prob", 0, &dbi);
  mdb_stat(txn, dbi, &ps);
  mdb_cursor_open(txn, dbi, &c);
  while (mdb_cursor_get(c, &k, &v, MDB_NEXT) == 0) {
    stored += v.mv_size;
    nvals++;
    ndict += ((uint8_t *)v.mv_data)[0] == TSDB_TAG_DICT;
  }
  mdb_cursor_close(c);
  MDB_dbi lbi;
  mdb_dbi_open(txn, "by_len", MDB_DUPSORT, &lbi);
  mdb_stat(txn, lbi, &ls);
  mdb_txn_abort(txn);
  mdb_env_close(env);

  double N = (double)total;
  printf("records written    %zu in batches of %zu (%s, dictionary %s)\n", total, batch,
         flags & TSDB_NOSYNC ? "NOSYNC + final sync" : "sync per commit",
         meta.dict_min_records == UINT32_MAX ? "off" : "on");
  printf("distinct keys      %llu\n", (unsigned long long)st.entries);
  printf("puts/s             %.0f (put_batch %.2f s, generation %.2f s not counted)\n",
         N / t_put, t_put, t_gen);
  printf("key bytes/record   %.1f\n", (double)key_bytes / N);
  printf("moves/record       %.1f\n", (double)lines / N);
  printf("body bytes/record  %.1f raw\n", (double)body_bytes / N);
  printf("value bytes/record %.1f raw, %.1f stored (%.1f%% dictionary-compressed, dict %u B)\n",
         (double)raw_value_bytes / N, (double)stored / (double)nvals,
         100.0 * (double)ndict / (double)nvals, st.dict_bytes);
  printf("prob pages         %llu (branch %llu, leaf %llu, overflow %llu), by_len pages %llu\n",
         (unsigned long long)(ps.ms_branch_pages + ps.ms_leaf_pages + ps.ms_overflow_pages),
         (unsigned long long)ps.ms_branch_pages, (unsigned long long)ps.ms_leaf_pages,
         (unsigned long long)ps.ms_overflow_pages,
         (unsigned long long)(ls.ms_branch_pages + ls.ms_leaf_pages + ls.ms_overflow_pages));
  printf("file size          %.1f MiB (%.1f MiB on disk), %.1f bytes/record on disk\n",
         (double)st.file_bytes / 1048576.0, (double)st.disk_bytes / 1048576.0,
         (double)st.disk_bytes / (double)st.entries);
  printf("compacted copy     %.1f MiB, %.1f bytes/record (tsdb_copy, %.2f s)\n",
         (double)cs.st_size / 1048576.0, (double)cs.st_size / (double)st.entries, t_copy);
  printf("map size           %.0f MiB\n", (double)st.map_size / 1048576.0);
  free(recs);
  if (dir == tmp) {
    unlink(path);
    unlink(lock);
    unlink(copy);
    rmdir(tmp);
  }
  return 0;
}
