/*
 * brute.h - a plain minimax mate search for the checker's tests only: every
 * legal check at the attacker's nodes, every legal reply at the defender's,
 * exact plies to mate under a depth bound. No proof numbers, no table tricks
 * beyond a memo of (position, depth) answers: slow, and for that reason easy
 * to trust on small positions (a few pieces, up to about 9 plies).
 *
 * The 無駄合 rule is solver.h's definition, written again here: at a defender
 * node in check from one ranging piece at distance >= 2, an interposition on a
 * square between them (a drop, or a board piece moved there) is futile when some
 * attacker check captures the interposed piece for free (no defender piece, the king included, can take back) and leaves,
 * with that piece put back into the defender's hand, a mated position. "At any
 * length" is read here as within the remaining length R (a minimax with a
 * depth bound cannot ask more without recursing through the futility of the
 * positions it reaches); the test positions are chosen where the two readings
 * agree, which the tests comparing the brute with the solver show. Futile
 * interpositions are not replies; a node whose only replies are futile
 * interpositions is mate.
 */
#ifndef TSUME_TESTS_BRUTE_H
#define TSUME_TESTS_BRUTE_H

#include <stdbool.h>

#include "position.h"

#define BRUTE_NONE (-1)

typedef struct Brute Brute;

/* A search context (its memo); NULL when out of memory. */
Brute *brute_create(Color attacker, bool futile_rule);
void brute_free(Brute *b);
/* Forgets the memo (e.g. for another attacker). */
void brute_reset(Brute *b, Color attacker, bool futile_rule);

/* Mate within d plies of pos (either side to move; the defender must be in check). */
bool brute_within(Brute *b, const Position *pos, int d);
/* Exact plies to mate of pos (odd with the attacker to move, even with the
 * defender), the shortest, BRUTE_NONE when none within max plies. */
int brute_value(Brute *b, const Position *pos, int max);
/* brute_value of the position after m. */
int brute_value_after(Brute *b, const Position *pos, Move m, int max);
/* Is the interposition `drop` (defender to move, in a distant check) futile, read within remaining length R? */
bool brute_interpose_futile(Brute *b, const Position *pos, Move drop, int R);
/* The defender's replies at pos that count (futile interpositions at R left out, when the rule is on). */
void brute_replies(Brute *b, const Position *pos, int R, MoveList *out);

/* A line of shortest checks and longest defences (first found in generation
 * order) from pos, whose value is v (brute_value), into out[0..v); returns v,
 * or BRUTE_NONE when pos has no mate within v plies or cap is too small. */
int brute_line(Brute *b, const Position *pos, int v, Move *out, int cap);

/* Nodes visited since brute_create / brute_reset. */
unsigned long long brute_nodes(const Brute *b);

#endif
