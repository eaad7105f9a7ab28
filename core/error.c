#include "error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void ts_error_clear(TsError *e) {
  if (!e) return;
  memset(e, 0, sizeof *e);
}

int ts_error_set(TsError *e, int code, const char *where, int line, int column, const char *fmt, ...) {
  if (!e) return code;
  e->code = code;
  e->line = line;
  e->column = column;
  snprintf(e->where, sizeof e->where, "%s", where ? where : "");
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(e->msg, sizeof e->msg, fmt, ap);
  va_end(ap);
  return code;
}

void ts_error_format(const TsError *e, char *buf, size_t n) {
  if (!e || n == 0) return;
  size_t k = 0;
  buf[0] = 0;
  if (e->where[0]) k += (size_t)snprintf(buf + k, n - k, "%s:", e->where);
  if (k < n && e->line > 0) k += (size_t)snprintf(buf + k, n - k, "%d:", e->line);
  if (k < n && e->column > 0) k += (size_t)snprintf(buf + k, n - k, "%d:", e->column);
  if (k < n) snprintf(buf + k, n - k, "%s%s", k ? " " : "", e->msg);
}

const char *ts_strerror(int code) {
  switch (code) {
  case TS_OK: return "ok";
  case TS_ERR_PARSE: return "parse error";
  case TS_ERR_ILLEGAL: return "illegal position or move";
  case TS_ERR_USAGE: return "bad usage";
  case TS_ERR_IO: return "I/O error";
  case TS_ERR_DB: return "database error";
  case TS_ERR_NOMEM: return "out of memory";
  case TS_ERR_NOTFOUND: return "not found";
  default: return "unknown error";
  }
}

int ts_error_exit_status(int code) {
  switch (code) {
  case TS_OK: return 0;
  case TS_ERR_PARSE:
  case TS_ERR_ILLEGAL:
  case TS_ERR_USAGE: return 2;
  case TS_ERR_NOTFOUND: return 1;
  default: return 3;
  }
}
