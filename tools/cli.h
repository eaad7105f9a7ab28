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
#include "source.h"

#define TSUME_VERSION "0.1.0"

typedef struct {
  const char *name;
  int (*run)(int argc, char **argv);
  const char *summary;
} CliCommand;

/* in (NUL-terminated) into out (capacity n, truncated): control bytes, C1
 * controls and bytes outside well-formed UTF-8 become \xNN, so that nothing
 * from the input reaches the terminal as a control sequence. */
void cli_escape(const char *in, char *out, size_t n);
/* Prints "tsume <cmd>: <formatted text, escaped as by cli_escape>" on stderr.
 * Every message that holds a user-supplied string goes through it. */
void cli_message(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Flushes and closes standard output: 0, or 3 after "tsume <cmd>: error writing
 * standard output: <reason>" on stderr (a full disk, /dev/full, a closed pipe). */
int cli_stdout_close(const char *cmd);
/* Prints "tsume <cmd>: <formatted error>" on stderr and returns the exit status for it. */
int cli_fail(const char *cmd, const TsError *err);
/* Prints a usage error and returns 2. */
int cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Parses a non-negative integer option value; false when malformed. */
bool cli_parse_u64(const char *s, uint64_t *out);
/* The upper ends of --time-ms, of the node counts and of --hash: about 49 days,
 * 10^15 nodes, 1 TiB. */
#define CLI_TIME_MS_MAX ((uint64_t)1 << 32)
#define CLI_NODES_MAX ((uint64_t)1000000000000000)
#define CLI_HASH_MB_MAX ((uint64_t)1 << 20)
/* The value of option `name` ("--threads") as a whole number from min to max
 * into *out: 0, or 2 after the usage error "--threads needs a whole number from
 * 1 to 64, not '-1'" for cmd. */
int cli_option_u64(const char *cmd, const char *name, const char *value, uint64_t min, uint64_t max, uint64_t *out);
/* A command's numeric options: getopt's code, the name, the range. */
typedef struct {
  int c;
  const char *name;
  uint64_t min, max;
} CliRange;
/* When c is one of the n options of t, its value by cli_option_u64 into *out
 * (0, or 2 after the usage error); 0 when c is not among them. */
int cli_option_ranged(const char *cmd, int c, const char *value, const CliRange *t, size_t n, uint64_t *out);

/*
 * Reads a position from argv[0]: a file when it names one that exists or holds a
 * '.' or no '/' (read as its extension says, any case, else as its text shows:
 * tools/source.h), else a SFEN (the words that follow are joined, so an unquoted
 * SFEN works), optionally followed by "moves <usi>..." as in USI's `position`
 * command and in a .sfen file (in the same word or in the words after). The
 * moves are checked to be legal in sequence, as a file's are, and are the
 * position's line: the file's main line, or the moves after the SFEN; the
 * position itself is the start, before them. line may be NULL (the moves are
 * still checked).
 * *used tells how many argv words were taken. Returns TS_OK or an error code
 * with err filled.
 */
int cli_load_position_line(int argc, char **argv, int *used, Position *pos, SourceLine *line, TsError *err);
/* cli_load_position_line without a line, for a command that has no use for one
 * (solve, show, perft): the moves after a SFEN (argument or .sfen file) are
 * checked, then named on stderr ("tsume: note: the N moves after "moves" are
 * legal but not used...") - the position is the start, before them. */
int cli_load_position(int argc, char **argv, int *used, Position *pos, TsError *err);
/* cli_load_position for the commands that solve: the position must also be a
 * problem (pos_validate_problem: the defender has a king). */
int cli_load_problem(int argc, char **argv, int *used, Position *pos, TsError *err);
/* cli_load_position_line for a problem; a line whose first move is not a check
 * (a game record) is dropped: line->n = 0. */
int cli_load_problem_line(int argc, char **argv, int *used, Position *pos, SourceLine *line, TsError *err);

/* The problems a position argument names: several for a KIF of several records or a
 * .sfen list (source_load_record), else 1. The _at variants of the loaders below read
 * problem `index` (0-based) of such a file; the others read the first. */
int cli_problem_count(int argc, char **argv);
int cli_load_position_line_at(int argc, char **argv, int index, int *used, Position *pos, SourceLine *line,
                              TsError *err);
int cli_load_position_at(int argc, char **argv, int index, int *used, Position *pos, TsError *err);
int cli_load_problem_line_at(int argc, char **argv, int index, int *used, Position *pos, SourceLine *line,
                             TsError *err);

/* Worker threads when --threads is not given: the processors online, at most WORKERS_MAX. */
int cli_default_threads(void);

/* The value of --mp (multi-path parameters, solver.h) into *o; 0, or 2 after a
 * usage error printed for cmd. */
int cli_option_mp(const char *cmd, const char *value, SolverOptions *o);
/* The value of --algo (dfpn, pds, multipath) into o->algo; 0, or 2 after a usage
 * error printed for cmd. */
int cli_option_algo(const char *cmd, const char *value, SolverOptions *o);
/* --futile-rule=same|mated|none (無駄合, solver.h): both parts (the default), the
 * first part alone, none (every interposition a defence, as --no-futile-rule). */
int cli_option_futile(const char *cmd, const char *value, SolverOptions *o);

/* The value of --limit K into *limit: 0, or 2 after a usage error printed for
 * cmd. K is at least 1 (0 is refused rather than read as "no limit"). */
int cli_option_limit(const char *cmd, const char *value, uint64_t *limit);
/* The usage error for what getopt_long returned as c ('?' an unknown option,
 * ':' a missing value; optstring must begin with ":" or "+:"): returns 2. */
int cli_getopt_error(const char *cmd, int c, char **argv);

/* Monotonic milliseconds. */
uint64_t cli_now_ms(void);
/* Peak resident set size in KiB. */
long cli_peak_rss_kb(void);

#endif
