#define _GNU_SOURCE /* memmem */
#include "source.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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

static int too_large(const char *path, TsError *err) {
  return ts_error_set(err, TS_ERR_PARSE, path, 0, 0, "file larger than %u MiB (the most a problem file may be)",
                      SOURCE_FILE_MAX >> 20);
}

/* Closes what source_read_file opened (standard input stays open). */
static void source_close(FILE *f, bool in) {
  if (!in) fclose(f);
}

int source_read_file(const char *path, char **out, size_t *len, TsError *err) {
  *out = NULL;
  *len = 0;
  bool in = !strcmp(path, "-"); /* standard input */
  FILE *f = in ? stdin : fopen(path, "rb");
  if (!f) return ts_error_set(err, TS_ERR_IO, path, 0, 0, "cannot open: %s", strerror(errno));
  struct stat st;
  if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) && (uint64_t)st.st_size > SOURCE_FILE_MAX) {
    source_close(f, in); /* refused before a byte is read: a problem file is never this large */
    return too_large(path, err);
  }
  size_t cap = 4096, n = 0;
  char *buf = malloc(cap);
  if (!buf) {
    source_close(f, in);
    return ts_error_set(err, TS_ERR_NOMEM, path, 0, 0, "out of memory");
  }
  size_t r;
  while ((r = fread(buf + n, 1, cap - n - 1, f)) > 0) {
    n += r;
    if (n > SOURCE_FILE_MAX) { /* not a regular file: the size was not known before */
      free(buf);
      source_close(f, in);
      return too_large(path, err);
    }
    if (n + 1 >= cap) {
      size_t ncap = cap * 2 > SOURCE_FILE_MAX + 2 ? SOURCE_FILE_MAX + 2 : cap * 2;
      char *nb = realloc(buf, ncap);
      if (!nb) {
        free(buf);
        source_close(f, in);
        return ts_error_set(err, TS_ERR_NOMEM, path, 0, 0, "out of memory");
      }
      buf = nb;
      cap = ncap;
    }
  }
  int bad = ferror(f) ? errno : 0; /* a directory opens, then fails here with EISDIR */
  source_close(f, in);
  if (bad) {
    free(buf);
    return ts_error_set(err, TS_ERR_IO, path, 0, 0, "cannot read: %s", strerror(bad));
  }
  buf[n] = 0;
  *out = buf;
  *len = n;
  return TS_OK;
}

/* The main line of a KIF record is the chain of first children, up to its
 * special move (詰み...) if any. */
static int load_kif_file(const char *path, const char *text, size_t len, KifEncoding hint, Position *pos,
                         SourceLine *line, TsError *err) {
  KifRecord rec;
  int rc = kif_parse(text, len, hint, path, &rec, err);
  if (rc) return rc;
  *pos = rec.start;
  if (rec.hand_assumed && line) /* a load for the caller, not a count of the records */
    fprintf(stderr, "tsume: note: %s: the diagram has no %s line: the defender is given every piece not on the board "
            "or in the attacker's hand (残り全部)\n", path, rec.start.side == BLACK ? "後手の持駒" : "先手の持駒");
  if (line) {
    for (const KifNode *n = rec.root->child; n && n->special == KIF_SPECIAL_NONE; n = n->child) {
      if (line->n >= (int)(sizeof line->moves / sizeof line->moves[0])) {
        rc = ts_error_set(err, TS_ERR_PARSE, path, 0, 0, "a line longer than %d moves (the most one may have)", line->n);
        break;
      }
      line->moves[line->n++] = n->move;
    }
    if (rc) line->n = 0;
  }
  kif_record_free(&rec);
  return rc;
}

typedef enum { SOURCE_UNKNOWN, SOURCE_KIF, SOURCE_CSA, SOURCE_SFEN } SourceType;

static const char *const SOURCE_NAME[] = {"", "KIF", "CSA", "SFEN"};

/* Does a line of text start with lit (whole: is lit, apart from trailing blanks)? */
static bool line_match(const char *text, size_t len, const char *lit, bool whole) {
  size_t n = strlen(lit), i = 0;
  while (i < len) {
    size_t e = i;
    while (e < len && text[e] != '\n' && text[e] != '\r') e++;
    size_t t = e;
    while (whole && t > i && (text[t - 1] == ' ' || text[t - 1] == '\t')) t--;
    if (t - i >= n && memcmp(text + i, lit, n) == 0 && (!whole || t - i == n)) return true;
    i = e;
    while (i < len && (text[i] == '\n' || text[i] == '\r')) i++;
  }
  return false;
}

static bool line_starts_with(const char *text, size_t len, const char *lit) {
  return line_match(text, len, lit, false);
}
static bool line_is(const char *text, size_t len, const char *lit) { return line_match(text, len, lit, true); }

/* The format of a text whose file name does not say it: KIF when it has a KIF
 * key word (UTF-8 or CP932) or a diagram border, CSA when a line starts with
 * P1/PI/V2 and another is the side line "+" or "-", SFEN when its first line that is neither blank nor '#' is board
 * ranks separated by '/'. */
static SourceType source_sniff(const char *text, size_t len) {
  static const char *const KIF_WORDS[] = {
      "#KIF", "\xE6\x89\x8B\xE5\x90\x88\xE5\x89\xB2" /* 手合割 */, "\xE6\x8C\x81\xE9\xA7\x92" /* 持駒 */,
      "\xE6\x89\x8B\xE6\x95\xB0----" /* 手数---- */, "\x8E\xE8\x8D\x87\x8A\x84" /* 手合割, CP932 */,
      "\x8E\x9D\x8B\xEE" /* 持駒, CP932 */, "\x8E\xE8\x90\x94----" /* 手数----, CP932 */};
  for (size_t k = 0; k < sizeof KIF_WORDS / sizeof KIF_WORDS[0]; k++)
    if (memmem(text, len, KIF_WORDS[k], strlen(KIF_WORDS[k]))) return SOURCE_KIF;
  if (line_starts_with(text, len, "+---------------------------+")) return SOURCE_KIF;
  if (memchr(text, 0, len)) return SOURCE_UNKNOWN; /* binary data */
  bool side_line = line_is(text, len, "+") || line_is(text, len, "-");
  if (side_line && (line_starts_with(text, len, "P1") || line_starts_with(text, len, "PI") ||
                    line_starts_with(text, len, "V2")))
    return SOURCE_CSA;
  size_t i = 0;
  while (i < len) { /* the first line that is neither blank nor a comment */
    while (i < len && (text[i] == ' ' || text[i] == '\t' || text[i] == '\r' || text[i] == '\n')) i++;
    if (i >= len || text[i] != '#') break;
    while (i < len && text[i] != '\n' && text[i] != '\r') i++;
  }
  if (len - i >= 9 && memcmp(text + i, "position ", 9) == 0) return SOURCE_SFEN;
  if (len - i >= 5 && memcmp(text + i, "sfen ", 5) == 0) return SOURCE_SFEN;
  if (len - i >= 8 && memcmp(text + i, "startpos", 8) == 0) return SOURCE_SFEN;
  int slashes = 0;
  for (; i < len && text[i] != ' '; i++) {
    char c = text[i];
    if (c == '/') slashes++;
    else if (!((c >= '1' && c <= '9') || c == '+' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))) break;
  }
  return slashes == 8 && i < len && text[i] == ' ' ? SOURCE_SFEN : SOURCE_UNKNOWN;
}

/* The start of each record of a text [0, len): for KIF, a file of several records one after another,
 * each beginning with its "#KIF" line (as `tsume export --kif-file` writes them) when there are two or
 * more; for SFEN, each line that is neither blank nor a '#' comment. Fills starts[0..cap) and
 * first_line[0..cap) (1-based) when not NULL; returns the number of records (1 for a KIF of one record). */
static int source_records(SourceType type, const char *text, size_t len, size_t *starts, int *first_line, int cap) {
  int n = 0, lineno = 0;
  for (size_t i = 0; i < len;) {
    size_t e = i;
    while (e < len && text[e] != '\n' && text[e] != '\r') e++;
    lineno++;
    size_t b = i;
    if (type == SOURCE_SFEN) while (b < e && (text[b] == ' ' || text[b] == '\t')) b++;
    bool starts_one = type == SOURCE_SFEN ? b < e && text[b] != '#'
                                          : e - i >= 4 && memcmp(text + i, "#KIF", 4) == 0;
    if (starts_one) {
      if (n < cap) {
        if (starts) starts[n] = i;
        if (first_line) first_line[n] = lineno;
      }
      n++;
    }
    if (e < len && text[e] == '\r' && e + 1 < len && text[e + 1] == '\n') e++;
    i = e + 1;
  }
  if (type == SOURCE_KIF && n < 2) {
    if (starts) starts[0] = 0;
    if (first_line) first_line[0] = 1;
    return 1;
  }
  return n;
}

int source_load_file(const char *path, Position *pos, SourceLine *line, TsError *err) {
  return source_load_record(path, 0, pos, line, NULL, err);
}

/* What a text is read as, and where its records start (computed once per text). */
typedef struct {
  SourceType type;
  KifEncoding hint;
  bool sniffed;    /* the type came from the text, not the name */
  int count;       /* records (1 but for a KIF of several records or a .sfen list) */
  size_t *starts;  /* count > 1: the offset of each record */
  int *first_line; /* count > 1: its first line, 1-based */
} SourceIndex;

static void source_index_free(SourceIndex *ix) {
  free(ix->starts);
  free(ix->first_line);
  ix->starts = NULL;
  ix->first_line = NULL;
}

static int source_index(const char *path, const char *text, size_t len, SourceIndex *ix, TsError *err) {
  memset(ix, 0, sizeof *ix);
  ix->type = SOURCE_UNKNOWN;
  ix->hint = KIF_ENC_AUTO;
  if (has_ext(path, ".kifu")) {
    ix->type = SOURCE_KIF;
    ix->hint = KIF_ENC_UTF8;
  } else if (has_ext(path, ".kif")) {
    /* .kif is CP932 by convention, but many tools write UTF-8 without saying so:
     * let the reader decide from the bytes when the file does not declare it. */
    ix->type = SOURCE_KIF;
  } else if (has_ext(path, ".csa")) {
    ix->type = SOURCE_CSA;
  } else if (has_ext(path, ".sfen")) {
    ix->type = SOURCE_SFEN;
  } else {
    ix->type = source_sniff(text, len);
    ix->sniffed = true;
  }
  ix->count = 1;
  if (ix->type == SOURCE_KIF || ix->type == SOURCE_SFEN) {
    int count = source_records(ix->type, text, len, NULL, NULL, 0);
    if (count > 1) {
      ix->starts = malloc((size_t)count * sizeof *ix->starts);
      ix->first_line = malloc((size_t)count * sizeof *ix->first_line);
      if (!ix->starts || !ix->first_line) {
        source_index_free(ix);
        return ts_error_set(err, TS_ERR_NOMEM, path, 0, 0, "out of memory");
      }
      source_records(ix->type, text, len, ix->starts, ix->first_line, count);
      ix->count = count;
    }
  }
  return TS_OK;
}

static int source_load_indexed(const char *path, const char *text, size_t len, const SourceIndex *ix, int index,
                               Position *pos, SourceLine *line, SourceRecord *info, TsError *err);

/* The last regular file read by source_load_record, with its index: a command that reads
 * record after record of a file reads and scans it once. */
static struct {
  pthread_mutex_t mu;
  char *path;
  struct stat st;
  char *text;
  size_t len;
  SourceIndex ix;
} cache = {.mu = PTHREAD_MUTEX_INITIALIZER};

static bool cache_holds(const char *path, const struct stat *st) {
  return cache.path && !strcmp(cache.path, path) && cache.st.st_dev == st->st_dev && cache.st.st_ino == st->st_ino &&
         cache.st.st_size == st->st_size && cache.st.st_mtim.tv_sec == st->st_mtim.tv_sec &&
         cache.st.st_mtim.tv_nsec == st->st_mtim.tv_nsec;
}

int source_load_record(const char *path, int index, Position *pos, SourceLine *line, SourceRecord *info, TsError *err) {
  if (line) line->n = 0;
  if (info) memset(info, 0, sizeof *info);
  struct stat st;
  if (strcmp(path, "-") != 0 && stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
    pthread_mutex_lock(&cache.mu);
    int rc = TS_OK;
    if (!cache_holds(path, &st)) {
      free(cache.path);
      free(cache.text);
      source_index_free(&cache.ix);
      cache.path = cache.text = NULL;
      rc = source_read_file(path, &cache.text, &cache.len, err);
      if (!rc) rc = source_index(path, cache.text, cache.len, &cache.ix, err);
      if (!rc && !(cache.path = strdup(path))) rc = ts_error_set(err, TS_ERR_NOMEM, path, 0, 0, "out of memory");
      if (rc) {
        free(cache.text);
        cache.text = NULL;
        source_index_free(&cache.ix);
      } else {
        cache.st = st;
      }
    }
    if (!rc) rc = source_load_indexed(path, cache.text, cache.len, &cache.ix, index, pos, line, info, err);
    pthread_mutex_unlock(&cache.mu);
    return rc;
  }
  char *text = NULL;
  size_t len = 0;
  int rc = source_read_file(path, &text, &len, err);
  if (rc) return rc;
  rc = source_load_text(path, text, len, index, pos, line, info, err);
  free(text);
  return rc;
}

int source_load_text(const char *path, const char *text, size_t len, int index, Position *pos, SourceLine *line,
                     SourceRecord *info, TsError *err) {
  if (line) line->n = 0;
  if (info) memset(info, 0, sizeof *info);
  SourceIndex ix;
  int rc = source_index(path, text, len, &ix, err);
  if (rc) return rc;
  rc = source_load_indexed(path, text, len, &ix, index, pos, line, info, err);
  source_index_free(&ix);
  return rc;
}

/* Record `index` of a text whose index is ix: read alone, its errors placed in the file. */
static int source_load_indexed(const char *path, const char *text, size_t len, const SourceIndex *ix, int index,
                               Position *pos, SourceLine *line, SourceRecord *info, TsError *err) {
  int rc;
  if (line) line->n = 0;
  if (info) memset(info, 0, sizeof *info);
  SourceType type = ix->type;
  if (info) info->format = SOURCE_NAME[type];
  int cap = line ? (int)(sizeof line->moves / sizeof line->moves[0]) : 0;
  size_t off = 0, end = len;
  int line0 = 0, count = ix->count;
  if (count > 1 && index >= 0 && index < count) {
    off = ix->starts[index];
    end = index + 1 < count ? ix->starts[index + 1] : len;
    line0 = ix->first_line[index] - 1;
  }
  if (info) info->count = count, info->first_line = line0 + 1;
  if (index < 0 || index >= count) {
    return ts_error_set(err, TS_ERR_USAGE, path, 0, 0, "no record %d: the file holds %d", index + 1, count);
  }
  switch (type) {
  case SOURCE_KIF: rc = load_kif_file(path, text + off, end - off, ix->hint, pos, line, err); break;
  case SOURCE_CSA:
    rc = csa_parse(text, len, path, pos, line ? line->moves : NULL, cap, line ? &line->n : NULL, err);
    break;
  case SOURCE_SFEN:
    rc = sfen_text_parse(text + off, end - off, path, pos, line ? line->moves : NULL, cap, line ? &line->n : NULL, err);
    break;
  default:
    rc = ts_error_set(err, TS_ERR_PARSE, path, 0, 0,
                      "unknown file type: the name does not end in .kif, .kifu, .csa or .sfen, and the text is "
                      "not recognisably KIF, CSA or SFEN");
  }
  if (rc && err && err->line && line0) err->line += line0;
  if (rc && ix->sniffed && type != SOURCE_UNKNOWN && err) {
    size_t k = strlen(err->msg);
    snprintf(err->msg + k, sizeof err->msg - k, " (read as %s, from its content)", SOURCE_NAME[type]);
  }
  if (rc && line) line->n = 0;
  return rc;
}
