/*
 * book.c - the HTML book (book.h): work pages as the works come, the list
 * pages at the end from a temporary file of one row per work (so memory does
 * not grow with the selection), the histogram from a count per length.
 */
#define _GNU_SOURCE /* renameat2 */
#include "book.h"

#include <dirent.h>
#include <fcntl.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kanji.h"
#include "sfen.h"
#include "svg.h"

struct Book {
  char *dir;               /* the staging folder the book is built in (beside target) */
  char *target;            /* the folder it becomes at book_close */
  char *title, *selection; /* escaped for HTML */
  bool player;
  FILE *rows;              /* one line per work: number, id, length, flags, pieces */
  unsigned long long n;    /* works added */
  unsigned long long *count_by_len;
  int len_cap;
  char flag_seen[16][24];  /* flag names met, for the filter's choices */
  int nflags;
};

/* ---------------------------------------------------------------- files */

typedef struct {
  char path[4096], tmp[4096 + 32];
  FILE *f;
} BookFile;

static int book_io_error(TsError *err, const char *path, const char *what) {
  return ts_error_set(err, TS_ERR_IO, path, 0, 0, "%s: %s", what, strerror(errno ? errno : EIO));
}

/* Opens DIR/rel under a temporary name in the same folder. */
static int book_file_open(const Book *b, const char *rel, BookFile *bf, TsError *err) {
  snprintf(bf->path, sizeof bf->path, "%s/%s", b->dir, rel);
  snprintf(bf->tmp, sizeof bf->tmp, "%s.tmp%ld", bf->path, (long)getpid());
  bf->f = fopen(bf->tmp, "wb");
  if (!bf->f) return book_io_error(err, bf->tmp, "cannot write");
  return TS_OK;
}

/* Closes the file and gives it its final name; removes the temporary on error. */
static int book_file_commit(BookFile *bf, TsError *err) {
  bool bad = ferror(bf->f) != 0;
  bad |= fclose(bf->f) != 0;
  bf->f = NULL;
  if (bad) {
    int rc = book_io_error(err, bf->path, "write failed");
    unlink(bf->tmp);
    return rc;
  }
  if (rename(bf->tmp, bf->path) != 0) {
    int rc = book_io_error(err, bf->path, "cannot rename into place");
    unlink(bf->tmp);
    return rc;
  }
  return TS_OK;
}

static int book_mkdir(const char *path, TsError *err) {
  if (mkdir(path, 0777) != 0 && errno != EEXIST) return book_io_error(err, path, "cannot create directory");
  return TS_OK;
}

/* The player's files in its bundle folder: the main script, its numbered chunks
 * (loaded by it on demand) and their licence notes; not the legacy or bookmarklet builds. */
static bool book_player_file(const char *name) {
  return !strncmp(name, "kifu-for-js.min.js", 18) || (name[0] >= '0' && name[0] <= '9' && strstr(name, ".min.js"));
}

/* Copies the player's files of src into dst. */
static int book_copy_dir(const char *src, const char *dst, TsError *err) {
  DIR *d = opendir(src);
  if (!d) return book_io_error(err, src, "cannot read");
  int rc = TS_OK;
  struct dirent *e;
  while (!rc && (e = readdir(d)) != NULL) {
    char from[4096], to[4096], tmp[4128];
    struct stat st;
    if (!book_player_file(e->d_name) || snprintf(from, sizeof from, "%s/%s", src, e->d_name) >= (int)sizeof from ||
        stat(from, &st) != 0 || !S_ISREG(st.st_mode))
      continue;
    if (snprintf(to, sizeof to, "%s/%s", dst, e->d_name) >= (int)sizeof to) continue;
    snprintf(tmp, sizeof tmp, "%s.tmp%ld", to, (long)getpid());
    FILE *in = fopen(from, "rb"), *out = in ? fopen(tmp, "wb") : NULL;
    if (!in || !out) {
      rc = book_io_error(err, in ? tmp : from, in ? "cannot write" : "cannot read");
    } else {
      char buf[65536];
      size_t k;
      while ((k = fread(buf, 1, sizeof buf, in)) > 0)
        if (fwrite(buf, 1, k, out) != k) break;
      if (ferror(in)) rc = book_io_error(err, from, "read failed");
      else if (ferror(out)) rc = book_io_error(err, tmp, "write failed");
    }
    if (in) fclose(in);
    if (out && fclose(out) != 0 && !rc) rc = book_io_error(err, tmp, "write failed");
    if (out && !rc && rename(tmp, to) != 0) rc = book_io_error(err, to, "cannot rename into place");
    if (out && rc) unlink(tmp);
  }
  closedir(d);
  return rc;
}

/* Writes s escaped for HTML text; false when out of memory. */
static bool book_put_text(FILE *f, const char *s) {
  char *e = svg_xml_escape(s);
  if (!e) return false;
  fputs(e, f);
  free(e);
  return true;
}

/* ---------------------------------------------------------------- open / add */

void book_remove_tree(const char *path) {
  struct stat st;
  if (lstat(path, &st) != 0) return;
  if (S_ISDIR(st.st_mode)) {
    DIR *d = opendir(path);
    if (d) {
      struct dirent *e;
      while ((e = readdir(d)) != NULL) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        char sub[4096];
        if (snprintf(sub, sizeof sub, "%s/%s", path, e->d_name) < (int)sizeof sub) book_remove_tree(sub);
      }
      closedir(d);
    }
    rmdir(path);
  } else {
    unlink(path);
  }
}

char *book_staging_make(const char *dir) {
  size_t n = strlen(dir);
  while (n > 1 && dir[n - 1] == '/') n--;
  size_t name = n;
  while (name > 0 && dir[name - 1] != '/') name--;
  size_t cap = n + 32;
  char *t = malloc(cap);
  if (!t) return NULL;
  snprintf(t, cap, "%.*s.%.*s.tmpXXXXXX", (int)name, dir, (int)(n - name), dir + name);
  if (!mkdtemp(t)) {
    free(t);
    return NULL;
  }
  /* mkdtemp makes it 0700: the book gets the mode a plain mkdir would give */
  mode_t mask = umask(0);
  umask(mask);
  chmod(t, 0777 & ~mask);
  return t;
}

bool book_dir_is_book(const char *dir) {
  char m[4096];
  if (snprintf(m, sizeof m, "%s/" BOOK_MARKER, dir) >= (int)sizeof m) return false;
  FILE *f = fopen(m, "rb");
  if (!f) return false;
  char line[64] = "";
  bool ok = fgets(line, sizeof line, f) != NULL && !strncmp(line, BOOK_MARKER_TEXT, strlen(BOOK_MARKER_TEXT));
  fclose(f);
  return ok;
}

static void book_free(Book *b) {
  if (b->rows) fclose(b->rows);
  free(b->count_by_len);
  free(b->dir);
  free(b->target);
  free(b->title);
  free(b->selection);
  free(b);
}

void book_abort(Book *b) {
  if (!b) return;
  if (b->dir) book_remove_tree(b->dir);
  book_free(b);
}

int book_open(const char *dir, const char *title, const char *selection, const char *player_dir, Book **out,
              TsError *err) {
  *out = NULL;
  Book *b = calloc(1, sizeof *b);
  if (!b) return ts_error_set(err, TS_ERR_NOMEM, "book", 0, 0, "out of memory");
  /* a symbolic link to a folder stays one: the folder it names is replaced */
  struct stat lst, st;
  bool link_to_dir = lstat(dir, &lst) == 0 && S_ISLNK(lst.st_mode) && stat(dir, &st) == 0 && S_ISDIR(st.st_mode);
  b->target = link_to_dir ? realpath(dir, NULL) : strdup(dir);
  if (b->target) dir = b->target;
  b->title = svg_xml_escape(title ? title : "tsume");
  b->selection = svg_xml_escape(selection ? selection : "");
  b->rows = tmpfile();
  int rc = TS_OK;
  if (!b->target || !b->title || !b->selection) rc = ts_error_set(err, TS_ERR_NOMEM, "book", 0, 0, "out of memory");
  else if (!b->rows) rc = book_io_error(err, "temporary file", "cannot create");
  if (!rc && !(b->dir = book_staging_make(dir))) rc = book_io_error(err, dir, "cannot create a folder beside it");
  char path[4096];
  snprintf(path, sizeof path, "%s/w", b->dir ? b->dir : dir);
  if (!rc) rc = book_mkdir(path, err);
  if (!rc && player_dir) {
    char main_js[4096];
    snprintf(main_js, sizeof main_js, "%s/kifu-for-js.min.js", player_dir);
    if (access(main_js, R_OK) == 0) {
      snprintf(path, sizeof path, "%s/player", b->dir);
      rc = book_mkdir(path, err);
      if (!rc) rc = book_copy_dir(player_dir, path, err);
      /* the package's licence sits one folder up from its bundle */
      char lic[4096], to[4096];
      snprintf(lic, sizeof lic, "%s/../LICENSE.txt", player_dir);
      snprintf(to, sizeof to, "%s/player/LICENSE.txt", b->dir);
      FILE *in = rc ? NULL : fopen(lic, "rb");
      if (in) {
        FILE *o = fopen(to, "wb");
        char buf[8192];
        size_t k;
        while (o && (k = fread(buf, 1, sizeof buf, in)) > 0) fwrite(buf, 1, k, o);
        if (o && fclose(o) != 0) rc = book_io_error(err, to, "write failed");
        fclose(in);
      }
      b->player = !rc;
    }
  }
  if (rc) {
    book_abort(b);
    return rc;
  }
  *out = b;
  return TS_OK;
}

bool book_has_player(const Book *b) { return b->player; }

static const char BOOK_CSS[] =
    "body{font-family:'Noto Sans CJK JP','Hiragino Sans','Yu Gothic',sans-serif;margin:1.5em auto;max-width:60em;"
    "padding:0 1em;color:#222}\n"
    "h1{font-size:1.5em}a{color:#1a4f8b}\n"
    "table.works{border-collapse:collapse;width:100%}table.works td,table.works th{border-bottom:1px solid #ddd;"
    "padding:.3em .6em;text-align:left;vertical-align:middle}\n"
    "table.works a.dg{display:block;width:150px}table.works a.dg svg{width:150px;height:auto;display:block}\n"
    ".filters{margin:1em 0}.filters select{margin-right:1em}\n"
    ".pager a,.pager b{margin-right:.5em}\n"
    ".hist{max-width:100%;height:auto}.hist rect.bar{fill:#4a78b0;cursor:pointer}.hist rect.bar:hover{fill:#e08a2c}\n"
    ".diagrams{display:flex;flex-wrap:wrap;gap:1.5em}.diagrams figure{margin:0}.diagrams svg{width:360px;height:auto}\n"
    "figcaption{text-align:center}\n"
    "table.info th{text-align:left;padding-right:1em;font-weight:normal;color:#555}\n"
    "pre.kif{background:#f6f6f6;padding:.8em;overflow-x:auto;font-size:.9em}\n"
    ".player{margin:1em 0;max-width:420px}\n";

/* Counts kinds on the board of one side (kings left out) as kanji, e.g. "金金歩". */
static void book_pieces(const Position *pos, Color c, char *out, size_t n) {
  static const PieceType ORDER[] = {DRAGON, ROOK, HORSE, BISHOP, GOLD, PRO_SILVER, SILVER, PRO_KNIGHT, KNIGHT,
                                    PRO_LANCE, LANCE, PRO_PAWN, PAWN};
  size_t k = 0;
  out[0] = 0;
  for (size_t i = 0; i < sizeof ORDER / sizeof ORDER[0]; i++)
    for (Square s = 0; s < SQ_NB; s++) {
      Piece p = pos->board[s];
      if (p && piece_color(p) == c && piece_type(p) == ORDER[i] && k < n)
        k += (size_t)snprintf(out + k, n - k, "%s", kanji_piece_board_char(ORDER[i]));
    }
}

static void book_hand_text(Hand h, char *out, size_t n) {
  static const PieceType ORDER[7] = {ROOK, BISHOP, GOLD, SILVER, KNIGHT, LANCE, PAWN};
  size_t k = 0;
  out[0] = 0;
  for (int i = 0; i < 7; i++)
    for (int j = hand_count(h, ORDER[i]); j > 0 && k < n; j--)
      k += (size_t)snprintf(out + k, n - k, "%s", kanji_piece_board_char(ORDER[i]));
  if (!k) snprintf(out, n, "なし");
}

static bool book_id_ok(const char *id) {
  if (!*id || strlen(id) > 200) return false;
  for (const char *p = id; *p; p++)
    if (!((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '-' ||
          *p == '_' || (*p == '.' && p != id)))
      return false;
  return true;
}

static void book_note_flags(Book *b, const char *flags) {
  char one[24];
  for (const char *p = flags; *p;) {
    size_t k = strcspn(p, ", ");
    if (k > 0 && k < sizeof one && strncmp(p, "-", k)) {
      memcpy(one, p, k);
      one[k] = 0;
      int i = 0;
      while (i < b->nflags && strcmp(b->flag_seen[i], one)) i++;
      if (i == b->nflags && b->nflags < 16) snprintf(b->flag_seen[b->nflags++], sizeof one, "%s", one);
    }
    p += k;
    while (*p == ',' || *p == ' ') p++;
  }
}

/* The list page (1-based) of work number n, as a file name. */
static void book_page_name(unsigned long long page, char *out, size_t n) {
  if (page <= 1) snprintf(out, n, "index.html");
  else snprintf(out, n, "page-%04llu.html", page);
}

int book_add(Book *b, const BookWork *w, TsError *err) {
  if (!book_id_ok(w->id)) return ts_error_set(err, TS_ERR_USAGE, "book", 0, 0, "bad work id '%s'", w->id);
  unsigned long long num = b->n + 1, folder = (num - 1) / BOOK_FOLDER_WORKS;
  if (w->length >= b->len_cap) {
    int cap = w->length + 64;
    unsigned long long *c = realloc(b->count_by_len, (size_t)cap * sizeof *c);
    if (!c) return ts_error_set(err, TS_ERR_NOMEM, "book", 0, 0, "out of memory");
    memset(c + b->len_cap, 0, (size_t)(cap - b->len_cap) * sizeof *c);
    b->count_by_len = c;
    b->len_cap = cap;
  }
  char rel[512], path[4096];
  snprintf(rel, sizeof rel, "w/%04llu", folder);
  snprintf(path, sizeof path, "%s/%s", b->dir, rel);
  int rc = (num - 1) % BOOK_FOLDER_WORKS == 0 ? book_mkdir(path, err) : TS_OK;
  if (rc) return rc;

  /* the diagrams are drawn in the page from the SFEN (book.js, the markup of svg.c) */
  Position end = *w->pos;
  for (int i = 0; i < w->line_len; i++) {
    Undo u;
    pos_do_move(&end, w->line[i], &u);
  }
  char sfen[256], end_sfen[256], last[3] = "";
  sfen_write(w->pos, sfen, sizeof sfen);
  sfen_write(&end, end_sfen, sizeof end_sfen);
  if (w->line_len > 0) usi_square_write(move_to(w->line[w->line_len - 1]), last);
  BookFile bf;
  char list_page[64];
  book_page_name((num - 1) / BOOK_PAGE_WORKS + 1, list_page, sizeof list_page);
  snprintf(rel, sizeof rel, "w/%04llu/%s.html", folder, w->id);
  if (!rc) rc = book_file_open(b, rel, &bf, err);
  if (!rc) {
    FILE *f = bf.f;
    bool ok = true;
    fprintf(f, "<!DOCTYPE html>\n<html lang=\"ja\"><head><meta charset=\"utf-8\">\n<title>%s — %llu</title>\n",
            b->title, num);
    fprintf(f, "<link rel=\"stylesheet\" href=\"../../book.css\">\n");
    if (b->player) fprintf(f, "<script src=\"../../player/kifu-for-js.min.js\" charset=\"utf-8\"></script>\n");
    fprintf(f, "</head><body>\n<p><a href=\"../../%s\">%s</a></p>\n", list_page, b->title);
    fprintf(f, "<h1 id=\"work\">No. %llu <small>%s</small></h1>\n", num, w->id);
    fprintf(f, "<table class=\"info\">\n<tr><th>手数</th><td id=\"length\">%d</td></tr>\n", w->length);
    fprintf(f, "<tr><th>flags</th><td>");
    ok &= book_put_text(f, w->flags ? w->flags : "");
    fprintf(f, "</td></tr>\n");
    if (w->verdict) {
      fprintf(f, "<tr><th>完全性</th><td>");
      ok &= book_put_text(f, w->verdict);
      fprintf(f, "</td></tr>\n");
    }
    fprintf(f, "<tr><th>SFEN</th><td><code>");
    ok &= book_put_text(f, sfen);
    fprintf(f, "</code></td></tr>\n</table>\n");
    fprintf(f,
            "<div class=\"diagrams\">\n<figure id=\"diagram\" data-sfen=\"%s\" data-title=\"%s\" data-length=\"%d\">"
            "</figure>\n<figure id=\"final\" data-sfen=\"%s\" data-title=\"詰め上がり\" data-length=\"%d\" data-last=\"%s\" "
            "data-attacker=\"%c\"></figure>\n</div>\n",
            sfen, w->id, w->length, end_sfen, w->length, last, w->pos->side == BLACK ? 'b' : 'w');
    if (b->player) /* book.js gives the KIF below to kifu-for-js, which draws its board and move list here */
      fprintf(f, "<h2>再生</h2>\n<div class=\"player\" id=\"player\" data-kif=\"kif\"></div>\n");
    fprintf(f, "<h2>棋譜 (KIF)</h2>\n<pre class=\"kif\" id=\"kif\">");
    ok &= book_put_text(f, w->kif);
    fprintf(f, "</pre>\n<script src=\"../../book.js\"></script>\n</body></html>\n");
    rc = ok ? book_file_commit(&bf, err) : ts_error_set(err, TS_ERR_NOMEM, "book", 0, 0, "out of memory");
    if (bf.f) {
      fclose(bf.f);
      unlink(bf.tmp);
    }
  }
  if (rc) return rc;

  char att[128], def[128], hand[128];
  book_pieces(w->pos, w->pos->side, att, sizeof att);
  book_pieces(w->pos, color_flip(w->pos->side), def, sizeof def);
  book_hand_text(w->pos->hand[w->pos->side], hand, sizeof hand);
  char flags[256];
  snprintf(flags, sizeof flags, "%s", w->flags && *w->flags ? w->flags : "-");
  for (char *p = flags; *p; p++)
    if (*p == '\t' || *p == '\n' || *p == ',') *p = ' ';
  fprintf(b->rows, "%llu\t%s\t%d\t%s\t攻 %s%s%s・持駒 %s\t%s\n", num, w->id, w->length, flags, *att ? att : "なし",
          *def ? "・受 " : "", def, hand, sfen);
  if (ferror(b->rows)) return book_io_error(err, "temporary file", "write failed");
  book_note_flags(b, flags);
  b->count_by_len[w->length]++;
  b->n = num;
  return TS_OK;
}

/* ---------------------------------------------------------------- list pages */

/* The length histogram of the selection: one bar per length present. */
static void book_histogram(const Book *b, FILE *f) {
  int bars = 0;
  unsigned long long top = 0;
  for (int l = 0; l < b->len_cap; l++)
    if (b->count_by_len[l]) {
      bars++;
      if (b->count_by_len[l] > top) top = b->count_by_len[l];
    }
  if (!bars) return;
  const int BW = 36, H = 160, X0 = 10, Y0 = 24;
  int width = X0 * 2 + bars * BW, height = Y0 + H + 40;
  fprintf(f, "<svg class=\"hist\" id=\"histogram\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
             "viewBox=\"0 0 %d %d\" font-size=\"12\" text-anchor=\"middle\">\n",
          width, height, width, height);
  fprintf(f, "<title>手数別の作品数</title>\n");
  int i = 0;
  for (int l = 0; l < b->len_cap; l++) {
    unsigned long long c = b->count_by_len[l];
    if (!c) continue;
    int h = (int)((double)c / (double)top * H);
    if (h < 1) h = 1;
    int x = X0 + i * BW;
    fprintf(f, "<rect class=\"bar\" data-len=\"%d\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\"><title>%d手: %llu</title></rect>\n",
            l, x + 4, Y0 + H - h, BW - 8, h, l, c);
    fprintf(f, "<text x=\"%d\" y=\"%d\">%llu</text>\n", x + BW / 2, Y0 + H - h - 5, c);
    fprintf(f, "<text x=\"%d\" y=\"%d\">%d手</text>\n", x + BW / 2, Y0 + H + 16, l);
    i++;
  }
  fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#333\"/>\n", X0, Y0 + H, width - X0, Y0 + H);
  fprintf(f, "</svg>\n");
}

static const char BOOK_FILTER_JS[] =
    "<script>\n"
    "(function () {\n"
    "  var len = document.getElementById('f-len'), flag = document.getElementById('f-flag');\n"
    "  var shown = document.getElementById('shown');\n"
    "  var rows = document.querySelectorAll('#works tbody tr');\n"
    "  function apply() {\n"
    "    var n = 0;\n"
    "    for (var i = 0; i < rows.length; i++) {\n"
    "      var r = rows[i];\n"
    "      var ok = (!len.value || r.getAttribute('data-len') === len.value) &&\n"
    "               (!flag.value || (' ' + r.getAttribute('data-flags') + ' ').indexOf(' ' + flag.value + ' ') >= 0);\n"
    "      r.hidden = !ok;\n"
    "      if (ok) n++;\n"
    "    }\n"
    "    shown.textContent = n + ' / ' + rows.length;\n"
    "  }\n"
    "  len.onchange = flag.onchange = apply;\n"
    "  var bars = document.querySelectorAll('#histogram rect.bar');\n"
    "  for (var i = 0; i < bars.length; i++)\n"
    "    bars[i].onclick = function () { len.value = this.getAttribute('data-len'); apply(); };\n"
    "  apply();\n"
    "})();\n"
    "</script>\n";

static void book_pager(FILE *f, unsigned long long page, unsigned long long pages) {
  if (pages <= 1) return;
  char name[64];
  fprintf(f, "<nav class=\"pager\">ページ ");
  for (unsigned long long p = 1; p <= pages; p++) {
    bool near = p == 1 || p == pages || (p + 5 >= page && p <= page + 5);
    if (!near) {
      if (p == 2 || p == page + 6) fprintf(f, "… ");
      continue;
    }
    book_page_name(p, name, sizeof name);
    if (p == page) fprintf(f, "<b>%llu</b>", p);
    else fprintf(f, "<a href=\"%s\">%llu</a>", name, p);
  }
  fprintf(f, "</nav>\n");
}

static int book_list_page(Book *b, unsigned long long page, unsigned long long pages, TsError *err) {
  char name[64];
  book_page_name(page, name, sizeof name);
  BookFile bf;
  int rc = book_file_open(b, name, &bf, err);
  if (rc) return rc;
  FILE *f = bf.f;
  unsigned long long first = (page - 1) * BOOK_PAGE_WORKS + 1;
  unsigned long long last = first + BOOK_PAGE_WORKS - 1 < b->n ? first + BOOK_PAGE_WORKS - 1 : b->n;
  fprintf(f, "<!DOCTYPE html>\n<html lang=\"ja\"><head><meta charset=\"utf-8\">\n<title>%s</title>\n", b->title);
  fprintf(f, "<link rel=\"stylesheet\" href=\"book.css\">\n</head><body>\n<h1>%s</h1>\n", b->title);
  if (*b->selection) fprintf(f, "<p class=\"selection\">%s</p>\n", b->selection);
  fprintf(f, "<p class=\"summary\"><span id=\"total\">%llu</span> 作品", b->n);
  if (pages > 1) fprintf(f, "（このページ %llu–%llu）", first, last);
  fprintf(f, "</p>\n");
  book_histogram(b, f);
  fprintf(f, "<div class=\"filters\">手数 <select id=\"f-len\"><option value=\"\">すべて</option>");
  for (int l = 0; l < b->len_cap; l++)
    if (b->count_by_len[l]) fprintf(f, "<option value=\"%d\">%d手</option>", l, l);
  fprintf(f, "</select>flag <select id=\"f-flag\"><option value=\"\">すべて</option>");
  for (int i = 0; i < b->nflags; i++) fprintf(f, "<option>%s</option>", b->flag_seen[i]);
  fprintf(f, "</select>表示 <span id=\"shown\"></span>%s</div>\n",
          pages > 1 ? "（絞り込みはこのページの作品に）" : "");
  book_pager(f, page, pages);
  fprintf(f, "<table class=\"works\" id=\"works\">\n<thead><tr><th>No.</th><th>図</th><th>手数</th><th>flags</th>"
             "<th>駒</th></tr></thead>\n<tbody>\n");
  char line[2048];
  for (unsigned long long k = first; k <= last; k++) {
    if (!fgets(line, sizeof line, b->rows)) {
      fclose(f);
      unlink(bf.tmp);
      return book_io_error(err, "temporary file", "read failed");
    }
    line[strcspn(line, "\n")] = 0;
    char *save = NULL, *num = strtok_r(line, "\t", &save), *id = strtok_r(NULL, "\t", &save);
    char *len = strtok_r(NULL, "\t", &save), *flags = strtok_r(NULL, "\t", &save), *pieces = strtok_r(NULL, "\t", &save);
    char *sfen = strtok_r(NULL, "\t", &save);
    if (!sfen) continue;
    unsigned long long folder = (strtoull(num, NULL, 10) - 1) / BOOK_FOLDER_WORKS;
    fprintf(f, "<tr data-len=\"%s\" data-flags=\"%s\"><td><a href=\"w/%04llu/%s.html\">%s</a></td>", len, flags,
            folder, id, num);
    fprintf(f, "<td><a href=\"w/%04llu/%s.html\" class=\"dg\" aria-label=\"%s\" data-sfen=\"%s\"></a></td>", folder, id,
            id, sfen);
    fprintf(f, "<td>%s</td><td>%s</td><td>%s</td></tr>\n", len, flags, pieces);
  }
  fprintf(f, "</tbody></table>\n");
  book_pager(f, page, pages);
  fputs(BOOK_FILTER_JS, f);
  fprintf(f, "<script src=\"book.js\"></script>\n");
  fprintf(f, "</body></html>\n");
  return book_file_commit(&bf, err);
}

/* The staging folder becomes the target: renamed when the target is absent,
 * exchanged with it in one step when it exists (the old book then removed),
 * else the old one moved aside first. */
static int book_publish(Book *b, TsError *err) {
  struct stat st;
  if (lstat(b->target, &st) != 0) {
    if (rename(b->dir, b->target) != 0) return book_io_error(err, b->target, "cannot rename the book into place");
    return TS_OK;
  }
  if (!S_ISDIR(st.st_mode)) {
    errno = ENOTDIR;
    return book_io_error(err, b->target, "cannot replace");
  }
  if (renameat2(AT_FDCWD, b->dir, AT_FDCWD, b->target, RENAME_EXCHANGE) == 0) {
    book_remove_tree(b->dir); /* the old book, now under the staging name */
    return TS_OK;
  }
  char *old = book_staging_make(b->target);
  if (!old) return book_io_error(err, b->target, "cannot create a folder beside it");
  rmdir(old);
  if (rename(b->target, old) != 0) {
    int rc = book_io_error(err, b->target, "cannot move the old book aside");
    free(old);
    return rc;
  }
  if (rename(b->dir, b->target) != 0) {
    int rc = book_io_error(err, b->target, "cannot rename the book into place");
    if (rename(old, b->target) != 0) { /* the old book stays under its temporary name */
    }
    free(old);
    return rc;
  }
  book_remove_tree(old);
  free(old);
  return TS_OK;
}

int book_close(Book *b, TsError *err) {
  int rc = TS_OK;
  BookFile bf;
  rc = book_file_open(b, "book.css", &bf, err);
  if (!rc) {
    fputs(BOOK_CSS, bf.f);
    rc = book_file_commit(&bf, err);
  }
  if (!rc) rc = book_file_open(b, "book.js", &bf, err);
  if (!rc) {
    fputs(BOOK_JS, bf.f);
    rc = book_file_commit(&bf, err);
  }
  if (!rc && fflush(b->rows) != 0) rc = book_io_error(err, "temporary file", "write failed");
  if (!rc) rewind(b->rows);
  unsigned long long pages = b->n ? (b->n + BOOK_PAGE_WORKS - 1) / BOOK_PAGE_WORKS : 1;
  for (unsigned long long p = 1; p <= pages && !rc; p++) rc = book_list_page(b, p, pages, err);
  if (!rc) rc = book_file_open(b, BOOK_MARKER, &bf, err);
  if (!rc) {
    fputs(BOOK_MARKER_TEXT "\nThis folder was written by tsume export --html; a later export may replace it whole.\n",
          bf.f);
    rc = book_file_commit(&bf, err);
  }
  if (!rc) rc = book_publish(b, err);
  if (rc) {
    book_abort(b);
    return rc;
  }
  book_free(b);
  return TS_OK;
}
