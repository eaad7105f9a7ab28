#include "sfen.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "movegen.h"
#include "notation_util.h"

static const char PT_LETTER[PT_NB] = {0, 'P', 'L', 'N', 'S', 'B', 'R', 'G', 'K', 'P', 'L', 'N', 'S', 'B', 'R'};

static PieceType letter_type(char ch) {
  switch (toupper((unsigned char)ch)) {
  case 'P': return PAWN;
  case 'L': return LANCE;
  case 'N': return KNIGHT;
  case 'S': return SILVER;
  case 'B': return BISHOP;
  case 'R': return ROOK;
  case 'G': return GOLD;
  case 'K': return KING;
  default: return PT_NONE;
  }
}

#define PERR(col, ...) ts_error_set(err, TS_ERR_PARSE, where, 0, (int)(col) + 1, __VA_ARGS__)

int sfen_parse(const char *s, Position *pos, const char *where, TsError *err) {
  if (!where) where = "<sfen>";
  pos_clear(pos);
  size_t i = 0;
  while (s[i] == ' ' || s[i] == '\t') i++;
  if (strncmp(s + i, "position ", 9) == 0) /* a USI command line, as a GUI's log shows it */
    for (i += 9; s[i] == ' '; i++) {
    }
  if (strncmp(s + i, "sfen ", 5) == 0) i += 5;
  while (s[i] == ' ') i++;
  if (strncmp(s + i, "startpos", 8) == 0 && (s[i + 8] == 0 || isspace((unsigned char)s[i + 8])))
    return sfen_parse("lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1", pos, where, err);
  int rank = 1, file = 9;
  for (;; i++) {
    char ch = s[i];
    if (ch == '/') {
      if (file != 0) return PERR(i, "rank %d has %d squares, expected 9", rank, 9 - file);
      if (++rank > 9) return PERR(i, "more than 9 ranks");
      file = 9;
    } else if (ch >= '1' && ch <= '9') {
      file -= ch - '0';
      if (file < 0) return PERR(i, "rank %d has more than 9 squares", rank);
    } else if (ch == '+' || isalpha((unsigned char)ch)) {
      bool promoted = ch == '+';
      if (promoted) ch = s[++i];
      PieceType t = letter_type(ch);
      if (t == PT_NONE) return PERR(i, "unknown piece letter '%c'", ch ? ch : '?');
      if (promoted && !pt_can_promote(t)) return PERR(i, "piece '%c' cannot be promoted", ch);
      if (file < 1) return PERR(i, "rank %d has more than 9 squares", rank);
      Color c = isupper((unsigned char)ch) ? BLACK : WHITE;
      pos_put(pos, sq_make(file, rank), piece_make(c, promoted ? pt_promote(t) : t));
      file--;
    } else if (ch == ' ' || ch == 0) {
      break;
    } else {
      return PERR(i, "unexpected character '%c' in the board", ch);
    }
  }
  if (rank != 9 || file != 0) return PERR(i, "board ends early: %d ranks, last has %d squares", rank, 9 - file);
  while (s[i] == ' ') i++;
  if (s[i] == 'b')
    pos->side = BLACK;
  else if (s[i] == 'w')
    pos->side = WHITE;
  else
    return PERR(i, "expected side to move 'b' or 'w'");
  i++;
  if (s[i] && s[i] != ' ') return PERR(i, "expected a space after the side to move");
  while (s[i] == ' ') i++;
  if (s[i] == 0) return PERR(i, "missing hands ('-' when empty)");
  if (s[i] == '-') {
    i++;
  } else {
    while (s[i] && s[i] != ' ') {
      int n = 0;
      size_t start = i;
      while (isdigit((unsigned char)s[i])) {
        n = n * 10 + (s[i] - '0');
        if (n > 18) return PERR(start, "hand count too large");
        i++;
      }
      if (i > start && n < 1) return PERR(start, "hand count must be at least 1");
      if (i == start) n = 1;
      PieceType t = letter_type(s[i]);
      if (i > start && (s[i] == 0 || s[i] == ' '))
        return PERR(start, "the count %.*s has no piece after it: SFEN writes the count before the piece (10P, not P10)",
                    (int)(i - start), s + start);
      if (t == PT_NONE || t == KING) return PERR(i, "bad hand piece '%c'", s[i] ? s[i] : '?');
      Color c = isupper((unsigned char)s[i]) ? BLACK : WHITE;
      int have = hand_count(pos->hand[c], t);
      if (have + n > PIECE_INVENTORY[t]) return PERR(start, "too many %c in hand", s[i]);
      pos->hand[c] = hand_set(pos->hand[c], t, have + n);
      i++;
    }
  }
  while (s[i] == ' ') i++;
  if (isdigit((unsigned char)s[i])) {
    long ply = 0;
    size_t start = i;
    while (isdigit((unsigned char)s[i])) {
      ply = ply * 10 + (s[i] - '0');
      if (ply > 1000000) return PERR(start, "move number too large");
      i++;
    }
    pos->ply = (int)ply;
  }
  while (s[i] == ' ' || s[i] == '\r' || s[i] == '\n' || s[i] == '\t') i++;
  if (s[i] && strncmp(s + i, "moves", 5) != 0) return PERR(i, "unexpected text after the SFEN");
  pos_finish_setup(pos);
  return pos_validate(pos, where, err);
}

void sfen_write(const Position *pos, char *out, size_t n) {
  char buf[SFEN_MAX];
  size_t k = 0;
  for (int r = 1; r <= 9; r++) {
    int empty = 0;
    for (int f = 9; f >= 1; f--) {
      Piece p = pos->board[sq_make(f, r)];
      if (!p) {
        empty++;
        continue;
      }
      if (empty) buf[k++] = (char)('0' + empty), empty = 0;
      PieceType t = piece_type(p);
      if (pt_is_promoted(t)) buf[k++] = '+';
      char ch = PT_LETTER[t];
      buf[k++] = piece_color(p) == BLACK ? ch : (char)tolower(ch);
    }
    if (empty) buf[k++] = (char)('0' + empty);
    if (r < 9) buf[k++] = '/';
  }
  buf[k++] = ' ';
  buf[k++] = pos->side == BLACK ? 'b' : 'w';
  buf[k++] = ' ';
  static const PieceType ORDER[7] = {ROOK, BISHOP, GOLD, SILVER, KNIGHT, LANCE, PAWN};
  size_t hstart = k;
  for (int c = 0; c < COLOR_NB; c++)
    for (int j = 0; j < 7; j++) {
      int cnt = hand_count(pos->hand[c], ORDER[j]);
      if (!cnt) continue;
      if (cnt > 1) k += (size_t)snprintf(buf + k, sizeof buf - k, "%d", cnt);
      char ch = PT_LETTER[ORDER[j]];
      buf[k++] = c == BLACK ? ch : (char)tolower(ch);
    }
  if (k == hstart) buf[k++] = '-';
  snprintf(buf + k, sizeof buf - k, " %d", pos->ply);
  snprintf(out, n, "%s", buf);
}

void usi_square_write(Square s, char out[3]) {
  out[0] = (char)('0' + sq_file(s));
  out[1] = (char)('a' + sq_rank(s) - 1);
  out[2] = 0;
}

void usi_move_write(Move m, char out[8]) {
  char to[3], from[3];
  usi_square_write(move_to(m), to);
  if (move_is_drop(m)) {
    snprintf(out, 8, "%c*%s", PT_LETTER[move_drop_type(m)], to);
  } else {
    usi_square_write(move_from(m), from);
    snprintf(out, 8, "%s%s%s", from, to, move_is_promote(m) ? "+" : "");
  }
}

int usi_move_parse(const Position *pos, const char *s, Move *m, TsError *err) {
  const char *where = "<usi>";
  size_t len = strlen(s);
  Move cand;
  if (len == 4 && s[1] == '*') {
    PieceType t = letter_type(s[0]);
    if (t == PT_NONE || t == KING || !isupper((unsigned char)s[0])) return PERR(0, "bad drop piece in '%s'", s);
    if (s[2] < '1' || s[2] > '9' || s[3] < 'a' || s[3] > 'i') return PERR(2, "bad square in '%s'", s);
    cand = move_make_drop(t, sq_make(s[2] - '0', s[3] - 'a' + 1), pos->side);
  } else if (len == 4 || (len == 5 && s[4] == '+')) {
    if (s[0] < '1' || s[0] > '9' || s[1] < 'a' || s[1] > 'i') return PERR(0, "bad square in '%s'", s);
    if (s[2] < '1' || s[2] > '9' || s[3] < 'a' || s[3] > 'i') return PERR(2, "bad square in '%s'", s);
    Square from = sq_make(s[0] - '0', s[1] - 'a' + 1);
    cand = move_make(from, sq_make(s[2] - '0', s[3] - 'a' + 1), len == 5, pos->board[from]);
  } else {
    return PERR(0, "not a USI move: '%s'", s);
  }
  MoveList l;
  movegen_legal(pos, &l);
  for (int i = 0; i < l.size; i++)
    if (move_compact(l.moves[i]) == move_compact(cand)) {
      *m = l.moves[i];
      return TS_OK;
    }
  return ts_error_set(err, TS_ERR_ILLEGAL, where, 0, 0, "illegal move '%s' in this position", s);
}

int usi_line_parse(const Position *pos, const char *s, Move *moves, int cap, int *n, TsError *err) {
  Position p = *pos;
  *n = 0;
  size_t i = 0;
  while (s[i]) {
    while (s[i] && isspace((unsigned char)s[i])) i++;
    if (!s[i]) break;
    char tok[16];
    size_t k = 0, start = i;
    while (s[i] && !isspace((unsigned char)s[i])) {
      if (k < sizeof tok - 1) tok[k++] = s[i];
      i++;
    }
    tok[k] = 0;
    if (moves && *n >= cap) return ts_error_set(err, TS_ERR_PARSE, "<usi>", 0, (int)start + 1, "a line longer than %d moves (the most one may have)", cap);
    Move m;
    int rc = usi_move_parse(&p, tok, &m, err);
    if (rc) {
      if (err) err->column = (int)start + 1;
      if (err) snprintf(err->msg + strlen(err->msg), sizeof err->msg - strlen(err->msg), " (move %d)", *n + 1);
      if (err && rc == TS_ERR_ILLEGAL && *n > 0 && pos_is_mate(&p)) /* the moves after a mate are no line */
        snprintf(err->msg + strlen(err->msg), sizeof err->msg - strlen(err->msg),
                 ": the line goes on past mate (mate after move %d)", *n);
      return rc;
    }
    if (moves) moves[*n] = m;
    (*n)++;
    Undo u;
    pos_do_move(&p, m, &u);
  }
  return TS_OK;
}

int sfen_text_parse(const char *text, size_t len, const char *where, Position *pos, Move *moves, int cap, int *n_moves,
                    TsError *err) {
  ts_error_clear(err);
  int dummy = 0;
  if (!n_moves) n_moves = &dummy;
  *n_moves = 0;
  int lineno = 0;
  for (size_t i = 0; i < len;) {
    size_t next, e = notation_line_next(text, len, i, &next);
    lineno++;
    const char *nul = memchr(text + i, 0, e - i);
    if (nul) return ts_error_set(err, TS_ERR_PARSE, where, lineno, (int)(nul - (text + i)) + 1, "NUL byte");
    while (e > i && (text[e - 1] == ' ' || text[e - 1] == '\t')) e--;
    size_t b = i;
    while (b < e && (text[b] == ' ' || text[b] == '\t')) b++;
    if (b == e || text[b] == '#') {
      i = next;
      continue;
    }
    /* the line is copied to be NUL-terminated; a long line is refused by the
     * parsers at the first fault, without a fixed limit here */
    char *buf = malloc(e - i + 1);
    if (!buf) return ts_error_set(err, TS_ERR_NOMEM, where, lineno, 0, "out of memory");
    memcpy(buf, text + i, e - i);
    buf[e - i] = 0;
    /* a line of `tsume export --sfen`: SFEN<TAB>length<TAB>flags<TAB>main line (USI) */
    char *tab = strchr(buf, '\t'), *ml = NULL; /* ml: the moves' text */
    if (tab) {
      *tab = 0;
      char *f = tab + 1, *d = f;
      while (*d >= '0' && *d <= '9') d++;
      char *fl = *d == '\t' ? strchr(d + 1, '\t') : NULL;
      if (d == f || d - f > 5 || (*d && *d != '\t')) {
        int col = (int)(f - buf) + 1;
        free(buf);
        return ts_error_set(err, TS_ERR_PARSE, where, lineno, col,
                            "after the SFEN and a tab, expected the fields of an export: length<TAB>flags<TAB>moves");
      }
      if (fl) ml = fl + 1;
    } else {
      char *mv = strstr(buf, " moves");
      if (mv && mv[6] && mv[6] != ' ' && mv[6] != '\t') mv = NULL;
      if (mv) *mv = 0, ml = mv + 6;
    }
    int rc = sfen_parse(buf, pos, where, err);
    if (!rc && ml) {
      rc = usi_line_parse(pos, ml, moves, cap, n_moves, err);
      if (rc && err) {
        err->column += (int)(ml - buf);
        snprintf(err->where, sizeof err->where, "%s", where);
      }
      if (rc) *n_moves = 0;
    }
    if (rc && err) err->line = lineno;
    free(buf);
    return rc;
  }
  return ts_error_set(err, TS_ERR_PARSE, where, lineno ? lineno : 1, 0, "no SFEN line in the text");
}
