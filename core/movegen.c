#include "movegen.h"

static inline int rel_rank(Color c, Square s) { return c == BLACK ? sq_rank(s) : 10 - sq_rank(s); }

/* A pawn or lance on the last rank, or a knight on the last two, could never move again. */
static inline bool must_promote(Color c, PieceType t, Square to) {
  int rr = rel_rank(c, to);
  return ((t == PAWN || t == LANCE) && rr == 1) || (t == KNIGHT && rr <= 2);
}

static inline void push(MoveList *l, Move m) { l->moves[l->size++] = m; }

/* Squares where a dropped piece of kind t keeps a future move. */
static inline Bitboard drop_ok_ranks(Color c, PieceType t) {
  if (t == PAWN || t == LANCE) return BB_ALL & ~BB_RANK[c == BLACK ? 1 : 9];
  if (t == KNIGHT) return BB_ALL & ~(c == BLACK ? (BB_RANK[1] | BB_RANK[2]) : (BB_RANK[8] | BB_RANK[9]));
  return BB_ALL;
}

/* Files where colour c has an unpromoted pawn. */
static inline Bitboard pawn_files(const Position *pos, Color c) {
  Bitboard p = pos_pieces(pos, c, PAWN), f = 0;
  while (p) f |= BB_FILE[sq_file(bb_pop(&p))];
  return f;
}

/* 打ち歩詰め: would the pawn drop on `to` mate? Only asked when it checks. */
static bool pawn_drop_mates(const Position *pos, Square to) {
  Position tmp = *pos;
  Undo u;
  pos_do_move(&tmp, move_make_drop(PAWN, to, pos->side), &u);
  return !movegen_has_legal(&tmp);
}

/* Board moves of the pieces in `from_set` to `targets` (no legality filter yet). */
static void gen_piece_moves(const Position *pos, MoveList *l, Bitboard from_set, Bitboard targets) {
  Color us = pos->side;
  Bitboard occ = pos_occupied(pos);
  while (from_set) {
    Square from = bb_pop(&from_set);
    Piece p = pos->board[from];
    PieceType t = piece_type(p);
    Bitboard att = bb_attacks(us, t, from, occ) & targets;
    if (!pt_can_promote(t)) {
      while (att) push(l, move_make(from, bb_pop(&att), false, p));
      continue;
    }
    bool from_zone = bb_test(BB_ZONE[us], from);
    while (att) {
      Square to = bb_pop(&att);
      if (from_zone || bb_test(BB_ZONE[us], to)) {
        push(l, move_make(from, to, true, p));
        if (!must_promote(us, t, to)) push(l, move_make(from, to, false, p));
      } else {
        push(l, move_make(from, to, false, p));
      }
    }
  }
}

static void gen_drops(const Position *pos, MoveList *l, Bitboard targets) {
  Color us = pos->side;
  Hand h = pos->hand[us];
  if (!h || !targets) return; /* no target: an evasion of an adjacent check */
  Square ek = pos->king[color_flip(us)];
  for (int t = PAWN; t <= GOLD; t++) {
    if (!hand_has(h, (PieceType)t)) continue;
    Bitboard b = targets & drop_ok_ranks(us, (PieceType)t);
    if (t == PAWN) b &= ~pawn_files(pos, us);
    while (b) {
      Square to = bb_pop(&b);
      if (t == PAWN && ek != SQ_NONE && bb_test(STEP_ATTACKS[us][PAWN][to], ek) && pawn_drop_mates(pos, to))
        continue;
      push(l, move_make_drop((PieceType)t, to, us));
    }
  }
}

/* King moves to squares not attacked once the king has left its square. */
static void gen_king_moves(const Position *pos, MoveList *l) {
  Color us = pos->side, them = color_flip(us);
  Square k = pos->king[us];
  Bitboard occ = pos_occupied(pos) & ~BB_SQ[k];
  Bitboard b = STEP_ATTACKS[us][KING][k] & ~pos->by_color[us];
  Piece p = pos->board[k];
  b &= ~pos_attacks_near(pos, them, k, b, occ);
  while (b) push(l, move_make(k, bb_pop(&b), false, p));
}

/* Keeps the moves of pinned pieces that stay on their pin line. */
static void filter_pinned(const Position *pos, MoveList *l, int start) {
  Color us = pos->side;
  Square k = pos->king[us];
  if (l->size == start) return;
  Bitboard pinned = pos_blockers(pos, us, color_flip(us)) & pos->by_color[us];
  if (!pinned) return;
  int w = start;
  for (int i = start; i < l->size; i++) {
    Move m = l->moves[i];
    if (!move_is_drop(m) && bb_test(pinned, move_from(m)) && !bb_test(LINE[k][move_from(m)], move_to(m)))
      continue;
    l->moves[w++] = m;
  }
  l->size = w;
}

void movegen_evasions(const Position *pos, MoveList *l) {
  Color us = pos->side;
  Square k = pos->king[us];
  l->size = 0;
  gen_king_moves(pos, l);
  if (bb_more_than_one(pos->checkers)) return;
  Square c = bb_lsb(pos->checkers);
  Bitboard between = BETWEEN[k][c];
  int start = l->size;
  /* only pieces that reach the checker or a square between move: found from those few squares */
  Bitboard movers = 0, occ = pos_occupied(pos);
  for (Bitboard t = between | BB_SQ[c]; t;) movers |= pos_attackers_to(pos, bb_pop(&t), us, occ);
  gen_piece_moves(pos, l, movers & ~BB_SQ[k], between | BB_SQ[c]);
  filter_pinned(pos, l, start);
  gen_drops(pos, l, between);
}

void movegen_legal(const Position *pos, MoveList *l) {
  Color us = pos->side;
  Square k = pos->king[us];
  if (k != SQ_NONE && pos->checkers) {
    movegen_evasions(pos, l);
    return;
  }
  l->size = 0;
  Bitboard targets = ~pos->by_color[us] & BB_ALL;
  if (k != SQ_NONE) {
    gen_king_moves(pos, l);
    gen_piece_moves(pos, l, pos->by_color[us] & ~BB_SQ[k], targets);
    filter_pinned(pos, l, 0);
  } else {
    gen_piece_moves(pos, l, pos->by_color[us], targets);
  }
  gen_drops(pos, l, BB_ALL & ~pos_occupied(pos));
}

/* Keeps the moves of l from `start` on that give check (ek: the opponent's king). */
static void filter_checks(const Position *pos, MoveList *l, int start, Square ek) {
  Color us = pos->side;
  Bitboard disc = pos_blockers(pos, color_flip(us), us) & pos->by_color[us];
  Bitboard occ0 = pos_occupied(pos);
  int w = start;
  for (int i = start; i < l->size; i++) {
    Move m = l->moves[i];
    Square to = move_to(m);
    PieceType t;
    Bitboard occ = occ0 | BB_SQ[to];
    if (move_is_drop(m)) {
      t = move_drop_type(m);
    } else {
      Square from = move_from(m);
      if (bb_test(disc, from) && !bb_test(LINE[ek][from], to)) {
        l->moves[w++] = m;
        continue;
      }
      occ &= ~BB_SQ[from];
      t = piece_type(move_piece(m));
      if (move_is_promote(m)) t = pt_promote(t);
    }
    if (bb_test(bb_attacks(us, t, to, occ), ek)) l->moves[w++] = m;
  }
  l->size = w;
}

/*
 * The board moves of a side without a king (none pinned) that give check to
 * ek, in gen_piece_moves's order: each piece's destinations are cut to the
 * squares it checks from (its kind and its promoted kind, with its origin
 * vacated), or to those off its line to the king when moving it uncovers a
 * ranging piece (filter_checks's test, made per piece instead of per move).
 */
static void gen_piece_checks(const Position *pos, MoveList *l, Bitboard targets, Square ek) {
  Color us = pos->side, them = color_flip(us);
  Bitboard occ = pos_occupied(pos);
  Bitboard disc = pos_blockers(pos, them, us) & pos->by_color[us];
  for (Bitboard from_set = pos->by_color[us]; from_set;) {
    Square from = bb_pop(&from_set);
    Piece p = pos->board[from];
    PieceType t = piece_type(p);
    Bitboard att = bb_attacks(us, t, from, occ) & targets;
    if (!att) continue;
    Bitboard occf = occ & ~BB_SQ[from];
    Bitboard uncover = bb_test(disc, from) ? BB_ALL & ~LINE[ek][from] : 0;
    Bitboard chk = bb_attacks(them, t, ek, occf) | uncover;
    if (!pt_can_promote(t)) {
      att &= chk;
      while (att) push(l, move_make(from, bb_pop(&att), false, p));
      continue;
    }
    Bitboard chkp = bb_attacks(them, pt_promote(t), ek, occf) | uncover;
    att &= chk | chkp;
    bool from_zone = bb_test(BB_ZONE[us], from);
    while (att) {
      Square to = bb_pop(&att);
      if (from_zone || bb_test(BB_ZONE[us], to)) {
        if (bb_test(chkp, to)) push(l, move_make(from, to, true, p));
        if (!must_promote(us, t, to) && bb_test(chk, to)) push(l, move_make(from, to, false, p));
      } else if (bb_test(chk, to)) {
        push(l, move_make(from, to, false, p));
      }
    }
  }
}

/*
 * The legal moves that give check, in movegen_legal's order: the board moves
 * are generated and filtered; a drop checks only from a square its piece
 * would attack the king from, so the drops are generated on those alone.
 */
void movegen_checks(const Position *pos, MoveList *l) {
  Color us = pos->side, them = color_flip(us);
  Square ek = pos->king[them], k = pos->king[us];
  l->size = 0;
  if (ek == SQ_NONE) return;
  if (k != SQ_NONE && pos->checkers) {
    movegen_evasions(pos, l);
    filter_checks(pos, l, 0, ek);
    return;
  }
  Bitboard targets = ~pos->by_color[us] & BB_ALL, occ = pos_occupied(pos);
  if (k != SQ_NONE) {
    gen_king_moves(pos, l);
    gen_piece_moves(pos, l, pos->by_color[us] & ~BB_SQ[k], targets);
    filter_pinned(pos, l, 0);
    filter_checks(pos, l, 0, ek);
  } else {
    gen_piece_checks(pos, l, targets, ek);
  }
  Hand h = pos->hand[us];
  Bitboard empty = BB_ALL & ~occ;
  for (int t = PAWN; t <= GOLD && h; t++) {
    if (!hand_has(h, (PieceType)t)) continue;
    /* a piece of ours on these squares attacks the king: those of the king's own attacks as theirs */
    Bitboard b = bb_attacks(them, (PieceType)t, ek, occ) & empty & drop_ok_ranks(us, (PieceType)t);
    if (t == PAWN) b &= ~pawn_files(pos, us);
    while (b) {
      Square to = bb_pop(&b);
      if (t == PAWN && pawn_drop_mates(pos, to)) continue;
      push(l, move_make_drop((PieceType)t, to, us));
    }
  }
}

bool movegen_has_legal(const Position *pos) {
  MoveList l;
  movegen_legal(pos, &l);
  return l.size > 0;
}

bool pos_is_mate(const Position *pos) { return pos->checkers && !movegen_has_legal(pos); }

uint64_t perft(Position *pos, int depth, bool bulk) {
  MoveList l;
  movegen_legal(pos, &l);
  if (depth <= 1) {
    if (depth <= 0) return 1;
    if (bulk) return (uint64_t)l.size;
  }
  uint64_t n = 0;
  for (int i = 0; i < l.size; i++) {
    Undo u;
    pos_do_move(pos, l.moves[i], &u);
    n += depth == 1 ? 1 : perft(pos, depth - 1, bulk);
    pos_undo_move(pos, l.moves[i], &u);
  }
  return n;
}
