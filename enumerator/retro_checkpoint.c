/*
 * retro_checkpoint.c - the table after the layers, kept in a file beside the
 * database so that a resumed run goes straight to the classification instead
 * of making the mates and the layers again (for the largest sets, hours).
 *
 * The file: a header (format, the material and the rules of the run, the
 * table's size), the run's RetroStats and per-value counts, then the table's
 * slots as they are in memory. A checksum over all of it tells a file cut
 * short or damaged from a good one; a file of another run or another build's
 * format is not used. It is written as PATH.tmp and renamed, so PATH is
 * either absent or whole (a torn write after a crash fails the checksum).
 * In a distributed run each rank keeps its own share of the table, and the
 * header names the rank and the number of ranks.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "retro_internal.h"

#define CK_MAGIC "TSUMETBL"
#define CK_VERSION 2u
/* bytes read or written at a time; the checksum is chained over blocks of this size */
#define CK_CHUNK ((size_t)1 << 20)

typedef struct {
  char magic[8];
  uint32_t version, rec_size, stats_size, counts_size;
  int32_t count[HAND_PT_NB], min_count[HAND_PT_NB];
  int32_t max_moves;
  uint8_t strict_last, strict_alt, concrete, ranging;
  int32_t rank, nranks; /* a distributed run's rank keeps its share of the table */
  uint64_t cap, used, records;
  uint64_t sum; /* over the header (this field 0) and everything after it */
} CkHead;

/* A checksum of n bytes (n a multiple of 8) continued from h: four lanes of
 * multiply-xor, so it runs at memory speed. */
static uint64_t ck_sum(uint64_t h, const void *p, size_t n) {
  const uint64_t *w = p;
  uint64_t a = h, b = h ^ 0x9e3779b97f4a7c15ULL, c = h + 1, d = ~h;
  size_t i = 0, nw = n / 8;
  for (; i + 4 <= nw; i += 4) {
    a = (a ^ w[i]) * 0xff51afd7ed558ccdULL;
    b = (b ^ w[i + 1]) * 0xc4ceb9fe1a85ec53ULL;
    c = (c ^ w[i + 2]) * 0xff51afd7ed558ccdULL;
    d = (d ^ w[i + 3]) * 0xc4ceb9fe1a85ec53ULL;
  }
  for (; i < nw; i++) a = (a ^ w[i]) * 0xff51afd7ed558ccdULL;
  uint64_t x = a ^ (b >> 7) ^ (c << 13) ^ (d >> 29);
  x ^= x >> 33;
  return x * 0x9e3779b97f4a7c15ULL + n;
}

static void ck_head(const Retro *r, CkHead *h) {
  memset(h, 0, sizeof *h);
  memcpy(h->magic, CK_MAGIC, 8);
  h->version = CK_VERSION;
  h->rec_size = sizeof(XRecord);
  h->stats_size = sizeof(RetroStats);
  h->counts_size = sizeof r->count;
  for (int t = 0; t < HAND_PT_NB; t++) {
    h->count[t] = r->mat.count[t];
    h->min_count[t] = r->mat.min_count[t];
  }
  h->max_moves = r->opt.max_moves;
  h->strict_last = r->opt.strict_last_move;
  h->strict_alt = r->opt.strict_alternatives;
  h->concrete = r->opt.concrete_unmoves;
  h->ranging = r->ranging;
  h->rank = r->rank;
  h->nranks = r->nranks;
  h->cap = r->cap;
  h->used = r->used;
  h->records = r->records;
}

/* The checksum of n bytes continued from h, block by block as ck_read makes it. */
static uint64_t ck_sum_blocks(uint64_t h, const void *p, size_t n) {
  const uint8_t *b = p;
  for (size_t off = 0; off < n; off += CK_CHUNK) h = ck_sum(h, b + off, n - off < CK_CHUNK ? n - off : CK_CHUNK);
  return h;
}

static int ck_write(FILE *f, const void *p, size_t n) {
  const uint8_t *b = p;
  for (size_t off = 0; off < n; off += CK_CHUNK) {
    size_t k = n - off < CK_CHUNK ? n - off : CK_CHUNK;
    if (fwrite(b + off, 1, k, f) != k) return -1;
  }
  return 0;
}

int retro_checkpoint_save(const Retro *r, const char *path, TsError *err) {
  char tmp[4096];
  snprintf(tmp, sizeof tmp, "%s.tmp", path);
  FILE *f = fopen(tmp, "wb");
  if (!f) return ts_error_set(err, TS_ERR_IO, tmp, 0, 0, "cannot write the table's checkpoint: %s", strerror(errno));
  CkHead h;
  ck_head(r, &h);
  uint64_t sum = ck_sum(0, &h, sizeof h);
  sum = ck_sum_blocks(sum, &r->stats, sizeof r->stats);
  sum = ck_sum_blocks(sum, r->count, sizeof r->count);
  h.sum = ck_sum_blocks(sum, r->tab, (size_t)r->cap * sizeof(XRecord));
  int bad = ck_write(f, &h, sizeof h) || ck_write(f, &r->stats, sizeof r->stats) ||
            ck_write(f, r->count, sizeof r->count) || ck_write(f, r->tab, (size_t)r->cap * sizeof(XRecord));
  int e = errno;
  if (fclose(f) != 0 && !bad) {
    bad = 1;
    e = errno;
  }
  if (!bad && rename(tmp, path) != 0) {
    bad = 1;
    e = errno;
  }
  if (bad) {
    unlink(tmp);
    return ts_error_set(err, TS_ERR_IO, path, 0, 0, "cannot write the table's checkpoint: %s", strerror(e));
  }
  return TS_OK;
}

static int ck_read(FILE *f, void *p, size_t n, uint64_t *sum) {
  uint8_t *b = p;
  for (size_t off = 0; off < n; off += CK_CHUNK) {
    size_t k = n - off < CK_CHUNK ? n - off : CK_CHUNK;
    if (fread(b + off, 1, k, f) != k) return -1;
    *sum = ck_sum(*sum, b + off, k);
  }
  return 0;
}

int retro_checkpoint_load(Retro *r, const char *path, TsError *err) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    if (errno == ENOENT) return TS_ERR_NOTFOUND;
    return ts_error_set(err, TS_ERR_IO, path, 0, 0, "cannot read the table's checkpoint: %s", strerror(errno));
  }
  CkHead h, want;
  ck_head(r, &want);
  int rc = TS_OK;
  const char *why = NULL;
  if (fread(&h, sizeof h, 1, f) != 1 || memcmp(h.magic, CK_MAGIC, 8) != 0)
    why = "not a table checkpoint, or cut short";
  else if (h.version != want.version || h.rec_size != want.rec_size || h.stats_size != want.stats_size ||
           h.counts_size != want.counts_size)
    why = "written by another version of tsume";
  else if (memcmp(h.count, want.count, sizeof h.count) || memcmp(h.min_count, want.min_count, sizeof h.min_count) ||
           h.max_moves != want.max_moves || h.strict_last != want.strict_last || h.strict_alt != want.strict_alt ||
           h.concrete != want.concrete)
    why = "of another material or other rules";
  else if (h.rank != want.rank || h.nranks != want.nranks)
    why = "of another rank or another number of ranks";
  else if (!h.cap || (h.cap & (h.cap - 1)) || h.records > h.cap || h.cap > ((uint64_t)1 << 40))
    why = "damaged (its table's size)";
  if (why) {
    fclose(f);
    return ts_error_set(err, TS_ERR_DB, path, 0, 0, "table checkpoint not used: %s", why);
  }
  /* the file's size first, so that one cut short does not take a table's room (past --mem, its disk) */
  struct stat sb = {0};
  uint64_t want_size = sizeof h + sizeof(RetroStats) + sizeof r->count + h.cap * sizeof(XRecord);
  if (fstat(fileno(f), &sb) != 0 || (uint64_t)sb.st_size != want_size) {
    fclose(f);
    return ts_error_set(err, TS_ERR_DB, path, 0, 0, "table checkpoint not used: %s",
                        (uint64_t)sb.st_size < want_size ? "cut short" : "longer than its table");
  }
  uint64_t stored = h.sum;
  h.sum = 0;
  uint64_t sum = ck_sum(0, &h, sizeof h);
  RetroStats st;
  uint64_t counts[2][RETRO_MAX_LEN + 2];
  if (ck_read(f, &st, sizeof st, &sum) || ck_read(f, counts, sizeof counts, &sum)) {
    fclose(f);
    return ts_error_set(err, TS_ERR_DB, path, 0, 0, "table checkpoint not used: cut short");
  }
  if ((rc = retro_table_reset(r, h.cap)) != TS_OK) { /* past --mem: in a file beside the database */
    fclose(f);
    return ts_error_set(err, rc, path, 0, 0, "table checkpoint not used: no room for its %llu MB (memory, or past --mem the disk: %s)",
                        (unsigned long long)(h.cap * sizeof(XRecord) >> 20), strerror(r->tab_errno));
  }
  int cut = ck_read(f, r->tab, (size_t)h.cap * sizeof(XRecord), &sum);
  int extra = !cut && fgetc(f) != EOF;
  fclose(f);
  if (cut || extra || sum != stored) {
    retro_checkpoint_unload(r);
    return ts_error_set(err, TS_ERR_DB, path, 0, 0, "table checkpoint not used: %s",
                        cut ? "cut short" : extra ? "longer than its table" : "damaged (checksum)");
  }
  r->used = h.used;
  r->records = h.records;
  r->stats = st;
  r->stats.table_file = r->tab_file; /* where this run holds it */
  r->dense = st.table_dense;
  memcpy(r->count, counts, sizeof counts);
  return TS_OK;
}

void retro_checkpoint_unload(Retro *r) {
  if (retro_table_reset(r, TABLE_START)) memset(r->tab, 0, (size_t)r->cap * sizeof(XRecord));
  r->records = r->used = 0;
  memset(r->count, 0, sizeof r->count);
  memset(&r->stats, 0, sizeof r->stats);
  r->dense = false;
}
