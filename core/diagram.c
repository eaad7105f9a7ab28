#include "diagram.h"

#include "kanji.h"
#include "notation_util.h"

/* 柿木 order of hand pieces. */
static const PieceType HAND_ORDER[7] = {ROOK, BISHOP, GOLD, SILVER, KNIGHT, LANCE, PAWN};

static void diagram_hand_emit(NotationBuf *tb, const char *label, Hand h) {
  notation_buf_add(tb, label);
  if (hand_empty(h)) {
    notation_buf_add(tb, "なし\n");
    return;
  }
  for (int k = 0; k < 7; k++) {
    int n = hand_count(h, HAND_ORDER[k]);
    if (!n) continue;
    notation_buf_add(tb, kanji_piece_move_name(HAND_ORDER[k]));
    if (n > 1) {
      char num[16];
      kanji_number_write(n, num);
      notation_buf_add(tb, num);
    }
    notation_buf_add(tb, "　");
  }
  notation_buf_add(tb, "\n");
}

void diagram_emit(NotationBuf *tb, const Position *pos) {
  diagram_hand_emit(tb, "後手の持駒：", pos->hand[WHITE]);
  notation_buf_add(tb, "  ９ ８ ７ ６ ５ ４ ３ ２ １\n");
  notation_buf_add(tb, "+---------------------------+\n");
  for (int r = 1; r <= 9; r++) {
    notation_buf_add(tb, "|");
    for (int f = 9; f >= 1; f--) {
      Piece p = pos->board[sq_make(f, r)];
      if (!p) {
        notation_buf_add(tb, " ・");
        continue;
      }
      notation_buf_add(tb, piece_color(p) == WHITE ? "v" : " ");
      notation_buf_add(tb, kanji_piece_board_char(piece_type(p)));
    }
    notation_buf_add(tb, "|");
    notation_buf_add(tb, kanji_rank_numeral(r));
    notation_buf_add(tb, "\n");
  }
  notation_buf_add(tb, "+---------------------------+\n");
  diagram_hand_emit(tb, "先手の持駒：", pos->hand[BLACK]);
  if (pos->side == WHITE) notation_buf_add(tb, "後手番\n");
}

size_t diagram_write(const Position *pos, char *out, size_t n) {
  NotationBuf tb;
  notation_buf_init_fixed(&tb, out, n);
  diagram_emit(&tb, pos);
  return tb.len;
}
