/*
 * cmd_check.c - `tsume check`: the flaw checker (solver/check.h) on one
 * problem or on collections (files, directories, TSV and SFEN lists).
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "check.h"
#include "cli.h"
#include "diagram.h"
#include "json.h"
#include "kif.h"
#include "movegen.h"
#include "sfen.h"
#include "source.h"

static const char CHECK_HELP[] =
    "usage: tsume check [options] <file.kif|.kifu|.csa|.sfen|.tsv|directory|SFEN>...\n"
    "Checks whether each problem is a complete work (完全作) and reports every flaw\n"
    "with its ply, the line's move, the alternative (KIF and USI), its length and line:\n"
    "  the line:   illegal, not-check (an attacker move that does not check), not-mate\n"
    "              (the end is not mate), not-longest-defence, komaamari (駒余り);\n"
    "  attacker:   at a move of the line before the last, another check after which\n"
    "              the defender is mated at ANY length (無駄合 not counted) is a flaw:\n"
    "              shorter than the line's remainder: hayazume (早詰); as long: yozume\n"
    "              (余詰), or higentei (非限定: promotion, or a drop on the same line),\n"
    "              tejun-zengo (手順前後) or ukai (迂回) when it comes back to the line;\n"
    "              longer: yozume (余詰), or ukai (迂回) when some main line of it\n"
    "              comes back to a position of the line. On the last move another\n"
    "              mate in one is last-move-alt (最終手余詰); a longer mate there is no\n"
    "              flaw. A one-move problem needs a unique mating move. higentei,\n"
    "              tejun-zengo, ukai and last-move-alt are tolerated キズ;\n"
    "  defender:   nomate (不詰, an escape), henchou (変長), hendou (変同, tolerated).\n"
    "Verdicts: complete, flawed, nomate, unknown (a budget stopped a question that\n"
    "could make it flawed: an alternative not settled is never taken as no mate),\n"
    "bad-line (illegal, not-check or not-mate). The summary counts the alternatives\n"
    "longer than the line apart (JSON: \"longer\" per flaw and in the summary).\n"
    "The intended line is the file's main line (KIF/KIFU/CSA moves, the \"moves\" of a\n"
    "SFEN, the solution_usi column of a TSV), or --line; with none, the solver's\n"
    "main line (shortest attack, longest defence, 駒余り tie-break, 無駄合 not\n"
    "counted) is found and checked.\n"
    "Inputs: files (read as their extension says, else as their text shows), a\n"
    "directory (every .kif .kifu .csa .sfen .tsv regular file in it, sorted by name;\n"
    "other kinds of file are named on stderr and skipped), a TSV\n"
    "whose header line (it may begin with '#') names a 'sfen' column and optionally\n"
    "'id' and 'solution_usi', a .sfen list (one SFEN a line, optionally followed by\n"
    "\" moves <usi>...\", or a line of `tsume export --sfen`: SFEN, length, flags, moves\n"
    "between tabs), a KIF of several records each starting with its #KIF line (export\n"
    "--kif-file: a problem per record, named FILE:LINE), or a SFEN on the command line\n"
    "(followed by \"moves <usi>...\" as in a .sfen file, in the same argument or in the\n"
    "words after it), a USI line \"position sfen <SFEN> moves ...\" or \"position startpos\",\n"
    "or - (standard input). Files may hold at most 64 MiB, lines at most 2048 moves.\n"
    "  --line \"USI...\"      the intended line (one problem only)\n"
    "  --json               one JSON object per problem and line, then a summary object:\n"
    "                       {\"id\":..,\"sfen\":..,\"verdict\":..,\"length\":N,\"line_length\":N,\n"
    "                        \"line\":[..],\"flaws\":[{\"kind\":..,\"ply\":N,\"move\":\"usi\",\n"
    "                        \"alt\":\"usi\",\"alt_length\":N[,\"alt_length_min|max\":N],\"alt_line\":[..],\n"
    "                        \"tolerated\":bool}],\"nodes\":N,\"time_ms\":N[,\"reason\":\"no-line|unproven\"]}\n"
    "                       (reason, with an unknown verdict: no mating line found within\n"
    "                       the budget, or questions stopped by it, counted in unproven;\n"
    "                       alt_length_min or _max, with alt_length -1: a fatal flaw proven,\n"
    "                       its alternative mating in at least / at most N plies, length\n"
    "                       not settled)\n"
    "  --time-ms T          time for the whole check of one problem (default: none)\n"
    "  --nodes N            solver nodes for the whole check of one problem (default: none)\n"
    "  --call-nodes N       nodes of one solver question (default 2000000)\n"
    "  --max-alts K         flaws kept per problem (default 1000)\n"
    "  --threads N          problems checked at once, one checker each (default and\n"
    "                       most: the processors online, and no more than the\n"
    "                       problems); results are printed in input order. With\n"
    "                       fewer problems than threads and a --time-ms budget (no\n"
    "                       --nodes), the threads left over ask a problem's hard\n"
    "                       questions with it, each with a table of --hash MB\n"
    "  --hash MB            solver table of each checker (default 64), made before\n"
    "                       the first problem: --time-ms is search time, not set-up\n"
    "  --strict             higentei, tejun-zengo and ukai are flaws too (hendou stays a キズ)\n"
    "  --strict-last-move   last-move-alt is a flaw too\n"
    "  --futile-rule R      無駄合 (see `tsume solve --help`): same (default), mated, none\n"
    "  --no-futile-rule     count every interposition (--futile-rule=none)\n"
    "  --first-flaw         stop at the first flaw that is not tolerated (faster)\n"
    "  --trace              on stderr, every question that costs 100,000 nodes or more\n"
    "                       (pass, ply, move, answered or not, nodes, time)\n"
    "  --quiet              print the summary only\n"
    "Exit status: 0 every problem complete, 1 some not complete or nothing to check\n"
    "(an empty directory, a TSV with its header only), 2 bad usage or\n"
    "input (a malformed file, an illegal line or one going past mate: file, line and\n"
    "column are named), 3 I/O error.\n";

#define CHECK_LINE_CAP SOURCE_LINE_MAX /* moves of a line read from a TSV, a SFEN list or --line */
#define CHECK_STACK ((size_t)512 << 20) /* deep searches recurse */

/* One problem to check, or an input that could not be read. */
typedef struct {
  char *id;
  Position pos;
  Move *line;
  int n;
  int status;     /* 0, or the exit status of an input error (2, 3) */
  char *error;    /* the message of an input error */
  int rc;         /* check_problem's return */
  CheckReport rep;
  int done;
} CheckItem;

typedef struct {
  CheckItem *v;
  size_t n, cap;
  int nomem;
} CheckList;

static char *str_dup(const char *s) {
  size_t n = strlen(s) + 1;
  char *d = malloc(n);
  if (d) memcpy(d, s, n);
  return d;
}

static CheckItem *list_add(CheckList *l, const char *id) {
  if (l->n == l->cap) {
    size_t cap = l->cap ? l->cap * 2 : 64;
    CheckItem *v = realloc(l->v, cap * sizeof *v);
    if (!v) {
      l->nomem = 1;
      return NULL;
    }
    l->v = v, l->cap = cap;
  }
  CheckItem *it = &l->v[l->n++];
  memset(it, 0, sizeof *it);
  it->id = str_dup(id);
  if (!it->id) l->nomem = 1;
  check_report_init(&it->rep);
  return it;
}

static void item_error(CheckItem *it, const TsError *err) {
  char buf[1024];
  ts_error_format(err, buf, sizeof buf);
  free(it->error);
  it->error = str_dup(buf);
  it->status = ts_error_exit_status(err->code);
  if (!it->status) it->status = 2;
}

/* The line s (USI moves) from pos into a new array (usi_line_parse: an illegal
 * move after a mate says the line goes on past mate). `where`, `lineno` and
 * `col0` place the text in its file (col0: the column of s[0], 1-based). */
static int parse_usi_line(const Position *pos, const char *s, const char *where, int lineno, int col0, Move **out,
                          int *n, TsError *err) {
  *out = NULL;
  *n = 0;
  Move *mv = malloc(CHECK_LINE_CAP * sizeof *mv);
  if (!mv) return ts_error_set(err, TS_ERR_NOMEM, where, lineno, 0, "out of memory");
  int k = 0;
  int rc = usi_line_parse(pos, s, mv, CHECK_LINE_CAP, &k, err);
  if (rc) {
    int col = err->column;
    char msg[sizeof err->msg];
    snprintf(msg, sizeof msg, "%s", err->msg);
    free(mv);
    if (lineno == 0) /* not in a file: the column alone would read as a line number */
      return ts_error_set(err, rc, where, 0, 0, "column %d: %s", col ? col0 + col - 1 : 0, msg);
    return ts_error_set(err, rc, where, lineno, col ? col0 + col - 1 : 0, "%s", msg);
  }
  *out = mv;
  *n = k;
  return TS_OK;
}

static bool has_ext(const char *path, const char *ext) {
  size_t n = strlen(path), e = strlen(ext);
  return n > e && !strcasecmp(path + n - e, ext);
}

/* The next line of text[*i..len) (LF, CRLF or CR ends) as [*b, *e); false at the end. */
static bool next_line(const char *text, size_t len, size_t *i, size_t *b, size_t *e) {
  if (*i >= len) return false;
  size_t j = *i;
  while (j < len && text[j] != '\n' && text[j] != '\r') j++;
  *b = *i, *e = j;
  if (j < len && text[j] == '\r' && j + 1 < len && text[j + 1] == '\n') j++;
  *i = j < len ? j + 1 : len;
  return true;
}

/* Column name of a TSV header field: "# columns: id" -> "id", "solution_usi(recorded main line)" -> "solution_usi". */
static void column_name(const char *f, size_t n, char *out, size_t cap) {
  size_t i = 0;
  while (i < n && (f[i] == '#' || isspace((unsigned char)f[i]))) i++;
  if (n - i >= 8 && !strncasecmp(f + i, "columns:", 8)) i += 8;
  while (i < n && isspace((unsigned char)f[i])) i++;
  size_t k = 0;
  while (i < n && k + 1 < cap && (isalnum((unsigned char)f[i]) || f[i] == '_')) out[k++] = (char)tolower((unsigned char)f[i++]);
  out[k] = 0;
}

/* Splits [b, e) into fields at tabs, or (a header line without tabs) at runs of two or more spaces. */
static int split_fields(const char *t, size_t b, size_t e, bool spaces, size_t *fb, size_t *fe, int max) {
  int n = 0;
  size_t s = b;
  for (size_t i = b; i <= e && n < max; i++) {
    bool end = i == e;
    size_t skip = 0;
    if (!end && t[i] == '\t') end = true, skip = 1;
    if (!end && spaces && t[i] == ' ' && i + 1 < e && t[i + 1] == ' ') {
      end = true;
      while (i + skip < e && t[i + skip] == ' ') skip++;
    }
    if (!end) continue;
    fb[n] = s, fe[n] = i, n++;
    if (i == e) break;
    i += skip - 1;
    s = i + 1;
  }
  return n;
}

static bool is_solution_column(const char *c) {
  return !strcmp(c, "solution_usi") || !strcmp(c, "solution") || !strcmp(c, "usi") || !strcmp(c, "moves") ||
         !strcmp(c, "line");
}

#define TSV_FIELDS 64

/* A TSV: its header line names the columns (sfen required; id, solution_usi optional). */
static void load_tsv(CheckList *l, const char *path, const char *text, size_t len) {
  size_t i = 0, b, e;
  int lineno = 0, c_id = -1, c_sfen = -1, c_sol = -1, rows = 0;
  size_t fb[TSV_FIELDS], fe[TSV_FIELDS];
  TsError err;
  ts_error_clear(&err);
  while (next_line(text, len, &i, &b, &e)) {
    lineno++;
    if (b == e) continue;
    if (c_sfen < 0) {
      bool tabs = memchr(text + b, '\t', e - b) != NULL;
      int nf = split_fields(text, b, e, !tabs, fb, fe, TSV_FIELDS);
      for (int k = 0; k < nf; k++) {
        char name[64];
        column_name(text + fb[k], fe[k] - fb[k], name, sizeof name);
        if (!strcmp(name, "sfen")) c_sfen = k;
        if (!strcmp(name, "id") && c_id < 0) c_id = k;
        if (is_solution_column(name) && c_sol < 0) c_sol = k;
      }
      if (c_sfen >= 0) continue;
      c_id = c_sol = -1;
      if (text[b] == '#') continue;
      CheckItem *it = list_add(l, path);
      if (!it) return;
      ts_error_set(&err, TS_ERR_PARSE, path, lineno, 1, "no header line naming a 'sfen' column before the first row");
      item_error(it, &err);
      return;
    }
    if (text[b] == '#') continue;
    rows++;
    int nf = split_fields(text, b, e, false, fb, fe, TSV_FIELDS);
    char id[256];
    if (c_id >= 0 && c_id < nf && fe[c_id] > fb[c_id])
      snprintf(id, sizeof id, "%.*s", (int)(fe[c_id] - fb[c_id]), text + fb[c_id]);
    else
      snprintf(id, sizeof id, "%s:%d", path, lineno);
    CheckItem *it = list_add(l, id);
    if (!it) return;
    if (c_sfen >= nf) {
      ts_error_set(&err, TS_ERR_PARSE, path, lineno, 0, "row has %d fields, no 'sfen' field (column %d)", nf,
                   c_sfen + 1);
      item_error(it, &err);
      continue;
    }
    char sfen[512];
    size_t sl = fe[c_sfen] - fb[c_sfen];
    if (sl >= sizeof sfen) {
      ts_error_set(&err, TS_ERR_PARSE, path, lineno, (int)(fb[c_sfen] - b) + 1, "SFEN field too long");
      item_error(it, &err);
      continue;
    }
    memcpy(sfen, text + fb[c_sfen], sl);
    sfen[sl] = 0;
    int rc = sfen_parse(sfen, &it->pos, path, &err);
    if (!rc) rc = pos_validate_problem(&it->pos, path, &err);
    if (rc) {
      err.line = lineno;
      if (err.column) err.column += (int)(fb[c_sfen] - b);
      item_error(it, &err);
      continue;
    }
    if (c_sol >= 0 && c_sol < nf) {
      size_t ol = fe[c_sol] - fb[c_sol];
      char *sol = malloc(ol + 1);
      if (!sol) {
        l->nomem = 1;
        return;
      }
      memcpy(sol, text + fb[c_sol], ol);
      sol[ol] = 0;
      bool none = ol == 0 || !strcmp(sol, "-");
      if (!none && parse_usi_line(&it->pos, sol, path, lineno, (int)(fb[c_sol] - b) + 1, &it->line, &it->n, &err))
        item_error(it, &err);
      free(sol);
    }
  }
  if (c_sfen < 0) {
    CheckItem *it = list_add(l, path);
    if (!it) return;
    ts_error_set(&err, TS_ERR_PARSE, path, lineno ? lineno : 1, 0, "no header line naming a 'sfen' column");
    item_error(it, &err);
  } else if (rows == 0) { /* nothing found: exit status 1 */
    cli_message("check", "%s: no problem in it (a header line and no row)", path);
  }
}

/* A .sfen list: one SFEN a line, optionally " moves <usi>..." or an export line's fields. */
static void load_sfen_list(CheckList *l, const char *path, const char *text, size_t len) {
  size_t i = 0, b, e;
  int lineno = 0, count = 0;
  for (size_t j = 0, bb, ee; next_line(text, len, &j, &bb, &ee);) {
    while (bb < ee && isspace((unsigned char)text[bb])) bb++;
    if (bb < ee && text[bb] != '#') count++;
  }
  TsError err;
  ts_error_clear(&err);
  if (count == 0) { /* nothing found, as in an empty folder or a TSV of a header alone: exit status 1 */
    cli_message("check", "%s: no problem in it (no SFEN line)", path);
    return;
  }
  while (next_line(text, len, &i, &b, &e)) {
    lineno++;
    size_t s = b;
    while (s < e && isspace((unsigned char)text[s])) s++;
    while (e > s && isspace((unsigned char)text[e - 1])) e--;
    if (s == e || text[s] == '#') continue;
    char id[300];
    if (count == 1)
      snprintf(id, sizeof id, "%s", path);
    else
      snprintf(id, sizeof id, "%s:%d", path, lineno);
    CheckItem *it = list_add(l, id);
    if (!it) return;
    /* the line as a .sfen text of one line: " moves" or an export line's fields */
    Move *mv = malloc(CHECK_LINE_CAP * sizeof *mv);
    if (!mv) {
      l->nomem = 1;
      return;
    }
    int n = 0;
    int rc = sfen_text_parse(text + b, e - b, path, &it->pos, mv, CHECK_LINE_CAP, &n, &err);
    if (!rc) rc = pos_validate_problem(&it->pos, path, &err);
    if (rc) {
      err.line = lineno;
      item_error(it, &err);
      free(mv);
    } else if (n > 0) {
      it->line = mv;
      it->n = n;
    } else {
      free(mv);
    }
  }
}

/* Record k of a problem file into the list (*info: the file's records, set by the first);
 * text, when not NULL, is the file's text already read (standard input). */
static void load_problem_record(CheckList *l, const char *path, const char *text, size_t len, int k,
                                SourceRecord *info) {
  SourceLine *sl = malloc(sizeof *sl);
  if (!sl) {
    l->nomem = 1;
    return;
  }
  TsError err;
  Position pos;
  pos_clear(&pos);
  int rc = text ? source_load_text(path, text, len, k, &pos, sl, info, &err)
               : source_load_record(path, k, &pos, sl, info, &err);
  char id[300];
  if (info->count > 1)
    snprintf(id, sizeof id, "%s:%d", path, info->first_line);
  else
    snprintf(id, sizeof id, "%s", path);
  CheckItem *it = list_add(l, id);
  if (!it) {
    free(sl);
    return;
  }
  it->pos = pos;
  if (!rc) rc = pos_validate_problem(&it->pos, path, &err);
  if (rc) {
    item_error(it, &err);
  } else if (sl->n > 0) {
    it->line = malloc((size_t)sl->n * sizeof *it->line);
    if (it->line) {
      memcpy(it->line, sl->moves, (size_t)sl->n * sizeof *it->line);
      it->n = sl->n;
    } else {
      l->nomem = 1;
    }
  }
  free(sl);
}

/* One problem file (KIF, KIFU, CSA, or other text source.h recognises); a KIF of several
 * records is a problem per record, named PATH:LINE (the line its record starts on). */
static void load_problem_file(CheckList *l, const char *path) {
  SourceRecord info = {.count = 1};
  if (strcmp(path, "-")) {
    for (int k = 0; k < info.count && !l->nomem; k++) load_problem_record(l, path, NULL, 0, k, &info);
    return;
  }
  /* standard input, read once: its problems as a file's, by its text's format */
  char *text;
  size_t len;
  TsError err;
  if (source_read_file("-", &text, &len, &err)) {
    CheckItem *it = list_add(l, "<stdin>");
    if (it) item_error(it, &err);
    return;
  }
  for (int k = 0; k < info.count && !l->nomem; k++) load_problem_record(l, "<stdin>", text, len, k, &info);
  free(text);
}

static void load_path(CheckList *l, const char *path, bool from_dir);

static int name_cmp(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static bool problem_ext(const char *name) {
  return has_ext(name, ".kif") || has_ext(name, ".kifu") || has_ext(name, ".csa") || has_ext(name, ".sfen") ||
         has_ext(name, ".tsv");
}

static void load_dir(CheckList *l, const char *path) {
  DIR *d = opendir(path);
  TsError err;
  if (!d) {
    CheckItem *it = list_add(l, path);
    if (!it) return;
    ts_error_set(&err, TS_ERR_IO, path, 0, 0, "cannot open directory: %s", strerror(errno));
    item_error(it, &err);
    return;
  }
  char **names = NULL;
  size_t n = 0, cap = 0;
  for (struct dirent *de; (de = readdir(d));) {
    if (de->d_name[0] == '.' || !problem_ext(de->d_name)) continue;
    /* only regular files: a FIFO would block the read forever, a device or a
     * socket is no problem file */
    struct stat st;
    char full[4096];
    snprintf(full, sizeof full, "%s%s%s", path, path[strlen(path) - 1] == '/' ? "" : "/", de->d_name);
    bool found = stat(full, &st) == 0;
    if (!found || !S_ISREG(st.st_mode)) {
      if (!found || !S_ISDIR(st.st_mode)) cli_message("check", "skipped %s: not a regular file", full);
      continue;
    }
    if (n == cap) {
      cap = cap ? cap * 2 : 64;
      char **v = realloc(names, cap * sizeof *v);
      if (!v) {
        l->nomem = 1;
        break;
      }
      names = v;
    }
    size_t len = strlen(path) + strlen(de->d_name) + 2;
    names[n] = malloc(len);
    if (!names[n]) {
      l->nomem = 1;
      break;
    }
    snprintf(names[n], len, "%s%s%s", path, path[strlen(path) - 1] == '/' ? "" : "/", de->d_name);
    n++;
  }
  closedir(d);
  if (!n && !l->nomem) cli_message("check", "%s: no problem file in it (nothing to check)", path);
  if (n) qsort(names, n, sizeof *names, name_cmp);
  for (size_t i = 0; i < n; i++) {
    if (!l->nomem) load_path(l, names[i], true);
    free(names[i]);
  }
  free(names);
}

static void load_path(CheckList *l, const char *path, bool from_dir) {
  struct stat st;
  TsError err;
  if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
    if (from_dir) return; /* one level */
    load_dir(l, path);
    return;
  }
  if (has_ext(path, ".tsv") || has_ext(path, ".sfen")) {
    char *text;
    size_t len;
    if (source_read_file(path, &text, &len, &err)) {
      CheckItem *it = list_add(l, path);
      if (it) item_error(it, &err);
      return;
    }
    if (has_ext(path, ".tsv"))
      load_tsv(l, path, text, len);
    else
      load_sfen_list(l, path, text, len);
    free(text);
    return;
  }
  load_problem_file(l, path);
}

/* ------------------------------------------------------------------ running */

typedef struct {
  CheckList *list;
  const CheckOptions *opt;
  size_t next;    /* next item to check */
  size_t printed; /* items printed so far */
  pthread_mutex_t mu;
  void (*print)(void *ctx, CheckItem *it);
  void *print_ctx;
  int nomem;
} CheckRun;

static void run_print_ready(CheckRun *r) {
  while (r->printed < r->list->n && r->list->v[r->printed].done) {
    CheckItem *it = &r->list->v[r->printed++];
    r->print(r->print_ctx, it);
  }
}

static void *check_worker(void *arg) {
  CheckRun *r = arg;
  Checker *k = NULL;
  for (;;) {
    pthread_mutex_lock(&r->mu);
    size_t i = r->next < r->list->n ? r->next++ : r->list->n;
    pthread_mutex_unlock(&r->mu);
    if (i >= r->list->n) break;
    CheckItem *it = &r->list->v[i];
    if (!it->status) {
      if (!k) k = check_create(r->opt);
      if (!k) {
        it->status = 3;
        char msg[160];
        snprintf(msg, sizeof msg, "out of memory: cannot allocate a checker's table of %zu MB (--hash %zu): give a "
                 "smaller --hash", r->opt->hash_mb, r->opt->hash_mb);
        it->error = str_dup(msg);
      } else {
        /* each problem from an empty table, so that what a checker saw before
         * (which depends on how the problems were shared among the threads)
         * changes nothing; clearing is set-up, before the problem's budget */
        solver_clear(check_solver(k));
        it->rc = check_problem(k, &it->pos, it->line, it->n, &it->rep);
      }
    }
    pthread_mutex_lock(&r->mu);
    it->done = 1;
    run_print_ready(r);
    pthread_mutex_unlock(&r->mu);
  }
  check_free(k);
  return NULL;
}

static void run_all(CheckRun *r, int nt) {
  pthread_t th[64];
  int started = 0;
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, CHECK_STACK);
  for (int t = 0; t < nt && t < 64; t++, started++)
    if (pthread_create(&th[t], &attr, check_worker, r) != 0) break;
  pthread_attr_destroy(&attr);
  if (started == 0) check_worker(r);
  for (int t = 0; t < started; t++) pthread_join(th[t], NULL);
}

/* ------------------------------------------------------------------ output */

typedef struct {
  bool json, quiet;
  uint64_t verdicts[5], errors, problems, nodes, time_ms;
  uint64_t kinds[FLAW_KIND_NB];
  uint64_t longer[FLAW_KIND_NB]; /* of kinds[]: attacker alternatives longer than the line's remainder */
  int worst_input; /* 0, 2, 3 */
  bool all_complete;
} CheckOut;

static const char *VERDICT_JA[] = {"完全作", "不完全作", "不詰", "未確定", "手順不正"};

/* Why a verdict is unknown: the budget ran out before the solver found any mating
 * line to check (nothing else was asked; --json "no-line"), else questions about
 * the line were stopped (counted in "unproven"; --json "unproven"). */
static bool unknown_no_line(const CheckReport *r) { return !r->line_given && r->line_length == 0; }

static void print_json(const CheckItem *it) {
  json_check(stdout, it->id, &it->pos, it->status ? (it->error ? it->error : "") : NULL, it->rc, &it->rep);
  putchar('\n');
}

/* The KIF text of m played from p (after prev), with the side's mark. */
static void kif_text(const Position *p, Move m, Move prev, char *out, size_t n) {
  char buf[KIF_MOVE_MAX];
  if (!pos_move_is_legal(p, m)) {
    char mv[8];
    usi_move_write(m, mv);
    snprintf(out, n, "(%s)", mv);
    return;
  }
  kif_move_write(p, m, prev, buf, sizeof buf);
  snprintf(out, n, "%s%s", p->side == BLACK ? "▲" : "△", buf);
}

/* The alternative's line in KIF notation, then in USI. */
static void print_alt_line(const Position *before, Move prev, const CheckFlaw *f) {
  Position p = *before;
  for (int i = 0; i < f->alt_line_len; i++) {
    char t[KIF_MOVE_MAX + 8];
    if (!pos_move_is_legal(&p, f->alt_line[i])) break;
    kif_text(&p, f->alt_line[i], prev, t, sizeof t);
    printf("%s%s", i ? " " : "", t);
    Undo u;
    pos_do_move(&p, f->alt_line[i], &u);
    prev = f->alt_line[i];
  }
  printf(" / ");
  for (int i = 0; i < f->alt_line_len; i++) {
    char mv[8];
    usi_move_write(f->alt_line[i], mv);
    printf("%s%s", i ? " " : "", mv);
  }
}

static void print_flaw(const CheckReport *r, const Position *before, Move prev, const CheckFlaw *f) {
  printf("        * %s %s", check_flaw_name_ja(f->kind), check_flaw_name(f->kind));
  if (f->tolerated) printf(" (キズ, tolerated)");
  if (f->alt != MOVE_NONE) {
    char t[KIF_MOVE_MAX + 8], mv[8];
    kif_text(before, f->alt, prev, t, sizeof t);
    usi_move_write(f->alt, mv);
    printf(": %s (%s)", t, mv);
    if (f->alt_length >= 0)
      printf(", mate in %d%s%s", f->alt_length, check_flaw_longer(r, f) ? " (longer than the line)" : "",
             f->alt_komaamari ? " with pieces left (駒余り)" : "");
    else if (f->alt_length_min > 0)
      printf(", mate in %d or more (its length not settled within the budget)", f->alt_length_min);
    else if (f->alt_length_max > 0)
      printf(", mate in %d or fewer (its length not settled within the budget)", f->alt_length_max);
    else
      printf(", no mate");
    if (f->alt_line_len > 0) {
      printf("\n          ");
      print_alt_line(before, prev, f);
      if (f->alt_line_len < f->alt_length || f->alt_length_min > 0 || f->alt_length_max > 0) printf(" ...");
    }
  }
  printf("\n");
}

/* The open questions of a report, at most CHECK_OPEN_SHOWN of them: ply, move (KIF, USI), what is asked, nodes spent. */
#define CHECK_OPEN_SHOWN 20
static void print_open(const CheckItem *it) {
  const CheckReport *r = &it->rep;
  Position p = it->pos;
  Move prev = MOVE_NONE;
  int at = 1; /* p is the position before ply `at` */
  for (int i = 0; i < r->nopen && i < CHECK_OPEN_SHOWN; i++) {
    const CheckOpen *o = &r->open[i];
    while (at < o->ply && at <= r->line_length) {
      Undo u;
      if (!pos_move_is_legal(&p, r->line[at - 1])) break;
      pos_do_move(&p, r->line[at - 1], &u);
      prev = r->line[at - 1];
      at++;
    }
    char kif[64], mv[8], tried[96];
    kif_text(&p, o->alt, prev, kif, sizeof kif);
    usi_move_write(o->alt, mv);
    if (!o->asked)
      snprintf(tried, sizeof tried, "not asked: the budget ran out before its turn");
    else if (o->limit)
      snprintf(tried, sizeof tried, "%llu nodes spent, last %llu nodes a try", (unsigned long long)o->nodes,
               (unsigned long long)o->limit);
    else
      snprintf(tried, sizeof tried, "%llu nodes spent, the last try with the rest of the budget", (unsigned long long)o->nodes);
    char mates[64] = "";
    if (o->mates && o->mate_max > 0)
      snprintf(mates, sizeof mates, " (it %s, in %d plies or fewer)", o->ply % 2 ? "mates" : "is mated", o->mate_max);
    else if (o->mates)
      snprintf(mates, sizeof mates, " (it %s)", o->ply % 2 ? "mates" : "is mated");
    const char *q = o->ply % 2 == 0 ? "how long does the attacker need after it?"
                    : o->mates     ? "how long is its mate, and is it a flaw?"
                    : o->longer    ? "does it mate at any length?"
                                   : "does it mate within the line's length?";
    printf("    ply %d %s (%s): %s%s; %s\n", o->ply, kif, mv, q, mates, tried);
  }
  if (r->nopen > CHECK_OPEN_SHOWN) printf("    ... and %d more (--json lists them all)\n", r->nopen - CHECK_OPEN_SHOWN);
}

static void print_text(const CheckItem *it) {
  /* the name and the message hold text from outside (file names, file contents) */
  char safe[2048];
  cli_escape(it->id, safe, sizeof safe);
  printf("== %s\n", safe);
  if (it->status) {
    cli_escape(it->error ? it->error : "", safe, sizeof safe);
    printf("error: %s\n\n", safe);
    return;
  }
  char diagram[DIAGRAM_MAX];
  diagram_write(&it->pos, diagram, sizeof diagram);
  fputs(diagram, stdout);
  char sfen[SFEN_MAX];
  sfen_write(&it->pos, sfen, sizeof sfen);
  printf("sfen %s\n", sfen);
  if (it->rc) {
    printf("error: %s\n\n", ts_strerror(it->rc));
    return;
  }
  const CheckReport *r = &it->rep;
  printf("line: %d plies (%s)\n", r->line_length, r->line_given ? "given" : "the solver's main line");
  Position p = it->pos;
  Move prev = MOVE_NONE;
  int fi = 0;
  bool legal = true;
  for (int ply = 1; ply <= r->line_length + 1; ply++) {
    bool have = ply <= r->line_length;
    Move m = have ? r->line[ply - 1] : MOVE_NONE;
    if (have) {
      char t[KIF_MOVE_MAX + 8], mv[8];
      if (legal) legal = pos_move_is_legal(&p, m);
      if (legal)
        kif_text(&p, m, prev, t, sizeof t);
      else
        snprintf(t, sizeof t, "(illegal)");
      usi_move_write(m, mv);
      printf("  %3d %s", ply, t);
      /* pad to 24 columns: kana and kanji are two columns wide, ▲ △ one */
      int w = 0;
      for (const unsigned char *q = (const unsigned char *)t; *q; q++) {
        if (*q < 0x80) w++;
        else if ((*q & 0xc0) != 0x80) w += (*q == 0xe2) ? 1 : 2;
      }
      printf("%*s %s\n", w < 24 ? 24 - w : 0, "", mv);
    } else if (fi < r->nflaws) {
      printf("  %3d (end)\n", ply);
    }
    while (fi < r->nflaws && r->flaws[fi].ply == ply) print_flaw(r, &p, prev, &r->flaws[fi++]);
    if (!have || !legal) break;
    Undo u;
    pos_do_move(&p, m, &u);
    prev = m;
  }
  while (fi < r->nflaws) print_flaw(r, &p, prev, &r->flaws[fi++]); /* past an illegal move */
  int bad = 0, tol = 0;
  for (int i = 0; i < r->nflaws; i++) r->flaws[i].tolerated ? tol++ : bad++;
  printf("verdict: %s (%s)", check_verdict_name(r->verdict), VERDICT_JA[r->verdict]);
  printf(", %d flaw%s, %d tolerated", bad, bad == 1 ? "" : "s", tol);
  if (r->flaws_dropped) printf(", %d more not listed (--max-alts)", r->flaws_dropped);
  printf("\n");
  if (r->length >= 0)
    printf("mate length %d%s (solver)\n", r->length, r->length_exact ? "" : " at most");
  else
    printf("mate length: none found\n");
  if (r->unproven && r->nopen) {
    printf("unfinished: %d question%s left open by the budget:\n", r->unproven, r->unproven == 1 ? "" : "s");
    print_open(it);
  } else if (r->unproven && unknown_no_line(r)) {
    printf("unfinished: no mating line found within the budget (no question about a line was asked)\n");
  } else if (r->unproven) {
    printf("unfinished: %d question%s stopped by the budget (first at ply %d)\n", r->unproven,
           r->unproven == 1 ? "" : "s", r->unproven_ply);
  } else if (r->verdict == CHECK_UNKNOWN)
    printf("unfinished: %s\n", unknown_no_line(r)
                                   ? "no mating line found within the budget (no question about a line was asked)"
                                   : "a question was stopped by the budget");
  if (r->message[0]) printf("%s\n", r->message);
  printf("nodes %llu, time %llu ms\n\n", (unsigned long long)r->nodes, (unsigned long long)r->time_ms);
}

static void print_item(void *ctx, CheckItem *it) {
  CheckOut *o = ctx;
  o->problems++;
  if (it->status || it->rc) {
    o->errors++;
    int st = it->status ? it->status : ts_error_exit_status(it->rc);
    if (st > o->worst_input) o->worst_input = st;
    o->all_complete = false;
    if (it->status) cli_message("check", "%s", it->error ? it->error : "error");
    else cli_message("check", "%s: %s", it->id, ts_strerror(it->rc));
  } else {
    const CheckReport *r = &it->rep;
    o->verdicts[r->verdict]++;
    o->nodes += r->nodes;
    o->time_ms += r->time_ms;
    for (int i = 0; i < r->nflaws; i++) {
      o->kinds[r->flaws[i].kind]++;
      if (check_flaw_longer(r, &r->flaws[i])) o->longer[r->flaws[i].kind]++;
    }
    if (r->verdict != CHECK_COMPLETE) o->all_complete = false;
  }
  if (o->json)
    print_json(it);
  else if (!o->quiet)
    print_text(it);
  fflush(stdout);
  /* the report is no longer needed */
  check_report_free(&it->rep);
  free(it->line);
  it->line = NULL;
}

/* {"kind":count,...} of the kinds with a count. */
static void json_kind_counts(const uint64_t *counts) {
  putchar('{');
  bool first = true;
  for (int k = 0; k < FLAW_KIND_NB; k++)
    if (counts[k]) {
      printf("%s\"%s\":%llu", first ? "" : ",", check_flaw_name((FlawKind)k), (unsigned long long)counts[k]);
      first = false;
    }
  putchar('}');
}

static void print_summary(const CheckOut *o, uint64_t wall_ms) {
  static const CheckVerdict ORDER[] = {CHECK_COMPLETE, CHECK_FLAWED, CHECK_NOMATE, CHECK_UNKNOWN, CHECK_BAD_LINE};
  if (o->json) {
    printf("{\"summary\":{\"problems\":%llu", (unsigned long long)o->problems);
    for (int i = 0; i < 5; i++)
      printf(",\"%s\":%llu", check_verdict_name(ORDER[i]), (unsigned long long)o->verdicts[ORDER[i]]);
    printf(",\"errors\":%llu,\"kinds\":", (unsigned long long)o->errors);
    json_kind_counts(o->kinds);
    printf(",\"longer\":");
    json_kind_counts(o->longer);
    printf(",\"nodes\":%llu,\"time_ms\":%llu,\"wall_ms\":%llu}}\n", (unsigned long long)o->nodes,
           (unsigned long long)o->time_ms, (unsigned long long)wall_ms);
    return;
  }
  printf("summary: %llu problem%s:", (unsigned long long)o->problems, o->problems == 1 ? "" : "s");
  for (int i = 0; i < 5; i++)
    printf("%s %llu %s", i ? "," : "", (unsigned long long)o->verdicts[ORDER[i]], check_verdict_name(ORDER[i]));
  if (o->errors) printf(", %llu unreadable", (unsigned long long)o->errors);
  printf("\nflaws by kind:");
  bool any = false;
  for (int k = 0; k < FLAW_KIND_NB; k++)
    if (o->kinds[k]) {
      printf(" %s %llu", check_flaw_name((FlawKind)k), (unsigned long long)o->kinds[k]);
      any = true;
    }
  bool longer = false;
  for (int k = 0; k < FLAW_KIND_NB; k++)
    if (o->longer[k]) {
      printf("%s %s %llu", longer ? "," : "\nof them longer than the line's remainder:", check_flaw_name((FlawKind)k),
             (unsigned long long)o->longer[k]);
      longer = true;
    }
  printf("%s\ntime %llu ms (wall %llu ms), nodes %llu\n", any ? "" : " none", (unsigned long long)o->time_ms,
         (unsigned long long)wall_ms, (unsigned long long)o->nodes);
}

/* ------------------------------------------------------------------ main */

/* Is a command-line argument the first word of a SFEN rather than a path? (as cli_load_position decides) */
static bool arg_is_sfen(const char *a) {
  struct stat st;
  if (stat(a, &st) == 0 || strchr(a, '.')) return false;
  return strchr(a, '/') != NULL || !strncmp(a, "startpos", 8) || !strncmp(a, "sfen", 4) || !strncmp(a, "position ", 9);
}

int cmd_check(int argc, char **argv) {
  CheckOptions opt;
  check_options_default(&opt);
  CheckOut out;
  memset(&out, 0, sizeof out);
  out.all_complete = true;
  const char *line_arg = NULL;
  uint64_t threads = (uint64_t)cli_default_threads();
  static const struct option LONG[] = {
      {"help", no_argument, NULL, 'h'},
      {"json", no_argument, NULL, 'j'},
      {"quiet", no_argument, NULL, 'q'},
      {"line", required_argument, NULL, 'L'},
      {"time-ms", required_argument, NULL, 'T'},
      {"nodes", required_argument, NULL, 'N'},
      {"call-nodes", required_argument, NULL, 'C'},
      {"max-alts", required_argument, NULL, 'A'},
      {"threads", required_argument, NULL, 't'},
      {"hash", required_argument, NULL, 'H'},
      {"strict", no_argument, NULL, 's'},
      {"strict-last-move", no_argument, NULL, 'S'},
      {"no-futile-rule", no_argument, NULL, 'F'},
      {"futile-rule", required_argument, NULL, 'U'},
      {"first-flaw", no_argument, NULL, 'f'},
      {"trace", no_argument, NULL, 'R'},
      {NULL, 0, NULL, 0}};
  optind = 1;
  opterr = 0;
  for (int c; (c = getopt_long(argc, argv, ":h", LONG, NULL)) != -1;) {
    uint64_t v = 0;
    static const CliRange RANGE[] = {{'T', "--time-ms", 1, CLI_TIME_MS_MAX}, {'N', "--nodes", 1, CLI_NODES_MAX},
                                     {'C', "--call-nodes", 1, CLI_NODES_MAX}, {'A', "--max-alts", 1, 1000000},
                                     {'t', "--threads", 1, 64},                {'H', "--hash", 1, CLI_HASH_MB_MAX}};
    if (cli_option_ranged("check", c, optarg, RANGE, sizeof RANGE / sizeof RANGE[0], &v)) return 2;
    switch (c) {
    case 'h': fputs(CHECK_HELP, stdout); return 0;
    case 'j': out.json = true; break;
    case 'q': out.quiet = true; break;
    case 'L': line_arg = optarg; break;
    case 'T': opt.time_ms = v; break;
    case 'N': opt.max_nodes = v; break;
    case 'C': opt.call_nodes = v; break;
    case 'A': opt.max_alts = (int)v; break;
    case 't': threads = v; break;
    case 'H': opt.hash_mb = (size_t)v; break;
    case 's': opt.strict = true; break;
    case 'S': opt.strict_last_move = true; break;
    case 'F': opt.futile_rule = false; break;
    case 'U': {
      SolverOptions so;
      solver_options_default(&so);
      if (cli_option_futile("check", optarg, &so)) return 2;
      opt.futile_rule = so.futile_rule;
      opt.futile_compare = so.futile_compare;
      break;
    }
    case 'f': opt.first_flaw = true; break;
    case 'R': opt.trace = stderr; break;
    default: return cli_getopt_error("check", c, argv);
    }
  }
  if (optind >= argc) return cli_usage_error("check", "missing problem (file, directory, TSV or SFEN)");
  CheckList list;
  memset(&list, 0, sizeof list);
  for (int i = optind; i < argc && !list.nomem;) {
    if (arg_is_sfen(argv[i])) {
      int used = 0;
      Position pos;
      TsError err;
      SourceLine *sl = malloc(sizeof *sl);
      if (!sl) {
        list.nomem = 1;
        break;
      }
      int rc = cli_load_position_line(argc - i, argv + i, &used, &pos, sl, &err);
      if (!rc) rc = pos_validate_problem(&pos, "<sfen>", &err);
      if (used < 1) used = 1;
      char id[512] = "";
      for (int k = 0; k < used; k++)
        snprintf(id + strlen(id), sizeof id - strlen(id), "%s%s", k ? " " : "", argv[i + k]);
      CheckItem *it = list_add(&list, id);
      if (it && rc) {
        item_error(it, &err);
      } else if (it) {
        it->pos = pos;
        if (sl->n > 0 && !(it->line = malloc((size_t)sl->n * sizeof *it->line))) list.nomem = 1;
        if (it->line) memcpy(it->line, sl->moves, (size_t)sl->n * sizeof *it->line), it->n = sl->n;
      }
      free(sl);
      if (!it) break;
      i += used;
    } else {
      load_path(&list, argv[i], false);
      i++;
    }
  }
  if (line_arg && !list.nomem) {
    if (list.n != 1) {
      for (size_t i = 0; i < list.n; i++) {
        check_report_free(&list.v[i].rep);
        free(list.v[i].id), free(list.v[i].line), free(list.v[i].error);
      }
      free(list.v);
      return cli_usage_error("check", "--line needs exactly one problem (%zu given)", list.n);
    }
    CheckItem *it = &list.v[0];
    if (!it->status) {
      free(it->line);
      it->line = NULL;
      it->n = 0;
      TsError err;
      if (parse_usi_line(&it->pos, line_arg, "--line", 0, 1, &it->line, &it->n, &err)) item_error(it, &err);
    }
  }
  if (list.nomem) {
    cli_message("check", "out of memory reading the inputs");
    return 3;
  }
  if (list.n == 0) { /* an empty directory, a TSV with its header only */
    print_summary(&out, 0);
    cli_message("check", "nothing to check: the inputs hold no problem");
    free(list.v);
    return 1;
  }
  uint64_t t0 = cli_now_ms();
  CheckRun run;
  memset(&run, 0, sizeof run);
  run.list = &list;
  run.opt = &opt;
  run.print = print_item;
  run.print_ctx = &out;
  pthread_mutex_init(&run.mu, NULL);
  size_t work = 0;
  for (size_t i = 0; i < list.n; i++) work += !list.v[i].status;
  /* No more checkers than problems, nor than processors: a checker waiting for
   * a core would spend its problem's time budget waiting (the verdict would
   * then depend on the thread count), and each holds a table of --hash MB. */
  int nt = (int)threads;
  if (nt > cli_default_threads()) nt = cli_default_threads();
  int cores = nt;
  if ((size_t)nt > work) nt = work ? (int)work : 1;
  /* threads left over by fewer problems ask one problem's questions together (with a time budget) */
  if (opt.time_ms && !opt.max_nodes) opt.workers = cores / nt > CHECK_WORKERS_MAX ? CHECK_WORKERS_MAX : cores / nt;
  run_all(&run, nt);
  pthread_mutex_destroy(&run.mu);
  print_summary(&out, cli_now_ms() - t0);
  for (size_t i = 0; i < list.n; i++) {
    check_report_free(&list.v[i].rep);
    free(list.v[i].id), free(list.v[i].line), free(list.v[i].error);
  }
  free(list.v);
  if (out.worst_input) return out.worst_input;
  return out.all_complete ? 0 : 1;
}
