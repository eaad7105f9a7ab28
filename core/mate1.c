#include "mate1.h"

#include "checkgen.h"
#include "movegen.h"

static inline int rel_rank(Color c, Square s) { return c == BLACK ? sq_rank(s) : 10 - sq_rank(s); }

/* Can colour c legally drop some piece of its hand on the empty square s? */
static bool can_drop_on(const Position *pos, Color c, Square s, bool *pawn_needs_full_test) {
  Hand h = pos->hand[c];
  if (!h) return false;
  int rr = rel_rank(c, s);
  if (hand_has(h, SILVER) || hand_has(h, GOLD) || hand_has(h, BISHOP) || hand_has(h, ROOK)) return true;
  if (hand_has(h, KNIGHT) && rr > 2) return true;
  if (hand_has(h, LANCE) && rr > 1) return true;
  if (hand_has(h, PAWN) && rr > 1) {
    if (pos_pieces(pos, c, PAWN) & BB_FILE[sq_file(s)]) return false; /* 二歩 */
    Square ek = pos->king[color_flip(c)];
    /* A pawn drop that checks might be 打ち歩詰め: let the full generator decide. */
    if (ek != SQ_NONE && bb_test(STEP_ATTACKS[c][PAWN][s], ek)) {
      *pawn_needs_full_test = true;
      return false;
    }
    return true;
  }
  return false;
}

Bitboard mate1_king_escapes(const Position *pos) {
  Color us = pos->side;
  Square k = pos->king[us];
  if (k == SQ_NONE) return 0;
  Bitboard esc = STEP_ATTACKS[us][KING][k] & ~pos->by_color[us];
  return esc & ~pos_attacks_near(pos, color_flip(us), k, esc, pos_occupied(pos) & ~BB_SQ[k]);
}

bool mate1_has_other_evasion(const Position *pos) {
  Color us = pos->side, them = color_flip(us);
  Square k = pos->king[us];
  if (bb_more_than_one(pos->checkers)) return false;
  Bitboard occ = pos_occupied(pos);
  Square c = bb_lsb(pos->checkers);
  Bitboard pinned = pos_blockers(pos, us, them) & pos->by_color[us];
  /* 2. a capture of the checker by another piece (a piece can always move to a
   * square it attacks in one form, promoted or not) */
  Bitboard cap = pos_attackers_to(pos, c, us, occ) & ~BB_SQ[k];
  while (cap) {
    Square from = bb_pop(&cap);
    if (!bb_test(pinned, from) || bb_test(LINE[k][from], c)) return true;
  }
  /* 3. an interposition, by a move or a drop */
  Bitboard between = BETWEEN[k][c];
  bool pawn_full = false;
  while (between) {
    Square b = bb_pop(&between);
    Bitboard mv = pos_attackers_to(pos, b, us, occ) & ~BB_SQ[k];
    while (mv) {
      Square from = bb_pop(&mv);
      if (!bb_test(pinned, from) || bb_test(LINE[k][from], b)) return true;
    }
    if (can_drop_on(pos, us, b, &pawn_full)) return true;
  }
  if (pawn_full) return movegen_has_legal(pos);
  return false;
}

bool mate1_has_evasion(const Position *pos) {
  Color us = pos->side, them = color_flip(us);
  Square k = pos->king[us];
  if (k == SQ_NONE || !pos->checkers) return movegen_has_legal(pos);
  /* 1. a king move to a square the opponent does not reach once the king has left
   * (square by square: the first free one settles it) */
  Bitboard occ_nk = pos_occupied(pos) & ~BB_SQ[k];
  Bitboard esc = STEP_ATTACKS[us][KING][k] & ~pos->by_color[us];
  while (esc) {
    Square to = bb_pop(&esc);
    if (!pos_attacked(pos, to, them, occ_nk)) return true;
  }
  return mate1_has_other_evasion(pos);
}

Move mate1_find(Position *pos) {
  MoveList l;
  checkgen_generate(pos, &l);
  for (int i = 0; i < l.size; i++) {
    Undo u;
    Move m = l.moves[i];
    pos_do_move(pos, m, &u);
    bool escape = mate1_has_evasion(pos);
    pos_undo_move(pos, m, &u);
    if (!escape) return m;
  }
  return MOVE_NONE;
}
