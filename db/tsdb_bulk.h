/*
 * tsdb_bulk.h - writing many records in key order: the sorted bulk write.
 *
 * Records are gathered in a byte arena, sorted by key and written in key
 * order, so LMDB appends full pages (a file about a third of the size of
 * random-order writes) and a resumed run finds the same order. When the arena
 * reaches half the memory limit it is sorted and spilled as a run to an
 * unlinked file beside the database, by a thread of its own while a second
 * arena fills; at the end the runs are merged, so memory stays bounded
 * whatever the number of records, and the order is the same. The calls are
 * made from one thread at a time (the bulk's own threads are joined before
 * tsdb_bulk_finish and tsdb_bulk_free return).
 *
 *   TsDbBulkOptions o = {.mem_limit = 1024u << 20, .batch = 5000};
 *   tsdb_bulk_resume_point(db, &o.skip, &err);      // records already written
 *   TsDbBulk *b;
 *   tsdb_bulk_create(db, "g2p1.mdb", &o, &b, &err);
 *   for (...) tsdb_bulk_add(b, &rec, &err);           // any order
 *   tsdb_bulk_finish(b, &err);                       // writes them in key order
 *   tsdb_bulk_free(b);
 *
 * Each write transaction stores as its checkpoint the number of records
 * written so far in key order (8 bytes, big-endian); tsdb_bulk_resume_point
 * reads it back, and a bulk made with that skip, given the same records,
 * writes only the rest.
 *
 *   arena / run entry: key_len 1 | key key_len | length 2 | flags 4 |
 *                      root_mates 1 | line_len 1 | line 2 x line_len
 *                      (host byte order; lines of at most 255 moves)
 */
#ifndef TSUME_TSDB_BULK_H
#define TSUME_TSDB_BULK_H

#include <stddef.h>
#include <stdint.h>

#include "tsdb.h"

#define TSDB_BULK_LINE_MAX 255

typedef struct {
  size_t mem_limit;  /* bytes of the two arenas and their offsets: an arena is spilled as a run
                        at half of it (while the other fills); 0 = 1 GiB */
  size_t batch;      /* records per write transaction; 0 = 5000; fewer when mem_limit is small
                      * (the two batches of records take at most an eighth of it, 1,000 at least) */
  uint64_t skip;     /* the first `skip` records in key order are already stored */
  size_t release_lag; /* bytes at the database file's end kept in the page cache while it is written;
                         what lies before them is written back and dropped (0 = 64 MB) */
  /* called after every 2^20 records in key order (written or skipped), with
   * that number and the number added; may be NULL */
  void (*progress)(uint64_t done, uint64_t total, void *ctx);
  void *progress_ctx;
} TsDbBulkOptions;

typedef struct {
  uint64_t added;     /* records given to tsdb_bulk_add */
  uint64_t written;   /* records stored, the skipped ones included */
  int runs;           /* sorted runs spilled to disk */
  int merges;         /* merges of runs into a run (more were spilled than a merge reads at once) */
  int merge_width;    /* runs a merge reads at once */
  int runs_peak;      /* the most runs (files) held at once: at most 512 while spilling */
  uint64_t run_bytes; /* bytes spilled */
  uint64_t run_disk;  /* the runs' size on disk (zstd) */
  uint64_t db_need;   /* tsdb_bulk_db_need when asked */
  uint64_t released;  /* bytes of the database file dropped from the page cache once written back */
} TsDbBulkStats;

typedef struct TsDbBulk TsDbBulk;

/* The checkpoint of the last write transaction: records already written in
 * key order (0 when none, or when the checkpoint is not a bulk writer's). */
int tsdb_bulk_resume_point(TsDb *db, uint64_t *skip, TsError *err);
/* A bulk writer into db; path is the database file's path (runs are made
 * beside it). TS_ERR_NOMEM. */
int tsdb_bulk_create(TsDb *db, const char *path, const TsDbBulkOptions *o, TsDbBulk **out, TsError *err);
/* Adds one record (key, length, flags, root_mates, line; ext is not kept).
 * TS_ERR_USAGE for a line longer than TSDB_BULK_LINE_MAX or a bad key length,
 * TS_ERR_IO when a run cannot be written, TS_ERR_NOMEM. */
int tsdb_bulk_add(TsDbBulk *b, const TsRecord *rec, TsError *err);
/* Adds every record of another database (e.g. a shard written by another
 * process); *added (may be NULL) gets their number. Errors of tsdb_foreach
 * and tsdb_bulk_add. */
int tsdb_bulk_add_db(TsDbBulk *b, TsDb *from, uint64_t *added, TsError *err);
/* Writes every record added, in key order (a key added twice: the later
 * record wins inside a batch; add each key once). Errors of tsdb_put_batch,
 * TS_ERR_IO for the runs. */
int tsdb_bulk_finish(TsDbBulk *b, TsError *err);
/* Bytes the database file may grow by when the records added (but the
 * `skip` already stored) are written: an estimate from their sizes, on the
 * high side. */
uint64_t tsdb_bulk_db_need(const TsDbBulk *b);
void tsdb_bulk_stats(const TsDbBulk *b, TsDbBulkStats *st);
void tsdb_bulk_free(TsDbBulk *b);

#endif
