#include "cli.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "sfen.h"
#include "workers.h"
#include "source.h"

/* Length of the UTF-8 sequence at s (at most n bytes) when it is well formed
 * and not a C1 control (U+0080..U+009F, which terminals may obey); else 0. */
static size_t utf8_printable(const unsigned char *s, size_t n) {
  size_t len = s[0] >= 0xC2 && s[0] < 0xE0 ? 2 : s[0] >= 0xE0 && s[0] < 0xF0 ? 3 : s[0] >= 0xF0 && s[0] <= 0xF4 ? 4 : 0;
  if (!len || len > n) return 0;
  for (size_t i = 1; i < len; i++)
    if ((s[i] & 0xC0) != 0x80) return 0;
  if (len == 2 && s[0] == 0xC2 && s[1] < 0xA0) return 0;                 /* C1 control */
  if (len == 3 && s[0] == 0xE0 && s[1] < 0xA0) return 0;                 /* overlong */
  if (len == 3 && s[0] == 0xED && s[1] >= 0xA0) return 0;                /* surrogate */
  if (len == 4 && ((s[0] == 0xF0 && s[1] < 0x90) || (s[0] == 0xF4 && s[1] >= 0x90))) return 0;
  return len;
}

void cli_escape(const char *in, char *out, size_t n) {
  if (!n) return;
  const unsigned char *s = (const unsigned char *)in;
  size_t len = strlen(in), k = 0;
  for (size_t i = 0; i < len;) {
    size_t u = s[i] >= 0x80 ? utf8_printable(s + i, len - i) : (s[i] >= 0x20 && s[i] != 0x7F);
    if (u) {
      if (k + u >= n) break;
      memcpy(out + k, s + i, u);
      k += u;
      i += u;
    } else {
      if (k + 4 >= n) break;
      snprintf(out + k, n - k, "\\x%02x", s[i]);
      k += 4;
      i++;
    }
  }
  out[k] = 0;
}

void cli_message(const char *cmd, const char *fmt, ...) {
  char raw[2048], safe[sizeof raw * 4];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(raw, sizeof raw, fmt, ap);
  va_end(ap);
  cli_escape(raw, safe, sizeof safe);
  fprintf(stderr, "tsume %s: %s\n", cmd, safe);
}

int cli_fail(const char *cmd, const TsError *err) {
  char buf[1024];
  ts_error_format(err, buf, sizeof buf);
  cli_message(cmd, "%s: %s", ts_strerror(err->code), buf);
  return ts_error_exit_status(err->code);
}

int cli_usage_error(const char *cmd, const char *fmt, ...) {
  char raw[1024], safe[sizeof raw * 4];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(raw, sizeof raw, fmt, ap);
  va_end(ap);
  cli_escape(raw, safe, sizeof safe);
  fprintf(stderr, "tsume %s: %s\n(see 'tsume %s --help')\n", cmd, safe, cmd);
  return 2;
}

int cli_stdout_close(const char *cmd) {
  /* a failed write leaves the stream's error flag set; the final flush and
   * close report what is still buffered (errno of the failing write) */
  errno = 0;
  bool bad = fflush(stdout) != 0;
  int e = errno;
  bad |= ferror(stdout) != 0;
  errno = 0;
  if (fclose(stdout) != 0) {
    bad = true;
    if (!e) e = errno;
  }
  if (!bad) return 0;
  fprintf(stderr, "tsume %s: error writing standard output: %s\n", cmd, e ? strerror(e) : "write failed");
  return 3;
}

int cli_option_u64(const char *cmd, const char *name, const char *value, uint64_t min, uint64_t max, uint64_t *out) {
  uint64_t v;
  if (!cli_parse_u64(value, &v) || v < min || v > max)
    return cli_usage_error(cmd, "%s needs a whole number from %llu to %llu, not '%s'", name, (unsigned long long)min,
                           (unsigned long long)max, value ? value : "");
  *out = v;
  return 0;
}

int cli_option_ranged(const char *cmd, int c, const char *value, const CliRange *t, size_t n, uint64_t *out) {
  for (size_t k = 0; k < n; k++)
    if (c == t[k].c) return cli_option_u64(cmd, t[k].name, value, t[k].min, t[k].max, out);
  return 0;
}

bool cli_parse_u64(const char *s, uint64_t *out) {
  if (!s || !*s || !isdigit((unsigned char)*s)) return false;
  errno = 0;
  char *end;
  unsigned long long v = strtoull(s, &end, 10);
  if (errno || *end) return false;
  *out = v;
  return true;
}

/* Does the name end in .sfen (any case)? */
static bool has_sfen_ext(const char *a) {
  size_t n = strlen(a);
  return n >= 5 && !strcasecmp(a + n - 5, ".sfen");
}

/* Is the argument a file name rather than (the first word of) a SFEN? A SFEN
 * never holds a '.', and always a '/' except "startpos". */
static bool cli_arg_is_file(const char *a) {
  struct stat st;
  if (stat(a, &st) == 0 || strchr(a, '.')) return true;
  return !strchr(a, '/') && strncmp(a, "startpos", 8) != 0 && strncmp(a, "sfen", 4) != 0 &&
         strncmp(a, "position ", 9) != 0;
}

/* Does the word look like one USI move (7g7f, 8h2b+, G*5b)? */
static bool cli_word_is_usi_move(const char *w) {
  size_t n = strlen(w);
  bool sq2 = n >= 4 && w[2] >= '1' && w[2] <= '9' && w[3] >= 'a' && w[3] <= 'i';
  if (n == 4 && w[1] == '*') return sq2 && isupper((unsigned char)w[0]);
  return sq2 && (n == 4 || (n == 5 && w[4] == '+')) && w[0] >= '1' && w[0] <= '9' && w[1] >= 'a' && w[1] <= 'i';
}

int cli_problem_count(int argc, char **argv) {
  if (argc < 1 || !cli_arg_is_file(argv[0]) || !strcmp(argv[0], "-")) return 1; /* standard input is read once */
  Position pos;
  SourceRecord info;
  TsError err;
  source_load_record(argv[0], 0, &pos, NULL, &info, &err);
  return info.count > 1 ? info.count : 1;
}

int cli_load_position_line(int argc, char **argv, int *used, Position *pos, SourceLine *line, TsError *err) {
  return cli_load_position_line_at(argc, argv, 0, used, pos, line, err);
}

int cli_load_position_line_at(int argc, char **argv, int index, int *used, Position *pos, SourceLine *line,
                              TsError *err) {
  ts_error_clear(err);
  *used = 0;
  if (line) line->n = 0;
  if (argc < 1) return ts_error_set(err, TS_ERR_USAGE, "", 0, 0, "missing position (SFEN or file)");
  const char *a = argv[0];
  if (cli_arg_is_file(a)) {
    *used = 1;
    return source_load_record(a, index, pos, line, NULL, err);
  }
  /* A SFEN given as several words: board, side, hands, [ply]; then, as in a
   * .sfen file, "moves" and the USI moves (words that look like moves). The
   * words are joined into one line of .sfen text so both read alike. */
  int n = 0;
  size_t need = 1;
  while (n < argc && n < 4) {
    if (n > 0) {
      if (n == 3 && !isdigit((unsigned char)argv[n][0])) break;
      if (strchr(argv[0], ' ')) break; /* already one quoted word */
    }
    need += strlen(argv[n++]) + 1;
  }
  if (n < argc && !strcmp(argv[n], "moves")) {
    need += strlen(argv[n++]) + 1;
    while (n < argc && cli_word_is_usi_move(argv[n])) need += strlen(argv[n++]) + 1;
  }
  for (int i = 0; i < n; i++) /* .sfen text reads its first line only: nothing may hide after a line break */
    if (strpbrk(argv[i], "\r\n")) return ts_error_set(err, TS_ERR_PARSE, "<sfen>", 0, 0, "line break in a SFEN argument");
  char *buf = malloc(need);
  if (!buf) return ts_error_set(err, TS_ERR_NOMEM, "<sfen>", 0, 0, "out of memory");
  size_t k = 0;
  for (int i = 0; i < n; i++) {
    size_t len = strlen(argv[i]);
    if (k) buf[k++] = ' ';
    memcpy(buf + k, argv[i], len);
    k += len;
  }
  buf[k] = 0;
  *used = n;
  int dummy = 0;
  int rc = sfen_text_parse(buf, k, "<sfen>", pos, line ? line->moves : NULL, SOURCE_LINE_MAX, line ? &line->n : &dummy,
                           err);
  free(buf);
  if (rc && err) err->line = 0; /* one argument, not a file: its column alone places the fault */
  return rc;
}

/* The note for moves read after a SFEN (on the command line or in a .sfen file)
 * by a command that has no use for a line. */
static void line_unused_note(const char *arg, const SourceLine *line) {
  if (line->n <= 0 || (cli_arg_is_file(arg) && !has_sfen_ext(arg))) return;
  fprintf(stderr, "tsume: note: the %d move%s after \"moves\" %s legal but not used: the position is the one before "
          "them\n", line->n, line->n == 1 ? "" : "s", line->n == 1 ? "is" : "are");
}

int cli_load_position(int argc, char **argv, int *used, Position *pos, TsError *err) {
  return cli_load_position_at(argc, argv, 0, used, pos, err);
}

int cli_load_position_at(int argc, char **argv, int index, int *used, Position *pos, TsError *err) {
  SourceLine *line = malloc(sizeof *line);
  if (!line) return ts_error_set(err, TS_ERR_NOMEM, "", 0, 0, "out of memory");
  int rc = cli_load_position_line_at(argc, argv, index, used, pos, line, err);
  /* a list of problems with their lines (an export) is no SFEN with moves to play first */
  if (!rc && cli_problem_count(argc, argv) == 1) line_unused_note(argv[0], line);
  free(line);
  return rc;
}

int cli_load_problem(int argc, char **argv, int *used, Position *pos, TsError *err) {
  int rc = cli_load_position(argc, argv, used, pos, err);
  if (rc) return rc;
  return pos_validate_problem(pos, cli_arg_is_file(argv[0]) ? argv[0] : "<sfen>", err);
}

int cli_load_problem_line(int argc, char **argv, int *used, Position *pos, SourceLine *line, TsError *err) {
  return cli_load_problem_line_at(argc, argv, 0, used, pos, line, err);
}

int cli_load_problem_line_at(int argc, char **argv, int index, int *used, Position *pos, SourceLine *line,
                             TsError *err) {
  int rc = cli_load_position_line_at(argc, argv, index, used, pos, line, err);
  if (!rc) rc = pos_validate_problem(pos, cli_arg_is_file(argv[0]) ? argv[0] : "<sfen>", err);
  if (rc) return rc;
  /* a line that does not start with the attacker's check is no mating line (e.g. a game record) */
  if (line->n > 0 && !pos_gives_check(pos, line->moves[0])) line->n = 0;
  return TS_OK;
}

uint64_t cli_now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

long cli_peak_rss_kb(void) {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_maxrss;
}

int cli_default_threads(void) {
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n < 1 ? 1 : n > WORKERS_MAX ? WORKERS_MAX : (int)n;
}

int cli_option_mp(const char *cmd, const char *value, SolverOptions *o) {
  char why[160];
  if (!value) return cli_usage_error(cmd, "--mp needs key=value,... (threads, base, leader, tt, budget)");
  if (!solver_mp_parse(value, o, why, sizeof why)) return cli_usage_error(cmd, "--mp: %s", why);
  return 0;
}

int cli_option_algo(const char *cmd, const char *value, SolverOptions *o) {
  if (!value || !solver_algo_parse(value, &o->algo)) return cli_usage_error(cmd, "--algo needs dfpn, pds or multipath");
  return 0;
}

int cli_option_futile(const char *cmd, const char *value, SolverOptions *o) {
  if (value && !strcmp(value, "same")) {
    o->futile_rule = o->futile_compare = true;
  } else if (value && !strcmp(value, "mated")) {
    o->futile_rule = true;
    o->futile_compare = false;
  } else if (value && !strcmp(value, "none")) {
    o->futile_rule = false;
  } else {
    return cli_usage_error(cmd, "--futile-rule needs same, mated or none");
  }
  return 0;
}

int cli_option_limit(const char *cmd, const char *value, uint64_t *limit) {
  if (!cli_parse_u64(value, limit) || *limit < 1)
    return cli_usage_error(cmd, "--limit needs a number of at least 1 (leave it out for no limit)");
  return 0;
}

int cli_getopt_error(const char *cmd, int c, char **argv) {
  const char *a = argv[optind - 1];
  if (c == ':') return cli_usage_error(cmd, "option '%s' needs a value", a);
  if (optopt && strncmp(a, "--", 2)) return cli_usage_error(cmd, "unknown option '-%c'", optopt);
  return cli_usage_error(cmd, "unknown option '%s'", a);
}
