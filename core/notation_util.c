#include "notation_util.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "movegen.h"

size_t notation_line_next(const char *text, size_t len, size_t i, size_t *next) {
  size_t e = i;
  while (e < len && text[e] != '\n' && text[e] != '\r') e++;
  size_t n = e;
  if (n < len) n += text[n] == '\r' && n + 1 < len && text[n + 1] == '\n' ? 2 : 1;
  *next = n;
  return e;
}

void notation_buf_init_fixed(NotationBuf *tb, char *out, size_t n) {
  memset(tb, 0, sizeof *tb);
  tb->data = out;
  tb->cap = n;
  tb->fixed = true;
  if (n) out[0] = 0;
}

void notation_buf_init_dynamic(NotationBuf *tb) { memset(tb, 0, sizeof *tb); }

/* Makes room for len + n + 1 bytes in a dynamic buffer. */
static bool notation_buf_reserve(NotationBuf *tb, size_t n) {
  if (tb->failed) return false;
  if (tb->len + n + 1 <= tb->cap) return true;
  size_t ncap = tb->cap ? tb->cap : 256;
  while (ncap < tb->len + n + 1) ncap *= 2;
  char *nd = realloc(tb->data, ncap);
  if (!nd) {
    tb->failed = true;
    return false;
  }
  tb->data = nd;
  tb->cap = ncap;
  return true;
}

void notation_buf_addn(NotationBuf *tb, const char *s, size_t n) {
  if (tb->fixed) {
    if (tb->cap > 0 && tb->len < tb->cap - 1) {
      size_t room = tb->cap - 1 - tb->len;
      size_t k = n < room ? n : room;
      memcpy(tb->data + tb->len, s, k);
      tb->data[tb->len + k] = 0;
    }
    tb->len += n;
    return;
  }
  if (!notation_buf_reserve(tb, n)) return;
  memcpy(tb->data + tb->len, s, n);
  tb->len += n;
  tb->data[tb->len] = 0;
}

void notation_buf_add(NotationBuf *tb, const char *s) { notation_buf_addn(tb, s, strlen(s)); }

void notation_buf_printf(NotationBuf *tb, const char *fmt, ...) {
  char small[256];
  va_list ap;
  va_start(ap, fmt);
  int k = vsnprintf(small, sizeof small, fmt, ap);
  va_end(ap);
  if (k < 0) return;
  if ((size_t)k < sizeof small) {
    notation_buf_addn(tb, small, (size_t)k);
    return;
  }
  char *big = malloc((size_t)k + 1);
  if (!big) {
    tb->failed = true;
    return;
  }
  va_start(ap, fmt);
  vsnprintf(big, (size_t)k + 1, fmt, ap);
  va_end(ap);
  notation_buf_addn(tb, big, (size_t)k);
  free(big);
}

void notation_setup_init(NotationSetup *st) {
  memset(st, 0, sizeof *st);
  pos_clear(&st->pos);
}

static const char *const KIND_NAME[PT_NB] = {"", "pawns", "lances", "knights", "silvers", "bishops",
                                             "rooks", "golds", "kings"};

int notation_setup_put(NotationSetup *st, Square s, Piece p, const char *where, int line, int column, TsError *err) {
  if (st->pos.board[s])
    return ts_error_set(err, TS_ERR_PARSE, where, line, column, "square %d%d is already occupied", sq_file(s),
                        sq_rank(s));
  PieceType b = pt_demote(piece_type(p));
  if (st->count[b] >= PIECE_INVENTORY[b])
    return ts_error_set(err, TS_ERR_ILLEGAL, where, line, column, "more than %d %s", PIECE_INVENTORY[b],
                        KIND_NAME[b]);
  st->count[b]++;
  pos_put(&st->pos, s, p);
  st->line[s] = line;
  st->column[s] = column;
  return TS_OK;
}

int notation_setup_hand_add(NotationSetup *st, Color c, PieceType t, int n, const char *where, int line, int column,
                   TsError *err) {
  if (n < 0 || st->count[t] + n > PIECE_INVENTORY[t])
    return ts_error_set(err, TS_ERR_ILLEGAL, where, line, column, "more than %d %s", PIECE_INVENTORY[t],
                        KIND_NAME[t]);
  st->count[t] += n;
  st->pos.hand[c] = hand_set(st->pos.hand[c], t, hand_count(st->pos.hand[c], t) + n);
  return TS_OK;
}

/* The square of the first piece that makes pos illegal by itself (a piece with
 * no future move, a second pawn on a file, a second king), or SQ_NONE. */
static Square notation_setup_fault_square(const NotationSetup *st) {
  const Position *pos = &st->pos;
  for (Square s = 0; s < SQ_NB; s++) {
    Piece p = pos->board[s];
    if (!p) continue;
    PieceType t = piece_type(p);
    int rr = piece_color(p) == BLACK ? sq_rank(s) : 10 - sq_rank(s);
    if (((t == PAWN || t == LANCE) && rr == 1) || (t == KNIGHT && rr <= 2)) return s;
  }
  for (int c = 0; c < COLOR_NB; c++) {
    Bitboard k = pos_pieces(pos, (Color)c, KING);
    if (bb_more_than_one(k)) return bb_msb(k);
    for (int f = 1; f <= 9; f++) {
      Bitboard b = pos_pieces(pos, (Color)c, PAWN) & BB_FILE[f];
      if (!bb_more_than_one(b)) continue;
      /* report the pawn read last */
      Square last = SQ_NONE;
      while (b) {
        Square s = bb_pop(&b);
        if (last == SQ_NONE || st->line[s] > st->line[last] ||
            (st->line[s] == st->line[last] && st->column[s] > st->column[last]))
          last = s;
      }
      return last;
    }
  }
  return SQ_NONE;
}

int notation_setup_finish(NotationSetup *st, int remaining, Color side, const char *where, int end_line, int end_column,
                 TsError *err) {
  Position *pos = &st->pos;
  pos->side = side;
  pos->ply = 1;
  if (remaining == BLACK || remaining == WHITE) pos_give_remaining(pos, (Color)remaining);
  pos_finish_setup(pos);
  int rc = pos_validate(pos, where, err);
  if (rc == TS_OK) return TS_OK;
  Square s = notation_setup_fault_square(st);
  if (err) {
    err->line = s != SQ_NONE ? st->line[s] : end_line;
    err->column = s != SQ_NONE ? st->column[s] : end_column;
  }
  return rc;
}

const char *notation_past_mate(const Position *pos) {
  return pos_is_mate(pos) ? ": the line goes on past mate (the move before it mates)" : "";
}
