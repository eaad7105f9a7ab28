/*
 * error.h - error codes shared by every library module, and the error record
 * that carries a readable message naming what and where.
 *
 * Library functions return TS_OK (0) or one of the codes below and, when given a
 * TsError, fill it in. They never print or exit; tools/ maps codes to exit statuses:
 * TS_ERR_PARSE / TS_ERR_ILLEGAL / TS_ERR_USAGE -> 2, TS_ERR_IO / TS_ERR_DB / TS_ERR_NOMEM -> 3.
 */
#ifndef TSUME_ERROR_H
#define TSUME_ERROR_H

#include <stddef.h>

enum {
  TS_OK = 0,
  TS_ERR_PARSE = 1,   /* malformed text: file, line and column say where */
  TS_ERR_ILLEGAL = 2, /* well-formed but impossible position or move */
  TS_ERR_USAGE = 3,   /* bad option or argument */
  TS_ERR_IO = 4,      /* read/write failure, full disk */
  TS_ERR_DB = 5,      /* LMDB failure, corrupt or foreign database */
  TS_ERR_NOMEM = 6,
  TS_ERR_NOTFOUND = 7
};

typedef struct {
  int code;
  int line;   /* 1-based; 0 when not about a line */
  int column; /* 1-based; 0 when not about a column */
  char where[256]; /* file name or "<sfen>", "<stdin>"... */
  char msg[512];
} TsError;

/* Clears e (no error). e may be NULL in every function below. */
void ts_error_clear(TsError *e);
/* Records an error and returns code, so callers can `return ts_error_set(...)`. */
int ts_error_set(TsError *e, int code, const char *where, int line, int column, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));
/* "where:line:column: msg" (parts that are unknown left out) into buf. */
void ts_error_format(const TsError *e, char *buf, size_t n);
/* Static name of a code ("parse error", "illegal position", ...). */
const char *ts_strerror(int code);
/* Exit status for a code: 0, 2 or 3 (design.md §1). */
int ts_error_exit_status(int code);

#endif
