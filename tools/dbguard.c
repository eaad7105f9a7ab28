/*
 * dbguard.c - SIGSEGV / SIGBUS / SIGABRT while reading a database become
 * "database damaged", exit 3 (dbguard.h says when this is safe).
 */
#include "dbguard.h"

#include <stdio.h>
#include <string.h>

/* The signal handler has no argument to find the guard by: the thread's
 * innermost armed guard is the one mutable global the tools keep. */
static _Thread_local DbGuard *active;

static const int SIGNALS[3] = {SIGSEGV, SIGBUS, SIGABRT};

static void on_fault(int sig, siginfo_t *info, void *uctx) {
  (void)info;
  (void)uctx;
  DbGuard *g = active;
  if (!g) { /* not ours: the default action, when the fault repeats or abort() raises again */
    signal(sig, SIG_DFL);
    return;
  }
  g->signo = sig;
  siglongjmp(g->jump, 1);
}

void dbguard_arm(DbGuard *g, const char *cmd, const char *path) {
  g->cmd = cmd;
  g->path = path;
  g->signo = 0;
  g->outer = active;
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_fault;
  sa.sa_flags = SA_SIGINFO;
  sigemptyset(&sa.sa_mask);
  for (int i = 0; i < 3; i++) sigaction(SIGNALS[i], &sa, &g->old[i]);
  active = g;
}

void dbguard_disarm(DbGuard *g) {
  active = g->outer;
  for (int i = 0; i < 3; i++) sigaction(SIGNALS[i], &g->old[i], NULL);
}

int dbguard_caught(DbGuard *g) {
  int sig = g->signo;
  dbguard_disarm(g);
  fflush(stdout);
  fprintf(stderr,
          "tsume %s: database damaged: %s (%s while reading it; `tsume db-check --db %s` tells "
          "where)\n",
          g->cmd, g->path, sig == SIGBUS ? "SIGBUS, a read past the end of the file"
                           : sig == SIGABRT ? "an LMDB assertion failed"
                                            : "SIGSEGV",
          g->path);
  return 3;
}

int dbguard_run(const char *cmd, int (*fn)(int argc, char **argv), int argc, char **argv) {
  const char *path = "the database";
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--db") && i + 1 < argc) path = argv[i + 1];
    else if (!strncmp(argv[i], "--db=", 5)) path = argv[i] + 5;
  }
  DbGuard guard;
  dbguard_arm(&guard, cmd, path);
  if (sigsetjmp(guard.jump, 1)) return dbguard_caught(&guard);
  int rc = fn(argc, argv);
  dbguard_disarm(&guard);
  return rc;
}
