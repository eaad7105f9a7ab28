#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "dbguard.h"
#include "dbutil.h"
#include "movegen.h"
#include "sfen.h"
#include "check.h"
#include "workers.h"

static const char VERIFY_HELP[] =
    "usage: tsume verify --db PATH [--moves N | --min-moves N --max-moves N]\n"
    "                    [--sample K [--seed S] | --limit K] [--nodes N] [--threads N]\n"
    "                    [--all] [--partial]\n"
    "Checks the works of a database with the flaw checker (the one `tsume check` runs):\n"
    "each stored main line is checked forward (legal, a check at every attacker move,\n"
    "mate at the end, every other check and every other defence at every ply), and\n"
    "the flags the checker finds must be the stored ones: complete, yozume (and\n"
    "hayazume), last-move-alt, komaamari, hendou, higentei, tejun-zengo, ukai; a\n"
    "complete work's length must be its line's. Each disagreement is printed; the\n"
    "exit status is 1 if there is any, or if any work is unproven (not verified), 0\n"
    "otherwise.\n"
    "  --moves N   only the works of N plies; --min-moves / --max-moves: of N plies or\n"
    "              more / or fewer\n"
    "  --limit K   the first K works in the walk's order (length, then key)\n"
    "  --sample K  K works drawn uniformly at random among those selected (all of them\n"
    "              when there are fewer): the K whose keys hash lowest under the seed\n"
    "              (--seed S, default 1), so a sample is the same at every run\n"
    "  --all       every problem with a mate, not only the complete works: the checker's\n"
    "              verdict (complete or not) and its yozume / komaamari must match the\n"
    "              stored flags\n"
    "  --nodes N   node limit of each solver question (default 2000000); a problem with\n"
    "              a question that hits it is counted as 'unproven', not as a disagreement;\n"
    "              any unproven work makes the exit status 1\n"
    "  --threads N worker threads, each with its own checker (default: the number of\n"
    "              processors); disagreements are printed in key order\n"
    "  --partial   verify a database whose enumeration is not finished (in progress\n"
    "              or interrupted); without it such a database is named and nothing\n"
    "              is checked (exit status 1)\n";

/* One worker's state: its checker, counters, and the report of the record it checks. */
typedef struct {
  Checker *checker;
  CheckReport report;
  bool all;
  const Material *mat; /* the database's, for dbutil_record_decode (NULL: unknown) */
  uint64_t bad, unproven, unsettled, alternatives, tolerated;
  TsError err;
  char *msg;  /* where the record's disagreement goes ("" when none) */
  Move line[TSDB_LINE_MAX];
} VerifyCtx;

#define VERIFY_WHAT 512
#define VERIFY_MSG (SFEN_MAX + VERIFY_WHAT + 256)
#define VERIFY_BATCH 2048

/* Records a disagreement of the record being checked. */
static void report(VerifyCtx *v, const Position *pos, const char *what) {
  char sfen[SFEN_MAX];
  sfen_write(pos, sfen, sizeof sfen);
  snprintf(v->msg, VERIFY_MSG, "DISAGREE %s: %.*s\n", sfen, VERIFY_WHAT - 1, what);
  v->bad++;
}

/* Checks one record; a disagreement is written to v->msg. */
static void verify_one(VerifyCtx *v, const TsRecord *rec) {
  v->msg[0] = 0;
  Position pos;
  Move *line = v->line;
  int n;
  if (dbutil_record_decode(rec, v->mat, &pos, line, &n, &v->err)) {
    snprintf(v->msg, VERIFY_MSG, "DAMAGED %s: %.*s\n", v->err.where, VERIFY_WHAT - 1, v->err.msg);
    v->bad++;
    return;
  }
  CheckReport *r = &v->report;
  if (check_problem(v->checker, &pos, line, n, r) != TS_OK) {
    report(v, &pos, "not a problem position");
    return;
  }
  uint32_t found = dbutil_report_flags(r);
  for (int i = 0; i < r->nflaws; i++) {
    if (r->flaws[i].alt != MOVE_NONE) v->alternatives++;
    if (r->flaws[i].tolerated) v->tolerated++;
  }
  char what[VERIFY_WHAT];
  if (rec->flags & TSDB_F_FUTILE_CUT) {
    /* the stored line stops where only futile interpositions are left before its length: not complete */
    if (r->verdict == CHECK_COMPLETE) report(v, &pos, "stored futile-cut, checker complete");
    return;
  }
  if ((rec->flags & TSDB_F_UNSETTLED) && r->verdict != CHECK_BAD_LINE) {
    /* an enumeration cut by --max-moves: the table could not settle it; the checker's verdict is the answer */
    v->unsettled++;
    return;
  }
  if (r->verdict == CHECK_BAD_LINE) {
    snprintf(what, sizeof what, "stored main line: %s", r->message);
    report(v, &pos, what);
    return;
  }
  if (r->verdict == CHECK_UNKNOWN) {
    v->unproven++;
    return;
  }
  uint32_t mask = TSDB_F_COMPLETE | TSDB_F_YOZUME | TSDB_F_KOMAAMARI;
  if (rec->flags & TSDB_F_COMPLETE)
    mask |= TSDB_F_HAYAZUME | TSDB_F_LAST_MOVE_ALT | TSDB_F_HENDOU | TSDB_F_HENCHOU | TSDB_F_HIGENTEI |
            TSDB_F_TEJUN_ZENGO | TSDB_F_UKAI;
  uint32_t stored = rec->flags & mask;
  found &= mask;
  if (stored != found && r->unproven && !(found & ~stored)) {
    /* a stored flaw the checker has not found while some of its questions are open: not verified */
    v->unproven++;
    return;
  }
  if (stored != found || ((rec->flags & TSDB_F_COMPLETE) && rec->length != n)) {
    char fs[256], ss[256];
    dbutil_flags_format(found, fs, sizeof fs);
    dbutil_flags_format(stored, ss, sizeof ss);
    int len = snprintf(what, sizeof what, "stored length %u flags %s; checker %s, mate %d, flags %s", rec->length,
                       ss, check_verdict_name(r->verdict), r->length, fs);
    for (int i = 0; i < r->nflaws && len < (int)sizeof what - 40; i++) {
      const CheckFlaw *f = &r->flaws[i];
      char mv[8] = "-";
      if (f->alt != MOVE_NONE) usi_move_write(f->alt, mv);
      len += snprintf(what + len, sizeof what - (size_t)len, "%s %s at %d: %s", i ? "," : ";",
                      check_flaw_name(f->kind), f->ply, mv);
    }
    report(v, &pos, what);
  }
}

typedef struct {
  const TsRecord *recs;
  size_t n, *next;
  char *msgs;
  VerifyCtx *v;
} VerifyJob;

static void *verify_worker(void *arg) {
  VerifyJob *j = arg;
  for (;;) {
    size_t i = __atomic_fetch_add(j->next, 1, __ATOMIC_RELAXED);
    if (i >= j->n) break;
    j->v->msg = j->msgs + i * VERIFY_MSG;
    verify_one(j->v, &j->recs[i]);
  }
  return NULL;
}

/* The records read so far (complete works only), checked a batch at a time by
 * the workers; reports are printed in key order after each batch. */
typedef struct {
  TsRecord *recs;
  char *msgs;
  size_t n;
  uint64_t limit, checked;
  unsigned min_len, max_len;
  bool all;
  int nt;
  VerifyCtx *ctx;
} VerifyRun;

static void run_batch(VerifyRun *r) {
  size_t next = 0;
  VerifyJob jobs[WORKERS_MAX];
  for (int t = 0; t < r->nt; t++) jobs[t] = (VerifyJob){r->recs, r->n, &next, r->msgs, &r->ctx[t]};
  workers_run(r->nt, verify_worker, jobs, sizeof *jobs);
  for (size_t i = 0; i < r->n; i++) fputs(r->msgs + i * VERIFY_MSG, stdout);
  fflush(stdout);
  r->n = 0;
}

/* Whether a record is one the run checks. */
static bool selected(const VerifyRun *r, const TsRecord *rec) {
  if (rec->length < r->min_len || rec->length > r->max_len) return false;
  return (rec->flags & TSDB_F_COMPLETE) || (r->all && rec->length > 0 && !(rec->flags & TSDB_F_FUZUME));
}

static int collect(const TsRecord *rec, void *vctx) {
  VerifyRun *r = vctx;
  if (!selected(r, rec)) return 0;
  if (r->limit && r->checked >= r->limit) return 1;
  if (ferror(stdout)) return 1; /* output lost (full disk): main reports it */
  r->checked++;
  r->recs[r->n++] = *rec;
  if (r->n == VERIFY_BATCH) run_batch(r);
  return 0;
}

/* A sampled work: the hash of its key under the seed, its length and key. */
typedef struct {
  uint64_t hash;
  uint16_t length;
  uint8_t key_len;
  uint8_t key[TSDB_KEY_MAX];
} SampleEntry;

/* The K selected works of lowest hash seen so far, a max-heap on the hash. */
typedef struct {
  VerifyRun *run;
  SampleEntry *heap;
  size_t n, cap, alloc; /* alloc grows by doubling up to cap */
  bool nomem;
  uint64_t seed, seen;
} Sample;

static uint64_t mix64(uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ull;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

static uint64_t key_hash(const uint8_t *key, size_t len, uint64_t seed) {
  uint64_t h = mix64(seed + 0x9e3779b97f4a7c15ull * (len + 1));
  for (size_t i = 0; i < len; i += 8) {
    uint64_t w = 0;
    memcpy(&w, key + i, len - i < 8 ? len - i : 8);
    h = mix64(h ^ w);
  }
  return h;
}

static void heap_down(SampleEntry *h, size_t n, size_t i) {
  for (;;) {
    size_t l = 2 * i + 1, m = i;
    if (l < n && h[l].hash > h[m].hash) m = l;
    if (l + 1 < n && h[l + 1].hash > h[m].hash) m = l + 1;
    if (m == i) return;
    SampleEntry t = h[i];
    h[i] = h[m];
    h[m] = t;
    i = m;
  }
}

static int sample_collect(const TsRecord *rec, void *vctx) {
  Sample *s = vctx;
  if (!selected(s->run, rec)) return 0;
  s->seen++;
  uint64_t hv = key_hash(rec->key, rec->key_len, s->seed);
  SampleEntry e = {hv, rec->length, rec->key_len, {0}};
  memcpy(e.key, rec->key, rec->key_len);
  if (s->n < s->cap) {
    if (s->n == s->alloc) {
      size_t a = s->alloc * 2 < s->cap ? s->alloc * 2 : s->cap;
      SampleEntry *h = realloc(s->heap, a * sizeof *h);
      if (!h) {
        s->nomem = true;
        return 1;
      }
      s->heap = h;
      s->alloc = a;
    }
    size_t i = s->n++;
    s->heap[i] = e;
    while (i > 0 && s->heap[(i - 1) / 2].hash < s->heap[i].hash) {
      SampleEntry t = s->heap[i];
      s->heap[i] = s->heap[(i - 1) / 2];
      s->heap[(i - 1) / 2] = t;
      i = (i - 1) / 2;
    }
  } else if (hv < s->heap[0].hash) {
    s->heap[0] = e;
    heap_down(s->heap, s->n, 0);
  }
  return 0;
}

/* The walk's order: length, then key bytes. */
static int sample_cmp(const void *a, const void *b) {
  const SampleEntry *x = a, *y = b;
  if (x->length != y->length) return x->length < y->length ? -1 : 1;
  size_t n = x->key_len < y->key_len ? x->key_len : y->key_len;
  int c = memcmp(x->key, y->key, n);
  if (c) return c;
  return (x->key_len > y->key_len) - (x->key_len < y->key_len);
}

/* Walks the selected lengths (every record when the range is the whole one). */
static int walk(TsDb *db, const VerifyRun *run, TsDbForeachFn fn, void *ctx, TsError *err) {
  if (run->min_len <= 1 && run->max_len >= 0xffff) return tsdb_foreach(db, -1, fn, ctx, err);
  for (unsigned len = run->min_len ? run->min_len : 1; len <= run->max_len; len++) {
    uint64_t n;
    int rc = tsdb_count_length(db, len, &n, err);
    if (!rc && n) rc = tsdb_foreach(db, (int)len, fn, ctx, err);
    if (rc) return rc;
  }
  return 0;
}

/* Draws the sample, then checks its works in the walk's order. */
static int verify_sample(TsDb *db, VerifyRun *run, uint64_t k, uint64_t seed, uint64_t *seen, TsError *err) {
  Sample s = {.run = run, .cap = (size_t)k, .seed = seed, .alloc = k < 4096 ? (size_t)k : 4096};
  s.heap = malloc(s.alloc * sizeof *s.heap);
  int rc = s.heap ? walk(db, run, sample_collect, &s, err) : 1;
  if (!s.heap || s.nomem)
    rc = ts_error_set(err, TS_ERR_NOMEM, "verify", 0, 0, "no memory for a sample of %llu works",
                      (unsigned long long)k);
  *seen = s.seen;
  if (!rc) qsort(s.heap, s.n, sizeof *s.heap, sample_cmp);
  TsRecord *rec = rc ? NULL : malloc(sizeof *rec);
  if (!rc && !rec) rc = ts_error_set(err, TS_ERR_NOMEM, "verify", 0, 0, "out of memory");
  for (size_t i = 0; !rc && i < s.n; i++) {
    rc = tsdb_get(db, s.heap[i].key, s.heap[i].key_len, rec, err);
    if (!rc && collect(rec, run)) rc = 1;
  }
  free(rec);
  free(s.heap);
  return rc;
}

static int verify_main(int argc, char **argv) {
  const char *path = NULL;
  uint64_t moves = 0, nodes = 2000000, limit = 0, sample = 0, seed = 1, min_moves = 1, max_moves = 0xffff;
  uint64_t threads = (uint64_t)cli_default_threads();
  bool have_moves = false, partial = false, all = false;
  static const struct option LONG[] = {
      {"help", no_argument, NULL, 'h'},         {"db", required_argument, NULL, 'd'},
      {"moves", required_argument, NULL, 'm'},  {"limit", required_argument, NULL, 'l'},
      {"nodes", required_argument, NULL, 'n'},  {"threads", required_argument, NULL, 't'},
      {"partial", no_argument, NULL, 'P'},      {"all", no_argument, NULL, 'a'},
      {"min-moves", required_argument, NULL, '<'}, {"max-moves", required_argument, NULL, '>'},
      {"sample", required_argument, NULL, 's'}, {"seed", required_argument, NULL, 'S'},
      {NULL, 0, NULL, 0}};
  optind = 1;
  opterr = 0;
  for (int c; (c = getopt_long(argc, argv, ":h", LONG, NULL)) != -1;) {
    switch (c) {
    case 'h': fputs(VERIFY_HELP, stdout); return 0;
    case 'd': path = optarg; break;
    case 'm':
      if (!cli_parse_u64(optarg, &moves) || moves < 1 || moves > 65535)
        return cli_usage_error("verify", "--moves needs a number from 1 to 65535");
      have_moves = true;
      break;
    case 'l':
      if (cli_option_limit("verify", optarg, &limit)) return 2;
      break;
    case '<':
    case '>': {
      uint64_t v;
      if (!cli_parse_u64(optarg, &v) || v < 1 || v > 65535)
        return cli_usage_error("verify", "--%s needs a number from 1 to 65535", c == '<' ? "min-moves" : "max-moves");
      *(c == '<' ? &min_moves : &max_moves) = v;
      break;
    }
    case 's':
      if (!cli_parse_u64(optarg, &sample) || sample < 1 || sample > 100000000)
        return cli_usage_error("verify", "--sample needs a number from 1 to 100000000");
      break;
    case 'S':
      if (cli_option_u64("verify", "--seed", optarg, 0, UINT64_MAX, &seed)) return 2;
      break;
    case 'n':
      if (cli_option_u64("verify", "--nodes", optarg, 1, CLI_NODES_MAX, &nodes)) return 2;
      break;
    case 't':
      if (!cli_parse_u64(optarg, &threads) || threads < 1 || threads > WORKERS_MAX)
        return cli_usage_error("verify", "--threads needs a number from 1 to %d", WORKERS_MAX);
      break;
    case 'P': partial = true; break;
    case 'a': all = true; break;
    default: return cli_getopt_error("verify", c, argv);
    }
  }
  if (optind < argc) return cli_usage_error("verify", "unexpected argument '%s'", argv[optind]);
  if (!path) return cli_usage_error("verify", "missing --db PATH");
  if (have_moves && (min_moves != 1 || max_moves != 0xffff))
    return cli_usage_error("verify", "--moves excludes --min-moves and --max-moves");
  if (have_moves) min_moves = max_moves = moves;
  if (min_moves > max_moves) return cli_usage_error("verify", "--min-moves is above --max-moves");
  if (sample && limit) return cli_usage_error("verify", "--sample excludes --limit");
  TsDb *db;
  TsError err;
  bool finished;
  int rc = dbutil_open_reader("verify", path, &db, &finished);
  if (rc) return rc;
  if (!finished && !partial) {
    tsdb_close(db);
    cli_message("verify", "nothing checked; give --partial to verify what %s holds", path);
    return 1;
  }
  Material mat;
  bool have_mat = dbutil_material_load(db, &mat);
  CheckOptions co;
  check_options_default(&co);
  co.hash_mb = 32;
  co.call_nodes = nodes;
  VerifyRun run = {.limit = limit, .nt = (int)threads, .all = all, .min_len = (unsigned)min_moves,
                   .max_len = (unsigned)max_moves};
  run.recs = malloc(VERIFY_BATCH * sizeof *run.recs);
  run.msgs = calloc(VERIFY_BATCH, VERIFY_MSG);
  run.ctx = calloc((size_t)threads, sizeof *run.ctx);
  bool ok = run.recs && run.msgs && run.ctx;
  for (int t = 0; ok && t < run.nt; t++) {
    ok = (run.ctx[t].checker = check_create(&co)) != NULL;
    check_report_init(&run.ctx[t].report);
    run.ctx[t].all = all;
    run.ctx[t].mat = have_mat ? &mat : NULL;
  }
  uint64_t t0 = cli_now_ms(), seen = 0;
  if (ok) {
    rc = sample ? verify_sample(db, &run, sample, seed, &seen, &err) : walk(db, &run, collect, &run, &err);
    if (!rc || rc == 1) run_batch(&run);
  }
  tsdb_close(db);
  VerifyCtx sum;
  memset(&sum, 0, sizeof sum);
  for (int t = 0; run.ctx && t < run.nt; t++) {
    sum.bad += run.ctx[t].bad;
    sum.unproven += run.ctx[t].unproven;
    sum.unsettled += run.ctx[t].unsettled;
    sum.alternatives += run.ctx[t].alternatives;
    sum.tolerated += run.ctx[t].tolerated;
    check_report_free(&run.ctx[t].report);
    check_free(run.ctx[t].checker);
  }
  free(run.ctx);
  free(run.msgs);
  free(run.recs);
  if (!ok) {
    fprintf(stderr, "tsume verify: out of memory\n");
    return 3;
  }
  if (rc && rc != 1) return cli_fail("verify", &err);
  if (sample) printf("sample of %llu drawn from %llu (seed %llu)\n", (unsigned long long)run.checked,
                     (unsigned long long)seen, (unsigned long long)seed);
  /* an unproven work is not verified: it comes first, and makes the run fail */
  printf("verified %llu %s in %.1f s: %llu unproven, %llu disagreements, %llu alternatives found (%llu of them "
         "tolerated: last-move-alt, hendou, higentei, tejun-zengo, ukai)\n",
         (unsigned long long)run.checked, all ? "problems" : "complete works", (cli_now_ms() - t0) / 1000.0,
         (unsigned long long)sum.unproven, (unsigned long long)sum.bad, (unsigned long long)sum.alternatives,
         (unsigned long long)sum.tolerated);
  if (sum.unsettled)
    printf("%llu problems flagged unsettled (the enumeration was cut by --max-moves) were checked but not compared\n",
           (unsigned long long)sum.unsettled);
  if (sum.unproven)
    cli_message("verify", "%llu of %llu not verified: a question hit the node limit (--nodes %llu); give more",
                (unsigned long long)sum.unproven, (unsigned long long)run.checked, (unsigned long long)nodes);
  return sum.bad || sum.unproven ? 1 : 0;
}

/* A fault inside LMDB on a damaged file exits 3, not with a core dump (dbguard.h). */
int cmd_verify(int argc, char **argv) { return dbguard_run("verify", verify_main, argc, argv); }
