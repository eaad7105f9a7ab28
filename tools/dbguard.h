/*
 * dbguard.h - turns a fault while reading a database into an error: exit 3
 * with "database damaged: PATH" instead of a core dump.
 *
 * LMDB maps the file and trusts every page it reaches; it keeps no
 * checksums, so a damaged page (a child page number out of the file, a node
 * offset past its page) makes it read outside the map (SIGSEGV), past the
 * end of a short file (SIGBUS), or fail one of its assertions (SIGABRT).
 * tsdb_open checks the meta pages and the file size first (tsdb_check.h);
 * this guard catches what is left, deeper in the trees. How to use, for a
 * command that reads a database from its main thread: the whole command
 * runs inside the guard, whose jump target stays alive until it returns.
 *
 *   static int query_main(int argc, char **argv) { ...open, read, print... }
 *   int cmd_query(int argc, char **argv) { return dbguard_run("query", query_main, argc, argv); }
 *
 * Why jumping out of LMDB is safe enough here: the guarded code only reads
 * (read-only environment, read transactions), our code holds no lock then,
 * and LMDB takes its reader-table mutex only while registering a reader
 * slot, before any data page is touched; after the jump the command only
 * prints and exits, so no state left half-updated by the jump is used again
 * (the reader slot of the dead process is reclaimed by the next
 * mdb_reader_check). A fault in another thread, or outside an armed guard,
 * keeps its default action (a core dump): only the thread that armed the
 * guard jumps. A program bug in the guarded stretch would be reported the
 * same way; `tsume db-check` tells whether the file is at fault.
 */
#ifndef TSUME_DBGUARD_H
#define TSUME_DBGUARD_H

#include <setjmp.h>
#include <signal.h>

typedef struct DbGuard {
  sigjmp_buf jump;
  const char *cmd, *path;
  volatile sig_atomic_t signo; /* the signal caught, set by the handler */
  struct sigaction old[3];     /* SIGSEGV, SIGBUS, SIGABRT as they were */
  struct DbGuard *outer;       /* the guard armed before this one in the thread */
} DbGuard;

/* Runs fn(argc, argv) under a guard; the database named in the message is
 * the value of --db in argv. Returns fn's status, or 3 after a fault. */
int dbguard_run(const char *cmd, int (*fn)(int argc, char **argv), int argc, char **argv);

/* The parts, for a caller that sets its own jump target: */
/* Installs the handlers and makes g the thread's active guard. Call
 * sigsetjmp(g->jump, 1) right after, before any database read. */
void dbguard_arm(DbGuard *g, const char *cmd, const char *path);
/* Restores the handlers and the previous guard. */
void dbguard_disarm(DbGuard *g);
/* After the jump: prints "tsume CMD: database damaged: PATH ..." and returns 3. */
int dbguard_caught(DbGuard *g);

#endif
