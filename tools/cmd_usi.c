/*
 * cmd_usi.c - `tsume usi`: a USI mate engine (reference/formats.md §2.3).
 *
 * The main thread reads commands; `go mate` starts the search on a worker
 * thread, which answers with exactly one line: `checkmate <moves>`,
 * `checkmate nomate` or `checkmate timeout` (never another word; limits that
 * are not time, such as memory, also give `timeout`, explained by an
 * `info string`). `info` lines (time, nodes, nps, hashfull) come about once a
 * second while searching, and one with `score mate N pv ...` before a mate.
 * `stop` ends the search (the answer still comes); `quit` stops and exits; at
 * the end of input the engine waits for a running search, answers, and exits.
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "sfen.h"
#include "solver.h"

#define USI_STARTPOS "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1"

typedef struct {
  pthread_mutex_t out_lock;
  Solver *solver;
  SolverOptions opt;
  Position pos;
  bool have_pos;
  pthread_t thread;
  bool running;
  volatile int stop;
  uint64_t go_ms;
} UsiEngine;

static void usi_out(UsiEngine *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void usi_out(UsiEngine *e, const char *fmt, ...) {
  va_list ap;
  pthread_mutex_lock(&e->out_lock);
  va_start(ap, fmt);
  vprintf(fmt, ap);
  va_end(ap);
  fputc('\n', stdout);
  fflush(stdout);
  pthread_mutex_unlock(&e->out_lock);
}

static void usi_progress(void *ctx, uint64_t nodes, uint64_t ms, int hashfull) {
  UsiEngine *e = ctx;
  usi_out(e, "info time %llu nodes %llu nps %llu hashfull %d", (unsigned long long)ms, (unsigned long long)nodes,
          (unsigned long long)(ms ? nodes * 1000 / ms : 0), hashfull);
}

static void *usi_search(void *arg) {
  UsiEngine *e = arg;
  SolveResult r;
  int rc = solver_solve(e->solver, &e->pos, &r);
  if (rc != TS_OK) {
    TsError err;
    pos_validate_problem(&e->pos, "position", &err); /* why the solver refused it */
    usi_out(e, "info string %s", err.msg);
    usi_out(e, "checkmate nomate");
    return NULL;
  }
  if (r.status == SOLVE_MATE && r.pv_len > 0) {
    size_t cap = (size_t)r.pv_len * 8 + 16, k = 0;
    char *line = malloc(cap);
    if (!line) {
      usi_out(e, "checkmate timeout");
      return NULL;
    }
    line[0] = 0;
    for (int i = 0; i < r.pv_len; i++) {
      char mv[8];
      usi_move_write(r.pv[i], mv);
      k += (size_t)snprintf(line + k, cap - k, "%s%s", i ? " " : "", mv);
    }
    usi_out(e, "info time %llu nodes %llu nps %llu hashfull %d score mate %d pv %s", (unsigned long long)r.time_ms,
            (unsigned long long)r.nodes, (unsigned long long)(r.time_ms ? r.nodes * 1000 / r.time_ms : 0),
            solver_hashfull(e->solver), r.length, line);
    if (!r.exact) usi_out(e, "info string mate length not proven shortest (%s)", r.stop_reason ? r.stop_reason : "limit");
    usi_out(e, "checkmate %s", line);
    free(line);
  } else if (r.status == SOLVE_MATE) {
    usi_out(e, "info string a mate was found but no line could be built in the time");
    usi_out(e, "checkmate timeout");
  } else if (r.status == SOLVE_NOMATE) {
    usi_out(e, "checkmate nomate");
  } else {
    if (r.stop_reason && strcmp(r.stop_reason, "time") && strcmp(r.stop_reason, "stop"))
      usi_out(e, "info string search stopped by the %s limit", r.stop_reason);
    usi_out(e, "checkmate timeout");
  }
  return NULL;
}

static void usi_wait(UsiEngine *e) {
  if (e->running) {
    pthread_join(e->thread, NULL);
    e->running = false;
  }
}

static bool usi_ensure_solver(UsiEngine *e) {
  if (e->solver) return solver_set_options(e->solver, &e->opt) == TS_OK;
  e->solver = solver_create(&e->opt);
  return e->solver != NULL;
}

/* "position startpos|sfen <sfen> [moves m...]" */
static void usi_position(UsiEngine *e, char *args) {
  char *moves = strstr(args, " moves");
  if (moves) *moves = 0, moves += 6;
  while (*args == ' ') args++;
  const char *sfen = NULL;
  if (!strncmp(args, "startpos", 8))
    sfen = USI_STARTPOS;
  else if (!strncmp(args, "sfen ", 5))
    sfen = args + 5;
  TsError err;
  Position pos;
  if (!sfen || sfen_parse(sfen, &pos, "position", &err)) {
    usi_out(e, "info string bad position: %s", sfen ? err.msg : "expected startpos or sfen");
    e->have_pos = false;
    return;
  }
  if (moves) {
    char *save = NULL;
    for (char *t = strtok_r(moves, " \t", &save); t; t = strtok_r(NULL, " \t", &save)) {
      Move m;
      if (usi_move_parse(&pos, t, &m, &err)) {
        usi_out(e, "info string bad move %s: %s", t, err.msg);
        e->have_pos = false;
        return;
      }
      Undo u;
      pos_do_move(&pos, m, &u);
    }
  }
  e->pos = pos;
  e->have_pos = true;
}

static void usi_go(UsiEngine *e, char *args) {
  while (*args == ' ') args++;
  if (strncmp(args, "mate", 4)) {
    usi_out(e, "info string only 'go mate' is supported");
    usi_out(e, "bestmove resign");
    return;
  }
  if (e->running) {
    usi_out(e, "info string a search is already running");
    return;
  }
  args += 4;
  while (*args == ' ') args++;
  uint64_t ms = 0;
  if (*args && strncmp(args, "infinite", 8) && !cli_parse_u64(strtok(args, " \t"), &ms)) ms = 0;
  if (!e->have_pos) {
    usi_out(e, "info string no position");
    usi_out(e, "checkmate nomate");
    return;
  }
  e->opt.time_ms = ms;
  if (!usi_ensure_solver(e)) {
    usi_out(e, "info string out of memory for the hash table");
    usi_out(e, "checkmate timeout");
    return;
  }
  e->stop = 0;
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, (size_t)512 << 20);
  if (pthread_create(&e->thread, &attr, usi_search, e) == 0) e->running = true;
  pthread_attr_destroy(&attr);
  if (!e->running) usi_search(e);
}

int cmd_usi(int argc, char **argv) {
  if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
    puts("usage: tsume usi\nA USI mate engine on stdin/stdout: usi, isready, setoption name USI_Hash value MB,\n"
         "position, go mate <ms|infinite>, stop, quit. Replies to go mate with exactly one of\n"
         "'checkmate <moves>', 'checkmate nomate', 'checkmate timeout'.");
    return 0;
  }
  UsiEngine e;
  memset(&e, 0, sizeof e);
  pthread_mutex_init(&e.out_lock, NULL);
  solver_options_default(&e.opt);
  e.opt.stop = &e.stop;
  e.opt.progress = usi_progress;
  e.opt.progress_ctx = &e;
  e.opt.progress_ms = 1000;
  enum { LINE_MAX_ = 1 << 16 };
  char *line = malloc(LINE_MAX_);
  if (!line) return 3;
  while (fgets(line, LINE_MAX_, stdin)) {
    size_t n = strlen(line);
    while (n && (line[n - 1] == '\n' || line[n - 1] == '\r')) line[--n] = 0;
    char *cmd = line;
    while (*cmd == ' ') cmd++;
    if (!strcmp(cmd, "usi")) {
      usi_out(&e, "id name tsume %s", TSUME_VERSION);
      usi_out(&e, "id author the tsume developers");
      usi_out(&e, "option name USI_Hash type spin default 64 min 1 max 65536");
      usi_out(&e, "option name FutileRule type check default true");
      usi_out(&e, "usiok");
    } else if (!strcmp(cmd, "isready")) {
      usi_wait(&e);
      if (!usi_ensure_solver(&e)) usi_out(&e, "info string out of memory for the hash table");
      usi_out(&e, "readyok");
    } else if (!strncmp(cmd, "setoption ", 10)) {
      char name[64] = "", value[64] = "";
      char *np = strstr(cmd, "name "), *vp = strstr(cmd, " value ");
      if (np) sscanf(np + 5, "%63s", name);
      if (vp) sscanf(vp + 7, "%63s", value);
      if (!strcmp(name, "USI_Hash")) {
        uint64_t mb;
        if (cli_parse_u64(value, &mb) && mb >= 1 && mb <= 65536) e.opt.hash_mb = (size_t)mb;
      } else if (!strcmp(name, "FutileRule")) {
        e.opt.futile_rule = strcmp(value, "false") != 0;
      }
    } else if (!strcmp(cmd, "usinewgame")) {
      /* nothing to reset: results never depend on the table */
    } else if (!strncmp(cmd, "position", 8)) {
      usi_wait(&e);
      usi_position(&e, cmd + 8);
    } else if (!strncmp(cmd, "go", 2) && (cmd[2] == 0 || cmd[2] == ' ')) {
      usi_go(&e, cmd + 2);
    } else if (!strcmp(cmd, "stop")) {
      e.stop = 1;
      usi_wait(&e);
    } else if (!strcmp(cmd, "quit")) {
      e.stop = 1;
      usi_wait(&e);
      break;
    } else if (!strncmp(cmd, "gameover", 8) || !*cmd) {
      /* ignored */
    } else {
      usi_out(&e, "info string unknown command: %s", cmd);
    }
  }
  usi_wait(&e);
  free(line);
  solver_free(e.solver);
  pthread_mutex_destroy(&e.out_lock);
  return 0;
}
