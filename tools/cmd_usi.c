/*
 * cmd_usi.c - `tsume usi`: a USI mate engine (reference/formats.md §2.3).
 *
 * The main thread reads commands (lines of any length); `go mate` starts the
 * search on a worker thread, which answers with exactly one line:
 * `checkmate <moves>`, `checkmate nomate` or `checkmate timeout` (never another
 * word; limits that are not time, such as memory, also give `timeout`,
 * explained by an `info string`). `info` lines (time, nodes, nps, hashfull)
 * come about once a second while searching, with `score mate N pv ...` once a
 * first proof exists (the best checked line known), and one before a mate.
 * `stop` ends the search and answers the best result known (a mating line once
 * one is proven); `quit` stops and exits at once. At the end of input (the GUI
 * went away) a `go mate infinite` is stopped and the engine exits at once; a
 * search with a time limit is let finish within it, so `printf ... | tsume usi`
 * scripts get their answer. Bad input (an unknown option value, `go mate`
 * before a valid `position`, a hash table that cannot be allocated) gets an
 * `info string error: ...` line; a bad USI_Hash keeps the previous table.
 */
#include <ctype.h>
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
  bool infinite; /* the running search has no time limit */
  volatile int stop;
  uint64_t go_ms;
} UsiEngine;

static void usi_out(UsiEngine *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Every line goes out escaped (cli_escape): a byte of a GUI's command echoed in
 * an answer (an unknown command, a bad move) is never sent back raw. */
static void usi_out(UsiEngine *e, const char *fmt, ...) {
  va_list ap;
  char small[512], *text = small, *safe = NULL;
  va_start(ap, fmt);
  int len = vsnprintf(small, sizeof small, fmt, ap);
  va_end(ap);
  if (len >= (int)sizeof small && (text = malloc((size_t)len + 1))) {
    va_start(ap, fmt);
    vsnprintf(text, (size_t)len + 1, fmt, ap);
    va_end(ap);
  }
  if (!text) text = small; /* out of memory: the line cut at its first 511 bytes */
  size_t cap = strlen(text) * 4 + 1;
  safe = malloc(cap);
  if (safe) cli_escape(text, safe, cap);
  pthread_mutex_lock(&e->out_lock);
  fputs(safe ? safe : "info string error: out of memory", stdout);
  free(safe);
  if (text != small) free(text);
  fputc('\n', stdout);
  fflush(stdout);
  pthread_mutex_unlock(&e->out_lock);
}

/* "m1 m2 ..." of line[0..n) (malloc'ed; NULL when out of memory). */
static char *usi_line_text(const Move *line, int n) {
  size_t cap = (size_t)n * 8 + 16, k = 0;
  char *text = malloc(cap);
  if (!text) return NULL;
  text[0] = 0;
  for (int i = 0; i < n; i++) {
    char mv[8];
    usi_move_write(line[i], mv);
    k += (size_t)snprintf(text + k, cap - k, "%s%s", i ? " " : "", mv);
  }
  return text;
}

/* Called on the search thread: e->solver is the solver running. */
static void usi_progress(void *ctx, uint64_t nodes, uint64_t ms, int hashfull) {
  UsiEngine *e = ctx;
  int n = 0;
  const Move *known = solver_known_line(e->solver, &n);
  char *pv = known ? usi_line_text(known, n) : NULL;
  if (pv)
    usi_out(e, "info time %llu nodes %llu nps %llu hashfull %d score mate %d pv %s", (unsigned long long)ms,
            (unsigned long long)nodes, (unsigned long long)(ms ? nodes * 1000 / ms : 0), hashfull, n, pv);
  else
    usi_out(e, "info time %llu nodes %llu nps %llu hashfull %d", (unsigned long long)ms, (unsigned long long)nodes,
            (unsigned long long)(ms ? nodes * 1000 / ms : 0), hashfull);
  free(pv);
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
  int known_n = 0;
  const Move *known = solver_known_line(e->solver, &known_n);
  if (r.status == SOLVE_MATE && !r.exact && known && (r.pv_len == 0 || known_n < r.pv_len)) {
    /* stopped: the shortest checked line seen during the search is the best answer known */
    r.pv = (Move *)known;
    r.pv_len = known_n;
  }
  if (r.status == SOLVE_MATE && r.pv_len > 0) {
    char *line = usi_line_text(r.pv, r.pv_len);
    if (!line) {
      usi_out(e, "checkmate timeout");
      return NULL;
    }
    usi_out(e, "info time %llu nodes %llu nps %llu hashfull %d score mate %d pv %s", (unsigned long long)r.time_ms,
            (unsigned long long)r.nodes, (unsigned long long)(r.time_ms ? r.nodes * 1000 / r.time_ms : 0),
            solver_hashfull(e->solver), r.pv_len, line);
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

/* Makes the solver, or applies e->opt to it. When the table of e->opt.hash_mb
 * cannot be allocated, says so and keeps (or makes) the previous size. */
static bool usi_ensure_solver(UsiEngine *e) {
  size_t want = e->opt.hash_mb;
  if (e->solver) {
    if (solver_set_options(e->solver, &e->opt) == TS_OK) return true;
    e->opt.hash_mb = solver_options(e->solver)->hash_mb;
    usi_out(e, "info string error: out of memory for a %zu MB hash table; USI_Hash stays %zu", want, e->opt.hash_mb);
    return solver_set_options(e->solver, &e->opt) == TS_OK;
  }
  e->solver = solver_create(&e->opt);
  if (e->solver) return true;
  SolverOptions d;
  solver_options_default(&d);
  e->opt.hash_mb = want > d.hash_mb ? d.hash_mb : 1;
  usi_out(e, "info string error: out of memory for a %zu MB hash table; USI_Hash is %zu", want, e->opt.hash_mb);
  e->solver = solver_create(&e->opt);
  return e->solver != NULL;
}

/* A copy of s fit for an info line: at most 80 bytes, control bytes as \xNN. */
static void usi_escape(const char *s, char *out, size_t cap) {
  size_t k = 0;
  for (; *s && k + 5 < cap; s++) {
    unsigned char c = (unsigned char)*s;
    if (c < 0x20 || c == 0x7f) k += (size_t)snprintf(out + k, cap - k, "\\x%02x", c);
    else out[k++] = (char)c;
  }
  if (*s && k + 4 < cap) k += (size_t)snprintf(out + k, cap - k, "...");
  out[k] = 0;
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
  char *save = NULL, *limit = strtok_r(args, " \t", &save);
  if (limit && strcmp(limit, "infinite") && !cli_parse_u64(limit, &ms)) {
    char esc[96];
    usi_escape(limit, esc, sizeof esc);
    usi_out(e, "info string error: bad time limit '%s' (milliseconds or infinite)", esc);
    usi_out(e, "checkmate timeout");
    return;
  }
  if (!e->have_pos) {
    /* nothing was searched: 'nomate' would be a false answer */
    usi_out(e, "info string error: no valid position (send 'position' first)");
    usi_out(e, "checkmate timeout");
    return;
  }
  e->opt.time_ms = ms;
  e->infinite = ms == 0;
  if (!usi_ensure_solver(e)) {
    usi_out(e, "info string error: out of memory for the hash table");
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
  if (argc > 2 || (argc == 2 && strcmp(argv[1], "--help") && strcmp(argv[1], "-h")))
    return cli_usage_error("usi", "unexpected argument '%s' (usage: tsume usi)", argv[1]);
  if (argc > 1) {
    puts("usage: tsume usi\nA USI mate engine on stdin/stdout: usi, isready, setoption (USI_Hash MB,\n"
         "FutileRule true|false, PvInterval ms), position, go mate <ms|infinite>, stop, quit.\n"
         "Replies to go mate with exactly one of 'checkmate <moves>', 'checkmate nomate',\n"
         "'checkmate timeout'. At the end of input an infinite search stops at once.");
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
  char *line = NULL;
  size_t line_cap = 0;
  ssize_t got;
  /* getline: a `position ... moves` line of any length is one command */
  while ((got = getline(&line, &line_cap, stdin)) >= 0) {
    size_t n = (size_t)got;
    while (n && (line[n - 1] == '\n' || line[n - 1] == '\r')) line[--n] = 0;
    char *cmd = line;
    while (*cmd == ' ') cmd++;
    if (!strcmp(cmd, "usi")) {
      usi_out(&e, "id name tsume %s", TSUME_VERSION);
      usi_out(&e, "id author the tsume developers");
      usi_out(&e, "option name USI_Hash type spin default 64 min 1 max 65536");
      usi_out(&e, "option name FutileRule type check default true");
      usi_out(&e, "option name PvInterval type spin default 1000 min 1 max 60000");
      usi_out(&e, "usiok");
    } else if (!strcmp(cmd, "isready")) {
      usi_wait(&e);
      if (!usi_ensure_solver(&e)) usi_out(&e, "info string out of memory for the hash table");
      usi_out(&e, "readyok");
    } else if (!strncmp(cmd, "setoption ", 10)) {
      char name[64] = "", value[64] = "", esc[96];
      char *np = strstr(cmd, "name "), *vp = strstr(cmd, " value ");
      if (np) sscanf(np + 5, "%63s", name);
      if (vp) sscanf(vp + 7, "%63s", value);
      usi_escape(value, esc, sizeof esc);
      if (e.running) {
        usi_out(&e, "info string error: setoption during a search is ignored");
      } else if (!strcmp(name, "USI_Hash")) {
        uint64_t mb;
        size_t old = e.opt.hash_mb;
        if (!cli_parse_u64(value, &mb) || mb < 1 || mb > 65536) {
          usi_out(&e, "info string error: USI_Hash value '%s' is not a size in MB from 1 to 65536; it stays %zu", esc,
                  old);
        } else if (mb != old) {
          e.opt.hash_mb = (size_t)mb;
          usi_ensure_solver(&e); /* allocate now, so a refused size is named at once and the old table stays */
        }
      } else if (!strcmp(name, "FutileRule")) {
        if (strcmp(value, "true") && strcmp(value, "false"))
          usi_out(&e, "info string error: FutileRule value '%s' is not true or false", esc);
        else
          e.opt.futile_rule = !strcmp(value, "true");
      } else if (!strcmp(name, "PvInterval")) {
        /* ms between info lines (KomoringHeights has the same option) */
        uint64_t ms;
        if (!cli_parse_u64(value, &ms) || ms < 1 || ms > 60000)
          usi_out(&e, "info string error: PvInterval value '%s' is not a time in ms from 1 to 60000", esc);
        else
          e.opt.progress_ms = ms;
      } else if (strncmp(name, "USI_", 4)) { /* USI_Ponder and the like: GUIs send them to every engine */
        char nesc[96];
        usi_escape(name, nesc, sizeof nesc);
        usi_out(&e, "info string error: unknown option '%s'", nesc);
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
      char esc[96];
      usi_escape(cmd, esc, sizeof esc);
      usi_out(&e, "info string error: unknown command: %s", esc);
    }
  }
  /* end of input: the GUI is gone; an infinite search would never end */
  if (e.running && e.infinite) e.stop = 1;
  usi_wait(&e);
  free(line);
  solver_free(e.solver);
  pthread_mutex_destroy(&e.out_lock);
  return 0;
}
