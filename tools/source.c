#include "source.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sfen.h"

static int read_all(const char *path, char **out, size_t *len, TsError *err) {
  FILE *f = fopen(path, "rb");
  if (!f) return ts_error_set(err, TS_ERR_IO, path, 0, 0, "cannot open: %s", strerror(errno));
  size_t cap = 4096, n = 0;
  char *buf = malloc(cap);
  if (!buf) {
    fclose(f);
    return ts_error_set(err, TS_ERR_NOMEM, path, 0, 0, "out of memory");
  }
  size_t r;
  while ((r = fread(buf + n, 1, cap - n - 1, f)) > 0) {
    n += r;
    if (n + 1 >= cap) {
      if (cap > (64u << 20)) {
        free(buf);
        fclose(f);
        return ts_error_set(err, TS_ERR_IO, path, 0, 0, "file larger than 64 MiB");
      }
      char *nb = realloc(buf, cap * 2);
      if (!nb) {
        free(buf);
        fclose(f);
        return ts_error_set(err, TS_ERR_NOMEM, path, 0, 0, "out of memory");
      }
      buf = nb;
      cap *= 2;
    }
  }
  bool bad = ferror(f);
  fclose(f);
  if (bad) {
    free(buf);
    return ts_error_set(err, TS_ERR_IO, path, 0, 0, "read error");
  }
  buf[n] = 0;
  *out = buf;
  *len = n;
  return TS_OK;
}

static int load_sfen_file(const char *path, const char *text, Position *pos, SourceLine *line, TsError *err) {
  int lineno = 0;
  const char *p = text;
  while (*p) {
    lineno++;
    const char *e = strchr(p, '\n');
    size_t len = e ? (size_t)(e - p) : strlen(p);
    while (len && (p[len - 1] == '\r' || p[len - 1] == ' ')) len--;
    if (len && p[0] != '#') {
      char buf[4096];
      if (len >= sizeof buf) return ts_error_set(err, TS_ERR_PARSE, path, lineno, 1, "line too long");
      memcpy(buf, p, len);
      buf[len] = 0;
      char *moves = strstr(buf, " moves ");
      if (moves) *moves = 0;
      int rc = sfen_parse(buf, pos, path, err);
      if (rc) {
        if (err) err->line = lineno;
        return rc;
      }
      if (line) {
        line->n = 0;
        if (moves) {
          rc = usi_line_parse(pos, moves + 7, line->moves, 2048, &line->n, err);
          if (rc) {
            if (err) {
              err->line = lineno;
              err->column += (int)(moves + 7 - buf);
              snprintf(err->where, sizeof err->where, "%s", path);
            }
            return rc;
          }
        }
      }
      return TS_OK;
    }
    if (!e) break;
    p = e + 1;
  }
  return ts_error_set(err, TS_ERR_PARSE, path, lineno, 0, "no SFEN line in the file");
}

int source_load_file(const char *path, Position *pos, SourceLine *line, TsError *err) {
  char *text = NULL;
  size_t len = 0;
  int rc = read_all(path, &text, &len, err);
  if (rc) return rc;
  if (line) line->n = 0;
  rc = load_sfen_file(path, text, pos, line, err);
  free(text);
  return rc;
}
