/*
 * cmd_dbcheck.c - `tsume db-check`: reads a database file page by page
 * without mapping it (db/tsdb_check.h) and prints what is broken.
 *
 *   tsume db-check --db g2p1.mdb [--max N]
 *
 * Exit 0 when the file is sound, 1 when damage was found, 2 on bad usage,
 * 3 when the file cannot be read.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "dbutil.h"
#include "tsdb_check.h"

static const char DBCHECK_HELP[] =
    "usage: tsume db-check --db PATH [--max N]\n"
    "Reads every page and every record of a database (the free list, the main tree, and the\n"
    "tables meta, prob and by_len) without trusting it, and prints each thing found broken:\n"
    "  PATH: page P (table): kind: detail [key HEX]\n"
    "then a summary line. What is checked: the meta pages (magic, version, page size,\n"
    "transaction ids, last page against the file size, root pages), every page's own number,\n"
    "kind, node offsets and sizes, key order, the tree counts, every page in a tree or free\n"
    "exactly once, each record's framing (tag, length, zstd frame, moves) and by_len against\n"
    "prob. Then, in a file whose structure is sound, every record's content: its key decodes\n"
    "and is the canonical form (of a position and its mirror, the smaller code) of a legal\n"
    "problem (attacker to move, no attacker king) of the database's material (each piece of\n"
    "the material on the board or in the attacker's hand, every other one in the defender's\n"
    "hand; a database of compose --db holds any material), and each stored move is legal.\n"
    "LMDB keeps no checksums: a change that leaves all of this valid (a flag bit, a move\n"
    "that is still a move) is not seen here; `tsume verify` re-solves complete works.\n"
    "  --max N   print at most N findings (default 100; the summary counts all)\n"
    "A sound file whose enumeration is not finished (in progress or interrupted) is\n"
    "named so in the summary and in a warning on stderr, as every reader does.\n"
    "Exit status: 0 sound, 1 damaged, 2 bad usage, 3 the file cannot be read.\n";

typedef struct {
  const char *path;
  unsigned long long max, shown, bad_records;
  const Material *mat;
} CheckCtx;

/* One record's content: its key decodes to a problem of the database's material, in
 * canonical form, and its stored line is legal (dbutil_record_decode). */
static int on_record(const TsRecord *r, void *vctx) {
  CheckCtx *c = vctx;
  Position pos;
  static Move line[TSDB_LINE_MAX];
  int n;
  TsError err;
  if (!dbutil_record_decode(r, c->mat, &pos, line, &n, &err)) return 0;
  c->bad_records++;
  if (c->shown++ < c->max) printf("%s: (prob): %s: %s\n", c->path, err.where, err.msg);
  return 0;
}

static int on_damage(const TsDbDamage *d, void *vctx) {
  CheckCtx *c = vctx;
  if (c->shown++ >= c->max) return 0;
  printf("%s: ", c->path);
  if (d->page != TSDB_CHECK_NO_PAGE) printf("page %llu ", (unsigned long long)d->page);
  printf("(%s): %s: %s", d->table, d->kind, d->detail);
  if (d->key && d->key_len) {
    printf(" [key ");
    for (size_t i = 0; i < d->key_len; i++) printf("%02x", d->key[i]);
    printf("]");
  }
  printf("\n");
  return 0;
}

int cmd_dbcheck(int argc, char **argv) {
  static const struct option OPTS[] = {
      {"db", required_argument, NULL, 'd'},
      {"max", required_argument, NULL, 'm'},
      {"help", no_argument, NULL, 'h'},
      {NULL, 0, NULL, 0},
  };
  CheckCtx c = {.max = 100};
  uint64_t max;
  int o;
  opterr = 0;
  optind = 1;
  while ((o = getopt_long(argc, argv, ":h", OPTS, NULL)) != -1) {
    switch (o) {
    case 'h':
      fputs(DBCHECK_HELP, stdout);
      return 0;
    case 'd':
      c.path = optarg;
      break;
    case 'm':
      if (cli_option_u64("db-check", "--max", optarg, 0, CLI_NODES_MAX, &max)) return 2;
      c.max = max;
      break;
    default:
      return cli_getopt_error("db-check", o, argv);
    }
  }
  if (optind < argc) return cli_usage_error("db-check", "unexpected argument '%s'", argv[optind]);
  if (!c.path) return cli_usage_error("db-check", "missing --db PATH");
  TsDbCheckStats st;
  TsError err;
  int rc = tsdb_check_file(c.path, on_damage, &c, &st, &err);
  if (rc) return cli_fail("db-check", &err);
  /* a sound file may still hold an enumeration that was interrupted: once the
   * structure is known good, its meta table says so, and db-check warns as every
   * reader does */
  bool finished = true;
  if (!st.damages) {
    TsDb *db = NULL;
    if (dbutil_open_reader("db-check", c.path, &db, &finished)) return 3;
    /* the records' content: a changed byte can leave every structure valid */
    Material mat; /* a database of compose --db ("compose") has none: its records are any problem */
    c.mat = dbutil_material_load(db, &mat) ? &mat : NULL;
    rc = tsdb_foreach(db, -1, on_record, &c, &err);
    tsdb_close(db);
    if (rc && rc != 1) return cli_fail("db-check", &err);
    st.damages += c.bad_records;
  }
  printf("%s: %s%s: %llu finding(s); %llu bytes, page size %u, pages 0..%llu (%llu in trees, %llu free), "
         "%llu records, %llu by_len entries\n",
         c.path, st.damages ? "damaged" : "sound", finished ? "" : " (enumeration not finished)",
         (unsigned long long)st.damages,
         (unsigned long long)st.file_bytes, st.page_size, (unsigned long long)st.last_page,
         (unsigned long long)st.pages_used, (unsigned long long)st.pages_free,
         (unsigned long long)st.records, (unsigned long long)st.by_len_entries);
  if (fflush(stdout) != 0 || ferror(stdout)) {
    fprintf(stderr, "tsume db-check: cannot write the report\n");
    return 3;
  }
  return st.damages ? 1 : 0;
}
