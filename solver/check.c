/*
 * check.c - the flaw checker of check.h.
 *
 * Every question is an exact one put to the solver ("mated within L plies?",
 * the exact value of a position, the main line from a position), so a flaw
 * reported is proven; a question a budget stops is counted as unproven and
 * the verdict is then at best "unknown". The solver's table is shared by all
 * questions of a check, and the positions along the line share most of their
 * subtrees, so later questions are answered mostly from the table.
 *
 * Order of work for a line main[0..n]:
 *   1. the line itself (legal, checks, mate at the end);
 *   2. each attacker ply: every other check, bounded by the plies left;
 *   3. each defender ply: every other reply, first bounded by the plies left
 *      (a shorter or equal defence), then unbounded (a longer one, or an escape);
 *   4. 駒余り at the end, and (when not complete) the problem's own length.
 */
#define _GNU_SOURCE /* qsort_r */
#include "check.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "movegen.h"
#include "sfen.h"
#include "search.h"
#include "solver_value.h"

/* Bound of the "is there any mate at all" question for a defence that outlasts the line. */
#define CHECK_ANY_MATE 4001
/* Remainders from which an attacker alternative is first asked whether it mates at all. */
#define CHECK_ANY_FIRST 9
/* Node limit of the first "mated at all?" search after a defender reply (a long remainder). */
#define PROBE_NODES 20000
/* Time after which a check still asking its questions has its aides join (CheckOptions.workers). */
#define CHECK_AIDES_MS 1000
/* An aide's stack: the solver and the rejoin / 駒余り walks recurse once per ply (as the
 * check and job threads of the commands, 512 MiB of address space, touched as used). */
#define CHECK_AIDE_STACK ((size_t)512 << 20)
/* Questions costing at least this many nodes are written to the trace. */
#define CHECK_TRACE_NODES 100000
/* Positions visited by one rejoin search (手順前後 / 迂回). */
#define CHECK_REJOIN_BUDGET 20000

struct Checker {
  CheckOptions opt;
  Solver *s;
  /* per check */
  Color att;
  uint64_t t0;
  uint64_t deadline_ms; /* check_set_deadline: solver_now_ms() at which every check ends (0: none) */
  uint64_t nodes;
  bool out_of_budget;
  Position *main;
  int main_cap;
  Move *scratch;
  Move *path; /* the line found by empty_hand_line */
  /* the main line of the last alternative alternative_kind found coming back to the line: its
   * moves after the alternative up to main[wit_j] (nwit of them); nwit -1: none */
  Move wit[CHECK_ALT_LINE_MAX];
  int nwit, wit_j;
  int scratch_cap;
  int rejoin_budget;
  uint64_t call_limit; /* node limit of one solver question in the current pass */
  uint64_t q_end;      /* c->nodes at which the question under way has spent its share (0: none) */
  int *flaw_q;         /* per flaw of the report: the index of its question (ordering) */
  int flaw_q_cap;
  int cur_q;
  int rejoin_scale; /* the rejoin and 駒余り searches' budget, in CHECK_REJOIN_BUDGET */
  CheckFlawFn on_flaw;
  void *flaw_ctx;
  /* questions asked in parallel (opt.workers > 1, with a time budget): the lead's aides, each
   * with a table of its own, take the questions of a pass from one queue; the report and the
   * flaw order are the lead's, written under its lock */
  struct Checker *lead; /* an aide: the checker it works for (NULL: a lead) */
  struct Checker **aides;
  int naides;           /* aides made */
  int nactive;          /* aides working in the current check (0: the questions one at a time) */
  pthread_mutex_t mu;
  bool halt;            /* the pass stops: the first fatal flaw with first_flaw, or out of budget */
  bool first_halt;      /* it stopped at the first fatal flaw (first_flaw; under the lock) */
};

void check_options_default(CheckOptions *o) {
  memset(o, 0, sizeof *o);
  o->hash_mb = 64;
  o->call_nodes = 2000000;
  o->max_alts = 1000;
  o->workers = 1;
  o->futile_rule = true;
  o->futile_compare = true;
}

static bool aides_make(Checker *c);

Checker *check_create(const CheckOptions *o) {
  Checker *c = calloc(1, sizeof *c);
  if (!c) return NULL;
  if (o)
    c->opt = *o;
  else
    check_options_default(&c->opt);
  SolverOptions so;
  solver_options_default(&so);
  so.hash_mb = c->opt.hash_mb ? c->opt.hash_mb : 64;
  so.futile_rule = c->opt.futile_rule;
  so.futile_compare = c->opt.futile_compare;
  so.stop = c->opt.stop;
  c->s = solver_create(&so);
  pthread_mutex_init(&c->mu, NULL);
  c->scratch_cap = 8192;
  c->scratch = malloc((size_t)c->scratch_cap * sizeof *c->scratch);
  c->path = malloc((size_t)c->scratch_cap * sizeof *c->path);
  if (!c->s || !c->scratch || !c->path || !aides_make(c)) {
    check_free(c);
    return NULL;
  }
  return c;
}

void check_free(Checker *c) {
  if (!c) return;
  for (int i = 0; i < c->naides; i++) check_free(c->aides[i]);
  free(c->aides);
  pthread_mutex_destroy(&c->mu);
  solver_free(c->s);
  free(c->main);
  free(c->scratch);
  free(c->path);
  free(c->flaw_q);
  free(c);
}

void check_set_deadline(Checker *c, uint64_t deadline_ms) { c->deadline_ms = deadline_ms; }

uint64_t check_set_time(Checker *c, uint64_t time_ms) {
  uint64_t old = c->opt.time_ms;
  c->opt.time_ms = time_ms;
  return old;
}

uint64_t check_set_nodes(Checker *c, uint64_t max_nodes) {
  uint64_t old = c->opt.max_nodes;
  c->opt.max_nodes = max_nodes;
  return old;
}

void check_set_on_flaw(Checker *c, CheckFlawFn fn, void *ctx) {
  c->on_flaw = fn;
  c->flaw_ctx = ctx;
}

bool check_set_quick_after_fatal(Checker *c, bool on) {
  bool old = c->opt.quick_after_fatal;
  c->opt.quick_after_fatal = on;
  return old;
}

uint64_t check_deadline(const Checker *c) { return c->deadline_ms; }

uint64_t check_nodes_live(const Checker *c) {
  uint64_t n = __atomic_load_n(&c->nodes, __ATOMIC_RELAXED) + __atomic_load_n(&c->s->nodes, __ATOMIC_RELAXED);
  int na = __atomic_load_n(&c->nactive, __ATOMIC_ACQUIRE);
  for (int i = 0; i < na; i++) n += check_nodes_live(c->aides[i]);
  return n;
}

const CheckOptions *check_options(const Checker *c) { return &c->opt; }
Solver *check_solver(Checker *c) { return c->s; }

void check_report_init(CheckReport *r) { memset(r, 0, sizeof *r); }

void check_report_free(CheckReport *r) {
  free(r->flaws);
  free(r->line);
  free(r->open);
  memset(r, 0, sizeof *r);
}

/* Grows *v (of *cap elements of size sz) to hold n; false when out of memory. */
static bool grow(void **v, int *cap, int n, size_t sz) {
  if (n <= *cap) return true;
  void *p = realloc(*v, (size_t)n * sz);
  if (!p) return false;
  *v = p;
  *cap = n;
  return true;
}

int check_report_copy(CheckReport *d, const CheckReport *s) {
  if (!grow((void **)&d->flaws, &d->flaws_cap, s->nflaws, sizeof *d->flaws) ||
      !grow((void **)&d->line, &d->line_cap, s->line_length, sizeof *d->line) ||
      !grow((void **)&d->open, &d->open_cap, s->nopen, sizeof *d->open))
    return TS_ERR_NOMEM;
  CheckFlaw *f = d->flaws;
  Move *l = d->line;
  CheckOpen *o = d->open;
  int fc = d->flaws_cap, lc = d->line_cap, oc = d->open_cap;
  *d = *s;
  d->flaws = f, d->line = l, d->open = o;
  d->flaws_cap = fc, d->line_cap = lc, d->open_cap = oc;
  if (s->nflaws) memcpy(d->flaws, s->flaws, (size_t)s->nflaws * sizeof *d->flaws);
  if (s->line_length) memcpy(d->line, s->line, (size_t)s->line_length * sizeof *d->line);
  if (s->nopen) memcpy(d->open, s->open, (size_t)s->nopen * sizeof *d->open);
  return TS_OK;
}

static const char *const FLAW_NAMES[FLAW_KIND_NB] = {
    "yozume",   "last-move-alt", "komaamari", "hendou",  "henchou",             "higentei", "tejun-zengo",
    "ukai",     "hayazume",      "nomate",    "not-longest-defence", "illegal", "not-check", "not-mate"};
static const char *const FLAW_NAMES_JA[FLAW_KIND_NB] = {
    "余詰", "最終手余詰", "駒余り", "変同", "変長", "非限定", "手順前後",
    "迂回", "早詰",       "不詰",   "最長でない応手", "反則手", "王手でない", "詰んでいない"};

const char *check_flaw_name(FlawKind k) { return k < FLAW_KIND_NB ? FLAW_NAMES[k] : "?"; }
const char *check_flaw_name_ja(FlawKind k) { return k < FLAW_KIND_NB ? FLAW_NAMES_JA[k] : "?"; }

const char *check_verdict_name(CheckVerdict v) {
  switch (v) {
  case CHECK_COMPLETE: return "complete";
  case CHECK_FLAWED: return "flawed";
  case CHECK_NOMATE: return "nomate";
  case CHECK_UNKNOWN: return "unknown";
  default: return "bad-line";
  }
}

bool check_kind_tolerated(const CheckOptions *o, FlawKind k) {
  switch (k) {
  case FLAW_LAST_MOVE_ALT: return !o->strict_last_move;
  case FLAW_HENDOU: return true;
  case FLAW_HIGENTEI:
  case FLAW_TEJUN_ZENGO:
  case FLAW_UKAI: return !o->strict;
  default: return false;
  }
}

bool check_is_complete(const CheckReport *r) { return r->verdict == CHECK_COMPLETE; }

bool check_flaw_longer(const CheckReport *r, const CheckFlaw *f) {
  return f->alt != MOVE_NONE && f->ply % 2 == 1 && f->alt_length > r->line_length - f->ply + 1;
}

/* ---- budget -------------------------------------------------------------- */

/* Sets the solver's limits for the next question; false when the check's
 * budget is spent (or a stop was asked). */
static inline Checker *lead_of(Checker *c) { return c->lead ? c->lead : c; }

/* A worker's own nodes: written by that worker only, read by the others. */
static inline void nodes_add(Checker *c, uint64_t n) {
  __atomic_store_n(&c->nodes, __atomic_load_n(&c->nodes, __ATOMIC_RELAXED) + n, __ATOMIC_RELAXED);
}

/* Nodes of the check so far, every worker's. */
static uint64_t nodes_all(Checker *c) {
  Checker *L = lead_of(c);
  uint64_t n = __atomic_load_n(&L->nodes, __ATOMIC_RELAXED);
  for (int i = 0; i < L->nactive; i++) n += __atomic_load_n(&L->aides[i]->nodes, __ATOMIC_RELAXED);
  return n;
}

/* Has the question under way spent its share of the pass (pass_work)? */
static bool share_spent(const Checker *c) { return c->q_end && c->nodes >= c->q_end; }

static bool budget(Checker *c) {
  if (c->out_of_budget) return false;
  const CheckOptions *o = &c->opt;
  uint64_t now = solver_now_ms(), el = now - c->t0;
  uint64_t used = o->max_nodes ? nodes_all(c) : 0;
  if (share_spent(c)) return false; /* this question's share, not the check's */
  if ((o->stop && *o->stop) || (o->time_ms && el >= o->time_ms) || (o->max_nodes && used >= o->max_nodes) ||
      (c->deadline_ms && now >= c->deadline_ms)) {
    c->out_of_budget = true;
    return false;
  }
  /* every question with the solver's defaults (whatever another user of this
   * solver set), the check's futile rule and the limits of this question */
  SolverOptions so;
  solver_options_default(&so);
  so.hash_mb = solver_options(c->s)->hash_mb;
  so.max_nodes = c->call_limit;
  if (o->max_nodes && (!so.max_nodes || o->max_nodes - used < so.max_nodes)) so.max_nodes = o->max_nodes - used;
  if (c->q_end && (!so.max_nodes || c->q_end - c->nodes < so.max_nodes)) so.max_nodes = c->q_end - c->nodes;
  so.time_ms = o->time_ms ? o->time_ms - el : 0;
  if (c->deadline_ms && (!so.time_ms || c->deadline_ms - now < so.time_ms)) so.time_ms = c->deadline_ms - now;
  so.stop = o->stop;
  so.halt = &lead_of(c)->halt; /* another worker's fatal flaw with first_flaw, or the budget's end */
  so.futile_rule = o->futile_rule;
  so.futile_compare = o->futile_compare;
  so.progress = NULL;
  so.trace = NULL;
  solver_set_options(c->s, &so); /* same table size: cannot fail */
  return true;
}

/* Has the question under way, or the check, no nodes left? */
static bool spent(const Checker *c) { return c->out_of_budget || share_spent(c); }

/* Exact value of p within max plies (solver_value_above: no mate is shorter than
 * min); SOLVER_VALUE_NONE when none, SOLVER_VALUE_UNKNOWN when out of budget. */
static int value_above(Checker *c, const Position *p, int min, int max) {
  if (!budget(c)) return SOLVER_VALUE_UNKNOWN;
  int v = solver_value_above(c->s, p, c->att, min, max);
  nodes_add(c, c->s->nodes);
  return v;
}

static int value(Checker *c, const Position *p, int max) { return value_above(c, p, 0, max); }

/* Is q mated within L plies? 1 yes (*len gets the length found, not always the
 * shortest), 0 no, -1 out of budget. */
static int mated_within(Checker *c, const Position *q, int L, int *len) {
  if (L < 0) return 0;
  if (!budget(c)) return -1;
  search_call_reset(c->s);
  int m = L, k = pv_mate_within(c->s, q, c->att, L, &m);
  nodes_add(c, c->s->nodes);
  if (k > 0 && len) *len = m;
  return k;
}

/* Is q mated at all? 1 yes (*len gets a length found), 0 no, -1 out of budget.
 * The unbounded search first: whether q is mated does not depend on the 無駄合
 * rule's last condition, which its nodes do not ask; its proof carries a length
 * unless it counted an interposition futile without asking, and then the
 * bounded question "mated within CHECK_ANY_MATE?" gives one. */
static int mated_at_all(Checker *c, const Position *q, int *len) {
  int m = TT_LEN_INF;
  c->s->expect_nomate = true; /* most deviations from a line do not mate: their answer is a disproof */
  int k = mated_within(c, q, TT_LEN_INF, &m);
  c->s->expect_nomate = false;
  if (k <= 0) return k;
  if (m > CHECK_ANY_MATE) {
    m = CHECK_ANY_MATE;
    /* no mate within the bound leaves m at the bound: the length search then says unknown */
    if (mated_within(c, q, CHECK_ANY_MATE, &m) < 0) return -1;
  }
  *len = m;
  return 1;
}

/* "Mated at all?" within PROBE_NODES (and the question's limit), searched for a proof:
 * 1 yes, 0 no, -1 not settled. */
static int mated_probe(Checker *c, const Position *q, int *len) {
  uint64_t lim = c->call_limit;
  if (!lim || lim > PROBE_NODES) c->call_limit = PROBE_NODES;
  int k = mated_within(c, q, TT_LEN_INF, len);
  c->call_limit = lim;
  return k;
}

static int interpose_futile(Checker *c, const Position *p, Move d, int R) {
  if (!budget(c)) return -1;
  int f = solver_interpose_futile(c->s, p, d, c->att, R);
  nodes_add(c, c->s->nodes);
  return f;
}

/* The common case first: does a free capture leave a position mated within L? */
static int interpose_futile_within(Checker *c, const Position *p, Move d, int L) {
  if (!budget(c)) return -1;
  int f = solver_interpose_futile_within(c->s, p, d, c->att, L);
  nodes_add(c, c->s->nodes);
  return f;
}

/* Main line from p of exact value v into c->scratch; its length or -1. */
static int line_from(Checker *c, const Position *p, int v) {
  if (v == 0) return 0;
  if (!budget(c)) return -1;
  int n = solver_line_from(c->s, p, c->att, v, c->scratch, c->scratch_cap);
  nodes_add(c, c->s->nodes);
  return n;
}

/* ---- report -------------------------------------------------------------- */

/* A flaw of kind k at the 0-based ply0, alt its move, nothing else known yet (no length, no line). */
static void flaw_fill(const Checker *c, const CheckReport *r, CheckFlaw *f, FlawKind k, int ply0, Move alt) {
  memset(f, 0, sizeof *f);
  f->kind = k;
  f->ply = ply0 + 1;
  f->move = ply0 < r->line_length ? r->line[ply0] : MOVE_NONE;
  f->alt = alt;
  f->alt_length = -1;
  f->tolerated = check_kind_tolerated(&c->opt, k);
  /* a one-move problem with two mating moves has no single answer */
  if (k == FLAW_LAST_MOVE_ALT && r->line_length == 1) f->tolerated = false;
}

/* Appends flaw nf, found by question q, to the report (c: the lead). NULL when not kept. */
static CheckFlaw *flaw_append(Checker *c, CheckReport *r, const CheckFlaw *nf, int q, uint64_t at_nodes,
                              uint64_t at_ms) {
  FlawKind k = nf->kind;
  if (r->nflaws >= c->opt.max_alts && k != FLAW_ILLEGAL && k != FLAW_NOT_CHECK && k != FLAW_NOT_MATE) {
    r->flaws_dropped++;
    return NULL;
  }
  if (r->nflaws == r->flaws_cap) {
    int cap = r->flaws_cap ? 2 * r->flaws_cap : 16;
    CheckFlaw *f = realloc(r->flaws, (size_t)cap * sizeof *f);
    if (!f) {
      r->flaws_dropped++;
      return NULL;
    }
    r->flaws = f;
    r->flaws_cap = cap;
  }
  if (r->nflaws >= c->flaw_q_cap) {
    int cap = c->flaw_q_cap ? 2 * c->flaw_q_cap : 16;
    int *q = realloc(c->flaw_q, (size_t)cap * sizeof *q);
    if (!q) {
      r->flaws_dropped++;
      return NULL;
    }
    c->flaw_q = q;
    c->flaw_q_cap = cap;
  }
  c->flaw_q[r->nflaws] = q;
  CheckFlaw *f = &r->flaws[r->nflaws++];
  *f = *nf;
  if (!f->tolerated && !r->first_flaw_nodes) {
    r->first_flaw_nodes = at_nodes ? at_nodes : 1;
    r->first_flaw_ms = at_ms - c->t0;
  }
  return f;
}

/* A flaw of the line itself (the lead, no question being asked). */
static void flaw_add(Checker *c, CheckReport *r, FlawKind k, int ply0, Move alt) {
  CheckFlaw f;
  flaw_fill(c, r, &f, k, ply0, alt);
  flaw_append(c, r, &f, c->cur_q, nodes_all(c), solver_now_ms());
}

static int empty_hand_line(Checker *c, const Position *q, int v, int depth);
typedef struct Rejoin Rejoin;
static int main_moves(Checker *c, const Position *q, int R, bool exact, Move *out, bool *futile_pass, int *nsure,
                      const Rejoin *rj);

/* Fills the alternative's line: alt, then the main line from q (value v), one that
 * ends with the attacker's hand empty when there is one. */
/* A flaw's length (v plies after the alternative) and its line's first move, the alternative. */
static void alt_line_begin(CheckFlaw *f, int v) {
  f->alt_length = v + 1;
  f->alt_line[0] = f->alt;
  f->alt_line_len = 1;
}

static void flaw_alt_line(Checker *c, CheckFlaw *f, const Position *q, int v) {
  if (!f) return;
  alt_line_begin(f, v);
  int n = line_from(c, q, v);
  if (n < 0) return;
  const Move *moves = c->scratch;
  Position e = *q;
  for (int i = 0; i < n; i++) {
    Undo u;
    pos_do_move(&e, moves[i], &u);
  }
  if (!hand_empty(e.hand[c->att]) && n == v) {
    c->rejoin_budget = CHECK_REJOIN_BUDGET;
    if (empty_hand_line(c, q, v, 0) > 0 && v <= c->scratch_cap) {
      moves = c->path;
      e = *q;
      for (int i = 0; i < n; i++) {
        Undo u;
        pos_do_move(&e, moves[i], &u);
      }
    }
  }
  for (int i = 0; i < n && f->alt_line_len < CHECK_ALT_LINE_MAX; i++) f->alt_line[f->alt_line_len++] = moves[i];
  f->alt_komaamari = !hand_empty(e.hand[c->att]);
}

/* The line of an alternative (value v after it) that comes back to the line (迂回, 手順前後):
 * alt, the main line the walk found up to the position of the line, then the line's own
 * moves from there, which shows why it is tolerated. */
static void flaw_witness_line(Checker *c, const CheckReport *r, CheckFlaw *f, int v) {
  alt_line_begin(f, v);
  for (int i = 0; i < c->nwit && f->alt_line_len < CHECK_ALT_LINE_MAX; i++)
    f->alt_line[f->alt_line_len++] = c->wit[i];
  for (int i = c->wit_j; i < r->line_length && f->alt_line_len < CHECK_ALT_LINE_MAX; i++)
    f->alt_line[f->alt_line_len++] = r->line[i];
  f->alt_komaamari = !hand_empty(c->main[r->line_length].hand[c->att]);
}

/* ---- classification of attacker alternatives ------------------------------ */

/* 非限定: the same move but for promotion, or the same piece dropped on another
 * square of the same line to the king. */
bool check_non_limiting(const Position *pos, Move m, Move alt) {
  if (move_is_drop(m) || move_is_drop(alt)) {
    if (!move_is_drop(m) || !move_is_drop(alt) || move_drop_type(m) != move_drop_type(alt)) return false;
    Square k = pos->king[color_flip(pos->side)], a = move_to(m), b = move_to(alt);
    return bb_test(BETWEEN[k][a], b) || bb_test(BETWEEN[k][b], a);
  }
  return move_from(m) == move_from(alt) && move_to(m) == move_to(alt);
}

/* Same attacker moves (as a multiset) on both sides? */
static bool same_moves(const uint16_t *a, int na, const uint16_t *b, int nb) {
  if (na != nb) return false;
  for (int i = 0; i < na; i++) {
    int x = 0, y = 0;
    for (int j = 0; j < na; j++) {
      x += a[j] == a[i];
      y += b[j] == a[i];
    }
    if (x != y) return false;
  }
  return true;
}

struct Rejoin {
  const Move *line;
  int n, from; /* the branch is at ply `from` */
  uint16_t path[CHECK_ALT_LINE_MAX * 2];
  int npath;
  /* the walk's moves from the position after the alternative (both sides; depth of them, the
   * first CHECK_ALT_LINE_MAX kept); the first line found of the best kind so far goes to the
   * checker's wit */
  Move walk[CHECK_ALT_LINE_MAX];
  int depth;
  int wkind;  /* the kind of that line: 0 none, 1 迂回, 2 手順前後 */
  int unsure; /* moves on the walk's path whose futility is open (not sure main-line moves) */
};

/* Can d plies from q reach t at all? A ply of one side puts one piece of that side on one square
 * (its destination) and changes that side's hand by at most one piece (a drop or a capture): a
 * square that holds another piece of side X in t than in q took a ply of X of its own, and the
 * king, one step a ply, its distance. A ply empties at most one square (its origin). */
static bool may_reach(const Position *q, const Position *t, int d, Color att) {
  if (t->side != ((d & 1) ? color_flip(q->side) : q->side)) return false;
  int plies[COLOR_NB];
  plies[att] = q->side == att ? (d + 1) / 2 : d / 2;
  plies[color_flip(att)] = d - plies[att];
  for (int x = 0; x < COLOR_NB; x++) {
    int h = 0;
    for (int k = PAWN; k <= GOLD; k++)
      h += abs(hand_count(q->hand[x], (PieceType)k) - hand_count(t->hand[x], (PieceType)k));
    if (h > plies[x]) return false;
  }
  int placed[COLOR_NB] = {0, 0}, emptied = 0;
  for (int sq = 0; sq < SQ_NB; sq++) {
    Piece a = q->board[sq], b = t->board[sq];
    if (a == b) continue;
    if (b == PIECE_NONE)
      emptied++;
    else if (piece_type(b) != KING)
      placed[piece_color(b)]++;
  }
  if (emptied > d) return false;
  for (int x = 0; x < COLOR_NB; x++) {
    Square from = q->king[x], to = t->king[x];
    if ((from == SQ_NONE) != (to == SQ_NONE)) return false; /* a king is never captured or dropped */
    int kd = from == SQ_NONE ? 0 : SQ_DIST[from][to];
    if (placed[x] + kd > plies[x]) return false;
  }
  return true;
}

/* Can a walk from q (exact value w) reach a position of the line where rejoins looks for one:
 * main[j], j >= rj->from, after w - (n - j) plies? */
static bool rejoin_possible(const Checker *c, const Rejoin *rj, const Position *q, int w) {
  int j0 = rj->n - w > rj->from ? rj->n - w : rj->from;
  for (int j = j0; j < rj->n; j++)
    if (may_reach(q, &c->main[j], j - (rj->n - w), c->att)) return true;
  return false;
}

/* Is p of exact value v (mated within v, not within v - 2)? 1 yes, 0 no, -1 out of budget. */
static int exact_value(Checker *c, const Position *p, int v) {
  int k1 = mated_within(c, p, v, NULL);
  if (k1 <= 0) return k1;
  int k3 = mated_within(c, p, v - 2, NULL);
  return k3 < 0 ? -1 : !k3;
}

/* Is p, after a move from q of exact value R, of exact value R - 1? One search where q's value
 * settles the other: after a check nothing mates within R - 3 (q would be mated within R - 2),
 * and after a reply that is not an interposition the attacker mates within R - 1 (q is mated
 * within R, and only an interposition can be futile). 1 yes, 0 no, -1 out of budget. */
static int child_exact(Checker *c, const Position *q, const Position *p, int R, bool interposition) {
  if (q->side == c->att) return mated_within(c, p, R - 1, NULL);
  if (interposition) return exact_value(c, p, R - 1);
  int k3 = mated_within(c, p, R - 3, NULL);
  return k3 < 0 ? -1 : !k3;
}

/* The main line's candidate moves at q (of value R; exact: proven so, else a bound the line
 * gives): the shortest checks, or
 * the longest replies with futile interpositions left out, unless no other reply
 * lasts R - 1 plies (then the futile ones that do are the longest). Returns the
 * number written to out, or -1 when out of budget or when the searches disagree with R
 * (every move asked, none of value R - 1). With nsure, where the budget
 * left the futility of a longest interposition open: the *nsure moves first in out are
 * main-line moves whatever it is, those after them may be (-1 when this cannot be told). */
static int main_moves(Checker *c, const Position *q, int R, bool exact, Move *out, bool *futile_pass, int *nsure,
                      const Rejoin *rj) {
  MoveList l;
  bool attacker = q->side == c->att;
  if (attacker)
    movegen_checks(q, &l);
  else
    movegen_legal(q, &l);
  Bitboard btw = !attacker && c->opt.futile_rule ? solver_interpose_squares(q) : 0;
  Move fut[MAX_MOVES], open[MAX_MOVES];
  int nfut = 0, n = 0, nopen = 0;
  /* a drop's futility holds for its square, whatever the kind (solver_value.h) */
  FutileMemo fw = {0, 0}, fe = {0, 0};
  Bitboard open_sq = 0;
  if (futile_pass) *futile_pass = false;
  /* with rj: a move after which no position of the line is within reach adds nothing to the walk,
   * and waits (its value is asked only when whether the futile replies are the longest turns on it) */
  Move near[MAX_MOVES], far[MAX_MOVES];
  int nnear = 0, nfar = 0;
  for (int i = 0; i < l.size; i++) {
    bool off = false;
    if (rj && R > 0) {
      Position p = *q;
      Undo u;
      pos_do_move(&p, l.moves[i], &u);
      off = !rejoin_possible(c, rj, &p, R - 1);
    }
    if (off)
      far[nfar++] = l.moves[i];
    else
      near[nnear++] = l.moves[i];
  }
  /* the open drops of one square stand for the longest replies: the futile replies that last
   * R - 1 may be main-line moves too (pass 2 adds them after *nsure) */
  bool fut_maybe = false;
  for (int pass = 0; pass < 3 && R > 0; pass++) {
    /* pass 0: the moves near the line; 1: the others, asked only when no move near it is a
     * longest reply and some are futile or open; 2: the futile replies that last R - 1 */
    if (fut_maybe ? pass != 2 : n > 0) continue;
    if (pass == 1 && !(nfar && nfut + nopen)) continue;
    if (pass == 2 && futile_pass) *futile_pass = true;
    const Move *src = pass == 0 ? near : pass == 1 ? far : fut;
    int m = pass == 0 ? nnear : pass == 1 ? nfar : nfut;
    for (int i = 0; i < m; i++) {
      Move mv = src[i];
      bool interposes = pass < 2 && bb_test(btw, move_to(mv));
      if (interposes) {
        /* the common case first: a free capture leaves a position mated soon */
        int f = futile_memo_get(&fw, mv);
        if (f < 0) {
          f = interpose_futile_within(c, q, mv, R + 1);
          if (f < 0) return -1;
          futile_memo_put(&fw, mv, f);
        }
        if (f) {
          fut[nfut++] = mv;
          continue;
        }
      }
      Position p = *q;
      Undo u;
      pos_do_move(&p, mv, &u);
      int k = exact ? child_exact(c, q, &p, R, bb_test(btw, move_to(mv))) : exact_value(c, &p, R - 1);
      if (k < 0) return -1;
      if (k && interposes) {
        /* futility matters only for an interposition that is a longest reply */
        int f = futile_memo_get(&fe, mv);
        if (f < 0 && !(move_is_drop(mv) && bb_test(open_sq, move_to(mv)))) {
          /* with nsure the walk goes on without this answer: a quarter of what the question has
           * left (at least PROBE_NODES), so that it cannot take the rest */
          uint64_t q_end = c->q_end;
          if (nsure && q_end) {
            uint64_t left = q_end > c->nodes ? q_end - c->nodes : 0;
            uint64_t part = left / 4 > PROBE_NODES ? left / 4 : PROBE_NODES;
            if (part < left) c->q_end = c->nodes + part;
          }
          f = interpose_futile(c, q, mv, R);
          c->q_end = q_end;
          if (f >= 0)
            futile_memo_put(&fe, mv, f);
          else if (move_is_drop(mv))
            open_sq |= bb_sq(move_to(mv));
        }
        if (f < 0 && nsure && !spent(c)) {
          open[nopen++] = mv;
          continue;
        }
        if (f < 0) return -1;
        if (f) {
          fut[nfut++] = mv;
          continue;
        }
      }
      if (k) out[n++] = mv;
    }
    if (n == 0 && nopen && (pass == 1 || !nfar)) {
      /* no reply sure to be a main-line move lasts R - 1. Drops on one square, the open ones are
       * main-line moves whether they are futile or not; the futile replies that last R - 1 are
       * too, but only when they are futile. Else which moves are the longest is open. */
      bool one = bb_popcount(open_sq) == 1;
      for (int i = 0; i < nopen && one; i++) one = move_is_drop(open[i]);
      if (!one) return -1;
      for (int i = 0; i < nopen; i++) out[n++] = open[i];
      *nsure = n;
      nopen = 0;
      fut_maybe = true;
    }
  }
  if (nsure && !fut_maybe) {
    *nsure = n;
    for (int i = 0; i < nopen; i++) out[n++] = open[i];
  }
  /* q of value R has a move of value R - 1: with every move asked (none left far from the
   * line) and none found, the searches disagree with that value, and nothing is concluded */
  if (n == 0 && R > 0 && !nfar) return -1;
  return n;
}

/* From q, exact value w, on a main line of an alternative played at ply
 * rj->from: does some main line of it (shortest checks, longest defences,
 * main_moves) reach a position of the line, main[j] with j >= rj->from, that
 * has the same value (j = n - w)? The alternative may be as long as the line
 * or longer (a detour that comes back). 2 when one does with the same attacker
 * moves as the line (手順前後: only possible at the same length), else 1 when
 * one does (迂回), 0 no, -1 out of budget before any was found. The enumerator
 * classifies by the same rule. */
static int rejoins(Checker *c, Rejoin *rj, const Position *q, int w) {
  int j = rj->n - w;
  if (j >= rj->from && j < rj->n && pos_equal(q, &c->main[j])) {
    uint16_t ref[CHECK_ALT_LINE_MAX * 2];
    int nref = 0;
    for (int k = rj->from; k < j && nref < CHECK_ALT_LINE_MAX * 2; k += 2) ref[nref++] = move_compact(rj->line[k]);
    int kind = same_moves(rj->path, rj->npath, ref, nref) ? 2 : 1;
    if (kind > rj->wkind && rj->depth <= CHECK_ALT_LINE_MAX && !rj->unsure) {
      rj->wkind = kind;
      c->nwit = rj->depth;
      memcpy(c->wit, rj->walk, (size_t)rj->depth * sizeof *rj->walk);
      c->wit_j = j;
    }
    return kind;
  }
  if (w <= 1 || !rejoin_possible(c, rj, q, w)) return 0;
  if (c->rejoin_budget-- <= 0) return -1;
  Move moves[MAX_MOVES];
  int nsure = 0;
  int nm = main_moves(c, q, w, true, moves, NULL, &nsure, rj);
  if (nm < 0) return -1;
  int best = 0;
  bool unknown = false;
  for (int i = 0; i < nm; i++) {
    /* an interposition whose futility is open (last in moves): the answer stands when what
     * its line reaches changes nothing */
    if (i == nsure && (best == 2 || unknown)) break;
    Position p = *q;
    Undo u;
    pos_do_move(&p, moves[i], &u);
    bool push = q->side == c->att && rj->npath < CHECK_ALT_LINE_MAX * 2;
    if (push) rj->path[rj->npath++] = move_compact(moves[i]);
    if (rj->depth < CHECK_ALT_LINE_MAX) rj->walk[rj->depth] = moves[i];
    rj->depth++;
    rj->unsure += i >= nsure;
    int k = rejoins(c, rj, &p, w - 1);
    rj->unsure -= i >= nsure;
    rj->depth--;
    if (push) rj->npath--;
    if (i >= nsure) {
      if (k < 0 || k > best) return -1;
      continue;
    }
    if (k < 0) unknown = true;
    if (k > best) best = k;
    if (best == 2) return 2;
  }
  return best ? best : unknown ? -1 : 0;
}

/* One question of a check: an attacker alternative or a defender reply at a ply. */
typedef struct {
  int ply; /* 0-based */
  Move alt;
  bool done;
  bool longer; /* an attacker alternative with no mate within the plies left: its
                * question is whether it mates at all (at any length) */
  bool any;    /* an attacker alternative first asked whether it mates at all */
  bool mates;  /* an alternative proven to mate, its length or kind not yet settled */
  bool probed; /* a defender reply: its first cheap "mated at all?" search was made */
  int mate_max; /* with mates: the length of a mate found (an upper bound), 0 when none is known */
  uint64_t nodes; /* spent on it so far */
  uint64_t limit; /* the node limit of its last try (0: the rest of the budget) */
  bool asked;     /* tried at least once */
  uint32_t dn;    /* the disproof number its last search stopped at (0: none yet) */
  uint32_t pn;    /* and the proof number */
  int flaw;       /* a fatal flaw it proved before its length or kind was settled (index in
                   * the report's flaws, the flaw completed when they are), -1: none */
  int worker;     /* the worker that asked it first, whose table holds its search (-1: none) */
  int taken;      /* the last pass (1-based) a worker took it in (atomic) */
} Question;

/* Flaw nf of question qu into the report, whole: it completes the one qu added in an earlier
 * pass (kind and length), else it is added (and told to on_flaw; with first_flaw a fatal one
 * halts the check). unsettled: qu stays open and completes it later. Under the lead's lock
 * when aides work: no other worker holds a pointer into the report's flaws. */
/* The report is the lead's: while aides work, it is read and written under the lead's lock. */
static Checker *report_lock(Checker *c) {
  Checker *L = lead_of(c);
  if (L->nactive) pthread_mutex_lock(&L->mu);
  return L;
}

static void report_unlock(Checker *L) {
  if (L->nactive) pthread_mutex_unlock(&L->mu);
}

static void flaw_publish(Checker *c, CheckReport *r, Question *qu, const CheckFlaw *nf, bool unsettled,
                         uint64_t at_nodes, uint64_t at_ms) {
  Checker *L = report_lock(c);
  if (qu->flaw >= 0) {
    r->flaws[qu->flaw] = *nf;
    qu->flaw = -1;
  } else {
    CheckFlaw *f = flaw_append(L, r, nf, c->cur_q, at_nodes, at_ms);
    if (f && unsettled) qu->flaw = (int)(f - r->flaws);
    if (f && L->on_flaw) L->on_flaw(L->flaw_ctx, r, f);
    if (f && L->opt.first_flaw && !f->tolerated) {
      L->first_halt = true;
      __atomic_store_n(&L->halt, true, __ATOMIC_RELAXED);
    }
  }
  report_unlock(L);
}

/* Question qu's flaw of kind k at the 0-based ply0: with its line from q (value v) when q is
 * given. The line is searched before the report is touched. */
static void flaw_found(Checker *c, CheckReport *r, Question *qu, FlawKind k, int ply0, const Position *q, int v) {
  /* proven now: the line's search below is not part of the first flaw's cost */
  uint64_t at_nodes = nodes_all(c), at_ms = solver_now_ms();
  Checker *L = report_lock(c);
  bool kept = qu->flaw >= 0 || r->nflaws < L->opt.max_alts; /* else dropped: no line to search */
  report_unlock(L);
  CheckFlaw f;
  flaw_fill(c, r, &f, k, ply0, qu->alt);
  if (q && kept) {
    if ((k == FLAW_UKAI || k == FLAW_TEJUN_ZENGO) && c->nwit >= 0) {
      flaw_witness_line(c, r, &f, v);
    } else {
      /* the report's line, not the question: its searches have the pass's limit each, outside
       * the question's share */
      uint64_t q_end = c->q_end;
      c->q_end = 0;
      flaw_alt_line(c, &f, q, v);
      c->q_end = q_end;
    }
  }
  flaw_publish(c, r, qu, &f, false, at_nodes, at_ms);
}

/* A question that proved a fatal flaw whose kind or length the budget left open: the flaw
 * with the kind it is when nothing more is known, mating in at least min plies or at most max
 * (0: not known); the question stays open and completes it when it is settled. */
static void flaw_unsettled(Checker *c, CheckReport *r, Question *qu, FlawKind k, int ply0, int min, int max) {
  if (qu->flaw >= 0) return;
  CheckFlaw f;
  flaw_fill(c, r, &f, k, ply0, qu->alt);
  f.alt_length_min = min;
  f.alt_length_max = max;
  f.alt_line[0] = qu->alt;
  f.alt_line_len = 1;
  flaw_publish(c, r, qu, &f, true, nodes_all(c), solver_now_ms());
}

/* The kind of an attacker alternative at ply p that mates in w plies after it
 * (w >= the line's remaining R - 1, not at the last ply): 手順前後 or 迂回 when
 * some main line of it comes back to the line, 非限定 at the same length, else
 * 余詰. FLAW_KIND_NB when out of budget. */
static FlawKind alternative_kind(Checker *c, CheckReport *r, int p, Move alt, const Position *q, int w) {
  int R = r->line_length - p;
  if (w == R - 1 && check_non_limiting(&c->main[p], r->line[p], alt)) return FLAW_HIGENTEI;
  Rejoin rj = {.line = r->line, .n = r->line_length, .from = p, .npath = 1};
  rj.path[0] = move_compact(alt);
  c->rejoin_budget = CHECK_REJOIN_BUDGET * c->rejoin_scale;
  c->nwit = -1;
  int j = rejoins(c, &rj, q, w);
  if (j < 0) return FLAW_KIND_NB;
  if (rj.wkind != j) c->nwit = -1; /* the line kept is not of the kind found */
  return j == 2 ? FLAW_TEJUN_ZENGO : j == 1 ? FLAW_UKAI : FLAW_YOZUME;
}

/* Question qu's alternative is proven to mate, in m plies or fewer (m: a length found, or
 * none known: TT_LEN_INF, CHECK_ANY_MATE). */
static void mates_found(Question *qu, int m) {
  qu->mates = true;
  if (m > 0 && m < CHECK_ANY_MATE && (!qu->mate_max || m < qu->mate_max)) qu->mate_max = m;
}

/*
 * An attacker alternative: another check at ply p after which the defender is
 * mated at all, whatever the length (the flaw-check paper: 作意以外の王手でも詰ますことが
 * 出来るなら余詰). 1 answered (a flaw added when it is one), 0 out of budget.
 */
static int attacker_question(Checker *c, CheckReport *r, Question *qu) {
  int p = qu->ply, n = r->line_length, R = n - p;
  Position q = c->main[p];
  Undo u;
  pos_do_move(&q, qu->alt, &u);
  int m;
  if (R - 1 >= CHECK_ANY_FIRST) {
    qu->any = true;
    /* a long remainder: one unbounded disproof settles what would take a bounded one and then an
     * unbounded one; a mate found is classified below */
    int k0 = mated_at_all(c, &q, &m);
    if (k0 < 0) return 0;
    if (k0 == 0) {
      qu->longer = true;
      return 1;
    }
    mates_found(qu, m);
  }
  m = R - 1;
  int k = mated_within(c, &q, R - 1, &m);
  if (k < 0) return 0;
  if (k > 0) mates_found(qu, m);
  if (k > 0 && p == n - 1) {
    /* another mate in one: tolerated, but not in a one-move problem (flaw_add) */
    flaw_found(c, r, qu, FLAW_LAST_MOVE_ALT, p, &q, 0);
    return 1;
  }
  if (k > 0) {
    int m3 = m, k3 = mated_within(c, &q, R - 3, &m3);
    if (k3 < 0) return 0;
    FlawKind kind;
    int v = R - 1;
    if (k3 > 0) {
      /* 早詰 whatever its length: reported at once, its length (at most m3 plies after the
       * move) completed when a later pass settles it */
      kind = FLAW_HAYAZUME;
      v = value(c, &q, R - 3);
      if (v < 0) {
        flaw_unsettled(c, r, qu, kind, p, 0, m3 + 1);
        return 0;
      }
    } else {
      kind = alternative_kind(c, r, p, qu->alt, &q, v);
      if (kind == FLAW_KIND_NB) return 0;
    }
    flaw_found(c, r, qu, kind, p, &q, v);
    return 1;
  }
  /* no mate within the line's remaining length: is the defender mated at all?
   * On the last move of a longer line only another mate in one counts. */
  if (p == n - 1 && n > 1) return 1;
  qu->longer = true;
  m = CHECK_ANY_MATE;
  k = mated_at_all(c, &q, &m);
  if (k < 0) return 0;
  if (k == 0) return 1;
  mates_found(qu, m);
  /* a longer mate: its exact length, from R + 1 (nothing shorter mates) */
  int v = value_above(c, &q, R + 1, m);
  if (v < 0) {
    /* in a one-move problem another check that mates is 余詰 whatever its length */
    if (n == 1) flaw_unsettled(c, r, qu, FLAW_YOZUME, p, R + 2, 0);
    return 0;
  }
  FlawKind kind = n == 1 ? FLAW_YOZUME : alternative_kind(c, r, p, qu->alt, &q, v);
  if (kind == FLAW_KIND_NB) return 0;
  flaw_found(c, r, qu, kind, p, &q, v);
  return 1;
}

/* Does some line from q (exact value v) of shortest checks and longest
 * defences (futile interpositions left out) end with the attacker's hand empty? This is
 * 駒余り as the main-line rule sees it: the attacker takes a mate that uses his
 * pieces, and among equally long defences the main line is one that leaves none.
 * 1 yes, 0 no, -1 out of budget. */
static int empty_hand_line(Checker *c, const Position *q, int v, int depth) {
  Hand h = q->hand[c->att];
  if (v == 0) return hand_empty(h);
  if (hand_total(h) > (v + (q->side == c->att)) / 2) return 0; /* too few attacker moves left to drop them */
  if (c->rejoin_budget-- <= 0) return -1;
  Move moves[MAX_MOVES];
  int nm = main_moves(c, q, v, true, moves, NULL, NULL, NULL);
  if (nm < 0) return -1;
  bool unknown = false;
  for (int i = 0; i < nm; i++) {
    Position p = *q;
    Undo u;
    pos_do_move(&p, moves[i], &u);
    int k = empty_hand_line(c, &p, v - 1, depth + 1);
    if (k > 0) {
      if (depth < c->scratch_cap) c->path[depth] = moves[i];
      return 1;
    }
    if (k < 0) unknown = true;
  }
  return unknown ? -1 : 0;
}

static bool line_ends_with_hand(Checker *c, const Position *q, int v, bool *known) {
  c->rejoin_budget = CHECK_REJOIN_BUDGET * c->rejoin_scale;
  int k = empty_hand_line(c, q, v, 0);
  *known = k >= 0;
  return k == 0;
}

/* A defender reply. 1 answered (a flaw added when it is one), 0 out of budget. */
static int defender_question(Checker *c, CheckReport *r, Question *qu, bool line_komaamari) {
  int p = qu->ply, n = r->line_length, R = n - p; /* plies left, the reply included */
  const Position *at = &c->main[p];
  bool futile_defence = false; /* no other reply lasts R - 1 plies: futile interpositions that do are the defences */
  bool interposes = c->opt.futile_rule && bb_test(solver_interpose_squares(at), move_to(qu->alt));
  if (interposes) {
    /* the common case first: a free capture leaves a position mated soon */
    int f = interpose_futile_within(c, at, qu->alt, R + 1);
    if (f < 0) return 0;
    if (f) return 1;
  }
  Position q = *at;
  Undo u;
  pos_do_move(&q, qu->alt, &u);
  if (!qu->probed && !qu->mates && R - 1 >= CHECK_ANY_FIRST) {
    /* A cheap unbounded search first, once: a mate is usually found at once whatever its
     * length, where "not within R - 3" and "not within R - 1" may each take millions of
     * nodes. A reply proven mated goes first in later passes (a longer defence is a fatal
     * flaw); one proven never mated escapes: 不詰 (it cannot be a futile interposition
     * either, which a capture would mate). */
    qu->probed = true;
    int m0 = 0, k0 = mated_probe(c, &q, &m0);
    if (k0 == 0) {
      flaw_found(c, r, qu, FLAW_NOMATE, p, NULL, 0);
      return 1;
    }
    if (k0 > 0) mates_found(qu, m0);
  }
  int k = mated_within(c, &q, R - 3, NULL);
  if (k < 0) return 0;
  if (k > 0) return 1; /* a shorter defence: no flaw, futile or not */
  if (interposes) {
    int f = interpose_futile(c, at, qu->alt, R);
    if (f < 0) return 0;
    if (f) {
      /* a futile interposition is not a defence, unless no other reply lasts R - 1 plies */
      Move moves[MAX_MOVES];
      if (main_moves(c, at, R, false, moves, &futile_defence, NULL, NULL) < 0) return 0;
      if (!futile_defence) return 1;
    }
  }
  k = mated_within(c, &q, R - 1, NULL);
  if (k < 0) return 0;
  FlawKind kind;
  int v;
  if (k > 0) {
    v = R - 1;
    mates_found(qu, v);
    bool known, left = line_ends_with_hand(c, &q, v, &known);
    if (!known) return 0;
    if (left) return 1;                  /* the line's defence wins the 駒余り tie-break */
    if (line_komaamari)
      kind = FLAW_NOT_LONGEST_DEFENCE;   /* as long, and the line ends with pieces in hand */
    else if (p < n - 2)
      kind = FLAW_HENDOU;
    else
      return 1;                          /* 変同 at the second-last ply is no flaw */
  } else if (futile_defence) {
    return 1; /* a futile interposition that lasts longer is still futile: not a defence */
  } else {
    /* no mate within the line's length: a longer one, or none */
    int m = CHECK_ANY_MATE, k2 = mated_at_all(c, &q, &m);
    if (k2 > 0) mates_found(qu, m);
    v = k2 < 0 ? SOLVER_VALUE_UNKNOWN : k2 == 0 ? SOLVER_VALUE_NONE : value_above(c, &q, R + 1, m);
    if (v == SOLVER_VALUE_NONE && k2 > 0) v = SOLVER_VALUE_UNKNOWN; /* mated, but not within the bound */
    if (v == SOLVER_VALUE_UNKNOWN) {
      /* mated, and later than the line: a longer defence (変長 when its line ends with pieces
       * left), a fatal flaw before its length is known */
      if (k2 > 0) flaw_unsettled(c, r, qu, FLAW_NOT_LONGEST_DEFENCE, p, R + 2, 0);
      return 0;
    }
    if (v == SOLVER_VALUE_NONE) {
      flaw_found(c, r, qu, FLAW_NOMATE, p, NULL, 0);
      return 1;
    }
    bool known, left = line_ends_with_hand(c, &q, v, &known);
    if (!known) {
      flaw_unsettled(c, r, qu, FLAW_NOT_LONGEST_DEFENCE, p, v + 1, 0);
      return 0;
    }
    kind = left ? FLAW_HENCHOU : FLAW_NOT_LONGEST_DEFENCE;
  }
  flaw_found(c, r, qu, kind, p, &q, v);
  return 1;
}

/* A flaw's line is searched with the limit of the pass that proves it; a fatal flaw's line
 * the limit cut short (the alternative alone) is searched again at the start of each later
 * pass whose limit is at most this, with that limit, before the pass's questions. */
#define LINE_RETRY_MAX 2000000

/* The lines of the fatal flaws that have only their move, though they mate in more plies:
 * searched again with the pass's limit (the lead alone, before the aides join the pass). A
 * tolerated flaw's line stays as the pass that proved it left it. */
static void lines_retry(Checker *c, CheckReport *r) {
  for (int i = 0; i < r->nflaws && budget(c); i++) {
    CheckFlaw *f = &r->flaws[i];
    if (f->alt == MOVE_NONE || f->tolerated || f->alt_length < 2 || f->alt_line_len != 1) continue;
    Position q = c->main[f->ply - 1];
    Undo u;
    pos_do_move(&q, f->alt, &u);
    flaw_alt_line(c, f, &q, f->alt_length - 1);
  }
}

/* Node limits of one question in the successive passes: most alternatives are
 * refuted at once, so every question gets a small budget before any gets a
 * large one (the check's total budget goes where it finds the most). The third
 * pass has call_nodes; with a budget of time or nodes the limit then grows by
 * PASS_GROWTH a pass, and a pass without a limit (the rest of the budget) is
 * the last. */
static const uint64_t PASS_NODES[] = {20000, 400000};
#define PASS_GROWTH 5
#define PASS_UNLIMITED ((uint64_t)1 << 40)

/* Has the check a budget of its own (time or nodes; a deadline only ends it), past the per-question limits? */
static bool has_budget(const Checker *c) { return c->opt.time_ms || c->opt.max_nodes; }

/* The node limit of the pass after one at limit prev (first: the first pass;
 * 0 as a limit: none, the rest of the budget); false when no pass follows. */
static bool pass_limit(const Checker *c, bool first, uint64_t prev, uint64_t *lim) {
  uint64_t cn = c->opt.call_nodes;
  if (!first && prev == 0) return false; /* a pass without a limit was the last */
  for (size_t i = 0; i <= sizeof PASS_NODES / sizeof *PASS_NODES; i++) {
    uint64_t l = i < sizeof PASS_NODES / sizeof *PASS_NODES ? PASS_NODES[i] : cn;
    if (cn && l > cn) l = cn;
    if (first || l == 0 || l > prev) {
      *lim = l;
      return true;
    }
  }
  if (!has_budget(c)) return false;
  *lim = prev >= PASS_UNLIMITED / PASS_GROWTH ? 0 : prev * PASS_GROWTH;
  return true;
}

/* The order of a pass after the first: alternatives proven to mate first, flaws reported
 * before their length was settled last, and in between least disproof number first, where
 * the last search stopped, the line's order among equals (order_interleave then takes these
 * in turn with the least proof number first). */
static int question_cmp(const void *a, const void *b, void *ctx) {
  const Question *qs = ctx;
  int i = *(const int *)a, j = *(const int *)b;
  /* a fatal flaw already reported, its length not settled, goes last: what is left adds no flaw */
  if ((qs[i].flaw >= 0) != (qs[j].flaw >= 0)) return qs[i].flaw >= 0 ? 1 : -1;
  /* a mate proven goes first: only its length or its kind (a flaw, or a detour) is left */
  if (qs[i].mates != qs[j].mates) return qs[i].mates ? -1 : 1;
  if (qs[i].dn != qs[j].dn) return qs[i].dn < qs[j].dn ? -1 : 1;
  return i - j;
}

static int question_pn_cmp(const void *a, const void *b, void *ctx) {
  const Question *qs = ctx;
  int i = *(const int *)a, j = *(const int *)b;
  if (qs[i].pn != qs[j].pn) return qs[i].pn < qs[j].pn ? -1 : 1;
  if (qs[i].dn != qs[j].dn) return qs[i].dn < qs[j].dn ? -1 : 1;
  return i - j;
}

/* The open questions between the mates proven and the flaws reported (order[a..b), least
 * disproof number first) taken in turn with the least proof number first: the one nearest a
 * refutation, then the one nearest a mate (a flaw), and so on. Out of memory, the order
 * stays as it is. */
static void order_interleave(int *order, int nq, const Question *qs) {
  int a = 0, b = nq;
  while (a < b && qs[order[a]].mates) a++;
  while (b > a && qs[order[b - 1]].flaw >= 0) b--;
  int m = b - a;
  if (m < 3) return;
  int *byd = malloc((size_t)m * 2 * sizeof *byd);
  bool *used = calloc((size_t)nq, sizeof *used);
  if (!byd || !used) {
    free(byd);
    free(used);
    return;
  }
  int *byp = byd + m;
  memcpy(byd, order + a, (size_t)m * sizeof *byd);
  memcpy(byp, order + a, (size_t)m * sizeof *byp);
  qsort_r(byp, (size_t)m, sizeof *byp, question_pn_cmp, (void *)qs);
  int id = 0, ip = 0;
  for (int k = 0; k < m; k++) {
    int *src = k % 2 ? byp : byd, *ix = k % 2 ? &ip : &id;
    while (used[src[*ix]]) (*ix)++;
    order[a + k] = src[*ix];
    used[src[*ix]] = true;
  }
  free(byd);
  free(used);
}

/* One pass over the questions, shared by the workers: each takes the next question of the
 * order until none is left or the check halts. */
typedef struct Pass {
  CheckReport *r;
  Question *qs;
  const int *order;
  int nq;
  size_t pass;
  bool komaamari;
  int left; /* questions not settled (atomic) */
  /* the aides (the lead's only) */
  int na;       /* aides that work in this check (0: none yet) */
  bool running; /* started in this pass */
  pthread_t th[CHECK_WORKERS_MAX];
  struct AideRun {
    Checker *c;
    struct Pass *ps;
    int w;
  } ar[CHECK_WORKERS_MAX];
  bool started[CHECK_WORKERS_MAX];
} Pass;

static void aides_go(Checker *c, Pass *ps);

/* The next question of the pass for worker w (0: the lead), -1 when none is left: in the
 * pass's order, first one that w asked before or nobody did (its search is in w's table),
 * then one another worker asked before but has not taken yet in this pass. Questions not
 * to ask in the pass are marked taken before it starts: a worker reads no other field that
 * another one writes. */
static int pass_take(Pass *ps, int w) {
  Question *qs = ps->qs;
  int mark = (int)ps->pass + 1;
  for (int round = 0; round < 2; round++)
    for (int oi = 0; oi < ps->nq; oi++) {
      Question *qu = &qs[ps->order[oi]];
      int owner = __atomic_load_n(&qu->worker, __ATOMIC_RELAXED);
      if (round == 0 && owner >= 0 && owner != w) continue;
      int t = __atomic_load_n(&qu->taken, __ATOMIC_RELAXED);
      if (t == mark || !__atomic_compare_exchange_n(&qu->taken, &t, mark, false, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
        continue;
      if (owner < 0) __atomic_store_n(&qu->worker, w, __ATOMIC_RELAXED);
      return ps->order[oi];
    }
  return -1;
}

static void pass_work(Checker *c, Pass *ps, int w) {
  Checker *L = lead_of(c);
  Question *qs = ps->qs;
  while (!__atomic_load_n(&L->halt, __ATOMIC_RELAXED)) {
    int i = pass_take(ps, w);
    if (i < 0) break;
    c->cur_q = i;
    uint64_t n0 = c->nodes, t0 = solver_now_ms();
    /* a question of several searches (its length, whether it comes back to the line) spends at
     * most twice the pass's limit on them all: the next pass gives it more */
    c->q_end = has_budget(c) && c->call_limit ? n0 + 2 * c->call_limit : 0;
    c->s->root_dn = 0;
    qs[i].limit = c->call_limit;
    qs[i].asked = true;
    int ok = qs[i].ply % 2 == 0 ? attacker_question(c, ps->r, &qs[i]) : defender_question(c, ps->r, &qs[i], ps->komaamari);
    c->q_end = 0;
    qs[i].nodes += c->nodes - n0;
    if (c->opt.trace && c->nodes - n0 >= CHECK_TRACE_NODES) {
      char mv[8];
      usi_move_write(qs[i].alt, mv);
      fprintf(c->opt.trace, "check: pass %zu, ply %d, %s %s: %s, %llu nodes, %llu ms\n", ps->pass + 1, qs[i].ply + 1,
              qs[i].ply % 2 ? "reply" : "check", mv, ok ? "answered" : "not answered",
              (unsigned long long)(c->nodes - n0), (unsigned long long)(solver_now_ms() - t0));
    }
    if (c->s->root_dn) {
      qs[i].dn = c->s->root_dn;
      qs[i].pn = c->s->root_pn;
    }
    if (ok) {
      qs[i].done = true;
      __atomic_fetch_sub(&ps->left, 1, __ATOMIC_RELAXED);
    }
    if (c->out_of_budget) __atomic_store_n(&L->halt, true, __ATOMIC_RELAXED);
    /* a check still going after CHECK_AIDES_MS: the aides join, in this pass already */
    if (w == 0 && !ps->running && c->naides && solver_now_ms() - c->t0 >= CHECK_AIDES_MS) aides_go(c, ps);
  }
}

static void *aide_main(void *arg) {
  struct AideRun *a = arg;
  pass_work(a->c, a->ps, a->w);
  return NULL;
}

/* The lead's aides, opt.workers - 1 of them, made with the checker: their tables are set up
 * before any check, as the lead's is (a budget is search time). false when out of memory. */
static bool aides_make(Checker *c) {
  int want = c->opt.workers > CHECK_WORKERS_MAX ? CHECK_WORKERS_MAX - 1 : c->opt.workers - 1;
  if (want <= 0) return true;
  c->aides = calloc((size_t)want, sizeof *c->aides);
  if (!c->aides) return false;
  while (c->naides < want) {
    CheckOptions o = c->opt;
    o.workers = 1;
    Checker *a = check_create(&o);
    if (!a) return false;
    a->lead = c;
    c->aides[c->naides++] = a;
  }
  return true;
}

/* Makes the lead's aides ready for this check, while it has a time budget and no node budget
 * (the questions' answers then depend on timing anyway; a node budget stays reproducible); how
 * many work. */
static int aides_ready(Checker *c) {
  if (c->lead || !(c->opt.time_ms || c->deadline_ms) || c->opt.max_nodes) return 0;
  int n = c->naides;
  for (int i = 0; i < n; i++) {
    Checker *a = c->aides[i];
    a->opt = c->opt;
    a->opt.workers = 1;
    a->att = c->att;
    a->t0 = c->t0;
    a->deadline_ms = c->deadline_ms;
    a->nodes = 0;
    a->out_of_budget = false;
    a->main = c->main; /* read only; the lead's */
    a->main_cap = 0;
    a->cur_q = -1;
    solver_clear(a->s); /* every check starts from empty tables */
  }
  return n;
}

/* The lead starts its aides on the rest of pass ps (the first time: when the check may use
 * them, and then in every later pass). Most checks end before CHECK_AIDES_MS, within their
 * first passes, where the lead's one table serves them best; the aides are for the hard ones. */
static void aides_go(Checker *c, Pass *ps) {
  if (!ps->na) {
    ps->na = aides_ready(c);
    if (!ps->na) return;
    ps->r->workers = 1 + ps->na;
    __atomic_store_n(&c->nactive, ps->na, __ATOMIC_RELEASE);
  }
  for (int k = 0; k < ps->na; k++) {
    Checker *a = c->aides[k];
    a->call_limit = c->call_limit;
    a->rejoin_scale = c->rejoin_scale;
    ps->ar[k] = (struct AideRun){a, ps, k + 1};
    pthread_attr_t at;
    bool attr = pthread_attr_init(&at) == 0;
    if (attr) pthread_attr_setstacksize(&at, CHECK_AIDE_STACK); /* deep searches and line walks recurse */
    ps->started[k] = pthread_create(&ps->th[k], attr ? &at : NULL, aide_main, &ps->ar[k]) == 0;
    if (attr) pthread_attr_destroy(&at);
  }
  ps->running = true;
}

/* Asks every question in passes of growing budgets: one worker, or the lead and its aides
 * taking the questions of a pass from one queue. */
static int ask_all(Checker *c, CheckReport *r, bool komaamari) {
  int n = r->line_length, nq = 0, cap = 64;
  Question *qs = malloc((size_t)cap * sizeof *qs);
  if (!qs) return TS_ERR_NOMEM;
  for (int p = 0; p < n; p++) {
    MoveList l;
    if (p % 2 == 0)
      movegen_checks(&c->main[p], &l);
    else
      movegen_legal(&c->main[p], &l);
    for (int i = 0; i < l.size; i++) {
      if (move_compact(l.moves[i]) == move_compact(r->line[p])) continue;
      if (nq == cap) {
        Question *t = realloc(qs, (size_t)(cap *= 2) * sizeof *qs);
        if (!t) {
          free(qs);
          return TS_ERR_NOMEM;
        }
        qs = t;
      }
      qs[nq++] = (Question){.ply = p, .alt = l.moves[i], .flaw = -1, .worker = -1};
    }
  }
  int *order = malloc((size_t)(nq ? nq : 1) * sizeof *order);
  if (!order) {
    free(qs);
    return TS_ERR_NOMEM;
  }
  for (int i = 0; i < nq; i++) order[i] = i;
  c->halt = c->first_halt = false;
  Pass ps = {.r = r, .qs = qs, .order = order, .nq = nq, .komaamari = komaamari, .left = nq};
  uint64_t lim = 0;
  for (size_t pass = 0; ps.left && !c->halt && pass_limit(c, pass == 0, lim, &lim); pass++) {
    c->call_limit = lim;
    /* the searches of the 手順前後 / 迂回 and 駒余り questions grow with the passes too */
    c->rejoin_scale = pass < 2 ? 1 : pass < 12 ? 1 << (pass - 1) : 1 << 11;
    bool fatal = false;
    for (int i = 0; i < r->nflaws && !fatal && c->opt.quick_after_fatal; i++)
      fatal = !r->flaws[i].tolerated && (r->flaws[i].kind == FLAW_YOZUME || r->flaws[i].kind == FLAW_HAYAZUME);
    if (pass > 0) {
      qsort_r(order, (size_t)nq, sizeof *order, question_cmp, qs);
      order_interleave(order, nq, qs);
    }
    ps.pass = pass;
    ps.running = false;
    for (int i = 0; i < nq; i++)
      if (qs[i].done || (pass > 0 && fatal && qs[i].longer)) qs[i].taken = (int)pass + 1;
    if (pass > 0 && lim && lim <= LINE_RETRY_MAX) lines_retry(c, r); /* before the aides: they add flaws */
    if (ps.na) aides_go(c, &ps);
    pass_work(c, &ps, 0);
    for (int k = 0; ps.running && k < ps.na; k++)
      if (ps.started[k]) {
        pthread_join(ps.th[k], NULL);
        if (c->aides[k]->out_of_budget) c->out_of_budget = true;
      }
  }
  /* every question settled within smaller limits: the lines still cut short get up to
   * LINE_RETRY_MAX nodes each (within --call-nodes) */
  uint64_t ll = c->opt.call_nodes && c->opt.call_nodes < LINE_RETRY_MAX ? c->opt.call_nodes : LINE_RETRY_MAX;
  if (!ps.left && !c->halt && lim && ll > lim) {
    c->call_limit = ll;
    lines_retry(c, r);
  }
  /* no reader counts the aides once their nodes are the lead's */
  __atomic_store_n(&c->nactive, 0, __ATOMIC_RELEASE);
  for (int k = 0; k < ps.na; k++) {
    nodes_add(c, c->aides[k]->nodes);
    __atomic_store_n(&c->aides[k]->nodes, 0, __ATOMIC_RELAXED);
    c->aides[k]->main = NULL;
  }
  /* stopped by the first fatal flaw: the questions not asked are no open ones */
  if (!c->first_halt)
    for (int i = 0; i < nq; i++) {
      if (qs[i].done) continue;
      if (!r->unproven++) r->unproven_ply = qs[i].ply + 1;
      if (r->nopen == r->open_cap && !grow((void **)&r->open, &r->open_cap, r->open_cap ? 2 * r->open_cap : 16,
                                           sizeof *r->open))
        continue; /* counted in unproven, not listed */
      r->open[r->nopen++] = (CheckOpen){qs[i].ply + 1,        qs[i].alt,   qs[i].longer || qs[i].any,
                                        qs[i].nodes,          qs[i].limit, qs[i].asked,
                                        qs[i].mates,          qs[i].mate_max ? qs[i].mate_max + 1 : 0};
    }
  free(order);
  free(qs);
  return TS_OK;
}

/* ---- the check ------------------------------------------------------------ */

static int line_store(CheckReport *r, const Move *line, int n) {
  if (n > r->line_cap) {
    Move *m = realloc(r->line, (size_t)n * sizeof *m);
    if (!m) return TS_ERR_NOMEM;
    r->line = m;
    r->line_cap = n;
  }
  if (n) memcpy(r->line, line, (size_t)n * sizeof *line);
  r->line_length = n;
  return TS_OK;
}

static void bad_line(CheckReport *r, int ply0, const char *what) {
  r->verdict = CHECK_BAD_LINE;
  snprintf(r->message, sizeof r->message, "ply %d: %s", ply0 + 1, what);
}

/* Steps 1: the line's own faults; false (verdict BAD_LINE) when it has one. */
static bool line_sound(Checker *c, CheckReport *r) {
  int n = r->line_length;
  for (int p = 0; p < n; p++) {
    Move m = r->line[p];
    if (!pos_move_is_legal(&c->main[p], m)) {
      flaw_add(c, r, FLAW_ILLEGAL, p, MOVE_NONE);
      bad_line(r, p, p > 0 && pos_is_mate(&c->main[p]) ? "the line goes on after mate" : "illegal move");
      return false;
    }
    if (p % 2 == 0 && !pos_gives_check(&c->main[p], m)) {
      flaw_add(c, r, FLAW_NOT_CHECK, p, MOVE_NONE);
      bad_line(r, p, "the attacker's move is not a check");
      return false;
    }
    c->main[p + 1] = c->main[p];
    Undo u;
    pos_do_move(&c->main[p + 1], m, &u);
  }
  /* a defender's interposition where every reply is a futile one (無駄合): the line mated one ply before it */
  for (int p = 1; c->opt.futile_rule && p < n; p += 2) {
    if (!bb_test(solver_interpose_squares(&c->main[p]), move_to(r->line[p])) || !solver_mated(&c->main[p], c->att, true))
      continue;
    char d[8], a[8], what[200];
    usi_move_write(r->line[p], d);
    usi_move_write(r->line[p - 1], a);
    snprintf(what, sizeof what,
             "%s is a futile interposition (無駄合): the line's own move %d, %s, already mates (every reply is a "
             "futile interposition), so the line goes on past mate",
             d, p, a);
    flaw_add(c, r, FLAW_ILLEGAL, p, MOVE_NONE);
    bad_line(r, p, what);
    return false;
  }
  int bad = -1;
  if (n == 0 || n % 2 == 0 || !solver_line_verify(&c->main[0], r->line, n, c->opt.futile_rule, &bad)) {
    flaw_add(c, r, FLAW_NOT_MATE, n > 0 ? n - 1 : 0, MOVE_NONE);
    bad_line(r, n > 0 ? n - 1 : 0, n % 2 == 0 ? "the line ends with the attacker to move" : "the line does not end in mate");
    return false;
  }
  return true;
}

/* Flaws in the order of their questions (ply, then move), whatever pass found them. */
static void flaws_sort(Checker *c, CheckReport *r) {
  for (int i = 1; i < r->nflaws; i++) {
    CheckFlaw f = r->flaws[i];
    int q = c->flaw_q[i], j = i;
    for (; j > 0 && c->flaw_q[j - 1] > q; j--) {
      r->flaws[j] = r->flaws[j - 1];
      c->flaw_q[j] = c->flaw_q[j - 1];
    }
    r->flaws[j] = f;
    c->flaw_q[j] = q;
  }
}

static int check_line(Checker *c, const Position *pos, const Move *line, int n, CheckReport *r) {
  TsError err;
  if (pos_validate_problem(pos, "problem", &err) != TS_OK) return TS_ERR_ILLEGAL;
  r->verdict = CHECK_UNKNOWN;
  r->nflaws = r->flaws_dropped = r->unproven = r->unproven_ply = r->nopen = 0;
  r->workers = 1;
  r->length = -1;
  r->length_exact = false;
  r->nodes = r->time_ms = r->first_flaw_nodes = r->first_flaw_ms = 0;
  r->message[0] = 0;
  r->line_given = line && n > 0;
  c->att = pos->side;
  c->t0 = solver_now_ms();
  c->halt = c->first_halt = false;
  c->nodes = 0;
  c->out_of_budget = false;
  c->call_limit = c->opt.call_nodes;
  c->rejoin_scale = 1;
  c->cur_q = -1;
  if (!r->line_given) {
    /* no intended line: the solver's main line is the one checked, searched
     * with the whole budget when the check has one */
    r->line_length = 0;
    if (has_budget(c)) c->call_limit = 0;
    SolveResult sr;
    const char *ran_out = NULL;
    if (budget(c) && solver_solve(c->s, pos, &sr) == TS_OK) {
      ran_out = sr.stop_reason;
      c->nodes += sr.nodes;
      if (sr.status == SOLVE_NOMATE) {
        r->verdict = CHECK_NOMATE;
        snprintf(r->message, sizeof r->message, "no mate");
        goto done;
      }
      if (sr.status == SOLVE_MATE && sr.pv_len > 0) {
        r->length = sr.length;
        r->length_exact = sr.exact;
        if (line_store(r, sr.pv, sr.pv_len)) return TS_ERR_NOMEM;
        /* 駒余り is the problem's only when no main line of that length leaves the hand empty */
        Position e = *pos;
        for (int i = 0; i < r->line_length; i++) {
          Undo u;
          pos_do_move(&e, r->line[i], &u);
        }
        c->rejoin_budget = CHECK_REJOIN_BUDGET;
        if (sr.exact && r->line_length == sr.length && !hand_empty(e.hand[c->att]) && sr.length <= c->scratch_cap &&
            empty_hand_line(c, pos, sr.length, 0) > 0 && line_store(r, c->path, sr.length))
          return TS_ERR_NOMEM;
      }
    }
    c->call_limit = c->opt.call_nodes;
    if (r->line_length == 0) {
      r->verdict = CHECK_UNKNOWN;
      r->unproven = 1; /* the question "which line" itself */
      r->unproven_ply = 1;
      uint64_t el = solver_now_ms() - c->t0;
      const CheckOptions *o = &c->opt;
      if ((o->stop && *o->stop) || (ran_out && !strcmp(ran_out, "stop")))
        snprintf(r->message, sizeof r->message, "the check was stopped before a mating line was found");
      else if ((o->time_ms && el >= o->time_ms) || (c->deadline_ms && solver_now_ms() >= c->deadline_ms) ||
               (ran_out && !strcmp(ran_out, "time")))
        snprintf(r->message, sizeof r->message, "the time (%llu ms) ran out before a mating line was found",
                 (unsigned long long)el);
      else if (o->max_nodes && c->nodes >= o->max_nodes)
        snprintf(r->message, sizeof r->message, "the node budget (%llu) ran out before a mating line was found",
                 (unsigned long long)o->max_nodes);
      else if (!has_budget(c) && o->call_nodes)
        snprintf(r->message, sizeof r->message,
                 "the node limit of one search (%llu, --call-nodes) was reached before a mating line was found; "
                 "a --time-ms budget searches on", (unsigned long long)o->call_nodes);
      else
        snprintf(r->message, sizeof r->message, "no mating line was found within the budget (%s)",
                 ran_out ? ran_out : "depth");
      goto done;
    }
  } else if (line_store(r, line, n)) {
    return TS_ERR_NOMEM;
  }
  n = r->line_length;
  if (n + 1 > c->main_cap) {
    Position *m = realloc(c->main, (size_t)(n + 1) * sizeof *m);
    if (!m) return TS_ERR_NOMEM;
    c->main = m;
    c->main_cap = n + 1;
  }
  c->main[0] = *pos;
  if (!line_sound(c, r)) goto done;
  bool komaamari = !hand_empty(c->main[n].hand[c->att]);
  if (!(komaamari && c->opt.first_flaw)) {
    int rc = ask_all(c, r, komaamari);
    if (rc) return rc;
    flaws_sort(c, r);
  }
  c->cur_q = INT32_MAX;
  if (komaamari) flaw_add(c, r, FLAW_KOMAAMARI, n - 1, MOVE_NONE);
  bool nomate = false, flawed = false;
  for (int i = 0; i < r->nflaws; i++) {
    if (r->flaws[i].kind == FLAW_NOMATE) nomate = true;
    if (!r->flaws[i].tolerated) flawed = true;
  }
  if (nomate)
    r->verdict = CHECK_NOMATE;
  else if (flawed)
    r->verdict = CHECK_FLAWED;
  else if (r->unproven)
    r->verdict = CHECK_UNKNOWN;
  else
    r->verdict = CHECK_COMPLETE;
  if (r->verdict == CHECK_COMPLETE) {
    r->length = n;
    r->length_exact = true;
  } else if (r->line_given && r->verdict != CHECK_NOMATE) {
    /* the problem's own length, as far as the budget allows */
    SolveResult sr;
    if (budget(c) && solver_solve(c->s, pos, &sr) == TS_OK) {
      c->nodes += sr.nodes;
      if (sr.status == SOLVE_MATE) {
        r->length = sr.length;
        r->length_exact = sr.exact;
      }
    }
  }
done:
  r->nodes = c->nodes;
  r->time_ms = solver_now_ms() - c->t0;
  return TS_OK;
}

/* Moves of the line up to the 0-based ply p, then the flaw's alternative line:
 * the main line through the 変同 branch f. false when the alternative's line is
 * not kept whole in the report. */
static bool line_through(const CheckReport *r, const CheckFlaw *f, Move **out, int *n) {
  int p = f->ply - 1;
  if (f->alt_line_len != f->alt_length || f->alt_line_len <= 0) return false;
  Move *m = malloc((size_t)(p + f->alt_line_len) * sizeof *m);
  if (!m) return false;
  memcpy(m, r->line, (size_t)p * sizeof *m);
  memcpy(m + p, f->alt_line, (size_t)f->alt_line_len * sizeof *m);
  *out = m;
  *n = p + f->alt_line_len;
  return true;
}

/* How many tries of other main lines a check without a given line makes. */
#define CHECK_HENDOU_TRIES 8

int check_problem(Checker *c, const Position *pos, const Move *line, int n, CheckReport *r) {
  int rc = check_line(c, pos, line, n, r);
  if (rc || r->line_given || r->verdict != CHECK_FLAWED) return rc;
  /*
   * No line was given and the solver's main line is flawed. Where a defence
   * has a 変同 (another reply as long, the hand empty at the end as well), the
   * main line could as well go through that reply, and a 余詰 past it is then
   * a 変化別詰 (変別) of a branch, tolerated. The problem is judged by the best
   * of those main lines: the 変同 branches before the first fatal flaw are tried,
   * the latest first.
   */
  uint64_t nodes = r->nodes, t0 = solver_now_ms() - r->time_ms;
  CheckReport t;
  check_report_init(&t);
  bool tried[CHECK_HENDOU_TRIES * 4] = {false}; /* 変同 flaws of *r already tried, by index */
  for (int tries = 0; tries < CHECK_HENDOU_TRIES && r->verdict == CHECK_FLAWED; tries++) {
    int first = r->nflaws;
    for (int i = 0; i < r->nflaws; i++)
      if (!r->flaws[i].tolerated) {
        first = i;
        break;
      }
    int h = -1;
    for (int i = first - 1; i >= 0 && h < 0; i--)
      if (r->flaws[i].kind == FLAW_HENDOU && r->flaws[i].ply < r->flaws[first].ply &&
          !(i < (int)(sizeof tried / sizeof *tried) && tried[i]))
        h = i;
    if (h < 0) break;
    Move *alt;
    int na;
    if (!line_through(r, &r->flaws[h], &alt, &na)) break;
    rc = check_line(c, pos, alt, na, &t);
    free(alt);
    if (rc) break;
    nodes += t.nodes;
    /* a line no better is not taken, and its 変同 is not tried again */
    if (t.verdict != CHECK_COMPLETE && t.verdict != CHECK_UNKNOWN) {
      if (h < (int)(sizeof tried / sizeof *tried)) tried[h] = true;
      else break;
      continue;
    }
    CheckReport swap = *r;
    *r = t;
    t = swap;
    memset(tried, 0, sizeof tried);
  }
  check_report_free(&t);
  r->line_given = false;
  r->nodes = nodes;
  r->time_ms = solver_now_ms() - t0;
  return rc;
}
