#include "position.h"

#include <assert.h>
#include <pthread.h>
#include <string.h>

#include "movegen.h"

/* Zobrist keys: a fixed splitmix64 stream, so keys are the same in every run. */
static uint64_t ZOB_PSQ[SQ_NB][PIECE_NB];
static uint64_t ZOB_HAND[COLOR_NB][HAND_PT_NB];
static uint64_t ZOB_SIDE;
static pthread_once_t zob_once = PTHREAD_ONCE_INIT;

static uint64_t splitmix64(uint64_t *x) {
  uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

static void zobrist_fill(void) {
  uint64_t seed = 20261122;
  for (int s = 0; s < SQ_NB; s++)
    for (int p = 0; p < PIECE_NB; p++) ZOB_PSQ[s][p] = splitmix64(&seed) & ~1ULL;
  for (int c = 0; c < COLOR_NB; c++)
    for (int t = 0; t < HAND_PT_NB; t++) ZOB_HAND[c][t] = splitmix64(&seed) & ~1ULL;
  ZOB_SIDE = 1; /* bit 0 of the board key is the side to move */
}

/* Fills the keys once, whichever thread sets up the first position. */
static void zobrist_init(void) { pthread_once(&zob_once, zobrist_fill); }

static uint64_t hand_key_of(const Position *pos) {
  uint64_t k = 0;
  for (int c = 0; c < COLOR_NB; c++)
    if (pos->hand[c])
      for (int t = PAWN; t <= GOLD; t++) k += ZOB_HAND[c][t] * (uint64_t)hand_count(pos->hand[c], (PieceType)t);
  return k;
}

static uint64_t board_key_of(const Position *pos) {
  uint64_t k = pos->side == WHITE ? ZOB_SIDE : 0;
  Bitboard occ = pos_occupied(pos);
  while (occ) {
    Square s = bb_pop(&occ);
    k ^= ZOB_PSQ[s][pos->board[s]];
  }
  return k;
}

void pos_clear(Position *pos) {
  core_init();
  zobrist_init();
  memset(pos, 0, sizeof *pos);
  pos->king[BLACK] = pos->king[WHITE] = SQ_NONE;
  pos->ply = 1;
}

void pos_put(Position *pos, Square s, Piece p) {
  pos->board[s] = p;
  pos->by_color[piece_color(p)] |= BB_SQ[s];
  pos->by_type[piece_type(p)] |= BB_SQ[s];
  if (piece_type(p) == KING) pos->king[piece_color(p)] = s;
}

void pos_add(Position *pos, Square s, Piece p) {
  pos_put(pos, s, p);
  pos->board_key ^= ZOB_PSQ[s][p];
  pos->checkers = pos_checkers_of(pos, pos->side);
}

void pos_remove(Position *pos, Square s) {
  Piece p = pos->board[s];
  if (!p) return;
  pos->board[s] = PIECE_NONE;
  pos->by_color[piece_color(p)] &= ~BB_SQ[s];
  pos->by_type[piece_type(p)] &= ~BB_SQ[s];
  if (piece_type(p) == KING && pos->king[piece_color(p)] == s) pos->king[piece_color(p)] = SQ_NONE;
}

Bitboard pos_attackers_to(const Position *pos, Square s, Color by, Bitboard occ) {
  Color o = color_flip(by);
  const Bitboard *T = pos->by_type;
  Bitboard mine = pos->by_color[by];
  Bitboard gold = T[GOLD] | T[PRO_PAWN] | T[PRO_LANCE] | T[PRO_KNIGHT] | T[PRO_SILVER];
  Bitboard a = (STEP_ATTACKS[o][PAWN][s] & T[PAWN]) | (STEP_ATTACKS[o][KNIGHT][s] & T[KNIGHT]) |
               (STEP_ATTACKS[o][SILVER][s] & T[SILVER]) | (STEP_ATTACKS[o][GOLD][s] & gold) |
               (STEP_ATTACKS[o][KING][s] & (T[KING] | T[HORSE] | T[DRAGON]));
  /* A ranging piece on a line through s attacks it when nothing stands between:
   * the few such pieces are cheaper to test one by one than the rays to trace. */
  Bitboard sliders = ((LANCE_REACH[o][s] & T[LANCE]) | (BISHOP_REACH[s] & (T[BISHOP] | T[HORSE])) |
                      (ROOK_REACH[s] & (T[ROOK] | T[DRAGON]))) &
                     mine;
  while (sliders) {
    Square q = bb_pop(&sliders);
    if (!(BETWEEN[s][q] & occ)) a |= BB_SQ[q];
  }
  return a & mine;
}

Bitboard pos_attacks_near(const Position *pos, Color by, Square k, Bitboard targets, Bitboard occ) {
  const Bitboard *T = pos->by_type;
  Bitboard mine = pos->by_color[by];
  Bitboard hit = 0;
  /* steps (the ranging kinds have none but the horse's and dragon's) */
  for (Bitboard near = NEAR_SQUARES[k] & mine; near;) {
    Square q = bb_pop(&near);
    hit |= STEP_ATTACKS[by][piece_type(pos->board[q])][q];
  }
  hit &= targets;
  /* ranging moves: each target still open on a line of a ranging piece is
   * reached when nothing stands between (targets are few, rays are long) */
  Bitboard sliders = ((T[LANCE] | T[BISHOP] | T[ROOK] | T[HORSE] | T[DRAGON]) & mine);
  while (sliders && hit != targets) {
    Square q = bb_pop(&sliders);
    PieceType t = piece_type(pos->board[q]);
    Bitboard cand = (t == LANCE ? LANCE_REACH[by][q] : t == BISHOP || t == HORSE ? BISHOP_REACH[q] : ROOK_REACH[q]) &
                    targets & ~hit;
    while (cand) {
      Square x = bb_pop(&cand);
      if (!(BETWEEN[q][x] & occ)) hit |= BB_SQ[x];
    }
  }
  return hit;
}

void pos_near_init(PosNear *nr, const Position *pos, Square k) {
  const Color by = pos->side;
  const Bitboard ring = STEP_ATTACKS[BLACK][KING][k];
  Bitboard one = 0, two = 0;
  for (Bitboard near = NEAR_SQUARES[k] & pos->by_color[by]; near;) {
    Square q = bb_pop(&near);
    Bitboard a = STEP_ATTACKS[by][piece_type(pos->board[q])][q] & ring;
    two |= one & a;
    one |= a;
  }
  nr->step1 = one;
  nr->step2 = two;
  nr->sliders = 0;
  const Bitboard *T = pos->by_type;
  for (Bitboard sl = (T[LANCE] | T[BISHOP] | T[ROOK] | T[HORSE] | T[DRAGON]) & pos->by_color[by]; sl;) {
    Square q = bb_pop(&sl);
    PieceType t = piece_type(pos->board[q]);
    Bitboard r = (t == LANCE ? LANCE_REACH[by][q] : t == BISHOP || t == HORSE ? BISHOP_REACH[q] : ROOK_REACH[q]) & ring;
    if (!r) continue; /* no line of it passes next to k */
    nr->slider_sq[nr->sliders] = q;
    nr->slider_reach[nr->sliders++] = r;
  }
}

Bitboard pos_near_after(const PosNear *nr, const Position *pos, Move m, Bitboard targets, Bitboard occ) {
  const Color by = pos->side;
  const Square to = move_to(m);
  Square from = SQ_NONE;
  Bitboard gone = 0; /* the steps of the moved piece from its old square */
  Piece np;
  if (move_is_drop(m)) {
    np = piece_make(by, move_drop_type(m));
  } else {
    from = move_from(m);
    Piece p = pos->board[from];
    np = move_is_promote(m) ? (Piece)(p + PT_PROMOTE) : p;
    gone = STEP_ATTACKS[by][piece_type(p)][from];
  }
  const PieceType nt = piece_type(np);
  /* a square the moved piece stepped on stays attacked when another piece steps on it too */
  Bitboard hit = ((nr->step1 & ~gone) | nr->step2 | STEP_ATTACKS[by][nt][to]) & targets;
  for (int j = 0; j < nr->sliders && hit != targets; j++) {
    Square q = nr->slider_sq[j];
    if (q == from) continue;
    for (Bitboard cand = nr->slider_reach[j] & targets & ~hit; cand;) {
      Square x = bb_pop(&cand);
      if (!(BETWEEN[q][x] & occ)) hit |= BB_SQ[x];
    }
  }
  if ((nt == LANCE || nt == BISHOP || nt == ROOK || nt == HORSE || nt == DRAGON) && hit != targets) {
    Bitboard r = nt == LANCE ? LANCE_REACH[by][to] : nt == BISHOP || nt == HORSE ? BISHOP_REACH[to] : ROOK_REACH[to];
    for (Bitboard cand = r & targets & ~hit; cand;) {
      Square x = bb_pop(&cand);
      if (!(BETWEEN[to][x] & occ)) hit |= BB_SQ[x];
    }
  }
  return hit;
}

Bitboard pos_attacks_near_after(const Position *pos, Move m, Square k, Bitboard targets, Bitboard occ) {
  PosNear nr;
  pos_near_init(&nr, pos, k);
  return pos_near_after(&nr, pos, m, targets, occ);
}

Bitboard pos_checkers_of(const Position *pos, Color c) {
  Square k = pos->king[c];
  if (k == SQ_NONE) return 0;
  return pos_attackers_to(pos, k, color_flip(c), pos_occupied(pos));
}

Bitboard pos_blockers(const Position *pos, Color kc, Color sc) {
  Square k = pos->king[kc];
  if (k == SQ_NONE) return 0;
  const Bitboard *T = pos->by_type;
  Bitboard snipers = ((LANCE_REACH[color_flip(sc)][k] & T[LANCE]) | (BISHOP_REACH[k] & (T[BISHOP] | T[HORSE])) |
                      (ROOK_REACH[k] & (T[ROOK] | T[DRAGON]))) &
                     pos->by_color[sc];
  Bitboard occ = pos_occupied(pos);
  Bitboard result = 0;
  while (snipers) {
    Square s = bb_pop(&snipers);
    Bitboard b = BETWEEN[k][s] & occ;
    if (b && !bb_more_than_one(b)) result |= b;
  }
  return result;
}

void pos_finish_setup(Position *pos) {
  zobrist_init();
  pos->king[BLACK] = pos->king[WHITE] = SQ_NONE;
  Bitboard kings = pos->by_type[KING];
  while (kings) {
    Square s = bb_pop(&kings);
    pos->king[piece_color(pos->board[s])] = s;
  }
  pos->board_key = board_key_of(pos);
  pos->hand_key = hand_key_of(pos);
  pos->checkers = pos_checkers_of(pos, pos->side);
}

void pos_give_remaining(Position *pos, Color c) {
  int used[PT_NB] = {0};
  Bitboard occ = pos_occupied(pos);
  while (occ) used[pt_demote(piece_type(pos->board[bb_pop(&occ)]))]++;
  Color o = color_flip(c);
  Hand h = 0;
  for (int t = PAWN; t <= GOLD; t++) {
    int n = PIECE_INVENTORY[t] - used[t] - hand_count(pos->hand[o], (PieceType)t);
    if (n > 0) h = hand_set(h, (PieceType)t, n);
  }
  pos->hand[c] = h;
  pos->hand_key = hand_key_of(pos);
}

static const char *PT_NAME[PT_NB] = {"", "pawn", "lance", "knight", "silver", "bishop", "rook", "gold",
                                     "king", "tokin", "promoted lance", "promoted knight",
                                     "promoted silver", "horse", "dragon"};

/* Rank counted from the side's own far end: 1 = the last rank it moves towards. */
static inline int rel_rank(Color c, Square s) { return c == BLACK ? sq_rank(s) : 10 - sq_rank(s); }

int pos_validate(const Position *pos, const char *where, TsError *err) {
  int count[PT_NB] = {0};
  int kings[COLOR_NB] = {0};
  for (Square s = 0; s < SQ_NB; s++) {
    Piece p = pos->board[s];
    if (!p) continue;
    PieceType t = piece_type(p);
    Color c = piece_color(p);
    if (t == PT_NONE || t >= PT_NB || (p >> 4) > 1)
      return ts_error_set(err, TS_ERR_ILLEGAL, where, 0, 0, "invalid piece code on %d%d", sq_file(s), sq_rank(s));
    count[pt_demote(t)]++;
    if (t == KING) kings[c]++;
    int rr = rel_rank(c, s);
    if (((t == PAWN || t == LANCE) && rr == 1) || (t == KNIGHT && rr <= 2))
      return ts_error_set(err, TS_ERR_ILLEGAL, where, 0, 0, "%s %s on %d%d has no future move",
                          c == BLACK ? "sente" : "gote", PT_NAME[t], sq_file(s), sq_rank(s));
  }
  for (int c = 0; c < COLOR_NB; c++) {
    if (kings[c] > 1)
      return ts_error_set(err, TS_ERR_ILLEGAL, where, 0, 0, "%s has %d kings", c ? "gote" : "sente", kings[c]);
    for (int t = PAWN; t <= GOLD; t++) count[t] += hand_count(pos->hand[c], (PieceType)t);
    for (int f = 1; f <= 9; f++) {
      int pawns = bb_popcount(pos_pieces(pos, (Color)c, PAWN) & BB_FILE[f]);
      if (pawns > 1)
        return ts_error_set(err, TS_ERR_ILLEGAL, where, 0, 0, "二歩: %s has %d pawns on file %d",
                            c ? "gote" : "sente", pawns, f);
    }
  }
  int total = 0;
  for (int t = PAWN; t <= KING; t++) {
    total += count[t];
    if (count[t] > PIECE_INVENTORY[t])
      return ts_error_set(err, TS_ERR_ILLEGAL, where, 0, 0, "%d %ss, but a set has only %d", count[t],
                          PT_NAME[t], PIECE_INVENTORY[t]);
  }
  if (total > 40) return ts_error_set(err, TS_ERR_ILLEGAL, where, 0, 0, "%d pieces, a set has 40", total);
  if (pos_checkers_of(pos, color_flip(pos->side)))
    return ts_error_set(err, TS_ERR_ILLEGAL, where, 0, 0, "the side not to move (%s) is in check",
                        pos->side == BLACK ? "gote" : "sente");
  return TS_OK;
}

int pos_validate_problem(const Position *pos, const char *where, TsError *err) {
  int rc = pos_validate(pos, where, err);
  if (rc) return rc;
  Color defender = color_flip(pos->side);
  if (pos->king[defender] == SQ_NONE)
    return ts_error_set(err, TS_ERR_ILLEGAL, where, 0, 0, "the defender (%s, the side not to move) has no king",
                        defender == BLACK ? "sente" : "gote");
  return TS_OK;
}

static inline void put_piece(Position *pos, Square s, Piece p, bool keyed) {
  pos->board[s] = p;
  pos->by_color[piece_color(p)] |= BB_SQ[s];
  pos->by_type[piece_type(p)] |= BB_SQ[s];
  if (keyed) pos->board_key ^= ZOB_PSQ[s][p];
}

static inline void remove_piece(Position *pos, Square s, bool keyed) {
  Piece p = pos->board[s];
  pos->board[s] = PIECE_NONE;
  pos->by_color[piece_color(p)] ^= BB_SQ[s];
  pos->by_type[piece_type(p)] ^= BB_SQ[s];
  if (keyed) pos->board_key ^= ZOB_PSQ[s][p];
}

/* Board-only moves of one piece that keep the king squares up to date. */
static inline void place(Position *pos, Square s, Piece p) {
  pos->board[s] = p;
  pos->by_color[piece_color(p)] |= BB_SQ[s];
  pos->by_type[piece_type(p)] |= BB_SQ[s];
  if (piece_type(p) == KING) pos->king[piece_color(p)] = s;
}

static inline void unplace(Position *pos, Square s) {
  Piece p = pos->board[s];
  pos->board[s] = PIECE_NONE;
  pos->by_color[piece_color(p)] ^= BB_SQ[s];
  pos->by_type[piece_type(p)] ^= BB_SQ[s];
  if (piece_type(p) == KING) pos->king[piece_color(p)] = SQ_NONE;
}

/* Does a piece of colour c and kind t on q attack k, given the occupancy? */
static inline bool piece_attacks_sq(Color c, PieceType t, Square q, Square k, Bitboard occ) {
  switch (t) {
  case LANCE: return bb_test(LANCE_REACH[c][q], k) && !(BETWEEN[q][k] & occ);
  case BISHOP: return bb_test(BISHOP_REACH[q], k) && !(BETWEEN[q][k] & occ);
  case ROOK: return bb_test(ROOK_REACH[q], k) && !(BETWEEN[q][k] & occ);
  case HORSE: return bb_test(STEP_ATTACKS[c][KING][q], k) || (bb_test(BISHOP_REACH[q], k) && !(BETWEEN[q][k] & occ));
  case DRAGON: return bb_test(STEP_ATTACKS[c][KING][q], k) || (bb_test(ROOK_REACH[q], k) && !(BETWEEN[q][k] & occ));
  default: return bb_test(STEP_ATTACKS[c][t][q], k);
  }
}

/* Checkers of the side to move right after the other side (us) played to `to`
 * from `from` (SQ_NONE for a drop): the moved piece itself, and ranging pieces
 * of us uncovered on a line through `from`. Nothing else can check when the
 * side to move was not in check before the move. */
static inline Bitboard checkers_after_move(const Position *pos, Color us, Square from, Square to) {
  Square k = pos->king[pos->side];
  if (k == SQ_NONE) return 0;
  Bitboard occ = pos_occupied(pos);
  Bitboard c = piece_attacks_sq(us, piece_type(pos->board[to]), to, k, occ) ? BB_SQ[to] : 0;
  if (from != SQ_NONE && bb_test(BISHOP_REACH[k] | ROOK_REACH[k], from)) {
    const Bitboard *T = pos->by_type;
    Bitboard sliders = LINE[k][from] & pos->by_color[us] & ~BB_SQ[to] &
                       ((LANCE_REACH[pos->side][k] & T[LANCE]) | (BISHOP_REACH[k] & (T[BISHOP] | T[HORSE])) |
                        (ROOK_REACH[k] & (T[ROOK] | T[DRAGON])));
    while (sliders) {
      Square q = bb_pop(&sliders);
      if (!(BETWEEN[k][q] & occ)) c |= BB_SQ[q];
    }
  }
  return c;
}

static inline void do_move(Position *pos, Move m, Undo *u, bool keyed) {
  Color us = pos->side;
  Square to = move_to(m);
  u->board_key = pos->board_key;
  u->hand_key = pos->hand_key;
  u->checkers = pos->checkers;
  u->captured = PIECE_NONE;
  if (move_is_drop(m)) {
    PieceType t = move_drop_type(m);
    pos->hand[us] = hand_sub(pos->hand[us], t);
    if (keyed) pos->hand_key -= ZOB_HAND[us][t];
    put_piece(pos, to, piece_make(us, t), keyed);
  } else {
    Square from = move_from(m);
    Piece p = pos->board[from];
    Piece cap = pos->board[to];
    if (cap) {
      PieceType ct = pt_demote(piece_type(cap));
      u->captured = cap;
      remove_piece(pos, to, keyed);
      if (ct == KING) {
        pos->king[piece_color(cap)] = SQ_NONE;
      } else {
        pos->hand[us] = hand_add(pos->hand[us], ct);
        if (keyed) pos->hand_key += ZOB_HAND[us][ct];
      }
    }
    remove_piece(pos, from, keyed);
    Piece np = move_is_promote(m) ? (Piece)(p + PT_PROMOTE) : p;
    put_piece(pos, to, np, keyed);
    if (piece_type(p) == KING) pos->king[us] = to;
  }
  pos->side = color_flip(us);
  if (keyed) pos->board_key ^= ZOB_SIDE;
  pos->checkers = checkers_after_move(pos, us, move_is_drop(m) ? SQ_NONE : move_from(m), to);
  assert(pos->checkers == pos_checkers_of(pos, pos->side));
}

void pos_unmove(Position *pos, Move m, Piece captured) {
  Color mover = color_flip(pos->side);
  Square to = move_to(m);
  Piece now = pos->board[to];
  pos->board_key ^= ZOB_PSQ[to][now];
  pos_remove(pos, to);
  if (move_is_drop(m)) {
    PieceType t = move_drop_type(m);
    pos->hand[mover] = hand_add(pos->hand[mover], t);
    pos->hand_key += ZOB_HAND[mover][t];
  } else {
    Square from = move_from(m);
    Piece before = move_is_promote(m) ? (Piece)(now - PT_PROMOTE) : now;
    pos_put(pos, from, before);
    pos->board_key ^= ZOB_PSQ[from][before];
    if (captured) {
      PieceType ct = pt_demote(piece_type(captured));
      pos_put(pos, to, captured);
      pos->board_key ^= ZOB_PSQ[to][captured];
      pos->hand[mover] = hand_sub(pos->hand[mover], ct);
      pos->hand_key -= ZOB_HAND[mover][ct];
    }
  }
  pos->side = mover;
  pos->board_key ^= ZOB_SIDE;
  pos->checkers = pos_checkers_of(pos, mover);
}

void pos_do_move(Position *pos, Move m, Undo *u) { do_move(pos, m, u, true); }

void pos_do_move_unkeyed(Position *pos, Move m, Undo *u) { do_move(pos, m, u, false); }

void pos_undo_move(Position *pos, Move m, const Undo *u) {
  Color us = color_flip(pos->side);
  Square to = move_to(m);
  pos->side = us;
  /* the keys come back from u: the pieces move without them */
  if (move_is_drop(m)) {
    unplace(pos, to);
    pos->hand[us] = hand_add(pos->hand[us], move_drop_type(m));
  } else {
    Piece np = pos->board[to];
    unplace(pos, to);
    place(pos, move_from(m), move_is_promote(m) ? (Piece)(np - PT_PROMOTE) : np);
    if (u->captured) {
      place(pos, to, u->captured);
      PieceType ct = pt_demote(piece_type(u->captured));
      if (ct != KING) pos->hand[us] = hand_sub(pos->hand[us], ct);
    }
  }
  pos->board_key = u->board_key;
  pos->hand_key = u->hand_key;
  pos->checkers = u->checkers;
}

void pos_place_move(Position *pos, Move m, Piece *captured) {
  Square to = move_to(m);
  *captured = pos->board[to];
  if (move_is_drop(m)) {
    place(pos, to, move_piece(m));
    return;
  }
  Square from = move_from(m);
  Piece p = pos->board[from];
  if (*captured) unplace(pos, to);
  unplace(pos, from);
  place(pos, to, move_is_promote(m) ? (Piece)(p + PT_PROMOTE) : p);
}

void pos_unplace_move(Position *pos, Move m, Piece captured) {
  Square to = move_to(m);
  Piece np = pos->board[to];
  unplace(pos, to);
  if (!move_is_drop(m)) place(pos, move_from(m), move_is_promote(m) ? (Piece)(np - PT_PROMOTE) : np);
  if (captured) place(pos, to, captured);
}

bool pos_gives_check(const Position *pos, Move m) {
  Color us = pos->side, them = color_flip(us);
  Square k = pos->king[them];
  if (k == SQ_NONE) return false;
  Square to = move_to(m);
  Bitboard occ = pos_occupied(pos) | BB_SQ[to];
  PieceType t;
  if (move_is_drop(m)) {
    t = move_drop_type(m);
  } else {
    Square from = move_from(m);
    occ &= ~BB_SQ[from];
    t = piece_type(pos->board[from]);
    if (move_is_promote(m)) t = pt_promote(t);
    Bitboard bl = pos_blockers(pos, them, us) & pos->by_color[us];
    if (bb_test(bl, from) && !bb_test(LINE[k][from], to)) return true;
  }
  return bb_test(bb_attacks(us, t, to, occ), k);
}

bool pos_move_is_legal(const Position *pos, Move m) {
  MoveList list;
  movegen_legal(pos, &list);
  for (int i = 0; i < list.size; i++)
    if (move_compact(list.moves[i]) == move_compact(m)) return true;
  return false;
}

void pos_mirror(const Position *pos, Position *out) {
  Position tmp;
  pos_clear(&tmp);
  for (Square s = 0; s < SQ_NB; s++)
    if (pos->board[s]) pos_put(&tmp, sq_mirror(s), pos->board[s]);
  tmp.hand[BLACK] = pos->hand[BLACK];
  tmp.hand[WHITE] = pos->hand[WHITE];
  tmp.side = pos->side;
  tmp.ply = pos->ply;
  pos_finish_setup(&tmp);
  *out = tmp;
}

Move move_mirror(Move m) {
  Square to = sq_mirror(move_to(m));
  Square from = move_is_drop(m) ? move_from(m) : sq_mirror(move_from(m));
  return (m & ~(Move)0x3fff) | (Move)to | ((Move)from << 7);
}

bool pos_equal(const Position *a, const Position *b) {
  return memcmp(a->board, b->board, sizeof a->board) == 0 && a->hand[0] == b->hand[0] &&
         a->hand[1] == b->hand[1] && a->side == b->side;
}

bool pos_is_ok(const Position *pos) {
  Position q;
  pos_clear(&q);
  for (Square s = 0; s < SQ_NB; s++)
    if (pos->board[s]) pos_put(&q, s, pos->board[s]);
  q.hand[0] = pos->hand[0];
  q.hand[1] = pos->hand[1];
  q.side = pos->side;
  pos_finish_setup(&q);
  if (q.by_color[0] != pos->by_color[0] || q.by_color[1] != pos->by_color[1]) return false;
  for (int t = 0; t < PT_NB; t++)
    if (q.by_type[t] != pos->by_type[t]) return false;
  return q.board_key == pos->board_key && q.hand_key == pos->hand_key && q.king[0] == pos->king[0] &&
         q.king[1] == pos->king[1] && q.checkers == pos->checkers;
}
