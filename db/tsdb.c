/*
 * tsdb.c - LMDB environment, schema, batched writes and reads (tsdb.h).
 *
 * Transactions: every public call runs its own transaction. Reads reuse one
 * reset read transaction (mdb_txn_reset/renew keeps the reader slot); a
 * write call runs write_run(), which redoes the whole body after MDB_MAP_FULL
 * with a doubled map, and adopts a map grown by another process
 * (MDB_MAP_RESIZED).
 */
#include "tsdb.h"

#include <errno.h>
#include <fcntl.h>
#include <lmdb.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "tsdb_check.h"
#include "tsdb_codec.h"

#define META_MAGIC "tsdb.magic"
#define META_VERSION "tsdb.version"
#define META_MATERIAL "tsdb.material"
#define META_RULES "tsdb.rules"
#define META_DICT "tsdb.zdict"
#define META_CHECKPOINT "tsdb.checkpoint"
#define META_BATCHES "tsdb.batches"
#define META_PUTS "tsdb.puts"
#define MAGIC "tsume-db"
#define MAGIC_LEN 8

#define DICT_CAP (16 * 1024)          /* trained dictionary size */
#define DICT_SAMPLE_BYTES (2u << 20)  /* ~100x the dictionary, as zdict.h advises */
#define DICT_TRIES 3                  /* failed trainings per open before giving up */
#define DICT_MIN_GAIN_PCT 5           /* a dictionary must save this much, else stay raw */
#define DICT_GAIN_SAMPLE 4096         /* records compressed to measure the saving */
#define PATH_CAP 1024

struct TsDb {
  MDB_env *env;
  MDB_dbi prob, by_len, meta;
  unsigned flags;
  MDB_txn *rtxn; /* a reset read transaction kept for reuse, or NULL */
  int in_foreach;
  TsDbCodec *codec;
  uint32_t dict_min;
  int dict_tries;
  bool dict_decided; /* meta holds a dictionary, or the empty "stay raw" marker */
  int zstd_level;
  unsigned batches_since_drop; /* see drop_map_pages */
  uint32_t version;            /* the file's format version */
  char path[PATH_CAP];
};

/* ---- helpers ---- */

/*
 * A long run of write transactions reads the right edge of each tree through
 * LMDB's map at each start, and those clean pages of the file stay mapped into
 * the process: G2S2's 13.9 million records in batches of 5,000 left 600 MB of
 * the file in the resident set. Every 16 batches the process's mapping of the
 * file (found in /proc/self/maps by its inode: LMDB does not give its address)
 * is dropped; the pages stay in the page cache and a later read maps them
 * again, so the resident set shows the memory the process really holds.
 */
static void drop_map_now(TsDb *db);

static void drop_map_pages(TsDb *db) {
  if (++db->batches_since_drop < 16) return;
  db->batches_since_drop = 0;
  drop_map_now(db);
}

/* The process's mapping of the file dropped (its pages stay in the page cache). A reader going through
 * the whole file (tsdb_foreach) does it every FOREACH_DROP records, so a pass over a database larger than
 * the memory (a shard merged, an export) does not hold it all in its resident set. */
#define FOREACH_DROP ((uint64_t)1 << 20)
static void drop_map_now(TsDb *db) {
  struct stat st;
  if (stat(db->path, &st) != 0) return;
  FILE *f = fopen("/proc/self/maps", "r");
  if (!f) return;
  char line[4096];
  while (fgets(line, sizeof line, f)) {
    unsigned long lo, hi, ino;
    char perms[8];
    if (sscanf(line, "%lx-%lx %7s %*s %*s %lu", &lo, &hi, perms, &ino) != 4) continue;
    if (ino != (unsigned long)st.st_ino || perms[3] != 's') continue;
    (void)madvise((void *)lo, hi - lo, MADV_DONTNEED);
  }
  fclose(f);
}

static void be16_put(uint8_t *p, unsigned v) {
  p[0] = (uint8_t)(v >> 8);
  p[1] = (uint8_t)v;
}
static void be32_put(uint8_t *p, uint32_t v) {
  for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (24 - 8 * i));
}
static uint32_t be32_get(const uint8_t *p) {
  return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}
static void be64_put(uint8_t *p, uint64_t v) {
  for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (56 - 8 * i));
}
static uint64_t be64_get(const uint8_t *p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; i++) v = v << 8 | p[i];
  return v;
}

static MDB_val val_str(const char *s) { return (MDB_val){strlen(s), (void *)s}; }

/* LMDB codes are negative, errno values positive: file-system trouble is I/O. */
static int lmdb_error(const char *path, int rc, const char *what, TsError *err) {
  int code = rc > 0 ? (rc == ENOMEM ? TS_ERR_NOMEM : TS_ERR_IO) : TS_ERR_DB;
  return ts_error_set(err, code, path, 0, 0, "%s: %s", what, mdb_strerror(rc));
}

/*
 * LMDB reports a short write as EIO, which is what a full file system or the
 * file-size limit of the process (ulimit -f) gives: name the real cause when
 * the file system has (nearly) no room left or the file has reached the limit.
 */
uint64_t tsdb_disk_available(const char *path) {
  struct statvfs fs;
  if (statvfs(path, &fs)) return UINT64_MAX;
  return (uint64_t)fs.f_bavail * fs.f_frsize;
}

static int write_errno(const char *path, int rc) {
  if (rc != EIO) return rc;
  const uint64_t slack = (uint64_t)1 << 20;
  if (tsdb_disk_available(path) < slack) return ENOSPC;
  struct rlimit rl;
  struct stat st;
  if (getrlimit(RLIMIT_FSIZE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && stat(path, &st) == 0 &&
      (uint64_t)st.st_size + slack >= (uint64_t)rl.rlim_cur)
    return EFBIG;
  return rc;
}

static int rtxn_begin(TsDb *db, MDB_txn **txn, TsError *err) {
  if (db->rtxn) {
    MDB_txn *t = db->rtxn;
    db->rtxn = NULL;
    int rc = mdb_txn_renew(t);
    if (rc == 0) {
      *txn = t;
      return TS_OK;
    }
    mdb_txn_abort(t);
    if (rc == MDB_MAP_RESIZED) mdb_env_set_mapsize(db->env, 0);
    else return lmdb_error(db->path, rc, "cannot start a read transaction", err);
  }
  for (int tries = 0;; tries++) {
    int rc = mdb_txn_begin(db->env, NULL, MDB_RDONLY, txn);
    if (rc == 0) return TS_OK;
    if (rc != MDB_MAP_RESIZED || tries > 8)
      return lmdb_error(db->path, rc, "cannot start a read transaction", err);
    mdb_env_set_mapsize(db->env, 0); /* adopt the size another process set */
  }
}

static void rtxn_end(TsDb *db, MDB_txn *txn) {
  if (db->rtxn) {
    mdb_txn_abort(txn);
    return;
  }
  mdb_txn_reset(txn);
  db->rtxn = txn;
}

static int meta_get(MDB_txn *txn, TsDb *db, const char *name, MDB_val *v) {
  MDB_val k = val_str(name);
  return mdb_get(txn, db->meta, &k, v);
}

static int meta_put(MDB_txn *txn, TsDb *db, const char *name, const void *data, size_t len) {
  MDB_val k = val_str(name), v = {len, (void *)data};
  return mdb_put(txn, db->meta, &k, &v, 0);
}

/*
 * Loads the dictionary decision of the database: "tsdb.zdict" absent = not
 * decided yet, empty = records stay raw (a trained dictionary did not pay),
 * otherwise the dictionary itself.
 */
static int dict_ensure(TsDb *db, MDB_txn *txn, TsError *err) {
  if (db->dict_decided) return TS_OK;
  MDB_val v;
  int rc = meta_get(txn, db, META_DICT, &v);
  if (rc == MDB_NOTFOUND) return TS_OK;
  if (rc) return lmdb_error(db->path, rc, "cannot read the zstd dictionary", err);
  if (v.mv_size && (rc = tsdb_codec_dict_set(db->codec, v.mv_data, v.mv_size, db->path, err)))
    return rc;
  db->dict_decided = true;
  return TS_OK;
}

/* Drops a loaded dictionary (one that was not committed). */
static void dict_forget(TsDb *db) {
  TsDbCodec *fresh;
  db->dict_decided = false;
  if (tsdb_codec_has_dict(db->codec) && tsdb_codec_create(db->zstd_level, &fresh, NULL) == TS_OK) {
    tsdb_codec_free(db->codec);
    db->codec = fresh;
  }
}

static int value_decode(TsDb *db, MDB_txn *txn, const MDB_val *v, TsRecord *r, TsError *err) {
  if (tsdb_value_needs_dict(v->mv_data, v->mv_size)) {
    int rc = dict_ensure(db, txn, err);
    if (rc) return rc;
  }
  return tsdb_codec_decode(db->codec, v->mv_data, v->mv_size, r, db->path, err);
}

/*
 * Runs body(txn, ctx) in a write transaction and commits. On MDB_MAP_FULL
 * (from a put or from the commit) the map is doubled and body redone from
 * scratch; body must therefore not change anything outside the transaction.
 * body returns an LMDB code (rc) or sets *ts to a TS_ERR_* code.
 */
typedef int (*WriteBody)(TsDb *db, MDB_txn *txn, void *ctx, int *ts, TsError *err);

static int write_run(TsDb *db, WriteBody body, void *ctx, TsError *err) {
  if (db->flags & TSDB_RDONLY)
    return ts_error_set(err, TS_ERR_USAGE, db->path, 0, 0, "database opened read-only");
  if (db->in_foreach)
    return ts_error_set(err, TS_ERR_USAGE, db->path, 0, 0, "cannot write from a foreach callback");
  for (int resized = 0;;) {
    MDB_txn *txn;
    int rc = mdb_txn_begin(db->env, NULL, 0, &txn);
    if (rc == MDB_MAP_RESIZED && resized++ < 8) {
      mdb_env_set_mapsize(db->env, 0);
      continue;
    }
    if (rc) return lmdb_error(db->path, rc, "cannot start a write transaction", err);
    int ts = TS_OK;
    rc = body(db, txn, ctx, &ts, err);
    if (rc || ts) {
      mdb_txn_abort(txn);
      if (ts) return ts;
    } else {
      rc = mdb_txn_commit(txn); /* frees txn even when it fails */
    }
    if (rc == MDB_MAP_FULL) {
      MDB_envinfo info;
      mdb_env_info(db->env, &info);
      size_t bigger = info.me_mapsize * 2;
      if (bigger < info.me_mapsize) return lmdb_error(db->path, rc, "map cannot grow", err);
      int rc2 = mdb_env_set_mapsize(db->env, bigger);
      if (rc2) return lmdb_error(db->path, rc2, "cannot grow the map", err);
      continue;
    }
    if (rc == MDB_TXN_FULL)
      return ts_error_set(err, TS_ERR_DB, db->path, 0, 0,
                          "batch too large for one transaction; write smaller batches");
    if (rc) return lmdb_error(db->path, write_errno(db->path, rc), "write failed", err);
    return TS_OK;
  }
}

/* ---- open / close ---- */

static int schema_create(TsDb *db, MDB_txn *txn, const TsDbMeta *meta) {
  int rc;
  uint8_t b4[4];
  if ((rc = mdb_dbi_open(txn, "meta", MDB_CREATE, &db->meta))) return rc;
  if ((rc = mdb_dbi_open(txn, "prob", MDB_CREATE, &db->prob))) return rc;
  if ((rc = mdb_dbi_open(txn, "by_len", MDB_CREATE | MDB_DUPSORT, &db->by_len))) return rc;
  if ((rc = meta_put(txn, db, META_MAGIC, MAGIC, MAGIC_LEN))) return rc;
  be32_put(b4, TSDB_FORMAT_VERSION);
  db->version = TSDB_FORMAT_VERSION;
  if ((rc = meta_put(txn, db, META_VERSION, b4, 4))) return rc;
  if ((rc = meta_put(txn, db, META_MATERIAL, meta->material, strlen(meta->material)))) return rc;
  be32_put(b4, meta->rule_options);
  return meta_put(txn, db, META_RULES, b4, 4);
}

/* Checks magic, version and meta of an existing database; opens its tables. */
static int schema_check(TsDb *db, MDB_txn *txn, const TsDbMeta *want, TsError *err) {
  MDB_val v;
  int rc = meta_get(txn, db, META_MAGIC, &v);
  if (rc == MDB_NOTFOUND || (rc == 0 && (v.mv_size != MAGIC_LEN || memcmp(v.mv_data, MAGIC, MAGIC_LEN))))
    return ts_error_set(err, TS_ERR_DB, db->path, 0, 0,
                        "an LMDB database but not a tsume database (no \"%s\" magic)", MAGIC);
  if (rc) return lmdb_error(db->path, rc, "cannot read the meta table", err);
  rc = meta_get(txn, db, META_VERSION, &v);
  if (rc || v.mv_size != 4)
    return ts_error_set(err, TS_ERR_DB, db->path, 0, 0, "corrupt meta table: no format version");
  uint32_t version = be32_get(v.mv_data);
  if (version > TSDB_FORMAT_VERSION)
    return ts_error_set(err, TS_ERR_DB, db->path, 0, 0,
                        "database format version %u is newer than this program reads (%u)",
                        version, TSDB_FORMAT_VERSION);
  if (version < 1)
    return ts_error_set(err, TS_ERR_DB, db->path, 0, 0, "unknown database format version %u",
                        version);
  db->version = version;
  char material[TSDB_MATERIAL_MAX];
  rc = meta_get(txn, db, META_MATERIAL, &v);
  if (rc || v.mv_size >= TSDB_MATERIAL_MAX || memchr(v.mv_data, 0, v.mv_size))
    return ts_error_set(err, TS_ERR_DB, db->path, 0, 0, "corrupt meta table: bad material");
  memcpy(material, v.mv_data, v.mv_size);
  material[v.mv_size] = 0;
  rc = meta_get(txn, db, META_RULES, &v);
  if (rc || v.mv_size != 4)
    return ts_error_set(err, TS_ERR_DB, db->path, 0, 0, "corrupt meta table: bad rule options");
  uint32_t rules = be32_get(v.mv_data);
  if (want && (strcmp(want->material, material) || want->rule_options != rules))
    return ts_error_set(err, TS_ERR_DB, db->path, 0, 0,
                        "database holds material \"%s\" with rule options 0x%x, but material "
                        "\"%s\" with rule options 0x%x was asked for",
                        material, rules, want->material, want->rule_options);
  if ((rc = mdb_dbi_open(txn, "prob", 0, &db->prob)) ||
      (rc = mdb_dbi_open(txn, "by_len", MDB_DUPSORT, &db->by_len)))
    return ts_error_set(err, TS_ERR_DB, db->path, 0, 0, "corrupt tsume database: table missing: %s",
                        mdb_strerror(rc));
  return dict_ensure(db, txn, err);
}

static int schema_open(TsDb *db, const TsDbMeta *meta, TsError *err) {
  bool rdonly = db->flags & TSDB_RDONLY;
  MDB_txn *txn;
  int rc;
  for (int tries = 0;; tries++) {
    rc = mdb_txn_begin(db->env, NULL, rdonly ? MDB_RDONLY : 0, &txn);
    if (rc != MDB_MAP_RESIZED || tries > 8) break;
    mdb_env_set_mapsize(db->env, 0);
  }
  if (rc) return lmdb_error(db->path, rc, "cannot start a transaction", err);
  int ts = TS_OK;
  rc = mdb_dbi_open(txn, "meta", 0, &db->meta);
  if (rc == MDB_NOTFOUND && !rdonly && (db->flags & TSDB_CREATE)) {
    /* create the schema only in an LMDB file that holds nothing else */
    MDB_dbi main_dbi;
    MDB_stat st;
    rc = mdb_dbi_open(txn, NULL, 0, &main_dbi);
    if (!rc) rc = mdb_stat(txn, main_dbi, &st);
    if (!rc && st.ms_entries == 0) {
      if (!meta)
        ts = ts_error_set(err, TS_ERR_USAGE, db->path, 0, 0, "creating a database needs its meta");
      else
        rc = schema_create(db, txn, meta);
    } else if (!rc) {
      ts = ts_error_set(err, TS_ERR_DB, db->path, 0, 0,
                        "an LMDB database but not a tsume database (no meta table)");
    }
  } else if (rc == MDB_NOTFOUND || rc == MDB_INCOMPATIBLE) {
    ts = ts_error_set(err, TS_ERR_DB, db->path, 0, 0,
                      "an LMDB database but not a tsume database (no meta table)");
  } else if (!rc) {
    ts = schema_check(db, txn, meta, err);
  }
  if (rc || ts) {
    mdb_txn_abort(txn);
    return ts ? ts : lmdb_error(db->path, rc, "cannot open the tables", err);
  }
  rc = mdb_txn_commit(txn); /* keeps the table handles for later transactions */
  if (rc) return lmdb_error(db->path, rc, "cannot open the tables", err);
  return TS_OK;
}

/* Bytes of the lock file allocated before LMDB maps it: its reader table
 * (126 readers of 64 bytes) and header. */
#define TSDB_LOCK_BYTES 16384

int tsdb_open(const char *path, unsigned flags, const TsDbMeta *meta, TsDb **out, TsError *err) {
  *out = NULL;
  const char *where = path ? path : "tsdb";
  if (!path || !*path)
    return ts_error_set(err, TS_ERR_USAGE, where, 0, 0, "no database path given");
  if (flags & ~(TSDB_CREATE | TSDB_RDONLY | TSDB_NOSYNC))
    return ts_error_set(err, TS_ERR_USAGE, where, 0, 0, "unknown open flags 0x%x", flags);
  if ((flags & TSDB_CREATE) && (flags & TSDB_RDONLY))
    return ts_error_set(err, TS_ERR_USAGE, where, 0, 0, "cannot create a database read-only");
  if (meta && !memchr(meta->material, 0, sizeof meta->material))
    return ts_error_set(err, TS_ERR_USAGE, where, 0, 0, "material string not terminated");
  if (strlen(path) + 6 > PATH_CAP)
    return ts_error_set(err, TS_ERR_USAGE, where, 0, 0, "database path too long");

  struct stat st;
  bool exists = stat(path, &st) == 0;
  if (!exists && errno != ENOENT)
    return ts_error_set(err, TS_ERR_IO, path, 0, 0, "cannot stat: %s", strerror(errno));
  if (!exists && !(flags & TSDB_CREATE))
    return ts_error_set(err, TS_ERR_IO, path, 0, 0, "no such database file");
  if (exists && !S_ISREG(st.st_mode))
    return ts_error_set(err, TS_ERR_IO, path, 0, 0, "not a regular file (give the .mdb file)");
  if (exists && st.st_size == 0 && !(flags & TSDB_CREATE))
    return ts_error_set(err, TS_ERR_DB, path, 0, 0, "empty file, not a tsume database");
  if ((!exists || st.st_size == 0) && !meta)
    return ts_error_set(err, TS_ERR_USAGE, path, 0, 0, "creating a database needs its meta");

  /* LMDB trusts the meta pages and maps the file as long as they say: a
   * damaged meta page or a file cut short would crash the first read. */
  if (exists && st.st_size > 0) {
    int hc = tsdb_check_header(path, err);
    if (hc) return hc;
  }

  TsDb *db = calloc(1, sizeof *db);
  if (!db) return ts_error_set(err, TS_ERR_NOMEM, path, 0, 0, "out of memory");
  snprintf(db->path, sizeof db->path, "%s", path);
  db->flags = flags;
  db->dict_min = meta && meta->dict_min_records ? meta->dict_min_records
                                                 : TSDB_DICT_MIN_RECORDS_DEFAULT;
  db->zstd_level = meta ? meta->zstd_level : 0;
  int ts = tsdb_codec_create(db->zstd_level, &db->codec, err);
  if (ts) {
    free(db);
    return ts;
  }

  char lock[PATH_CAP];
  snprintf(lock, sizeof lock, "%s-lock", path);
  bool lock_existed = access(lock, F_OK) == 0;
  size_t map = meta && meta->map_size ? meta->map_size : TSDB_MAP_SIZE_DEFAULT;
  unsigned mflags = MDB_NOSUBDIR | MDB_NOTLS;
  if (flags & TSDB_RDONLY) mflags |= MDB_RDONLY;
  /* The lock file is made here, its blocks allocated: LMDB maps it sparse, and
   * touching an unbacked page of it on a full disk kills the process (SIGBUS).
   * A reader that may not create or write it (a folder it can only read, a
   * full disk) reads without one; LMDB would refuse the open. */
  int lfd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (lfd < 0 && (flags & TSDB_RDONLY) && (errno == EACCES || errno == EPERM || errno == EROFS)) {
    mflags |= MDB_NOLOCK;
  } else if (lfd < 0) {
    ts = ts_error_set(err, TS_ERR_IO, lock, 0, 0, "cannot open the lock file: %s", strerror(errno));
  } else {
    int e = posix_fallocate(lfd, 0, TSDB_LOCK_BYTES);
    close(lfd);
    if (e == EOPNOTSUPP || e == EINVAL) e = 0; /* no allocation on this file system: as before */
    if (e && (flags & TSDB_RDONLY)) {
      if (!lock_existed) unlink(lock);
      mflags |= MDB_NOLOCK;
    } else if (e) {
      ts = ts_error_set(err, TS_ERR_IO, lock, 0, 0, "cannot allocate the lock file: %s", strerror(e));
    }
  }
  if (ts) {
    tsdb_close(db);
    if (!lock_existed) unlink(lock);
    return ts;
  }
  if (flags & TSDB_NOSYNC) mflags |= MDB_NOSYNC;
  int rc = mdb_env_create(&db->env);
  if (!rc) rc = mdb_env_set_maxdbs(db->env, 4);
  if (!rc) rc = mdb_env_set_mapsize(db->env, map);
  if (!rc) rc = mdb_env_open(db->env, path, mflags, 0644);
  if (rc == MDB_INVALID)
    ts = ts_error_set(err, TS_ERR_DB, path, 0, 0, "not an LMDB database");
  else if (rc == MDB_VERSION_MISMATCH)
    ts = ts_error_set(err, TS_ERR_DB, path, 0, 0, "LMDB version mismatch: %s", mdb_strerror(rc));
  else if (rc)
    ts = lmdb_error(path, rc, "cannot open", err);
  if (!ts) {
    int dead;
    mdb_reader_check(db->env, &dead); /* free slots of killed readers */
    ts = schema_open(db, meta, err);
  }
  if (ts) {
    tsdb_close(db);
    if (!lock_existed) unlink(lock); /* leave no trace beside a foreign file */
    return ts;
  }
  *out = db;
  return TS_OK;
}

void tsdb_close(TsDb *db) {
  if (!db) return;
  if (db->rtxn) mdb_txn_abort(db->rtxn);
  if (db->env) mdb_env_close(db->env);
  tsdb_codec_free(db->codec);
  free(db);
}

int tsdb_sync(TsDb *db, TsError *err) {
  if (db->flags & TSDB_RDONLY) return TS_OK;
  int rc = mdb_env_sync(db->env, 1);
  return rc ? lmdb_error(db->path, rc, "sync failed", err) : TS_OK;
}

int tsdb_meta_get(TsDb *db, TsDbMeta *meta, TsError *err) {
  memset(meta, 0, sizeof *meta);
  MDB_txn *txn;
  int ts = rtxn_begin(db, &txn, err);
  if (ts) return ts;
  MDB_val v;
  int rc = meta_get(txn, db, META_MATERIAL, &v);
  if (!rc && v.mv_size < TSDB_MATERIAL_MAX) memcpy(meta->material, v.mv_data, v.mv_size);
  if (!rc) rc = meta_get(txn, db, META_RULES, &v);
  if (!rc && v.mv_size == 4) meta->rule_options = be32_get(v.mv_data);
  rtxn_end(db, txn);
  return rc ? lmdb_error(db->path, rc, "cannot read the meta table", err) : TS_OK;
}

/* ---- writes ---- */

typedef struct {
  const TsRecord *r;
  size_t index;
} BatchItem;

/* LMDB's default order: memcmp over the common part, then shorter first. */
static int key_cmp(const TsRecord *x, const TsRecord *y) {
  size_t n = x->key_len < y->key_len ? x->key_len : y->key_len;
  int c = memcmp(x->key, y->key, n);
  if (c) return c;
  return (x->key_len > y->key_len) - (x->key_len < y->key_len);
}

static int item_cmp(const void *a, const void *b) {
  const BatchItem *x = a, *y = b;
  int c = key_cmp(x->r, y->r);
  return c ? c : (x->index > y->index) - (x->index < y->index);
}

typedef struct {
  BatchItem *items; /* unique keys, sorted */
  size_t n;
  uint8_t *values; /* encoded values, back to back */
  size_t *offset;  /* n + 1 offsets into values */
  const uint8_t *new_dict; /* decision to store with the batch, or NULL */
  size_t new_dict_len;     /* 0: the "stay raw" marker */
  const void *checkpoint;
  size_t checkpoint_len;
  size_t puts;
  bool dict_conflict; /* another writer stored a dictionary first */
} Batch;

static int batch_encode(TsDb *db, Batch *b, TsError *err) {
  size_t cap = b->n * 48 + TSDB_VALUE_MAX, used = 0;
  uint8_t *vals = realloc(b->values, cap);
  if (!vals) return ts_error_set(err, TS_ERR_NOMEM, db->path, 0, 0, "out of memory for a batch");
  b->values = vals;
  for (size_t i = 0; i < b->n; i++) {
    if (cap - used < TSDB_VALUE_MAX) {
      cap *= 2;
      vals = realloc(b->values, cap);
      if (!vals) return ts_error_set(err, TS_ERR_NOMEM, db->path, 0, 0, "out of memory for a batch");
      b->values = vals;
    }
    size_t len;
    b->offset[i] = used;
    tsdb_codec_encode(db->codec, b->items[i].r, b->values + used, &len);
    used += len;
  }
  b->offset[b->n] = used;
  return TS_OK;
}

/* Trains a dictionary from the bodies of this batch; *out is malloc'd.
 * Returns its size, 0 when zstd could not train one. */
static size_t batch_train(Batch *b, uint8_t **out) {
  size_t n = b->n, total = 0, k = 0;
  uint8_t *samples = malloc(DICT_SAMPLE_BYTES + TSDB_BODY_MAX);
  size_t *sizes = malloc(n * sizeof *sizes);
  uint8_t *dict = malloc(DICT_CAP);
  size_t len = 0;
  if (samples && sizes && dict) {
    /* spread the samples over the whole (sorted) batch */
    size_t step = 1;
    while (n / step * 40 > DICT_SAMPLE_BYTES) step++;
    for (size_t i = 0; i < n && total < DICT_SAMPLE_BYTES; i += step) {
      size_t s = tsdb_record_body_write(b->items[i].r, samples + total);
      if (s < 8) continue; /* zdict ignores tiny samples */
      sizes[k++] = s;
      total += s;
    }
    if (k >= 1000) len = tsdb_dict_train(dict, DICT_CAP, samples, sizes, (unsigned)k);
  }
  free(samples);
  free(sizes);
  if (!len) {
    free(dict);
    dict = NULL;
  }
  *out = dict;
  return len;
}

static int put_u64_add(MDB_txn *txn, TsDb *db, const char *name, uint64_t add) {
  MDB_val v;
  uint64_t x = 0;
  int rc = meta_get(txn, db, name, &v);
  if (rc == 0 && v.mv_size == 8) x = be64_get(v.mv_data);
  else if (rc && rc != MDB_NOTFOUND) return rc;
  uint8_t b[8];
  be64_put(b, x + add);
  return meta_put(txn, db, name, b, 8);
}

/* Whether by_len lists the records of this length (TSDB_UNLISTED_LENGTH). */
static bool listed(const TsDb *db, unsigned length) {
  return db->version < 2 || length != TSDB_UNLISTED_LENGTH;
}

/* Removes key from by_len under whatever length lists it (old record unreadable). */
static int by_len_purge(MDB_txn *txn, TsDb *db, MDB_val *key) {
  MDB_cursor *c;
  int rc = mdb_cursor_open(txn, db->by_len, &c);
  if (rc) return rc;
  uint8_t *lens = malloc(2 * 65536), *p = lens;
  if (!lens) {
    mdb_cursor_close(c);
    return ENOMEM;
  }
  MDB_val k, v;
  for (rc = mdb_cursor_get(c, &k, &v, MDB_FIRST); rc == 0; rc = mdb_cursor_get(c, &k, &v, MDB_NEXT_NODUP))
    if (k.mv_size == 2) {
      memcpy(p, k.mv_data, 2);
      p += 2;
    }
  mdb_cursor_close(c); /* no cursor open while deleting */
  if (rc == MDB_NOTFOUND) rc = 0;
  for (uint8_t *q = lens; q < p && !rc; q += 2) {
    MDB_val lk = {2, q}, kv = *key;
    rc = mdb_del(txn, db->by_len, &lk, &kv);
    if (rc == MDB_NOTFOUND) rc = 0;
  }
  free(lens);
  return rc;
}

/*
 * The index entries of an appended batch: every key is beyond the stored
 * ones, so each goes at the end of its length's list. They are put one length
 * at a time, in key order, through one cursor: the pages of that list stay
 * at hand, where a put per record in key order would go from list to list.
 */
static int by_len_append(MDB_txn *txn, TsDb *db, Batch *b) {
  /* a counting sort by length, stable (key order within a length), of the listed records */
  uint16_t lo = UINT16_MAX, hi = 0;
  size_t n = 0;
  for (size_t i = 0; i < b->n; i++) {
    uint16_t L = b->items[i].r->length;
    if (!listed(db, L)) continue;
    n++;
    if (L < lo) lo = L;
    if (L > hi) hi = L;
  }
  if (!n) return 0;
  size_t *order = malloc(n * sizeof *order);
  size_t span = (size_t)hi - lo + 1;
  size_t *start = calloc(span + 1, sizeof *start);
  if (!order || !start) {
    free(order);
    free(start);
    return ENOMEM;
  }
  for (size_t i = 0; i < b->n; i++)
    if (listed(db, b->items[i].r->length)) start[b->items[i].r->length - lo + 1]++;
  for (size_t L = 1; L <= span; L++) start[L] += start[L - 1];
  for (size_t i = 0; i < b->n; i++)
    if (listed(db, b->items[i].r->length)) order[start[b->items[i].r->length - lo]++] = i;
  free(start);
  MDB_cursor *c = NULL;
  int rc = mdb_cursor_open(txn, db->by_len, &c);
  for (size_t j = 0; j < n && !rc; j++) {
    const TsRecord *r = b->items[order[j]].r;
    uint8_t lk[2];
    be16_put(lk, r->length);
    MDB_val lkv = {2, lk}, kv = {r->key_len, (void *)r->key};
    rc = mdb_cursor_put(c, &lkv, &kv, MDB_APPENDDUP);
  }
  if (c) mdb_cursor_close(c);
  free(order);
  return rc;
}

static int batch_body(TsDb *db, MDB_txn *txn, void *ctx, int *ts, TsError *err) {
  Batch *b = ctx;
  int rc;
  if (b->new_dict) {
    MDB_val v;
    rc = meta_get(txn, db, META_DICT, &v);
    if (rc == 0) { /* another process decided meanwhile: adopt theirs */
      dict_forget(db);
      *ts = dict_ensure(db, txn, err);
      if (!*ts) { /* abort; the caller re-encodes the batch */
        b->dict_conflict = true;
        *ts = TS_ERR_DB;
      }
      return 0;
    }
    if (rc != MDB_NOTFOUND) return rc;
    if ((rc = meta_put(txn, db, META_DICT, b->new_dict, b->new_dict_len))) return rc;
  }
  MDB_cursor *cur;
  if ((rc = mdb_cursor_open(txn, db->prob, &cur))) return rc;
  /* A batch wholly beyond the last key (key-ordered generation, design.md
   * §8) is appended: no lookups, and pages are filled to the brim. */
  bool append = false;
  if (b->n) {
    MDB_val lastk, lastv;
    rc = mdb_cursor_get(cur, &lastk, &lastv, MDB_LAST);
    if (rc == MDB_NOTFOUND) {
      append = true;
    } else if (rc == 0) {
      const TsRecord *first = b->items[0].r;
      size_t m = lastk.mv_size < first->key_len ? lastk.mv_size : first->key_len;
      int c = memcmp(first->key, lastk.mv_data, m);
      append = c > 0 || (c == 0 && first->key_len > lastk.mv_size);
    }
    rc = rc == MDB_NOTFOUND ? 0 : rc;
  }
  for (size_t i = 0; i < b->n && !rc; i++) {
    const TsRecord *r = b->items[i].r;
    MDB_val k = {r->key_len, (void *)r->key}, old;
    MDB_val v = {b->offset[i + 1] - b->offset[i], b->values + b->offset[i]};
    uint8_t lk[2];
    rc = append ? MDB_NOTFOUND : mdb_cursor_get(cur, &k, &old, MDB_SET_KEY);
    bool same_len = false; /* an overwrite of the same length: its index entry, if any, stands */
    if (rc == 0) {
      uint16_t old_len;
      if (tsdb_value_length(old.mv_data, old.mv_size, &old_len, db->path, NULL) == TS_OK) {
        be16_put(lk, old_len);
        MDB_val lkv = {2, lk}, kv = {r->key_len, (void *)r->key};
        if (old_len == r->length) {
          same_len = true;
        } else if (listed(db, old_len)) {
          rc = mdb_del(txn, db->by_len, &lkv, &kv);
          if (rc == MDB_NOTFOUND) rc = by_len_purge(txn, db, &kv);
        }
      } else { /* old record unreadable: find its by_len entry the slow way */
        MDB_val kv = {r->key_len, (void *)r->key};
        rc = by_len_purge(txn, db, &kv);
      }
    } else if (rc == MDB_NOTFOUND) {
      rc = 0;
    }
    if (rc) break;
    /* appended, the index by length is written after the batch, a length at a time */
    if (!same_len && !append && listed(db, r->length)) {
      be16_put(lk, r->length);
      MDB_val lkv = {2, lk}, kv = {r->key_len, (void *)r->key};
      rc = mdb_put(txn, db->by_len, &lkv, &kv, MDB_NODUPDATA);
      if (rc == MDB_KEYEXIST) rc = 0;
      if (rc) break;
    }
    k = (MDB_val){r->key_len, (void *)r->key};
    rc = mdb_cursor_put(cur, &k, &v, append ? MDB_APPEND : 0);
  }
  mdb_cursor_close(cur);
  if (!rc && append) rc = by_len_append(txn, db, b);
  if (rc) return rc;
  if ((rc = put_u64_add(txn, db, META_BATCHES, 1))) return rc;
  if ((rc = put_u64_add(txn, db, META_PUTS, b->puts))) return rc;
  if (b->checkpoint && (rc = meta_put(txn, db, META_CHECKPOINT, b->checkpoint, b->checkpoint_len)))
    return rc;
  return 0;
}

/*
 * Trains a dictionary on this batch and keeps it only when it makes the
 * values at least DICT_MIN_GAIN_PCT smaller (measured on a sample of the
 * batch); otherwise the empty marker is stored and records stay raw for
 * good, which saves the compression attempt on every later record.
 */
static int dict_decide(TsDb *db, Batch *b, uint8_t **dict, TsError *err) {
  size_t len = batch_train(b, dict);
  if (!len) { /* too few or too small samples: try a later batch */
    db->dict_tries++;
    return TS_OK;
  }
  int ts = tsdb_codec_dict_set(db->codec, *dict, len, db->path, err);
  if (ts) return ts;
  uint64_t raw = 0, packed = 0;
  uint8_t v[TSDB_VALUE_MAX];
  size_t step = b->n / DICT_GAIN_SAMPLE + 1;
  for (size_t i = 0; i < b->n; i += step) {
    size_t vlen;
    tsdb_codec_encode(db->codec, b->items[i].r, v, &vlen);
    packed += vlen;
    raw += tsdb_record_raw_size(b->items[i].r);
  }
  b->new_dict = *dict;
  b->new_dict_len = len;
  db->dict_decided = true;
  if (packed * 100 > raw * (100 - DICT_MIN_GAIN_PCT)) {
    dict_forget(db); /* not worth it: store the "stay raw" marker */
    db->dict_decided = true;
    b->new_dict_len = 0;
  }
  return TS_OK;
}

int tsdb_put_batch(TsDb *db, const TsRecord *records, size_t n, const void *checkpoint,
                   size_t blob_len, TsError *err) {
  if (n && !records) return ts_error_set(err, TS_ERR_USAGE, db->path, 0, 0, "no records given");
  if (db->flags & TSDB_RDONLY)
    return ts_error_set(err, TS_ERR_USAGE, db->path, 0, 0, "database opened read-only");
  for (size_t i = 0; i < n; i++) {
    TsError e;
    int ts = tsdb_record_check(&records[i], &e);
    if (ts) return ts_error_set(err, ts, db->path, 0, 0, "record %zu: %s", i, e.msg);
  }
  Batch b = {.checkpoint = checkpoint, .checkpoint_len = blob_len, .puts = n};
  b.items = malloc((n ? n : 1) * sizeof *b.items);
  b.offset = malloc((n + 1) * sizeof *b.offset);
  uint8_t *dict = NULL;
  int ts = TS_OK;
  if (!b.items || !b.offset) {
    ts = ts_error_set(err, TS_ERR_NOMEM, db->path, 0, 0, "out of memory for a batch");
    goto done;
  }
  for (size_t i = 0; i < n; i++) b.items[i] = (BatchItem){&records[i], i};
  /* the bulk writer gives keys strictly in order: nothing to sort or drop then */
  bool sorted = true;
  for (size_t i = 1; i < n && sorted; i++) sorted = key_cmp(&records[i - 1], &records[i]) < 0;
  if (sorted) {
    b.n = n;
  } else {
    qsort(b.items, n, sizeof *b.items, item_cmp);
    for (size_t i = 0; i < n; i++) { /* keep the last record of each key */
      if (i + 1 < n && key_cmp(b.items[i].r, b.items[i + 1].r) == 0) continue;
      b.items[b.n++] = b.items[i];
    }
  }
  if (!db->dict_decided && b.n >= db->dict_min && db->dict_tries < DICT_TRIES) {
    MDB_txn *txn; /* a decision stored by another process comes first */
    if ((ts = rtxn_begin(db, &txn, err))) goto done;
    ts = dict_ensure(db, txn, err);
    rtxn_end(db, txn);
    if (ts) goto done;
    if (!db->dict_decided && (ts = dict_decide(db, &b, &dict, err))) goto done;
  }
  for (;;) {
    if ((ts = batch_encode(db, &b, err))) goto done;
    ts = write_run(db, batch_body, &b, err);
    if (!ts) drop_map_pages(db);
    if (b.dict_conflict) { /* re-encode with the dictionary stored meanwhile */
      b.new_dict = NULL;
      b.dict_conflict = false;
      ts_error_clear(err);
      continue;
    }
    break;
  }
done:
  if (ts && b.new_dict) dict_forget(db); /* not committed: records must not use it */
  free(dict);
  free(b.items);
  free(b.offset);
  free(b.values);
  return ts;
}

/* ---- reads ---- */

static int key_check(TsDb *db, const uint8_t *key, size_t len, TsError *err) {
  if (!key || len < 1 || len > TSDB_KEY_MAX)
    return ts_error_set(err, TS_ERR_USAGE, db->path, 0, 0, "key length %zu not in 1..%d", len,
                        TSDB_KEY_MAX);
  return TS_OK;
}

int tsdb_get(TsDb *db, const uint8_t *key, size_t key_len, TsRecord *rec, TsError *err) {
  int ts = key_check(db, key, key_len, err);
  if (ts) return ts;
  MDB_txn *txn;
  if ((ts = rtxn_begin(db, &txn, err))) return ts;
  MDB_val k = {key_len, (void *)key}, v;
  int rc = mdb_get(txn, db->prob, &k, &v);
  if (rc == MDB_NOTFOUND)
    ts = ts_error_set(err, TS_ERR_NOTFOUND, db->path, 0, 0, "no record for this key");
  else if (rc)
    ts = lmdb_error(db->path, rc, "read failed", err);
  else
    ts = value_decode(db, txn, &v, rec, err);
  rtxn_end(db, txn);
  if (ts) return ts;
  memcpy(rec->key, key, key_len);
  rec->key_len = (uint8_t)key_len;
  return TS_OK;
}

static int foreach_txn(TsDb *db, MDB_txn *txn, int length, TsDbForeachFn fn, void *ctx,
                       TsRecord *rec, TsError *err) {
  /* every record, or those of one length: listed by by_len, or picked out of a scan */
  bool scan = length < 0 || !listed(db, (unsigned)length);
  MDB_cursor *c;
  int rc = mdb_cursor_open(txn, scan ? db->prob : db->by_len, &c);
  if (rc) return lmdb_error(db->path, rc, "cannot open a cursor", err);
  int ts = TS_OK;
  MDB_val k, v;
  uint8_t lk[2];
  uint64_t seen = 0;
  if (scan) {
    rc = mdb_cursor_get(c, &k, &v, MDB_FIRST);
  } else {
    be16_put(lk, (unsigned)length);
    k = (MDB_val){2, lk};
    rc = mdb_cursor_get(c, &k, &v, MDB_SET_KEY);
  }
  for (; rc == 0 && !ts; rc = mdb_cursor_get(c, &k, &v, scan ? MDB_NEXT : MDB_NEXT_DUP)) {
    if (++seen % FOREACH_DROP == 0) drop_map_now(db);
    MDB_val pk = scan ? k : v, pv = v;
    if (pk.mv_size < 1 || pk.mv_size > TSDB_KEY_MAX) {
      ts = ts_error_set(err, TS_ERR_DB, db->path, 0, 0, "corrupt database: key of %zu bytes",
                        pk.mv_size);
      break;
    }
    if (!scan) {
      rc = mdb_get(txn, db->prob, &pk, &pv);
      if (rc) {
        ts = rc == MDB_NOTFOUND ? ts_error_set(err, TS_ERR_DB, db->path, 0, 0,
                                               "corrupt database: by_len lists a missing record")
                                : lmdb_error(db->path, rc, "read failed", err);
        break;
      }
    } else if (length >= 0) {
      uint16_t len;
      if ((ts = tsdb_value_length(pv.mv_data, pv.mv_size, &len, db->path, err))) break;
      if (len != length) continue;
    }
    if ((ts = value_decode(db, txn, &pv, rec, err))) break;
    if (length >= 0 && rec->length != length) {
      ts = ts_error_set(err, TS_ERR_DB, db->path, 0, 0,
                        "corrupt database: record of length %u listed under length %d",
                        (unsigned)rec->length, length);
      break;
    }
    memcpy(rec->key, pk.mv_data, pk.mv_size);
    rec->key_len = (uint8_t)pk.mv_size;
    if ((ts = fn(rec, ctx))) break;
  }
  mdb_cursor_close(c);
  if (!ts && rc && rc != MDB_NOTFOUND) ts = lmdb_error(db->path, rc, "read failed", err);
  return ts;
}

int tsdb_foreach(TsDb *db, int length, TsDbForeachFn fn, void *ctx, TsError *err) {
  if (!fn || length > 0xffff)
    return ts_error_set(err, TS_ERR_USAGE, db->path, 0, 0, "bad foreach arguments");
  TsRecord *rec = malloc(sizeof *rec);
  if (!rec) return ts_error_set(err, TS_ERR_NOMEM, db->path, 0, 0, "out of memory");
  MDB_txn *txn;
  int ts = rtxn_begin(db, &txn, err);
  if (!ts) {
    db->in_foreach++;
    ts = foreach_txn(db, txn, length, fn, ctx, rec, err);
    db->in_foreach--;
    rtxn_end(db, txn);
  }
  free(rec);
  return ts;
}

int tsdb_count(TsDb *db, uint64_t *total, TsError *err) {
  MDB_txn *txn;
  int ts = rtxn_begin(db, &txn, err);
  if (ts) return ts;
  MDB_stat st;
  int rc = mdb_stat(txn, db->prob, &st);
  rtxn_end(db, txn);
  if (rc) return lmdb_error(db->path, rc, "cannot count", err);
  *total = st.ms_entries;
  return TS_OK;
}

int tsdb_count_length(TsDb *db, unsigned length, uint64_t *n, TsError *err) {
  if (length > 0xffff) return ts_error_set(err, TS_ERR_USAGE, db->path, 0, 0, "bad length %u", length);
  MDB_txn *txn;
  int ts = rtxn_begin(db, &txn, err);
  if (ts) return ts;
  MDB_cursor *c;
  uint8_t lk[2];
  be16_put(lk, length);
  MDB_val k = {2, lk}, v;
  size_t count = 0;
  int rc = 0;
  if (!listed(db, length)) { /* every record less the listed ones */
    MDB_stat ps, ls;
    rc = mdb_stat(txn, db->prob, &ps);
    if (!rc) rc = mdb_stat(txn, db->by_len, &ls);
    if (!rc) count = ps.ms_entries - (ls.ms_entries < ps.ms_entries ? ls.ms_entries : ps.ms_entries);
  } else if (!(rc = mdb_cursor_open(txn, db->by_len, &c))) {
    rc = mdb_cursor_get(c, &k, &v, MDB_SET_KEY);
    if (!rc) rc = mdb_cursor_count(c, &count);
    else if (rc == MDB_NOTFOUND) rc = 0;
    mdb_cursor_close(c);
  }
  rtxn_end(db, txn);
  if (rc) return lmdb_error(db->path, rc, "cannot count", err);
  *n = count;
  return TS_OK;
}

static int meta_read(TsDb *db, const char *name, void *buf, size_t cap, size_t *len, TsError *err) {
  MDB_txn *txn;
  int ts = rtxn_begin(db, &txn, err);
  if (ts) return ts;
  MDB_val v;
  int rc = meta_get(txn, db, name, &v);
  if (rc == MDB_NOTFOUND) {
    ts = ts_error_set(err, TS_ERR_NOTFOUND, db->path, 0, 0, "no meta value \"%s\"", name);
  } else if (rc) {
    ts = lmdb_error(db->path, rc, "cannot read the meta table", err);
  } else {
    *len = v.mv_size;
    if (buf || cap) {
      if (cap < v.mv_size)
        ts = ts_error_set(err, TS_ERR_USAGE, db->path, 0, 0,
                          "buffer of %zu bytes too small for \"%s\" (%zu bytes)", cap, name,
                          v.mv_size);
      else if (v.mv_size)
        memcpy(buf, v.mv_data, v.mv_size);
    }
  }
  rtxn_end(db, txn);
  return ts;
}

int tsdb_checkpoint_get(TsDb *db, void *buf, size_t cap, size_t *len, TsError *err) {
  return meta_read(db, META_CHECKPOINT, buf, cap, len, err);
}

static int name_check(TsDb *db, const char *name, TsError *err) {
  size_t n = name ? strlen(name) : 0;
  if (n < 1 || n > TSDB_META_NAME_MAX)
    return ts_error_set(err, TS_ERR_USAGE, db->path, 0, 0, "meta name must have 1..%d bytes",
                        TSDB_META_NAME_MAX);
  return TS_OK;
}

int tsdb_meta_get_raw(TsDb *db, const char *name, void *buf, size_t cap, size_t *len,
                      TsError *err) {
  int ts = name_check(db, name, err);
  return ts ? ts : meta_read(db, name, buf, cap, len, err);
}

typedef struct {
  const char *name;
  const void *data;
  size_t len;
} MetaPut;

static int meta_put_body(TsDb *db, MDB_txn *txn, void *ctx, int *ts, TsError *err) {
  (void)ts;
  (void)err;
  MetaPut *m = ctx;
  return meta_put(txn, db, m->name, m->data, m->len);
}

int tsdb_meta_put_raw(TsDb *db, const char *name, const void *data, size_t len, TsError *err) {
  int ts = name_check(db, name, err);
  if (ts) return ts;
  if (strncmp(name, "tsdb.", 5) == 0)
    return ts_error_set(err, TS_ERR_USAGE, db->path, 0, 0, "meta name \"%s\" is reserved", name);
  if (len && !data) return ts_error_set(err, TS_ERR_USAGE, db->path, 0, 0, "no meta data given");
  MetaPut m = {name, data ? data : "", len};
  return write_run(db, meta_put_body, &m, err);
}

int tsdb_copy(TsDb *db, const char *dest, TsError *err) {
  if (!dest || !*dest) return ts_error_set(err, TS_ERR_USAGE, db->path, 0, 0, "no copy path given");
  if (access(dest, F_OK) == 0)
    return ts_error_set(err, TS_ERR_IO, dest, 0, 0, "copy target exists already");
  int rc = mdb_env_copy2(db->env, dest, MDB_CP_COMPACT); /* a file: the env has MDB_NOSUBDIR */
  if (rc) {
    unlink(dest);
    return lmdb_error(dest, rc, "cannot write the compacted copy", err);
  }
  return TS_OK;
}

int tsdb_stats(TsDb *db, TsDbStats *st, TsError *err) {
  memset(st, 0, sizeof *st);
  MDB_envinfo info;
  MDB_stat es;
  int rc = mdb_env_info(db->env, &info);
  if (!rc) rc = mdb_env_stat(db->env, &es);
  if (rc) return lmdb_error(db->path, rc, "cannot read the environment", err);
  st->map_size = info.me_mapsize;
  st->page_size = es.ms_psize;
  st->used_bytes = ((uint64_t)info.me_last_pgno + 1) * es.ms_psize;
  st->format_version = db->version;
  struct stat fs;
  if (stat(db->path, &fs) == 0) {
    st->file_bytes = (uint64_t)fs.st_size;
    st->disk_bytes = (uint64_t)fs.st_blocks * 512;
  }
  MDB_txn *txn;
  int ts = rtxn_begin(db, &txn, err);
  if (ts) return ts;
  MDB_stat ps, ls;
  MDB_val v;
  rc = mdb_stat(txn, db->prob, &ps);
  if (!rc) rc = mdb_stat(txn, db->by_len, &ls);
  if (!rc) {
    st->entries = ps.ms_entries;
    st->by_len_entries = ls.ms_entries;
    if (meta_get(txn, db, META_BATCHES, &v) == 0 && v.mv_size == 8) st->batches = be64_get(v.mv_data);
    if (meta_get(txn, db, META_PUTS, &v) == 0 && v.mv_size == 8) st->puts = be64_get(v.mv_data);
    if (meta_get(txn, db, META_DICT, &v) == 0) st->dict_bytes = (uint32_t)v.mv_size;
  }
  rtxn_end(db, txn);
  return rc ? lmdb_error(db->path, rc, "cannot read table statistics", err) : TS_OK;
}
