/*
 * compose.h - the composer: a flawed diagram made a complete work by the piece
 * roles of the composition paper with the flaw checker (solver/check.h) as the only judge,
 * and complete works built backwards from one mate picture (逆算).
 *
 * ---- Improvement (the composition paper §4.4) ------------------------------------------
 * One iteration, from the current diagram D (the best by the order below):
 *   1. priority line: among D's main line and the mating lines of its 余詰 /
 *      早詰 (the checker's alternative lines), the one that leaves the fewest
 *      pieces in the attacker's hand at the end, then the longest (--keep-line:
 *      always the given line);
 *   2. roles of the pieces along it (roles.h); the board pieces without a role
 *      are deleted together -> candidate;
 *   3. a piece is added by Table 1 by the candidate's number of 余詰 (0: to the
 *      attacker's hand, the attacker's board or the defender's board; 1: hand or
 *      attacker's board; 2-3: attacker's board; 4+: defender's board), of a kind
 *      left in the defender's hand, on the candidate squares of §4.3 around the
 *      king; then the pieces without a role on any of the candidate's lines are
 *      deleted again -> candidate;
 *   4. pieces replaced while keeping their roles (the priority line stays a
 *      mating line and the replaced piece keeps every role it had along it):
 *      one piece, or two at once (what the composition paper §6 finds missing) -> candidates.
 * Each candidate is judged by check_problem and compared with D by §4.4's
 * order: fewer flaws while more than 3, a longer mate, fewer flaws, more pieces.
 * A better candidate becomes D and the next iteration starts from it, except
 * that a candidate shorter than the floor (the input's length) never replaces
 * a D that reaches it: the search does not collapse to short works. After
 * `stall` iterations in a row without a better D the run starts again (a
 * restart), in turn from the best complete work found (to make it longer),
 * from the input without the floor (the seed's plain order), and from the
 * input with the floor, each changed by one to three random steps (a piece
 * taken off, moved to a square next to it, or added by Table 1; unchanged when
 * the changed diagram has no mate); it stops only at the budget (time,
 * iterations, the stop flag), or when a cap `restarts` is given and that many
 * restarts in a row found no better complete work. With a time budget the
 * loop ends early when there is a complete work, by what the lean-up below
 * should take (two checks per piece at the run's mean time per check, at most
 * a twentieth of the budget and 30 s); the lean-up ends at the deadline. The best
 * complete work seen (longest, then fewest pieces) is kept apart from D, so a
 * short complete work is the result only when no longer one was found; at
 * the end pieces are taken off it one by one while it stays complete with the
 * same length (leaner).
 * The attacker's king (real-game diagrams have one, a tsume problem has none)
 * is taken off first when the diagram without it still has a mate, else tried
 * again in the lean-up of the best complete work; keep_king keeps it.
 * Flaws here: the checker's flaws that are not tolerated; a verdict UNKNOWN
 * counts one more. Random choices come from one generator seeded by `seed`,
 * so a run with an iteration budget is the same every time.
 *
 * The defender's hand is always every piece not on the board or in the
 * attacker's hand (the tsume convention); the input's is replaced by it.
 */
#ifndef TSUME_COMPOSE_H
#define TSUME_COMPOSE_H

#include <stdbool.h>
#include <stdint.h>

#include "check.h"
#include "position.h"

#define COMPOSE_LINE_MAX 512

typedef struct {
  bool valid;          /* a mating line was judged (verdict COMPLETE, FLAWED or UNKNOWN) */
  CheckVerdict verdict;
  int length;          /* plies of the judged line */
  int defects;         /* flaws not tolerated, +1 for an UNKNOWN verdict */
  int yozume;          /* 余詰 and 早詰 among them (Table 1's count) */
  int pieces;          /* pieces on the board (kings included) and in the attacker's hand */
} ComposeScore;

typedef enum {
  COMPOSE_STEP_START,
  COMPOSE_STEP_DELETE,
  COMPOSE_STEP_ADD,
  COMPOSE_STEP_REPLACE,
  COMPOSE_STEP_REPLACE2,
  COMPOSE_STEP_CLEANUP,
  COMPOSE_STEP_DROP_KING, /* the attacker's king taken off */
  COMPOSE_STEP_RESTART,   /* the search starts again (not a better diagram) */
  COMPOSE_STEP_NB
} ComposeStepKind;

/* An accepted step (and the start), for a history and a best-so-far file. */
typedef struct {
  ComposeStepKind kind;
  uint64_t iteration;
  const Position *pos;
  ComposeScore score;
  const CheckReport *report; /* the checker's report of pos */
  bool best_complete;        /* pos is the best complete work so far */
} ComposeStep;

typedef struct {
  uint64_t iterations, checks, accepted, restarts;
  uint64_t elapsed_ms;
  ComposeScore current;     /* the diagram the iterations start from */
  ComposeScore best_complete; /* valid == false while none */
} ComposeProgress;

/* Milliseconds on the clock the composer's budgets are read on (monotonic). */
uint64_t compose_now_ms(void);

typedef struct {
  uint64_t seed;
  uint64_t time_ms;        /* 0: no time limit. The checker's deadline during the run
                            * (check_set_deadline): a question in progress ends there */
  uint64_t t0_ms;          /* start of the time budget on compose_now_ms()'s clock (0: when
                            * compose_run starts); lets a caller count its own set-up */
  uint64_t iterations;     /* 0: no iteration limit */
  uint64_t stall;          /* iterations without a better diagram before a restart (default 300, 0 = never) */
  uint64_t restarts;       /* 0 (default): no cap; else stop after this many restarts in a row
                            * without a better complete work (stop_reason "restarts") */
  bool keep_king;          /* keep the attacker's king (else taken off while the diagram stays a mate) */
  int max_pieces;          /* pieces on the board and in the attacker's hand, 0 = no limit */
  bool no_promoted;        /* no promoted piece is added or made by a replacement */
  unsigned exclude_kinds;  /* 1 << base kind: kinds never added or made by a replacement */
  const Move *keep_line;   /* 手順法: this line stays the line judged (NULL: the problem's main line) */
  int keep_n;
  int replace_tries;       /* role-keeping replacements judged per iteration (default 6) */
  volatile int *stop;      /* when non-NULL and *stop != 0 the run ends soon */
  void (*on_step)(void *ctx, const ComposeStep *s);
  void *step_ctx;
  void (*on_progress)(void *ctx, const ComposeProgress *p); /* about every progress_ms */
  void *progress_ctx;
  uint64_t progress_ms;    /* 0 = 1000 */
} ComposeOptions;

void compose_options_default(ComposeOptions *o);

typedef struct {
  Position start;          /* the input as judged (defender's hand: the rest) */
  ComposeScore start_score;
  Position best;           /* the best complete work, else the best diagram */
  ComposeScore best_score;
  bool complete;           /* best is a complete work */
  CheckReport report;      /* the checker's report of best (owned; compose_result_free) */
  uint64_t iterations, checks, accepted, restarts;
  uint64_t time_ms;
  bool king_dropped;       /* the start had an attacker's king and best has none */
  Square king_square;      /* where it stood (SQ_NONE when the start had none) */
  const char *stop_reason; /* "time", "iterations", "stop", "restarts" (the cap), "nomate" */
} ComposeResult;

/*
 * Runs the improvement on pos (attacker to move) with the checker c (the
 * caller's; one per thread). Returns TS_OK with *r filled (free it with
 * compose_result_free), TS_ERR_ILLEGAL when pos is not a problem position or
 * the keep line is not a mating line from it (r->report.message says why),
 * TS_ERR_NOMEM. A diagram without a mate (verdict NOMATE) is judged and
 * returned at once (stop_reason "nomate"): there is no line to improve from.
 */
int compose_run(Checker *c, const Position *pos, const ComposeOptions *o, ComposeResult *r);
void compose_result_free(ComposeResult *r);

/* The score of a report (and of the position it judged). */
ComposeScore compose_score(const Position *pos, const CheckReport *rep);
/* §4.4's order: true when a is better than b. */
bool compose_better(const ComposeScore *a, const ComposeScore *b);
/* The order of the best so far that a caller keeps (a file, the desk): a complete
 * work before any other (then longer, then fewer pieces), else compose_better. */
bool compose_kept_better(const ComposeScore *a, const ComposeScore *b);

const char *compose_step_name(ComposeStepKind k);

/* ---- Backwards from a mate picture (逆算) -------------------------------- */

typedef struct {
  int max_moves;       /* longest work looked for (odd, default 7) */
  int max_pieces;      /* pieces on the board and in the attacker's hand, 0 = no limit */
  uint64_t max_works;  /* stop after this many works (0 = no limit) */
  uint64_t max_nodes;  /* positions looked at (0 = no limit) */
  uint64_t time_ms;    /* 0: no limit; the checker's deadline during the call, as compose_run's */
  uint64_t t0_ms;      /* start of the time budget (compose_now_ms; 0: when the call starts) */
  volatile int *stop;
  /* about every progress_ms (0 = 1000): plies being looked at, positions judged, works found */
  void (*on_progress)(void *ctx, int plies, uint64_t candidates, uint64_t works, uint64_t elapsed_ms);
  void *progress_ctx;
  uint64_t progress_ms;
  /* called for each complete work found, in order of length (shortest first) */
  int (*on_work)(void *ctx, const Position *pos, const Move *line, int n, const CheckReport *rep);
  void *work_ctx;
} FromMateOptions;

void compose_from_mate_options_default(FromMateOptions *o);

typedef struct {
  uint64_t works;        /* complete works found */
  uint64_t candidates;   /* attacker-to-move positions judged */
  uint64_t time_ms;
  int longest;           /* plies of the longest work (0: none) */
  bool cut;              /* a limit (nodes, time, works, stop) ended it early */
} FromMateResult;

/*
 * Every complete work of up to max_moves plies whose main line ends in `mate`
 * (defender to move, mated; the attacker's hand must be empty). From the
 * picture it goes back one attacker move and one defender move at a time with
 * core/retro.c's un-moves; every attacker-to-move position on the way is judged
 * by check_problem with the line back to the picture as the intended line, and
 * only complete ones are followed further back (a longer work passes through a
 * shorter complete one). Returns TS_OK, TS_ERR_ILLEGAL (not a mate, attacker's
 * hand not empty; err says which), TS_ERR_NOMEM, or what on_work returned when
 * not 0.
 */
int compose_from_mate(Checker *c, const Position *mate, const FromMateOptions *o, FromMateResult *r, TsError *err);

#endif
