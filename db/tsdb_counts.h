/*
 * tsdb_counts.h - the counts of every record a generation produced, kept in
 * the database's meta so that a database storing only some of its records
 * (`enumerate --store complete|minimal`) still answers counts for all.
 *
 * The table holds, per (mate length, flags word), the number of records and
 * the number counting a position and its mirror image separately (a symmetric
 * position counts once). Any query of the form "length L (or any) and flags
 * including NEED" is a sum over it, so it is exact for every filter.
 *
 *   TsDbCounts *c = tsdb_counts_new();
 *   tsdb_counts_add(c, length, flags, symmetric);     // once per record made
 *   tsdb_counts_store(db, c, "complete", &err);        // meta "enumerate.counts"
 *   ...
 *   TsDbCounts *c; char store[16];
 *   tsdb_counts_load(db, &c, store, sizeof store, &err);  // TS_ERR_NOTFOUND: none kept
 *   for (size_t i = 0; i < tsdb_counts_size(c); i++) tsdb_counts_at(c, i, &row);
 *
 * Meta value (UTF-8 text): "store<TAB>MODE\n", then one line per row,
 * "length<TAB>flags (hex)<TAB>count<TAB>count with mirrors\n", in increasing
 * (length, flags) order.
 */
#ifndef TSUME_TSDB_COUNTS_H
#define TSUME_TSDB_COUNTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tsdb.h"

#define TSDB_META_COUNTS "enumerate.counts"

typedef struct {
  unsigned length;
  uint32_t flags;
  uint64_t count, count_both;
} TsDbCountRow;

typedef struct TsDbCounts TsDbCounts;

/* An empty table; NULL when out of memory. */
TsDbCounts *tsdb_counts_new(void);
void tsdb_counts_free(TsDbCounts *c);
/* Counts one record. TS_ERR_NOMEM. */
int tsdb_counts_add(TsDbCounts *c, unsigned length, uint32_t flags, bool symmetric);
size_t tsdb_counts_size(const TsDbCounts *c);
/* Row i in increasing (length, flags) order (after tsdb_counts_store or load). */
void tsdb_counts_at(const TsDbCounts *c, size_t i, TsDbCountRow *row);
/* Writes the table and the store mode ("all", "complete", "minimal") into db's meta. */
int tsdb_counts_store(TsDb *db, TsDbCounts *c, const char *store, TsError *err);
/* Reads them back: TS_ERR_NOTFOUND when the database keeps none, TS_ERR_DB
 * when the text is damaged, TS_ERR_NOMEM. */
int tsdb_counts_load(TsDb *db, TsDbCounts **out, char *store, size_t store_cap, TsError *err);

#endif
