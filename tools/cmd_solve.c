#include <getopt.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "kif.h"
#include "sfen.h"
#include "solver.h"

static const char SOLVE_HELP[] =
    "usage: tsume solve [options] <SFEN|file.kif|file.kifu|file.csa|file.sfen>\n"
    "Solves a tsume problem: the side to move attacks (sente or gote).\n"
    "  --time-ms T        stop after T ms (default: no limit)\n"
    "  --nodes N          stop after N nodes (default: no limit)\n"
    "  --hash MB          transposition table size (default 64)\n"
    "  --algo A           first-proof search: dfpn (default), pds, multipath\n"
    "  --mp K=V,...       multi-path parameters: threads (2), base (1000),\n"
    "                     leader (1.5), tt (0.05), budget pn|pndn|const (pndn)\n"
    "  --within L         only ask: is there a mate in at most L plies?\n"
    "  --futile-rule R    無駄合: same (default: a free capture, then the same mate),\n"
    "                     mated (a free capture, then mated at all), none\n"
    "  --no-futile-rule   count every interposition (--futile-rule=none)\n"
    "  --no-mate1         no 1-ply mate test at OR nodes\n"
    "  --no-exact         stop after the first proof (length is an upper bound)\n"
    "  --trace            progress of the exact-length proof of a long problem on stderr\n"
    "  --json             one JSON object:\n"
    "                     {\"result\":\"mate|nomate|unknown\",\"length\":N,\"exact\":bool,\n"
    "                      \"pv\":[\"7g7f\",...],\"nodes\":N,\"time_ms\":N,\"setup_ms\":N\n"
    "                      [,\"stop_reason\":\"nodes|time|depth|line\"]}\n"
    "Text output: 'mate N' (or 'mate <=N' when N is not proven shortest), then the\n"
    "main line in USI ('usi ...') and KIF notation ('kif ...'); with 'mate <=N' the\n"
    "line is a checked mate, and 'line L plies' follows when its length L differs\n"
    "from N; 'nomate'; or\n"
    "'unknown (<limit>)'; then 'nodes N', 'time_ms T' and 'setup_ms S' (table set-up\n"
    "before the search, not part of T).\n"
    "Main line: shortest attack, longest defence, 駒余り tie-break, 無駄合 not counted.\n"
    "無駄合: an interposition between a single ranging checker and the king, by a drop\n"
    "or by a board piece moving there (移動合), is futile when some check captures it\n"
    "for free (no defender piece, the king included, can take the capturing piece),\n"
    "the position after that capture, the piece handed back to the defender's hand,\n"
    "is mated, and the mate goes on as without the interposition: every reply there\n"
    "is a legal reply without it and is mated in no more plies (lengths measured\n"
    "under the first two conditions alone). It does not depend on the length\n"
    "searched (docs/design.md: sources, cases).\n"
    "Exit status: 0 mate or nomate found, 1 unknown (a limit stopped the search),\n"
    "2 bad usage or input.\n";

typedef struct {
  Solver *solver;
  Position pos;
  int within;
  SolveResult res;
  int rc;
} SolveJob;

static void *solve_thread(void *arg) {
  SolveJob *j = arg;
  if (j->within >= 0)
    j->rc = solver_mate_within(j->solver, &j->pos, j->within, &j->res);
  else
    j->rc = solver_solve(j->solver, &j->pos, &j->res);
  return NULL;
}

/* Runs the search on a thread with a large stack (deep df-pn paths recurse). */
int cli_solve_run(Solver *s, const Position *pos, int within, SolveResult *r) {
  SolveJob job;
  memset(&job, 0, sizeof job);
  job.solver = s;
  job.pos = *pos;
  job.within = within;
  pthread_attr_t attr;
  pthread_t t;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, (size_t)512 << 20);
  if (pthread_create(&t, &attr, solve_thread, &job) != 0) {
    pthread_attr_destroy(&attr);
    solve_thread(&job);
  } else {
    pthread_join(t, NULL);
    pthread_attr_destroy(&attr);
  }
  *r = job.res;
  return job.rc;
}

/* Writes the main line in KIF notation (moves separated by spaces). */
void cli_print_kif_line(FILE *f, const Position *root, const Move *pv, int n) {
  Position p = *root;
  Move prev = MOVE_NONE;
  for (int i = 0; i < n; i++) {
    char buf[KIF_MOVE_MAX];
    kif_move_write(&p, pv[i], prev, buf, sizeof buf);
    fprintf(f, "%s%s", i ? " " : "", buf);
    Undo u;
    pos_do_move(&p, pv[i], &u);
    prev = pv[i];
  }
}

int cmd_solve(int argc, char **argv) {
  SolverOptions o;
  solver_options_default(&o);
  bool json = false;
  int within = -1;
  static const struct option LONG[] = {
      {"help", no_argument, NULL, 'h'},           {"json", no_argument, NULL, 'j'},
      {"no-futile-rule", no_argument, NULL, 'F'}, {"no-mate1", no_argument, NULL, '1'},
      {"trace", no_argument, NULL, 't'},          {"no-exact", no_argument, NULL, 'E'},
      {"time-ms", required_argument, NULL, 'T'},  {"nodes", required_argument, NULL, 'N'},
      {"hash", required_argument, NULL, 'H'},     {"within", required_argument, NULL, 'W'},
      {"mp", required_argument, NULL, 'P'},       {"algo", required_argument, NULL, 'A'},
      {"futile-rule", required_argument, NULL, 'R'}, {NULL, 0, NULL, 0}};
  optind = 1;
  opterr = 0;
  for (int c; (c = getopt_long(argc, argv, ":h", LONG, NULL)) != -1;) {
    uint64_t v = 0;
    static const CliRange RANGE[] = {{'T', "--time-ms", 1, CLI_TIME_MS_MAX}, {'N', "--nodes", 1, CLI_NODES_MAX},
                                     {'H', "--hash", 1, CLI_HASH_MB_MAX},    {'W', "--within", 0, 20000}};
    if (cli_option_ranged("solve", c, optarg, RANGE, sizeof RANGE / sizeof RANGE[0], &v)) return 2;
    switch (c) {
    case 'h': fputs(SOLVE_HELP, stdout); return 0;
    case 'j': json = true; break;
    case 'F': o.futile_rule = false; break;
    case '1': o.use_mate1 = false; break;
    case 't': o.trace = stderr; break;
    case 'E': o.prove_exact = false; break;
    case 'T': o.time_ms = v; break;
    case 'N': o.max_nodes = v; break;
    case 'H': o.hash_mb = (size_t)v; break;
    case 'W': within = (int)v; break;
    case 'P':
      if (cli_option_mp("solve", optarg, &o)) return 2;
      break;
    case 'A':
      if (cli_option_algo("solve", optarg, &o)) return 2;
      break;
    case 'R':
      if (cli_option_futile("solve", optarg, &o)) return 2;
      break;
    default: return cli_getopt_error("solve", c, argv);
    }
  }
  int i = optind;
  Position pos;
  TsError err;
  int used = 0;
  int rc = cli_load_problem(argc - i, argv + i, &used, &pos, &err);
  if (rc) return cli_fail("solve", &err);
  if (i + used != argc) return cli_usage_error("solve", "unexpected argument '%s'", argv[i + used]);
  Solver *s = solver_create(&o);
  if (!s) {
    ts_error_set(&err, TS_ERR_NOMEM, "", 0, 0, "cannot allocate a %zu MB table (--hash %zu): give a smaller --hash",
                 o.hash_mb, o.hash_mb);
    return cli_fail("solve", &err);
  }
  SolveResult r;
  rc = cli_solve_run(s, &pos, within, &r);
  if (rc) {
    solver_free(s);
    pos_validate_problem(&pos, "<position>", &err); /* the solver's reason (cli_load_problem has checked it) */
    return cli_fail("solve", &err);
  }
  const char *res = r.status == SOLVE_MATE ? "mate" : r.status == SOLVE_NOMATE ? "nomate" : "unknown";
  if (json) {
    printf("{\"result\":\"%s\",\"length\":%d,\"exact\":%s,\"pv\":[", res, r.status == SOLVE_MATE ? r.length : 0,
           r.status == SOLVE_UNKNOWN ? "false" : (r.status == SOLVE_NOMATE || r.exact) ? "true" : "false");
    for (int k = 0; k < r.pv_len; k++) {
      char mv[8];
      usi_move_write(r.pv[k], mv);
      printf("%s\"%s\"", k ? "," : "", mv);
    }
    printf("],\"nodes\":%llu,\"time_ms\":%llu,\"setup_ms\":%llu", (unsigned long long)r.nodes,
           (unsigned long long)r.time_ms, (unsigned long long)r.setup_ms);
    if (r.stop_reason) printf(",\"stop_reason\":\"%s\"", r.stop_reason);
    if (r.futile_bound) printf(",\"futile_bound\":%d", r.futile_bound);
    printf("}\n");
  } else {
    if (r.status == SOLVE_MATE) {
      printf("mate %s%d\n", r.exact ? "" : "<=", r.length);
      if (r.pv_len) {
        printf("usi");
        for (int k = 0; k < r.pv_len; k++) {
          char mv[8];
          usi_move_write(r.pv[k], mv);
          printf(" %s", mv);
        }
        printf("\nkif ");
        cli_print_kif_line(stdout, &pos, r.pv, r.pv_len);
        printf("\n");
        if (r.komaamari) printf("komaamari\n");
        /* not exact: the line is a checked mate, its length may be below the proven bound */
        if (!r.exact && r.pv_len != r.length) printf("line %d plies (a checked mating line)\n", r.pv_len);
      }
    } else if (r.status == SOLVE_NOMATE) {
      printf("nomate\n");
    } else {
      printf("unknown (%s)\n", r.stop_reason ? r.stop_reason : "limit");
    }
    if (r.status == SOLVE_MATE)
      printf("first_proof length %d nodes %llu time_ms %llu\n", r.first_length, (unsigned long long)r.first_nodes,
             (unsigned long long)r.first_time_ms);
    printf("nodes %llu\ntime_ms %llu\nsetup_ms %llu\n", (unsigned long long)r.nodes, (unsigned long long)r.time_ms,
           (unsigned long long)r.setup_ms);
  }
  if (r.status == SOLVE_UNKNOWN && json) fprintf(stderr, "tsume solve: stopped by the %s limit\n", r.stop_reason);
  if (r.status == SOLVE_MATE && !r.exact && r.stop_reason) {
    if (!strcmp(r.stop_reason, "futile"))
      fprintf(stderr,
              "tsume solve: length not proven shortest: mate within %d under the 無駄合 rule, but no line of "
              "that length (at a defender node a drop is futile at the node's bound and not below it, and "
              "every other defence is shorter); the line shown counts such drops as defences\n",
              r.futile_bound);
    else if (!strcmp(r.stop_reason, "line"))
      fprintf(stderr, "tsume solve: length not proven shortest (no main line of the proven length)\n");
    else
      fprintf(stderr, "tsume solve: length not proven shortest (%s limit)\n", r.stop_reason);
  }
  solver_free(s);
  return r.status == SOLVE_UNKNOWN ? 1 : 0;
}
