#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "dbutil.h"
#include "encode.h"
#include "material.h"
#include "retro_enum.h"
#include "tsdb.h"
#include "tsdb_lock.h"

static const char ENUM_HELP[] =
    "usage: tsume enumerate --pieces SPEC --db PATH [--max-moves N] [--threads N]\n"
    "                       [--strict-last-move] [--strict-alternatives]\n"
    "                       [--resume | --force] [--stats] [--batch N] [--sort-mem MB]\n"
    "                       [--solver-hash MB]\n"
    "Enumerates every tsume problem of a material by retrograde analysis and stores\n"
    "each one (canonical key, length, flags, main line) in the LMDB file PATH.\n"
    "\n"
    "SPEC names the attacker-side pieces: N4 (桂図式), L4 (香図式), G2P1, S2P1, S1N2,\n"
    "S1N1P1, G4S4 (金銀図式), or a range on one kind such as N1-4 (each count stored).\n"
    "Each piece of the spec is on the board (either side, promoted or not where\n"
    "legal) or in the attacker's hand; every other piece (kings excepted) is in the\n"
    "defender's hand; the defender's king is on the board and the attacker has none.\n"
    "A problem is an attacker-to-move position, defender not in check, with a mate;\n"
    "each mirror pair is stored once. Kinds: P L N S G B R; with a ranging piece\n"
    "(R B L) at most 4 pieces. Interpositions by drops from the defender's hand\n"
    "are replies like any other, except futile ones (無駄合, see `tsume solve\n"
    "--help`), which are not counted; positions after a drop of a piece outside the\n"
    "material are valued by the solver.\n"
    "A problem has 余詰 (yozume) when at some attacker move of its main line but the\n"
    "last another check also mates within the remaining length, unless that check\n"
    "is 非限定 (higentei: the same move but for promotion, or the same piece dropped\n"
    "on another square of the same line to the king), or its line rejoins the main\n"
    "line at the same ply: 手順前後 (tejun-zengo: the same attacker moves in another\n"
    "order) or 迂回 (ukai: other moves). These three are flagged and tolerated as\n"
    "キズ, as in seed 003. A problem whose main line ends with 駒余り is also flagged\n"
    "henchou (変長) when a defence 2 or 4 plies shorter ends with the hand empty.\n"
    "It is flagged futile-cut (not complete) when its main line reaches a defender\n"
    "position whose only replies are drops futile at the remaining length, none of\n"
    "which lasts the remaining length less one by itself: no line can be shown there.\n"
    "\n"
    "  --max-moves N       longest mate searched, in plies (default 31). A yozume whose\n"
    "                      alternative mate is longer than N is not seen.\n"
    "  --strict-last-move  alternatives at the last move (最終手余詰) make a problem\n"
    "                      incomplete (1-move problems always need a unique mate)\n"
    "  --strict-alternatives  非限定, 手順前後 and 迂回 make a problem incomplete too\n"
    "  --force             replace an existing database of this program at PATH\n"
    "  --resume            continue a run that was interrupted: the records already\n"
    "                      committed are kept and the rest is written\n"
    "  --stats             print time per phase, positions per layer, peak memory and\n"
    "                      database size\n"
    "  --threads N         worker threads (default: the number of processors); the\n"
    "                      database is the same whatever the number\n"
    "  --batch N           records per write transaction (default 20000)\n"
    "  --sort-mem MB       memory for sorting the records before they are written\n"
    "                      (default 1024); beyond it sorted runs go to unlinked\n"
    "                      files beside PATH and are merged at the end\n"
    "  --solver-hash MB    with a ranging piece: the table of each thread's solver,\n"
    "                      which values the positions after drops (default 128)\n";

#define RULE_STRICT_LAST 1u
#define RULE_STRICT_ALT 2u

typedef struct {
  uint64_t t0, last;
  bool tty;
  char phase[16]; /* the phase and layer the ETA is for */
  int layer;
  uint64_t phase_t0;
} Progress;

static void on_progress(const RetroProgress *p, void *ctx) {
  Progress *pr = ctx;
  uint64_t now = cli_now_ms();
  if (now - pr->last < (pr->tty ? 250u : 2000u)) return;
  pr->last = now;
  double el = (double)(now - pr->t0) / 1000.0;
  double frac = p->work_total ? (double)p->work_done / (double)p->work_total : 0;
  double phase_el = (double)(now - pr->phase_t0) / 1000.0;
  if (strcmp(pr->phase, p->phase) != 0 || pr->layer != p->layer) {
    snprintf(pr->phase, sizeof pr->phase, "%s", p->phase);
    pr->layer = p->layer;
    pr->phase_t0 = now;
    phase_el = 0;
  }
  double eta = frac > 0.01 ? phase_el / frac - phase_el : -1;
  char etas[32] = "?";
  if (eta >= 0) snprintf(etas, sizeof etas, "%.0fs", eta);
  /* rate: the phase's new positions per second */
  fprintf(stderr, "%s%-8s layer %3d  positions %12llu  new %10llu  %5.1f%%  %.0f new/s  elapsed %.1fs  eta %s  rss %ld MB%s",
          pr->tty ? "\r" : "", p->phase, p->layer, (unsigned long long)p->positions,
          (unsigned long long)p->layer_new, 100.0 * frac, phase_el > 0 ? (double)p->layer_new / phase_el : 0.0, el,
          etas, cli_peak_rss_kb() / 1024, pr->tty ? "" : "\n");
  fflush(stderr);
}

/*
 * Problems are gathered in a byte arena, sorted by canonical key and written in
 * key order, so LMDB appends full pages (a file about a third of the size of
 * random-order writes) and a resumed run finds the same order. When the arena
 * reaches --sort-mem, it is sorted and spilled as a run to an unlinked file
 * beside the database; at the end the runs are merged, so memory stays bounded
 * whatever the number of problems and the order is the same.
 *
 *   arena entry: key_len 1 | key key_len | length 2 | flags 4 | root_mates 1 |
 *                line_len 1 | line 2 x line_len   (host byte order)
 */
#define ENTRY_MAX (1 + POS_CODE_MAX + 8 + 2 * 255)
#define RUN_BUF ((size_t)1 << 20)

typedef struct {
  FILE *f;
  char *buf;
  uint8_t e[ENTRY_MAX];
} Run;

typedef struct {
  TsDb *db;
  const char *path;
  TsRecord *batch;
  size_t n, cap;
  uint64_t seen, skip, written, emitted;
  uint64_t by_len[RETRO_MAX_LEN + 1][4]; /* all, complete, minimal complete, yozume */
  uint64_t komaamari[RETRO_MAX_LEN + 1];
  uint8_t *arena;
  size_t arena_len, arena_cap;
  size_t *offs;
  size_t noffs, offs_cap;
  size_t mem_limit; /* arena + offsets, bytes */
  Run *runs;
  int nruns, runs_cap;
  uint64_t run_bytes;
  bool tty;          /* progress lines overwrite each other */
  uint64_t write_t0; /* when the sorted write began, ms */
  TsError err;
} Writer;

static size_t entry_size(const uint8_t *e) { return 1 + (size_t)e[0] + 8 + 2 * (size_t)e[1 + e[0] + 7]; }

static int flush_batch(Writer *w) {
  if (!w->n) return TS_OK;
  uint64_t ck = w->written + w->n;
  uint8_t blob[8];
  for (int i = 0; i < 8; i++) blob[i] = (uint8_t)(ck >> (56 - 8 * i));
  int rc = tsdb_put_batch(w->db, w->batch, w->n, blob, sizeof blob, &w->err);
  if (rc) return rc;
  w->written = ck;
  w->n = 0;
  return TS_OK;
}

/* The next entry in key order; the first `skip` of them are already stored. */
static int emit(Writer *w, const uint8_t *e) {
  if ((w->emitted & ((1u << 20) - 1)) == 0 && w->emitted) {
    double el = (double)(cli_now_ms() - w->write_t0) / 1000.0;
    fprintf(stderr, "%swrite  %llu of %llu records  %.1f%%  elapsed %.1fs%s", w->tty ? "\r" : "",
            (unsigned long long)w->emitted, (unsigned long long)w->seen, 100.0 * (double)w->emitted / (double)w->seen,
            el, w->tty ? "" : "\n");
    fflush(stderr);
  }
  if (w->emitted++ < w->skip) return TS_OK;
  TsRecord *r = &w->batch[w->n];
  r->key_len = e[0];
  memcpy(r->key, e + 1, e[0]);
  const uint8_t *t = e + 1 + e[0];
  memcpy(&r->length, t, 2);
  memcpy(&r->flags, t + 2, 4);
  r->root_mates = t[6];
  r->line_len = t[7];
  memcpy(r->line, t + 8, 2 * (size_t)r->line_len);
  r->ext_len = 0;
  return ++w->n == w->cap ? flush_batch(w) : TS_OK;
}

static int entry_cmp(const uint8_t *x, const uint8_t *y) {
  size_t n = x[0] < y[0] ? x[0] : y[0];
  int c = memcmp(x + 1, y + 1, n);
  return c ? c : (int)x[0] - (int)y[0];
}

static int cmp_entry(const void *a, const void *b, void *arena) {
  return entry_cmp((const uint8_t *)arena + *(const size_t *)a, (const uint8_t *)arena + *(const size_t *)b);
}

static int run_io_error(Writer *w, const char *what) {
  return ts_error_set(&w->err, TS_ERR_IO, "enumerate", 0, 0, "cannot %s a sort run beside %s: %s", what, w->path,
                      strerror(errno));
}

/* Sorts the arena and writes it to a new run file, then empties the arena. */
static int spill_run(Writer *w) {
  if (w->nruns == w->runs_cap) {
    int nc = w->runs_cap ? 2 * w->runs_cap : 16;
    Run *nr = realloc(w->runs, (size_t)nc * sizeof *nr);
    if (!nr) return ts_error_set(&w->err, TS_ERR_NOMEM, "enumerate", 0, 0, "out of memory");
    w->runs = nr;
    w->runs_cap = nc;
  }
  char name[4096];
  snprintf(name, sizeof name, "%s.sort-XXXXXX", w->path);
  int fd = mkstemp(name);
  if (fd < 0) return run_io_error(w, "create");
  unlink(name); /* freed by the system however the process ends */
  Run *run = &w->runs[w->nruns];
  run->f = fdopen(fd, "w+b");
  run->buf = malloc(RUN_BUF);
  if (!run->f || !run->buf) {
    if (run->f) fclose(run->f);
    else close(fd);
    free(run->buf);
    return ts_error_set(&w->err, TS_ERR_NOMEM, "enumerate", 0, 0, "out of memory");
  }
  w->nruns++;
  setvbuf(run->f, run->buf, _IOFBF, RUN_BUF);
  if (w->noffs) qsort_r(w->offs, w->noffs, sizeof *w->offs, cmp_entry, w->arena); /* offs is NULL when empty */
  for (size_t i = 0; i < w->noffs; i++) {
    const uint8_t *e = w->arena + w->offs[i];
    if (fwrite(e, entry_size(e), 1, run->f) != 1) return run_io_error(w, "write");
  }
  if (fflush(run->f) != 0) return run_io_error(w, "write");
  if (fseek(run->f, 0, SEEK_SET) != 0) return run_io_error(w, "rewind");
  w->run_bytes += w->arena_len;
  w->arena_len = 0;
  w->noffs = 0;
  return TS_OK;
}

/* 1 and the run's next entry in run->e, 0 at its end. */
static int run_next(Writer *w, Run *run) {
  uint8_t *e = run->e;
  int c = getc(run->f);
  if (c == EOF && !ferror(run->f)) return 0;
  if (c != EOF) {
    e[0] = (uint8_t)c;
    if (fread(e + 1, (size_t)e[0] + 8, 1, run->f) == 1) {
      size_t ll = 2 * (size_t)e[1 + e[0] + 7];
      if (!ll || fread(e + 1 + e[0] + 8, ll, 1, run->f) == 1) return 1;
    }
  }
  run_io_error(w, "read");
  return -1;
}

static bool heap_less(const Writer *w, const int *h, int a, int b) {
  return entry_cmp(w->runs[h[a]].e, w->runs[h[b]].e) < 0;
}

static void heap_down(const Writer *w, int *h, int n, int i) {
  for (;;) {
    int l = 2 * i + 1, m = i;
    if (l < n && heap_less(w, h, l, m)) m = l;
    if (l + 1 < n && heap_less(w, h, l + 1, m)) m = l + 1;
    if (m == i) return;
    int t = h[i];
    h[i] = h[m];
    h[m] = t;
    i = m;
  }
}

/* Merges the runs into the database in key order. */
static int merge_runs(Writer *w) {
  int *h = malloc((size_t)w->nruns * sizeof *h), n = 0;
  if (!h) return ts_error_set(&w->err, TS_ERR_NOMEM, "enumerate", 0, 0, "out of memory");
  int rc = TS_OK;
  for (int i = 0; i < w->nruns && !rc; i++) {
    int got = run_next(w, &w->runs[i]);
    if (got < 0) rc = w->err.code;
    else if (got) h[n++] = i;
  }
  for (int i = n / 2 - 1; i >= 0; i--) heap_down(w, h, n, i);
  while (n && !rc) {
    Run *run = &w->runs[h[0]];
    rc = emit(w, run->e);
    if (rc) break;
    int got = run_next(w, run);
    if (got < 0) rc = w->err.code;
    else if (!got) h[0] = h[--n];
    heap_down(w, h, n, 0);
  }
  free(h);
  return rc ? rc : flush_batch(w);
}

static int on_problem(const RetroProblem *p, void *ctx) {
  Writer *w = ctx;
  int len = p->length;
  w->by_len[len][0]++;
  if (p->flags & RETRO_F_COMPLETE) w->by_len[len][1]++;
  if ((p->flags & RETRO_F_COMPLETE) && (p->flags & RETRO_F_MINIMAL)) w->by_len[len][2]++;
  if (p->flags & RETRO_F_YOZUME) w->by_len[len][3]++;
  if (p->flags & RETRO_F_KOMAAMARI) w->komaamari[len]++;
  w->seen++;
  size_t need = 1 + POS_CODE_MAX + 9 + 2 * (size_t)p->line_len;
  if (w->noffs && w->arena_len + need + (w->noffs + 1) * sizeof *w->offs > w->mem_limit) {
    int rc = spill_run(w);
    if (rc) return rc;
  }
  if (w->arena_len + need > w->arena_cap) {
    size_t nc = w->arena_cap ? w->arena_cap * 2 : (size_t)1 << 20;
    if (nc > w->mem_limit && w->mem_limit > w->arena_len + need) nc = w->mem_limit;
    uint8_t *na = realloc(w->arena, nc);
    if (!na) return ts_error_set(&w->err, TS_ERR_NOMEM, "enumerate", 0, 0, "out of memory");
    w->arena = na;
    w->arena_cap = nc;
  }
  if (w->noffs == w->offs_cap) {
    size_t nc = w->offs_cap ? w->offs_cap * 2 : 65536;
    size_t *no = realloc(w->offs, nc * sizeof *no);
    if (!no) return ts_error_set(&w->err, TS_ERR_NOMEM, "enumerate", 0, 0, "out of memory");
    w->offs = no;
    w->offs_cap = nc;
  }
  w->offs[w->noffs++] = w->arena_len;
  uint8_t *e = w->arena + w->arena_len;
  bool mirrored;
  uint8_t key[POS_CODE_MAX];
  size_t kl = pos_canonical(&p->pos, key, &mirrored);
  e[0] = (uint8_t)kl;
  memcpy(e + 1, key, kl);
  uint8_t *t = e + 1 + kl;
  uint16_t l16 = (uint16_t)len;
  uint32_t f32 = p->flags;
  memcpy(t, &l16, 2);
  memcpy(t + 2, &f32, 4);
  t[6] = (uint8_t)(p->root_mates > 255 ? 255 : p->root_mates);
  t[7] = (uint8_t)p->line_len;
  for (int i = 0; i < p->line_len; i++) {
    uint16_t m = move_compact(mirrored ? move_mirror(p->line[i]) : p->line[i]);
    memcpy(t + 8 + 2 * i, &m, 2);
  }
  w->arena_len += 1 + kl + 8 + 2 * (size_t)p->line_len;
  return 0;
}

/* Writes every gathered problem in key order: from memory, or by merging the runs. */
static int write_sorted(Writer *w) {
  w->write_t0 = cli_now_ms();
  if (w->nruns) {
    int rc = w->noffs ? spill_run(w) : TS_OK;
    free(w->arena);
    free(w->offs);
    w->arena = NULL;
    w->offs = NULL;
    w->arena_cap = w->offs_cap = 0;
    return rc ? rc : merge_runs(w);
  }
  if (w->noffs) qsort_r(w->offs, w->noffs, sizeof *w->offs, cmp_entry, w->arena); /* offs is NULL when empty */
  for (size_t i = 0; i < w->noffs; i++) {
    int rc = emit(w, w->arena + w->offs[i]);
    if (rc) return rc;
  }
  return flush_batch(w);
}

/* Positions of value L in the retrograde table: attacker to move when L is odd. */
static unsigned long long layer_positions(const RetroStats *st, int L) {
  return (unsigned long long)((L & 1) ? st->attacker_by_len[L] : st->defender_by_len[L]);
}

/* The generation figures (dbutil.h DB_META_GENERATION) into the database's meta. */
static int store_generation(TsDb *db, const RetroStats *st, const char *spec, int max_moves, TsError *err) {
  size_t cap = 4096 + 96 * (RETRO_MAX_LEN + 2), n = 0;
  char *t = malloc(cap);
  if (!t) return ts_error_set(err, TS_ERR_NOMEM, "", 0, 0, "out of memory");
  n += (size_t)snprintf(t + n, cap - n, "material\t%s\nmax_moves\t%d\nmate_positions\t%llu\n", spec, max_moves,
                        (unsigned long long)st->mates);
  n += (size_t)snprintf(t + n, cap - n, "table_positions\t%llu\nextended_positions\t%llu\n",
                        (unsigned long long)st->entries, (unsigned long long)st->records);
  n += (size_t)snprintf(t + n, cap - n, "drop_only_checks\t%llu\nsolver_valued\t%llu\n",
                        (unsigned long long)st->seeds, (unsigned long long)st->solver_calls);
  n += (size_t)snprintf(t + n, cap - n, "layer\tside\tpositions\tyozume\tfuzume\n");
  for (int L = 1; L <= st->last_layer + 1 && L <= RETRO_MAX_LEN; L++) {
    unsigned long long test = (L & 1) ? st->yozume_hits[L] : st->fuzume_hits[L];
    n += (size_t)snprintf(t + n, cap - n, (L & 1) ? "%d\tattacker\t%llu\t%llu\t-\n" : "%d\tdefender\t%llu\t-\t%llu\n",
                          L, layer_positions(st, L), test);
  }
  int rc = tsdb_meta_put_raw(db, DB_META_GENERATION, t, n, err);
  free(t);
  return rc;
}

static void writer_free(Writer *w) {
  for (int i = 0; i < w->nruns; i++) {
    fclose(w->runs[i].f);
    free(w->runs[i].buf);
  }
  free(w->runs);
  free(w->batch);
  free(w->arena);
  free(w->offs);
}

static int enumerate_main(int argc, char **argv, TsDbWriterLock **lockp) {
  const char *spec = NULL, *path = NULL;
  uint64_t max_moves = 31, batch = 20000, sort_mb = 1024, solver_mb = RETRO_SOLVER_HASH_MB;
  uint64_t threads = (uint64_t)cli_default_threads();
  bool resume = false, stats = false, strict = false, strict_alt = false, force = false;
  static const struct option LONG[] = {
      {"help", no_argument, NULL, 'h'},           {"pieces", required_argument, NULL, 'p'},
      {"db", required_argument, NULL, 'd'},       {"max-moves", required_argument, NULL, 'm'},
      {"threads", required_argument, NULL, 't'},  {"batch", required_argument, NULL, 'b'},
      {"solver-hash", required_argument, NULL, 'H'}, {"sort-mem", required_argument, NULL, 's'},
      {"resume", no_argument, NULL, 'r'},         {"stats", no_argument, NULL, 'S'},
      {"force", no_argument, NULL, 'f'},          {"strict-last-move", no_argument, NULL, 'L'},
      {"strict-alternatives", no_argument, NULL, 'A'}, {NULL, 0, NULL, 0}};
  optind = 1;
  opterr = 0;
  for (int c; (c = getopt_long(argc, argv, "+:h", LONG, NULL)) != -1;) {
    switch (c) {
    case 'h': fputs(ENUM_HELP, stdout); return 0;
    case 'p': spec = optarg; break;
    case 'd': path = optarg; break;
    case 'm':
      if (!cli_parse_u64(optarg, &max_moves) || max_moves < 1 || max_moves > RETRO_MAX_LEN)
        return cli_usage_error("enumerate", "--max-moves needs a number from 1 to %d", RETRO_MAX_LEN);
      break;
    case 't':
      if (!cli_parse_u64(optarg, &threads) || threads < 1 || threads > 256)
        return cli_usage_error("enumerate", "--threads needs a number from 1 to 256");
      break;
    case 'b':
      if (!cli_parse_u64(optarg, &batch) || batch < 1 || batch > 1000000)
        return cli_usage_error("enumerate", "--batch needs a number from 1 to 1000000");
      break;
    case 'H':
      if (!cli_parse_u64(optarg, &solver_mb) || solver_mb < 1 || solver_mb > 65536)
        return cli_usage_error("enumerate", "--solver-hash needs a number of megabytes from 1 to 65536");
      break;
    case 's':
      if (!cli_parse_u64(optarg, &sort_mb) || sort_mb < 1 || sort_mb > ((uint64_t)1 << 20))
        return cli_usage_error("enumerate", "--sort-mem needs a number of megabytes from 1 to 1048576");
      break;
    case 'r': resume = true; break;
    case 'S': stats = true; break;
    case 'f': force = true; break;
    case 'L': strict = true; break;
    case 'A': strict_alt = true; break;
    default: return cli_getopt_error("enumerate", c, argv);
    }
  }
  if (optind < argc) return cli_usage_error("enumerate", "unexpected argument '%s'", argv[optind]);
  if (resume && force)
    return cli_usage_error("enumerate", "--resume and --force contradict each other: continue the database or replace it");
  if (!spec) return cli_usage_error("enumerate", "missing --pieces SPEC");
  if (!path) return cli_usage_error("enumerate", "missing --db PATH");
  Material mat;
  TsError err;
  int rc = material_parse(spec, &mat, &err);
  if (rc) return cli_fail("enumerate", &err);
  /* before --force removes anything: a second writer stops here (exit 3) */
  if ((rc = tsdb_writer_lock(path, lockp, &err))) return cli_fail("enumerate", &err);

  TsDbMeta meta;
  memset(&meta, 0, sizeof meta);
  snprintf(meta.material, sizeof meta.material, "%s", spec);
  meta.rule_options = (strict ? RULE_STRICT_LAST : 0) | (strict_alt ? RULE_STRICT_ALT : 0) | ((uint32_t)max_moves << 8);
  bool exists = access(path, F_OK) == 0;
  if (exists && force && !resume) {
    TsDb *old;
    TsError oerr;
    /* only a database of ours is replaced */
    if (tsdb_open(path, TSDB_RDONLY, NULL, &old, &oerr) != TS_OK) return cli_fail("enumerate", &oerr);
    tsdb_close(old);
    char lock[4096];
    snprintf(lock, sizeof lock, "%s-lock", path);
    if (unlink(path) != 0) {
      cli_message("enumerate", "cannot remove %s: %s", path, strerror(errno));
      return 3;
    }
    unlink(lock);
    exists = false;
  }
  if (exists && !resume) {
    cli_message("enumerate", "%s already exists; use --resume to continue it, --force to replace it", path);
    return 2;
  }
  TsDb *db;
  rc = tsdb_open(path, TSDB_CREATE | TSDB_NOSYNC, &meta, &db, &err);
  if (rc) return cli_fail("enumerate", &err);
  uint64_t skip = 0;
  if (resume) {
    uint8_t blob[8];
    size_t blen = 0;
    rc = tsdb_checkpoint_get(db, blob, sizeof blob, &blen, &err);
    if (rc == TS_OK && blen == 8) {
      for (int i = 0; i < 8; i++) skip = skip << 8 | blob[i];
    } else if (rc != TS_ERR_NOTFOUND && rc != TS_OK) {
      tsdb_close(db);
      return cli_fail("enumerate", &err);
    }
    if (skip) fprintf(stderr, "resuming: %llu records already committed\n", (unsigned long long)skip);
  }

  Progress pr = {cli_now_ms(), 0, isatty(2), "", -1, cli_now_ms()};
  RetroOptions ro = {.max_moves = (int)max_moves, .strict_last_move = strict,
                      .strict_alternatives = strict_alt, .threads = (int)threads,
                      .solver_hash_mb = (int)solver_mb, .progress = on_progress, .progress_ctx = &pr};
  Retro *r;
  rc = retro_create(&mat, &ro, &r, &err);
  if (rc) {
    tsdb_close(db);
    return cli_fail("enumerate", &err);
  }
  uint64_t t0 = cli_now_ms();
  rc = retro_run(r, &err);
  if (rc) {
    retro_free(r);
    tsdb_close(db);
    return cli_fail("enumerate", &err);
  }
  uint64_t t1 = cli_now_ms();
  Writer w;
  memset(&w, 0, sizeof w);
  w.db = db;
  w.path = path;
  w.mem_limit = (size_t)sort_mb << 20;
  w.tty = pr.tty;
  w.cap = (size_t)batch;
  w.batch = calloc(w.cap, sizeof *w.batch);
  w.skip = skip;
  w.written = skip;
  if (!w.batch) {
    retro_free(r);
    tsdb_close(db);
    fprintf(stderr, "tsume enumerate: out of memory\n");
    return 3;
  }
  /* every count of a range, smallest first */
  int count[HAND_PT_NB];
  memcpy(count, mat.count, sizeof count);
  PieceType rk = PT_NONE;
  for (int t = PAWN; t <= GOLD; t++)
    if (mat.min_count[t] != mat.count[t]) rk = (PieceType)t;
  int lo = rk ? mat.min_count[rk] : 0, hi = rk ? mat.count[rk] : 0;
  for (int c = lo; c <= hi && !rc; c++) {
    if (rk) count[rk] = c;
    rc = retro_foreach_problem(r, count, on_problem, &w);
  }
  const RetroStats *st = retro_stats(r);
  if (!rc) rc = write_sorted(&w);
  /* written last, so a database that holds them is a finished one */
  if (!rc) rc = store_generation(db, st, spec, (int)max_moves, &w.err);
  if (!rc) rc = tsdb_sync(db, &w.err);
  uint64_t t2 = cli_now_ms();
  if (pr.tty) fprintf(stderr, "\n");
  if (rc) {
    writer_free(&w);
    retro_free(r);
    tsdb_close(db);
    return cli_fail("enumerate", &w.err);
  }
  printf("material %s: %llu problems stored in %s (max %d plies)\n", spec, (unsigned long long)w.seen, path,
         (int)max_moves);
  printf("%6s %10s %10s %10s %10s %10s\n", "length", "problems", "complete", "minimal", "yozume", "komaamari");
  for (int len = 1; len <= RETRO_MAX_LEN; len++)
    if (w.by_len[len][0])
      printf("%6d %10llu %10llu %10llu %10llu %10llu\n", len, (unsigned long long)w.by_len[len][0],
             (unsigned long long)w.by_len[len][1], (unsigned long long)w.by_len[len][2],
             (unsigned long long)w.by_len[len][3], (unsigned long long)w.komaamari[len]);
  if (stats) {
    TsDbStats ds;
    memset(&ds, 0, sizeof ds);
    tsdb_stats(db, &ds, NULL);
    printf("time: mates %.2f s, layers %.2f s, classify+store %.2f s, total %.2f s\n", st->ms_mates / 1000.0,
           st->ms_layers / 1000.0, (t2 - t1) / 1000.0, (t2 - t0) / 1000.0);
    printf("mate positions %llu; table: %llu positions in %llu extended positions (%.1f MB)\n",
           (unsigned long long)st->mates, (unsigned long long)st->entries, (unsigned long long)st->records,
           st->table_bytes / 1048576.0);
    printf("positions per layer (all sub-materials): ");
    for (int n = 1; n <= st->last_layer + 1 && n <= RETRO_MAX_LEN; n++)
      printf("%s%d:%llu", n > 1 ? " " : "", n, layer_positions(st, n));
    printf("\n余詰め判定 per attacker layer (positions reached again: another check mates): ");
    for (int n = 1; n <= st->last_layer && n <= RETRO_MAX_LEN; n += 2)
      printf("%s%d:%llu", n > 1 ? " " : "", n, (unsigned long long)st->yozume_hits[n]);
    printf("\n不詰め判定 per defender layer (candidates with a reply not known to mate): ");
    for (int n = 2; n <= st->last_layer + 1 && n <= RETRO_MAX_LEN; n += 2)
      printf("%s%d:%llu", n > 2 ? " " : "", n, (unsigned long long)st->fuzume_hits[n]);
    if (st->seeds || st->solver_calls)
      printf("\nranging pieces: %llu checks answered only by drops, %llu positions valued by the solver",
             (unsigned long long)st->seeds, (unsigned long long)st->solver_calls);
    if (w.nruns)
      printf("\nsort: %d runs, %.1f MB spilled and merged", w.nruns, w.run_bytes / 1048576.0);
    printf("\npeak RSS %ld MB; database %.2f MB on disk (%llu records)\n", cli_peak_rss_kb() / 1024,
           ds.disk_bytes / 1048576.0, (unsigned long long)ds.entries);
  }
  rc = 0;
  if (st->anomalies) {
    fprintf(stderr,
            "tsume enumerate: %llu positions were valued out of layer order or cut short by a solver limit; "
            "the counts may be wrong\n",
            (unsigned long long)st->anomalies);
    rc = 1;
  }
  writer_free(&w);
  retro_free(r);
  tsdb_close(db);
  return rc;
}

/*
 * One writer per database: the writer lock (tsdb_lock.h) is taken once the
 * options are read, before --force removes the old file, and held until the
 * run ends, so a second enumerate on the same file stops at once with exit 3
 * instead of replacing the database under the first one. Readers do not take it.
 */
int cmd_enumerate(int argc, char **argv) {
  TsDbWriterLock *lock = NULL;
  int rc = enumerate_main(argc, argv, &lock);
  tsdb_writer_unlock(lock);
  return rc;
}
