/*
 * tamper_db.c - rewrites one record of a problem database so that `tsume
 * verify` has something to find (its negative test).
 *
 *   tamper_db DB length   the first complete work of 3 plies: stored length 5
 *   tamper_db DB yozume   the first 余詰 problem (not complete) of 3 plies or
 *                         more: marked complete, yozume cleared
 *   tamper_db DB unfinished COPY
 *                         writes COPY (a new file) with DB's material, rules and
 *                         records but not the figures `tsume enumerate` stores
 *                         last: a database as an interrupted run leaves it
 *
 * Prints the record's length and flags before the change; exit 0 when a
 * record was rewritten, 1 when none fits, 2 on bad usage, 3 on a database error.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tsdb.h"

typedef struct {
  const char *mode;
  TsRecord rec;
  int found;
} Pick;

static int pick(const TsRecord *rec, void *vctx) {
  Pick *p = vctx;
  bool fits;
  if (!strcmp(p->mode, "length"))
    fits = rec->length == 3 && (rec->flags & TSDB_F_COMPLETE);
  else
    fits = rec->length >= 3 && (rec->flags & TSDB_F_YOZUME) && !(rec->flags & TSDB_F_COMPLETE);
  if (!fits) return 0;
  p->rec = *rec;
  p->found = 1;
  return 1; /* stop the walk */
}

/* Records gathered for one write batch of the copy. */
typedef struct {
  TsDb *dst;
  TsRecord *recs;
  size_t n;
  int rc;
  TsError err;
} Copy;

#define COPY_BATCH 1000

static int copy_one(const TsRecord *rec, void *vctx) {
  Copy *c = vctx;
  c->recs[c->n++] = *rec;
  if (c->n == COPY_BATCH) {
    c->rc = tsdb_put_batch(c->dst, c->recs, c->n, NULL, 0, &c->err);
    c->n = 0;
  }
  return c->rc;
}

static int copy_unfinished(const char *src, const char *dst) {
  TsDb *a, *b;
  TsDbMeta meta;
  Copy c = {0};
  if (tsdb_open(src, TSDB_RDONLY, NULL, &a, &c.err) || tsdb_meta_get(a, &meta, &c.err)) {
    fprintf(stderr, "tamper_db: %s\n", c.err.msg);
    return 3;
  }
  if (tsdb_open(dst, TSDB_CREATE | TSDB_NOSYNC, &meta, &b, &c.err)) {
    fprintf(stderr, "tamper_db: %s\n", c.err.msg);
    tsdb_close(a);
    return 3;
  }
  c.dst = b;
  c.recs = malloc(COPY_BATCH * sizeof *c.recs);
  int rc = c.recs ? tsdb_foreach(a, -1, copy_one, &c, &c.err) : 3;
  if (!rc && c.n) rc = tsdb_put_batch(b, c.recs, c.n, NULL, 0, &c.err);
  if (!rc) rc = tsdb_sync(b, &c.err);
  if (rc) fprintf(stderr, "tamper_db: %s\n", c.recs ? c.err.msg : "out of memory");
  free(c.recs);
  tsdb_close(b);
  tsdb_close(a);
  return rc ? 3 : 0;
}

int main(int argc, char **argv) {
  if (argc == 4 && !strcmp(argv[2], "unfinished")) return copy_unfinished(argv[1], argv[3]);
  if (argc != 3 || (strcmp(argv[2], "length") && strcmp(argv[2], "yozume"))) {
    fprintf(stderr, "usage: tamper_db DB length|yozume\n       tamper_db DB unfinished COPY\n");
    return 2;
  }
  TsDb *db;
  TsError err;
  if (tsdb_open(argv[1], 0, NULL, &db, &err)) {
    fprintf(stderr, "tamper_db: %s\n", err.msg);
    return 3;
  }
  Pick p = {.mode = argv[2]};
  int rc = tsdb_foreach(db, -1, pick, &p, &err);
  if (rc && rc != 1) {
    fprintf(stderr, "tamper_db: %s\n", err.msg);
    tsdb_close(db);
    return 3;
  }
  if (!p.found) {
    tsdb_close(db);
    return 1;
  }
  printf("length %u flags 0x%x\n", p.rec.length, p.rec.flags);
  if (!strcmp(p.mode, "length")) {
    p.rec.length = 5;
  } else {
    p.rec.flags |= TSDB_F_COMPLETE;
    p.rec.flags &= ~TSDB_F_YOZUME;
  }
  rc = tsdb_put_batch(db, &p.rec, 1, NULL, 0, &err);
  tsdb_close(db);
  if (rc) {
    fprintf(stderr, "tamper_db: %s\n", err.msg);
    return 3;
  }
  return 0;
}
