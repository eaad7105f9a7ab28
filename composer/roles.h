/*
 * roles.h - what each piece does along a mating line (the composition paper §3): the roles
 * a composer reads to see which piece can go, which must stay, and which could
 * be replaced by another one doing the same work.
 *
 * Eight roles, per square and per ply of the line (positions 0..n, position i
 * is the one before the line's move i+1):
 *
 *   mate-state roles (positions where the defender is to move, i.e. in check
 *   after an attacker move, the final mate included; PREVENTS_CHECK everywhere)
 *     CHECKS              王手         the piece gives check
 *     BLOCKS_ESCAPE       逃げ道封鎖    an attacker piece that attacks a square next
 *                                     to the king the king does not hold (seen
 *                                     through the king), or a defender piece that
 *                                     stands on such a square (the king's own
 *                                     piece closing its way)
 *     CAN_CAPTURE_CHECKER 王手駒を取れる a defender piece that attacks a checker (a
 *                                     pinned one too); the king when the checker
 *                                     stands next to it undefended
 *     PREVENTS_CHECK      王手を防ぐ    the only piece between the defender's king and
 *                                     an attacker's ranging piece aimed at it
 *   move roles (every ply, about the moves of the side to move)
 *     MOVABLE             移動可能      the piece makes the line's move (a dropped
 *                                     piece: the hand piece, see RoleMap ids)
 *     PREVENTS_MOVE       移動を防ぐ    without this piece a move would be possible
 *                                     that is not: a check (attacker to move) or an
 *                                     evasion (defender to move) onto its square or
 *                                     across it (the composition paper Figure 1: the pawn on 7七
 *                                     stops ▲7七角, which would check)
 *     CAN_CAPTURE         取れる        the piece makes the line's move and it captures
 *     CAN_BE_CAPTURED     取られる      the piece is captured by the line's move (seed
 *                                     003 Figure 1: a defender's piece that must be
 *                                     taken to become the attacker's)
 *
 * Pieces keep one identity (id) along the line: the pieces of the start position
 * on the board (ids 0.. in square order), then the attacker's hand pieces of the
 * start position, then pieces dropped from the defender's hand as they appear. A
 * captured piece goes to the capturer's hand with its id and a drop takes the
 * id most recently put into that hand, so the gold captured on 2一 and dropped
 * on 2二 later is one piece with both roles.
 *
 * Typical use:
 *   RoleMap m;
 *   if (roles_compute(&pos, line, n, &m) == TS_OK) {
 *     for (int id = 0; id < m.npieces; id++) ... m.piece[id].roles ...
 *     roles_free(&m);
 *   }
 */
#ifndef TSUME_ROLES_H
#define TSUME_ROLES_H

#include <stdbool.h>
#include <stdint.h>

#include "position.h"

enum {
  ROLE_CHECKS = 1 << 0,
  ROLE_BLOCKS_ESCAPE = 1 << 1,
  ROLE_CAN_CAPTURE_CHECKER = 1 << 2,
  ROLE_PREVENTS_CHECK = 1 << 3,
  ROLE_MOVABLE = 1 << 4,
  ROLE_PREVENTS_MOVE = 1 << 5,
  ROLE_CAN_CAPTURE = 1 << 6,
  ROLE_CAN_BE_CAPTURED = 1 << 7
};
#define ROLE_NB 8
#define ROLE_MATE_STATE (ROLE_CHECKS | ROLE_BLOCKS_ESCAPE | ROLE_CAN_CAPTURE_CHECKER | ROLE_PREVENTS_CHECK)
#define ROLE_MOVE (ROLE_MOVABLE | ROLE_PREVENTS_MOVE | ROLE_CAN_CAPTURE | ROLE_CAN_BE_CAPTURED)

#define ROLE_IDS_MAX 128      /* piece identities of one line */
#define ROLE_PREVENTED_MAX 32 /* prevented moves kept per ply */

/* A move that a piece prevents at a ply: `move` would be possible without the piece on `sq`. */
typedef struct {
  Square sq;
  Move move;
} RolePrevented;

typedef struct {
  Position pos;              /* the position at this ply */
  Move move;                 /* the line's move played from it (MOVE_NONE at the end) */
  int mover;                 /* id of the piece that moves (-1 at the end) */
  uint8_t role[SQ_NB];       /* roles of the piece on each square at this ply */
  int16_t id[SQ_NB];         /* identity of the piece on each square, -1 for none */
  RolePrevented prevented[ROLE_PREVENTED_MAX];
  int nprevented;            /* entries kept (the role bits count every one) */
} RolePly;

typedef struct {
  Square start_sq;    /* its square in the start position, SQ_NONE if it started in a hand */
  Piece piece;        /* as it stood first (a hand piece: its colour and base kind) */
  int first_ply;      /* 0, or the ply of the drop that brought it from the defender's hand */
  uint8_t roles;      /* union over the plies (a dropped hand piece: MOVABLE etc. count too) */
} RolePiece;

typedef struct {
  int n;              /* plies of the line; ply[0..n] */
  RolePly *ply;
  int npieces;
  RolePiece piece[ROLE_IDS_MAX];
} RoleMap;

/*
 * Computes the roles of every piece along line[0..n) played from start (the
 * side to move in start is the attacker). The moves must be legal in sequence.
 * Returns TS_OK, TS_ERR_ILLEGAL (a move is not legal where it is played; *m is
 * then empty) or TS_ERR_NOMEM. On TS_OK the caller frees m with roles_free.
 */
int roles_compute(const Position *start, const Move *line, int n, RoleMap *m);
void roles_free(RoleMap *m);

/* Roles of the start position's pieces over several lines from the same start:
 * out[sq] |= roles of the piece that stood on sq in every map (out is not cleared),
 * hand[c][t] |= roles of the attacker's hand pieces of kind t. Either may be NULL. */
void roles_union_start(const RoleMap *maps, int k, uint8_t out[SQ_NB], uint8_t hand[HAND_PT_NB]);

/* "checks", "blocks-escape", ... for one role bit (index 0..ROLE_NB-1). */
const char *roles_name(int index);
/* 王手, 逃げ道封鎖, ... */
const char *roles_name_ja(int index);

#endif
