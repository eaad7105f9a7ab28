/*
 * tamper_db.c - rewrites one record of a problem database so that `tsume
 * verify` has something to find (its negative test).
 *
 *   tamper_db DB length   the first complete work of 3 plies: stored length 5
 *   tamper_db DB yozume   the first 余詰 problem (not complete) of 3 plies or
 *                         more: marked complete, yozume cleared
 *
 * Prints the record's length and flags before the change; exit 0 when a
 * record was rewritten, 1 when none fits, 2 on bad usage, 3 on a database error.
 */
#include <stdbool.h>
#include <stdio.h>
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

int main(int argc, char **argv) {
  if (argc != 3 || (strcmp(argv[2], "length") && strcmp(argv[2], "yozume"))) {
    fprintf(stderr, "usage: tamper_db DB length|yozume\n");
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
