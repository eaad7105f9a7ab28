#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "dbguard.h"
#include "dbutil.h"
#include "encode.h"
#include "json.h"
#include "sfen.h"
#include "tsdb_counts.h"

static const char QUERY_HELP[] =
    "usage: tsume query --db PATH [--moves N] [--complete | --flag F] [--minimal]\n"
    "                   [--count] [--both-mirrors] [--limit K] [--json]\n"
    "       tsume query --db PATH --generation [--json]\n"
    "Lists the problems of an enumerated database: one per line, 'SFEN<TAB>length<TAB>flags'.\n"
    "  --moves N       only N-ply problems\n"
    "  --complete      only complete works (完全作)\n"
    "  --flag F        only problems with flag F (given again: with every one): complete,\n"
    "                  yozume, hayazume, last-move-alt, komaamari, hendou, henchou,\n"
    "                  higentei, tejun-zengo, ukai, minimal, futile-cut, unsettled, fuzume\n"
    "                  (or nomate); the meaning of each is in docs/design.md. The flaws of\n"
    "                  a given line only (illegal, not-check, not-mate, not-longest-defence)\n"
    "                  are named as such: no stored problem has them. --complete with a\n"
    "                  fatal flaw (yozume, komaamari, ...) is said to match nothing\n"
    "  --minimal       only minimal problems (no piece can go to the defender's hand)\n"
    "  --count         with --moves: the count alone on the last line; alone: a table of\n"
    "                  length x flag. On a database made with `enumerate --store complete`\n"
    "                  or `minimal` the counts are those of every problem enumerated (kept\n"
    "                  in the database), not only of the stored ones\n"
    "  --both-mirrors  with --count: count a position and its mirror image separately; a\n"
    "                  symmetric position counts once (the database stores one of the two,\n"
    "                  and a listing shows what is stored)\n"
    "  --limit K       at most K problems (K >= 1)\n"
    "  --json          one JSON object per problem (sfen, length, flags, root_mates, line);\n"
    "                  with --count, one object: {\"count\":N} with --moves, else\n"
    "                  {\"lengths\":[{\"length\":L,\"problems\":N,\"<flag>\":N,...}],\"total\":N}\n"
    "  --generation    the figures of the enumeration that made the database: per layer\n"
    "                  (plies to mate) the positions of that value in the retrograde table,\n"
    "                  余詰め判定 (attacker layers: a position reached again by un-moving, so\n"
    "                  another check mates) and 不詰め判定 (defender layers: a candidate with\n"
    "                  a reply not known to mate, held back as not mated); with --json, one\n"
    "                  object\n";

typedef struct {
  uint32_t need;
  uint64_t limit, shown;
  bool count_only, json, both;
  const Material *mat; /* the database's, for dbutil_record_decode (NULL: unknown) */
  uint64_t total;
  uint64_t table[1024][1 + DB_FLAG_NAMES_MAX]; /* [length][0 = all, 1 + flag index] */
  int rc;
  TsError err;
} QueryCtx;

static bool symmetric(const TsRecord *r) {
  Position p, m;
  if (pos_decode(r->key, r->key_len, &p, NULL)) return false;
  pos_mirror(&p, &m);
  return pos_equal(&p, &m);
}

static void count_add(QueryCtx *q, unsigned length, uint32_t flags, uint64_t w) {
  q->total += w;
  unsigned len = length < 1024 ? length : 1023;
  q->table[len][0] += w;
  for (size_t i = 0; i < DB_FLAG_NAMES_N; i++)
    if (flags & DB_FLAG_NAMES[i].bit) q->table[len][1 + i] += w;
}

static int on_record(const TsRecord *r, void *vctx) {
  QueryCtx *q = vctx;
  if ((r->flags & q->need) != q->need) return 0;
  uint64_t w = (q->both && !symmetric(r)) ? 2 : 1;
  if (q->count_only) {
    count_add(q, r->length, r->flags, w);
    return 0;
  }
  if (q->limit && q->shown >= q->limit) return 1;
  if (ferror(stdout)) return 1; /* output lost (full disk): main reports it */
  q->shown++;
  Position pos;
  static Move line[TSDB_LINE_MAX];
  int n;
  if (dbutil_record_decode(r, q->mat, &pos, line, &n, &q->err)) {
    q->rc = q->err.code;
    return 1;
  }
  if (q->json) {
    json_query_record(stdout, &pos, r, line, n);
    putchar('\n');
  } else {
    char sfen[SFEN_MAX], flags[256];
    sfen_write(&pos, sfen, sizeof sfen);
    dbutil_flags_format(r->flags, flags, sizeof flags);
    printf("%s\t%u\t%s\n", sfen, r->length, flags);
  }
  return 0;
}

/*
 * --count on a database that stores only some of its problems (enumerate
 * --store complete|minimal): the kept count table (tsdb_counts.h) answers for
 * all of them. *used is false when the database stores every problem or keeps
 * no table (the records are counted then).
 */
static int count_from_meta(TsDb *db, QueryCtx *q, int length, bool *used, TsError *err) {
  TsDbCounts *c;
  char store[16];
  *used = false;
  int rc = tsdb_counts_load(db, &c, store, sizeof store, err);
  if (rc == TS_ERR_NOTFOUND) return TS_OK;
  if (rc) return rc;
  if (strcmp(store, "all") != 0) {
    *used = true;
    for (size_t i = 0; i < tsdb_counts_size(c); i++) {
      TsDbCountRow row;
      tsdb_counts_at(c, i, &row);
      if ((row.flags & q->need) != q->need || (length >= 0 && row.length != (unsigned)length)) continue;
      count_add(q, row.length, row.flags, q->both ? row.count_both : row.count);
    }
  }
  tsdb_counts_free(c);
  return TS_OK;
}

/* query --generation: the stored figures (dbutil.h DB_META_GENERATION) as text or JSON. */
static int print_generation(TsDb *db, const char *path, bool json) {
  size_t len = 0;
  TsError err;
  int rc = tsdb_meta_get_raw(db, DB_META_GENERATION, NULL, 0, &len, &err);
  if (rc == TS_ERR_NOTFOUND) {
    cli_message("query", "%s holds no generation figures (made by an older version or not finished)", path);
    return 1;
  }
  char *t = rc ? NULL : malloc(len + 1);
  if (!rc && !t) rc = ts_error_set(&err, TS_ERR_NOMEM, path, 0, 0, "out of memory");
  if (rc || (rc = tsdb_meta_get_raw(db, DB_META_GENERATION, t, len, &len, &err))) {
    free(t);
    return cli_fail("query", &err);
  }
  t[len] = 0;
  if (!json) {
    fputs(t, stdout);
    free(t);
    return 0;
  }
  /* name<TAB>value lines become members; the layer table becomes "layers" */
  printf("{");
  bool table = false, first = true, first_row = true;
  for (char *line = strtok(t, "\n"); line; line = strtok(NULL, "\n")) {
    char *f[5] = {line};
    int nf = 1;
    for (char *p = line; nf < 5 && (p = strchr(p, '\t')); nf++) {
      *p++ = 0;
      f[nf] = p;
    }
    if (nf == 5 && !strcmp(f[0], "layer")) {
      printf("%s\"layers\":[", first ? "" : ",");
      table = true;
      first = false;
    } else if (table && nf == 5) {
      printf("%s{\"layer\":%s,\"side\":\"%s\",\"positions\":%s", first_row ? "" : ",", f[0], f[1], f[2]);
      if (strcmp(f[3], "-")) printf(",\"yozume\":%s", f[3]);
      if (strcmp(f[4], "-")) printf(",\"fuzume\":%s", f[4]);
      printf("}");
      first_row = false;
    } else if (!table && nf == 2) {
      bool num = f[1][0] && strspn(f[1], "0123456789") == strlen(f[1]);
      printf(num ? "%s\"%s\":%s" : "%s\"%s\":\"%s\"", first ? "" : ",", f[0], f[1]);
      first = false;
    }
  }
  printf("%s}\n", table ? "]" : "");
  free(t);
  return 0;
}

static int query_main(int argc, char **argv) {
  const char *path = NULL;
  uint64_t moves = 0, limit = 0;
  bool have_moves = false, generation = false;
  QueryCtx q;
  memset(&q, 0, sizeof q);
  static const struct option LONG[] = {
      {"help", no_argument, NULL, 'h'},          {"db", required_argument, NULL, 'd'},
      {"moves", required_argument, NULL, 'm'},   {"limit", required_argument, NULL, 'l'},
      {"complete", no_argument, NULL, 'c'},      {"minimal", no_argument, NULL, 'M'},
      {"flag", required_argument, NULL, 'f'},    {"count", no_argument, NULL, 'n'},
      {"json", no_argument, NULL, 'j'},          {"both-mirrors", no_argument, NULL, 'b'},
      {"generation", no_argument, NULL, 'g'},    {NULL, 0, NULL, 0}};
  optind = 1;
  opterr = 0;
  for (int c; (c = getopt_long(argc, argv, ":h", LONG, NULL)) != -1;) {
    int st;
    switch (c) {
    case 'h': fputs(QUERY_HELP, stdout); return 0;
    case 'd': path = optarg; break;
    case 'm':
      if (!cli_parse_u64(optarg, &moves) || moves < 1 || moves > 65535)
        return cli_usage_error("query", "--moves needs a number from 1 to 65535");
      have_moves = true;
      break;
    case 'l':
      if (cli_option_limit("query", optarg, &limit)) return 2;
      break;
    case 'c': q.need |= TSDB_F_COMPLETE; break;
    case 'M': q.need |= TSDB_F_MINIMAL; break;
    case 'f':
      if ((st = dbutil_option_flag("query", optarg, &q.need))) return st;
      break;
    case 'n': q.count_only = true; break;
    case 'j': q.json = true; break;
    case 'b': q.both = true; break;
    case 'g': generation = true; break;
    default: return cli_getopt_error("query", c, argv);
    }
  }
  if (optind < argc) return cli_usage_error("query", "unexpected argument '%s'", argv[optind]);
  if (!path) return cli_usage_error("query", "missing --db PATH");
  if (q.both && !q.count_only)
    return cli_usage_error("query", "--both-mirrors goes with --count (a listing shows the positions stored, one of "
                                    "each mirror pair)");
  if (dbutil_need_exclusive("query", q.need)) return 1;
  q.limit = limit;
  TsDb *db;
  TsError err;
  int rc;
  if (generation) { /* says itself when the database is not finished */
    if ((rc = dbutil_open_ro(path, &db, &err))) return cli_fail("query", &err);
    rc = print_generation(db, path, q.json);
    tsdb_close(db);
    return rc;
  }
  bool finished;
  if ((rc = dbutil_open_reader("query", path, &db, &finished))) return rc;
  Material mat;
  if (dbutil_material_load(db, &mat)) q.mat = &mat;
  bool from_meta = false;
  if (q.count_only && (rc = count_from_meta(db, &q, have_moves ? (int)moves : -1, &from_meta, &err))) {
    tsdb_close(db);
    return cli_fail("query", &err);
  }
  if (!from_meta) rc = tsdb_foreach(db, have_moves ? (int)moves : -1, on_record, &q, &err);
  if (q.rc) {
    tsdb_close(db);
    return cli_fail("query", &q.err);
  }
  if (rc && rc != 1) {
    tsdb_close(db);
    return cli_fail("query", &err);
  }
  if (q.count_only && q.json) {
    if (have_moves) {
      printf("{\"count\":%llu}\n", (unsigned long long)q.total);
    } else {
      printf("{\"lengths\":[");
      bool first = true;
      for (int len = 0; len < 1024; len++) {
        if (!q.table[len][0]) continue;
        printf("%s{\"length\":%d,\"problems\":%llu", first ? "" : ",", len, (unsigned long long)q.table[len][0]);
        for (size_t i = 0; i < DB_FLAG_NAMES_N; i++)
          printf(",\"%s\":%llu", DB_FLAG_NAMES[i].name, (unsigned long long)q.table[len][1 + i]);
        printf("}");
        first = false;
      }
      printf("],\"total\":%llu}\n", (unsigned long long)q.total);
    }
  } else if (q.count_only) {
    if (have_moves) {
      printf("%llu\n", (unsigned long long)q.total);
    } else {
      printf("%6s %10s", "length", "problems");
      for (size_t i = 0; i < DB_FLAG_NAMES_N; i++) printf(" %10s", DB_FLAG_NAMES[i].name);
      printf("\n");
      for (int len = 0; len < 1024; len++) {
        if (!q.table[len][0]) continue;
        printf("%6d %10llu", len, (unsigned long long)q.table[len][0]);
        for (size_t i = 0; i < DB_FLAG_NAMES_N; i++) printf(" %10llu", (unsigned long long)q.table[len][1 + i]);
        printf("\n");
      }
      printf("total %llu\n", (unsigned long long)q.total);
    }
  }
  tsdb_close(db);
  if (!q.count_only && q.shown == 0) return 1;
  return 0;
}

/* A fault inside LMDB on a damaged file exits 3, not with a core dump (dbguard.h). */
int cmd_query(int argc, char **argv) { return dbguard_run("query", query_main, argc, argv); }
