/*
 * solver_value.h - exact plies to mate of a position with either side to move,
 * under the rules of solver.h (無駄合 rule when futile_rule is set).
 *
 * The retrograde enumerator uses it for the positions its tables cannot value
 * alone: a defender in check from a distant ranging piece (drops between are
 * replies that take pieces from outside the material), and the positions
 * after such drops.
 */
#ifndef TSUME_SOLVER_VALUE_H
#define TSUME_SOLVER_VALUE_H

#include "movegen.h"
#include "solver.h"

#define SOLVER_VALUE_NONE (-1)    /* no mate within max_plies */
#define SOLVER_VALUE_UNKNOWN (-2) /* a node or time limit stopped the search */

/*
 * Plies to mate of pos for `attacker` (odd when the attacker is to move, even
 * when the defender is: 0 = mated now, or only futile interpositions left), the
 * shortest mate under the rules; SOLVER_VALUE_NONE when there is none within
 * max_plies. Uses the solver's table and its node / time limits.
 */
int solver_value(Solver *s, const Position *pos, Color attacker, int max_plies);

/* The same when the caller knows there is no mate shorter than min_plies: a mate
 * of exactly min_plies is returned without refuting shorter ones. */
int solver_value_above(Solver *s, const Position *pos, Color attacker, int min_plies, int max_plies);

/*
 * The main line from pos (either side to move) whose exact value for `attacker`
 * is `plies` (solver_value): shortest checks, longest defences, among equally
 * long defences one whose line ends with the attacker's hand empty, futile interpositions
 * not counted. Writes at most cap moves to out; returns the line's length
 * (plies, or more where the 無駄合 rule leaves no line of that length), or -1
 * when a limit stopped it or cap was too small.
 */
int solver_line_from(Solver *s, const Position *pos, Color attacker, int plies, Move *out, int cap);

/* The squares between the king of the side to move and a single distant
 * ranging checker, where a drop or a board piece could interpose (the 無駄合
 * candidates: every evasion that lands on one); 0 when not in such a check. */
Bitboard solver_interpose_squares(const Position *pos);

/*
 * Is the interposition `m` (defender to move in pos; a drop, or a board piece
 * moved in between) futile (solver.h)? For each free check that captures the
 * interposed piece, the position after it with the piece handed back to the
 * defender's hand (defender to move) goes to test (the rule's first part: is it
 * mated?); when test says yes, the second part is asked of `same` (its options
 * say whether it is on; a limit stopping it sets same's stop state and the
 * answer is no). same NULL: of the second part only what needs no search (every
 * reply after the capture is legal without the interposition). Returns whether
 * some capture passed.
 */
bool solver_futile_any(const Position *pos, Move m, Solver *same, bool (*test)(const Position *after, void *ctx),
                       void *ctx);
/* Is every move of ly (the legal moves of some position) a legal move of z? */
bool solver_replies_within(const MoveList *ly, const Position *z);
/* The same when pos is known to be mated in exactly `value` plies (its exact
 * value): the second part's question may then stop at that length (samemate.c). */
bool solver_futile_any_at(const Position *pos, Move m, Solver *same, int value,
                          bool (*test)(const Position *after, void *ctx), void *ctx);

/* The answers of one defender node's futility questions: a drop's holds for its
 * square (the capture-and-hand-back position does not depend on the kind
 * dropped), a board piece's (移動合) for its move alone, so only drops are kept. */
typedef struct {
  Bitboard asked, futile; /* drop squares asked, and found futile */
} FutileMemo;

/* 1 futile, 0 not, -1 not known (to be asked) */
static inline int futile_memo_get(const FutileMemo *fm, Move m) {
  if (!move_is_drop(m) || !bb_test(fm->asked, move_to(m))) return -1;
  return bb_test(fm->futile, move_to(m));
}

static inline void futile_memo_put(FutileMemo *fm, Move m, bool futile) {
  if (!move_is_drop(m)) return;
  fm->asked |= bb_sq(move_to(m));
  if (futile) fm->futile |= bb_sq(move_to(m));
}

/* Is the interposition `m` (defender to move in pos, in a distant check) futile
 * (solver.h's 無駄合 definition, which does not depend on a length)? The exact
 * answer, asking first whether a free capture leaves a position mated within
 * R + 1 and only then at any length. -1 when a limit stopped the search. */
int solver_interpose_futile(Solver *s, const Position *pos, Move m, Color attacker, int R);
/* The rule's sufficient part alone: does a free capture leave a position mated
 * within L plies? 1 yes (futile), 0 not shown, -1 stopped. */
int solver_interpose_futile_within(Solver *s, const Position *pos, Move m, Color attacker, int L);

#endif
