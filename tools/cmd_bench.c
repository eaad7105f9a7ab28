/*
 * cmd_bench.c - `tsume bench`: a fixed problem list solved with a fixed table
 * size on one thread, like Stockfish's bench. The node count is a regression
 * signature: it changes only when the search changes.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "sfen.h"
#include "solver.h"

int cli_solve_run(Solver *s, const Position *pos, int within, SolveResult *r);

static const char BENCH_HELP[] =
    "usage: tsume bench [--hash MB] [--nodes N] [--algo A] [--mp K=V,...] [--exact] [--no-mate1]\n"
    "                   [--compare mate1|algo] [--file bench.tsv]\n"
    "Solves every problem of data/bench.tsv (the first proof; --exact also proves the\n"
    "length and builds the main line) with a fresh table of --hash MB (default 64) and\n"
    "prints per problem: id, result, length, nodes, time, nodes/s; then\n"
    "'Nodes searched', 'Nodes/second' and 'Total time (ms)'.\n"
    "  --nodes N          node limit per problem (default 20000000)\n"
    "  --compare mate1    run with and without the 1-ply mate test; print both and the ratios\n"
    "  --compare algo     run dfpn, pds and multipath; print each and the ratios\n"
    "  --mp K=V,...       multi-path parameters as in 'tsume solve --help'\n"
    "File format: TSV id, sfen, rule (futile|strict), expected length ('-' if unknown).\n";

typedef struct {
  char id[64];
  char sfen[256];
  bool futile;
  int expect;
} BenchRow;

typedef struct {
  uint64_t nodes, ms;
  int solved, wrong;
} BenchTotals;

/* Reads the TSV list into *out (*n rows). Every row is checked here, so that a
 * bad list is refused, naming its file, line and column, before any search. */
static int bench_load(const char *path, BenchRow **out, int *n_out, TsError *err) {
  *out = NULL;
  *n_out = 0;
  FILE *f = fopen(path, "r");
  if (!f) return ts_error_set(err, TS_ERR_IO, path, 0, 0, "cannot open the bench list: %s", strerror(errno));
  int n = 0, cap = 0, lineno = 0, rc = TS_OK;
  BenchRow *rows = NULL;
  char *line = NULL;
  size_t line_cap = 0;
  ssize_t len;
  while ((len = getline(&line, &line_cap, f)) >= 0) {
    lineno++;
    while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r')) line[--len] = 0;
    if (len == 0 || line[0] == '#') continue;
    char *col[4] = {0};
    int ncol = 0;
    for (char *p = line; p && ncol < 4; ncol++) {
      col[ncol] = p;
      p = strchr(p, '\t');
      if (p) *p++ = 0;
    }
    if (ncol < 4) {
      rc = ts_error_set(err, TS_ERR_PARSE, path, lineno, 1,
                        "expected 4 tab-separated columns (id, sfen, rule, length), found %d", ncol);
      break;
    }
    int c3 = (int)(col[3] - line) + 1, c2 = (int)(col[2] - line) + 1;
    if (strcmp(col[2], "futile") && strcmp(col[2], "strict")) {
      rc = ts_error_set(err, TS_ERR_PARSE, path, lineno, c2, "rule must be futile or strict");
      break;
    }
    uint64_t expect = 0;
    if (strcmp(col[3], "-") && (!cli_parse_u64(col[3], &expect) || expect > 100000)) {
      rc = ts_error_set(err, TS_ERR_PARSE, path, lineno, c3, "expected length must be a number or '-'");
      break;
    }
    if (strlen(col[1]) >= sizeof rows->sfen) {
      rc = ts_error_set(err, TS_ERR_PARSE, path, lineno, (int)(col[1] - line) + 1, "SFEN too long");
      break;
    }
    Position pos;
    if ((rc = sfen_parse(col[1], &pos, path, err)) || (rc = pos_validate_problem(&pos, path, err))) {
      /* the SFEN reader counts columns from the start of the SFEN */
      err->line = lineno;
      if (err->column) err->column += (int)(col[1] - line);
      break;
    }
    if (n == cap) {
      int ncap = cap ? cap * 2 : 64;
      BenchRow *r2 = realloc(rows, (size_t)ncap * sizeof *rows);
      if (!r2) {
        rc = ts_error_set(err, TS_ERR_NOMEM, path, lineno, 0, "out of memory");
        break;
      }
      rows = r2;
      cap = ncap;
    }
    BenchRow *r = &rows[n++];
    snprintf(r->id, sizeof r->id, "%s", col[0]);
    snprintf(r->sfen, sizeof r->sfen, "%s", col[1]);
    r->futile = strcmp(col[2], "strict") != 0;
    r->expect = col[3][0] == '-' ? -1 : (int)expect;
  }
  /* a directory opens, but reading it fails (EISDIR) */
  if (!rc && ferror(f))
    rc = ts_error_set(err, TS_ERR_IO, path, 0, 0, "cannot read the bench list: %s", strerror(errno));
  if (!rc && n == 0) rc = ts_error_set(err, TS_ERR_PARSE, path, lineno, 0, "no problems in the bench list");
  free(line);
  fclose(f);
  if (rc) {
    free(rows);
    return rc;
  }
  *out = rows;
  *n_out = n;
  return TS_OK;
}

/* Runs the list once with o; prints one line per problem when verbose. */
static int bench_run(const BenchRow *rows, int n, const SolverOptions *o, bool verbose, uint64_t *nodes, uint64_t *ms,
                     BenchTotals *tot) {
  memset(tot, 0, sizeof *tot);
  Solver *s = solver_create(o);
  if (!s) return TS_ERR_NOMEM;
  for (int i = 0; i < n; i++) {
    Position pos;
    TsError err;
    if (sfen_parse(rows[i].sfen, &pos, rows[i].id, &err)) {
      solver_free(s);
      return cli_fail("bench", &err);
    }
    SolverOptions oi = *o;
    oi.futile_rule = rows[i].futile;
    solver_set_options(s, &oi);
    solver_clear(s);
    SolveResult r;
    cli_solve_run(s, &pos, -1, &r);
    nodes[i] = r.nodes;
    ms[i] = r.time_ms;
    tot->nodes += r.nodes;
    tot->ms += r.time_ms;
    bool ok = r.status == SOLVE_MATE;
    if (ok) tot->solved++;
    if (ok && o->prove_exact && rows[i].expect >= 0 && (r.length != rows[i].expect || !r.exact)) tot->wrong++;
    if (verbose) {
      char res[32];
      if (r.status == SOLVE_MATE)
        snprintf(res, sizeof res, "mate %s%d", r.exact ? "" : "<=", r.length);
      else
        snprintf(res, sizeof res, "%s", r.status == SOLVE_NOMATE ? "nomate" : "unknown");
      printf("%-22s %-10s nodes %10llu  time %7llu ms  %9llu nodes/s\n", rows[i].id, res,
             (unsigned long long)r.nodes, (unsigned long long)r.time_ms,
             (unsigned long long)(r.time_ms ? r.nodes * 1000 / r.time_ms : r.nodes * 1000));
    }
  }
  solver_free(s);
  return 0;
}

static void print_totals(const char *label, const BenchTotals *t, int n) {
  printf("%s%s===========================\n", label, *label ? " " : "");
  printf("Problems solved: %d/%d\n", t->solved, n);
  if (t->wrong) printf("Wrong lengths: %d\n", t->wrong);
  printf("Total time (ms): %llu\n", (unsigned long long)t->ms);
  printf("Nodes searched: %llu\n", (unsigned long long)t->nodes);
  printf("Nodes/second: %llu\n", (unsigned long long)(t->ms ? t->nodes * 1000 / t->ms : t->nodes * 1000));
}

int cmd_bench(int argc, char **argv) {
  SolverOptions o;
  solver_options_default(&o);
  o.prove_exact = false;
  o.max_nodes = 20000000;
  const char *compare = NULL;
  const char *file = TSUME_DATA_DIR "/bench.tsv";
  static const struct option LONG[] = {
      {"help", no_argument, NULL, 'h'},          {"hash", required_argument, NULL, 'H'},
      {"nodes", required_argument, NULL, 'N'},   {"mp", required_argument, NULL, 'P'},
      {"algo", required_argument, NULL, 'A'},    {"compare", required_argument, NULL, 'c'},
      {"file", required_argument, NULL, 'f'},    {"exact", no_argument, NULL, 'e'},
      {"no-mate1", no_argument, NULL, '1'},      {NULL, 0, NULL, 0}};
  optind = 1;
  opterr = 0;
  for (int c; (c = getopt_long(argc, argv, ":h", LONG, NULL)) != -1;) {
    uint64_t v;
    switch (c) {
    case 'h': fputs(BENCH_HELP, stdout); return 0;
    case 'H':
      if (cli_option_u64("bench", "--hash", optarg, 1, CLI_HASH_MB_MAX, &v)) return 2;
      o.hash_mb = (size_t)v;
      break;
    case 'N':
      if (cli_option_u64("bench", "--nodes", optarg, 1, CLI_NODES_MAX, &v)) return 2;
      o.max_nodes = v;
      break;
    case 'P':
      if (cli_option_mp("bench", optarg, &o)) return 2;
      break;
    case 'A':
      if (cli_option_algo("bench", optarg, &o)) return 2;
      break;
    case 'c':
      if (strcmp(optarg, "mate1") && strcmp(optarg, "algo")) return cli_usage_error("bench", "--compare needs mate1 or algo");
      compare = optarg;
      break;
    case 'f': file = optarg; break;
    case 'e': o.prove_exact = true; break;
    case '1': o.use_mate1 = false; break;
    default: return cli_getopt_error("bench", c, argv);
    }
  }
  if (optind < argc) return cli_usage_error("bench", "unexpected argument '%s'", argv[optind]);
  BenchRow *rows = NULL;
  TsError err;
  int n = 0;
  if (bench_load(file, &rows, &n, &err)) return cli_fail("bench", &err);
  uint64_t *nodes = calloc((size_t)n * 3, sizeof *nodes), *ms = calloc((size_t)n * 3, sizeof *ms);
  if (!nodes || !ms) {
    free(rows);
    free(nodes);
    free(ms);
    ts_error_set(&err, TS_ERR_NOMEM, "", 0, 0, "out of memory");
    return cli_fail("bench", &err);
  }
  int rc = 0;
  printf("bench: %d problems from %s, hash %zu MB, node limit %llu per problem, %s\n", n, file, o.hash_mb,
         (unsigned long long)o.max_nodes, o.prove_exact ? "exact length and main line" : "first proof");
  if (!compare) {
    BenchTotals t;
    rc = bench_run(rows, n, &o, true, nodes, ms, &t);
    if (!rc) print_totals("", &t, n);
  } else if (!strcmp(compare, "mate1")) {
    BenchTotals t[2];
    for (int k = 0; k < 2 && !rc; k++) {
      SolverOptions ok = o;
      ok.use_mate1 = k == 0;
      printf("--- %s 1-ply mate\n", k == 0 ? "with" : "without");
      rc = bench_run(rows, n, &ok, true, nodes + (size_t)k * n, ms + (size_t)k * n, &t[k]);
      if (!rc) print_totals(k == 0 ? "with mate1" : "without mate1", &t[k], n);
    }
    if (!rc) {
      printf("=== mate1 comparison\n");
      printf("time ratio (without / with): %.3f\n", t[0].ms ? (double)t[1].ms / (double)t[0].ms : 0.0);
      printf("node ratio (without / with): %.3f\n", t[0].nodes ? (double)t[1].nodes / (double)t[0].nodes : 0.0);
      printf("time saved by mate1: %.1f%%\n", t[1].ms ? 100.0 * (1.0 - (double)t[0].ms / (double)t[1].ms) : 0.0);
    }
  } else {
    BenchTotals t[3];
    static const SolverAlgo ALGOS[3] = {SOLVER_ALGO_DFPN, SOLVER_ALGO_PDS, SOLVER_ALGO_MULTIPATH};
    for (int k = 0; k < 3 && !rc; k++) {
      SolverOptions ok = o;
      ok.algo = ALGOS[k];
      printf("--- %s\n", solver_algo_name(ALGOS[k]));
      rc = bench_run(rows, n, &ok, true, nodes + (size_t)k * n, ms + (size_t)k * n, &t[k]);
      if (!rc) print_totals(solver_algo_name(ALGOS[k]), &t[k], n);
    }
    if (!rc) {
      printf("=== algorithm comparison (ratio > 1: faster than the reference)\n");
      printf("%-10s %8s %12s %14s %14s\n", "algo", "solved", "time_ms", "speedup/pds", "speedup/dfpn");
      for (int k = 0; k < 3; k++)
        printf("%-10s %8d %12llu %14.3f %14.3f\n", solver_algo_name(ALGOS[k]), t[k].solved,
               (unsigned long long)t[k].ms, t[k].ms ? (double)t[1].ms / (double)t[k].ms : 0.0,
               t[k].ms ? (double)t[0].ms / (double)t[k].ms : 0.0);
      /* geometric mean of per-problem speed-ups over PDS, as in the multi-path paper */
      for (int k = 0; k < 3; k++) {
        double lg = 0;
        int cnt = 0;
        for (int i = 0; i < n; i++) {
          double a = (double)ms[(size_t)n + i] + 1, b = (double)ms[(size_t)k * n + i] + 1;
          lg += __builtin_log(a / b);
          cnt++;
        }
        printf("%-10s geometric-mean speed-up over pds: %.3f\n", solver_algo_name(ALGOS[k]),
               cnt ? __builtin_exp(lg / cnt) : 0.0);
      }
    }
  }
  free(rows);
  free(nodes);
  free(ms);
  return rc;
}
