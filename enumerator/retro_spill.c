/*
 * retro_spill.c - the lists a phase gathers before it inserts them (the mates,
 * each layer's new positions): items of one size kept in memory up to a
 * budget, the rest appended to an unlinked file beside the database, read
 * back in the order they were pushed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "retro_internal.h"

#define SPILL_IO_BUF ((size_t)1 << 20)
/* A list's file is written and read back SPILL_STEP bytes at a time, and
 * let go of the page cache SPILL_LAG behind (page_release.h): a phase spills
 * gigabytes (G4S1: 10 GB over its mates and layers; the copies into the page
 * cache were 29 % of its mates phase) and reads them back once, in order. */
#define SPILL_STEP ((size_t)64 << 20)
#define SPILL_LAG ((off_t)64 << 20)

void retro_spill_init(SpillList *l, size_t elem, size_t cap, const char *prefix) {
  memset(l, 0, sizeof *l);
  l->elem = elem;
  l->cap = prefix ? cap : 0;
  l->prefix = prefix;
}

/* The memory part to the file (made on the first spill), then empty. */
static int spill_out(SpillList *l) {
  if (!l->f) {
    char name[4096];
    snprintf(name, sizeof name, "%s.spill-XXXXXX", l->prefix);
    int fd = mkostemp(name, O_CLOEXEC);
    if (fd < 0) return TS_ERR_IO;
    unlink(name); /* freed by the system however the process ends */
    l->f = fdopen(fd, "w+b");
    if (!l->f) {
      close(fd);
      return TS_ERR_IO;
    }
    l->iobuf = malloc(SPILL_IO_BUF);
    if (l->iobuf) setvbuf(l->f, l->iobuf, _IOFBF, SPILL_IO_BUF);
  }
  size_t step = SPILL_STEP / l->elem;
  for (size_t i = 0; i < l->n; i += step) {
    size_t k = l->n - i < step ? l->n - i : step;
    if (fwrite(l->buf + i * l->elem, l->elem, k, l->f) != k || fflush(l->f) != 0) return TS_ERR_IO;
    l->nfile += k;
    page_release_behind(fileno(l->f), &l->rel, (off_t)(l->nfile * l->elem), SPILL_LAG, true);
  }
  l->n = 0;
  return TS_OK;
}

int retro_spill_push(SpillList *l, const void *item) {
  if (l->cap && l->n == l->cap) {
    int rc = spill_out(l);
    if (rc) return rc;
  }
  if (l->n == l->bufcap) {
    size_t nc = l->bufcap ? l->bufcap * 2 : 4096;
    if (l->cap && nc > l->cap) nc = l->cap;
    uint8_t *nb = realloc(l->buf, nc * l->elem);
    if (!nb) return TS_ERR_NOMEM;
    l->buf = nb;
    l->bufcap = nc;
  }
  memcpy(l->buf + l->n * l->elem, item, l->elem);
  l->n++;
  return TS_OK;
}

uint64_t retro_spill_count(const SpillList *l) { return l->nfile + l->n; }

int retro_spill_foreach(SpillList *l, int (*fn)(const void *item, void *ctx), void *ctx) {
  if (l->f) {
    if (fflush(l->f) != 0 || fseek(l->f, 0, SEEK_SET) != 0) return TS_ERR_IO;
    (void)posix_fadvise(fileno(l->f), 0, 0, POSIX_FADV_SEQUENTIAL);
    l->rel = (PageRelease){0, 0};
    uint8_t item[64];
    if (l->elem > sizeof item) return TS_ERR_USAGE;
    uint64_t step = SPILL_STEP / l->elem;
    for (uint64_t i = 0; i < l->nfile; i++) {
      if (i % step == 0 && i) page_release_behind(fileno(l->f), &l->rel, (off_t)(i * l->elem), SPILL_LAG, false);
      if (fread(item, l->elem, 1, l->f) != 1) return TS_ERR_IO;
      int rc = fn(item, ctx);
      if (rc) return rc;
    }
  }
  for (size_t i = 0; i < l->n; i++) {
    int rc = fn(l->buf + i * l->elem, ctx);
    if (rc) return rc;
  }
  return TS_OK;
}

void retro_spill_free(SpillList *l) {
  if (l->f) fclose(l->f);
  free(l->iobuf);
  free(l->buf);
  memset(l, 0, sizeof *l);
}
