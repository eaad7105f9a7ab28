/*
 * check.h - the flaw checker (the flaw-check paper, rules.md's classifier): is a problem
 * with its intended line (作意) a complete work, and if not, where and why.
 *
 * This is the one definition of a complete work in the project: `tsume check`,
 * `verify`, the exporter and the composer ask it, and the enumerator's flags
 * are tested against it.
 *
 * What is checked, for a line of n plies from pos (attacker to move):
 *  - the line itself: every move legal (ILLEGAL), every attacker move a check
 *    (NOT_CHECK), the final position mate, futile interpositions not counted (NOT_MATE).
 *    Any of these ends the check with the verdict CHECK_BAD_LINE.
 *  - at each attacker ply i (1-based, odd) every other check m' after which
 *    the defender is mated at all, at any length (the flaw-check paper: 作意以外の王手でも
 *    詰ますことが出来るなら余詰; the 1-ply mate paper: the last move excepted), with n - i
 *    the plies left after the line's own move:
 *      last ply: another mate in one         LAST_MOVE_ALT   最終手余詰 (tolerated;
 *                a longer mate there is no flaw)
 *      mates in fewer plies than n - i       HAYAZUME        早詰
 *      mates in n - i plies:
 *        same move but for promotion, or the same piece dropped on the same
 *        line to the king                    HIGENTEI        非限定 (tolerated)
 *        some line of shortest checks and longest defences from m' reaches the
 *        line's position at its own ply: with the same attacker moves in another
 *        order                               TEJUN_ZENGO     手順前後 (tolerated)
 *        with other moves                    UKAI            迂回 (tolerated)
 *        else                                YOZUME          余詰
 *      mates in more plies than n - i:
 *        some such line comes back to a position of the line (at or after ply
 *        i)                                  UKAI            迂回 (tolerated)
 *        else                                YOZUME          余詰
 *    and in a one-move problem (which needs a unique mate) every other check
 *    that mates at all is YOZUME (LAST_MOVE_ALT, not tolerated, for a mate in one).
 *    An alternative whose question a budget stops is counted as unproven (and
 *    listed in the report's open questions): the verdict is then "unknown",
 *    never "complete". Every question is asked, also after a fatal flaw is found
 *    (a composer repairs the flaws together), in passes of growing node limits:
 *    most are settled at once, and the budget goes to those that are not.
 *  - at each defender ply i every other legal reply d (futile interpositions are not
 *    replies) with the attacker's shortest mate after it of length v, against
 *    the line's remaining r = n - i:
 *      no mate at all                        NOMATE          不詰 (an escape)
 *      v > r, its line ends with 駒余り       HENCHOU         変長
 *      v > r otherwise, or v == r with an empty hand at the end while the line
 *      ends with pieces in hand              NOT_LONGEST_DEFENCE (the line is not the main line)
 *      v == r, before the second-last ply    HENDOU          変同 (tolerated)
 *  - the end: pieces left in the attacker's hand                    KOMAAMARI 駒余り
 *
 * With no line given, the solver's main line is checked; when it is flawed and
 * a defence before the first fatal flaw has a 変同, the main line through that
 * other defence is checked too (the latest first, a few tries), and the better
 * one is the report: a 余詰 in a 変同 branch is a 変化別詰 (変別), tolerated.
 *
 * Verdict: BAD_LINE as above; else NOMATE when some defence escapes (or, with
 * no line given, the problem has no mate); else FLAWED when some flaw is not
 * tolerated; else UNKNOWN when a budget stopped a question whose answer could
 * make it flawed; else COMPLETE (tolerated キズ listed).
 */
#ifndef TSUME_CHECK_H
#define TSUME_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "position.h"
#include "solver.h"

typedef enum { CHECK_COMPLETE, CHECK_FLAWED, CHECK_NOMATE, CHECK_UNKNOWN, CHECK_BAD_LINE } CheckVerdict;

typedef enum {
  FLAW_YOZUME,
  FLAW_LAST_MOVE_ALT,
  FLAW_KOMAAMARI,
  FLAW_HENDOU,
  FLAW_HENCHOU,
  FLAW_HIGENTEI,
  FLAW_TEJUN_ZENGO,
  FLAW_UKAI,
  FLAW_HAYAZUME,
  FLAW_NOMATE,
  FLAW_NOT_LONGEST_DEFENCE,
  FLAW_ILLEGAL,
  FLAW_NOT_CHECK,
  FLAW_NOT_MATE,
  FLAW_KIND_NB
} FlawKind;

#define CHECK_ALT_LINE_MAX 64 /* plies of an alternative's line kept in a report */

typedef struct {
  FlawKind kind;
  int ply;            /* 1-based ply of the line where it is found (the last ply for KOMAAMARI and NOT_MATE) */
  Move move;          /* the line's move at that ply (MOVE_NONE past the end) */
  Move alt;           /* the other move (MOVE_NONE for a flaw of the line itself) */
  int alt_length;     /* plies from this ply to mate along the alternative, the alternative
                       * included (-1: no mate, or not known) */
  int alt_length_min; /* with alt_length -1: it mates, in at least this many plies, its length and
                       * kind not settled within the budget (0: none such) */
  int alt_length_max; /* with alt_length -1: it mates, in at most this many plies (早詰: shorter
                       * than the line), its exact length not settled within the budget (0: none such) */
  int alt_line_len;   /* its line, alt first, at most CHECK_ALT_LINE_MAX plies kept; for 迂回 and
                       * 手順前後 the main line that comes back, ending with the line's own moves */
  Move alt_line[CHECK_ALT_LINE_MAX];
  bool alt_komaamari; /* the alternative's line ends with pieces in the attacker's hand */
  bool tolerated;     /* a キズ that does not make the problem flawed */
} CheckFlaw;

/* A question the budget left open: an alternative or a reply whose answer
 * could add a flaw. */
typedef struct {
  int ply;          /* 1-based ply of the line */
  Move alt;         /* the other check (attacker ply) or reply (defender ply) */
  bool longer;      /* an attacker alternative whose open question is whether it
                     * mates at any length (it does not mate within the plies left,
                     * or, with a long remainder, that is asked first) */
  uint64_t nodes;   /* solver nodes spent on it */
  uint64_t limit;   /* node limit of its last try (0: the rest of the budget) */
  bool asked;       /* tried at least once; false: the budget ran out before its turn */
  bool mates;       /* the alternative or reply is proven to mate (lose): its length, or
                     * whether it comes back to the line, is what is open */
  int mate_max;     /* with mates: the length of a mate found with it, the move itself counted
                     * as in CheckFlaw.alt_length; an upper bound (0: none known) */
} CheckOpen;

typedef struct {
  CheckVerdict verdict;
  int line_length;     /* plies of the line checked */
  Move *line;          /* the line checked (given, or found by the solver when none was given) */
  bool line_given;
  int length;          /* the problem's mate length by the solver (-1: no mate or not known) */
  bool length_exact;
  CheckFlaw *flaws;    /* in ply order, then by move */
  int nflaws;
  int flaws_dropped;   /* flaws not kept because of max_alts */
  int unproven;        /* questions a budget stopped (their alternatives are not classified) */
  int unproven_ply;    /* first ply with such a question (0: none) */
  uint64_t nodes;      /* solver nodes of the whole check */
  uint64_t first_flaw_nodes; /* nodes and time spent when the first flaw that is not tolerated was */
  uint64_t first_flaw_ms;    /* found (0: none) */
  uint64_t time_ms;
  CheckOpen *open;     /* the questions left open (unproven of them; in ply order) */
  int nopen;
  int workers;         /* solvers that asked the questions at once (CheckOptions.workers) */
  char message[256];   /* for BAD_LINE: what is wrong, and where; for UNKNOWN without a line: what ran out */
  /* owned storage */
  int flaws_cap, line_cap, open_cap;
} CheckReport;

#define CHECK_WORKERS_MAX 16

typedef struct {
  size_t hash_mb;       /* solver table (default 64) */
  uint64_t max_nodes;   /* nodes over the whole check, 0 = none */
  uint64_t time_ms;     /* time over the whole check, 0 = none */
  uint64_t call_nodes;  /* nodes of one solver question in the passes without a budget, 0 = none
                         * (default 2,000,000). With a time or node budget (or a deadline), the
                         * questions still open after a pass at this limit get passes of growing
                         * limits until all are settled or the budget is spent, and the search for
                         * a main line has the whole budget (a deadline alone is no budget: it ends
                         * the check, the passes stop at call_nodes) */
  int max_alts;         /* flaws kept per problem (default 1000) */
  bool futile_rule;     /* 無駄合 rule (default true) */
  bool futile_compare;  /* its second part, the same mate (default true; solver.h) */
  bool strict;          /* HIGENTEI, TEJUN_ZENGO and UKAI are flaws too (default false) */
  bool strict_last_move; /* LAST_MOVE_ALT is a flaw too (default false) */
  bool first_flaw;      /* stop at the first flaw that is not tolerated (faster; default false) */
  bool quick_after_fatal; /* once a 余詰 or 早詰 is proven, the questions whether the other alternatives
                         * mate at a longer length get the first pass only: the verdict is the same,
                         * fewer flaws may be listed (default false; the composer's judge sets it) */
  int workers;          /* solvers asking one problem's questions at once, each with a table of
                         * hash_mb (default 1; at most CHECK_WORKERS_MAX). Used only while the
                         * check has a time budget or a deadline and no node budget: the answers
                         * then depend on timing anyway, and a node budget stays reproducible */
  volatile int *stop;   /* when non-NULL and *stop != 0 the check stops soon */
  FILE *trace;          /* when non-NULL, each question that costs 100,000 nodes or more is
                         * written here (pass, ply, move, answered or not, nodes, time) */
} CheckOptions;

void check_options_default(CheckOptions *o);

typedef struct Checker Checker;

/* NULL when out of memory. One Checker is not thread-safe; use one per thread. */
Checker *check_create(const CheckOptions *o);
void check_free(Checker *c);
const CheckOptions *check_options(const Checker *c);

/* A deadline over every later check, on solver_now_ms()'s clock (0: none): a
 * question in progress ends there, and a check that meets it ends as one out of
 * its budget (unknown, its questions unproven). The composer sets its own. */
void check_set_deadline(Checker *c, uint64_t deadline_ms);
uint64_t check_deadline(const Checker *c);
/* The time budget of every later check (CheckOptions.time_ms), and
 * quick_after_fatal; each returns the value it replaces. */
uint64_t check_set_time(Checker *c, uint64_t time_ms);
/* Sets the node budget of the next checks (0: none); returns the old one. */
uint64_t check_set_nodes(Checker *c, uint64_t max_nodes);
bool check_set_quick_after_fatal(Checker *c, bool on);

/* fn(ctx, r, f) is called for each flaw an alternative or a reply turns out to be,
 * as soon as it is proven, while the check goes on (r->line is the line being
 * checked: without a given line, the report may end with another main line and
 * its flaws); fn = NULL: none. The report's order and verdict come at the end. */
typedef void (*CheckFlawFn)(void *ctx, const CheckReport *r, const CheckFlaw *f);
void check_set_on_flaw(Checker *c, CheckFlawFn fn, void *ctx);

/* The nodes of the check in progress so far, for a progress display on another
 * thread: the checker's count of its finished questions and its solver's of
 * the current one, read without a lock (an estimate, not always growing). */
uint64_t check_nodes_live(const Checker *c);

/* The solver the checker uses (its table is shared with the checks). */
Solver *check_solver(Checker *c);

void check_report_init(CheckReport *r);
void check_report_free(CheckReport *r);
/* *d becomes a copy of *s with storage of its own (d initialised, its storage
 * reused). TS_OK or TS_ERR_NOMEM (d unchanged). */
int check_report_copy(CheckReport *d, const CheckReport *s);

/*
 * Checks pos with the intended line line[0..n) (n == 0 or line == NULL: the
 * solver's main line is found and checked). Fills *r (which must have been
 * initialised; it is reused). Returns TS_OK, TS_ERR_ILLEGAL when pos is not a
 * problem position (no defender king, defender in check, ...), TS_ERR_NOMEM.
 */
int check_problem(Checker *c, const Position *pos, const Move *line, int n, CheckReport *r);

/* "yozume", "last-move-alt", ... (the enumerator's flag names where they exist). */
const char *check_flaw_name(FlawKind k);
/* 余詰, 最終手余詰, ... */
const char *check_flaw_name_ja(FlawKind k);
/* "complete", "flawed", "nomate", "unknown", "bad-line". */
const char *check_verdict_name(CheckVerdict v);
/* Is the flaw kind tolerated under the options (a キズ)? */
bool check_kind_tolerated(const CheckOptions *o, FlawKind k);
bool check_is_complete(const CheckReport *r);
/* Does the attacker alternative f mate in more plies than the line's remainder
 * (a longer 余詰, or a 迂回 that comes back later)? */
bool check_flaw_longer(const CheckReport *r, const CheckFlaw *f);
/* 非限定 shape of an alternative check alt to the line's move m (attacker to
 * move in pos): the same move but for promotion, or the same piece dropped on
 * another square of the same line on the same side of the defender's king.
 * The enumerator's flag uses it too. */
bool check_non_limiting(const Position *pos, Move m, Move alt);

#endif
