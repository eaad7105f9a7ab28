/*
 * cli.h - what the subcommands of `tsume` share: the command table, option
 * helpers, loading a position from a SFEN or a file, and error reporting.
 */
#ifndef TSUME_CLI_H
#define TSUME_CLI_H

#include <stdbool.h>
#include <stdint.h>

#include "error.h"
#include "position.h"
#include "solver.h"

#define TSUME_VERSION "0.1.0"

typedef struct {
  const char *name;
  int (*run)(int argc, char **argv);
  const char *summary;
} CliCommand;

/* Prints "tsume <cmd>: <formatted error>" on stderr and returns the exit status for it. */
int cli_fail(const char *cmd, const TsError *err);
/* Prints a usage error and returns 2. */
int cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Parses a non-negative integer option value; false when malformed. */
bool cli_parse_u64(const char *s, uint64_t *out);

/*
 * Reads a position from argv[0]: a file when it names one that exists or holds a
 * '.' or no '/' (read as its extension says, any case, else as its text shows:
 * tools/source.h), else a SFEN (the words that follow are joined, so an unquoted
 * SFEN works). *used tells how many argv words were taken. Returns TS_OK or an
 * error code with err filled.
 */
int cli_load_position(int argc, char **argv, int *used, Position *pos, TsError *err);
/* cli_load_position for the commands that solve: the position must also be a
 * problem (pos_validate_problem: the defender has a king). */
int cli_load_problem(int argc, char **argv, int *used, Position *pos, TsError *err);

/* Worker threads when --threads is not given: the processors online, at most WORKERS_MAX. */
int cli_default_threads(void);

/* The value of --mp (multi-path parameters, solver.h) into *o; 0, or 2 after a
 * usage error printed for cmd. */
int cli_option_mp(const char *cmd, const char *value, SolverOptions *o);

/* Monotonic milliseconds. */
uint64_t cli_now_ms(void);
/* Peak resident set size in KiB. */
long cli_peak_rss_kb(void);

#endif
