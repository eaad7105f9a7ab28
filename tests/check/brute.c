/*
 * brute.c - see brute.h. Minimax over movegen_checks / movegen_evasions with a
 * direct-mapped memo of exact-depth answers.
 */
#include "brute.h"

#include <stdint.h>
#include <stdlib.h>

#include "movegen.h"

#define BRUTE_MEMO_BITS 20

typedef struct {
  uint64_t key; /* 0: empty */
  int8_t depth;
  int8_t result;
} BruteEntry;

struct Brute {
  Color attacker;
  bool futile;
  unsigned long long nodes;
  BruteEntry *memo;
};

static uint64_t mix(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ull;
  x ^= x >> 33;
  return x;
}

/* Board, side and both hands (the hands are read directly: a hand-back edit
 * does not keep hand_key up to date). */
static uint64_t memo_key(const Position *p, int d) {
  uint64_t k = p->board_key ^ mix(p->hand[BLACK] + 0x9e3779b97f4a7c15ull) ^ mix(((uint64_t)p->hand[WHITE] << 32) | 7);
  k ^= mix((uint64_t)(d + 1000));
  return k ? k : 1;
}

Brute *brute_create(Color attacker, bool futile_rule) {
  Brute *b = calloc(1, sizeof *b);
  if (!b) return NULL;
  b->memo = calloc((size_t)1 << BRUTE_MEMO_BITS, sizeof *b->memo);
  if (!b->memo) {
    free(b);
    return NULL;
  }
  b->attacker = attacker;
  b->futile = futile_rule;
  return b;
}

void brute_free(Brute *b) {
  if (!b) return;
  free(b->memo);
  free(b);
}

void brute_reset(Brute *b, Color attacker, bool futile_rule) {
  for (size_t i = 0; i < (size_t)1 << BRUTE_MEMO_BITS; i++) b->memo[i].key = 0;
  b->attacker = attacker;
  b->futile = futile_rule;
  b->nodes = 0;
}

unsigned long long brute_nodes(const Brute *b) { return b->nodes; }

/* Squares between the king of the side to move and its single ranging checker
 * standing at distance >= 2; 0 otherwise. */
static Bitboard distant_check(const Position *p) {
  Square k = p->king[p->side];
  if (k == SQ_NONE || !p->checkers || bb_more_than_one(p->checkers)) return 0;
  Square c = bb_lsb(p->checkers);
  PieceType t = piece_type(p->board[c]);
  if (t != LANCE && t != BISHOP && t != ROOK && t != HORSE && t != DRAGON) return 0;
  return BETWEEN[k][c];
}

bool brute_interpose_futile(Brute *b, const Position *pos, Move drop, int R) {
  if (!bb_test(distant_check(pos), move_to(drop))) return false;
  Position p = *pos;
  Undo u;
  pos_do_move(&p, drop, &u);
  MoveList caps;
  movegen_checks(&p, &caps);
  for (int i = 0; i < caps.size; i++) {
    Move c = caps.moves[i];
    if (move_is_drop(c) || move_to(c) != move_to(drop)) continue;
    Position q = p;
    Undo u2;
    pos_do_move(&q, c, &u2);
    /* a free capture only: no defender piece, the king included, takes back */
    MoveList back;
    movegen_legal(&q, &back);
    bool taken = false;
    for (int j = 0; j < back.size && !taken; j++)
      taken = !move_is_drop(back.moves[j]) && move_to(back.moves[j]) == move_to(drop);
    if (taken) continue;
    /* the captured piece goes back to the defender's hand */
    PieceType t = pt_demote(piece_type(u2.captured));
    q.hand[b->attacker] = hand_sub(q.hand[b->attacker], t);
    q.hand[color_flip(b->attacker)] = hand_add(q.hand[color_flip(b->attacker)], t);
    if (brute_within(b, &q, R)) return true;
  }
  return false;
}

void brute_replies(Brute *b, const Position *pos, int R, MoveList *out) {
  MoveList l;
  movegen_legal(pos, &l);
  out->size = 0;
  Bitboard between = b->futile ? distant_check(pos) : 0;
  for (int i = 0; i < l.size; i++) {
    Move m = l.moves[i];
    if (bb_test(between, move_to(m)) && brute_interpose_futile(b, pos, m, R)) continue;
    out->moves[out->size++] = m;
  }
}

bool brute_within(Brute *b, const Position *pos, int d) {
  if (d < 0) return false;
  bool att = pos->side == b->attacker;
  if (att && d < 1) return false;
  BruteEntry *e = &b->memo[memo_key(pos, d) & (((uint64_t)1 << BRUTE_MEMO_BITS) - 1)];
  uint64_t key = memo_key(pos, d);
  if (e->key == key && e->depth == d) return e->result;
  b->nodes++;
  bool res;
  if (att) {
    MoveList l;
    movegen_checks(pos, &l);
    res = false;
    for (int i = 0; i < l.size && !res; i++) {
      Position c = *pos;
      Undo u;
      pos_do_move(&c, l.moves[i], &u);
      res = brute_within(b, &c, d - 1);
    }
  } else {
    MoveList l;
    brute_replies(b, pos, d, &l);
    res = true;
    for (int i = 0; i < l.size && res; i++) {
      Position c = *pos;
      Undo u;
      pos_do_move(&c, l.moves[i], &u);
      res = brute_within(b, &c, d - 1);
    }
  }
  e->key = key;
  e->depth = (int8_t)d;
  e->result = res;
  return res;
}

int brute_value(Brute *b, const Position *pos, int max) {
  for (int d = pos->side == b->attacker ? 1 : 0; d <= max; d += 2)
    if (brute_within(b, pos, d)) return d;
  return BRUTE_NONE;
}

int brute_value_after(Brute *b, const Position *pos, Move m, int max) {
  Position c = *pos;
  Undo u;
  pos_do_move(&c, m, &u);
  return brute_value(b, &c, max);
}

int brute_line(Brute *b, const Position *pos, int v, Move *out, int cap) {
  if (v < 0 || v > cap || !brute_within(b, pos, v)) return BRUTE_NONE;
  Position p = *pos;
  for (int i = 0; i < v; i++) {
    int left = v - i; /* plies from p to mate */
    MoveList l;
    if (p.side == b->attacker)
      movegen_checks(&p, &l);
    else
      brute_replies(b, &p, left, &l);
    Move pick = MOVE_NONE;
    for (int k = 0; k < l.size && pick == MOVE_NONE; k++) {
      Position c = p;
      Undo u;
      pos_do_move(&c, l.moves[k], &u);
      if (p.side == b->attacker ? brute_within(b, &c, left - 1) : !brute_within(b, &c, left - 3)) pick = l.moves[k];
    }
    if (pick == MOVE_NONE) return BRUTE_NONE;
    out[i] = pick;
    Undo u;
    pos_do_move(&p, pick, &u);
  }
  return v;
}
