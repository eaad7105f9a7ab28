/*
 * tsume compose - a flawed diagram made a complete work (the composition paper's improvement
 * loop with the flaw checker as the judge), or every complete work ending in a
 * mate picture (--from-mate). The library side is composer/compose.h.
 */
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "check.h"
#include "cli.h"
#include "compose.h"
#include "dbutil.h"
#include "encode.h"
#include "json.h"
#include "kif.h"
#include "kifvar.h"
#include "outfile.h"
#include "sfen.h"
#include "solver.h"
#include "source.h"
#include "tsdb.h"
#include "tsdb_lock.h"

int cli_load_problem_line(int argc, char **argv, int *used, Position *pos, SourceLine *line, TsError *err);

static const char COMPOSE_HELP[] =
    "usage: tsume compose [options] <SFEN|problem file>\n"
    "       tsume compose --from-mate [options] <SFEN|file of a mate position>\n"
    "Improves a diagram into a complete work, step by step: it takes the line with the\n"
    "fewest pieces left in the attacker's hand (then the longest), deletes pieces that\n"
    "play no part in it, adds a piece where a flaw's alternative mate could be stopped\n"
    "(a guard of the squares the king escapes to or a check comes from, the kind chosen\n"
    "by how many 余詰 there are), deletes it again, or replaces pieces (one, or two at\n"
    "once) by others that do the same work along the line. Each candidate is judged by\n"
    "the flaw checker and kept when it is better: fewer flaws while there are more than\n"
    "3, then a longer mate, then fewer flaws, then more pieces (docs/composing.md; the\n"
    "method is the composition paper's, cited in docs/design.md). The defender's hand\n"
    "is every piece not on the board or in the attacker's hand.\n"
    "  --seed N          random choices (default 1). A run repeats exactly when it is\n"
    "                    stopped by --iterations (or --restarts): the same seed, the same\n"
    "                    steps, the same work. A time budget stops it wherever the\n"
    "                    machine's speed has brought it, so two timed runs may differ\n"
    "  --time-ms T       time budget of the whole command, set-up and output included\n"
    "                    (default 600000; 0: none). A checker question in progress when\n"
    "                    it ends is stopped; what was found so far is the result\n"
    "  --iterations N    iteration budget, N >= 1 (default: none)\n"
    "  --stall N         restart after N iterations without a better diagram (default 300;\n"
    "                    0: never restart): from the best complete work, from the input, in\n"
    "                    turn, each changed by one to three random steps (the same --seed,\n"
    "                    the same steps)\n"
    "  --restarts N      also stop after N restarts in a row without a better complete\n"
    "                    work (default, and 0: no such cap; the run stops at its budget)\n"
    "  --keep-king       keep the attacker's king (by default it is taken off when the\n"
    "                    diagram stays a mate: a tsume problem has none)\n"
    "  --threads N       N runs with seeds N, N+1, ... side by side; the best is kept (default 1)\n"
    "  --max-pieces N    at most N pieces on the board (kings included) and in the attacker's hand\n"
    "  --no-promoted     add no promoted piece\n"
    "  --exclude KINDS   never add these kinds (letters of R B G S N L P, e.g. R or RB)\n"
    "  --keep-line \"USI\" 手順法: this line stays the line judged; the diagram changes around it\n"
    "  --out FILE        write the result as KIF to FILE (.kifu UTF-8, else Shift_JIS); it is\n"
    "                    rewritten (temporary file + rename) at every better work, so a killed\n"
    "                    run leaves its best so far; without --out, or with --out -, the KIF\n"
    "                    goes to stdout (UTF-8)\n"
    "  --history FILE    every accepted step as a JSON line (- : stdout); a failed write stops\n"
    "                    the run (its work is still written), exit status 3\n"
    "  --force           --out and --history may replace a file that exists (never the input\n"
    "                    diagram: that is refused, exit status 2, as an existing file is\n"
    "                    without --force)\n"
    "  --db PATH         also store the result (--from-mate: every work) as records of the\n"
    "                    problem database PATH (created when absent, material \"compose\"),\n"
    "                    with the checker's flags, for tsume query / export / verify\n"
    "  --call-nodes N    nodes of one solver question of the checker (default 300000)\n"
    "  --hash MB         checker's table (default 64)\n"
    "  --quiet           no progress on stderr (why nothing was found is still said)\n"
    "  --json            a last line {\"result\":\"complete|improved|unchanged|unknown\",\n"
    "                    \"sfen\":...,\"length\":N,\"line\":[...],\"flaws\":[...],\"start\":{...},\n"
    "                    \"iterations\":N,\"checks\":N,\"restarts\":N,\"time_ms\":N (wall time of\n"
    "                    the command),\"stop_reason\":\"time|iterations|restarts|stop\"}; \"unknown\":\n"
    "                    no mate was found within the budget (not a proof that there is none)\n"
    "Every output (--out, --db, --history) is tried before the search starts: a missing\n"
    "or read-only folder is exit 3 at once. When the work cannot be written at the end\n"
    "it is printed on stdout instead, and the exit status is 3.\n"
    "--from-mate: every complete work of up to --max-moves plies (default 7) whose main\n"
    "line ends in the given mate (defender to move, mated, attacker's hand empty), built\n"
    "back by un-moves; un-captures may bring pieces from the defender's hand, bounded by\n"
    "--max-pieces (default: the picture's pieces + 2). Each work is printed as it is\n"
    "found (shortest first), one per line: 'length<TAB>sfen<TAB>usi line'; progress\n"
    "(plies, positions judged, works) goes to stderr once a second; --out FILE writes\n"
    "them as KIF records at the end, longest first.\n"
    "  --max-moves N     longest work looked for\n"
    "  --max-works N     stop after N works\n"
    "Exit status: 0 a complete work (or, --from-mate, at least one), 1 none (also when\n"
    "no mate of the diagram was found within the budget: \"unknown\", not \"no mate\"),\n"
    "2 bad usage or input (no mate, an illegal diagram, a line that is not a mate),\n"
    "3 I/O (an output that cannot be written, even when the work was printed instead).\n";

typedef struct {
  /* options */
  ComposeOptions co;
  CheckOptions ck;
  int threads;
  const char *out_path, *history_path, *db_path;
  bool json, quiet, utf8;
  uint64_t t0;             /* the command's start (compose_now_ms): the budget counts from here */
  /* shared state */
  pthread_mutex_t mu;
  FILE *history;
  bool history_failed;     /* a history line could not be written: the run stops, exit 3 */
  bool out_warned;         /* a best-so-far write to --out failed (said once) */
  int worker_of_best; /* which worker's work is in the file */
  ComposeScore file_score;
  bool file_written;
  int rc_io;
  TsError io_err;
  volatile int stop;       /* every worker and checker question: set when a history write fails */
  volatile int post_stop;  /* the KIF's 変化 after the run: set a little after the deadline */
  volatile int done;       /* the timer thread ends */
} Shared;

typedef struct {
  Shared *sh;
  int index;
  Position pos;
  Move keep[2048];
  ComposeOptions co;
  ComposeResult res;
  int rc;
} Worker;

/* ---- KIF of a work ---- */

#define COMPOSE_MAX_BRANCHES 40
#define COMPOSE_DB_MATERIAL "compose"


static void flaws_text(const CheckReport *rep, const Position *pos, char *out, size_t n) {
  size_t k = 0;
  out[0] = 0;
  for (int i = 0; i < rep->nflaws && k + 64 < n; i++) {
    const CheckFlaw *f = &rep->flaws[i];
    char mv[8] = "";
    if (f->alt) usi_move_write(f->alt, mv);
    k += (size_t)snprintf(out + k, n - k, "%s%s %d手目%s%s%s", k ? "\n" : "", check_flaw_name_ja(f->kind), f->ply,
                          mv[0] ? " " : "", mv, f->tolerated ? "（キズ）" : "");
  }
  (void)pos;
}

/* The KIF bytes of a work with its line and flaws. */
static int work_kif(Solver *s, const Position *pos, const CheckReport *rep, bool complete, uint64_t seed, bool utf8,
                    char **bytes, size_t *len, TsError *err) {
  KifRecord rec;
  int rc = kif_record_init(&rec, pos);
  if (rc) return ts_error_set(err, rc, "compose", 0, 0, "out of memory");
  char sfen[SFEN_MAX], num[16], by[64];
  sfen_write(pos, sfen, sizeof sfen);
  snprintf(num, sizeof num, "%d", rep->line_length);
  snprintf(by, sizeof by, "tsume compose (seed %llu)", (unsigned long long)seed);
  kif_header_add(&rec, "作品名", complete ? "tsume compose 完全作" : "tsume compose 改良図");
  kif_header_add(&rec, "作者", by);
  kif_header_add(&rec, "手数", num);
  char verdict[160];
  kif_header_add(&rec, "完全性", kifvar_completeness(rep, verdict, sizeof verdict));
  kif_header_add(&rec, "SFEN", sfen);
  static char ftext[8192];
  flaws_text(rep, pos, ftext, sizeof ftext);
  if (ftext[0]) kif_node_set_comment(rec.root, ftext);
  rc = kif_line_add(&rec, rec.root, rep->line, rep->line_length, KIF_SPECIAL_MATE, NULL);
  int budget = COMPOSE_MAX_BRANCHES;
  if (!rc && complete && s) rc = kifvar_add(s, &rec, rec.root, pos, pos->side, rep->line, rep->line_length, &budget);
  if (!rc) rc = kif_write(&rec, utf8 ? KIF_ENC_UTF8 : KIF_ENC_CP932, "tsume " TSUME_VERSION, bytes, len, err);
  else ts_error_set(err, rc, "compose", 0, 0, "cannot build the KIF record");
  kif_record_free(&rec);
  return rc;
}

/* ---- callbacks (any worker thread) ---- */

static void on_step(void *ctx, const ComposeStep *st) {
  Worker *w = ctx;
  Shared *sh = w->sh;
  pthread_mutex_lock(&sh->mu);
  if (sh->history && !st->best_complete) {
    char sfen[SFEN_MAX];
    sfen_write(st->pos, sfen, sizeof sfen);
    fprintf(sh->history, "{\"worker\":%d,\"iteration\":%llu,\"step\":\"%s\",\"sfen\":\"%s\",\"score\":", w->index,
            (unsigned long long)st->iteration, compose_step_name(st->kind), sfen);
    json_compose_score(sh->history, &st->score);
    fprintf(sh->history, "}\n");
    if (!sh->history_failed && (fflush(sh->history) != 0 || ferror(sh->history))) {
      /* the history is lost from here on: stop the run, keep its work, exit 3 */
      int e = errno;
      sh->history_failed = true;
      sh->stop = 1;
      cli_message("compose", "%s: write failed: %s; the run stops here (its work is still written)",
                  sh->history_path, strerror(e ? e : EIO));
    }
  }
  /* the best so far on disk: complete works first, else the best diagram */
  if (sh->out_path && st->score.valid && (!sh->file_written || compose_kept_better(&st->score, &sh->file_score))) {
    char *bytes = NULL;
    size_t len = 0;
    TsError err;
    if (work_kif(NULL, st->pos, st->report, st->score.verdict == CHECK_COMPLETE, w->co.seed, sh->utf8, &bytes, &len,
                 &err) == TS_OK &&
        outfile_write_all(sh->out_path, bytes, len, &err) == TS_OK) {
      sh->file_score = st->score;
      sh->file_written = true;
    } else if (!sh->out_warned) {
      sh->out_warned = true;
      cli_message("compose", "%s: the best so far cannot be written (%s); the search goes on", sh->out_path, err.msg);
    }
    free(bytes);
  }
  pthread_mutex_unlock(&sh->mu);
}

static void on_progress(void *ctx, const ComposeProgress *p) {
  Worker *w = ctx;
  Shared *sh = w->sh;
  if (sh->quiet) return;
  pthread_mutex_lock(&sh->mu);
  double rate = p->elapsed_ms ? (double)p->checks * 1000.0 / (double)p->elapsed_ms : 0;
  fprintf(stderr, "tsume compose: [%d] %llu it, %llu checks (%.1f/s), %llu accepted, %llu restarts; current ", w->index,
          (unsigned long long)p->iterations, (unsigned long long)p->checks, rate, (unsigned long long)p->accepted,
          (unsigned long long)p->restarts);
  if (p->current.valid)
    fprintf(stderr, "%d plies, %d 余詰, %d flaws, %d pieces, %s", p->current.length, p->current.yozume,
            p->current.defects, p->current.pieces, check_verdict_name(p->current.verdict));
  else if (p->current.verdict == CHECK_NOMATE)
    fprintf(stderr, "no mate");
  else
    fprintf(stderr, "no mate found yet");
  if (p->best_complete.valid)
    fprintf(stderr, "; best complete %d plies, %d pieces", p->best_complete.length, p->best_complete.pieces);
  fprintf(stderr, "\n");
  pthread_mutex_unlock(&sh->mu);
}

static void *worker_main(void *arg) {
  Worker *w = arg;
  Checker *c = check_create(&w->sh->ck);
  if (!c) {
    w->rc = TS_ERR_NOMEM;
    return NULL;
  }
  w->rc = compose_run(c, &w->pos, &w->co, &w->res);
  check_free(c);
  return NULL;
}

/* The runs hold their budget themselves (compose_run and compose_from_mate set the
 * checker's deadline); this ends the solver calls of the final KIF's 変化, which come
 * after them: sh->post_stop a hundredth of the budget past the deadline (at least 20 ms). */
static void *timer_main(void *arg) {
  Shared *sh = arg;
  uint64_t end = sh->t0 + sh->co.time_ms, slack = sh->co.time_ms / 100 > 20 ? sh->co.time_ms / 100 : 20;
  while (!sh->done) {
    if (compose_now_ms() >= end + slack) {
      sh->post_stop = 1;
      break;
    }
    struct timespec ts = {0, 2 * 1000 * 1000};
    nanosleep(&ts, NULL);
  }
  return NULL;
}

/* Can the database at path take the result? It is opened as db_store will open it
 * (an enumerator's database is refused) and closed; an absent one is not created,
 * but its folder must take the lock file. Exit status (0 or 3). */
static int db_probe(const char *path) {
  TsDbWriterLock *lock = NULL;
  TsError err;
  int rc = tsdb_writer_lock(path, &lock, &err);
  if (rc) return cli_fail("compose", &err);
  struct stat st;
  if (stat(path, &st) == 0) {
    TsDbMeta meta;
    memset(&meta, 0, sizeof meta);
    snprintf(meta.material, sizeof meta.material, "%s", COMPOSE_DB_MATERIAL);
    TsDb *db = NULL;
    rc = tsdb_open(path, TSDB_CREATE, &meta, &db, &err);
    if (!rc) tsdb_close(db);
  }
  tsdb_writer_unlock(lock);
  return rc ? cli_fail("compose", &err) : 0;
}

/* Every output tried before the search: a run is not spent to find its file
 * cannot be written. Exit status (0 or 3). */
static int outputs_probe(Shared *sh, bool history) {
  TsError err;
  if (sh->out_path && outfile_probe(sh->out_path, &err)) return cli_fail("compose", &err);
  if (sh->db_path) {
    int st = db_probe(sh->db_path);
    if (st) return st;
  }
  if (history && sh->history_path) {
    sh->history = strcmp(sh->history_path, "-") ? fopen(sh->history_path, "w") : stdout;
    if (!sh->history) {
      cli_message("compose", "%s: %s", sh->history_path, strerror(errno));
      return 3;
    }
  }
  return 0;
}

/* Runs fn(arg) on a thread with a large stack (deep solver recursion). */
static int thread_run(pthread_t *t, void *(*fn)(void *), void *arg) {
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, (size_t)512 << 20);
  int e = pthread_create(t, &attr, fn, arg);
  pthread_attr_destroy(&attr);
  return e;
}

/* ---- database output ---- */

/* The record flags of a checker's report, as `tsume verify` reads them back. */
static uint32_t report_flags(const CheckReport *rep, uint8_t *root_mates) {
  uint32_t f = dbutil_report_flags(rep);
  Move roots[64];
  int nr = 0;
  for (int i = 0; i < rep->nflaws; i++) {
    const CheckFlaw *fl = &rep->flaws[i];
    /* the other mating first moves */
    bool mating = fl->kind == FLAW_YOZUME || fl->kind == FLAW_HAYAZUME || fl->kind == FLAW_LAST_MOVE_ALT ||
                  fl->kind == FLAW_HIGENTEI;
    if (fl->ply == 1 && fl->alt != MOVE_NONE && mating && nr < 64) {
      bool seen = false;
      for (int j = 0; j < nr; j++) seen |= roots[j] == fl->alt;
      if (!seen) roots[nr++] = fl->alt;
    }
  }
  if (root_mates) *root_mates = (uint8_t)(1 + nr > 255 ? 255 : 1 + nr);
  return f;
}

/* One database record of a work: canonical key, length, flags, main line. */
static void record_make(const Position *pos, const Move *line, int n, uint32_t flags, uint8_t root_mates,
                        TsRecord *r) {
  memset(r, 0, sizeof *r);
  bool mirrored;
  r->key_len = (uint8_t)pos_canonical(pos, r->key, &mirrored);
  if (n > TSDB_LINE_MAX) n = TSDB_LINE_MAX;
  r->length = (uint16_t)n;
  r->flags = flags;
  r->root_mates = root_mates;
  r->line_len = (uint16_t)n;
  for (int i = 0; i < n; i++) r->line[i] = move_compact(mirrored ? move_mirror(line[i]) : line[i]);
}


/* Adds n records to the database at path in one transaction (created when absent,
 * material "compose"), then the figures that mark it finished. Exit status. */
static int db_store(const char *path, const TsRecord *recs, size_t n) {
  TsDbWriterLock *lock = NULL;
  TsError err;
  int rc = tsdb_writer_lock(path, &lock, &err);
  if (rc) return cli_fail("compose", &err);
  TsDbMeta meta;
  memset(&meta, 0, sizeof meta);
  snprintf(meta.material, sizeof meta.material, "%s", COMPOSE_DB_MATERIAL);
  TsDb *db = NULL;
  rc = tsdb_open(path, TSDB_CREATE, &meta, &db, &err);
  uint64_t total = 0;
  if (!rc && n) rc = tsdb_put_batch(db, recs, n, NULL, 0, &err);
  if (!rc) rc = tsdb_count(db, &total, &err);
  if (!rc) {
    char t[256];
    int len = snprintf(t, sizeof t, "material\t%s\nmade_by\ttsume compose\nrecords\t%llu\n", COMPOSE_DB_MATERIAL,
                       (unsigned long long)total);
    rc = tsdb_meta_put_raw(db, DB_META_GENERATION, t, (size_t)len, &err);
  }
  if (!rc) rc = tsdb_sync(db, &err);
  tsdb_close(db);
  tsdb_writer_unlock(lock);
  return rc ? cli_fail("compose", &err) : 0;
}

/* ---- --from-mate ---- */

typedef struct {
  Position pos;
  Move *line;
  int n;
  uint32_t flags;
  uint8_t root_mates;
} FoundWork;

typedef struct {
  FoundWork *v;
  size_t n, cap;
  Shared *sh;
} FoundList;

/* 'length<TAB>sfen<TAB>usi line' on stdout, at once (a long run shows its works as it goes). */
static void found_print(const FoundWork *w) {
  char sfen[SFEN_MAX];
  sfen_write(&w->pos, sfen, sizeof sfen);
  printf("%d\t%s\t", w->n, sfen);
  for (int i = 0; i < w->n; i++) {
    char mv[8];
    usi_move_write(w->line[i], mv);
    printf("%s%s", i ? " " : "", mv);
  }
  printf("\n");
  fflush(stdout);
}

static void fm_progress(void *ctx, int plies, uint64_t candidates, uint64_t works, uint64_t elapsed_ms) {
  Shared *sh = ctx;
  if (sh->quiet) return;
  double rate = elapsed_ms ? (double)candidates * 1000.0 / (double)elapsed_ms : 0;
  fprintf(stderr, "tsume compose: --from-mate: %d-ply works: %llu positions judged (%.0f/s), %llu works, %.1f s\n",
          plies, (unsigned long long)candidates, rate, (unsigned long long)works, (double)elapsed_ms / 1000.0);
}

static int found_add(void *ctx, const Position *pos, const Move *line, int n, const CheckReport *rep) {
  FoundList *l = ctx;
  if (l->n == l->cap) {
    size_t cap = l->cap ? l->cap * 2 : 64;
    FoundWork *v = realloc(l->v, cap * sizeof *v);
    if (!v) return TS_ERR_NOMEM;
    l->v = v;
    l->cap = cap;
  }
  Move *m = malloc((size_t)n * sizeof *m);
  if (!m) return TS_ERR_NOMEM;
  memcpy(m, line, (size_t)n * sizeof *m);
  FoundWork *w = &l->v[l->n++];
  *w = (FoundWork){*pos, m, n, 0, 1};
  w->flags = report_flags(rep, &w->root_mates);
  found_print(w);
  return TS_OK;
}

typedef struct {
  Shared *sh;
  Position mate;
  FromMateOptions fo;
  FromMateResult res;
  TsError err;
  int rc;
} MateJob;

static void *mate_main(void *arg) {
  MateJob *j = arg;
  Checker *c = check_create(&j->sh->ck);
  if (!c) {
    j->rc = TS_ERR_NOMEM;
    return NULL;
  }
  j->rc = compose_from_mate(c, &j->mate, &j->fo, &j->res, &j->err);
  check_free(c);
  return NULL;
}

/* --max-pieces below the input's own count could never be met: refused before the search (exit 2). */
static int pieces_allowed(const Position *pos, Color attacker, int max_pieces, const char *what) {
  int pieces = bb_popcount(pos_occupied(pos)) + hand_total(pos->hand[attacker]);
  if (!max_pieces || pieces <= max_pieces) return 0;
  return cli_usage_error("compose",
                         "--max-pieces %d is below the %s's own %d pieces (on the board, kings included, and in the "
                         "attacker's hand): give at least %d",
                         max_pieces, what, pieces, pieces);
}

static int run_from_mate(Shared *sh, const Position *mate, int max_moves, int max_pieces, uint64_t max_works) {
  MateJob *j = calloc(1, sizeof *j);
  if (!j) return 3;
  j->sh = sh;
  j->mate = *mate;
  pos_give_remaining(&j->mate, j->mate.side);
  compose_from_mate_options_default(&j->fo);
  j->fo.max_moves = max_moves;
  int pieces = bb_popcount(pos_occupied(&j->mate)) + hand_total(j->mate.hand[color_flip(j->mate.side)]);
  j->fo.max_pieces = max_pieces ? max_pieces : pieces + 2;
  j->fo.max_works = max_works;
  j->fo.time_ms = sh->co.time_ms;
  j->fo.t0_ms = sh->t0;
  j->fo.stop = &sh->stop;
  j->fo.on_progress = fm_progress;
  j->fo.progress_ctx = sh;
  FoundList found = {.sh = sh};
  j->fo.on_work = found_add;
  j->fo.work_ctx = &found;
  pthread_t t;
  if (thread_run(&t, mate_main, j) == 0)
    pthread_join(t, NULL);
  else
    mate_main(j);
  int status = 0;
  if (j->rc) {
    if (j->rc == TS_ERR_ILLEGAL) {
      status = cli_fail("compose", &j->err);
    } else {
      cli_message("compose", "out of memory");
      status = 3;
    }
    goto out;
  }
  OutFile of;
  TsError err;
  bool to_file = sh->out_path != NULL;
  if (to_file && outfile_open(&of, sh->out_path, &err)) {
    status = cli_fail("compose", &err);
    goto out;
  }
  for (size_t k = found.n; k-- > 0;) {
    const FoundWork *w = &found.v[k];
    if (to_file) {
      CheckReport rep;
      check_report_init(&rep);
      rep.line = w->line;
      rep.line_length = w->n;
      rep.verdict = CHECK_COMPLETE;
      char *bytes = NULL;
      size_t len = 0;
      if (work_kif(NULL, &w->pos, &rep, true, 0, sh->utf8, &bytes, &len, &err) == TS_OK) {
        if (fwrite(bytes, 1, len, of.f) != len || fputs(sh->utf8 ? "\n" : "\r\n", of.f) < 0) sh->rc_io = 1;
      }
      free(bytes);
    }
  }
  if (to_file) {
    if (sh->rc_io) {
      outfile_abort(&of);
      cli_message("compose", "%s: write failed", sh->out_path);
      status = 3;
      goto out;
    }
    if (outfile_commit(&of, &err)) {
      status = cli_fail("compose", &err);
      goto out;
    }
  }
  if (sh->db_path) {
    TsRecord *recs = found.n ? malloc(found.n * sizeof *recs) : NULL;
    if (found.n && !recs) {
      cli_message("compose", "out of memory");
      status = 3;
      goto out;
    }
    for (size_t k = 0; k < found.n; k++)
      record_make(&found.v[k].pos, found.v[k].line, found.v[k].n, found.v[k].flags, found.v[k].root_mates, &recs[k]);
    status = db_store(sh->db_path, recs, found.n);
    free(recs);
    if (status) goto out;
  }
  if (sh->json) json_from_mate(stdout, &j->res, found.n), putchar('\n');
  else if (!sh->quiet)
    fprintf(stderr, "tsume compose: %llu works (longest %d plies) from %llu positions judged in %llu ms%s\n",
            (unsigned long long)j->res.works, j->res.longest, (unsigned long long)j->res.candidates,
            (unsigned long long)j->res.time_ms, j->res.cut ? " (cut by a limit)" : "");
  status = found.n ? 0 : 1;
out:
  for (size_t k = 0; k < found.n; k++) free(found.v[k].line);
  free(found.v);
  free(j);
  return status;
}

/* ---- the command ---- */

static bool parse_kinds(const char *s, unsigned *mask) {
  static const char L[] = "PLNSBRG";
  *mask = 0;
  if (!*s) return false;
  for (; *s; s++) {
    const char *p = strchr(L, *s >= 'a' && *s <= 'z' ? *s - 'a' + 'A' : *s);
    if (!p || !*s) return false;
    *mask |= 1u << (PAWN + (int)(p - L));
  }
  return true;
}

int cmd_compose(int argc, char **argv) {
  Shared *sh = calloc(1, sizeof *sh);
  if (!sh) return 3;
  sh->t0 = compose_now_ms();
  pthread_t timer;
  bool timer_on = false;
  compose_options_default(&sh->co);
  sh->co.time_ms = 600000;
  check_options_default(&sh->ck);
  sh->ck.call_nodes = 300000;
  sh->threads = 1;
  bool from_mate = false, force = false;
  int max_moves = 7;
  uint64_t max_works = 0;
  const char *keep_text = NULL;
  int status = 2;
  static const struct option LONG[] = {
      {"help", no_argument, NULL, 'h'},           {"json", no_argument, NULL, 'j'},
      {"quiet", no_argument, NULL, 'q'},          {"seed", required_argument, NULL, 's'},
      {"time-ms", required_argument, NULL, 'T'},  {"iterations", required_argument, NULL, 'I'},
      {"stall", required_argument, NULL, 'S'},    {"threads", required_argument, NULL, 't'},
      {"max-pieces", required_argument, NULL, 'p'}, {"no-promoted", no_argument, NULL, 'P'},
      {"exclude", required_argument, NULL, 'x'},  {"keep-line", required_argument, NULL, 'k'},
      {"out", required_argument, NULL, 'o'},      {"history", required_argument, NULL, 'H'},
      {"call-nodes", required_argument, NULL, 'n'}, {"hash", required_argument, NULL, 'M'},
      {"from-mate", no_argument, NULL, 'f'},      {"max-moves", required_argument, NULL, 'm'},
      {"max-works", required_argument, NULL, 'w'}, {"restarts", required_argument, NULL, 'R'},
      {"keep-king", no_argument, NULL, 'K'},      {"db", required_argument, NULL, 'D'},
      {"force", no_argument, NULL, 'F'},          {NULL, 0, NULL, 0}};
  optind = 1;
  opterr = 0;
  static const CliRange RANGE[] = {
      {'s', "--seed", 0, UINT64_MAX},          {'T', "--time-ms", 0, CLI_TIME_MS_MAX},
      {'I', "--iterations", 1, CLI_NODES_MAX}, {'S', "--stall", 0, CLI_NODES_MAX},
      {'t', "--threads", 1, 64},               {'p', "--max-pieces", 2, 40},
      {'n', "--call-nodes", 0, CLI_NODES_MAX}, {'M', "--hash", 1, CLI_HASH_MB_MAX},
      {'m', "--max-moves", 1, 99},             {'w', "--max-works", 0, CLI_NODES_MAX},
      {'R', "--restarts", 0, CLI_NODES_MAX}};
  for (int c; (c = getopt_long(argc, argv, ":h", LONG, NULL)) != -1;) {
    uint64_t v = 0;
    if (cli_option_ranged("compose", c, optarg, RANGE, sizeof RANGE / sizeof RANGE[0], &v)) {
      status = 2;
      goto out;
    }
    switch (c) {
    case 'h': fputs(COMPOSE_HELP, stdout); status = 0; goto out;
    case 'j': sh->json = true; break;
    case 'q': sh->quiet = true; break;
    case 's': sh->co.seed = v; break;
    case 'T': sh->co.time_ms = v; break;
    case 'I': sh->co.iterations = v; break;
    case 'S': sh->co.stall = v; break;
    case 'R': sh->co.restarts = v; break;
    case 'K': sh->co.keep_king = true; break;
    case 't': sh->threads = (int)v; break;
    case 'p': sh->co.max_pieces = (int)v; break;
    case 'P': sh->co.no_promoted = true; break;
    case 'x':
      if (!parse_kinds(optarg, &sh->co.exclude_kinds)) {
        status = cli_usage_error("compose", "--exclude needs letters of R B G S N L P");
        goto out;
      }
      break;
    case 'k': keep_text = optarg; break;
    case 'o': sh->out_path = strcmp(optarg, "-") ? optarg : NULL; break; /* "-": standard output */
    case 'F': force = true; break;
    case 'H': sh->history_path = optarg; break;
    case 'D': sh->db_path = optarg; break;
    case 'n': sh->ck.call_nodes = v; break;
    case 'M': sh->ck.hash_mb = (size_t)v; break;
    case 'f': from_mate = true; break;
    case 'm': max_moves = (int)v; break;
    case 'w': max_works = v; break;
    default: status = cli_getopt_error("compose", c, argv); goto out;
    }
  }
  if (sh->out_path) {
    size_t l = strlen(sh->out_path);
    sh->utf8 = l > 5 && !strcmp(sh->out_path + l - 5, ".kifu");
  } else {
    sh->utf8 = true;
  }
  pthread_mutex_init(&sh->mu, NULL);
  sh->ck.stop = &sh->stop; /* a question in progress ends when a history write fails */
  sh->co.t0_ms = sh->t0;
  int i = optind, used = 0;
  Position pos;
  TsError err;
  static SourceLine src;
  /* an output file is never the input, nor a file that exists unless --force */
  const char *inputs[2] = {i < argc ? argv[i] : NULL, sh->db_path};
  const char *outs[2][2] = {{sh->out_path, "--out"}, {sh->history_path, "--history"}};
  for (int k = 0; k < 2; k++)
    if (outs[k][0] && outfile_target_check(outs[k][0], outs[k][1], force, inputs, 2, &err)) {
      status = cli_usage_error("compose", "%s", err.msg);
      goto out;
    }
  if (from_mate) {
    int rc = cli_load_position(argc - i, argv + i, &used, &pos, &err);
    if (rc) {
      status = cli_fail("compose", &err);
      goto out;
    }
    if (i + used != argc) {
      status = cli_usage_error("compose", "unexpected argument '%s'", argv[i + used]);
      goto out;
    }
    if ((status = pieces_allowed(&pos, color_flip(pos.side), sh->co.max_pieces, "mate picture"))) goto out;
    if ((status = outputs_probe(sh, false))) goto out;
    status = run_from_mate(sh, &pos, max_moves, sh->co.max_pieces, max_works);
    goto out;
  }
  int rc = cli_load_problem_line(argc - i, argv + i, &used, &pos, &src, &err);
  if (rc) {
    status = cli_fail("compose", &err);
    goto out;
  }
  int count = cli_problem_count(argc - i, argv + i);
  if (count > 1) cli_message("compose", "%s holds %d problems: composing from the first", argv[i], count);
  if ((status = pieces_allowed(&pos, pos.side, sh->co.max_pieces, "diagram"))) goto out;
  if (i + used != argc) {
    status = cli_usage_error("compose", "unexpected argument '%s'", argv[i + used]);
    goto out;
  }
  Worker *ws = calloc((size_t)sh->threads, sizeof *ws);
  if (!ws) {
    status = 3;
    goto out;
  }
  for (int k = 0; k < sh->threads; k++) {
    Worker *w = &ws[k];
    w->sh = sh;
    w->index = k;
    w->pos = pos;
    w->co = sh->co;
    w->co.seed = sh->co.seed + (uint64_t)k;
    w->co.stop = &sh->stop;
    w->co.on_step = on_step;
    w->co.step_ctx = w;
    w->co.on_progress = on_progress;
    w->co.progress_ctx = w;
    if (keep_text) {
      int n = 0;
      Position start = pos;
      pos_give_remaining(&start, color_flip(start.side));
      rc = usi_line_parse(&start, keep_text, w->keep, 2048, &n, &err);
      if (rc) {
        snprintf(err.where, sizeof err.where, "--keep-line");
        status = cli_fail("compose", &err);
        free(ws);
        goto out;
      }
      w->co.keep_line = w->keep;
      w->co.keep_n = n;
    }
  }
  if ((status = outputs_probe(sh, true))) {
    free(ws);
    goto out;
  }
  if (sh->co.time_ms) timer_on = pthread_create(&timer, NULL, timer_main, sh) == 0;
  pthread_t *ts = calloc((size_t)sh->threads, sizeof *ts);
  bool *started = calloc((size_t)sh->threads, sizeof *started);
  for (int k = 0; k < sh->threads; k++) started[k] = thread_run(&ts[k], worker_main, &ws[k]) == 0;
  for (int k = 0; k < sh->threads; k++)
    if (started[k])
      pthread_join(ts[k], NULL);
    else
      worker_main(&ws[k]);
  free(ts);
  free(started);
  /* the best of the runs */
  int best = -1;
  for (int k = 0; k < sh->threads; k++) {
    if (ws[k].rc) continue;
    if (best < 0 || compose_kept_better(&ws[k].res.best_score, &ws[best].res.best_score)) best = k;
  }
  if (best < 0) {
    rc = ws[0].rc;
    if (rc == TS_ERR_ILLEGAL) {
      cli_message("compose", "%s", ws[0].res.report.message[0] ? ws[0].res.report.message : "not a problem position");
      status = 2;
    } else {
      cli_message("compose", "out of memory: cannot allocate the checker's table of %zu MB (--hash %zu) for each of "
                             "%d thread(s): give a smaller --hash",
                  sh->ck.hash_mb, sh->ck.hash_mb, sh->threads);
      status = 3;
    }
    for (int k = 0; k < sh->threads; k++) compose_result_free(&ws[k].res);
    free(ws);
    goto out;
  }
  ComposeResult *r = &ws[best].res;
  if (!r->start_score.valid && (r->start_score.verdict == CHECK_NOMATE || r->start_score.verdict == CHECK_BAD_LINE)) {
    cli_message("compose", "%s", r->start_score.verdict == CHECK_NOMATE ? "the diagram has no mate"
                                                                       : "the line to keep is not a mating line");
    for (int k = 0; k < sh->threads; k++) compose_result_free(&ws[k].res);
    free(ws);
    status = 2;
    goto out;
  }
  /* the KIF: to --out (the final state replaces the best-so-far file) or stdout; a work
   * whose file cannot be written is printed on stdout instead (exit 3) */
  bool io_failed = sh->history_failed;
  char *bytes = NULL;
  size_t len = 0;
  CheckOptions vo;
  check_options_default(&vo);
  vo.stop = &sh->post_stop; /* the 変化 take what is left of the budget, and a little more */
  Checker *vc = check_create(&vo);
  if (vc && sh->co.time_ms) {
    SolverOptions so = *solver_options(check_solver(vc));
    uint64_t now = compose_now_ms(), end = sh->t0 + sh->co.time_ms;
    so.time_ms = end > now + 20 ? end - now : 20;
    so.stop = &sh->post_stop;
    solver_set_options(check_solver(vc), &so);
  }
  rc = r->report.line_length > 0 ? work_kif(vc ? check_solver(vc) : NULL, &r->best, &r->report, r->complete,
                                            ws[best].co.seed, sh->utf8, &bytes, &len, &err)
                                 : TS_ERR_NOTFOUND;
  check_free(vc);
  if (rc == TS_OK) {
    if (sh->out_path && outfile_write_all(sh->out_path, bytes, len, &err)) {
      cli_fail("compose", &err);
      cli_message("compose", "the work is printed on stdout instead");
      io_failed = true;
      fwrite(bytes, 1, len, stdout);
    } else if (!sh->out_path) {
      fwrite(bytes, 1, len, stdout);
    }
  }
  free(bytes);
  if (sh->db_path && r->report.line_length > 0) {
    TsRecord *rec = malloc(sizeof *rec);
    uint8_t roots = 1;
    uint32_t flags = report_flags(&r->report, &roots);
    if (rec) record_make(&r->best, r->report.line, r->report.line_length, flags, roots, rec);
    int st = rec ? db_store(sh->db_path, rec, 1) : 3;
    if (!rec) cli_message("compose", "out of memory");
    free(rec);
    if (st) io_failed = true;
  }
  /* no line at all: the start was not solved within the budget (a diagram without a
   * mate was refused above), which is not a proof that it has none */
  const char *result = compose_result_word(r);
  bool unknown = !strcmp(result, "unknown");
  if (r->king_dropped && !sh->quiet) {
    static const char *RANK[10] = {"", "一", "二", "三", "四", "五", "六", "七", "八", "九"};
    char sq[16];
    snprintf(sq, sizeof sq, "%d%s", sq_file(r->king_square), RANK[sq_rank(r->king_square)]);
    fprintf(stderr, "tsume compose: the attacker's king on %s is taken off (a tsume problem has none; --keep-king keeps it)\n", sq);
  }
  uint64_t iters = 0, checks = 0, restarts = 0;
  for (int k = 0; k < sh->threads; k++) {
    iters += ws[k].res.iterations;
    checks += ws[k].res.checks;
    restarts += ws[k].res.restarts;
  }
  uint64_t wall = compose_now_ms() - sh->t0;
  if (unknown)
    cli_message("compose", "no mate found within the budget (%llu ms): whether the diagram has a mate is not known "
                "(not \"no mate\"); a larger --time-ms may find one", (unsigned long long)wall);
  else if (!sh->quiet)
    fprintf(stderr, "tsume compose: %s: %d plies, %d flaws, %d pieces (start: %d plies, %d flaws, %d pieces); %llu iterations, %llu checks, %llu restarts, %llu ms, stopped by %s\n",
            result, r->best_score.length, r->best_score.defects, r->best_score.pieces, r->start_score.length,
            r->start_score.defects, r->start_score.pieces, (unsigned long long)iters, (unsigned long long)checks,
            (unsigned long long)restarts, (unsigned long long)wall, r->stop_reason ? r->stop_reason : "-");
  if (sh->json) {
    ComposeTotals t = {ws[best].co.seed, iters, checks, restarts, wall};
    json_compose_result(stdout, r, &t);
    putchar('\n');
  }
  status = io_failed ? 3 : r->complete ? 0 : 1;
  for (int k = 0; k < sh->threads; k++) compose_result_free(&ws[k].res);
  free(ws);
out:
  if (timer_on) {
    sh->done = 1;
    pthread_join(timer, NULL);
  }
  if (sh->history) {
    bool bad = ferror(sh->history) != 0;
    if (((sh->history == stdout ? fflush(sh->history) : fclose(sh->history)) != 0 || bad) && !sh->history_failed) {
      cli_message("compose", "%s: write failed", sh->history_path);
      if (status < 3) status = 3;
    } else if (sh->history_failed && status < 3) {
      status = 3;
    }
  }
  free(sh);
  return status;
}
