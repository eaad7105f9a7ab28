#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "book.h"
#include "cli.h"
#include "dbguard.h"
#include "dbutil.h"
#include "kif.h"
#include "kifvar.h"
#include "outfile.h"
#include "sfen.h"
#include "check.h"
#include "solver.h"

static const char EXPORT_HELP[] =
    "usage: tsume export --db PATH [--moves N] [--complete | --flag F] [--minimal] [--limit K]\n"
    "                    (--kif DIR | --kif-file F | --sfen F | --html DIR) [--utf8]\n"
    "                    [--no-variations] [--partial] [--force]\n"
    "Writes problems of an enumerated database, selected as tsume query selects them:\n"
    "  --moves N        only N-ply problems\n"
    "  --complete       only complete works (完全作)\n"
    "  --flag F         only problems with flag F (given again: with every one); the names\n"
    "                   are those of tsume query --help (yozume, minimal, hendou, ...)\n"
    "  --minimal        only minimal problems\n"
    "  --limit K        at most K problems\n"
    "and written as:\n"
    "  --kif DIR        one KIF file per problem, DIR/<material>-<length>-<number>.kif, e.g.\n"
    "                   G2P1-07-000001.kif (CP932, as 柿木将棋 and ShogiGUI expect; --utf8\n"
    "                   writes .kifu in UTF-8)\n"
    "  --kif-file F     every problem in one file, records one after another (F ending in\n"
    "                   .kifu is UTF-8, otherwise CP932; - is stdout, in UTF-8)\n"
    "  --sfen F         one line per problem: SFEN, length, flags, main line (USI), separated\n"
    "                   by tabs (- is stdout). A file F that exists is refused (exit status\n"
    "                   2) unless --force; the database itself always is\n"
    "  --html DIR       an HTML book that works offline: DIR/index.html lists the works (500 a\n"
    "                   page: diagram, length, flags, pieces; filter by length and flag; the\n"
    "                   length histogram), DIR/w/NNNN/<id>.html shows each work's 図面, its\n"
    "                   final position, its KIF with 変化 and a move player (kifu-for-js).\n"
    "                   The book is built in a hidden folder beside DIR and renamed to DIR\n"
    "                   at the end: an export that fails, is killed or finds nothing leaves\n"
    "                   DIR as it was. DIR/.tsume-book marks a book this program wrote\n"
    "  --force          --html, --kif: replace a DIR that is not empty and was not\n"
    "                   written by this program (its files are removed). Without it such\n"
    "                   a DIR is refused (exit status 2) and nothing is written. An\n"
    "                   existing book (--html) or KIF folder of this program (--kif,\n"
    "                   marked by DIR/.tsume-kif) is replaced whole without --force: the\n"
    "                   new folder is built beside it and takes its place at the end, so\n"
    "                   no file of the earlier export stays\n"
    "Each KIF holds 作品番号 (material-length-id), 作品名, 手数, 完全性, the defender's hand\n"
    "piece by piece, the diagram, the main line ending in 詰み, and every other defender\n"
    "reply on the main line (futile interpositions, 無駄合, left out) as a 変化 branch with its own\n"
    "line (found by the solver), and the other replies inside each branch the same way,\n"
    "up to 100 branches per problem.\n"
    "Every problem is checked first by the flaw checker (`tsume check`): its line must\n"
    "be sound, a complete work must be complete by the checker and any other problem\n"
    "not, and its length confirmed; one that is not is reported and left out (exit\n"
    "status 1). 完全性 is the checker's verdict with its tolerated キズ. A problem\n"
    "flagged unsettled (its enumeration was cut by --max-moves) is exported as `tsume\n"
    "verify` treats it: its line must be sound, its verdict is the checker's. Every file\n"
    "written is read back with the KIF reader and replayed to mate.\n"
    "Every file is written under a temporary name beside it and renamed when complete:\n"
    "a failed or interrupted export leaves no cut file, and one that finds nothing to\n"
    "write leaves no file (exit status 1).\n"
    "  --partial        export from a database whose enumeration is not finished (in\n"
    "                   progress or interrupted); without it such a database is named\n"
    "                   and nothing is written (exit status 1)\n";

#define EXPORT_KIF_MARKER ".tsume-kif"
#define EXPORT_KIF_MARKER_TEXT "tsume-kif 1"

typedef struct {
  const char *dir;     /* --kif: the staging folder written into */
  const char *kif_dir; /* --kif: the folder it becomes */
  const char *kif_file, *sfen_file, *html_dir;
  Book *book;
  bool utf8, variations;
  uint32_t need;
  uint64_t limit, written, seen, unconfirmed, unsettled;
  char material[64];
  const Material *mat; /* the database's, for dbutil_record_decode (NULL: unknown) */
  OutFile out; /* --kif-file, --sfen */
  Solver *solver; /* the checker's */
  Checker *checker;
  CheckReport report;
  int rc;
  TsError err;
} ExportCtx;

#define EXPORT_MAX_BRANCHES 100


/* Reads a written KIF back and replays its main line: legal, all checks, and it
 * must end in mate (only futile interpositions left counts as mate, the 無駄合 rule). */
static int read_back(const char *bytes, size_t len, const char *where, int length, TsError *err) {
  KifRecord rec;
  int rc = kif_parse(bytes, len, KIF_ENC_AUTO, where, &rec, err);
  if (rc) return rc;
  static Move moves[TSDB_LINE_MAX];
  int n = 0;
  for (KifNode *c = rec.root->child; c && c->special == KIF_SPECIAL_NONE && n < TSDB_LINE_MAX; c = c->child)
    moves[n++] = c->move;
  int bad = -1;
  bool ok = solver_line_verify(&rec.start, moves, n, true, &bad);
  kif_record_free(&rec);
  if (n != length || !ok)
    return ts_error_set(err, TS_ERR_ILLEGAL, where, 0, 0, "read back: %d moves, %s", n,
                        ok ? "mate" : (bad == n ? "no mate at the end" : "an illegal or non-checking move"));
  return TS_OK;
}

static int export_one(const TsRecord *r, void *vctx) {
  ExportCtx *x = vctx;
  if ((r->flags & x->need) != x->need) return 0;
  if (x->limit && x->written >= x->limit) return 1;
  x->seen++;
  Position pos;
  static Move line[TSDB_LINE_MAX];
  int n;
  if (dbutil_record_decode(r, x->mat, &pos, line, &n, &x->err)) return x->rc = x->err.code;
  /* every exported problem is checked: one definition of a complete work */
  CheckReport *cr = &x->report;
  bool stored_complete = (r->flags & TSDB_F_COMPLETE) != 0;
  /* an enumeration cut by --max-moves could not settle the record: the checker's verdict is the answer,
   * as in verify, and only a line that is not sound is refused */
  bool unsettled = (r->flags & TSDB_F_UNSETTLED) != 0;
  if (check_problem(x->checker, &pos, line, n, cr) != TS_OK || cr->verdict == CHECK_BAD_LINE ||
      cr->verdict == CHECK_UNKNOWN || (!unsettled && (cr->verdict == CHECK_COMPLETE) != stored_complete) ||
      (stored_complete && (int)r->length != n)) {
    char sf[SFEN_MAX];
    sfen_write(&pos, sf, sizeof sf);
    fprintf(stderr, "tsume export: the checker does not confirm %s: stored %u plies, %s; checker %s%s%s\n", sf,
            r->length, stored_complete ? "complete" : "not complete", check_verdict_name(cr->verdict),
            cr->message[0] ? ": " : "", cr->message);
    x->unconfirmed++;
    return 0;
  }
  if (unsettled) x->unsettled++;
  char id[96], name[160], num[16], sfen[SFEN_MAX], flags[256];
  snprintf(id, sizeof id, "%s-%02u-%06llu", x->material, r->length, (unsigned long long)x->seen);
  sfen_write(&pos, sfen, sizeof sfen);
  dbutil_flags_format(r->flags, flags, sizeof flags);
  if (x->sfen_file) {
    errno = 0;
    fprintf(x->out.f, "%s\t%u\t%s\t", sfen, r->length, flags);
    for (int i = 0; i < n; i++) {
      char mv[8];
      usi_move_write(line[i], mv);
      fprintf(x->out.f, "%s%s", i ? " " : "", mv);
    }
    fprintf(x->out.f, "\n");
    if (ferror(x->out.f))
      return x->rc = ts_error_set(&x->err, TS_ERR_IO, x->sfen_file, 0, 0, "write failed: %s",
                                  strerror(errno ? errno : EIO));
    x->written++;
    return 0;
  }
  KifRecord rec;
  int rc = kif_record_init(&rec, &pos);
  if (rc) return x->rc = ts_error_set(&x->err, rc, "export", 0, 0, "out of memory");
  snprintf(name, sizeof name, "%s図式 %u手詰 #%llu", x->material, r->length, (unsigned long long)x->seen);
  snprintf(num, sizeof num, "%u", r->length);
  kif_header_add(&rec, "作品番号", id);
  kif_header_add(&rec, "作品名", name);
  kif_header_add(&rec, "作者", "tsume enumerate");
  kif_header_add(&rec, "手数", num);
  char verdict[160];
  kif_header_add(&rec, "完全性", kifvar_completeness(cr, verdict, sizeof verdict));
  kif_header_add(&rec, "SFEN", sfen);
  KifNode *last;
  rc = kif_line_add(&rec, rec.root, line, n, KIF_SPECIAL_MATE, &last);
  int budget = EXPORT_MAX_BRANCHES;
  if (!rc && x->variations) {
    /* the branches' lines: the limits of the export's own solver calls, not the checker's */
    SolverOptions so = *solver_options(x->solver);
    so.max_nodes = 0;
    so.time_ms = 2000;
    solver_set_options(x->solver, &so);
  }
  if (!rc && x->variations) rc = kifvar_add(x->solver, &rec, rec.root, &pos, pos.side, line, n, &budget);
  char *bytes = NULL;
  size_t len = 0;
  KifEncoding enc = x->utf8 ? KIF_ENC_UTF8 : KIF_ENC_CP932;
  if (!rc) rc = kif_write(&rec, enc, "tsume " TSUME_VERSION, &bytes, &len, &x->err);
  kif_record_free(&rec);
  if (rc) {
    free(bytes);
    if (!x->err.msg[0]) ts_error_set(&x->err, rc, id, 0, 0, "cannot build the KIF record");
    return x->rc = rc;
  }
  char path[4096];
  if (x->dir)
    snprintf(path, sizeof path, "%s/%s.%s", x->kif_dir, id, x->utf8 ? "kifu" : "kif");
  else
    snprintf(path, sizeof path, "%s", x->kif_file);
  rc = read_back(bytes, len, path, r->length, &x->err);
  if (rc) {
    free(bytes);
    return x->rc = rc;
  }
  if (x->book) {
    BookWork w = {.id = id, .pos = &pos, .length = (int)r->length, .flags = flags, .verdict = kifvar_completeness(cr, verdict, sizeof verdict),
                  .line = line, .line_len = n, .kif = bytes};
    rc = book_add(x->book, &w, &x->err);
    free(bytes);
    if (rc) return x->rc = rc;
    x->written++;
    return 0;
  }
  if (x->dir) {
    char staged[4096];
    snprintf(staged, sizeof staged, "%s/%s.%s", x->dir, id, x->utf8 ? "kifu" : "kif");
    rc = outfile_write_all(staged, bytes, len, &x->err);
  } else {
    errno = 0;
    if (fwrite(bytes, 1, len, x->out.f) != len || fputs(x->utf8 ? "\n" : "\r\n", x->out.f) < 0 || ferror(x->out.f))
      rc = ts_error_set(&x->err, TS_ERR_IO, path, 0, 0, "write failed: %s", strerror(errno ? errno : EIO));
  }
  free(bytes);
  if (rc) return x->rc = rc;
  x->written++;
  return 0;
}

/* Whether dir has no entry but "." and "..". */
static bool dir_is_empty(const char *dir) {
  DIR *d = opendir(dir);
  if (!d) return false;
  struct dirent *e;
  bool empty = true;
  while (empty && (e = readdir(d)) != NULL) empty = !strcmp(e->d_name, ".") || !strcmp(e->d_name, "..");
  closedir(d);
  return empty;
}

/* Whether dir holds the KIF folder marker of an earlier export. */
static bool dir_has_kif_marker(const char *dir) {
  char m[4096];
  if (snprintf(m, sizeof m, "%s/" EXPORT_KIF_MARKER, dir) >= (int)sizeof m) return false;
  FILE *f = fopen(m, "rb");
  if (!f) return false;
  char line[64] = "";
  bool ok = fgets(line, sizeof line, f) && !strncmp(line, EXPORT_KIF_MARKER_TEXT, strlen(EXPORT_KIF_MARKER_TEXT));
  fclose(f);
  return ok;
}

/* An output folder that already exists is written only when empty, written by this
 * program before (its marker), or with --force. Exit status 0 or 2. */
static int target_dir_allowed(const char *dir, bool html, bool force) {
  struct stat st;
  if (stat(dir, &st) != 0) return 0;
  if (!S_ISDIR(st.st_mode)) return cli_usage_error("export", "%s exists and is not a folder; nothing written", dir);
  if (force || dir_is_empty(dir) || (html ? book_dir_is_book(dir) : dir_has_kif_marker(dir))) return 0;
  return cli_usage_error("export",
                         "%s is not empty and is not %s written by tsume export (no %s/%s); nothing written: give "
                         "another folder, or --force to %s",
                         dir, html ? "a book" : "a KIF folder", dir, html ? BOOK_MARKER : EXPORT_KIF_MARKER,
                         "replace it (its files are removed)");
}

static int export_main(int argc, char **argv) {
  const char *path = NULL;
  uint64_t moves = 0;
  bool have_moves = false, partial = false, force = false;
  ExportCtx x;
  memset(&x, 0, sizeof x);
  x.variations = true;
  static const struct option LONG[] = {
      {"help", no_argument, NULL, 'h'},          {"db", required_argument, NULL, 'd'},
      {"moves", required_argument, NULL, 'm'},   {"limit", required_argument, NULL, 'l'},
      {"complete", no_argument, NULL, 'c'},      {"minimal", no_argument, NULL, 'M'},
      {"flag", required_argument, NULL, 'f'},    {"kif", required_argument, NULL, 'k'},
      {"kif-file", required_argument, NULL, 'K'}, {"sfen", required_argument, NULL, 's'},
      {"utf8", no_argument, NULL, 'u'},
      {"no-variations", no_argument, NULL, 'V'}, {"partial", no_argument, NULL, 'P'},
      {"html", required_argument, NULL, 'H'},    {"force", no_argument, NULL, 'F'},
      {NULL, 0, NULL, 0}};
  optind = 1;
  opterr = 0;
  for (int c; (c = getopt_long(argc, argv, ":h", LONG, NULL)) != -1;) {
    switch (c) {
    case 'h': fputs(EXPORT_HELP, stdout); return 0;
    case 'd': path = optarg; break;
    case 'm':
      if (!cli_parse_u64(optarg, &moves) || moves < 1 || moves > 65535)
        return cli_usage_error("export", "--moves needs a number from 1 to 65535");
      have_moves = true;
      break;
    case 'l':
      if (cli_option_limit("export", optarg, &x.limit)) return 2;
      break;
    case 'c': x.need |= TSDB_F_COMPLETE; break;
    case 'M': x.need |= TSDB_F_MINIMAL; break;
    case 'f': {
      int st = dbutil_option_flag("export", optarg, &x.need);
      if (st) return st;
      break;
    }
    case 'k': x.kif_dir = optarg; break;
    case 'K': x.kif_file = optarg; break;
    case 's': x.sfen_file = optarg; break;
    case 'u': x.utf8 = true; break;
    case 'V': x.variations = false; break;
    case 'P': partial = true; break;
    case 'H': x.html_dir = optarg; break;
    case 'F': force = true; break;
    default: return cli_getopt_error("export", c, argv);
    }
  }
  if (optind < argc) return cli_usage_error("export", "unexpected argument '%s'", argv[optind]);
  if (!path) return cli_usage_error("export", "missing --db PATH");
  if (dbutil_need_exclusive("export", x.need)) return 1;
  if (!!x.kif_dir + !!x.kif_file + !!x.sfen_file + !!x.html_dir != 1)
    return cli_usage_error("export", "give exactly one of --kif DIR, --kif-file F, --sfen F, --html DIR");
  if (x.html_dir) x.utf8 = true; /* the book's pages are UTF-8 */
  if (x.kif_dir || x.html_dir) {
    int st = target_dir_allowed(x.kif_dir ? x.kif_dir : x.html_dir, x.html_dir != NULL, force);
    if (st) return st;
  }
  if (x.kif_file) {
    size_t l = strlen(x.kif_file);
    x.utf8 = (l > 5 && !strcmp(x.kif_file + l - 5, ".kifu")) || !strcmp(x.kif_file, "-");
  }
  /* an output file is never the database, nor a file that exists unless --force; "-" is stdout */
  if (x.kif_file || x.sfen_file) {
    const char *inputs[1] = {path};
    TsError terr;
    if (outfile_target_check(x.kif_file ? x.kif_file : x.sfen_file, x.kif_file ? "--kif-file" : "--sfen", force,
                             inputs, 1, &terr))
      return cli_usage_error("export", "%s", terr.msg);
  }
  TsDb *db;
  TsError err;
  bool finished;
  int rc = dbutil_open_reader("export", path, &db, &finished);
  if (rc) return rc;
  if (!finished && !partial) {
    tsdb_close(db);
    cli_message("export", "nothing written; give --partial to export what %s holds", path);
    return 1;
  }
  TsDbMeta meta;
  if (tsdb_meta_get(db, &meta, &err) == TS_OK) snprintf(x.material, sizeof x.material, "%s", meta.material);
  Material mat;
  if (dbutil_material_load(db, &mat)) x.mat = &mat;
  /* --kif: the folder is built beside the target and replaces it whole at the end */
  char *stage = NULL;
  if (x.kif_dir && !(stage = outfile_dir_stage(x.kif_dir, &err))) {
    tsdb_close(db);
    return cli_fail("export", &err);
  }
  x.dir = stage;
  if (x.html_dir) {
    char title[160], sel[400], len[32] = "", flags[256] = "";
    snprintf(title, sizeof title, "%s図式", x.material);
    if (have_moves) snprintf(len, sizeof len, "%llu手詰", (unsigned long long)moves);
    uint32_t others = x.need & ~(uint32_t)(TSDB_F_COMPLETE | TSDB_F_MINIMAL);
    if (others) {
      dbutil_flags_format(others, flags, sizeof flags - 1);
      strcat(flags, " ");
    }
    snprintf(sel, sizeof sel, "%s%s%s%s", x.need & TSDB_F_COMPLETE ? "完全作 " : "", x.need & TSDB_F_MINIMAL ? "minimal " : "",
             flags, len);
    const char *player = getenv("TSUME_PLAYER_DIR");
    rc = book_open(x.html_dir, title, sel, player ? player : TSUME_PLAYER_DIR, &x.book, &err);
    if (rc) {
      tsdb_close(db);
      return cli_fail("export", &err);
    }
    if (!book_has_player(x.book))
      fprintf(stderr, "tsume export: the move player (kifu-for-js) is not installed: work pages show the KIF only\n");
  }
  const char *outp = x.kif_file ? x.kif_file : x.sfen_file;
  if (outp && (rc = outfile_open(&x.out, outp, &err))) {
    tsdb_close(db);
    return cli_fail("export", &err);
  }
  CheckOptions co;
  check_options_default(&co);
  co.hash_mb = 16;
  co.time_ms = 10000;
  x.checker = check_create(&co);
  check_report_init(&x.report);
  x.solver = x.checker ? check_solver(x.checker) : NULL;
  if (!x.solver) {
    tsdb_close(db);
    if (x.book) book_abort(x.book);
    if (stage) outfile_dir_remove(stage);
    free(stage);
    outfile_abort(&x.out);
    fprintf(stderr, "tsume export: out of memory\n");
    return 3;
  }
  rc = tsdb_foreach(db, have_moves ? (int)moves : -1, export_one, &x, &err);
  check_report_free(&x.report);
  check_free(x.checker);
  tsdb_close(db);
  /* the file appears only complete and not empty */
  bool failed = x.rc || (rc && rc != 1);
  if (x.book) {
    /* the book appears whole, or not at all (an empty selection writes nothing) */
    if (failed || !x.written) {
      book_abort(x.book);
    } else {
      TsError berr;
      int brc = book_close(x.book, &berr);
      if (brc && !x.rc) x.rc = brc, x.err = berr;
    }
  }
  if (x.dir && x.written && !failed) {
    char m[4096];
    snprintf(m, sizeof m, "%s/" EXPORT_KIF_MARKER, x.dir);
    if (outfile_write_all(m, EXPORT_KIF_MARKER_TEXT "\nKIF files written by tsume export --kif.\n",
                          strlen(EXPORT_KIF_MARKER_TEXT "\nKIF files written by tsume export --kif.\n"), &x.err))
      x.rc = TS_ERR_IO;
  }
  if (failed || !x.written)
    outfile_abort(&x.out);
  else if (outp && outfile_commit(&x.out, &x.err))
    return cli_fail("export", &x.err);
  if (stage) {
    if (failed || !x.written || x.rc)
      outfile_dir_remove(stage);
    else if (outfile_dir_publish(stage, x.kif_dir, &x.err))
      x.rc = TS_ERR_IO;
    free(stage);
  }
  if (x.rc) return cli_fail("export", &x.err);
  if (rc && rc != 1) return cli_fail("export", &err);
  fprintf(stderr, "exported %llu problem(s), each confirmed by the flaw checker; %llu not confirmed (not written)\n",
          (unsigned long long)x.written, (unsigned long long)x.unconfirmed);
  if (x.unsettled)
    fprintf(stderr,
            "%llu of them flagged unsettled (the enumeration was cut by --max-moves): their line checked, their "
            "完全性 the checker's verdict, not compared with the stored flags\n",
            (unsigned long long)x.unsettled);
  return x.written && !x.unconfirmed ? 0 : 1;
}

/* A fault inside LMDB on a damaged file exits 3, not with a core dump (dbguard.h). */
int cmd_export(int argc, char **argv) { return dbguard_run("export", export_main, argc, argv); }
