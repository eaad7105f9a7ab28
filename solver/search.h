/*
 * search.h - internals shared by the solver's files (not a public header).
 *
 * dfpn.c   the df-pn engine: node expansion, proof / disproof pieces,
 *          repetition handling, length budgets, 無駄合 candidates
 * pds.c    PDS and the multi-path simultaneous search (the multi-path paper) on the same engine
 * pv.c     exact length, main line, line verification
 * solver.c the public API
 */
#ifndef TSUME_SOLVER_SEARCH_H
#define TSUME_SOLVER_SEARCH_H

#include "solver.h"
#include "tt.h"

#define SOLVER_MAX_DEPTH 6000
#define REP_BITS 16

/* The outcome of a node search. */
typedef struct {
  uint32_t pn, dn;
  int16_t len; /* proven: mate length; disproven: no mate within len */
  Hand hand;   /* proof / disproof hand when solved */
  bool rep;    /* the disproof depends on the path (repetition or depth limit) */
  int16_t rdep; /* rep: the least depth of a position on the path it repeats (-1: a depth limit) */
  bool hand_only; /* solved for this very hand only (tt.h, TT_HAND_ONLY): hand is the node's */
} SearchResult;

/* One child of an expanded node. */
typedef struct {
  Move move;
  uint32_t pn, dn;
  int16_t len;
  uint8_t flags; /* CHILD_* */
  uint8_t pad;
  Hand hand;      /* with CHILD_REP: the repeated depth (SearchResult.rdep), no hand */
  uint32_t order; /* static ordering key, smaller first on ties */
} Child;

/* mid()'s futsq: the square, and FUT_MOVED when a board piece moved there (移動合) */
enum { FUT_SQ = 127, FUT_MOVED = 128 };

enum {
  CHILD_VIRTUAL = 1, /* free capture of a candidate futile interposition, piece handed back: mated at all? */
  CHILD_FUTCAND = 2, /* an interposition (drop or 移動合) that may be futile: its OR node gets virtual children */
  CHILD_REP = 4,     /* disproven by a repetition / depth limit on the current path */
  CHILD_EST = 8,     /* until the table lookup: pn holds the escape estimate of the AND node */
  CHILD_UNASKED = 16, /* a proven virtual child of an unbounded node, 無駄合's second part not asked */
  CHILD_HAND_ONLY = 32 /* solved for this very hand only (SearchResult.hand_only) */
};

typedef struct {
  uint64_t key, full;
  uint64_t bh; /* the child's board hash, when the expansion has it already */
  Hand hand;
  uint32_t est;
} LookupScratch;

typedef struct {
  uint64_t key; /* 0: empty */
  int8_t value;
} SameMemo;

/* Path-keyed table of repetition disproofs (lossy; a generation number clears it). */
typedef struct {
  uint64_t *key;
  uint32_t *gen;
  int16_t *depth; /* the disproof's SearchResult.rdep */
  int16_t *len;   /* the disproof's SearchResult.len: no mate within it on this path */
  size_t mask;
  uint32_t cur;
} RepTable;

/* A disproof that rests on a repetition above the node holds on the path that reached it only:
 * it is kept by path (pk, path_next's key from the root of the search) with the least depth it
 * repeats (rdep) and the plies it holds for (len: no mate within len along this path; TT_LEN_INF:
 * none at all). search_rep_find gives the depth and *len for a path whose disproof holds for
 * `need` plies, else REP_NONE: a disproof within a budget answers that budget and smaller ones. */
#define REP_NONE (-2)
void search_rep_add(Solver *s, uint64_t pk, int rdep, int len);
int search_rep_find(const Solver *s, uint64_t pk, int need, int *len);

struct Solver {
  SolverOptions opt;
  TT tt;
  RepTable rep;

  /* the solver's own Zobrist keys, so child keys come without playing the move; the
   * rows from SQ_NB on stand for the "from" field of drops (types.h) and are all 0, so
   * one formula hashes drops and board moves alike */
  uint64_t zob_psq[SQ_NB + HAND_PT_NB][PIECE_NB];
  uint64_t zob_side;
  uint64_t zob_fut[SQ_NB]; /* mixed into the key of an OR node with a futile-drop candidate square */
  /* what a move of the attacker does to its hand, without tests: hand_take[p] is added
   * when it captures piece p (0 for none), hand_drop[from] taken away for a drop's
   * "from" field (0 for board squares) */
  Hand hand_take[PIECE_NB];
  Hand hand_drop[SQ_NB + HAND_PT_NB];
  /* 4 x the king-step distance (files + ranks) between two squares; row SQ_NONE all 0 */
  uint8_t dist4[SQ_NB + 1][SQ_NB];

  /* per search */
  Position pos;   /* working position */
  uint64_t bh;    /* board hash of pos (zob_psq, zob_side) */
  Color attacker;
  uint64_t salt;  /* mixes the attacker colour and the material into every key */
  bool futile;    /* 無駄合 candidates get virtual children (bounded searches only) */
  bool depth_hit;
  bool expect_nomate; /* attacker nodes add the disproof numbers of all but the largest at half */
  int pds_mode;   /* 0 df-pn thresholds, 1 PDS thresholds (no second-best bound) */
  int sel_depth;

  /* limits and counters over one public call */
  uint64_t nodes;
  uint32_t root_dn; /* the root's disproof number where the last pv_mate_within ended */
  uint32_t root_pn; /* and its proof number */
  uint64_t node_limit;  /* absolute value of nodes at which to stop, 0 = none */
  uint64_t budget_stop; /* multipath turn budget: stop when nodes reach it (0 = none) */
  uint32_t probe_w1024; /* weight of a table probe in the budget, x1024 */
  uint64_t tt_probes;
  uint64_t start_ms, deadline_ms, next_progress_ms;
  bool stopped;
  bool budget_hit;
  const char *stop_reason;
  uint64_t setup_ms; /* table set-up since the last public call (reported in SolveResult) */

  /* path */
  uint64_t *path_full;
  uint16_t *rep_filter; /* counts of full keys on the path, by low bits */
  MoveList scratch, scratch2;
  uint32_t escape_est[MAX_MOVES]; /* per move of scratch at an OR node (dfpn.c) */
  uint64_t move_bh[MAX_MOVES];    /* per move of scratch at an OR node: the board hash after it */
  LookupScratch lookup[MAX_MOVES * 2];

  /* children arena */
  Child *arena;
  size_t arena_cap, arena_top;

  /* results */
  Move *pv;
  int pv_cap;
  Move *line_buf;
  int line_cap;
  int tie_budget;
  /* the best mating line known during a call (solver_known_line), kept only
   * when a progress callback is set: a checked line read from the table */
  Move *known;
  int known_cap, known_n;

  /* 無駄合's second part (futile_compare, samemate.c): a solver with the first part
   * alone measures the lengths compared; answers kept by position and capture */
  Solver *same;
  SameMemo *same_memo;
  const char *same_why; /* why the last question stopped */
};

uint64_t solver_now_ms(void);

/* dfpn.c */
/* Prepares a search from s->pos for `attacker` (the root may be an OR or an AND
 * node): salt, repetition table, depth flag. */
void search_begin(Solver *s, Color attacker, bool futile);
/* One df-pn iteration at the root with thresholds; len = budget (TT_LEN_INF = none). */
SearchResult search_root(Solver *s, uint32_t thpn, uint32_t thdn, int len);
/* Plays path[0..n) (n <= 64) from s->pos, searches that node with the thresholds,
 * and comes back; the repetition history includes the path. */
SearchResult search_at(Solver *s, const Move *path, int n, uint32_t thpn, uint32_t thdn, int len);
/* Table state of s->pos (unbounded OR/AND node of the current search). */
void search_probe_pos(Solver *s, int len, TTProbe *out);
/* Runs df-pn at the root until solved or stopped. */
SearchResult search_solve(Solver *s, int len);
/* Key of the current node (s->pos) for the table. */
uint64_t search_key(const Solver *s, int futsq);
/* Board hash of pos from scratch (the solver's keys), and the hash after move m (played from pos). */
uint64_t search_board_hash(const Solver *s, const Position *pos);
uint64_t search_move_hash(const Solver *s, const Position *pos, uint64_t bh, Move m);
/* Fills the solver's Zobrist keys and distance table (solver_create). */
void search_keys_init(Solver *s);
void search_check_limits(Solver *s);
/* A mate position's proof hand (defender to move, no reply). */
Hand search_mate_proof_hand(const Position *pos, Color attacker);
/* Is the (defender) node in check from one ranging piece at distance >= 2? Returns the
 * between squares (0 if not). */
Bitboard search_distant_check(const Position *pos);
/* Full key (board, hands) for repetition tests. */
uint64_t search_full_key(uint64_t bh, Hand attacker_hand);
/* Is the capture (attacker to move in pos, a check) free: after it, can no
 * defender piece, the king included, take the capturing piece? */
bool search_capture_free(const Position *pos, Move capture);
/* Plays the capture of a futile-drop candidate and hands the piece back; undo with search_virtual_undo. */
void search_virtual_do(Position *pos, Move capture, Undo *u, PieceType *returned);
void search_virtual_undo(Position *pos, Move capture, const Undo *u, PieceType returned);

/* samemate.c */
/* The second part of the 無駄合 rule for the free check `capture` of the piece just
 * interposed (a: the position after the interposition, attacker to move; bh: its
 * board hash, search_board_hash; drop: the interposition was a drop, not a
 * board piece moved there; bound: the plies left after it, TT_LEN_INF for none):
 * 1 the mate goes on as without it, 0 not, 2 not for this bound and smaller ones
 * (samemate.c says when that is the search's answer too), -1 a limit stopped the
 * question (s->stopped is set). 1 when the part is off. */
int search_same_mate(Solver *s, const Position *a, uint64_t bh, Move capture, bool drop, int bound);
/* The answer search_same_mate would give from what it has kept, without a search;
 * -1 when not kept. */
int search_same_known(Solver *s, const Position *a, uint64_t bh, Move capture, int bound);
/* Is the capture-and-hand-back position of `capture` (a, bh as above) mated within `bound`
 * plies under the rule's first part alone (conditions 1 and 2: the lengths the rule compares)?
 * 1 yes, 0 no, -1 a limit stopped the question (s->stopped is set). */
int search_same_within(Solver *s, const Position *a, uint64_t bh, Move capture, int bound);
void search_same_release(Solver *s);
/* Empties the nested solver's table and the kept answers (solver_clear). */
void search_same_clear(Solver *s);

/* pds.c */
SearchResult search_pds(Solver *s, int len);
SearchResult search_multipath(Solver *s, int len);

/* pv.c */
/* Exact length and main line for a position known to mate within len (s->pos). */
void pv_solve(Solver *s, const Position *root, int upper, SolveResult *r);
/* Bounded question on pos (attacker given; pos may be an AND node): mate within len?
 * 1 yes (*mlen = length found), 0 no, -1 stopped. */
int pv_mate_within(Solver *s, const Position *pos, Color attacker, int len, int *mlen);
/* Is the interposition m (defender to move in pos) futile (solver.h)? The rule's
 * own question, a mate within R + 1 after a free capture tried first. *err is set
 * when a limit stopped the search. */
bool pv_futile_exact(Solver *s, const Position *pos, Color att, Move m, int R, int *err);
/* The rule's sufficient part: some free capture leaves a position mated within L. */
bool pv_futile_within(Solver *s, const Position *pos, Color att, Move m, int L, int *err);
/* With a progress callback: reads a checked mating line from the table (bound U)
 * into s->known for solver_known_line; keeps the previous one when none is read. */
void pv_known_update(Solver *s, const Position *root, int U);
/* Resets the counters, limits and stop state at the start of a public call. */
void search_call_reset(Solver *s);

#endif
