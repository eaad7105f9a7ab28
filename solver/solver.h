/*
 * solver.h - forward tsume-shogi search: df-pn with a transposition table,
 * exact main lines, and the PDS / multi-path variants of the multi-path paper.
 *
 * Rules (design.md §2): the side to move in the given position is the
 * attacker (sente or gote). Every attacker move gives check; the defender
 * evades; a perpetual check is no mate. The attacker may have a king (real-game
 * positions): then its moves must also be legal, which the move generator
 * guarantees. The defender's hand is taken from the position as given.
 *
 * Typical use:
 *   SolverOptions o;  solver_options_default(&o);  o.time_ms = 10000;
 *   Solver *s = solver_create(&o);                 // NULL when out of memory
 *   SolveResult r;
 *   if (solver_solve(s, &pos, &r) == TS_OK && r.status == SOLVE_MATE)
 *     ... r.length, r.exact, r.pv[0..r.pv_len) ...
 *   solver_free(s);
 *
 * One Solver is one search context (table, buffers, statistics); it is not
 * thread-safe, but different Solvers may run in different threads.
 *
 * ---- What the search does -------------------------------------------------
 *  1. A first proof: df-pn (Nagai) over check / evasion moves, every
 *     interposition counted. The table is keyed by the board (and side to
 *     move) and holds the attacker's hand beside the key, so a proof found with
 *     hand h also serves every hand >= h (and a disproof every hand <= h).
 *     Proven entries keep proof pieces (the least hand the proof needs), disproven
 *     ones disproof pieces. A repetition on the current path is no mate; such
 *     path-dependent disproofs are never stored as real ones (they go to a small
 *     table keyed by the path from the root, with the plies they hold for), so
 *     the answer stays right under graph-history interaction. A disproof whose
 *     repetitions all come back to the node itself or below it holds on every
 *     path (the defender answers as there and the attacker never mates) and is
 *     stored as a real one at that node. The table is garbage-collected when it
 *     fills.
 *  2. Exact length (prove_exact): "mate within L?" searches with L below the best
 *     length found so far, until one fails: the length is then exact. When a
 *     limit stops this, the answer is an upper bound (exact = false).
 *  3. Main line: shortest attack, longest defence, among equally long defences
 *     the one that leaves the attacker's hand empty (駒余り tie-break), 無駄合
 *     defences not counted (futile_rule). The line is replayed and checked
 *     (legal, every attacker move checks, ends in mate) before it is returned.
 *
 * ---- 無駄合 (futile interposition), the operational definition -------------
 * At a defender node that is in check from one ranging piece (lance, bishop,
 * rook, horse, dragon) standing at distance >= 2, an interposition on a square
 * s between the checker and the king (a drop, or a board piece moving to s:
 * 移動合) is futile when some attacker move captures the interposed piece on s
 * with check such that
 *   - the capture is free: after it no defender piece, the king included, can
 *     take the capturing piece, and
 *   - the position Y after the capture, with the captured piece put into the
 *     defender's hand, is mated, and
 *   - (futile_compare) the mate goes on as without the interposition: with Z
 *     the position after the interposition with the piece lifted into the
 *     defender's hand (for a drop, the position before it), every legal reply r
 *     of Y is legal in Z and Y·r is mated in no more plies than Z·r, the plies
 *     counted under the first two conditions alone (samemate.c).
 * Futile interpositions are not defences: they are left out of the length and
 * of the main line (a position whose only replies are futile interpositions
 * counts as mate). The rule does not depend on the remaining length, so "mate
 * within L" grows with L. In df-pn a candidate interposition's OR node gets,
 * beside its real checks, the free captures on s as virtual children (piece
 * handed back); a proof through one of them, the third condition asked then,
 * makes the interposition add nothing to its AND node's length. A bounded
 * search asks the virtual child for a mate within its own budget and two
 * plies per square still between, which is where a futile interposition's
 * replies end (dfpn.c); an unbounded one asks "mated at all?", which the third
 * condition does not change. docs/design.md gives the sources and the cases decided.
 * With futile_rule = false every interposition is a defence (the strict count
 * used by e.g. the tanuki generator and the YaneuraOu mate engine).
 */
#ifndef TSUME_SOLVER_H
#define TSUME_SOLVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "error.h"
#include "position.h"

typedef enum { SOLVER_ALGO_DFPN, SOLVER_ALGO_PDS, SOLVER_ALGO_MULTIPATH } SolverAlgo;

typedef struct {
  size_t hash_mb;      /* transposition table size in MiB (default 64; at least 1) */
  uint64_t max_nodes;  /* node limit over the whole call, 0 = none */
  uint64_t time_ms;    /* time limit over the whole call, 0 = none */
  SolverAlgo algo;     /* search for the first proof (default df-pn) */
  bool use_mate1;      /* 1-ply mate test at OR nodes (default true) */
  bool futile_rule;    /* 無駄合 rule for lengths and main lines (default true) */
  bool futile_compare; /* its second part: the mate after the capture goes on as without the
                        * interposition, reply by reply (default true; false: the first part alone) */
  bool prove_exact;    /* prove the length exact and build the main line (default true) */
  volatile int *stop;  /* when non-NULL and *stop != 0 the search stops soon (e.g. USI "stop") */
  bool *halt;          /* a second stop, read atomically: the caller's own (a check that another
                        * worker has ended); the search stops soon when it is set */
  /* multi-path (the multi-path paper) parameters; solver_options_default sets the seed's best values */
  int mp_threads;      /* pseudo-threads including the leader (2) */
  int mp_base;         /* base budget in expanded nodes per turn (1000) */
  double mp_leader;    /* leader priority: its budget is multiplied by this (1.5) */
  double mp_tt_weight; /* weight of a table probe in the budget count (0.05; 0: not counted) */
  bool mp_use_dn;      /* budget from pn + dn (eq. 3) instead of pn only (eq. 2) (true) */
  bool mp_constant;    /* a constant budget (base) instead of eq. 2 / 3 (false) */
  /* optional progress callback (e.g. USI "info" lines); called from inside the
   * search about every progress_ms, with the nodes so far and the elapsed ms */
  void (*progress)(void *ctx, uint64_t nodes, uint64_t ms, int hashfull_permille);
  void *progress_ctx;
  uint64_t progress_ms; /* 0 = 1000 */
  /* when non-NULL, the exact-length phase of a long problem writes its progress
   * here about every 2 s (ply of the line reached backwards, value, nodes, time) */
  FILE *trace;
} SolverOptions;

/* Fills o with the defaults above. */
void solver_options_default(SolverOptions *o);

typedef enum { SOLVE_MATE, SOLVE_NOMATE, SOLVE_UNKNOWN } SolveStatus;

typedef struct {
  SolveStatus status;
  int length;             /* mate length (SOLVE_MATE): exact, or an upper bound when !exact */
  bool exact;             /* length proven shortest and pv is the main line of that length */
  Move *pv;               /* owned by the Solver, valid until its next call or solver_free. exact: the
                           * main line (pv_len == length); else a checked mating line (legal, all
                           * checks, ends in mate) read from the proofs found, pv_len may differ
                           * from length; pv_len 0 when none could be built */
  int pv_len;
  bool komaamari;         /* the attacker still holds pieces at the end of the main line */
  uint64_t nodes;         /* nodes visited by all searches of the call */
  uint64_t time_ms;
  uint64_t first_nodes;   /* nodes and time of the first proof (or of the whole search) */
  uint64_t first_time_ms;
  int first_length;       /* length of the first proof found (strict count; 0 if none) */
  const char *stop_reason; /* for SOLVE_UNKNOWN and an inexact length: "nodes", "time", "stop", "depth";
                            * also, for an inexact length, "line" (no main line of the proven length
                            * could be built); else NULL */
  uint64_t setup_ms;      /* time spent preparing the table (solver_create, solver_set_options,
                           * solver_clear) since the previous call; not part of time_ms */
  int futile_bound;       /* stop_reason "futile" (not produced since the 無駄合 rule does not depend
                           * on the length: kept for the JSON field): the bound with no line. 0. */
} SolveResult;

typedef struct Solver Solver;

/* Makes a solver with a copy of *o (o may be NULL for the defaults). NULL when out of memory. */
Solver *solver_create(const SolverOptions *o);
void solver_free(Solver *s);
/* Forgets everything learnt (the table, and the nested solver and kept answers of the 無駄合
 * rule's "same mate"); options stay. */
void solver_clear(Solver *s);
/* Changes the options of s; the table is resized (and cleared) if hash_mb changed.
 * TS_OK or TS_ERR_NOMEM (then s keeps its old table). */
int solver_set_options(Solver *s, const SolverOptions *o);
const SolverOptions *solver_options(const Solver *s);

/*
 * Solves pos (side to move = attacker). Fills *r. Returns TS_OK (the search
 * outcome, including "unknown", is in r) or TS_ERR_ILLEGAL when pos is not a
 * position the solver accepts (pos_validate_problem refuses it). The table is
 * kept between calls (solver_clear forgets it); results never depend on it.
 */
int solver_solve(Solver *s, const Position *pos, SolveResult *r);

/*
 * The exact question "mate in <= max_plies under the rules of §2?" (with the
 * 無駄合 rule when futile_rule is set). SOLVE_MATE: r->length is the length of
 * a mate found (<= max_plies; exact and with a main line when prove_exact),
 * SOLVE_NOMATE: no mate within max_plies, SOLVE_UNKNOWN: a limit stopped it.
 */
int solver_mate_within(Solver *s, const Position *pos, int max_plies, SolveResult *r);

/*
 * The best mating line known so far in the current call, for a progress
 * callback (called on the search's own thread): once a first proof exists and a
 * progress callback is set, a checked line (legal, all checks, ends in mate)
 * read from the proofs; it improves as the exact-length phase finds shorter
 * mates. NULL (and *n = 0) before that.
 */
const Move *solver_known_line(const Solver *s, int *n);

/* Table use in permille (for USI hashfull). */
int solver_hashfull(const Solver *s);

/* Name of an algorithm ("dfpn", "pds", "multipath") and the reverse (false if unknown). */
const char *solver_algo_name(SolverAlgo a);
bool solver_algo_parse(const char *name, SolverAlgo *a);

/*
 * Multi-path parameters from "key=value,..." (keys: threads 1-8, base >= 1,
 * leader > 0, tt >= 0, budget pn|pndn|const) into o; false with a message in
 * why (naming the bad item) when the text is not valid.
 */
bool solver_mp_parse(const char *spec, SolverOptions *o, char *why, size_t whyn);

/*
 * Checks a line under the rules: every move legal, every attacker move (even
 * plies from pos) gives check, and the final position is mate (with futile_rule,
 * a position whose only replies are futile interpositions counts as mate). Returns true
 * when it holds; *bad_ply (may be NULL) gets the 0-based ply of the first fault
 * (n when only the final mate test fails).
 */
bool solver_line_verify(const Position *pos, const Move *line, int n, bool futile_rule, int *bad_ply);
/* Is pos (the defender to move) mated: no legal reply, or with futile_rule only futile interpositions? */
bool solver_mated(const Position *pos, Color attacker, bool futile_rule);

#endif
