/*
 * svg.h - the traditional 詰将棋 diagram (図面) of a position as a
 * self-contained SVG image (UTF-8 text, no external files).
 *
 * Drawn as magazines print it: a 9x9 grid with the files ９…１ across the top
 * and the ranks 一…九 down the right, one kanji per piece, the pieces of the
 * side not to move (the defender, 玉方) turned upside down, the attacker's
 * hand written vertically on the right ("持駒" then the pieces, or "なし"),
 * the defender's on the left ("玉方持駒" then "残り全部" when it holds every
 * piece that is elsewhere neither on the board nor in the attacker's hand),
 * and an optional title and length ("N手詰") under the board. The last move's
 * square can be shaded (for the final position, 詰め上がり).
 *
 * Fonts: the family list names Noto Serif CJK JP / Noto Sans CJK JP (Debian
 * fonts-noto-cjk) first, then the usual Japanese fonts of other systems.
 *
 * Elements carry classes a program can count: 81 `rect.sq`, one `text.pc`
 * per piece with class `b` (sente) or `w` (gote), one `g.hand` per side with
 * `data-side` and `data-count` (the number of pieces in that hand) holding
 * `text.hp` items with `data-piece` (USI letter) and `data-n`.
 *
 * Typical use:
 *   SvgOptions o; svg_options_default(&o); o.title = "第1番"; o.length = 9;
 *   size_t n = svg_diagram_write(&pos, &o, buf, sizeof buf);  // like snprintf
 *   char *s = NULL; if (svg_diagram_alloc(&pos, &o, &s, &n) == TS_OK) ... free(s);
 */
#ifndef TSUME_SVG_H
#define TSUME_SVG_H

#include <stdbool.h>
#include <stddef.h>

#include "position.h"

typedef struct {
  const char *title; /* UTF-8 text under the board (escaped here); NULL or "" for none */
  int length;        /* mate length shown as "N手詰" under the board; 0 for none */
  Move last_move;    /* MOVE_NONE, or a move whose destination square is shaded */
  int width;         /* width attribute in px (the viewBox keeps the proportions); 0 = natural size */
  int attacker;      /* BLACK or WHITE; -1 (default): the side to move. A final position
                      * (the defender to move, mated) sets it to the side not to move. */
} SvgOptions;

void svg_options_default(SvgOptions *o);

/* Writes the SVG of pos into out[0..n) (NUL-terminated when n > 0) and returns
 * the full length, like snprintf: call again with a larger buffer when it is >= n. */
size_t svg_diagram_write(const Position *pos, const SvgOptions *o, char *out, size_t n);

/* The same into a malloc'd string (*out, caller frees; *len its length).
 * TS_OK or TS_ERR_NOMEM. */
int svg_diagram_alloc(const Position *pos, const SvgOptions *o, char **out, size_t *len);

/* s as XML / HTML character data in a malloc'd string (caller frees; NULL when
 * out of memory): &<>"' escaped, control bytes other than tab and line feed and
 * invalid UTF-8 dropped. */
char *svg_xml_escape(const char *s);

#endif
