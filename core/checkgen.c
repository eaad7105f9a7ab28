#include "checkgen.h"

#include "movegen.h"

static inline int rel_rank(Color c, Square s) { return c == BLACK ? sq_rank(s) : 10 - sq_rank(s); }

static inline bool must_promote(Color c, PieceType t, Square to) {
  int rr = rel_rank(c, to);
  return ((t == PAWN || t == LANCE) && rr == 1) || (t == KNIGHT && rr <= 2);
}

static inline Bitboard drop_ok(Color c, PieceType t) {
  if (t == PAWN || t == LANCE) return BB_ALL & ~BB_RANK[c == BLACK ? 1 : 9];
  if (t == KNIGHT) return BB_ALL & ~(c == BLACK ? (BB_RANK[1] | BB_RANK[2]) : (BB_RANK[8] | BB_RANK[9]));
  return BB_ALL;
}

static inline void push(MoveList *l, Move m) { l->moves[l->size++] = m; }

static inline bool is_slider(PieceType t) {
  return t == LANCE || t == BISHOP || t == ROOK || t == HORSE || t == DRAGON;
}

/* Squares a piece of colour c and kind t on s could move to on an empty board. */
static inline Bitboard reach(Color c, PieceType t, Square s) {
  switch (t) {
  case LANCE: return LANCE_REACH[c][s];
  case BISHOP: return BISHOP_REACH[s];
  case ROOK: return ROOK_REACH[s];
  case HORSE: return BISHOP_REACH[s] | STEP_ATTACKS[c][KING][s];
  default: return ROOK_REACH[s] | STEP_ATTACKS[c][KING][s]; /* DRAGON */
  }
}

/* Squares from which a piece of kind t of colour `us` attacks ek, with occupancy occ. */
static inline Bitboard check_squares(Color us, PieceType t, Square ek, Bitboard occ) {
  return bb_attacks(color_flip(us), t, ek, occ);
}

/* Has the king on ek a reply once the side to move drops a pawn on `to`, just in
 * front of it? The same test as mate1_has_evasion on the position after the drop,
 * asked of pos with the pawn added to the occupancy: the pawn itself attacks
 * only ek, and no piece can come between. */
static bool pawn_check_has_reply(const Position *pos, Square to, Square ek) {
  Color us = pos->side, them = color_flip(us);
  Bitboard occ = pos_occupied(pos) | BB_SQ[to];
  Bitboard occ_nk = occ & ~BB_SQ[ek];
  /* a king move (the capture of the pawn included) */
  for (Bitboard esc = STEP_ATTACKS[them][KING][ek] & ~pos->by_color[them]; esc;)
    if (!pos_attacked(pos, bb_pop(&esc), us, occ_nk)) return true;
  /* a capture of the pawn by another piece, not pinned off its line */
  Bitboard cap = pos_attackers_to(pos, to, them, occ) & ~BB_SQ[ek];
  if (!cap) return false;
  const Bitboard *T = pos->by_type;
  Bitboard snipers = ((LANCE_REACH[them][ek] & T[LANCE]) | (BISHOP_REACH[ek] & (T[BISHOP] | T[HORSE])) |
                      (ROOK_REACH[ek] & (T[ROOK] | T[DRAGON]))) &
                     pos->by_color[us];
  while (snipers) {
    Bitboard b = BETWEEN[ek][bb_pop(&snipers)] & occ;
    if ((b & cap) && !bb_more_than_one(b) && !bb_test(LINE[ek][bb_lsb(b)], to)) cap &= ~b;
  }
  return cap != 0;
}

void checkgen_generate(const Position *pos, MoveList *l) {
  Color us = pos->side, them = color_flip(us);
  Square ek = pos->king[them];
  l->size = 0;
  if (ek == SQ_NONE) return;
  Square ok = pos->king[us];
  if (ok != SQ_NONE && pos->checkers) {
    movegen_checks(pos, l);
    return;
  }
  Bitboard occ = pos_occupied(pos);
  Bitboard own = pos->by_color[us];
  Bitboard empty = BB_ALL & ~occ;
  const Bitboard *T = pos->by_type;
  Hand h = pos->hand[us];
  /* chk[t]: the squares from which a piece of kind t checks. Only the kinds the side
   * holds in hand or has on the board are ever asked, so the rays of a ranging kind
   * it does not have are not traced. */
  Bitboard chk[PT_NB];
  for (int t = PAWN; t <= GOLD; t++)
    if (t != LANCE && t != BISHOP && t != ROOK) chk[t] = STEP_ATTACKS[them][t][ek];
  chk[LANCE] = hand_has(h, LANCE) || (own & T[LANCE]) ? bb_lance_attacks(them, ek, occ) : 0;
  chk[BISHOP] = hand_has(h, BISHOP) || (own & (T[BISHOP] | T[HORSE])) ? bb_bishop_attacks(ek, occ) : 0;
  chk[ROOK] = hand_has(h, ROOK) || (own & (T[ROOK] | T[DRAGON])) ? bb_rook_attacks(ek, occ) : 0;
  chk[PRO_PAWN] = chk[PRO_LANCE] = chk[PRO_KNIGHT] = chk[PRO_SILVER] = chk[GOLD];
  chk[HORSE] = chk[BISHOP] | STEP_ATTACKS[them][KING][ek];
  chk[DRAGON] = chk[ROOK] | STEP_ATTACKS[them][KING][ek];
  Bitboard disc = pos_blockers(pos, them, us) & own;
  Bitboard pinned = ok != SQ_NONE ? pos_blockers(pos, us, them) & own : 0;

  /* drops */
  if (h) {
    for (int t = PAWN; t <= GOLD; t++) {
      if (!hand_has(h, (PieceType)t)) continue;
      Bitboard b = chk[t] & empty & drop_ok(us, (PieceType)t);
      if (t == PAWN && b) {
        Bitboard pawns = pos_pieces(pos, us, PAWN);
        while (pawns) b &= ~BB_FILE[sq_file(bb_pop(&pawns))];
        if (b) {
          /* 打ち歩詰め: a pawn drop that checks must leave a reply */
          Square to = bb_lsb(b);
          if (pawn_check_has_reply(pos, to, ek)) push(l, move_make_drop(PAWN, to, us));
        }
        continue;
      }
      while (b) push(l, move_make_drop((PieceType)t, bb_pop(&b), us));
    }
  }

  /* board moves of the pieces other than the king: the ranging ones, the discoverers
   * and the stepping ones close enough to step onto a check square */
  Bitboard ranging = T[LANCE] | T[BISHOP] | T[ROOK] | T[HORSE] | T[DRAGON];
  Bitboard pieces = own & ~(ok != SQ_NONE ? BB_SQ[ok] : 0) & (ranging | disc | STEP_CHECK_SQUARES[ek]);
  Bitboard aligned = BISHOP_REACH[ek] | ROOK_REACH[ek]; /* squares on a line through the king */
  while (pieces) {
    Square from = bb_pop(&pieces);
    Piece p = pos->board[from];
    PieceType t = piece_type(p);
    bool can_pro = pt_can_promote(t);
    PieceType tp = can_pro ? pt_promote(t) : t;
    bool is_disc = bb_test(disc, from);
    Bitboard cu = chk[t], cp = can_pro ? chk[tp] : 0;
    if (bb_test(aligned, from) && (is_slider(t) || is_slider(tp))) {
      /* the piece itself may stand on the ray it would check along */
      Bitboard occ2 = occ & ~BB_SQ[from];
      if (is_slider(t)) cu = check_squares(us, t, ek, occ2);
      if (can_pro && is_slider(tp)) cp = check_squares(us, tp, ek, occ2);
    }
    Bitboard targets;
    if (is_disc) {
      targets = bb_attacks(us, t, from, occ) & ~own;
    } else if (is_slider(t)) {
      /* the few check squares on its lines are tested one by one instead of tracing the rays */
      Bitboard cand = reach(us, t, from) & (cu | cp) & ~own;
      targets = 0;
      while (cand) {
        Square x = bb_pop(&cand);
        if (!(BETWEEN[from][x] & occ)) targets |= BB_SQ[x];
      }
    } else {
      targets = STEP_ATTACKS[us][t][from] & ~own & (cu | cp);
    }
    if (bb_test(pinned, from)) targets &= LINE[ok][from];
    bool from_zone = bb_test(BB_ZONE[us], from);
    while (targets) {
      Square to = bb_pop(&targets);
      bool off_line = is_disc && !bb_test(LINE[ek][from], to);
      if (can_pro && (from_zone || bb_test(BB_ZONE[us], to))) {
        if (off_line || bb_test(cp, to)) push(l, move_make(from, to, true, p));
        if (!must_promote(us, t, to) && (off_line || bb_test(cu, to))) push(l, move_make(from, to, false, p));
      } else if (off_line || bb_test(cu, to)) {
        push(l, move_make(from, to, false, p));
      }
    }
  }

  /* king moves: only a discovered check */
  if (ok != SQ_NONE && bb_test(disc, ok)) {
    Bitboard b = STEP_ATTACKS[us][KING][ok] & ~own & ~LINE[ek][ok];
    Bitboard occ_nk = occ & ~BB_SQ[ok];
    Piece p = pos->board[ok];
    while (b) {
      Square to = bb_pop(&b);
      if (!pos_attacked(pos, to, them, occ_nk)) push(l, move_make(ok, to, false, p));
    }
  }
}
