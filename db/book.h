/*
 * book.h - the HTML book of works written by `tsume export --html DIR`: static
 * pages that work offline from file:// (no server, no CDN).
 *
 *   DIR/index.html, DIR/page-0002.html ...  the list, 500 works a page: number,
 *                        small diagram, length, flags, pieces; a filter by length
 *                        and flag (inline script, over the page's rows) and the
 *                        length histogram of the whole selection as an SVG chart
 *   DIR/w/0000/<id>.html  one page per work (1000 works a folder): the 図面
 *                        and its final position, the KIF with 変化, and a
 *                        move-by-move player (kifu-for-js, when installed)
 *   DIR/book.js          draws every diagram of the pages from its SFEN, in the
 *                        markup of svg.h, and gives the page's KIF to the player
 *                        (db/book.js): a page carries a SFEN, not a drawing, and
 *                        its KIF once
 *   DIR/player/          kifu-for-js's bundle, copied from the directory given
 *   DIR/book.css
 *   DIR/.tsume-book      the marker: its first line is BOOK_MARKER_TEXT
 * The book is built in a staging folder beside DIR (".DIR.tmpXXXXXX") and
 * becomes DIR only at book_close, in one rename (an existing DIR is exchanged
 * with it and then removed): a failed, empty or killed export leaves DIR as it
 * was (a killed one may leave the hidden staging folder). Whether an existing
 * DIR may be replaced is the caller's decision (book_dir_is_book tells a book
 * this program wrote).
 *
 * Typical use:
 *   Book *b; if (book_open(dir, "G2P1図式", "--complete", player_dir, &b, &err)) ...
 *   for each work: BookWork w = {...}; if (book_add(b, &w, &err)) ...
 *   if (nothing added or an error) book_abort(b);          // nothing written
 *   else rc = book_close(b, &err);  // list pages, then DIR; frees b in every case
 */
#ifndef TSUME_BOOK_H
#define TSUME_BOOK_H

#include <stdbool.h>
#include <stddef.h>

#include "error.h"
#include "position.h"

/* Works per list page and per folder of work pages. */
#define BOOK_PAGE_WORKS 500
#define BOOK_FOLDER_WORKS 1000

/* The file that marks a folder as a book of this program, and its first line. */
#define BOOK_MARKER ".tsume-book"
/* db/book.js, compiled in */
extern const char BOOK_JS[];
#define BOOK_MARKER_TEXT "tsume-book 1"

typedef struct {
  const char *id;       /* file name stem, e.g. "G2P1-07-000012" ([A-Za-z0-9._-] only) */
  const Position *pos;  /* the problem */
  int length;           /* mate length */
  const char *flags;    /* flag names separated by commas or spaces ("complete,minimal") */
  const char *verdict;  /* 完全性 text, may be NULL */
  const Move *line;     /* main line, line_len moves */
  int line_len;
  const char *kif;      /* the work as UTF-8 KIF (main line and 変化), NUL-terminated */
} BookWork;

typedef struct Book Book;

/*
 * Creates the staging folder beside DIR (and its folders) and starts a book titled `title` (UTF-8), with
 * `selection` (e.g. the export options) written under the title. player_dir is
 * the kifu-for-js bundle folder (kifu-for-js.min.js and its chunks), copied into
 * DIR/player; NULL or a folder without the bundle: no player (book_has_player).
 * TS_OK, TS_ERR_IO (err names the path) or TS_ERR_NOMEM.
 */
int book_open(const char *dir, const char *title, const char *selection, const char *player_dir, Book **out,
              TsError *err);
/* Adds a work: writes its page and its diagram. TS_OK, TS_ERR_IO, TS_ERR_USAGE (bad id) or TS_ERR_NOMEM. */
int book_add(Book *b, const BookWork *w, TsError *err);
/* Whether the player was copied into the book. */
bool book_has_player(const Book *b);
/* Writes the list pages, the style sheet and the marker, then makes the
 * staging folder DIR (replacing an existing DIR), and frees b (also on error:
 * then the staging folder is removed and DIR left as it was). */
int book_close(Book *b, TsError *err);
/* Removes the staging folder and frees b: nothing is written. */
void book_abort(Book *b);
/* Whether dir holds the marker of a book this program wrote. */
bool book_dir_is_book(const char *dir);

/* Removes path and everything under it (symbolic links are removed, not
 * followed). The KIF export's folder is replaced the same way as a book. */
void book_remove_tree(const char *path);
/* Makes "PARENT/.NAME.tmpXXXXXX" beside dir (trailing slashes ignored) by
 * mkdtemp and returns its path (free it), NULL when it cannot. */
char *book_staging_make(const char *dir);

#endif
