#include "kif.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kanji.h"
#include "notation_util.h"
#include "sfen.h"

#define CP_FULL_COLON 0xFF1Au
#define CP_IDEO_SPACE 0x3000u
#define CP_MIDDLE_DOT 0x30FBu
#define CP_ONAJI 0x540Cu /* 同 */
#define CP_NARI 0x6210u  /* 成 */
#define CP_UTSU 0x6253u  /* 打 */
#define CP_TE 0x624Bu    /* 手 */

static const char *const SPECIAL_NAME[KIF_SPECIAL_NB] = {
    "", "詰み", "不詰", "投了", "中断", "千日手", "持将棋", "切れ負け", "反則勝ち", "反則負け", "入玉勝ち",
    "不戦勝", "不戦敗"};

const char *kif_special_name(KifSpecial s) { return s > KIF_SPECIAL_NONE && s < KIF_SPECIAL_NB ? SPECIAL_NAME[s] : ""; }

static char *str_dup(const char *s) {
  size_t n = strlen(s);
  char *d = malloc(n + 1);
  if (d) memcpy(d, s, n + 1);
  return d;
}

/* ------------------------------------------------------------------ record */

static KifNode *kif_node_new(KifRecord *rec) {
  if (rec->n_nodes_ == rec->cap_nodes_) {
    int ncap = rec->cap_nodes_ ? rec->cap_nodes_ * 2 : 64;
    KifNode **nn = realloc(rec->nodes_, (size_t)ncap * sizeof *nn);
    if (!nn) return NULL;
    rec->nodes_ = nn;
    rec->cap_nodes_ = ncap;
  }
  KifNode *node = calloc(1, sizeof *node);
  if (!node) return NULL;
  rec->nodes_[rec->n_nodes_++] = node;
  return node;
}

int kif_record_init(KifRecord *rec, const Position *start) {
  memset(rec, 0, sizeof *rec);
  if (start)
    rec->start = *start;
  else
    pos_clear(&rec->start);
  rec->root = kif_node_new(rec);
  if (!rec->root) {
    kif_record_free(rec);
    return TS_ERR_NOMEM;
  }
  return TS_OK;
}

void kif_record_free(KifRecord *rec) {
  for (int i = 0; i < rec->n_nodes_; i++) {
    free(rec->nodes_[i]->comment);
    free(rec->nodes_[i]);
  }
  free(rec->nodes_);
  for (int i = 0; i < rec->n_headers; i++) {
    free(rec->headers[i].key);
    free(rec->headers[i].value);
  }
  free(rec->headers);
  memset(rec, 0, sizeof *rec);
}

int kif_header_add(KifRecord *rec, const char *key, const char *value) {
  if (rec->n_headers == rec->cap_headers_) {
    int ncap = rec->cap_headers_ ? rec->cap_headers_ * 2 : 8;
    KifHeader *nh = realloc(rec->headers, (size_t)ncap * sizeof *nh);
    if (!nh) return TS_ERR_NOMEM;
    rec->headers = nh;
    rec->cap_headers_ = ncap;
  }
  char *k = str_dup(key), *v = str_dup(value);
  if (!k || !v) {
    free(k);
    free(v);
    return TS_ERR_NOMEM;
  }
  rec->headers[rec->n_headers].key = k;
  rec->headers[rec->n_headers].value = v;
  rec->n_headers++;
  return TS_OK;
}

const char *kif_header_get(const KifRecord *rec, const char *key) {
  for (int i = 0; i < rec->n_headers; i++)
    if (strcmp(rec->headers[i].key, key) == 0) return rec->headers[i].value;
  return NULL;
}

int kif_node_add(KifRecord *rec, KifNode *parent, Move m, KifSpecial special, KifNode **out) {
  if (parent->special != KIF_SPECIAL_NONE) return TS_ERR_USAGE;
  KifNode *node = kif_node_new(rec);
  if (!node) return TS_ERR_NOMEM;
  node->move = special == KIF_SPECIAL_NONE ? m : MOVE_NONE;
  node->special = special;
  node->ply = parent->ply + 1;
  node->parent = parent;
  KifNode **link = &parent->child;
  while (*link) link = &(*link)->sibling;
  *link = node;
  if (out) *out = node;
  return TS_OK;
}

int kif_node_set_comment(KifNode *node, const char *text) {
  char *c = NULL;
  if (text && !(c = str_dup(text))) return TS_ERR_NOMEM;
  free(node->comment);
  node->comment = c;
  return TS_OK;
}

int kif_line_add(KifRecord *rec, KifNode *parent, const Move *moves, int n, KifSpecial special, KifNode **last) {
  KifNode *node = parent;
  for (int i = 0; i < n; i++) {
    int rc = kif_node_add(rec, node, moves[i], KIF_SPECIAL_NONE, &node);
    if (rc) return rc;
  }
  if (special != KIF_SPECIAL_NONE) {
    int rc = kif_node_add(rec, node, MOVE_NONE, special, &node);
    if (rc) return rc;
  }
  if (last) *last = node;
  return TS_OK;
}

/* ------------------------------------------------------------- move text */

int kif_move_write(const Position *before, Move m, Move prev, char *out, size_t n) {
  NotationBuf tb;
  notation_buf_init_fixed(&tb, out, n);
  Square to = move_to(m);
  if (prev != MOVE_NONE && move_to(prev) == to) {
    notation_buf_add(&tb, "同　");
  } else {
    notation_buf_add(&tb, kanji_file_digit(sq_file(to)));
    notation_buf_add(&tb, kanji_rank_numeral(sq_rank(to)));
  }
  if (move_is_drop(m)) {
    notation_buf_add(&tb, kanji_piece_move_name(move_drop_type(m)));
    notation_buf_add(&tb, "打");
  } else {
    Square from = move_from(m);
    Piece p = before && before->board[from] ? before->board[from] : move_piece(m);
    notation_buf_add(&tb, kanji_piece_move_name(piece_type(p)));
    if (move_is_promote(m)) notation_buf_add(&tb, "成");
    notation_buf_printf(&tb, "(%d%d)", sq_file(from), sq_rank(from));
  }
  return (int)tb.len;
}

/* ------------------------------------------------------------------ reader */

/* The text of consecutive '*' lines that belong to one node: ctext[off..off+len). */
typedef struct {
  KifNode *node;
  size_t off, len;
} KifCommentPiece;

typedef struct {
  const char *where;
  TsError *err;
  KifRecord *rec;
  /* diagram */
  NotationSetup st;
  bool bod, hand_seen[COLOR_NB];
  int rows, remaining, last_bod_line;
  Color side;
  bool handicap_set;
  bool handicap_hirate;
  int handicap_line;
  /* moves */
  bool started;
  int expect_branch; /* number announced by 変化：N手, 0 if none pending */
  int expect_line;
  KifNode **path; /* path[0] = root ... path[depth] = last node of the current line */
  Undo *undo;
  int depth, cap;
  Position cur;
  KifNode *last; /* node the next '*' comment belongs to */
  /* comments: gathered as pieces of one growing text and given to their nodes at
   * the end, so that reading stays linear however long a comment is, and however
   * often a line comes back to a node (変化) to add to its comment */
  char *ctext;
  size_t ctext_len, ctext_cap;
  KifCommentPiece *pieces;
  size_t n_pieces, cap_pieces;
} KifParser;

/* Number of code points of lit matched at s[i..n), or 0. */
static int lit_at(const uint32_t *s, int n, int i, const char *lit) {
  size_t ln = strlen(lit), k = 0;
  int j = i;
  while (k < ln) {
    uint32_t cp;
    int b = kanji_utf8_decode(lit + k, ln - k, &cp);
    if (b < 0 || j >= n || s[j] != cp) return 0;
    k += (size_t)b;
    j++;
  }
  return j - i;
}

static bool is_space_cp(uint32_t c) { return c == ' ' || c == '\t' || c == CP_IDEO_SPACE; }
static bool is_colon_cp(uint32_t c) { return c == ':' || c == CP_FULL_COLON; }

static int skip_spaces(const uint32_t *s, int n, int i) {
  while (i < n && is_space_cp(s[i])) i++;
  return i;
}

/* UTF-8 copy of s[0..n) (malloc'd), NULL on allocation failure. */
static char *cps_to_utf8(const uint32_t *s, int n) {
  char *out = malloc((size_t)n * 4 + 1);
  if (!out) return NULL;
  size_t k = 0;
  for (int i = 0; i < n; i++) k += (size_t)kanji_utf8_encode(s[i], out + k);
  out[k] = 0;
  return out;
}

static int kif_nomem(KifParser *ps, int line) {
  return ts_error_set(ps->err, TS_ERR_NOMEM, ps->where, line, 0, "out of memory");
}

static int kif_path_push(KifParser *ps, KifNode *node, int line) {
  if (ps->depth + 1 >= ps->cap) {
    int ncap = ps->cap ? ps->cap * 2 : 64;
    KifNode **np = realloc(ps->path, (size_t)ncap * sizeof *np);
    if (!np) return kif_nomem(ps, line);
    ps->path = np;
    Undo *nu = realloc(ps->undo, (size_t)ncap * sizeof *nu);
    if (!nu) return kif_nomem(ps, line);
    ps->undo = nu;
    ps->cap = ncap;
  }
  ps->depth++;
  ps->path[ps->depth] = node;
  if (node->special == KIF_SPECIAL_NONE) pos_do_move(&ps->cur, node->move, &ps->undo[ps->depth]);
  ps->last = node;
  return TS_OK;
}

static void kif_path_pop(KifParser *ps) {
  KifNode *node = ps->path[ps->depth];
  if (node->special == KIF_SPECIAL_NONE) pos_undo_move(&ps->cur, node->move, &ps->undo[ps->depth]);
  ps->depth--;
}

/* Sets up the start position once the diagram (or its absence) is known. */
static int kif_start(KifParser *ps, int line) {
  if (ps->started) return TS_OK;
  ps->started = true;
  Position pos;
  if (ps->bod) {
    if (ps->rows != 9)
      return ts_error_set(ps->err, TS_ERR_PARSE, ps->where, ps->last_bod_line, 1,
                          "the diagram has %d board rows, not 9", ps->rows);
    /* a tsume diagram without the defender's 持駒 line: the defender holds the rest (残り全部), said in hand_assumed */
    Color defender = color_flip(ps->side);
    if (!ps->hand_seen[defender] && ps->remaining < 0) {
      ps->remaining = defender;
      ps->rec->hand_assumed = true;
    }
    int rc = notation_setup_finish(&ps->st, ps->remaining, ps->side, ps->where, ps->last_bod_line, 1, ps->err);
    if (rc) return rc;
    pos = ps->st.pos;
  } else {
    if (ps->handicap_set && !ps->handicap_hirate)
      return ts_error_set(ps->err, TS_ERR_PARSE, ps->where, ps->handicap_line, 1,
                          "手合割 other than 平手 needs a position diagram");
    int rc = sfen_parse("lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1", &pos, ps->where,
                        ps->err);
    if (rc) return rc;
    pos.side = ps->side;
    pos_finish_setup(&pos);
    rc = pos_validate(&pos, ps->where, ps->err);
    if (rc) {
      if (ps->err) ps->err->line = line, ps->err->column = 1;
      return rc;
    }
  }
  pos.ply = 1;
  ps->rec->start = pos;
  ps->cur = pos;
  return TS_OK;
}

static int kif_hand_parse(KifParser *ps, const uint32_t *s, int n, int i, Color c, int line) {
  if (ps->hand_seen[c])
    return ts_error_set(ps->err, TS_ERR_PARSE, ps->where, line, 1, "%s hand given twice", c == BLACK ? "sente's" : "gote's");
  ps->hand_seen[c] = true;
  i = skip_spaces(s, n, i);
  int k;
  if ((k = lit_at(s, n, i, "なし"))) {
    i = skip_spaces(s, n, i + k);
    if (i < n) return ts_error_set(ps->err, TS_ERR_PARSE, ps->where, line, i + 1, "text after なし");
    return TS_OK;
  }
  if ((k = lit_at(s, n, i, "残り全部")) || (k = lit_at(s, n, i, "残り全て"))) {
    if (ps->remaining >= 0)
      return ts_error_set(ps->err, TS_ERR_PARSE, ps->where, line, i + 1, "残り全部 given for both sides");
    ps->remaining = (int)c;
    i = skip_spaces(s, n, i + k);
    if (i < n) return ts_error_set(ps->err, TS_ERR_PARSE, ps->where, line, i + 1, "text after 残り全部");
    return TS_OK;
  }
  while ((i = skip_spaces(s, n, i)) < n) {
    PieceType t = kanji_piece_from_char(s[i]);
    if (t < PAWN || t > GOLD)
      return ts_error_set(ps->err, TS_ERR_PARSE, ps->where, line, i + 1, "bad piece in hand");
    int col = i + 1, count = 1;
    i++;
    k = kanji_number_parse(s + i, n - i, &count);
    if (k < 0) return ts_error_set(ps->err, TS_ERR_PARSE, ps->where, line, i + 1, "bad kanji numeral");
    if (k == 0) count = 1;
    i += k;
    int rc = notation_setup_hand_add(&ps->st, c, t, count, ps->where, line, col, ps->err);
    if (rc) return rc;
  }
  return TS_OK;
}

static int kif_row_parse(KifParser *ps, const uint32_t *s, int n, int line) {
  int rank = ps->rows + 1;
  if (rank > 9) return ts_error_set(ps->err, TS_ERR_PARSE, ps->where, line, 1, "more than 9 board rows");
  for (int x = 0; x < 9; x++) {
    int oi = 2 * x + 1, pi = 2 * x + 2;
    if (pi >= n)
      return ts_error_set(ps->err, TS_ERR_PARSE, ps->where, line, n + 1, "board row truncated: %d of 9 squares", x);
    if (s[pi] == CP_MIDDLE_DOT) continue;
    PieceType t = kanji_piece_from_char(s[pi]);
    if (t == PT_NONE) return ts_error_set(ps->err, TS_ERR_PARSE, ps->where, line, pi + 1, "bad piece character");
    Color c;
    if (s[oi] == ' ')
      c = BLACK;
    else if (s[oi] == 'v' || s[oi] == 'V')
      c = WHITE;
    else
      return ts_error_set(ps->err, TS_ERR_PARSE, ps->where, line, oi + 1, "bad owner mark (' ' or 'v')");
    int rc = notation_setup_put(&ps->st, sq_make(9 - x, rank), piece_make(c, t), ps->where, line, pi + 1, ps->err);
    if (rc) return rc;
  }
  if (n < 20 || s[19] != '|') return ts_error_set(ps->err, TS_ERR_PARSE, ps->where, line, 20, "expected '|' after 9 squares");
  if (n > 20) {
    int r = 0;
    if (kanji_number_parse(s + 20, 1, &r) == 1 && r != rank)
      return ts_error_set(ps->err, TS_ERR_PARSE, ps->where, line, 21, "row of rank %d where rank %d was expected", r,
                          rank);
  }
  ps->rows++;
  return TS_OK;
}

/* Finds or makes the child of parent for (m, special) and makes it current. */
static int kif_child_push(KifParser *ps, KifNode *parent, Move m, KifSpecial sp, int line) {
  for (KifNode *c = parent->child; c; c = c->sibling)
    if (c->special == sp && (sp != KIF_SPECIAL_NONE || c->move == m)) return kif_path_push(ps, c, line);
  KifNode *node;
  int rc = kif_node_add(ps->rec, parent, m, sp, &node);
  if (rc) return kif_nomem(ps, line);
  return kif_path_push(ps, node, line);
}

/* Move text s[i..n) played from ps->cur after parent. */
static int kif_move_text_parse(KifParser *ps, const uint32_t *s, int n, int i, KifNode *parent, int line) {
  int start = i;
  Square to;
  if (i < n && ((s[i] >= 0xFF11 && s[i] <= 0xFF19) || (s[i] >= '1' && s[i] <= '9'))) {
    int file = s[i] >= 0xFF11 ? (int)(s[i] - 0xFF10) : (int)(s[i] - '0');
    int rank = 0;
    if (i + 1 >= n || kanji_number_parse(s + i + 1, 1, &rank) != 1 || rank > 9)
      return ts_error_set(ps->err, TS_ERR_PARSE, ps->where, line, i + 2, "bad rank (一..九)");
    to = sq_make(file, rank);
    i += 2;
  } else if (i < n && s[i] == CP_ONAJI) {
    if (parent->special != KIF_SPECIAL_NONE || parent->move == MOVE_NONE)
      return ts_error_set(ps->err, TS_ERR_PARSE, ps->where, line, i + 1, "同 without a previous move");
    to = move_to(parent->move);
    i = skip_spaces(s, n, i + 1);
  } else {
    return ts_error_set(ps->err, TS_ERR_PARSE, ps->where, line, i + 1, "expected a square (１一..９九) or 同");
  }
  PieceType t = PT_NONE;
  if (i + 1 < n && s[i] == CP_NARI) t = kanji_piece_from_char(s[i + 1]);
  if (t == SILVER || t == KNIGHT || t == LANCE) {
    t = pt_promote(t);
    i += 2;
  } else {
    t = i < n ? kanji_piece_from_char(s[i]) : PT_NONE;
    if (t == PT_NONE) return ts_error_set(ps->err, TS_ERR_PARSE, ps->where, line, i + 1, "bad piece name");
    i++;
  }
  while (i < n && s[i] == CP_IDEO_SPACE) i++;
  bool promote = false;
  int k;
  if ((k = lit_at(s, n, i, "不成"))) {
    i += k;
  } else if (i < n && s[i] == CP_NARI) {
    promote = true;
    i++;
  }
  Color us = ps->cur.side;
  Move m;
  if (i < n && s[i] == CP_UTSU) {
    if (promote || t < PAWN || t > GOLD)
      return ts_error_set(ps->err, TS_ERR_ILLEGAL, ps->where, line, start + 1, "this piece cannot be dropped");
    m = move_make_drop(t, to, us);
  } else if (i + 3 < n && s[i] == '(' && s[i + 1] >= '1' && s[i + 1] <= '9' && s[i + 2] >= '1' && s[i + 2] <= '9' &&
             s[i + 3] == ')') {
    Square from = sq_make((int)(s[i + 1] - '0'), (int)(s[i + 2] - '0'));
    Piece p = ps->cur.board[from];
    if (!p || piece_color(p) != us)
      return ts_error_set(ps->err, TS_ERR_ILLEGAL, ps->where, line, i + 1, "no %s piece on %d%d",
                          us == BLACK ? "sente" : "gote", sq_file(from), sq_rank(from));
    if (piece_type(p) != t)
      return ts_error_set(ps->err, TS_ERR_ILLEGAL, ps->where, line, start + 1, "the piece on %d%d is %s, not %s",
                          sq_file(from), sq_rank(from), kanji_piece_move_name(piece_type(p)),
                          kanji_piece_move_name(t));
    if (promote && !pt_can_promote(t))
      return ts_error_set(ps->err, TS_ERR_ILLEGAL, ps->where, line, start + 1, "%s cannot promote",
                          kanji_piece_move_name(t));
    m = move_make(from, to, promote, p);
  } else {
    return ts_error_set(ps->err, TS_ERR_PARSE, ps->where, line, i + 1, "expected 打 or (from square)");
  }
  if (!pos_move_is_legal(&ps->cur, m)) {
    char text[KIF_MOVE_MAX];
    kif_move_write(&ps->cur, m, parent->move, text, sizeof text);
    return ts_error_set(ps->err, TS_ERR_ILLEGAL, ps->where, line, start + 1, "illegal move %s%s", text,
                        notation_past_mate(&ps->cur));
  }
  return kif_child_push(ps, parent, m, KIF_SPECIAL_NONE, line);
}

/* "N <move or special> [time]" with the number at s[i..). */
static int kif_move_line_parse(KifParser *ps, const uint32_t *s, int n, int i, int line) {
  int num_col = i + 1;
  long number = 0;
  while (i < n && s[i] >= '0' && s[i] <= '9') {
    if (number < 100000) number = number * 10 + (long)(s[i] - '0');
    i++;
  }
  i = skip_spaces(s, n, i);
  int rc = kif_start(ps, line);
  if (rc) return rc;
  if (ps->expect_branch && number != ps->expect_branch)
    return ts_error_set(ps->err, TS_ERR_PARSE, ps->where, line, num_col, "変化：%d手 (line %d) is followed by move %ld",
                        ps->expect_branch, ps->expect_line, number);
  int branch_line = ps->expect_branch ? ps->expect_line : 0;
  ps->expect_branch = 0;
  if (number < 1 || number - 1 > ps->depth) {
    /* the moves of the line read last (a special move such as 詰み is no move) */
    int moves = ps->depth - (ps->path[ps->depth]->special != KIF_SPECIAL_NONE);
    bool main_line = true;
    for (int d = 1; d <= ps->depth; d++) main_line &= ps->path[d - 1]->child == ps->path[d];
    if (branch_line && number > 0)
      return ts_error_set(ps->err, TS_ERR_PARSE, ps->where, line, num_col,
                          "変化：%ld手 (line %d) branches at move %ld, but the %s has %d move%s", number, branch_line,
                          number, main_line ? "main line" : "line before it", moves, moves == 1 ? "" : "s");
    return ts_error_set(ps->err, TS_ERR_PARSE, ps->where, line, num_col,
                        "move %ld does not follow move %d of its line (the %s has %d move%s)", number, ps->depth,
                        main_line ? "main line" : "line", moves, moves == 1 ? "" : "s");
  }
  while (ps->depth > number - 1) kif_path_pop(ps);
  KifNode *parent = ps->path[ps->depth];
  if (parent->special != KIF_SPECIAL_NONE)
    return ts_error_set(ps->err, TS_ERR_PARSE, ps->where, line, num_col, "move after %s",
                        kif_special_name(parent->special));
  if (i < n && (s[i] == 0x25B2 || s[i] == 0x25B3 || s[i] == 0x25BC || s[i] == 0x25BD || s[i] == 0x2617 ||
                s[i] == 0x2616))
    i++;
  /* special moves: longest word first (詰み before 詰) */
  for (int sp = 1; sp < KIF_SPECIAL_NB; sp++)
    if (lit_at(s, n, i, SPECIAL_NAME[sp])) return kif_child_push(ps, parent, MOVE_NONE, (KifSpecial)sp, line);
  if (lit_at(s, n, i, "詰")) return kif_child_push(ps, parent, MOVE_NONE, KIF_SPECIAL_MATE, line);
  return kif_move_text_parse(ps, s, n, i, parent, line);
}

/* Room for `more` bytes in ps->ctext (grown geometrically). */
static bool kif_ctext_reserve(KifParser *ps, size_t more) {
  if (ps->ctext_cap - ps->ctext_len >= more) return true;
  size_t ncap = ps->ctext_cap ? ps->ctext_cap : 4096;
  while (ncap - ps->ctext_len < more) ncap *= 2;
  char *nt = realloc(ps->ctext, ncap);
  if (!nt) return false;
  ps->ctext = nt;
  ps->ctext_cap = ncap;
  return true;
}

static int kif_comment_add(KifParser *ps, const uint32_t *s, int n, int line) {
  KifCommentPiece *last = ps->n_pieces ? &ps->pieces[ps->n_pieces - 1] : NULL;
  bool extend = last && last->node == ps->last;
  if (!extend && ps->n_pieces == ps->cap_pieces) {
    size_t ncap = ps->cap_pieces ? ps->cap_pieces * 2 : 16;
    KifCommentPiece *np = realloc(ps->pieces, ncap * sizeof *np);
    if (!np) return kif_nomem(ps, line);
    ps->pieces = np;
    ps->cap_pieces = ncap;
  }
  if (!kif_ctext_reserve(ps, (size_t)n * 4 + 1)) return kif_nomem(ps, line);
  if (extend)
    ps->ctext[ps->ctext_len++] = '\n';
  else
    ps->pieces[ps->n_pieces++] = (KifCommentPiece){ps->last, ps->ctext_len, 0};
  size_t start = ps->ctext_len;
  for (int i = 0; i < n; i++) ps->ctext_len += (size_t)kanji_utf8_encode(s[i], ps->ctext + ps->ctext_len);
  ps->pieces[ps->n_pieces - 1].len += ps->ctext_len - start + (extend ? 1 : 0);
  return TS_OK;
}

static int kif_piece_cmp(const void *a, const void *b) {
  const KifCommentPiece *x = a, *y = b;
  uintptr_t nx = (uintptr_t)x->node, ny = (uintptr_t)y->node;
  if (nx != ny) return nx < ny ? -1 : 1;
  return x->off < y->off ? -1 : x->off > y->off;
}

/* Gives every node the text of its pieces, in file order, joined by '\n'. */
static int kif_comments_finish(KifParser *ps) {
  if (ps->n_pieces > 1) qsort(ps->pieces, ps->n_pieces, sizeof *ps->pieces, kif_piece_cmp);
  for (size_t i = 0; i < ps->n_pieces;) {
    size_t j = i + 1, total = ps->pieces[i].len + 1;
    for (; j < ps->n_pieces && ps->pieces[j].node == ps->pieces[i].node; j++) total += ps->pieces[j].len + 1;
    char *text = malloc(total);
    if (!text) return ts_error_set(ps->err, TS_ERR_NOMEM, ps->where, 0, 0, "out of memory");
    size_t k = 0;
    for (size_t q = i; q < j; q++) {
      if (q > i) text[k++] = '\n';
      memcpy(text + k, ps->ctext + ps->pieces[q].off, ps->pieces[q].len);
      k += ps->pieces[q].len;
    }
    text[k] = 0;
    ps->pieces[i].node->comment = text;
    i = j;
  }
  return TS_OK;
}

static int kif_bod_line_check(KifParser *ps, int line) {
  if (ps->started) return ts_error_set(ps->err, TS_ERR_PARSE, ps->where, line, 1, "position diagram after the moves");
  ps->bod = true;
  ps->last_bod_line = line;
  return TS_OK;
}

static int kif_line_parse(KifParser *ps, const uint32_t *s, int n, int line) {
  int k, rc;
  if (n == 0 || s[0] == '#') return TS_OK;
  if ((k = lit_at(s, n, 0, "手合割")) && k < n && is_colon_cp(s[k])) {
    int a = k + 1, b = n;
    while (b > a && is_space_cp(s[b - 1])) b--;
    ps->handicap_set = true;
    ps->handicap_line = line;
    ps->handicap_hirate = b - a == 2 && lit_at(s, b, a, "平手") == 2;
    return TS_OK;
  }
  if (((k = lit_at(s, n, 0, "先手の持駒")) || (k = lit_at(s, n, 0, "下手の持駒"))) && k < n && is_colon_cp(s[k])) {
    if ((rc = kif_bod_line_check(ps, line))) return rc;
    return kif_hand_parse(ps, s, n, k + 1, BLACK, line);
  }
  if (((k = lit_at(s, n, 0, "後手の持駒")) || (k = lit_at(s, n, 0, "上手の持駒"))) && k < n && is_colon_cp(s[k])) {
    if ((rc = kif_bod_line_check(ps, line))) return rc;
    return kif_hand_parse(ps, s, n, k + 1, WHITE, line);
  }
  if (s[0] == '|') {
    if ((rc = kif_bod_line_check(ps, line))) return rc;
    return kif_row_parse(ps, s, n, line);
  }
  if (lit_at(s, n, 0, "先手番") || lit_at(s, n, 0, "下手番") || lit_at(s, n, 0, "後手番") || lit_at(s, n, 0, "上手番")) {
    if (ps->started) return ts_error_set(ps->err, TS_ERR_PARSE, ps->where, line, 1, "side to move after the moves");
    ps->side = (s[0] == 0x5148 /* 先 */ || s[0] == 0x4E0B /* 下 */) ? BLACK : WHITE;
    return TS_OK;
  }
  int i = 0;
  while (i < n && s[i] == ' ') i++;
  int d = i;
  while (i < n && s[i] >= '0' && s[i] <= '9') i++;
  if (i > d && i < n && s[i] == ' ') return kif_move_line_parse(ps, s, n, d, line);
  i = skip_spaces(s, n, 0);
  if (i < n && (s[i] == 0x25B2 || s[i] == 0x25B3 || s[i] == 0x25BC || s[i] == 0x25BD || s[i] == 0x2617 ||
                s[i] == 0x2616))
    return ts_error_set(ps->err, TS_ERR_PARSE, ps->where, line, i + 1, "KI2 move lines are not read (KIF expected)");
  if ((k = lit_at(s, n, i, "変化")) && i + k < n && is_colon_cp(s[i + k])) {
    int j = skip_spaces(s, n, i + k + 1);
    long num = 0;
    int d0 = j;
    while (j < n && s[j] >= '0' && s[j] <= '9') {
      if (num < 100000) num = num * 10 + (long)(s[j] - '0');
      j++;
    }
    if (j == d0 || j >= n || s[j] != CP_TE || num < 1)
      return ts_error_set(ps->err, TS_ERR_PARSE, ps->where, line, j + 1, "expected 変化：N手");
    if ((rc = kif_start(ps, line))) return rc;
    ps->expect_branch = (int)num;
    ps->expect_line = line;
    return TS_OK;
  }
  if (s[0] == '*') return kif_comment_add(ps, s + 1, n - 1, line);
  if (s[0] == '&' || lit_at(s, n, 0, "まで")) return TS_OK;
  for (k = 0; k < n && s[k] != ' ' && !is_colon_cp(s[k]); k++) {
  }
  if (k > 0 && k < n && is_colon_cp(s[k])) {
    bool players = (k == 2 && (lit_at(s, n, 0, "先手") || lit_at(s, n, 0, "後手")));
    if (players && k + 1 == n) return TS_OK; /* empty 先手：/後手： are not stored */
    char *key = cps_to_utf8(s, k), *value = cps_to_utf8(s + k + 1, n - k - 1);
    rc = key && value ? kif_header_add(ps->rec, key, value) : TS_ERR_NOMEM;
    free(key);
    free(value);
    if (rc) return kif_nomem(ps, line);
    return TS_OK;
  }
  return TS_OK; /* column header, borders, 手数---- line, anything else */
}

/* Line and column (in characters) of byte offset `bad` of text in the given encoding. */
static void kif_locate(const char *text, size_t bad, bool cp932, int *line, int *column) {
  int ln = 1;
  size_t start = 0;
  for (size_t i = 0; i < bad; i++)
    if (text[i] == '\n' || (text[i] == '\r' && (i + 1 >= bad || text[i + 1] != '\n'))) ln++, start = i + 1;
  int col = 1;
  size_t i = start;
  if (ln == 1 && !cp932 && bad >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0) i = 3;
  while (i < bad) {
    unsigned char c = (unsigned char)text[i];
    size_t step = 1;
    if (cp932) {
      if ((c >= 0x81 && c <= 0x9F) || (c >= 0xE0 && c <= 0xFC)) step = 2;
    } else {
      uint32_t cp;
      int b = kanji_utf8_decode(text + i, bad - i, &cp);
      step = b > 0 ? (size_t)b : 1;
    }
    i += step;
    col++;
  }
  *line = ln;
  *column = col;
}

/* Encoding named by the "#KIF ... encoding=X" first line, or KIF_ENC_AUTO. */
static KifEncoding kif_declared_encoding(const char *b, size_t len) {
  size_t e = 0;
  while (e < len && b[e] != '\n' && b[e] != '\r') e++;
  if (e < 4 || memcmp(b, "#KIF", 4) != 0) return KIF_ENC_AUTO;
  static const char key[] = "encoding=";
  for (size_t i = 4; i + sizeof key - 1 <= e; i++) {
    if (memcmp(b + i, key, sizeof key - 1) != 0) continue;
    size_t v = i + sizeof key - 1, w = v;
    while (w < e && b[w] != ' ' && b[w] != '\r' && b[w] != '\t') w++;
    char name[24];
    size_t k = 0;
    for (size_t j = v; j < w && k < sizeof name - 1; j++) {
      char c = b[j];
      if (c >= 'a' && c <= 'z') c = (char)(c - 'a' + 'A');
      if (c == '-' || c == '_') continue;
      name[k++] = c;
    }
    name[k] = 0;
    if (strcmp(name, "UTF8") == 0) return KIF_ENC_UTF8;
    if (strcmp(name, "SHIFTJIS") == 0 || strcmp(name, "SJIS") == 0 || strcmp(name, "CP932") == 0 ||
        strcmp(name, "WINDOWS31J") == 0 || strcmp(name, "MS932") == 0)
      return KIF_ENC_CP932;
    return KIF_ENC_AUTO;
  }
  return KIF_ENC_AUTO;
}

int kif_parse(const char *bytes, size_t len, KifEncoding hint, const char *where, KifRecord *rec, TsError *err) {
  ts_error_clear(err);
  memset(rec, 0, sizeof *rec);
  if (len == 0) return ts_error_set(err, TS_ERR_PARSE, where, 1, 1, "empty file");
  bool bom = len >= 3 && memcmp(bytes, "\xEF\xBB\xBF", 3) == 0;
  KifEncoding enc = kif_declared_encoding(bytes + (bom ? 3 : 0), len - (bom ? 3 : 0));
  if (enc == KIF_ENC_AUTO && bom) enc = KIF_ENC_UTF8;
  if (enc == KIF_ENC_AUTO) enc = hint;
  if (enc == KIF_ENC_AUTO) enc = kanji_utf8_check(bytes, len, NULL) ? KIF_ENC_UTF8 : KIF_ENC_CP932;

  char *conv = NULL;
  const char *text;
  size_t tlen;
  if (enc == KIF_ENC_UTF8) {
    size_t bad;
    if (!kanji_utf8_check(bytes, len, &bad)) {
      int l, c;
      kif_locate(bytes, bad, false, &l, &c);
      return ts_error_set(err, TS_ERR_PARSE, where, l, c, "invalid UTF-8 byte 0x%02X", (unsigned char)bytes[bad]);
    }
    text = bytes + (bom ? 3 : 0);
    tlen = len - (bom ? 3 : 0);
  } else {
    size_t bad = 0;
    int rc = kanji_convert("UTF-8", "CP932", bytes, len, &conv, &tlen, &bad);
    if (rc == TS_ERR_PARSE) {
      int l, c;
      kif_locate(bytes, bad, true, &l, &c);
      return ts_error_set(err, TS_ERR_PARSE, where, l, c, "invalid CP932 (Shift_JIS) byte 0x%02X",
                          (unsigned char)bytes[bad]);
    }
    if (rc) return ts_error_set(err, rc, where, 0, 0, "cannot convert from CP932");
    text = conv;
  }

  KifParser ps;
  memset(&ps, 0, sizeof ps);
  ps.where = where;
  ps.err = err;
  ps.rec = rec;
  ps.remaining = -1;
  ps.side = BLACK;
  notation_setup_init(&ps.st);
  uint32_t *cps = NULL; /* the current line in code points: lines are indexed by character */
  size_t cps_cap = 0;
  int rc = kif_record_init(rec, NULL);
  if (rc) {
    free(conv);
    return ts_error_set(err, rc, where, 0, 0, "out of memory");
  }
  ps.cap = 64;
  ps.path = malloc((size_t)ps.cap * sizeof *ps.path);
  ps.undo = malloc((size_t)ps.cap * sizeof *ps.undo);
  if (!ps.path || !ps.undo) {
    rc = ts_error_set(err, TS_ERR_NOMEM, where, 0, 0, "out of memory");
    goto fail;
  }
  ps.path[0] = rec->root;
  ps.last = rec->root;

  bool any = false;
  int line = 0;
  for (size_t i = 0; i < tlen;) {
    size_t next, e = notation_line_next(text, tlen, i, &next);
    line++;
    if (e - i >= (size_t)INT_MAX / 4) {
      rc = ts_error_set(err, TS_ERR_PARSE, where, line, 1, "line too long");
      goto fail;
    }
    if (e - i + 1 > cps_cap) {
      size_t ncap = cps_cap ? cps_cap : 256;
      while (ncap < e - i + 1) ncap *= 2;
      uint32_t *nc = realloc(cps, ncap * sizeof *nc);
      if (!nc) {
        rc = ts_error_set(err, TS_ERR_NOMEM, where, line, 0, "out of memory");
        goto fail;
      }
      cps = nc;
      cps_cap = ncap;
    }
    int n = 0;
    for (size_t q = i; q < e;) {
      uint32_t cp;
      int b = kanji_utf8_decode(text + q, e - q, &cp);
      if (b < 0) b = 1, cp = 0xFFFD; /* cannot happen: checked or converted above */
      if (cp == 0) {
        rc = ts_error_set(err, TS_ERR_PARSE, where, line, n + 1, "NUL character");
        goto fail;
      }
      if (!is_space_cp(cp)) any = true;
      cps[n++] = cp;
      q += (size_t)b;
    }
    rc = kif_line_parse(&ps, cps, n, line);
    if (rc) goto fail;
    i = next;
  }
  if (!any) {
    rc = ts_error_set(err, TS_ERR_PARSE, where, 1, 1, "empty file");
    goto fail;
  }
  if (ps.expect_branch) {
    rc = ts_error_set(err, TS_ERR_PARSE, where, ps.expect_line, 1, "変化：%d手 has no moves", ps.expect_branch);
    goto fail;
  }
  if (!ps.bod && !rec->root->child && !ps.handicap_set) {
    /* Without a diagram, 手合割 or moves nothing says which position is meant:
     * the text is not a KIF record (or its line ends were not read as such). */
    rc = ts_error_set(err, TS_ERR_PARSE, where, 0, 0, "no position diagram, 手合割 or moves: not a KIF record");
    goto fail;
  }
  rc = kif_start(&ps, line);
  if (!rc) rc = kif_comments_finish(&ps);
  if (rc) goto fail;
  free(ps.path);
  free(ps.undo);
  free(ps.ctext);
  free(ps.pieces);
  free(cps);
  free(conv);
  return TS_OK;
fail:
  free(ps.path);
  free(ps.undo);
  free(ps.ctext);
  free(ps.pieces);
  free(cps);
  free(conv);
  kif_record_free(rec);
  return rc;
}

/* ------------------------------------------------------------------ writer */

static void kif_comment_emit(NotationBuf *tb, const char *comment) {
  if (!comment) return;
  const char *p = comment;
  for (;;) {
    const char *nl = strchr(p, '\n');
    notation_buf_add(tb, "*");
    notation_buf_addn(tb, p, nl ? (size_t)(nl - p) : strlen(p));
    notation_buf_add(tb, "\n");
    if (!nl) break;
    p = nl + 1;
  }
}

/* Position before node (replayed from the start). */
static void kif_position_before(const KifRecord *rec, const KifNode *node, Position *pos, KifNode **scratch) {
  int n = 0;
  for (const KifNode *a = node->parent; a && a != rec->root; a = a->parent) scratch[n++] = (KifNode *)a;
  *pos = rec->start;
  Undo u;
  while (n > 0) {
    const KifNode *a = scratch[--n];
    if (a->special == KIF_SPECIAL_NONE) pos_do_move(pos, a->move, &u);
  }
}

/* Prints the line that starts at s (s and its first-child chain); pushes the
 * alternatives met on the way onto stack, shallowest first. */
static int kif_chain_emit(const KifRecord *rec, NotationBuf *tb, KifNode *s, KifNode **scratch, KifNode **stack,
                          int *sp, TsError *err) {
  Position pos;
  kif_position_before(rec, s, &pos, scratch);
  Move prev = s->parent->special == KIF_SPECIAL_NONE ? s->parent->move : MOVE_NONE;
  KifNode *last = s;
  for (KifNode *node = s; node; node = node->child) {
    char text[KIF_MOVE_MAX];
    if (node->special != KIF_SPECIAL_NONE) {
      snprintf(text, sizeof text, "%s", kif_special_name(node->special));
    } else {
      if (!pos_move_is_legal(&pos, node->move)) {
        char usi[8];
        usi_move_write(node->move, usi);
        return ts_error_set(err, TS_ERR_ILLEGAL, "<kif>", 0, 0, "move %d (%s) is not legal", node->ply, usi);
      }
      kif_move_write(&pos, node->move, prev, text, sizeof text);
    }
    int pad = 12 - kanji_display_width(text);
    notation_buf_printf(tb, "%4d %s%*s ( 0:00/00:00:00)%s\n", node->ply, text, pad > 0 ? pad : 0, "",
                   node->sibling ? "+" : "");
    kif_comment_emit(tb, node->comment);
    if (node->special == KIF_SPECIAL_NONE) {
      Undo u;
      pos_do_move(&pos, node->move, &u);
      prev = node->move;
    } else {
      prev = MOVE_NONE;
    }
    last = node;
  }
  if (s == rec->root->child && last->special == KIF_SPECIAL_MATE) notation_buf_printf(tb, "まで%d手で詰み\n", last->ply - 1);
  for (KifNode *node = s; node; node = node->child)
    if (node->sibling) stack[(*sp)++] = node->sibling;
  return TS_OK;
}

static bool kif_is_player_key(const char *key) { return strcmp(key, "先手") == 0 || strcmp(key, "後手") == 0; }

int kif_write(const KifRecord *rec, KifEncoding enc, const char *program, char **out, size_t *len, TsError *err) {
  *out = NULL;
  *len = 0;
  ts_error_clear(err);
  if (enc != KIF_ENC_UTF8 && enc != KIF_ENC_CP932)
    return ts_error_set(err, TS_ERR_USAGE, "<kif>", 0, 0, "kif_write: encoding must be UTF-8 or CP932");
  NotationBuf tb;
  notation_buf_init_dynamic(&tb);
  notation_buf_printf(&tb, "#KIF version=2.0 encoding=%s\n", enc == KIF_ENC_UTF8 ? "UTF-8" : "Shift_JIS");
  if (program) notation_buf_printf(&tb, "# ---- %s 棋譜ファイル ----\n", program);
  for (int i = 0; i < rec->n_headers; i++) {
    const KifHeader *h = &rec->headers[i];
    if (kif_is_player_key(h->key) || strcmp(h->key, "手合割") == 0) continue;
    notation_buf_printf(&tb, "%s：%s\n", h->key, h->value);
  }
  diagram_emit(&tb, &rec->start);
  static const char *const PLAYERS[2] = {"先手", "後手"};
  for (int p = 0; p < 2; p++) {
    int found = 0;
    for (int i = 0; i < rec->n_headers; i++)
      if (strcmp(rec->headers[i].key, PLAYERS[p]) == 0) {
        notation_buf_printf(&tb, "%s：%s\n", PLAYERS[p], rec->headers[i].value);
        found++;
      }
    if (!found) notation_buf_printf(&tb, "%s：\n", PLAYERS[p]);
  }
  notation_buf_add(&tb, "手数----指手---------消費時間--\n");
  kif_comment_emit(&tb, rec->root->comment);

  int rc = TS_OK;
  /* every node is pushed at most once; the deepest line is at most n_nodes long */
  KifNode **scratch = malloc((size_t)(rec->n_nodes_ + 1) * sizeof *scratch);
  KifNode **stack = malloc((size_t)(rec->n_nodes_ + 1) * sizeof *stack);
  if (!scratch || !stack) {
    rc = ts_error_set(err, TS_ERR_NOMEM, "<kif>", 0, 0, "out of memory");
    goto done;
  }
  int sp = 0;
  if (rec->root->child) {
    rc = kif_chain_emit(rec, &tb, rec->root->child, scratch, stack, &sp, err);
    while (rc == TS_OK && sp > 0) {
      KifNode *s = stack[--sp];
      notation_buf_printf(&tb, "\n変化：%d手\n", s->ply);
      rc = kif_chain_emit(rec, &tb, s, scratch, stack, &sp, err);
    }
  }
  if (rc) goto done;
  if (tb.failed) {
    rc = ts_error_set(err, TS_ERR_NOMEM, "<kif>", 0, 0, "out of memory");
    goto done;
  }
  if (enc == KIF_ENC_UTF8) {
    *out = tb.data;
    *len = tb.len;
    tb.data = NULL;
    goto done;
  }
  /* CP932 with CRLF line ends */
  {
    size_t lines = 0;
    for (size_t i = 0; i < tb.len; i++) lines += tb.data[i] == '\n';
    char *crlf = malloc(tb.len + lines + 1);
    if (!crlf) {
      rc = ts_error_set(err, TS_ERR_NOMEM, "<kif>", 0, 0, "out of memory");
      goto done;
    }
    size_t k = 0;
    for (size_t i = 0; i < tb.len; i++) {
      if (tb.data[i] == '\n') crlf[k++] = '\r';
      crlf[k++] = tb.data[i];
    }
    size_t bad = 0;
    rc = kanji_convert("CP932", "UTF-8", crlf, k, out, len, &bad);
    if (rc == TS_ERR_PARSE) {
      int l, c;
      kif_locate(crlf, bad, false, &l, &c);
      ts_error_set(err, rc, "<kif>", l, c, "character not representable in CP932 (Shift_JIS)");
    } else if (rc) {
      ts_error_set(err, rc, "<kif>", 0, 0, "cannot convert to CP932");
    }
    free(crlf);
  }
done:
  free(scratch);
  free(stack);
  free(tb.data);
  return rc;
}
