#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "dbguard.h"
#include "dbutil.h"
#include "movegen.h"
#include "sfen.h"
#include "solver.h"
#include "solver_value.h"
#include "workers.h"

static const char VERIFY_HELP[] =
    "usage: tsume verify --db PATH [--moves N] [--limit K] [--nodes N] [--threads N]\n"
    "                    [--partial]\n"
    "Re-solves every complete work of the database forward with the df-pn solver:\n"
    "its mate length must equal the stored one (proven exact), its stored main line\n"
    "must be legal, check at every attacker move and end in mate, and at every\n"
    "attacker move of the main line but the last no other check may mate within the\n"
    "remaining length (the solver proves the position after it is not mated within\n"
    "the plies left; 余詰 as in rules.md), unless the record carries the flag of a\n"
    "tolerated kind and the alternative is one: higentei (the same move but for\n"
    "promotion, or a drop of the same piece on the same line to the king), or\n"
    "tejun-zengo / ukai (some line of shortest checks and longest defences from it\n"
    "reaches the main line's position at the same ply). Each disagreement is\n"
    "printed; the exit status is 1 if there is any, 0 otherwise.\n"
    "  --nodes N   node limit of each solver call (default 2000000); a call that\n"
    "              hits it is counted as 'unproven', not as a disagreement\n"
    "  --threads N worker threads, each with its own solver (default: the number of\n"
    "              processors); disagreements are printed in key order\n"
    "  --partial   verify a database whose enumeration is not finished (in progress\n"
    "              or interrupted); without it such a database is named and nothing\n"
    "              is checked (exit status 1)\n";

/* One worker's state: its solver, counters, and the report of the record it checks. */
typedef struct {
  Solver *solver;
  uint64_t bad, unproven, alternatives, tolerated;
  int budget; /* solver calls left for one rejoin search */
  TsError err;
  char *msg;  /* where the record's disagreement goes ("" when none) */
  Move line[TSDB_LINE_MAX];
  Position main[TSDB_LINE_MAX + 1];
} VerifyCtx;

#define VERIFY_WHAT 256
#define VERIFY_MSG (SFEN_MAX + VERIFY_WHAT + 16)
#define VERIFY_BATCH 2048

/* Records a disagreement of the record being checked. */
static void report(VerifyCtx *v, const Position *pos, const char *what) {
  char sfen[SFEN_MAX];
  sfen_write(pos, sfen, sizeof sfen);
  snprintf(v->msg, VERIFY_MSG, "DISAGREE %s: %.*s\n", sfen, VERIFY_WHAT - 1, what);
  v->bad++;
}

/* After the attacker's check m' (defender to move in p) with `left` plies of the
 * main line still to go after it: 1 when shown not to mate within them, 0 when
 * it does, -1 when not proven either way. */
static int check_refuted(VerifyCtx *v, Position *p, Color attacker, int left) {
  int k = solver_value(v->solver, p, attacker, left);
  if (k == SOLVER_VALUE_UNKNOWN) return -1;
  return k == SOLVER_VALUE_NONE ? 1 : 0;
}

static bool shape_non_limiting(const Position *pos, Move m, Move alt) {
  if (!move_is_drop(m) && !move_is_drop(alt)) return move_from(m) == move_from(alt) && move_to(m) == move_to(alt);
  if (!move_is_drop(m) || !move_is_drop(alt) || move_drop_type(m) != move_drop_type(alt)) return false;
  Square k = pos->king[pos->side == BLACK ? WHITE : BLACK];
  Bitboard line = LINE[k][move_to(m)];
  return line && bb_test(line, move_to(alt)) && !bb_test(BETWEEN[move_to(m)][move_to(alt)], k);
}

/* Does some line from q (ply j of a main line of n plies) of shortest checks and
 * longest defences reach main[j'] at its own ply j'? 1 yes, 0 no, -1 out of budget. */
static int rejoins(VerifyCtx *v, const Position *q, const Position *main, int j, int n, Color attacker) {
  if (j < n && pos_equal(q, &main[j])) return 1;
  if (j >= n - 1) return 0;
  int R = n - j, unknown = 0;
  MoveList l;
  if (q->side == attacker)
    movegen_checks(q, &l);
  else
    movegen_legal(q, &l);
  for (int i = 0; i < l.size; i++) {
    if (v->budget-- <= 0) return -1;
    Position c = *q;
    Undo u;
    pos_do_move(&c, l.moves[i], &u);
    if (solver_value(v->solver, &c, attacker, R - 1) != R - 1) continue;
    int k = rejoins(v, &c, main, j + 1, n, attacker);
    if (k > 0) return 1;
    if (k < 0) unknown = 1;
  }
  return unknown ? -1 : 0;
}

/*
 * The other check `alt` at attacker ply `ply` of the stored line (positions
 * main[0..n]): true when it mates within the plies left and the record does
 * not tolerate it. Refuted, tolerated and unproven alternatives are counted.
 */
static bool alternative_mates(VerifyCtx *v, const TsRecord *rec, const Position *main, const Move *line, int n,
                              int ply, Move alt) {
  Color attacker = main[0].side;
  Position q = main[ply];
  Undo u;
  pos_do_move(&q, alt, &u);
  v->alternatives++;
  int k = check_refuted(v, &q, attacker, n - ply - 1);
  if (k < 0) v->unproven++;
  if (k != 0) return false;
  if ((rec->flags & TSDB_F_HIGENTEI) && shape_non_limiting(&main[ply], line[ply], alt)) {
    v->tolerated++;
    return false;
  }
  if (rec->flags & (TSDB_F_TEJUN_ZENGO | TSDB_F_UKAI)) {
    v->budget = 20000;
    int j = rejoins(v, &q, main, ply + 1, n, attacker);
    if (j > 0) v->tolerated++;
    if (j < 0) v->unproven++;
    if (j != 0) return false;
  }
  return true;
}

/* Checks one complete work; a disagreement is written to v->msg. */
static void verify_one(VerifyCtx *v, const TsRecord *rec) {
  v->msg[0] = 0;
  Position pos;
  Move *line = v->line;
  int n;
  if (dbutil_record_decode(rec, &pos, line, &n, &v->err)) {
    report(v, &pos, v->err.msg);
    return;
  }
  SolveResult r;
  if (solver_solve(v->solver, &pos, &r) != TS_OK || r.status == SOLVE_UNKNOWN) {
    v->unproven++;
    return;
  }
  char what[VERIFY_WHAT];
  if (r.status != SOLVE_MATE || r.length != rec->length || !r.exact) {
    snprintf(what, sizeof what, "stored length %u, solver %s %d%s", rec->length,
             r.status == SOLVE_MATE ? "mate" : "nomate", r.length, r.exact ? "" : " (upper bound)");
    report(v, &pos, what);
    return;
  }
  Position *main = v->main;
  main[0] = pos;
  for (int ply = 0; ply < n; ply++) {
    main[ply + 1] = main[ply];
    Undo u;
    pos_do_move(&main[ply + 1], line[ply], &u);
  }
  for (int ply = 0; ply < n; ply += 2) {
    if (!pos_gives_check(&main[ply], line[ply])) {
      snprintf(what, sizeof what, "stored move %d does not check", ply + 1);
      report(v, &pos, what);
      return;
    }
    if (ply == n - 1) break;
    MoveList l;
    movegen_checks(&main[ply], &l);
    for (int i = 0; i < l.size; i++) {
      if (move_compact(l.moves[i]) == move_compact(line[ply])) continue;
      if (alternative_mates(v, rec, main, line, n, ply, l.moves[i])) {
        char mv[8];
        usi_move_write(l.moves[i], mv);
        snprintf(what, sizeof what, "yozume at move %d: %s also mates within %d plies", ply + 1, mv, n - ply);
        report(v, &pos, what);
        return;
      }
    }
  }
  if (!solver_line_verify(&pos, line, n, true, NULL)) {
    report(v, &pos, "stored main line does not end in mate");
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

static int collect(const TsRecord *rec, void *vctx) {
  VerifyRun *r = vctx;
  if (!(rec->flags & TSDB_F_COMPLETE)) return 0;
  if (r->limit && r->checked >= r->limit) return 1;
  if (ferror(stdout)) return 1; /* output lost (full disk): main reports it */
  r->checked++;
  r->recs[r->n++] = *rec;
  if (r->n == VERIFY_BATCH) run_batch(r);
  return 0;
}

static int verify_main(int argc, char **argv) {
  const char *path = NULL;
  uint64_t moves = 0, nodes = 2000000, limit = 0;
  uint64_t threads = (uint64_t)cli_default_threads();
  bool have_moves = false, partial = false;
  static const struct option LONG[] = {
      {"help", no_argument, NULL, 'h'},         {"db", required_argument, NULL, 'd'},
      {"moves", required_argument, NULL, 'm'},  {"limit", required_argument, NULL, 'l'},
      {"nodes", required_argument, NULL, 'n'},  {"threads", required_argument, NULL, 't'},
      {"partial", no_argument, NULL, 'P'},      {NULL, 0, NULL, 0}};
  optind = 1;
  opterr = 0;
  for (int c; (c = getopt_long(argc, argv, "+:h", LONG, NULL)) != -1;) {
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
    case 'n':
      if (!cli_parse_u64(optarg, &nodes) || nodes < 1) return cli_usage_error("verify", "--nodes needs a number");
      break;
    case 't':
      if (!cli_parse_u64(optarg, &threads) || threads < 1 || threads > WORKERS_MAX)
        return cli_usage_error("verify", "--threads needs a number from 1 to %d", WORKERS_MAX);
      break;
    case 'P': partial = true; break;
    default: return cli_getopt_error("verify", c, argv);
    }
  }
  if (optind < argc) return cli_usage_error("verify", "unexpected argument '%s'", argv[optind]);
  if (!path) return cli_usage_error("verify", "missing --db PATH");
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
  SolverOptions so;
  solver_options_default(&so);
  so.hash_mb = 32;
  so.max_nodes = nodes;
  VerifyRun run = {.limit = limit, .nt = (int)threads};
  run.recs = malloc(VERIFY_BATCH * sizeof *run.recs);
  run.msgs = calloc(VERIFY_BATCH, VERIFY_MSG);
  run.ctx = calloc((size_t)threads, sizeof *run.ctx);
  bool ok = run.recs && run.msgs && run.ctx;
  for (int t = 0; ok && t < run.nt; t++) ok = (run.ctx[t].solver = solver_create(&so)) != NULL;
  uint64_t t0 = cli_now_ms();
  if (ok) {
    rc = tsdb_foreach(db, have_moves ? (int)moves : -1, collect, &run, &err);
    if (!rc || rc == 1) run_batch(&run);
  }
  tsdb_close(db);
  VerifyCtx sum;
  memset(&sum, 0, sizeof sum);
  for (int t = 0; run.ctx && t < run.nt; t++) {
    sum.bad += run.ctx[t].bad;
    sum.unproven += run.ctx[t].unproven;
    sum.alternatives += run.ctx[t].alternatives;
    sum.tolerated += run.ctx[t].tolerated;
    solver_free(run.ctx[t].solver);
  }
  free(run.ctx);
  free(run.msgs);
  free(run.recs);
  if (!ok) {
    fprintf(stderr, "tsume verify: out of memory\n");
    return 3;
  }
  if (rc && rc != 1) return cli_fail("verify", &err);
  printf("verified %llu complete works in %.1f s: %llu disagreements, %llu alternative checks refuted or "
         "mating (%llu of them tolerated: higentei, tejun-zengo, ukai), %llu solver calls unproven\n",
         (unsigned long long)run.checked, (cli_now_ms() - t0) / 1000.0, (unsigned long long)sum.bad,
         (unsigned long long)sum.alternatives, (unsigned long long)sum.tolerated, (unsigned long long)sum.unproven);
  return sum.bad ? 1 : 0;
}

/* A fault inside LMDB on a damaged file exits 3, not with a core dump (dbguard.h). */
int cmd_verify(int argc, char **argv) { return dbguard_run("verify", verify_main, argc, argv); }
