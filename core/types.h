/*
 * types.h - squares, colours, pieces, hands and moves: the vocabulary of the rules.
 *
 * Square numbering (column-major, as in KIF/CSA "file rank"):
 *
 *      file  9   8   7   6   5   4   3   2   1
 *   rank 1  72  63  54  45  36  27  18   9   0      sq = (file-1)*9 + (rank-1)
 *   rank 2  73  64  55  46  37  28  19  10   1
 *   ...
 *   rank 9  80  71  62  53  44  35  26  17   8
 *
 * Rank 1 is gote's back rank (the top of a diagram); sente moves towards rank 1.
 */
#ifndef TSUME_TYPES_H
#define TSUME_TYPES_H

#include <stdbool.h>
#include <stdint.h>

typedef enum { BLACK = 0, WHITE = 1 } Color; /* BLACK = sente, WHITE = gote */
#define COLOR_NB 2
static inline Color color_flip(Color c) { return (Color)(c ^ 1); }

typedef int Square; /* 0..80; SQ_NONE for "absent" */
#define SQ_NB 81
#define SQ_NONE 81
static inline int sq_file(Square s) { return s / 9 + 1; } /* 1..9 */
static inline int sq_rank(Square s) { return s % 9 + 1; } /* 1..9 */
static inline Square sq_make(int file, int rank) { return (file - 1) * 9 + (rank - 1); }
static inline Square sq_mirror(Square s) { return sq_make(10 - sq_file(s), sq_rank(s)); }

/*
 * Piece types. The seven kinds that can be held in hand come first (1..7),
 * then the king, then promoted kinds = base + PT_PROMOTE for pawn..rook.
 */
typedef enum {
  PT_NONE = 0,
  PAWN = 1, LANCE = 2, KNIGHT = 3, SILVER = 4, BISHOP = 5, ROOK = 6, GOLD = 7,
  KING = 8,
  PRO_PAWN = 9, PRO_LANCE = 10, PRO_KNIGHT = 11, PRO_SILVER = 12, HORSE = 13, DRAGON = 14,
  PT_NB = 15
} PieceType;
#define PT_PROMOTE 8
#define HAND_PT_NB 8 /* hand arrays are indexed PAWN..GOLD (1..7) */

static inline bool pt_can_promote(PieceType t) { return t >= PAWN && t <= ROOK; }
static inline bool pt_is_promoted(PieceType t) { return t > KING; }
static inline PieceType pt_promote(PieceType t) { return (PieceType)(t + PT_PROMOTE); }
/* Promoted kinds back to their base kind; others unchanged (the kind a capture gives). */
static inline PieceType pt_demote(PieceType t) { return t > KING ? (PieceType)(t - PT_PROMOTE) : t; }

/* Piece = kind | colour << 4; 0 is an empty square. */
typedef uint8_t Piece;
#define PIECE_NONE 0
#define PIECE_NB 32
static inline Piece piece_make(Color c, PieceType t) { return (Piece)(t | (c << 4)); }
static inline PieceType piece_type(Piece p) { return (PieceType)(p & 15); }
static inline Color piece_color(Piece p) { return (Color)(p >> 4); }

/* How many of each base kind a full 40-piece set has (kings: 2). */
extern const int PIECE_INVENTORY[PT_NB];

/*
 * Hand: counts packed in one 32-bit word with a guard bit above each field so
 * that "a >= b for every kind" is one subtraction and a mask test.
 *
 *   bit: 27 26-25 24 23-22 21 20-18 17 16-14 13 12-10  9  8-6  5  4-0
 *         g  ROOK  g BISHOP g  GOLD  g SILVER g KNIGHT  g LANCE g  PAWN
 */
typedef uint32_t Hand;
extern const int HAND_SHIFT[HAND_PT_NB];
extern const uint32_t HAND_MASK[HAND_PT_NB];
#define HAND_BORROW_MASK ((1u << 5) | (1u << 9) | (1u << 13) | (1u << 17) | (1u << 21) | (1u << 24) | (1u << 27))
static inline int hand_count(Hand h, PieceType t) { return (int)((h & HAND_MASK[t]) >> HAND_SHIFT[t]); }
static inline Hand hand_add(Hand h, PieceType t) { return h + (1u << HAND_SHIFT[t]); }
static inline Hand hand_sub(Hand h, PieceType t) { return h - (1u << HAND_SHIFT[t]); }
static inline Hand hand_set(Hand h, PieceType t, int n) {
  return (h & ~HAND_MASK[t]) | ((uint32_t)n << HAND_SHIFT[t]);
}
static inline bool hand_has(Hand h, PieceType t) { return (h & HAND_MASK[t]) != 0; }
/* true when a holds at least as many of every kind as b */
static inline bool hand_ge(Hand a, Hand b) { return ((a - b) & HAND_BORROW_MASK) == 0; }
static inline bool hand_empty(Hand h) { return h == 0; }
int hand_total(Hand h);

/*
 * Move: 32 bits; the low 16 bits alone identify the move in a position.
 *
 *   bit  31..20  19..15        14       13..7            6..0
 *        unused  moved piece   promote  from (81+kind    to
 *                (Piece)                for a drop)
 */
typedef uint32_t Move;
#define MOVE_NONE 0u
static inline Move move_make(Square from, Square to, bool promote, Piece moved) {
  return (Move)to | ((Move)from << 7) | ((Move)promote << 14) | ((Move)moved << 15);
}
static inline Move move_make_drop(PieceType t, Square to, Color c) {
  return (Move)to | ((Move)(SQ_NB + t) << 7) | ((Move)piece_make(c, t) << 15);
}
static inline Square move_to(Move m) { return (Square)(m & 127); }
static inline Square move_from(Move m) { return (Square)((m >> 7) & 127); }
static inline bool move_is_drop(Move m) { return move_from(m) >= SQ_NB; }
static inline bool move_is_promote(Move m) { return (m >> 14) & 1; }
static inline PieceType move_drop_type(Move m) { return (PieceType)(move_from(m) - SQ_NB); }
static inline Piece move_piece(Move m) { return (Piece)((m >> 15) & 31); }
static inline uint16_t move_compact(Move m) { return (uint16_t)(m & 0x7fff); }

#define MAX_MOVES 600 /* the most legal moves known is 593 */
typedef struct {
  Move moves[MAX_MOVES];
  int size;
} MoveList;

#endif
