/*
 * tsdb_bulk.c - the sorted bulk write (tsdb_bulk.h): an arena of entries
 * sorted by key, spilled as sorted runs to unlinked files beside the database
 * when it reaches the memory limit, and a k-way merge of the runs into
 * key-ordered write transactions. The runs are zstd streams (level 1: sorted
 * keys share their prefixes, so a run takes a third or less of its bytes on
 * disk and to read back). A full arena is sorted and spilled by a
 * thread of its own while the records go on into a second one (each gets
 * half the limit), and a batch is stored by a writer thread while the merge
 * gathers the next one.
 */
#define _GNU_SOURCE
#include "tsdb_bulk.h"

#include "page_release.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#define ENTRY_MAX (1 + TSDB_KEY_MAX + 8 + 2 * TSDB_BULK_LINE_MAX)
/* entries gathered before they are compressed into a run */
#define RUN_BUF ((size_t)1 << 20)
#define RUN_ZSTD_LEVEL 1
/* a 128 KB window (level 1 would take 512 KB): each run read back in the merge
 * holds one, and a run of many runs under a small --sort-mem holds them all */
#define RUN_ZSTD_WINDOW_LOG 17
/* a run's read buffers: compressed in, decompressed out */
#define RUN_IN_BUF ((size_t)32 << 10)
#define RUN_OUT_BUF ((size_t)64 << 10)
/* Sorted entries are read in an order unrelated to the arena's: each is
 * prefetched this many entries ahead. */
#define PREFETCH_AHEAD 16
/* The database file let go of the page cache (release_written): every
 * RELEASE_BATCHES batches, up to the options' release_lag bytes (RELEASE_LAG
 * by default) short of its end. */
#define RELEASE_BATCHES 64
#define RELEASE_LAG ((size_t)64 << 20)

/* An arena entry and the first 16 bytes of its key, big-endian, zero-padded: the
 * sort compares those and reads the arena only on a tie (the padded prefixes
 * never order two keys against their memcmp-then-length order). */
typedef struct {
  uint64_t p0, p1;
  size_t off;
} SortRef;

/* A run being read back: compressed bytes from the file, decompressed ones
 * taken from out, its current entry in e. */
typedef struct {
  FILE *f;
  ZSTD_DCtx *dz;
  uint8_t *zin, *out;
  size_t zin_len, zin_pos, out_len, out_pos, zin_cap, out_cap;
  bool zin_eof, frame_end; /* frame_end: the zstd frame was decoded to its end */
  /* a run still in memory (f NULL): the sorted refs of an arena, read from mem_i on */
  const uint8_t *mem_arena;
  const SortRef *mem_refs;
  size_t mem_n, mem_i;
  /* the current entry: in the run's buffer or its arena when it lies whole
   * there, else copied to e; ref: the first 16 bytes of its key */
  const uint8_t *cur;
  SortRef ref;
  bool done; /* read to its end */
  uint8_t e[ENTRY_MAX];
} Run;

/* Batches handed to the writer thread and not yet stored, at most: the
 * merge goes on gathering while the writer stores, and a batch slower to
 * gather than to store (a run's buffer refilled) does not leave the writer
 * waiting. */
#define WRITE_QUEUE 3

/* A batch handed to the writer thread. */
typedef struct {
  const TsRecord *recs;
  size_t n;
  uint64_t ck; /* records in key order once it is stored */
  uint8_t blob[8];
} WriteJob;

/* An arena being sorted and spilled as a run by the sorter thread. */
typedef struct {
  struct TsDbBulk *b;
  uint8_t *arena;
  size_t arena_len, arena_cap;
  SortRef *offs;
  size_t noffs, offs_cap;
  int rc;
  TsError err;
} SpillJob;

struct TsDbBulk {
  TsDb *db;
  const char *path;
  TsDbBulkOptions opt;
  /* batch g is gathered in bufs[g % (WRITE_QUEUE + 1)]: at most WRITE_QUEUE
   * are handed over, so the one gathered is never one being stored */
  TsRecord *bufs[WRITE_QUEUE + 1];
  TsRecord *batch; /* the batch being gathered */
  unsigned gathering;
  size_t n, cap;
  uint64_t seen, written, handed, emitted;
  /* the writer thread and its queue (under mu); wrc and werr: its first failure */
  pthread_t writer;
  bool writer_up, writer_stop;
  pthread_mutex_t mu;
  pthread_cond_t work, space;
  WriteJob queue[WRITE_QUEUE];
  int q_head, q_len;
  int wrc;
  TsError werr;
  uint8_t *arena;
  size_t arena_len, arena_cap;
  SortRef *offs;
  size_t noffs, offs_cap;
  uint8_t *arena2; /* the other arena and offsets, free while not sorting */
  size_t arena2_cap;
  SortRef *offs2;
  size_t offs2_cap;
  pthread_t sorter;
  bool sorting;
  SpillJob sj;
  Run *runs;
  int nruns, runs_cap;
  int mem_runs; /* of the runs, those still in memory (the last arena's, at the end) */
  int spilled_runs; /* runs the arenas made (merging some into one leaves their count) */
  int merges;       /* merges of runs into a run (more were spilled than a merge reads at once) */
  int runs_peak;    /* the most runs held at once */
  uint64_t run_bytes, run_disk;
  uint64_t key_bytes, entry_bytes; /* of the records added */
  int file_fd;                      /* the database file, for release_written; -1 when it did not open */
  PageRelease rel;
  unsigned batches_since_release;
  TsError *err; /* the caller's, for the call in progress */
};

static size_t entry_size(const uint8_t *e) { return 1 + (size_t)e[0] + 8 + 2 * (size_t)e[1 + e[0] + 7]; }

static int nomem(TsDbBulk *b) { return ts_error_set(b->err, TS_ERR_NOMEM, b->path, 0, 0, "out of memory"); }

int tsdb_bulk_resume_point(TsDb *db, uint64_t *skip, TsError *err) {
  uint8_t blob[8];
  size_t blen = 0;
  *skip = 0;
  int rc = tsdb_checkpoint_get(db, blob, sizeof blob, &blen, err);
  if (rc == TS_ERR_NOTFOUND || rc == TS_ERR_USAGE || (rc == TS_OK && blen != 8)) return TS_OK; /* not ours: start over */
  if (rc) return rc;
  for (int i = 0; i < 8; i++) *skip = *skip << 8 | blob[i];
  return TS_OK;
}

int tsdb_bulk_create(TsDb *db, const char *path, const TsDbBulkOptions *o, TsDbBulk **out, TsError *err) {
  TsDbBulk *b = calloc(1, sizeof *b);
  if (b) {
    b->opt = *o;
    if (!b->opt.mem_limit) b->opt.mem_limit = (size_t)1 << 30;
    if (!b->opt.batch) b->opt.batch = 5000;
    if (!b->opt.release_lag) b->opt.release_lag = RELEASE_LAG;
    b->cap = b->opt.batch;
    /* the batches (a record takes some 2.4 KB) within an eighth of the sort's memory, when that is small */
    size_t fit = b->opt.mem_limit / 8 / (WRITE_QUEUE + 1) / sizeof(TsRecord);
    if (fit < 64) fit = 64;
    if (b->cap > fit) b->cap = fit;
    for (int i = 0; i <= WRITE_QUEUE; i++) b->bufs[i] = calloc(b->cap, sizeof(TsRecord));
  }
  bool bufs = b;
  for (int i = 0; b && i <= WRITE_QUEUE; i++) bufs = bufs && b->bufs[i];
  if (!bufs) {
    if (b)
      for (int i = 0; i <= WRITE_QUEUE; i++) free(b->bufs[i]);
    free(b);
    return ts_error_set(err, TS_ERR_NOMEM, path, 0, 0, "out of memory");
  }
  b->batch = b->bufs[0];
  pthread_mutex_init(&b->mu, NULL);
  pthread_cond_init(&b->work, NULL);
  pthread_cond_init(&b->space, NULL);
  b->db = db;
  b->path = path;
  b->written = b->handed = b->opt.skip;
  b->file_fd = open(path, O_RDONLY | O_CLOEXEC);
  *out = b;
  return TS_OK;
}

/* The writer thread: stores the queue's batches in order until told to stop
 * with the queue empty, or until a batch fails (the rest is dropped). */
static void *writer_main(void *arg) {
  TsDbBulk *b = arg;
  pthread_mutex_lock(&b->mu);
  for (;;) {
    while (b->q_len == 0 && !b->writer_stop) pthread_cond_wait(&b->work, &b->mu);
    if (b->q_len == 0) break;
    WriteJob j = b->queue[b->q_head];
    pthread_mutex_unlock(&b->mu);
    TsError err;
    int rc = tsdb_put_batch(b->db, j.recs, j.n, j.blob, sizeof j.blob, &err);
    pthread_mutex_lock(&b->mu);
    if (rc) {
      b->wrc = rc;
      b->werr = err;
      b->q_len = 0;
      pthread_cond_signal(&b->space);
      break;
    }
    b->written = j.ck;
    b->q_head = (b->q_head + 1) % WRITE_QUEUE;
    b->q_len--;
    pthread_cond_signal(&b->space);
  }
  pthread_mutex_unlock(&b->mu);
  return NULL;
}

/* The writer's failure, if any, as the call's error. Under mu. */
static int writer_failed(TsDbBulk *b) {
  if (b->wrc && b->err) *b->err = b->werr;
  return b->wrc;
}

/* Waits until every batch handed over is stored; the writer's error, if any. */
static int writer_drain(TsDbBulk *b) {
  pthread_mutex_lock(&b->mu);
  while (b->q_len > 0 && !b->wrc) pthread_cond_wait(&b->space, &b->mu);
  int rc = writer_failed(b);
  pthread_mutex_unlock(&b->mu);
  return rc;
}

/* The writer thread stopped once the queue is stored (or dropped after a failure); its error, if any. */
static int writer_wait(TsDbBulk *b) {
  if (!b->writer_up) return b->wrc;
  pthread_mutex_lock(&b->mu);
  b->writer_stop = true;
  pthread_cond_signal(&b->work);
  pthread_mutex_unlock(&b->mu);
  pthread_join(b->writer, NULL);
  b->writer_up = false;
  pthread_mutex_lock(&b->mu);
  int rc = writer_failed(b);
  pthread_mutex_unlock(&b->mu);
  return rc;
}

/* The database file let go of the page cache behind the write
 * (page_release.h; G4S1's 7 GB database: the writer thread's copies into the
 * page cache were half of its time): every RELEASE_BATCHES batches, by the
 * calling thread, what lies more than the options' release_lag before the
 * file's end (the right edge of the trees, which the write reads, lies in the
 * last pages written). */
static void release_written(TsDbBulk *b) {
  if (b->file_fd < 0 || ++b->batches_since_release < RELEASE_BATCHES) return;
  b->batches_since_release = 0;
  struct stat st;
  if (fstat(b->file_fd, &st) == 0)
    page_release_behind(b->file_fd, &b->rel, st.st_size, (off_t)b->opt.release_lag, true);
}

/* Hands the gathered batch to the writer thread (made on the first batch;
 * without it the batch is stored in the calling one), waiting while
 * WRITE_QUEUE batches are still to store. */
static int flush_batch(TsDbBulk *b) {
  if (!b->n) return TS_OK;
  WriteJob j = {.recs = b->batch, .n = b->n, .ck = b->handed + b->n};
  for (int i = 0; i < 8; i++) j.blob[i] = (uint8_t)(j.ck >> (56 - 8 * i));
  b->handed = j.ck;
  b->n = 0;
  b->batch = b->bufs[++b->gathering % (WRITE_QUEUE + 1)];
  if (!b->writer_up && !b->wrc && !b->writer_stop)
    b->writer_up = pthread_create(&b->writer, NULL, writer_main, b) == 0;
  if (!b->writer_up) { /* no thread: stored here */
    if (b->wrc) return b->wrc;
    TsError err;
    int rc = tsdb_put_batch(b->db, j.recs, j.n, j.blob, sizeof j.blob, &err);
    if (rc) {
      b->wrc = rc;
      b->werr = err;
      if (b->err) *b->err = err;
      return rc;
    }
    b->written = j.ck;
    return TS_OK;
  }
  pthread_mutex_lock(&b->mu);
  while (b->q_len == WRITE_QUEUE && !b->wrc) pthread_cond_wait(&b->space, &b->mu);
  int rc = writer_failed(b);
  if (!rc) {
    b->queue[(b->q_head + b->q_len) % WRITE_QUEUE] = j;
    b->q_len++;
    pthread_cond_signal(&b->work);
  }
  pthread_mutex_unlock(&b->mu);
  if (!rc) release_written(b);
  return rc;
}

/* The last batch handed over and every batch stored. */
static int flush_all(TsDbBulk *b) {
  int rc = flush_batch(b);
  int wrc = b->writer_up ? writer_drain(b) : b->wrc;
  return rc ? rc : wrc;
}

/* The next entry in key order; the first `skip` of them are already stored. */
static int emit(TsDbBulk *b, const uint8_t *e) {
  if ((b->emitted & ((1u << 20) - 1)) == 0 && b->emitted && b->opt.progress)
    b->opt.progress(b->emitted, b->seen, b->opt.progress_ctx);
  if (b->emitted++ < b->opt.skip) return TS_OK;
  TsRecord *r = &b->batch[b->n];
  r->key_len = e[0];
  memcpy(r->key, e + 1, e[0]);
  const uint8_t *t = e + 1 + e[0];
  memcpy(&r->length, t, 2);
  memcpy(&r->flags, t + 2, 4);
  r->root_mates = t[6];
  r->line_len = t[7];
  memcpy(r->line, t + 8, 2 * (size_t)r->line_len);
  r->ext_len = 0;
  return ++b->n == b->cap ? flush_batch(b) : TS_OK;
}

static int entry_cmp(const uint8_t *x, const uint8_t *y) {
  size_t n = x[0] < y[0] ? x[0] : y[0];
  int c = memcmp(x + 1, y + 1, n);
  return c ? c : (int)x[0] - (int)y[0];
}

/* The order of two entries x and y (<0, 0, >0), their keys' first 16 bytes
 * in rx and ry: the entries are read only on a tie. */
static inline int key_order(const SortRef *rx, const uint8_t *x, const SortRef *ry, const uint8_t *y) {
  if (rx->p0 != ry->p0) return rx->p0 < ry->p0 ? -1 : 1;
  if (rx->p1 != ry->p1) return rx->p1 < ry->p1 ? -1 : 1;
  return entry_cmp(x, y);
}

static int cmp_entry(const void *a, const void *b, void *arena) {
  const SortRef *x = a, *y = b;
  return key_order(x, (const uint8_t *)arena + x->off, y, (const uint8_t *)arena + y->off);
}

static inline bool ref_less(const SortRef *x, const SortRef *y, const uint8_t *arena) {
  return key_order(x, arena + x->off, y, arena + y->off) < 0;
}

static inline void ref_swap(SortRef *x, SortRef *y) {
  SortRef t = *x;
  *x = *y;
  *y = t;
}

/* Partitions deep before sort_refs hands a range to qsort_r. */
#define SORT_DEPTH 96

/* Sorts refs by key: a quicksort with the comparison inlined (qsort_r's
 * callback costs more than the comparison itself), insertion sort on short
 * ranges, qsort_r past a depth that only a pathological order reaches. */
static void sort_refs(SortRef *a, size_t n, const uint8_t *arena, int depth) {
  while (n > 16) {
    if (depth-- == 0) {
      qsort_r(a, n, sizeof *a, cmp_entry, (void *)arena);
      return;
    }
    size_t m = n / 2;
    if (ref_less(&a[m], &a[0], arena)) ref_swap(&a[m], &a[0]);
    if (ref_less(&a[n - 1], &a[m], arena)) {
      ref_swap(&a[n - 1], &a[m]);
      if (ref_less(&a[m], &a[0], arena)) ref_swap(&a[m], &a[0]);
    }
    SortRef pivot = a[m];
    size_t i = 0, j = n - 1;
    for (;;) {
      while (ref_less(&a[i], &pivot, arena)) i++;
      while (ref_less(&pivot, &a[j], arena)) j--;
      if (i >= j) break;
      ref_swap(&a[i], &a[j]);
      i++;
      j--;
    }
    /* a[0..j] <= pivot <= a[j+1..n): recurse on the smaller side */
    size_t left = j + 1;
    if (left < n - left) {
      sort_refs(a, left, arena, depth);
      a += left;
      n -= left;
    } else {
      sort_refs(a + left, n - left, arena, depth);
      n = left;
    }
  }
  for (size_t i = 1; i < n; i++) {
    SortRef t = a[i];
    size_t j = i;
    for (; j > 0 && ref_less(&t, &a[j - 1], arena); j--) a[j] = a[j - 1];
    a[j] = t;
  }
}

static SortRef sort_ref(const uint8_t *e, size_t off) {
  uint8_t k[16] = {0};
  memcpy(k, e + 1, e[0] < 16 ? e[0] : 16);
  SortRef r = {0, 0, off};
  for (int i = 0; i < 8; i++) {
    r.p0 = r.p0 << 8 | k[i];
    r.p1 = r.p1 << 8 | k[8 + i];
  }
  return r;
}

static int run_io_error(TsDbBulk *b, TsError *err, const char *what) {
  return ts_error_set(err, TS_ERR_IO, b->path, 0, 0, "cannot %s a sort run beside the database: %s", what,
                      strerror(errno));
}

/* in[0..n) into the run's zstd stream (mode ZSTD_e_end closes it). */
static int run_compress(FILE *f, ZSTD_CCtx *cz, const uint8_t *in, size_t n, ZSTD_EndDirective mode, uint8_t *out,
                        size_t out_cap) {
  ZSTD_inBuffer ib = {in, n, 0};
  for (;;) {
    ZSTD_outBuffer ob = {out, out_cap, 0};
    size_t left = ZSTD_compressStream2(cz, &ob, &ib, mode);
    if (ZSTD_isError(left)) {
      errno = ENOMEM;
      return -1;
    }
    if (ob.pos && fwrite_unlocked(out, 1, ob.pos, f) != ob.pos) return -1;
    if (mode == ZSTD_e_end ? left == 0 : ib.pos == ib.size) return 0;
  }
}

/* Room for one more run. */
static int runs_room(TsDbBulk *b, TsError *err) {
  if (b->nruns < b->runs_cap) return TS_OK;
  int nc = b->runs_cap ? 2 * b->runs_cap : 16;
  Run *nr = realloc(b->runs, (size_t)nc * sizeof *nr);
  if (!nr) return ts_error_set(err, TS_ERR_NOMEM, b->path, 0, 0, "out of memory");
  b->runs = nr;
  b->runs_cap = nc;
  return TS_OK;
}

/* A run being written: its entries gathered in `in`, compressed into the file. */
typedef struct {
  FILE *f;
  ZSTD_CCtx *cz;
  uint8_t *in, *out;
  size_t n, out_cap;
  uint64_t raw; /* entry bytes written */
} RunWriter;

static void runw_free(RunWriter *w) {
  free(w->in);
  free(w->out);
  ZSTD_freeCCtx(w->cz);
  w->in = w->out = NULL;
  w->cz = NULL;
}

/* A new run (an unlinked file beside the database) as b->runs[b->nruns]. */
static int runw_open(TsDbBulk *b, RunWriter *w, TsError *err) {
  memset(w, 0, sizeof *w);
  if (runs_room(b, err)) return TS_ERR_NOMEM;
  char name[4096];
  snprintf(name, sizeof name, "%s.sort-XXXXXX", b->path);
  int fd = mkostemp(name, O_CLOEXEC);
  if (fd < 0) return run_io_error(b, err, "create");
  unlink(name); /* freed by the system however the process ends */
  Run *run = &b->runs[b->nruns];
  memset(run, 0, sizeof *run);
  run->f = fdopen(fd, "w+b");
  w->out_cap = ZSTD_CStreamOutSize();
  w->in = malloc(RUN_BUF);
  w->out = malloc(w->out_cap);
  w->cz = ZSTD_createCCtx();
  if (!run->f || !w->in || !w->out || !w->cz ||
      ZSTD_isError(ZSTD_CCtx_setParameter(w->cz, ZSTD_c_compressionLevel, RUN_ZSTD_LEVEL)) ||
      ZSTD_isError(ZSTD_CCtx_setParameter(w->cz, ZSTD_c_windowLog, RUN_ZSTD_WINDOW_LOG))) {
    if (run->f)
      fclose(run->f);
    else
      close(fd);
    run->f = NULL;
    runw_free(w);
    return ts_error_set(err, TS_ERR_NOMEM, b->path, 0, 0, "out of memory");
  }
  b->nruns++;
  if (b->nruns > b->runs_peak) b->runs_peak = b->nruns;
  w->f = run->f;
  setvbuf(run->f, NULL, _IONBF, 0); /* written and read in blocks of its own */
  return TS_OK;
}

/* One entry more at the run's end; -1 on a write error (errno). */
static int runw_put(RunWriter *w, const uint8_t *e) {
  size_t k = entry_size(e);
  if (w->n + k > RUN_BUF) {
    if (run_compress(w->f, w->cz, w->in, w->n, ZSTD_e_continue, w->out, w->out_cap)) return -1;
    w->n = 0;
  }
  memcpy(w->in + w->n, e, k);
  w->n += k;
  w->raw += k;
  return 0;
}

/* Ends the run (rc: an error met while writing it), its size on disk into
 * *disk, and rewinds it for the merge. */
static int runw_close(TsDbBulk *b, RunWriter *w, int rc, uint64_t *disk, TsError *err) {
  if (!rc) rc = run_compress(w->f, w->cz, w->in, w->n, ZSTD_e_end, w->out, w->out_cap);
  int e = errno;
  runw_free(w);
  errno = e;
  if (rc || fflush(w->f) != 0) return run_io_error(b, err, "write");
  long at = ftell(w->f);
  if (at < 0 || fseek(w->f, 0, SEEK_SET) != 0) return run_io_error(b, err, "rewind");
  *disk = (uint64_t)at;
  return TS_OK;
}

/* Sorts arena's entries and writes them as a new run (only one thread at a time). */
static int spill_arena(TsDbBulk *b, const uint8_t *arena, SortRef *offs, size_t noffs, TsError *err) {
  RunWriter w;
  int rc = runw_open(b, &w, err);
  if (rc) return rc;
  if (noffs) sort_refs(offs, noffs, arena, SORT_DEPTH);
  for (size_t i = 0; i < noffs && !rc; i++) {
    if (i + PREFETCH_AHEAD < noffs) __builtin_prefetch(arena + offs[i + PREFETCH_AHEAD].off);
    rc = runw_put(&w, arena + offs[i].off);
  }
  uint64_t disk = 0;
  rc = runw_close(b, &w, rc, &disk, err);
  if (rc) return rc;
  b->run_bytes += w.raw;
  b->run_disk += disk;
  b->spilled_runs++;
  return TS_OK;
}

static void *spill_job(void *arg) {
  SpillJob *j = arg;
  j->rc = spill_arena(j->b, j->arena, j->offs, j->noffs, &j->err);
  return NULL;
}

/* The spilled arena becomes the free one; the spill's error, if any. */
static int sorter_collect(TsDbBulk *b) {
  SpillJob *j = &b->sj;
  b->arena2 = j->arena;
  b->arena2_cap = j->arena_cap;
  b->offs2 = j->offs;
  b->offs2_cap = j->offs_cap;
  if (j->rc && b->err) *b->err = j->err;
  return j->rc;
}

/* Waits for the arena being spilled; its error, if any. */
static int sorter_wait(TsDbBulk *b) {
  if (!b->sorting) return TS_OK;
  pthread_join(b->sorter, NULL);
  b->sorting = false;
  return sorter_collect(b);
}

/* Runs kept at once while the arenas spill (each holds a file descriptor). */
#define RUNS_OPEN_MAX 512
static int merge_width(const TsDbBulk *b);
static int merge_oldest(TsDbBulk *b, int keep);

/* Hands the full arena to the sorter thread (once the one before is spilled)
 * and goes on in the other. */
static int spill_run(TsDbBulk *b) {
  int rc = sorter_wait(b);
  /* each run holds a file: at RUNS_OPEN_MAX the oldest are merged, a merge's width of them */
  if (!rc && b->nruns >= RUNS_OPEN_MAX) rc = merge_oldest(b, RUNS_OPEN_MAX - merge_width(b) + 1);
  if (rc) return rc;
  SpillJob *j = &b->sj;
  *j = (SpillJob){.b = b, .arena = b->arena, .arena_len = b->arena_len, .arena_cap = b->arena_cap,
                  .offs = b->offs, .noffs = b->noffs, .offs_cap = b->offs_cap};
  b->arena = b->arena2;
  b->arena_cap = b->arena2_cap;
  b->offs = b->offs2;
  b->offs_cap = b->offs2_cap;
  b->arena2 = NULL;
  b->offs2 = NULL;
  b->arena2_cap = b->offs2_cap = 0;
  b->arena_len = 0;
  b->noffs = 0;
  b->sorting = true;
  if (pthread_create(&b->sorter, NULL, spill_job, j) == 0) return TS_OK;
  b->sorting = false; /* no thread: spilled here */
  spill_job(j);
  return sorter_collect(b);
}

/* Buffers of a run about to be read back. */
static int run_open_read(TsDbBulk *b, Run *run) {
  if (!run->f) return TS_OK; /* in memory */
  run->zin_cap = RUN_IN_BUF;
  run->out_cap = RUN_OUT_BUF;
  run->zin = malloc(run->zin_cap);
  run->out = malloc(run->out_cap);
  run->dz = ZSTD_createDCtx();
  return run->zin && run->out && run->dz ? TS_OK : nomem(b);
}

/* run_fill and run_read: a read error (errno), and damage (a bad frame, or one cut short). */
#define RUN_IO_ERROR (-1)
#define RUN_DAMAGED (-2)

/* Decompressed bytes of the run into out; 0 at the run's end, else 1 or RUN_IO_ERROR / RUN_DAMAGED. */
static int run_fill(Run *run) {
  run->out_len = run->out_pos = 0;
  while (run->out_len == 0) {
    if (run->zin_pos == run->zin_len) {
      if (run->zin_eof) return 0;
      run->zin_len = fread_unlocked(run->zin, 1, run->zin_cap, run->f); /* one thread reads a run */
      run->zin_pos = 0;
      if (run->zin_len == 0) {
        if (ferror(run->f)) return RUN_IO_ERROR;
        run->zin_eof = true;
        return run->frame_end ? 0 : RUN_DAMAGED; /* or the stream stops inside its frame */
      }
    }
    ZSTD_inBuffer ib = {run->zin, run->zin_len, run->zin_pos};
    ZSTD_outBuffer ob = {run->out, run->out_cap, 0};
    size_t r = ZSTD_decompressStream(run->dz, &ob, &ib);
    if (ZSTD_isError(r)) return RUN_DAMAGED;
    run->zin_pos = ib.pos;
    run->out_len = ob.pos;
    run->frame_end = r == 0;
  }
  return 1;
}

/* n bytes of the run into dst: n, fewer at the run's end, or RUN_IO_ERROR / RUN_DAMAGED. */
static long run_read(Run *run, uint8_t *dst, size_t n) {
  size_t got = 0;
  while (got < n) {
    if (run->out_pos == run->out_len) {
      int f = run_fill(run);
      if (f < 0) return f;
      if (f == 0) break;
    }
    size_t k = run->out_len - run->out_pos < n - got ? run->out_len - run->out_pos : n - got;
    memcpy(dst + got, run->out + run->out_pos, k);
    run->out_pos += k;
    got += k;
  }
  return (long)got;
}

/* 1 and the run's next entry in run->cur, 0 at its end, -1 on a read error. */
static int run_next(TsDbBulk *b, Run *run) {
  if (!run->f) {
    if (run->mem_i == run->mem_n) return 0;
    if (run->mem_i + PREFETCH_AHEAD < run->mem_n)
      __builtin_prefetch(run->mem_arena + run->mem_refs[run->mem_i + PREFETCH_AHEAD].off);
    run->ref = run->mem_refs[run->mem_i++];
    run->cur = run->mem_arena + run->ref.off;
    return 1;
  }
  size_t left = run->out_len - run->out_pos;
  const uint8_t *o = run->out + run->out_pos;
  if (left && left >= 1 + (size_t)o[0] + 8 && left >= entry_size(o)) { /* whole in the buffer */
    run->cur = o;
    run->out_pos += entry_size(o);
  } else {
    uint8_t *e = run->e;
    long got = run_read(run, e, 1), want = 1;
    if (got == 0) return 0;
    if (got == 1) {
      want = (long)e[0] + 8;
      got = run_read(run, e + 1, (size_t)want);
      if (got == want) {
        want = 2 * (long)e[1 + e[0] + 7];
        got = want ? run_read(run, e + 1 + e[0] + 8, (size_t)want) : 0;
      }
    }
    if (got != want) {
      if (got == RUN_IO_ERROR)
        run_io_error(b, b->err, "read");
      else /* an entry cut short, or a bad stream */
        ts_error_set(b->err, TS_ERR_IO, b->path, 0, 0, "a sort run beside the database reads back damaged");
      return -1;
    }
    run->cur = e;
  }
  run->ref = sort_ref(run->cur, 0);
  return 1;
}

/* Run x's current entry before run y's: by key, a run read to its end after
 * every other, ties by the runs' order. */
static inline bool run_less(const TsDbBulk *b, int x, int y) {
  const Run *a = &b->runs[x], *c = &b->runs[y];
  if (a->done || c->done) return c->done && (!a->done || x < y);
  int k = key_order(&a->ref, a->cur, &c->ref, c->cur);
  return k < 0 || (k == 0 && x < y);
}

/* A run read back holds its two buffers and a zstd stream with its 128 KB
 * window: some 320 KB. */
#define RUN_READ_BYTES ((size_t)320 << 10)

/* Runs read at once by a merge: as many as half the sort's memory holds, at least 4, at most 256. */
static int merge_width(const TsDbBulk *b) {
  size_t w = b->opt.mem_limit / 2 / RUN_READ_BYTES;
  return w < 4 ? 4 : w > 256 ? 256 : (int)w;
}

static void run_close(Run *run) {
  if (run->f) fclose(run->f);
  free(run->zin);
  free(run->out);
  ZSTD_freeDCtx(run->dz);
  memset(run, 0, sizeof *run);
}

/* The runs 0..n merged in key order, each entry handed to put; rc of the
 * first failure. A tree of losers: t[1..n) holds the run that lost the match
 * at each inner node, t[0] the winner, so the run whose entry was taken plays
 * its next one up a single path (log2 n comparisons). Run i is leaf n + i. */
static int merge_runs_to(TsDbBulk *b, int n, int (*put)(TsDbBulk *b, const uint8_t *e, void *ctx), void *ctx) {
  int rc = TS_OK;
  for (int i = 0; i < n && !rc; i++) rc = run_open_read(b, &b->runs[i]);
  for (int i = 0; i < n && !rc; i++) {
    int got = run_next(b, &b->runs[i]);
    if (got < 0) rc = TS_ERR_IO;
    b->runs[i].done = got == 0;
  }
  if (rc || n == 0) return rc;
  int *t = malloc(3 * (size_t)n * sizeof *t), *win = t + n; /* win: each node's winner while the tree is made */
  if (!t) return nomem(b);
  for (int i = 0; i < n; i++) win[n + i] = i;
  for (int i = n - 1; i >= 1; i--) {
    int l = win[2 * i], r = win[2 * i + 1];
    bool lw = run_less(b, l, r);
    win[i] = lw ? l : r;
    t[i] = lw ? r : l;
  }
  t[0] = n > 1 ? win[1] : 0;
  for (;;) {
    int w = t[0];
    Run *run = &b->runs[w];
    if (run->done) break;
    if ((rc = put(b, run->cur, ctx))) break;
    int got = run_next(b, run);
    if (got < 0) {
      rc = TS_ERR_IO;
      break;
    }
    run->done = got == 0;
    for (int node = (n + w) / 2; node >= 1; node /= 2)
      if (run_less(b, t[node], w)) {
        int x = t[node];
        t[node] = w;
        w = x;
      }
    t[0] = w;
  }
  free(t);
  return rc;
}

static int put_run(TsDbBulk *b, const uint8_t *e, void *ctx) {
  return runw_put(ctx, e) ? run_io_error(b, b->err, "write") : TS_OK;
}

/* The k oldest runs (all on file) merged into one run, which goes last (so
 * the runs are merged a group at a time, as a tree, each entry read once a
 * level). */
static int merge_group(TsDbBulk *b, int k) {
  RunWriter w;
  int rc = runw_open(b, &w, b->err); /* the new run at the end (runs may move) */
  if (rc) return rc;
  rc = merge_runs_to(b, k, put_run, &w);
  if (rc) { /* the new run stays among the runs, closed with them */
    runw_free(&w);
    return rc;
  }
  uint64_t disk = 0;
  rc = runw_close(b, &w, TS_OK, &disk, b->err);
  if (rc) return rc;
  for (int i = 0; i < k; i++) run_close(&b->runs[i]);
  memmove(&b->runs[0], &b->runs[k], (size_t)(b->nruns - k) * sizeof *b->runs);
  b->nruns -= k;
  b->merges++;
  return TS_OK;
}

/* The oldest runs merged, a merge's width at a time, until at most keep are left. */
static int merge_oldest(TsDbBulk *b, int keep) {
  int width = merge_width(b), rc = TS_OK;
  while (b->nruns > keep && !rc) {
    int k = b->nruns - keep + 1;
    rc = merge_group(b, k < width ? k : width);
  }
  return rc;
}

static int put_db(TsDbBulk *b, const uint8_t *e, void *ctx) {
  (void)ctx;
  return emit(b, e);
}

/* Merges the runs into the database in key order. */
static int merge_runs(TsDbBulk *b) {
  int rc = merge_runs_to(b, b->nruns, put_db, NULL);
  return rc ? rc : flush_all(b);
}

int tsdb_bulk_add(TsDbBulk *b, const TsRecord *rec, TsError *err) {
  b->err = err;
  if (rec->line_len > TSDB_BULK_LINE_MAX || rec->key_len < 1 || rec->key_len > TSDB_KEY_MAX)
    return ts_error_set(err, TS_ERR_USAGE, b->path, 0, 0, "bulk record %llu: key of %u bytes, line of %u moves",
                        (unsigned long long)b->seen, rec->key_len, rec->line_len);
  b->seen++;
  size_t need = 1 + TSDB_KEY_MAX + 9 + 2 * (size_t)rec->line_len;
  size_t half = b->opt.mem_limit / 2; /* one arena filling, one being spilled */
  if (b->noffs && b->arena_len + need + (b->noffs + 1) * sizeof *b->offs > half) {
    int rc = spill_run(b);
    if (rc) return rc;
  }
  if (b->arena_len + need > b->arena_cap) {
    size_t nc = b->arena_cap ? b->arena_cap * 2 : (size_t)1 << 20;
    if (nc > half && half > b->arena_len + need) nc = half;
    uint8_t *na = realloc(b->arena, nc);
    if (!na) return nomem(b);
    b->arena = na;
    b->arena_cap = nc;
  }
  if (b->noffs == b->offs_cap) {
    size_t nc = b->offs_cap ? b->offs_cap * 2 : 65536;
    SortRef *no = realloc(b->offs, nc * sizeof *no);
    if (!no) return nomem(b);
    b->offs = no;
    b->offs_cap = nc;
  }
  uint8_t *e = b->arena + b->arena_len;
  e[0] = rec->key_len;
  memcpy(e + 1, rec->key, rec->key_len);
  b->offs[b->noffs++] = sort_ref(e, b->arena_len);
  uint8_t *t = e + 1 + rec->key_len;
  memcpy(t, &rec->length, 2);
  memcpy(t + 2, &rec->flags, 4);
  t[6] = rec->root_mates;
  t[7] = (uint8_t)rec->line_len;
  memcpy(t + 8, rec->line, 2 * (size_t)rec->line_len);
  size_t len = 1 + rec->key_len + 8 + 2 * (size_t)rec->line_len;
  b->arena_len += len;
  b->key_bytes += rec->key_len;
  b->entry_bytes += len;
  return TS_OK;
}

typedef struct {
  TsDbBulk *b;
  uint64_t n;
  TsError err;
} AddDb;

static int add_db_record(const TsRecord *rec, void *ctx) {
  AddDb *a = ctx;
  a->n++;
  return tsdb_bulk_add(a->b, rec, &a->err);
}

int tsdb_bulk_add_db(TsDbBulk *b, TsDb *from, uint64_t *added, TsError *err) {
  AddDb a = {b, 0, {0}};
  int rc = tsdb_foreach(from, -1, add_db_record, &a, err);
  if (rc && a.err.code && err) *err = a.err;
  if (added) *added = a.n;
  return rc;
}

typedef struct {
  SortRef *refs;
  size_t n;
  const uint8_t *arena;
} SortJob;

static void *sort_job(void *arg) {
  SortJob *j = arg;
  sort_refs(j->refs, j->n, j->arena, SORT_DEPTH);
  return NULL;
}

/* The last arena's refs as a run in memory (no file), merged with the others. */
static int add_mem_run(TsDbBulk *b, const SortRef *refs, size_t n) {
  if (!n) return TS_OK;
  if (runs_room(b, b->err)) return TS_ERR_NOMEM;
  Run *run = &b->runs[b->nruns++];
  memset(run, 0, sizeof *run);
  run->mem_arena = b->arena;
  run->mem_refs = refs;
  run->mem_n = n;
  b->mem_runs++;
  return TS_OK;
}

/*
 * The end: the arena being filled is not spilled but sorted in two halves at
 * once (a thread of its own for one), and its halves are merged from memory
 * with the runs on disk.
 */
static int finish(TsDbBulk *b) {
  int rc = sorter_wait(b);
  if (rc) return rc;
  free(b->arena2);
  free(b->offs2);
  b->arena2 = NULL;
  b->offs2 = NULL;
  b->arena2_cap = b->offs2_cap = 0;
  if (!b->noffs && !b->nruns) return flush_all(b);
  /* the last merge reads the runs on file and the two in memory at once */
  rc = merge_oldest(b, merge_width(b) - 2);
  if (rc) return rc;
  size_t half = b->noffs / 2;
  SortJob job = {b->offs, half, b->arena};
  pthread_t t;
  bool threaded = half >= 4096 && pthread_create(&t, NULL, sort_job, &job) == 0;
  if (!threaded) sort_job(&job);
  if (b->noffs > half) sort_refs(b->offs + half, b->noffs - half, b->arena, SORT_DEPTH);
  if (threaded) pthread_join(t, NULL);
  rc = add_mem_run(b, b->offs, half);
  if (!rc) rc = add_mem_run(b, b->offs + half, b->noffs - half);
  return rc ? rc : merge_runs(b);
}

int tsdb_bulk_finish(TsDbBulk *b, TsError *err) {
  b->err = err;
  int rc = finish(b);
  /* no write left running, whatever happened */
  TsError later;
  b->err = rc ? &later : err;
  int wrc = writer_wait(b);
  return rc ? rc : wrc;
}

void tsdb_bulk_stats(const TsDbBulk *b, TsDbBulkStats *st) {
  st->added = b->seen;
  st->written = b->written;
  st->runs = b->spilled_runs;
  st->merges = b->merges;
  st->merge_width = merge_width(b);
  st->runs_peak = b->runs_peak;
  st->released = (uint64_t)b->rel.released;
  st->run_bytes = b->run_bytes;
  st->run_disk = b->run_disk;
  st->db_need = tsdb_bulk_db_need(b);
}

/*
 * What storing the records added (but the skipped) adds to the database file,
 * a little above what it is: each record is a node of the problem table (its
 * key, its value at most the entry's size) and a node of the length index
 * (the key again), and 24 bytes of node headers, pointers and page slack
 * (LMDB files of enumerations: 0.92-0.93 of this).
 */
uint64_t tsdb_bulk_db_need(const TsDbBulk *b) {
  if (!b->seen || b->opt.skip >= b->seen) return 0;
  uint64_t per = (b->entry_bytes + b->key_bytes + 24 * b->seen) / b->seen;
  return (b->seen - b->opt.skip) * per;
}

void tsdb_bulk_free(TsDbBulk *b) {
  if (!b) return;
  TsError ignored;
  b->err = &ignored;
  writer_wait(b);
  sorter_wait(b);
  for (int i = 0; i < b->nruns; i++) run_close(&b->runs[i]);
  free(b->runs);
  for (int i = 0; i <= WRITE_QUEUE; i++) free(b->bufs[i]);
  pthread_mutex_destroy(&b->mu);
  pthread_cond_destroy(&b->work);
  pthread_cond_destroy(&b->space);
  free(b->arena);
  free(b->offs);
  free(b->arena2);
  free(b->offs2);
  if (b->file_fd >= 0) close(b->file_fd);
  free(b);
}
