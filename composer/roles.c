/*
 * roles.c - the eight piece roles of the composition paper §3 along a line (roles.h).
 */
#include "roles.h"

#include <stdlib.h>
#include <string.h>

#include "movegen.h"

static const char *ROLE_NAMES[ROLE_NB] = {"checks",  "blocks-escape", "can-capture-checker", "prevents-check",
                                          "movable", "prevents-move", "can-capture",         "can-be-captured"};
static const char *ROLE_NAMES_JA[ROLE_NB] = {"王手",     "逃げ道封鎖", "王手駒を取れる", "王手を防ぐ",
                                             "移動可能", "移動を防ぐ", "取れる",         "取られる"};

const char *roles_name(int index) { return index >= 0 && index < ROLE_NB ? ROLE_NAMES[index] : "?"; }
const char *roles_name_ja(int index) { return index >= 0 && index < ROLE_NB ? ROLE_NAMES_JA[index] : "?"; }

/* Hands of identities: a stack per colour and kind (the last piece put in is dropped first). */
typedef struct {
  int16_t id[COLOR_NB][HAND_PT_NB][40];
  int n[COLOR_NB][HAND_PT_NB];
} IdHands;

static void hand_push(IdHands *h, Color c, PieceType t, int id) {
  if (h->n[c][t] < 40) h->id[c][t][h->n[c][t]++] = (int16_t)id;
}

static int hand_pop(IdHands *h, Color c, PieceType t) { return h->n[c][t] > 0 ? h->id[c][t][--h->n[c][t]] : -1; }

static int piece_new(RoleMap *m, Square sq, Piece p, int ply) {
  if (m->npieces >= ROLE_IDS_MAX) return -1;
  RolePiece *rp = &m->piece[m->npieces];
  rp->start_sq = sq;
  rp->piece = p;
  rp->first_ply = ply;
  rp->roles = 0;
  return m->npieces++;
}

/* The mate-state roles of a position where the defender is to move. */
static void mate_state_roles(const Position *pos, uint8_t role[SQ_NB]) {
  Color def = pos->side, att = color_flip(def);
  Square k = pos->king[def];
  if (k == SQ_NONE) return;
  Bitboard occ = pos_occupied(pos);
  Bitboard b = pos->checkers;
  while (b) {
    Square c = bb_pop(&b);
    role[c] |= ROLE_CHECKS;
    /* the king only where the checker is not defended (seen through the king) */
    Bitboard cap = pos_attackers_to(pos, c, def, occ) & ~bb_sq(k);
    if (bb_test(STEP_ATTACKS[def][KING][k], c) && !pos_attacked(pos, c, att, occ & ~bb_sq(k))) cap |= bb_sq(k);
    while (cap) role[bb_pop(&cap)] |= ROLE_CAN_CAPTURE_CHECKER;
  }
  Bitboard near = STEP_ATTACKS[def][KING][k];
  Bitboard occ_nok = occ & ~bb_sq(k);
  while (near) {
    Square t = bb_pop(&near);
    if (bb_test(pos->by_color[def], t)) {
      role[t] |= ROLE_BLOCKS_ESCAPE;
      continue;
    }
    Bitboard a = pos_attackers_to(pos, t, att, occ_nok);
    while (a) role[bb_pop(&a)] |= ROLE_BLOCKS_ESCAPE;
  }
}

/* PREVENTS_CHECK: the lone pieces between the defender's king and an attacker's ranging piece. */
static void check_shield_roles(const Position *pos, Color def, uint8_t role[SQ_NB]) {
  Bitboard b = pos_blockers(pos, def, color_flip(def));
  while (b) role[bb_pop(&b)] |= ROLE_PREVENTS_CHECK;
}

static bool list_has(const MoveList *l, Move m) {
  for (int i = 0; i < l->size; i++)
    if (move_compact(l->moves[i]) == move_compact(m)) return true;
  return false;
}

/* The moves of the side to move that count at this ply: checks for the attacker,
 * every legal move (evasions) for the defender. */
static void ply_moves(const Position *pos, Color att, MoveList *l) {
  if (pos->side == att)
    movegen_checks(pos, l);
  else
    movegen_legal(pos, l);
}

/* PREVENTS_MOVE: remove each piece in turn and look for moves onto or across its square. */
static void prevent_roles(RolePly *rp, Color att) {
  const Position *pos = &rp->pos;
  MoveList base;
  ply_moves(pos, att, &base);
  Color def = color_flip(att);
  Bitboard occ = pos_occupied(pos) & ~pos->by_type[KING];
  while (occ) {
    Square s = bb_pop(&occ);
    Position q = *pos;
    pos_remove(&q, s);
    pos_finish_setup(&q);
    /* the side not to move in check: the piece was a shield (PREVENTS_CHECK), no position to ask */
    if (pos_checkers_of(&q, color_flip(q.side))) continue;
    /* the defender no longer in check: the piece was the checker, every move would be new */
    if (q.side == def && pos->checkers && !q.checkers) continue;
    MoveList l;
    ply_moves(&q, att, &l);
    for (int i = 0; i < l.size; i++) {
      Move mv = l.moves[i];
      Square to = move_to(mv);
      bool through = to == s || (!move_is_drop(mv) && bb_test(BETWEEN[move_from(mv)][to], s));
      if (!through || list_has(&base, mv)) continue;
      rp->role[s] |= ROLE_PREVENTS_MOVE;
      if (rp->nprevented < ROLE_PREVENTED_MAX) {
        rp->prevented[rp->nprevented].sq = s;
        rp->prevented[rp->nprevented].move = mv;
        rp->nprevented++;
      }
    }
  }
}

int roles_compute(const Position *start, const Move *line, int n, RoleMap *m) {
  memset(m, 0, sizeof *m);
  if (n < 0) n = 0;
  m->ply = calloc((size_t)n + 1, sizeof *m->ply);
  if (!m->ply) return TS_ERR_NOMEM;
  m->n = n;
  Color att = start->side;
  int16_t id[SQ_NB];
  IdHands hands;
  memset(&hands, 0, sizeof hands);
  for (Square s = 0; s < SQ_NB; s++) id[s] = start->board[s] ? (int16_t)piece_new(m, s, start->board[s], 0) : -1;
  for (int t = PAWN; t <= GOLD; t++)
    for (int k = hand_count(start->hand[att], (PieceType)t); k > 0; k--)
      hand_push(&hands, att, (PieceType)t, piece_new(m, SQ_NONE, piece_make(att, (PieceType)t), 0));
  Position pos = *start;
  for (int i = 0; i <= n; i++) {
    RolePly *rp = &m->ply[i];
    rp->pos = pos;
    memcpy(rp->id, id, sizeof id);
    rp->move = i < n ? line[i] : MOVE_NONE;
    rp->mover = -1;
    if (pos.side != att) mate_state_roles(&pos, rp->role);
    check_shield_roles(&pos, color_flip(att), rp->role);
    prevent_roles(rp, att);
    if (i == n) break;
    Move mv = line[i];
    if (!pos_move_is_legal(&pos, mv)) {
      roles_free(m);
      return TS_ERR_ILLEGAL;
    }
    Square to = move_to(mv);
    Color us = pos.side;
    if (move_is_drop(mv)) {
      PieceType t = move_drop_type(mv);
      int d = hand_pop(&hands, us, t);
      if (d < 0 && us != att) d = piece_new(m, SQ_NONE, piece_make(us, t), i + 1);
      rp->mover = d;
      if (d >= 0) m->piece[d].roles |= ROLE_MOVABLE;
      id[to] = (int16_t)d;
    } else {
      Square from = move_from(mv);
      rp->mover = id[from];
      rp->role[from] |= ROLE_MOVABLE;
      if (pos.board[to]) {
        rp->role[from] |= ROLE_CAN_CAPTURE;
        rp->role[to] |= ROLE_CAN_BE_CAPTURED;
        if (id[to] >= 0) hand_push(&hands, us, pt_demote(piece_type(pos.board[to])), id[to]);
      }
      id[to] = id[from];
      id[from] = -1;
    }
    Undo u;
    pos_do_move(&pos, mv, &u);
  }
  for (int i = 0; i <= n; i++)
    for (Square s = 0; s < SQ_NB; s++)
      if (m->ply[i].role[s] && m->ply[i].id[s] >= 0) m->piece[m->ply[i].id[s]].roles |= m->ply[i].role[s];
  return TS_OK;
}

void roles_free(RoleMap *m) {
  free(m->ply);
  m->ply = NULL;
  m->n = 0;
  m->npieces = 0;
}

void roles_union_start(const RoleMap *maps, int k, uint8_t out[SQ_NB], uint8_t hand[HAND_PT_NB]) {
  for (int j = 0; j < k; j++) {
    const RoleMap *m = &maps[j];
    for (int id = 0; id < m->npieces; id++) {
      const RolePiece *p = &m->piece[id];
      if (p->first_ply != 0) continue;
      if (p->start_sq != SQ_NONE) {
        if (out) out[p->start_sq] |= p->roles;
      } else if (hand) {
        hand[piece_type(p->piece)] |= p->roles;
      }
    }
  }
}
