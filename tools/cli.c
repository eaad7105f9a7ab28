#include "cli.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "sfen.h"
#include "workers.h"
#include "source.h"

int cli_fail(const char *cmd, const TsError *err) {
  char buf[1024];
  ts_error_format(err, buf, sizeof buf);
  fprintf(stderr, "tsume %s: %s: %s\n", cmd, ts_strerror(err->code), buf);
  return ts_error_exit_status(err->code);
}

int cli_usage_error(const char *cmd, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "tsume %s: ", cmd);
  vfprintf(stderr, fmt, ap);
  fprintf(stderr, "\n(see 'tsume %s --help')\n", cmd);
  va_end(ap);
  return 2;
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

/* Is the argument a file name rather than (the first word of) a SFEN? A SFEN
 * never holds a '.', and always a '/' except "startpos". */
static bool cli_arg_is_file(const char *a) {
  struct stat st;
  if (stat(a, &st) == 0 || strchr(a, '.')) return true;
  return !strchr(a, '/') && strncmp(a, "startpos", 8) != 0 && strncmp(a, "sfen", 4) != 0;
}

int cli_load_position(int argc, char **argv, int *used, Position *pos, TsError *err) {
  ts_error_clear(err);
  if (argc < 1) return ts_error_set(err, TS_ERR_USAGE, "", 0, 0, "missing position (SFEN or file)");
  const char *a = argv[0];
  if (cli_arg_is_file(a)) {
    *used = 1;
    return source_load_file(a, pos, NULL, err);
  }
  /* A SFEN given as several words: board, side, hands, [ply]. */
  char buf[512];
  size_t k = 0;
  int n = 0;
  while (n < argc && n < 4) {
    if (n > 0) {
      if (n == 3 && !isdigit((unsigned char)argv[n][0])) break;
      if (strchr(argv[0], ' ')) break; /* already one quoted word */
    }
    size_t len = strlen(argv[n]);
    if (k + len + 2 >= sizeof buf) return ts_error_set(err, TS_ERR_PARSE, "<sfen>", 0, 0, "SFEN too long");
    if (k) buf[k++] = ' ';
    memcpy(buf + k, argv[n], len);
    k += len;
    n++;
  }
  buf[k] = 0;
  *used = n;
  return sfen_parse(buf, pos, "<sfen>", err);
}

int cli_load_problem(int argc, char **argv, int *used, Position *pos, TsError *err) {
  int rc = cli_load_position(argc, argv, used, pos, err);
  if (rc) return rc;
  return pos_validate_problem(pos, cli_arg_is_file(argv[0]) ? argv[0] : "<sfen>", err);
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
