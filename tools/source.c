#include "source.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "csa.h"
#include "kif.h"
#include "sfen.h"

/* Case-insensitive "path ends with suf" (suf in lower case). */
static bool has_ext(const char *path, const char *suf) {
  size_t a = strlen(path), b = strlen(suf);
  if (a < b) return false;
  for (size_t i = 0; i < b; i++) {
    char c = path[a - b + i];
    if (c >= 'A' && c <= 'Z') c = (char)(c - 'A' + 'a');
    if (c != suf[i]) return false;
  }
  return true;
}

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
      if (line) line->n = 0;
      if (moves) {
        /* The moves are checked even when the caller does not want them, as the
         * KIF and CSA readers do: a file with an illegal move is bad input. */
        SourceLine *dst = line ? line : malloc(sizeof *dst);
        if (!dst) return ts_error_set(err, TS_ERR_NOMEM, path, lineno, 0, "out of memory");
        int n = 0;
        rc = usi_line_parse(pos, moves + 7, dst->moves, (int)(sizeof dst->moves / sizeof dst->moves[0]), &n, err);
        if (line) line->n = rc ? 0 : n;
        else free(dst);
        if (rc) {
          if (err) {
            err->line = lineno;
            err->column += (int)(moves + 7 - buf);
            snprintf(err->where, sizeof err->where, "%s", path);
          }
          return rc;
        }
      }
      return TS_OK;
    }
    if (!e) break;
    p = e + 1;
  }
  return ts_error_set(err, TS_ERR_PARSE, path, lineno, 0, "no SFEN line in the file");
}

/* The main line of a KIF record is the chain of first children, up to its
 * special move (詰み...) if any. */
static int load_kif_file(const char *path, const char *text, size_t len, KifEncoding hint, Position *pos,
                         SourceLine *line, TsError *err) {
  KifRecord rec;
  int rc = kif_parse(text, len, hint, path, &rec, err);
  if (rc) return rc;
  *pos = rec.start;
  if (line) {
    for (const KifNode *n = rec.root->child; n && n->special == KIF_SPECIAL_NONE; n = n->child) {
      if (line->n >= (int)(sizeof line->moves / sizeof line->moves[0])) {
        rc = ts_error_set(err, TS_ERR_PARSE, path, 0, 0, "main line longer than %d moves", line->n);
        break;
      }
      line->moves[line->n++] = n->move;
    }
    if (rc) line->n = 0;
  }
  kif_record_free(&rec);
  return rc;
}

int source_load_file(const char *path, Position *pos, SourceLine *line, TsError *err) {
  char *text = NULL;
  size_t len = 0;
  if (line) line->n = 0;
  int rc = read_all(path, &text, &len, err);
  if (rc) return rc;
  if (has_ext(path, ".kifu")) {
    rc = load_kif_file(path, text, len, KIF_ENC_UTF8, pos, line, err);
  } else if (has_ext(path, ".kif")) {
    /* .kif is CP932 by convention, but many tools write UTF-8 without saying so:
     * let the reader decide from the bytes when the file does not declare it. */
    rc = load_kif_file(path, text, len, KIF_ENC_AUTO, pos, line, err);
  } else if (has_ext(path, ".csa")) {
    int cap = line ? (int)(sizeof line->moves / sizeof line->moves[0]) : 0;
    rc = csa_parse(text, len, path, pos, line ? line->moves : NULL, cap, line ? &line->n : NULL, err);
    if (rc && line) line->n = 0;
  } else {
    rc = load_sfen_file(path, text, pos, line, err);
  }
  free(text);
  return rc;
}
