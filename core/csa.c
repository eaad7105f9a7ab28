#include "csa.h"

#include <string.h>

#include "notation_util.h"

static const char *const CSA_CODE[PT_NB] = {"",   "FU", "KY", "KE", "GI", "KA", "HI", "KI",
                                            "OU", "TO", "NY", "NK", "NG", "UM", "RY"};
/* Hand order of the writer: HI KA KI GI KE KY FU. */
static const PieceType CSA_HAND_ORDER[7] = {ROOK, BISHOP, GOLD, SILVER, KNIGHT, LANCE, PAWN};

static PieceType csa_code_parse(const char *s) {
  for (int t = 1; t < PT_NB; t++)
    if (s[0] == CSA_CODE[t][0] && s[1] == CSA_CODE[t][1]) return (PieceType)t;
  return PT_NONE;
}

static int digit_at(const char *s) { return s[0] >= '1' && s[0] <= '9' ? s[0] - '0' : 0; }

typedef struct {
  const char *where;
  TsError *err;
  NotationSetup st;
  bool rows[10];
  int n_rows;
  bool pi;           /* PI seen */
  bool any_position; /* any P line seen */
  int remaining;     /* colour of a 00AL, or -1 */
  bool done;         /* side line read */
  Position cur;      /* position the next move is played from */
  Move *moves;
  int cap, n;
} CsaParser;

/* "P1".."P9": one rank. */
static int csa_row_parse(CsaParser *ps, const char *s, size_t len, int line) {
  int rank = s[1] - '0';
  if (ps->pi) return ts_error_set(ps->err, TS_ERR_PARSE, ps->where, line, 1, "P%d after PI", rank);
  if (ps->rows[rank]) return ts_error_set(ps->err, TS_ERR_PARSE, ps->where, line, 1, "row P%d given twice", rank);
  ps->rows[rank] = true;
  ps->n_rows++;
  for (int i = 0; i < 9; i++) {
    size_t idx = 2 + 3 * (size_t)i;
    if (idx + 1 >= len)
      return ts_error_set(ps->err, TS_ERR_PARSE, ps->where, line, (int)len + 1,
                          "row P%d is truncated: %d of 9 cells", rank, i);
    char c0 = s[idx], c1 = s[idx + 1], c2 = idx + 2 < len ? s[idx + 2] : ' ';
    int col = (int)idx + 1;
    if (c0 == '+' || c0 == '-') {
      char code[2] = {c1, c2};
      PieceType t = csa_code_parse(code);
      if (t == PT_NONE)
        return ts_error_set(ps->err, TS_ERR_PARSE, ps->where, line, col + 1, "bad piece code '%c%c'", c1, c2);
      int rc = notation_setup_put(&ps->st, sq_make(9 - i, rank), piece_make(c0 == '+' ? BLACK : WHITE, t), ps->where,
                         line, col, ps->err);
      if (rc) return rc;
    } else if (!(c0 == ' ' && c1 == '*' && c2 == ' ')) {
      return ts_error_set(ps->err, TS_ERR_PARSE, ps->where, line, col,
                          "bad cell '%c%c%c' (expected +XX, -XX or ' * ')", c0, c1, c2);
    }
  }
  if (len > 29) return ts_error_set(ps->err, TS_ERR_PARSE, ps->where, line, 30, "extra text after 9 cells");
  return TS_OK;
}

/* "PI" + pieces to remove from the hirate position. */
static int csa_pi_parse(CsaParser *ps, const char *s, size_t len, int line) {
  static const char *const HIRATE[9] = {"-KY-KE-GI-KI-OU-KI-GI-KE-KY", " * -HI *  *  *  *  * -KA * ",
                                        "-FU-FU-FU-FU-FU-FU-FU-FU-FU", "",
                                        "",
                                        "",
                                        "+FU+FU+FU+FU+FU+FU+FU+FU+FU", " * +KA *  *  *  *  * +HI * ",
                                        "+KY+KE+GI+KI+OU+KI+GI+KE+KY"};
  if (ps->pi || ps->n_rows)
    return ts_error_set(ps->err, TS_ERR_PARSE, ps->where, line, 1, "PI mixed with another PI or P1..P9");
  ps->pi = true;
  for (int r = 1; r <= 9; r++) {
    const char *row = HIRATE[r - 1];
    if (!row[0]) continue;
    for (int i = 0; i < 9; i++) {
      const char *c = row + 3 * i;
      if (c[0] == ' ') continue;
      int rc = notation_setup_put(&ps->st, sq_make(9 - i, r), piece_make(c[0] == '+' ? BLACK : WHITE, csa_code_parse(c + 1)),
                         ps->where, line, 1, ps->err);
      if (rc) return rc;
    }
  }
  size_t i = 2;
  for (; i + 4 <= len; i += 4) {
    int f = digit_at(s + i), r = digit_at(s + i + 1);
    PieceType t = csa_code_parse(s + i + 2);
    if (!f || !r) return ts_error_set(ps->err, TS_ERR_PARSE, ps->where, line, (int)i + 1, "bad square");
    if (t == PT_NONE)
      return ts_error_set(ps->err, TS_ERR_PARSE, ps->where, line, (int)i + 3, "bad piece code '%.2s'", s + i + 2);
    Square sq = sq_make(f, r);
    Piece p = ps->st.pos.board[sq];
    if (!p || piece_type(p) != t)
      return ts_error_set(ps->err, TS_ERR_PARSE, ps->where, line, (int)i + 1, "PI: no %.2s on %d%d", s + i + 2, f, r);
    pos_remove(&ps->st.pos, sq);
    ps->st.count[pt_demote(t)]--;
  }
  if (i != len) return ts_error_set(ps->err, TS_ERR_PARSE, ps->where, line, (int)i + 1, "truncated PI entry");
  return TS_OK;
}

/* "P+" / "P-" + <sq><piece> entries. */
static int csa_list_parse(CsaParser *ps, const char *s, size_t len, int line) {
  Color c = s[1] == '+' ? BLACK : WHITE;
  size_t i = 2;
  for (; i + 4 <= len; i += 4) {
    int col = (int)i + 1;
    if (s[i] == '0' && s[i + 1] == '0' && s[i + 2] == 'A' && s[i + 3] == 'L') {
      if (ps->remaining >= 0 && ps->remaining != (int)c)
        return ts_error_set(ps->err, TS_ERR_PARSE, ps->where, line, col, "00AL given to both sides");
      ps->remaining = (int)c;
      continue;
    }
    PieceType t = csa_code_parse(s + i + 2);
    if (t == PT_NONE)
      return ts_error_set(ps->err, TS_ERR_PARSE, ps->where, line, col + 2, "bad piece code '%.2s'", s + i + 2);
    int rc;
    if (s[i] == '0' && s[i + 1] == '0') {
      if (t > GOLD)
        return ts_error_set(ps->err, TS_ERR_PARSE, ps->where, line, col + 2, "%.2s cannot be held in hand", s + i + 2);
      rc = notation_setup_hand_add(&ps->st, c, t, 1, ps->where, line, col, ps->err);
    } else {
      int f = digit_at(s + i), r = digit_at(s + i + 1);
      if (!f || !r) return ts_error_set(ps->err, TS_ERR_PARSE, ps->where, line, col, "bad square '%.2s'", s + i);
      rc = notation_setup_put(&ps->st, sq_make(f, r), piece_make(c, t), ps->where, line, col, ps->err);
    }
    if (rc) return rc;
  }
  if (i != len) return ts_error_set(ps->err, TS_ERR_PARSE, ps->where, line, (int)i + 1, "truncated piece entry");
  return TS_OK;
}

static int csa_side_parse(CsaParser *ps, Color side, int line) {
  if (ps->n_rows && ps->n_rows < 9)
    return ts_error_set(ps->err, TS_ERR_PARSE, ps->where, line, 1, "only %d of the rows P1..P9 given", ps->n_rows);
  int rc = notation_setup_finish(&ps->st, ps->remaining, side, ps->where, line, 1, ps->err);
  if (rc) return rc;
  ps->done = true;
  ps->cur = ps->st.pos;
  return TS_OK;
}

/* One move statement "+7776FU" at column col. */
static int csa_move_parse(CsaParser *ps, const char *s, size_t len, int line, int col) {
  if (len != 7)
    return ts_error_set(ps->err, TS_ERR_PARSE, ps->where, line, col, "bad move '%.*s' (expected like +7776FU)",
                        (int)(len > 16 ? 16 : len), s);
  Position *pos = &ps->cur;
  Color c = s[0] == '+' ? BLACK : WHITE;
  int ff = s[1] - '0', fr = s[2] - '0', tf = digit_at(s + 3), tr = digit_at(s + 4);
  PieceType t = csa_code_parse(s + 5);
  bool drop = ff == 0 && fr == 0;
  if (!drop && (!digit_at(s + 1) || !digit_at(s + 2)))
    return ts_error_set(ps->err, TS_ERR_PARSE, ps->where, line, col + 1, "bad square '%.2s'", s + 1);
  if (!tf || !tr) return ts_error_set(ps->err, TS_ERR_PARSE, ps->where, line, col + 3, "bad square '%.2s'", s + 3);
  if (t == PT_NONE)
    return ts_error_set(ps->err, TS_ERR_PARSE, ps->where, line, col + 5, "bad piece code '%.2s'", s + 5);
  if (c != pos->side)
    return ts_error_set(ps->err, TS_ERR_ILLEGAL, ps->where, line, col, "%s is not the side to move",
                        c == BLACK ? "sente" : "gote");
  Square to = sq_make(tf, tr);
  Move m;
  if (drop) {
    if (t > GOLD) return ts_error_set(ps->err, TS_ERR_ILLEGAL, ps->where, line, col, "%.2s cannot be dropped", s + 5);
    m = move_make_drop(t, to, c);
  } else {
    Square from = sq_make(ff, fr);
    Piece p = pos->board[from];
    if (!p || piece_color(p) != c)
      return ts_error_set(ps->err, TS_ERR_ILLEGAL, ps->where, line, col, "no %s piece on %d%d",
                          c == BLACK ? "sente" : "gote", ff, fr);
    PieceType t0 = piece_type(p);
    bool promote;
    if (t == t0)
      promote = false;
    else if (pt_can_promote(t0) && pt_promote(t0) == t)
      promote = true;
    else
      return ts_error_set(ps->err, TS_ERR_ILLEGAL, ps->where, line, col + 5, "the piece on %d%d is %s, not %.2s",
                          ff, fr, CSA_CODE[t0], s + 5);
    m = move_make(from, to, promote, p);
  }
  if (!pos_move_is_legal(pos, m))
    return ts_error_set(ps->err, TS_ERR_ILLEGAL, ps->where, line, col, "illegal move %.7s%s", s,
                        notation_past_mate(pos));
  if (ps->moves) {
    if (ps->n >= ps->cap)
      return ts_error_set(ps->err, TS_ERR_PARSE, ps->where, line, col, "a line longer than %d moves (the most one may have)", ps->cap);
    ps->moves[ps->n] = m;
  }
  ps->n++;
  Undo u;
  pos_do_move(pos, m, &u);
  return TS_OK;
}

/* A statement of a move line: a move, a time or a special word. */
static int csa_statement_parse(CsaParser *ps, const char *s, size_t len, int line, int col) {
  while (len && (s[len - 1] == ' ' || s[len - 1] == '\t')) len--;
  if (len == 0 || s[0] == 'T' || s[0] == '%' || s[0] == '\'') return TS_OK;
  if (len == 1) { /* side line */
    if (ps->done) return ts_error_set(ps->err, TS_ERR_PARSE, ps->where, line, col, "second side-to-move line");
    return csa_side_parse(ps, s[0] == '+' ? BLACK : WHITE, line);
  }
  if (!ps->done)
    return ts_error_set(ps->err, TS_ERR_PARSE, ps->where, line, col, "move before the side-to-move line");
  return csa_move_parse(ps, s, len, line, col);
}

static int csa_line_parse(CsaParser *ps, const char *s, size_t len, int line) {
  if (len == 0 || s[0] == '\'' || s[0] == 'V' || s[0] == 'N' || s[0] == '$') return TS_OK;
  if (s[0] == 'P') {
    if (ps->done) return ts_error_set(ps->err, TS_ERR_PARSE, ps->where, line, 1, "position line after the side line");
    ps->any_position = true;
    char k = len > 1 ? s[1] : 0;
    if (k >= '1' && k <= '9') return csa_row_parse(ps, s, len, line);
    if (k == 'I') return csa_pi_parse(ps, s, len, line);
    if (k == '+' || k == '-') return csa_list_parse(ps, s, len, line);
    return ts_error_set(ps->err, TS_ERR_PARSE, ps->where, line, 2, "unknown P line (P1..P9, PI, P+, P-)");
  }
  if (s[0] == '+' || s[0] == '-' || s[0] == 'T' || s[0] == '%') {
    size_t i = 0;
    while (i <= len) {
      size_t j = i;
      while (j < len && s[j] != ',') j++;
      int rc = csa_statement_parse(ps, s + i, j - i, line, (int)i + 1);
      if (rc) return rc;
      i = j + 1;
    }
    return TS_OK;
  }
  return ts_error_set(ps->err, TS_ERR_PARSE, ps->where, line, 1, "unknown line");
}

int csa_parse(const char *text, size_t len, const char *where, Position *pos, Move *moves, int cap,
              int *n_moves, TsError *err) {
  CsaParser ps;
  memset(&ps, 0, sizeof ps);
  ps.where = where;
  ps.err = err;
  ps.remaining = -1;
  ps.moves = moves;
  ps.cap = moves ? cap : 0;
  notation_setup_init(&ps.st);
  ts_error_clear(err);
  if (n_moves) *n_moves = 0;
  int line = 0;
  size_t i = 0;
  bool any = false;
  while (i < len) {
    size_t next;
    size_t e = notation_line_next(text, len, i, &next);
    while (e > i && (text[e - 1] == ' ' || text[e - 1] == '\t')) e--;
    line++;
    const char *s = text + i;
    size_t n = e - i;
    i = next;
    if (memchr(s, 0, n)) return ts_error_set(err, TS_ERR_PARSE, where, line, (int)((const char *)memchr(s, 0, n) - s) + 1, "NUL byte");
    if (n == 1 && s[0] == '/') break; /* next record */
    if (n) any = true;
    int rc = csa_line_parse(&ps, s, n, line);
    if (rc) return rc;
  }
  if (!any) return ts_error_set(err, TS_ERR_PARSE, where, 1, 1, "empty CSA record");
  if (!ps.done)
    return ts_error_set(err, TS_ERR_PARSE, where, line > 0 ? line : 1, 1, "no side-to-move line ('+' or '-')");
  *pos = ps.st.pos;
  if (n_moves) *n_moves = ps.n;
  return TS_OK;
}

void csa_move_write(Move m, char out[8]) {
  Piece p = move_piece(m);
  PieceType t = move_is_drop(m) ? move_drop_type(m) : piece_type(p);
  if (move_is_promote(m)) t = pt_promote(t);
  Square to = move_to(m);
  int ff = 0, fr = 0;
  if (!move_is_drop(m)) ff = sq_file(move_from(m)), fr = sq_rank(move_from(m));
  out[0] = piece_color(p) == BLACK ? '+' : '-';
  out[1] = (char)('0' + ff);
  out[2] = (char)('0' + fr);
  out[3] = (char)('0' + sq_file(to));
  out[4] = (char)('0' + sq_rank(to));
  out[5] = CSA_CODE[t][0];
  out[6] = CSA_CODE[t][1];
  out[7] = 0;
}

size_t csa_write(const Position *pos, const Move *moves, int n_moves, char *out, size_t n) {
  NotationBuf tb;
  notation_buf_init_fixed(&tb, out, n);
  for (int r = 1; r <= 9; r++) {
    notation_buf_printf(&tb, "P%d", r);
    for (int f = 9; f >= 1; f--) {
      Piece p = pos->board[sq_make(f, r)];
      if (p)
        notation_buf_printf(&tb, "%c%s", piece_color(p) == BLACK ? '+' : '-', CSA_CODE[piece_type(p)]);
      else
        notation_buf_add(&tb, " * ");
    }
    notation_buf_add(&tb, "\n");
  }
  for (int c = 0; c < COLOR_NB; c++) {
    if (hand_empty(pos->hand[c])) continue;
    notation_buf_add(&tb, c == BLACK ? "P+" : "P-");
    for (int k = 0; k < 7; k++) {
      PieceType t = CSA_HAND_ORDER[k];
      for (int i = hand_count(pos->hand[c], t); i > 0; i--) notation_buf_printf(&tb, "00%s", CSA_CODE[t]);
    }
    notation_buf_add(&tb, "\n");
  }
  notation_buf_add(&tb, pos->side == BLACK ? "+\n" : "-\n");
  for (int i = 0; i < n_moves; i++) {
    char mv[8];
    csa_move_write(moves[i], mv);
    notation_buf_add(&tb, mv);
    notation_buf_add(&tb, "\n");
  }
  return tb.len;
}
