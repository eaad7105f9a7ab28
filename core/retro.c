#include "retro.h"

#include "movegen.h"

static inline int rel_rank(Color c, Square s) { return c == BLACK ? sq_rank(s) : 10 - sq_rank(s); }

static inline bool dead_on(Color c, PieceType t, Square s) {
  int rr = rel_rank(c, s);
  return ((t == PAWN || t == LANCE) && rr == 1) || (t == KNIGHT && rr <= 2);
}

void retro_apply(const Position *pos, const UnMove *u, Position *prev) {
  *prev = *pos;
  pos_unmove(prev, u->move, u->captured);
}

/* The occupied squares of the predecessor of pos by u: `to` empty unless a
 * piece is put back there, the origin of a board move occupied. */
static Bitboard prev_occupied(const Position *pos, const UnMove *u) {
  Move m = u->move;
  Bitboard occ = pos_occupied(pos);
  if (!u->captured) occ &= ~BB_SQ[move_to(m)];
  if (!move_is_drop(m)) occ |= BB_SQ[move_from(m)];
  return occ;
}

/* Would the opponent of the mover (pos->side) be in check in the predecessor?
 * Answered on pos, without making the predecessor: the mover's pieces but the
 * one on `to` with the predecessor's occupancy, and the moved piece on its
 * origin. The opponent's king does not move in an un-move of the mover; a
 * piece put back on `to` is the opponent's own. */
static bool prev_checks_opp(const Position *pos, const UnMove *u) {
  Color opp = pos->side, mover = color_flip(opp);
  Square ek = pos->king[opp];
  if (ek == SQ_NONE) return false;
  Move m = u->move;
  Square to = move_to(m);
  Bitboard occ = prev_occupied(pos, u);
  if (!move_is_drop(m)) {
    Square from = move_from(m);
    Piece now = pos->board[to];
    PieceType t = piece_type(move_is_promote(m) ? (Piece)(now - PT_PROMOTE) : now);
    if (bb_test(bb_attacks(mover, t, from, occ), ek)) return true;
  }
  return (pos_attackers_to(pos, ek, mover, occ) & ~BB_SQ[to]) != 0;
}

/* Is the mover in check in the predecessor? Answered on pos like
 * prev_checks_opp: the opponent's pieces with the predecessor's occupancy, and
 * the piece put back on `to`; the mover's king on the origin if it moved. */
static bool prev_checks_mover(const Position *pos, const UnMove *u) {
  Color opp = pos->side, mover = color_flip(opp);
  Square k = pos->king[mover];
  Move m = u->move;
  Square to = move_to(m);
  if (k == to) k = move_from(m); /* a king's un-move (never a drop) */
  if (k == SQ_NONE) return false;
  Bitboard occ = prev_occupied(pos, u);
  if (u->captured && bb_test(bb_attacks(opp, piece_type(u->captured), to, occ), k)) return true;
  return pos_attackers_to(pos, k, opp, occ) != 0;
}

/*
 * The predecessor must be legal and m legal in it. By construction the piece
 * obeys its movement, the path is empty and a piece left unpromoted is not dead
 * on `to` (pos is legal). What remains: the side not to move in the predecessor
 * (the opponent of the mover) is not in check there, an uncaptured pawn or an
 * un-promoted tokin makes no 二歩, and a pawn drop does not mate (打ち歩詰め). pos itself is legal, so
 * the mover's king is not in check after m.
 */
static bool prev_ok(const Position *pos, const UnMove *u, Position *prev, bool checked) {
  if (prev_checks_opp(pos, u)) return false;
  if (checked && !prev_checks_mover(pos, u)) return false;
  retro_apply(pos, u, prev);
  Color opp = pos->side;
  Move m = u->move;
  if (u->captured && piece_type(u->captured) == PAWN) {
    Bitboard pawns = pos_pieces(prev, opp, PAWN) & BB_FILE[sq_file(move_to(m))];
    if (bb_more_than_one(pawns)) return false;
  }
  if (!move_is_drop(m) && move_is_promote(m) && piece_type(prev->board[move_from(m)]) == PAWN) {
    /* an un-promoted tokin is a pawn again: with another pawn of the mover on its file, 二歩 */
    Bitboard pawns = pos_pieces(prev, color_flip(opp), PAWN) & BB_FILE[sq_file(move_from(m))];
    if (bb_more_than_one(pawns)) return false;
  }
  if (move_is_drop(m) && move_drop_type(m) == PAWN) {
    Color mover = color_flip(opp);
    if (bb_more_than_one(pos_pieces(pos, mover, PAWN) & BB_FILE[sq_file(move_to(m))])) return false;
    Square ek = pos->king[opp];
    if (ek != SQ_NONE && bb_test(STEP_ATTACKS[mover][PAWN][move_to(m)], ek) && pos_is_mate(pos)) return false;
  }
  return true;
}

static void try_add(const Position *pos, UnMoveList *l, UnMove u, bool checked) {
  if (l->size >= MAX_UNMOVES) return;
  Position tmp, *prev = l->prev ? &l->prev[l->size] : &tmp;
  if (prev_ok(pos, &u, prev, checked)) l->u[l->size++] = u;
}

static void add_with_captures(const Position *pos, UnMoveList *l, Move m, unsigned kinds, bool checked) {
  Color mover = color_flip(pos->side), opp = pos->side;
  Square to = move_to(m);
  UnMove u = {m, PIECE_NONE};
  try_add(pos, l, u, checked);
  if (move_is_drop(m)) return;
  Hand h = pos->hand[mover];
  for (int t = PAWN; t <= GOLD; t++) {
    if (!hand_has(h, (PieceType)t) || !(kinds & (1u << t))) continue;
    for (int pr = 0; pr < 2; pr++) {
      if (pr && !pt_can_promote((PieceType)t)) continue;
      PieceType ct = pr ? pt_promote((PieceType)t) : (PieceType)t;
      if (!pr && dead_on(opp, ct, to)) continue;
      u.captured = piece_make(opp, ct);
      try_add(pos, l, u, checked);
    }
  }
}

void retro_generate(const Position *pos, UnMoveList *l) { retro_generate_kinds(pos, l, ~0u); }

void retro_generate_kinds(const Position *pos, UnMoveList *l, unsigned kinds) {
  retro_generate_to(pos, l, kinds, BB_ALL);
}

static Bitboard sliders_of(const Position *pos, Color c) {
  const Bitboard *T = pos->by_type;
  return (T[LANCE] | T[BISHOP] | T[ROOK] | T[HORSE] | T[DRAGON]) & pos->by_color[c];
}

/*
 * retro_unmove_squares (retro.h). A checker of the opponent's king that has no
 * sliding move keeps checking whatever is un-moved but itself, so with one
 * such checker only its un-moves remain, with two none. When the mover must
 * be in check in the predecessor (checked), is not in check in pos and the
 * opponent has no sliding piece, no change of occupancy gives a check: only
 * the king's un-moves remain, and those putting back a captured piece that
 * attacks the king, from a square next to it or a knight's jump away (unless
 * a sliding piece may be put back).
 */
Bitboard retro_unmove_squares(const Position *pos, unsigned kinds, bool checked) {
  Bitboard occ = pos_occupied(pos);
  Color opp = pos->side, mover = color_flip(opp);
  Bitboard keep = BB_ALL;
  Square ek = pos->king[opp];
  if (ek != SQ_NONE) {
    Bitboard step = pos_attackers_to(pos, ek, mover, occ) & ~sliders_of(pos, mover);
    if (bb_more_than_one(step)) return 0;
    if (step) keep = step;
  }
  Square k = pos->king[mover];
  if (!checked) return keep;
  if (k == SQ_NONE) return 0;
  if (sliders_of(pos, opp) || pos_attackers_to(pos, k, opp, occ)) return keep;
  Hand h = pos->hand[mover];
  static const PieceType slide[] = {LANCE, BISHOP, ROOK};
  for (int i = 0; i < 3; i++)
    if (hand_has(h, slide[i]) && (kinds & (1u << slide[i]))) return keep;
  return keep & (BB_SQ[k] | STEP_ATTACKS[mover][KING][k] | STEP_ATTACKS[mover][KNIGHT][k]);
}

static void generate(const Position *pos, UnMoveList *l, unsigned kinds, Bitboard to_mask, bool checked) {
  Color mover = color_flip(pos->side);
  l->size = 0;
  Bitboard occ = pos_occupied(pos);
  Bitboard empty = BB_ALL & ~occ;
  Bitboard mine = pos->by_color[mover] & to_mask;
  if (mine) mine &= retro_unmove_squares(pos, kinds, checked);
  while (mine) {
    Square to = bb_pop(&mine);
    Piece p = pos->board[to];
    PieceType t = piece_type(p);
    /* un-drop */
    if (t <= GOLD) add_with_captures(pos, l, move_make_drop(t, to, mover), kinds, checked);
    /* moved as the same kind: from squares that reach `to` */
    Bitboard from = bb_attacks(color_flip(mover), t, to, occ) & empty;
    while (from) {
      Square f = bb_pop(&from);
      /* a promotable piece that did not promote: it must not be dead on `to` (it is not) */
      add_with_captures(pos, l, move_make(f, to, false, p), kinds, checked);
    }
    /* promoted on this move */
    if (pt_is_promoted(t)) {
      PieceType b = pt_demote(t);
      Piece bp = piece_make(mover, b);
      Bitboard fr = bb_attacks(color_flip(mover), b, to, occ) & empty;
      while (fr) {
        Square f = bb_pop(&fr);
        if (bb_test(BB_ZONE[mover], f) || bb_test(BB_ZONE[mover], to)) add_with_captures(pos, l, move_make(f, to, true, bp), kinds, checked);
      }
    }
  }
}

void retro_generate_to(const Position *pos, UnMoveList *l, unsigned kinds, Bitboard to_mask) {
  generate(pos, l, kinds, to_mask, false);
}

void retro_generate_checked(const Position *pos, UnMoveList *l, unsigned kinds, Bitboard to_mask) {
  generate(pos, l, kinds, to_mask, true);
}
