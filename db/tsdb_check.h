/*
 * tsdb_check.h - structural check of a problem database file (tsdb.h),
 * without trusting it: the file is read with pread(), page by page, never
 * mapped, so a damaged or truncated file cannot fault the checker.
 *
 * LMDB keeps no page checksums, so what can be checked is the structure:
 *
 *   meta pages   page flags, magic, format version, page size, the two
 *                transaction ids (they alternate), last page against the
 *                file size, root pages in range
 *   every page   its own page number, its kind (branch, leaf, overflow)
 *                where its parent says, node offsets and sizes inside it,
 *                keys in order and inside the range the parent gives,
 *                depth, each page reached once; at the end every page is
 *                either in a tree or on the free list, never both
 *   every tree   page and entry counts against its header (LMDB's MDB_db)
 *   records      prob: key length and the record framing (tag, length,
 *                zstd frame, body: tsdb_codec.h); by_len: 2-byte keys,
 *                the same (key, length) pairs as prob (count and a
 *                fingerprint); meta: magic, version, material, rules
 *
 * What cannot be seen: a change that keeps every structure valid, e.g.
 * bytes of a move inside a raw record that still form a legal compact move,
 * or a flag bit (records carry no checksum); `tsume verify` re-solves the
 * complete works and finds wrong lengths and flags there.
 *
 *   TsDbCheckStats st;
 *   int rc = tsdb_check_file("g2p1.mdb", report_one, ctx, &st, &err);
 *   // rc: TS_OK when the file was read to the end (st.damages tells whether
 *   // it is sound), TS_ERR_IO when it cannot be read, TS_ERR_NOMEM.
 *
 * tsdb_check_header is the cheap part (meta pages, file size, root page
 * headers) that tsdb_open runs before it lets LMDB map the file.
 */
#ifndef TSUME_TSDB_CHECK_H
#define TSUME_TSDB_CHECK_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "tsdb.h"

#define TSDB_CHECK_NO_PAGE UINT64_MAX

/* One thing found broken. Valid during the callback only. */
typedef struct {
  uint64_t page;           /* page number, TSDB_CHECK_NO_PAGE when not about one page */
  const char *table;       /* "meta page", "free", "main", "meta", "prob", "by_len", "file" */
  const char *kind;        /* short name of the damage, e.g. "bad page number" */
  const uint8_t *key;      /* record key when about one record, else NULL */
  size_t key_len;
  char detail[200];        /* what was expected and what was found */
} TsDbDamage;

/* Return 0 to go on; anything else stops the check (returned by tsdb_check_file). */
typedef int (*TsDbDamageFn)(const TsDbDamage *d, void *ctx);

typedef struct {
  uint64_t file_bytes;
  uint32_t page_size;
  uint64_t last_page;      /* from the meta page LMDB would use */
  uint64_t txnid;
  uint64_t pages_used;     /* pages reached from a tree (meta pages included) */
  uint64_t pages_free;     /* pages on the free list */
  uint64_t records;        /* prob entries walked */
  uint64_t by_len_entries; /* (length, key) pairs walked */
  uint64_t damages;        /* things reported */
} TsDbCheckStats;

/*
 * Reads the whole file and calls fn for everything broken (fn may be NULL to
 * count only). Returns TS_OK when the walk finished, whatever it found;
 * TS_ERR_IO when the file cannot be opened or read; TS_ERR_NOMEM; or fn's
 * nonzero value.
 */
int tsdb_check_file(const char *path, TsDbDamageFn fn, void *ctx, TsDbCheckStats *st,
                    TsError *err);

/*
 * The checks tsdb_open makes before mapping an existing file: both meta
 * pages sound, the file at least as long as the last page of the newer meta
 * says, and its two root pages carry their own numbers and a tree page kind.
 * TS_ERR_DB with "truncated database: ..." or "damaged database: ..." naming
 * path; TS_ERR_IO when the file cannot be read.
 */
int tsdb_check_header(const char *path, TsError *err);

#endif
