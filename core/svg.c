/*
 * svg.c - the 詰将棋 diagram as SVG (svg.h): layout in user units of one
 * square = 40, drawn in one pass into a NotationBuf.
 */
#include "svg.h"

#include <stdlib.h>
#include <string.h>

#include "kanji.h"
#include "notation_util.h"

enum {
  SQ = 40,                      /* one square */
  LEFT = 44,                    /* column of the defender's hand */
  BX = LEFT + 8,                /* board left edge */
  BY = 36,                      /* board top edge (file labels above it) */
  BW = 9 * SQ,                  /* board width and height */
  RANK_X = BX + BW + 16,        /* centre of the rank labels */
  HAND_X = BX + BW + 46,        /* centre of the attacker's hand column */
  WIDTH = HAND_X + 24,
  CAPTION = 44                  /* height of the title line under the board */
};

static const PieceType HAND_ORDER[7] = {ROOK, BISHOP, GOLD, SILVER, KNIGHT, LANCE, PAWN};
static const char HAND_LETTER[] = "RBGSNLP";

#define FONT_FAMILY "'Noto Serif CJK JP','Noto Sans CJK JP','Source Han Serif JP','Hiragino Mincho ProN','Yu Mincho',serif"

void svg_options_default(SvgOptions *o) {
  memset(o, 0, sizeof *o);
  o->last_move = MOVE_NONE;
  o->attacker = -1;
}

/* Appends s as XML character data (see svg_xml_escape). */
static void svg_text_add(NotationBuf *tb, const char *s) {
  size_t n = strlen(s);
  for (size_t i = 0; i < n;) {
    unsigned char c = (unsigned char)s[i];
    if (c >= 0x80) {
      uint32_t cp;
      int k = kanji_utf8_decode(s + i, n - i, &cp);
      if (k < 0) {
        i++;
        continue;
      }
      notation_buf_addn(tb, s + i, (size_t)k);
      i += (size_t)k;
      continue;
    }
    switch (c) {
    case '&': notation_buf_add(tb, "&amp;"); break;
    case '<': notation_buf_add(tb, "&lt;"); break;
    case '>': notation_buf_add(tb, "&gt;"); break;
    case '"': notation_buf_add(tb, "&quot;"); break;
    case '\'': notation_buf_add(tb, "&#39;"); break;
    default:
      if (c >= 0x20 || c == '\n' || c == '\t') notation_buf_addn(tb, s + i, 1);
    }
    i++;
  }
}

char *svg_xml_escape(const char *s) {
  NotationBuf tb;
  notation_buf_init_dynamic(&tb);
  svg_text_add(&tb, s);
  notation_buf_add(&tb, "");
  if (tb.failed || !tb.data) {
    free(tb.data);
    return NULL;
  }
  return tb.data;
}

/* The UTF-8 characters of s, one per entry of out (each at most 4 bytes + NUL); returns the count. */
static int svg_chars(const char *s, char out[][5], int cap) {
  int k = 0;
  size_t n = strlen(s);
  for (size_t i = 0; i < n && k < cap;) {
    uint32_t cp;
    int len = kanji_utf8_decode(s + i, n - i, &cp);
    if (len < 0) len = 1;
    memcpy(out[k], s + i, (size_t)len);
    out[k][len] = 0;
    k++;
    i += (size_t)len;
  }
  return k;
}

/* Does h hold exactly every piece that is neither on the board nor in the other hand? */
static bool svg_hand_is_rest(const Position *pos, Color c) {
  Position q = *pos;
  q.hand[c] = 0;
  pos_give_remaining(&q, c);
  return q.hand[c] == pos->hand[c] && !hand_empty(pos->hand[c]);
}

/* One hand, written vertically centred on x from the board's top: the label,
 * a gap, then the pieces (kind and kanji count), "なし", or "残り全部". */
static void svg_hand(NotationBuf *tb, const Position *pos, Color c, bool defender, const char *label, int x) {
  Hand h = pos->hand[c];
  bool rest = defender && svg_hand_is_rest(pos, c);
  char lab[8][5];
  int nl = svg_chars(label, lab, 8);
  int total = nl + 1; /* label chars, and a gap of one step */
  char items[7][4][5];
  int nitem[7] = {0};
  for (int k = 0; k < 7; k++) {
    int cnt = hand_count(h, HAND_ORDER[k]);
    if (!cnt || rest) continue;
    nitem[k] = svg_chars(kanji_piece_board_char(HAND_ORDER[k]), items[k], 4);
    if (cnt > 1) {
      char num[16];
      kanji_number_write(cnt, num);
      nitem[k] += svg_chars(num, items[k] + nitem[k], 4 - nitem[k]);
    }
    total += nitem[k];
  }
  if (rest) total += 4;
  else if (hand_empty(h)) total += 2;
  int step = (BW - 8) / total;
  if (step > 24) step = 24;
  int fs = step < 20 ? step : 20;
  int y = BY + step / 2 + 2;
  notation_buf_printf(tb, "<g class=\"hand\" data-side=\"%c\" data-count=\"%d\" font-size=\"%d\">\n",
                      c == BLACK ? 'b' : 'w', hand_total(h), fs);
  notation_buf_add(tb, "<text class=\"hl\" text-anchor=\"middle\" dominant-baseline=\"central\">");
  for (int i = 0; i < nl; i++, y += step) notation_buf_printf(tb, "<tspan x=\"%d\" y=\"%d\">%s</tspan>", x, y, lab[i]);
  notation_buf_add(tb, "</text>\n");
  y += step;
  if (rest || hand_empty(h)) {
    char w[4][5];
    int nw = svg_chars(rest ? "残り全部" : "なし", w, 4);
    notation_buf_add(tb, "<text class=\"hn\" text-anchor=\"middle\" dominant-baseline=\"central\">");
    for (int i = 0; i < nw; i++, y += step) notation_buf_printf(tb, "<tspan x=\"%d\" y=\"%d\">%s</tspan>", x, y, w[i]);
    notation_buf_add(tb, "</text>\n");
  }
  for (int k = 0; k < 7; k++) {
    if (!nitem[k]) continue;
    notation_buf_printf(tb, "<text class=\"hp\" data-piece=\"%c\" data-n=\"%d\" text-anchor=\"middle\" "
                            "dominant-baseline=\"central\">",
                        HAND_LETTER[k], hand_count(h, HAND_ORDER[k]));
    for (int i = 0; i < nitem[k]; i++, y += step)
      notation_buf_printf(tb, "<tspan x=\"%d\" y=\"%d\">%s</tspan>", x, y, items[k][i]);
    notation_buf_add(tb, "</text>\n");
  }
  notation_buf_add(tb, "</g>\n");
}

static void svg_emit(NotationBuf *tb, const Position *pos, const SvgOptions *o) {
  bool caption = (o->title && *o->title) || o->length > 0;
  int height = BY + BW + (caption ? CAPTION : 12);
  notation_buf_add(tb, "<svg xmlns=\"http://www.w3.org/2000/svg\"");
  if (o->width > 0) notation_buf_printf(tb, " width=\"%d\" height=\"%d\"", o->width, o->width * height / WIDTH);
  notation_buf_printf(tb, " viewBox=\"0 0 %d %d\" font-family=\"%s\" class=\"tsume-diagram\">\n", WIDTH, height,
                      FONT_FAMILY);
  notation_buf_printf(tb, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"#fff\"/>\n", WIDTH, height);
  /* squares (the last move's destination shaded), then the outer frame and the four stars */
  Square mark = o->last_move != MOVE_NONE ? move_to(o->last_move) : SQ_NONE;
  notation_buf_add(tb, "<g stroke=\"#000\" stroke-width=\"1\" fill=\"#fff\">\n");
  for (int r = 1; r <= 9; r++)
    for (int f = 9; f >= 1; f--)
      notation_buf_printf(tb, "<rect class=\"sq\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\"%s/>\n", BX + (9 - f) * SQ,
                          BY + (r - 1) * SQ, SQ, SQ, sq_make(f, r) == mark ? " fill=\"#d9d9d9\"" : "");
  notation_buf_add(tb, "</g>\n");
  notation_buf_printf(tb, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#000\" "
                          "stroke-width=\"3\"/>\n",
                      BX, BY, BW, BW);
  for (int i = 0; i < 4; i++)
    notation_buf_printf(tb, "<circle cx=\"%d\" cy=\"%d\" r=\"3\" fill=\"#000\"/>\n", BX + (i & 1 ? 6 : 3) * SQ,
                        BY + (i & 2 ? 6 : 3) * SQ);
  /* labels: files ９…１ over the board, ranks 一…九 on its right */
  notation_buf_add(tb, "<g font-size=\"16\" text-anchor=\"middle\" dominant-baseline=\"central\">\n");
  for (int f = 9; f >= 1; f--)
    notation_buf_printf(tb, "<text x=\"%d\" y=\"%d\">%s</text>\n", BX + (9 - f) * SQ + SQ / 2, BY - 14,
                        kanji_file_digit(f));
  for (int r = 1; r <= 9; r++)
    notation_buf_printf(tb, "<text x=\"%d\" y=\"%d\">%s</text>\n", RANK_X, BY + (r - 1) * SQ + SQ / 2,
                        kanji_rank_numeral(r));
  notation_buf_add(tb, "</g>\n");
  /* pieces: sente upright, gote turned about its square's centre */
  notation_buf_add(tb, "<g font-size=\"30\" text-anchor=\"middle\" dominant-baseline=\"central\">\n");
  for (int r = 1; r <= 9; r++)
    for (int f = 9; f >= 1; f--) {
      Piece p = pos->board[sq_make(f, r)];
      if (!p) continue;
      int cx = BX + (9 - f) * SQ + SQ / 2, cy = BY + (r - 1) * SQ + SQ / 2;
      bool gote = piece_color(p) == WHITE;
      notation_buf_printf(tb, "<text class=\"pc %c\" x=\"%d\" y=\"%d\"", gote ? 'w' : 'b', cx, cy);
      if (gote) notation_buf_printf(tb, " transform=\"rotate(180 %d %d)\"", cx, cy);
      notation_buf_printf(tb, ">%s</text>\n", kanji_piece_board_char(piece_type(p)));
    }
  notation_buf_add(tb, "</g>\n");
  /* hands: the attacker (side to move) on the right, the defender on the left */
  Color att = o->attacker == BLACK || o->attacker == WHITE ? (Color)o->attacker : pos->side;
  svg_hand(tb, pos, att, false, att == BLACK ? "持駒" : "攻方持駒", att == BLACK ? HAND_X : LEFT / 2);
  svg_hand(tb, pos, color_flip(att), true, "玉方持駒", att == BLACK ? LEFT / 2 : HAND_X);
  if (caption) {
    notation_buf_printf(tb, "<text class=\"caption\" x=\"%d\" y=\"%d\" font-size=\"20\" text-anchor=\"middle\">",
                        BX + BW / 2, BY + BW + 32);
    if (o->title && *o->title) svg_text_add(tb, o->title);
    if (o->title && *o->title && o->length > 0) notation_buf_add(tb, "　");
    if (o->length > 0) notation_buf_printf(tb, "%d手詰", o->length);
    notation_buf_add(tb, "</text>\n");
  }
  notation_buf_add(tb, "</svg>\n");
}

size_t svg_diagram_write(const Position *pos, const SvgOptions *o, char *out, size_t n) {
  SvgOptions d;
  if (!o) svg_options_default(&d), o = &d;
  NotationBuf tb;
  notation_buf_init_fixed(&tb, out, n);
  svg_emit(&tb, pos, o);
  return tb.len;
}

int svg_diagram_alloc(const Position *pos, const SvgOptions *o, char **out, size_t *len) {
  SvgOptions d;
  if (!o) svg_options_default(&d), o = &d;
  NotationBuf tb;
  notation_buf_init_dynamic(&tb);
  svg_emit(&tb, pos, o);
  notation_buf_add(&tb, "");
  if (tb.failed || !tb.data) {
    free(tb.data);
    return TS_ERR_NOMEM;
  }
  *out = tb.data;
  if (len) *len = tb.len;
  return TS_OK;
}
