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

/*
 * The predecessor must be legal and m legal in it. By construction the piece
 * obeys its movement, the path is empty and a piece left unpromoted is not dead
 * on `to` (pos is legal). What remains: the side not to move in the predecessor
 * (the opponent of the mover) is not in check there, an uncaptured pawn makes
 * no 二歩, and a pawn drop does not mate (打ち歩詰め). pos itself is legal, so
 * the mover's king is not in check after m.
 */
static bool prev_ok(const Position *pos, const UnMove *u, Position *prev) {
  retro_apply(pos, u, prev);
  Color opp = pos->side;
  if (pos_checkers_of(prev, opp)) return false;
  Move m = u->move;
  if (u->captured && piece_type(u->captured) == PAWN) {
    Bitboard pawns = pos_pieces(prev, opp, PAWN) & BB_FILE[sq_file(move_to(m))];
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

static void try_add(const Position *pos, UnMoveList *l, UnMove u) {
  if (l->size >= MAX_UNMOVES) return;
  Position tmp, *prev = l->prev ? &l->prev[l->size] : &tmp;
  if (prev_ok(pos, &u, prev)) l->u[l->size++] = u;
}

static void add_with_captures(const Position *pos, UnMoveList *l, Move m, unsigned kinds) {
  Color mover = color_flip(pos->side), opp = pos->side;
  Square to = move_to(m);
  UnMove u = {m, PIECE_NONE};
  try_add(pos, l, u);
  if (move_is_drop(m)) return;
  Hand h = pos->hand[mover];
  for (int t = PAWN; t <= GOLD; t++) {
    if (!hand_has(h, (PieceType)t) || !(kinds & (1u << t))) continue;
    for (int pr = 0; pr < 2; pr++) {
      if (pr && !pt_can_promote((PieceType)t)) continue;
      PieceType ct = pr ? pt_promote((PieceType)t) : (PieceType)t;
      if (!pr && dead_on(opp, ct, to)) continue;
      u.captured = piece_make(opp, ct);
      try_add(pos, l, u);
    }
  }
}

void retro_generate(const Position *pos, UnMoveList *l) { retro_generate_kinds(pos, l, ~0u); }

void retro_generate_kinds(const Position *pos, UnMoveList *l, unsigned kinds) {
  retro_generate_to(pos, l, kinds, BB_ALL);
}

void retro_generate_to(const Position *pos, UnMoveList *l, unsigned kinds, Bitboard to_mask) {
  Color mover = color_flip(pos->side);
  l->size = 0;
  Bitboard occ = pos_occupied(pos);
  Bitboard empty = BB_ALL & ~occ;
  Bitboard mine = pos->by_color[mover] & to_mask;
  while (mine) {
    Square to = bb_pop(&mine);
    Piece p = pos->board[to];
    PieceType t = piece_type(p);
    /* un-drop */
    if (t <= GOLD) add_with_captures(pos, l, move_make_drop(t, to, mover), kinds);
    /* moved as the same kind: from squares that reach `to` */
    Bitboard from = bb_attacks(color_flip(mover), t, to, occ) & empty;
    while (from) {
      Square f = bb_pop(&from);
      /* a promotable piece that did not promote: it must not be dead on `to` (it is not) */
      add_with_captures(pos, l, move_make(f, to, false, p), kinds);
    }
    /* promoted on this move */
    if (pt_is_promoted(t)) {
      PieceType b = pt_demote(t);
      Piece bp = piece_make(mover, b);
      Bitboard fr = bb_attacks(color_flip(mover), b, to, occ) & empty;
      while (fr) {
        Square f = bb_pop(&fr);
        if (bb_test(BB_ZONE[mover], f) || bb_test(BB_ZONE[mover], to)) add_with_captures(pos, l, move_make(f, to, true, bp), kinds);
      }
    }
  }
}
