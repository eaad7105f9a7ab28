/*
 * compose.c - improvement by piece roles with the checker as the judge, and
 * complete works backwards from a mate picture (compose.h).
 */
#include "compose.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "movegen.h"
#include "retro.h"
#include "roles.h"
#include "solver.h"

uint64_t compose_now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}
static uint64_t now_ms(void) { return compose_now_ms(); }

/* ---- random numbers (xorshift64*, one stream per run) ---- */
typedef struct {
  uint64_t s;
} Rng;

static uint64_t rng_next(Rng *r) {
  r->s ^= r->s >> 12;
  r->s ^= r->s << 25;
  r->s ^= r->s >> 27;
  return r->s * 0x2545F4914F6CDD1DULL;
}
static int rng_below(Rng *r, int n) { return n <= 1 ? 0 : (int)(rng_next(r) % (uint64_t)n); }

static void rng_shuffle(Rng *r, int *a, int n) {
  for (int i = n - 1; i > 0; i--) {
    int j = rng_below(r, i + 1), t = a[i];
    a[i] = a[j];
    a[j] = t;
  }
}

void compose_options_default(ComposeOptions *o) {
  memset(o, 0, sizeof *o);
  o->seed = 1;
  o->stall = 300;
  o->replace_tries = 6;
}

const char *compose_step_name(ComposeStepKind k) {
  static const char *N[COMPOSE_STEP_NB] = {"start",   "delete",  "add",       "replace",
                                                   "replace2", "cleanup", "drop-king", "restart"};
  return k < COMPOSE_STEP_NB ? N[k] : "?";
}

static int pieces_count(const Position *pos) {
  return bb_popcount(pos_occupied(pos)) + hand_total(pos->hand[pos->side]);
}

ComposeScore compose_score(const Position *pos, const CheckReport *rep) {
  ComposeScore s;
  memset(&s, 0, sizeof s);
  s.verdict = rep->verdict;
  s.pieces = pieces_count(pos);
  s.valid = (rep->verdict == CHECK_COMPLETE || rep->verdict == CHECK_FLAWED || rep->verdict == CHECK_UNKNOWN) &&
            rep->line_length > 0;
  s.length = s.valid ? rep->line_length : 0;
  for (int i = 0; i < rep->nflaws; i++) {
    if (rep->flaws[i].tolerated) continue;
    s.defects++;
    if (rep->flaws[i].kind == FLAW_YOZUME || rep->flaws[i].kind == FLAW_HAYAZUME) s.yozume++;
  }
  s.defects += rep->flaws_dropped;
  if (rep->verdict == CHECK_UNKNOWN) s.defects++;
  return s;
}

bool compose_better(const ComposeScore *a, const ComposeScore *b) {
  if (a->valid != b->valid) return a->valid;
  if (!a->valid) return false;
  int da = a->defects > 3 ? a->defects : 3, db = b->defects > 3 ? b->defects : 3;
  if (da != db) return da < db;
  if (a->length != b->length) return a->length > b->length;
  if (a->defects != b->defects) return a->defects < b->defects;
  return a->pieces > b->pieces;
}

/* Among complete works: the longer, then the one with fewer pieces. */
static bool complete_better(const ComposeScore *a, const ComposeScore *b) {
  if (a->verdict != CHECK_COMPLETE || !a->valid) return false;
  if (b->verdict != CHECK_COMPLETE || !b->valid) return true;
  if (a->length != b->length) return a->length > b->length;
  return a->pieces < b->pieces;
}

bool compose_kept_better(const ComposeScore *a, const ComposeScore *b) {
  bool ca = a->valid && a->verdict == CHECK_COMPLETE, cb = b->valid && b->verdict == CHECK_COMPLETE;
  if (ca != cb) return ca;
  return ca ? complete_better(a, b) : compose_better(a, b);
}

/* ---- one run ---- */

typedef struct {
  Position pos;
  CheckReport rep;
  ComposeScore sc;
} Work;

typedef struct {
  Checker *c;
  const ComposeOptions *o;
  Rng rng;
  Color att, def;
  uint64_t t0, iterations, checks, accepted, last_progress, restarts;
  bool stopped;
  const char *stop_reason;
  int floor;       /* a candidate shorter than this does not replace a current diagram that reaches it */
  Position origin; /* the input as the search starts from it (the attacker's king taken off) */
  Work cur, best, cand, conf;
} Run;

/* The order of run_consider: §4.4's, after the floor on the length. */
static bool run_better(const Run *R, const ComposeScore *a, const ComposeScore *b) {
  if (R->floor > 0 && a->valid && b->valid) {
    bool fa = a->length >= R->floor, fb = b->length >= R->floor;
    if (fa != fb) return fa;
  }
  return compose_better(a, b);
}

/* Time left before the deadline (0: spent); UINT64_MAX without one. The deadline
 * is the checker's during the run: the run's own budget, or a caller's earlier one. */
static uint64_t run_time_left(const Run *R) {
  uint64_t end = check_deadline(R->c);
  if (!end) return UINT64_MAX;
  uint64_t t = now_ms();
  return t >= end ? 0 : end - t;
}

/* The time is looked at before the stop flag: a caller that sets the flag at
 * the deadline (to end a question in progress) still reads "time". */
static bool run_out_of_budget(Run *R) {
  const ComposeOptions *o = R->o;
  if (R->stopped) return true;
  if (run_time_left(R) == 0) R->stop_reason = "time";
  else if (o->stop && *o->stop) R->stop_reason = "stop";
  else return false;
  R->stopped = true;
  return true;
}

/* The search loop ends before the deadline when a complete work is there to
 * lean, by what its lean-up should take (a check per piece, twice over, at the
 * run's mean time per check), at most a twentieth of the budget and 30 s. */
static bool run_loop_over(Run *R) {
  if (run_out_of_budget(R)) return true;
  if (!R->o->time_ms || R->best.sc.verdict != CHECK_COMPLETE || !R->best.sc.valid) return false;
  uint64_t spent = now_ms() - R->t0, per_check = R->checks ? spent / R->checks + 1 : 1;
  uint64_t reserve = 2 * (uint64_t)R->best.sc.pieces * per_check, cap = R->o->time_ms / 20;
  if (cap > 30000) cap = 30000;
  if (reserve > cap) reserve = cap;
  return run_time_left(R) <= reserve;
}

static void run_progress(Run *R, bool force) {
  const ComposeOptions *o = R->o;
  if (!o->on_progress) return;
  uint64_t t = now_ms(), every = o->progress_ms ? o->progress_ms : 1000;
  if (!force && t - R->last_progress < every) return;
  R->last_progress = t;
  ComposeProgress p;
  p.iterations = R->iterations;
  p.checks = R->checks;
  p.accepted = R->accepted;
  p.restarts = R->restarts;
  p.elapsed_ms = t - R->t0;
  p.current = R->cur.sc;
  p.best_complete = R->best.sc;
  if (R->best.sc.verdict != CHECK_COMPLETE) p.best_complete.valid = false;
  o->on_progress(o->progress_ctx, &p);
}

/* Judges w->pos (its defender's hand made the rest first). */
static int run_judge(Run *R, Work *w) {
  pos_give_remaining(&w->pos, R->def);
  int rc = check_problem(R->c, &w->pos, R->o->keep_line, R->o->keep_n, &w->rep);
  R->checks++;
  if (rc == TS_ERR_NOMEM) return rc;
  if (rc) {
    memset(&w->sc, 0, sizeof w->sc);
    w->sc.verdict = CHECK_BAD_LINE;
    return TS_OK;
  }
  w->sc = compose_score(&w->pos, &w->rep);
  run_progress(R, false);
  return TS_OK;
}

static void work_swap(Work *a, Work *b) {
  Work t = *a;
  *a = *b;
  *b = t;
}

static void run_notify(Run *R, ComposeStepKind kind, const Work *w, bool best_complete) {
  if (!R->o->on_step) return;
  ComposeStep s = {.kind = kind, .iteration = R->iterations, .pos = &w->pos, .score = w->sc, .report = &w->rep,
                   .best_complete = best_complete};
  R->o->on_step(R->o->step_ctx, &s);
}

/* Copies w into best when it is a better complete work. A complete verdict is
 * judged once more with the checker's table cleared first (a work reported
 * complete must be complete for a fresh checker too); when that judgement
 * differs, w takes it instead. */
static void run_offer_best(Run *R, Work *w, ComposeStepKind kind) {
  if (!complete_better(&w->sc, &R->best.sc)) return;
  solver_clear(check_solver(R->c));
  R->conf.pos = w->pos;
  if (run_judge(R, &R->conf) != TS_OK) return;
  if (R->conf.sc.verdict != CHECK_COMPLETE || R->conf.sc.length != w->sc.length) {
    work_swap(w, &R->conf);
    if (!complete_better(&w->sc, &R->best.sc)) return;
  }
  R->best.pos = w->pos;
  R->best.sc = w->sc;
  if (check_report_copy(&R->best.rep, &w->rep)) return;
  run_notify(R, kind, &R->best, true);
}

/* The candidate in R->cand is judged; when better than the current diagram it becomes it. */
static int run_consider(Run *R, ComposeStepKind kind, bool judged, bool *accepted) {
  *accepted = false;
  if (R->o->max_pieces && pieces_count(&R->cand.pos) > R->o->max_pieces) return TS_OK;
  if (pos_equal(&R->cand.pos, &R->cur.pos)) return TS_OK;
  if (!judged) {
    int rc = run_judge(R, &R->cand);
    if (rc) return rc;
    run_offer_best(R, &R->cand, kind);
  }
  if (run_better(R, &R->cand.sc, &R->cur.sc)) {
    work_swap(&R->cand, &R->cur);
    R->accepted++;
    *accepted = true;
    run_notify(R, kind, &R->cur, false);
  }
  return TS_OK;
}

/* A mating line of w: the judged line, or with pieces in hand fewer at the end / longer, an alternative's. */
static int priority_line(Run *R, const Work *w, Move *out) {
  const CheckReport *rep = &w->rep;
  if (R->o->keep_line) {
    memcpy(out, R->o->keep_line, (size_t)R->o->keep_n * sizeof *out);
    return R->o->keep_n;
  }
  if (!w->sc.valid) return 0;
  int n = rep->line_length < COMPOSE_LINE_MAX ? rep->line_length : COMPOSE_LINE_MAX;
  memcpy(out, rep->line, (size_t)n * sizeof *out);
  int best_left = -1;
  {
    Position p = w->pos;
    for (int i = 0; i < n; i++) {
      Undo u;
      pos_do_move(&p, out[i], &u);
    }
    best_left = hand_total(p.hand[R->att]);
  }
  Move tmp[COMPOSE_LINE_MAX];
  for (int f = 0; f < rep->nflaws; f++) {
    const CheckFlaw *fl = &rep->flaws[f];
    if (fl->kind != FLAW_YOZUME && fl->kind != FLAW_HAYAZUME) continue;
    if (fl->alt_line_len <= 0 || fl->alt_line_len != fl->alt_length) continue;
    int k = fl->ply - 1;
    if (k < 0 || k > n || k + fl->alt_line_len > COMPOSE_LINE_MAX) continue;
    memcpy(tmp, rep->line, (size_t)k * sizeof *tmp);
    memcpy(tmp + k, fl->alt_line, (size_t)fl->alt_line_len * sizeof *tmp);
    int m = k + fl->alt_line_len;
    if (!solver_line_verify(&w->pos, tmp, m, true, NULL)) continue;
    Position p = w->pos;
    for (int i = 0; i < m; i++) {
      Undo u;
      pos_do_move(&p, tmp[i], &u);
    }
    int left = hand_total(p.hand[R->att]);
    if (left < best_left || (left == best_left && m > n)) {
      best_left = left;
      n = m;
      memcpy(out, tmp, (size_t)m * sizeof *out);
    }
  }
  return n;
}

/* Roles of the start pieces of pos over the given lines (board squares). */
static int start_roles(const Position *pos, Move lines[][COMPOSE_LINE_MAX], const int *len, int k, uint8_t roles[SQ_NB]) {
  memset(roles, 0, SQ_NB);
  for (int j = 0; j < k; j++) {
    RoleMap m;
    int rc = roles_compute(pos, lines[j], len[j], &m);
    if (rc == TS_ERR_NOMEM) return rc;
    if (rc) continue;
    roles_union_start(&m, 1, roles, NULL);
    roles_free(&m);
  }
  return TS_OK;
}

/* Deletes the board pieces (kings excepted) without a role; returns how many. */
static int delete_roleless(Position *pos, const uint8_t roles[SQ_NB]) {
  int k = 0;
  for (Square s = 0; s < SQ_NB; s++) {
    Piece p = pos->board[s];
    if (!p || piece_type(p) == KING || roles[s]) continue;
    pos_remove(pos, s);
    k++;
  }
  if (k) pos_finish_setup(pos);
  return k;
}

/* Deletes the attacker's hand pieces that the line never drops (the count of a
 * kind that stays in hand at every ply); returns how many. */
static int delete_unused_hand(Position *pos, const Move *line, int n) {
  Color att = pos->side;
  int low[HAND_PT_NB];
  for (int t = PAWN; t <= GOLD; t++) low[t] = hand_count(pos->hand[att], (PieceType)t);
  Position p = *pos;
  for (int i = 0; i < n; i++) {
    Undo u;
    pos_do_move(&p, line[i], &u);
    for (int t = PAWN; t <= GOLD; t++) {
      int c = hand_count(p.hand[att], (PieceType)t);
      if (c < low[t]) low[t] = c;
    }
  }
  int k = 0;
  for (int t = PAWN; t <= GOLD; t++)
    for (; low[t] > 0; low[t]--, k++) pos->hand[att] = hand_sub(pos->hand[att], (PieceType)t);
  if (k) pos_finish_setup(pos);
  return k;
}

/* Every line of w (judged line and the alternatives' complete lines) into lines; returns how many. */
#define COMPOSE_ROLE_LINES 8
static int all_lines(Run *R, const Work *w, Move lines[][COMPOSE_LINE_MAX], int *len) {
  int k = 0;
  const CheckReport *rep = &w->rep;
  if (R->o->keep_line) {
    memcpy(lines[0], R->o->keep_line, (size_t)R->o->keep_n * sizeof(Move));
    len[0] = R->o->keep_n;
    k = 1;
  } else if (w->sc.valid) {
    len[0] = rep->line_length < COMPOSE_LINE_MAX ? rep->line_length : COMPOSE_LINE_MAX;
    memcpy(lines[0], rep->line, (size_t)len[0] * sizeof(Move));
    k = 1;
  }
  if (!w->sc.valid) return k;
  for (int f = 0; f < rep->nflaws && k < COMPOSE_ROLE_LINES; f++) {
    const CheckFlaw *fl = &rep->flaws[f];
    if (fl->alt_line_len <= 0 || fl->alt_line_len != fl->alt_length) continue;
    int p = fl->ply - 1;
    if (p < 0 || p > rep->line_length || p + fl->alt_line_len > COMPOSE_LINE_MAX) continue;
    memcpy(lines[k], rep->line, (size_t)p * sizeof(Move));
    memcpy(lines[k] + p, fl->alt_line, (size_t)fl->alt_line_len * sizeof(Move));
    len[k] = p + fl->alt_line_len;
    if (solver_line_verify(&w->pos, lines[k], len[k], true, NULL)) k++;
  }
  return k;
}

/* Is kind t (a board kind, promoted or not) allowed by the options? */
static bool kind_allowed(const ComposeOptions *o, PieceType t) {
  if (o->no_promoted && pt_is_promoted(t)) return false;
  return !(o->exclude_kinds & (1u << pt_demote(t)));
}

/* Can p stand on s (a future move, no 二歩)? */
static bool placement_ok(const Position *pos, Square s, Piece p) {
  if (pos->board[s]) return false;
  PieceType t = piece_type(p);
  Color c = piece_color(p);
  int rr = c == BLACK ? sq_rank(s) : 10 - sq_rank(s); /* 1 = the far rank for c */
  if ((t == PAWN || t == LANCE) && rr == 1) return false;
  if (t == KNIGHT && rr <= 2) return false;
  if (t == PAWN && (pos_pieces(pos, c, PAWN) & BB_FILE[sq_file(s)])) return false;
  return true;
}

/* After a change: a problem position (defender not in check, rules of the position). */
static bool position_ok(Position *pos) {
  pos_finish_setup(pos);
  TsError e;
  return pos_validate_problem(pos, "", &e) == TS_OK;
}

/* §4.3's candidate squares of a kind around the defender's king (attacker side `c`). */
static bool candidate_square(const Position *pos, Color att, PieceType t, Color c, Square s) {
  Square k = pos->king[color_flip(att)];
  if (k == SQ_NONE || s == k) return false;
  int df = sq_file(s) - sq_file(k), dr = sq_rank(s) - sq_rank(k);
  /* toward the attacker's side of the king: larger ranks when sente attacks */
  int toward = att == BLACK ? dr : -dr;
  int adf = df < 0 ? -df : df, adr = dr < 0 ? -dr : dr;
  switch (pt_demote(t)) {
  case ROOK: return adf <= 2 || adr <= 2;
  case BISHOP: {
    int a = df - dr, b = df + dr;
    return (a >= -2 && a <= 2) || (b >= -2 && b <= 2);
  }
  case LANCE: return adf <= 2 && (c == att ? toward > 0 : toward < 0);
  case KNIGHT: return adf <= 2 && (c == att ? (toward >= 1 && toward <= 2) : (toward <= -1 && toward >= -2));
  default: return adf <= 2 && adr <= 2;
  }
}

/* Step 3: one piece added by Table 1; false when nothing could be added. */
static bool add_piece(Run *R, Position *pos, int yozume) {
  int ways[3], nw = 0;
  if (yozume == 0) {
    ways[nw++] = 1;
    ways[nw++] = 2;
    ways[nw++] = 3;
  } else if (yozume == 1) {
    ways[nw++] = 1;
    ways[nw++] = 2;
  } else if (yozume <= 3) {
    ways[nw++] = 2;
  } else {
    ways[nw++] = 3;
  }
  int way = ways[rng_below(&R->rng, nw)];
  PieceType kinds[7];
  int nk = 0;
  for (int t = PAWN; t <= GOLD; t++)
    if (hand_count(pos->hand[R->def], (PieceType)t) > 0 && !(R->o->exclude_kinds & (1u << t))) kinds[nk++] = (PieceType)t;
  if (!nk) return false;
  PieceType base = kinds[rng_below(&R->rng, nk)];
  if (way == 1) {
    pos->hand[R->def] = hand_sub(pos->hand[R->def], base);
    pos->hand[R->att] = hand_add(pos->hand[R->att], base);
    return position_ok(pos);
  }
  Color c = way == 2 ? R->att : R->def;
  PieceType t = base;
  if (pt_can_promote(base) && kind_allowed(R->o, pt_promote(base)) && rng_below(&R->rng, 3) == 0) t = pt_promote(base);
  Square cand[SQ_NB];
  int nc = 0;
  Piece p = piece_make(c, t);
  for (Square s = 0; s < SQ_NB; s++)
    if (candidate_square(pos, R->att, t, c, s) && placement_ok(pos, s, p)) cand[nc++] = s;
  for (int tries = 0; tries < 8 && nc > 0; tries++) {
    int i = rng_below(&R->rng, nc);
    Position q = *pos;
    q.hand[R->def] = hand_sub(q.hand[R->def], base);
    pos_put(&q, cand[i], p);
    if (position_ok(&q)) {
      *pos = q;
      return true;
    }
    cand[i] = cand[--nc];
  }
  return false;
}

/* The kinds a piece of colour c on s could be replaced by (kind != its own). */
static int replacement_kinds(const Run *R, const Position *pos, Square s, Piece old, Piece out[32]) {
  int n = 0;
  Hand pool = pos->hand[R->def];
  for (Color c = BLACK; c <= WHITE; c = (Color)(c + 1))
    for (int t = PAWN; t < PT_NB; t++) {
      if (t == KING) continue;
      PieceType base = pt_demote((PieceType)t);
      Piece p = piece_make(c, (PieceType)t);
      if (p == old || !kind_allowed(R->o, (PieceType)t)) continue;
      if (pt_demote(piece_type(old)) != base && hand_count(pool, base) == 0) continue;
      Position q = *pos;
      pos_remove(&q, s);
      if (!placement_ok(&q, s, p)) continue;
      out[n++] = p;
    }
  return n;
}

/* Replaces the piece on s by p (hands follow); false when the result is no problem position. */
static bool replace_piece(Run *R, Position *pos, Square s, Piece p) {
  Piece old = pos->board[s];
  pos_remove(pos, s);
  pos->hand[R->def] = hand_add(pos->hand[R->def], pt_demote(piece_type(old)));
  if (hand_count(pos->hand[R->def], pt_demote(piece_type(p))) == 0) return false;
  pos->hand[R->def] = hand_sub(pos->hand[R->def], pt_demote(piece_type(p)));
  pos_put(pos, s, p);
  return position_ok(pos);
}

/* Does the piece on each square of `sqs` keep its roles along the line in q? */
static bool roles_kept(const Position *q, const Move *line, int n, const Square *sqs, int k, const uint8_t old[SQ_NB]) {
  if (!solver_line_verify(q, line, n, true, NULL)) return false;
  RoleMap m;
  if (roles_compute(q, line, n, &m)) return false;
  uint8_t now[SQ_NB] = {0};
  roles_union_start(&m, 1, now, NULL);
  roles_free(&m);
  for (int i = 0; i < k; i++)
    if ((now[sqs[i]] & old[sqs[i]]) != old[sqs[i]]) return false;
  return true;
}

/* One iteration of §4.4 from R->cur. */
static int run_iteration(Run *R) {
  Move prio[COMPOSE_LINE_MAX];
  int np = priority_line(R, &R->cur, prio);
  uint8_t roles[SQ_NB];
  bool acc;
  int rc;
  /* 2. delete the pieces without a role along the priority line */
  Move (*ls)[COMPOSE_LINE_MAX] = malloc(sizeof(Move) * COMPOSE_ROLE_LINES * COMPOSE_LINE_MAX);
  if (!ls) return TS_ERR_NOMEM;
  int lens[COMPOSE_ROLE_LINES];
  if (np > 0) {
    memcpy(ls[0], prio, (size_t)np * sizeof(Move));
    lens[0] = np;
    if ((rc = start_roles(&R->cur.pos, ls, lens, 1, roles))) goto out;
  } else {
    memset(roles, 0xff, sizeof roles);
  }
  R->cand.pos = R->cur.pos;
  if (np > 0 && delete_roleless(&R->cand.pos, roles) + delete_unused_hand(&R->cand.pos, prio, np) > 0 &&
      position_ok(&R->cand.pos)) {
    if ((rc = run_consider(R, COMPOSE_STEP_DELETE, false, &acc))) goto out;
    if (acc) goto done;
  } else {
    R->cand.pos = R->cur.pos;
    R->cand.sc = R->cur.sc;
  }
  if (run_out_of_budget(R)) goto done;
  /* 3. add a piece by Table 1, judge, delete what has no role on any line, judge */
  {
    Work *w = &R->cand;
    if (!pos_equal(&w->pos, &R->cur.pos)) {
      /* the deleted diagram was judged: its 余詰 count chooses the way */
    } else {
      w->sc = R->cur.sc;
    }
    Position added = w->pos;
    if (add_piece(R, &added, w->sc.valid ? w->sc.yozume : 0)) {
      w->pos = added;
      if (!(R->o->max_pieces && pieces_count(&w->pos) > R->o->max_pieces)) {
        if ((rc = run_judge(R, w))) goto out;
        run_offer_best(R, w, COMPOSE_STEP_ADD);
        int k = all_lines(R, w, ls, lens);
        bool judged = true;
        if (k > 0) {
          if ((rc = start_roles(&w->pos, ls, lens, k, roles))) goto out;
          Position d = w->pos;
          if (delete_roleless(&d, roles) && position_ok(&d)) {
            w->pos = d;
            judged = false;
          }
        }
        if ((rc = run_consider(R, COMPOSE_STEP_ADD, judged, &acc))) goto out;
        if (acc) goto done;
      }
    }
  }
  if (run_out_of_budget(R) || np == 0) goto done;
  /* 4. role-keeping replacements of one piece, or two at once */
  memcpy(ls[0], prio, (size_t)np * sizeof(Move));
  lens[0] = np;
  if ((rc = start_roles(&R->cur.pos, ls, lens, 1, roles))) goto out;
  {
    int sqs[SQ_NB], ns = 0;
    for (Square s = 0; s < SQ_NB; s++)
      if (R->cur.pos.board[s] && piece_type(R->cur.pos.board[s]) != KING) sqs[ns++] = s;
    rng_shuffle(&R->rng, sqs, ns);
    int judged = 0, tries = R->o->replace_tries > 0 ? R->o->replace_tries : 6;
    for (int i = 0; i < ns && judged < tries; i++) {
      if (run_out_of_budget(R)) goto done;
      bool two = ns >= 2 && rng_below(&R->rng, 4) == 0;
      Square at[2] = {sqs[i], sqs[(i + 1 + rng_below(&R->rng, ns - 1)) % ns]};
      int k = two ? 2 : 1;
      Position q = R->cur.pos;
      bool ok = true;
      for (int j = 0; j < k && ok; j++) {
        Piece opts[32];
        int no = replacement_kinds(R, &q, at[j], q.board[at[j]], opts);
        if (!no) {
          ok = false;
          break;
        }
        ok = replace_piece(R, &q, at[j], opts[rng_below(&R->rng, no)]);
      }
      if (!ok || !roles_kept(&q, prio, np, at, k, roles)) continue;
      judged++;
      R->cand.pos = q;
      if ((rc = run_consider(R, two ? COMPOSE_STEP_REPLACE2 : COMPOSE_STEP_REPLACE, false, &acc))) goto out;
      if (acc) goto done;
    }
  }
done:
  rc = TS_OK;
out:
  free(ls);
  return rc;
}

/* Takes pieces off the best complete work while it stays complete with the same length. */
static int run_cleanup(Run *R) {
  if (R->best.sc.verdict != CHECK_COMPLETE) return TS_OK;
  /* within the budget: the search loop left it a share of the time (run_loop_over) */
  bool again = true;
  R->stopped = false; /* the loop's reason stays; the deadline is looked at again */
  const char *reason = R->stop_reason;
  for (int pass = 0; again && !run_out_of_budget(R); pass++) {
    again = false;
    for (Square s = 0; s < SQ_NB && !again && !run_out_of_budget(R); s++) {
      Piece p = R->best.pos.board[s];
      if (!p || (piece_type(p) == KING && (piece_color(p) != R->att || R->o->keep_king))) continue;
      R->cand.pos = R->best.pos;
      pos_remove(&R->cand.pos, s);
      if (!position_ok(&R->cand.pos)) continue;
      if (R->o->keep_line && !solver_line_verify(&R->cand.pos, R->o->keep_line, R->o->keep_n, true, NULL)) continue;
      int rc = run_judge(R, &R->cand);
      if (rc) return rc;
      if (R->cand.sc.verdict == CHECK_COMPLETE && R->cand.sc.valid && R->cand.sc.length >= R->best.sc.length) {
        /* the same length, fewer pieces: better by complete_better */
        run_offer_best(R, &R->cand, piece_type(p) == KING ? COMPOSE_STEP_DROP_KING : COMPOSE_STEP_CLEANUP);
        again = true;
      }
    }
  }
  if (reason) R->stop_reason = reason;
  return TS_OK;
}

/* One random change of pos for a restart: a piece (not a king) taken off, moved
 * to an empty square next to it, or one added by Table 1. False when the
 * change made no problem position. */
static bool perturb_once(Run *R, Position *pos) {
  Square sqs[SQ_NB];
  int ns = 0;
  for (Square s = 0; s < SQ_NB; s++)
    if (pos->board[s] && piece_type(pos->board[s]) != KING) sqs[ns++] = s;
  int way = rng_below(&R->rng, 3);
  if (way == 2 || ns == 0) return add_piece(R, pos, rng_below(&R->rng, 5));
  Square s = sqs[rng_below(&R->rng, ns)];
  Position q = *pos;
  Piece p = q.board[s];
  pos_remove(&q, s);
  if (way == 0) {
    q.hand[R->def] = hand_add(q.hand[R->def], pt_demote(piece_type(p)));
  } else {
    Square to[8];
    int nt = 0;
    for (int df = -1; df <= 1; df++)
      for (int dr = -1; dr <= 1; dr++) {
        int f = sq_file(s) + df, r = sq_rank(s) + dr;
        if ((df || dr) && f >= 1 && f <= 9 && r >= 1 && r <= 9 && placement_ok(&q, sq_make(f, r), p))
          to[nt++] = sq_make(f, r);
      }
    if (!nt) return false;
    pos_put(&q, to[rng_below(&R->rng, nt)], p);
  }
  if (!position_ok(&q)) return false;
  *pos = q;
  return true;
}

/* The k-th restart (k >= 1): from the best complete work (to make it longer), from the
 * input without the floor, from the input with it, in turn; the diagram is changed by
 * one to three random steps first (perturb_once), and taken unchanged when the changed
 * one has no mating line to start from. */
static int run_restart(Run *R, uint64_t k, int input_floor) {
  bool have_best = R->best.sc.verdict == CHECK_COMPLETE && R->best.sc.valid;
  Position base;
  if (k % 3 == 1 && have_best) {
    base = R->best.pos;
    R->floor = R->best.sc.length;
  } else {
    base = R->origin;
    R->floor = k % 3 == 0 ? input_floor : 0;
  }
  R->cur.pos = base;
  int steps = 1 + rng_below(&R->rng, 3), done = 0;
  for (int i = 0; i < steps; i++) done += perturb_once(R, &R->cur.pos);
  if (done && R->o->max_pieces && pieces_count(&R->cur.pos) > R->o->max_pieces) done = 0;
  if (done && R->o->keep_line && !solver_line_verify(&R->cur.pos, R->o->keep_line, R->o->keep_n, true, NULL)) done = 0;
  int rc;
  if (done) {
    if ((rc = run_judge(R, &R->cur))) return rc;
    if (R->cur.sc.valid) {
      run_offer_best(R, &R->cur, COMPOSE_STEP_RESTART);
      run_notify(R, COMPOSE_STEP_RESTART, &R->cur, false);
      return TS_OK;
    }
  }
  R->cur.pos = base;
  rc = run_judge(R, &R->cur);
  if (!rc) run_notify(R, COMPOSE_STEP_RESTART, &R->cur, false);
  return rc;
}

/* The attacker's king taken off the start when the diagram stays a mate. */
static int run_drop_king(Run *R) {
  Square k = R->cur.pos.king[R->att];
  if (k == SQ_NONE || R->o->keep_king) return TS_OK;
  R->cand.pos = R->cur.pos;
  pos_remove(&R->cand.pos, k);
  if (!position_ok(&R->cand.pos)) return TS_OK;
  if (R->o->keep_line && !solver_line_verify(&R->cand.pos, R->o->keep_line, R->o->keep_n, true, NULL)) return TS_OK;
  int rc = run_judge(R, &R->cand);
  if (rc || !R->cand.sc.valid) return rc;
  work_swap(&R->cand, &R->cur);
  R->accepted++;
  run_notify(R, COMPOSE_STEP_DROP_KING, &R->cur, false);
  run_offer_best(R, &R->cur, COMPOSE_STEP_DROP_KING);
  return TS_OK;
}

int compose_run(Checker *c, const Position *pos, const ComposeOptions *o, ComposeResult *r) {
  memset(r, 0, sizeof *r);
  check_report_init(&r->report);
  Run *R = calloc(1, sizeof *R);
  if (!R) return TS_ERR_NOMEM;
  R->c = c;
  R->o = o;
  R->rng.s = o->seed * 0x9E3779B97F4A7C15ULL + 0x1234567ULL;
  if (!R->rng.s) R->rng.s = 1;
  R->att = pos->side;
  R->def = color_flip(pos->side);
  R->t0 = o->t0_ms ? o->t0_ms : now_ms();
  /* every checker question ends at the run's deadline, whoever calls */
  uint64_t prev_deadline = check_deadline(c);
  if (o->time_ms && (!prev_deadline || R->t0 + o->time_ms < prev_deadline)) check_set_deadline(c, R->t0 + o->time_ms);
  bool prev_quick = check_set_quick_after_fatal(c, true); /* a diagram is judged by its flaw counts */
  check_report_init(&R->cur.rep);
  check_report_init(&R->best.rep);
  check_report_init(&R->cand.rep);
  check_report_init(&R->conf.rep);
  int rc = TS_OK;
  TsError e;
  R->cur.pos = *pos;
  pos_give_remaining(&R->cur.pos, R->def);
  if (pos_validate_problem(&R->cur.pos, "", &e)) {
    snprintf(r->report.message, sizeof r->report.message, "%.*s", (int)sizeof r->report.message - 1, e.msg);
    rc = TS_ERR_ILLEGAL;
    goto out;
  }
  if (o->keep_line && !solver_line_verify(&R->cur.pos, o->keep_line, o->keep_n, true, NULL)) {
    snprintf(r->report.message, sizeof r->report.message, "the line to keep is not a mating line from the diagram");
    rc = TS_ERR_ILLEGAL;
    goto out;
  }
  if ((rc = run_judge(R, &R->cur))) goto out;
  r->start = R->cur.pos;
  r->start_score = R->cur.sc;
  r->king_square = R->cur.pos.king[R->att];
  /* nothing to improve from: the caller reports the diagram as bad input */
  if (R->cur.sc.verdict == CHECK_NOMATE || R->cur.sc.verdict == CHECK_BAD_LINE) {
    r->best = R->cur.pos;
    r->best_score = R->cur.sc;
    r->checks = R->checks;
    r->stop_reason = "nomate";
    goto out;
  }
  R->best.sc.valid = false;
  R->best.sc.verdict = CHECK_UNKNOWN;
  run_notify(R, COMPOSE_STEP_START, &R->cur, false);
  run_offer_best(R, &R->cur, COMPOSE_STEP_START);
  if ((rc = run_drop_king(R))) goto out;
  R->origin = R->cur.pos;
  int input_floor = R->cur.sc.valid ? R->cur.sc.length : 0;
  R->floor = input_floor;
  uint64_t since = 0, idle_restarts = 0;
  ComposeScore phase_best = R->best.sc;
  while (!run_loop_over(R)) {
    if (o->iterations && R->iterations >= o->iterations) {
      R->stop_reason = "iterations";
      break;
    }
    if (o->stall && since >= o->stall) {
      /* a restart, unless a cap on restarts in a row without a better complete work was given and reached */
      idle_restarts = complete_better(&R->best.sc, &phase_best) ? 0 : idle_restarts + 1;
      if (o->restarts && idle_restarts > o->restarts) {
        R->stop_reason = "restarts";
        break;
      }
      phase_best = R->best.sc;
      if ((rc = run_restart(R, ++R->restarts, input_floor))) goto out;
      since = 0;
      continue;
    }
    uint64_t acc = R->accepted;
    R->iterations++;
    if ((rc = run_iteration(R))) goto out;
    since = R->accepted != acc ? 0 : since + 1;
    run_progress(R, false);
  }
  if ((rc = run_cleanup(R))) goto out;
  run_progress(R, true);
  if (R->best.sc.verdict == CHECK_COMPLETE && R->best.sc.valid) {
    r->best = R->best.pos;
    r->best_score = R->best.sc;
    r->complete = true;
    r->report = R->best.rep;
    check_report_init(&R->best.rep);
  } else {
    r->best = R->cur.pos;
    r->best_score = R->cur.sc;
    r->report = R->cur.rep;
    check_report_init(&R->cur.rep);
  }
  r->iterations = R->iterations;
  r->checks = R->checks;
  r->accepted = R->accepted;
  r->restarts = R->restarts;
  r->king_dropped = r->king_square != SQ_NONE && r->best.king[R->att] == SQ_NONE;
  r->stop_reason = R->stop_reason ? R->stop_reason : "time";
out:
  check_set_deadline(c, prev_deadline);
  check_set_quick_after_fatal(c, prev_quick);
  r->time_ms = now_ms() - R->t0;
  check_report_free(&R->cur.rep);
  check_report_free(&R->best.rep);
  check_report_free(&R->cand.rep);
  check_report_free(&R->conf.rep);
  free(R);
  return rc;
}

void compose_result_free(ComposeResult *r) { check_report_free(&r->report); }

/* ---- backwards from a mate picture ---- */

void compose_from_mate_options_default(FromMateOptions *o) {
  memset(o, 0, sizeof *o);
  o->max_moves = 7;
}

/* A set of position keys (open addressing; 0 is the empty slot). */
typedef struct {
  uint64_t *k;
  size_t cap, n;
} KeySet;

static int keyset_add(KeySet *s, uint64_t key, bool *added) {
  if (!key) key = 1;
  if ((s->n + 1) * 2 > s->cap) {
    size_t cap = s->cap ? s->cap * 2 : 1024;
    uint64_t *k = calloc(cap, sizeof *k);
    if (!k) return TS_ERR_NOMEM;
    for (size_t i = 0; i < s->cap; i++)
      if (s->k[i])
        for (size_t j = s->k[i] & (cap - 1);; j = (j + 1) & (cap - 1))
          if (!k[j]) {
            k[j] = s->k[i];
            break;
          }
    free(s->k);
    s->k = k;
    s->cap = cap;
  }
  for (size_t j = key & (s->cap - 1);; j = (j + 1) & (s->cap - 1)) {
    if (s->k[j] == key) {
      *added = false;
      return TS_OK;
    }
    if (!s->k[j]) {
      s->k[j] = key;
      s->n++;
      *added = true;
      return TS_OK;
    }
  }
}

/* A complete work found at one length: its position and its line to the picture. */
typedef struct {
  Position pos;
  Move *line; /* n moves */
} FmNode;

typedef struct {
  FmNode *v;
  size_t n, cap;
} FmLevel;

static int level_push(FmLevel *l, const Position *pos, const Move *line, int n) {
  if (l->n == l->cap) {
    size_t cap = l->cap ? l->cap * 2 : 64;
    FmNode *v = realloc(l->v, cap * sizeof *v);
    if (!v) return TS_ERR_NOMEM;
    l->v = v;
    l->cap = cap;
  }
  Move *m = malloc((size_t)(n > 0 ? n : 1) * sizeof *m);
  if (!m) return TS_ERR_NOMEM;
  memcpy(m, line, (size_t)n * sizeof *m);
  l->v[l->n].pos = *pos;
  l->v[l->n].line = m;
  l->n++;
  return TS_OK;
}

static void level_free(FmLevel *l) {
  for (size_t i = 0; i < l->n; i++) free(l->v[i].line);
  free(l->v);
  memset(l, 0, sizeof *l);
}

typedef struct {
  Checker *c;
  const FromMateOptions *o;
  FromMateResult *r;
  uint64_t t0, last_progress;
  int plies; /* the length being built */
  CheckReport rep;
  KeySet seen, works;
} FromMate;

static bool fm_cut(FromMate *F) {
  const FromMateOptions *o = F->o;
  uint64_t t = now_ms();
  if (o->on_progress && t - F->last_progress >= (o->progress_ms ? o->progress_ms : 1000)) {
    F->last_progress = t;
    o->on_progress(o->progress_ctx, F->plies, F->r->candidates, F->r->works, t - F->t0);
  }
  uint64_t end = check_deadline(F->c); /* the call's budget, or a caller's earlier deadline */
  if ((o->stop && *o->stop) || (end && t >= end) ||
      (o->max_nodes && F->r->candidates >= o->max_nodes) || (o->max_works && F->r->works >= o->max_works)) {
    F->r->cut = true;
    return true;
  }
  return false;
}

/* Judges the attacker-to-move position p with its line; a complete work goes to next. */
static int fm_judge(FromMate *F, const Position *p, const Move *line, int n, FmLevel *next) {
  if (F->o->max_pieces && pieces_count(p) > F->o->max_pieces) return TS_OK;
  /* a position reached by several lines is judged with each (one may be the main line) */
  uint64_t h = pos_key(p);
  for (int i = 0; i < n; i++) h = (h ^ line[i]) * 0x100000001B3ULL;
  bool added;
  int rc = keyset_add(&F->seen, h, &added);
  if (rc || !added) return rc;
  F->r->candidates++;
  rc = check_problem(F->c, p, line, n, &F->rep);
  if (rc == TS_ERR_NOMEM) return rc;
  if (rc || F->rep.line_length != n) return TS_OK;
  /* followed back: complete works, and those whose only flaw is another last move (a
   * 1-ply problem with two mates is flawed, the same move as the last of a longer line is not) */
  bool complete = F->rep.verdict == CHECK_COMPLETE;
  if (!complete) {
    if (F->rep.verdict != CHECK_FLAWED) return TS_OK;
    for (int i = 0; i < F->rep.nflaws; i++)
      if (!F->rep.flaws[i].tolerated && F->rep.flaws[i].kind != FLAW_LAST_MOVE_ALT) return TS_OK;
  }
  if ((rc = keyset_add(&F->works, pos_key(p), &added)) || !added) return rc;
  if ((rc = level_push(next, p, line, n))) return rc;
  if (!complete) return TS_OK;
  F->r->works++;
  if (n > F->r->longest) F->r->longest = n;
  if (F->o->on_work && (rc = F->o->on_work(F->o->work_ctx, p, line, n, &F->rep))) return rc;
  return TS_OK;
}

int compose_from_mate(Checker *c, const Position *mate, const FromMateOptions *o, FromMateResult *r, TsError *err) {
  memset(r, 0, sizeof *r);
  ts_error_clear(err);
  Position m = *mate;
  Color def = m.side, att = color_flip(def);
  pos_give_remaining(&m, def);
  if (m.king[def] == SQ_NONE) return ts_error_set(err, TS_ERR_ILLEGAL, "<picture>", 0, 0, "the side to move has no king");
  if (!pos_is_mate(&m))
    return ts_error_set(err, TS_ERR_ILLEGAL, "<picture>", 0, 0, "the side to move is not mated");
  if (m.hand[att])
    return ts_error_set(err, TS_ERR_ILLEGAL, "<picture>", 0, 0, "the attacker's hand is not empty at the mate");
  FromMate F = {.c = c, .o = o, .r = r, .t0 = o->t0_ms ? o->t0_ms : now_ms(), .plies = 1};
  F.last_progress = now_ms();
  uint64_t prev_deadline = check_deadline(c);
  if (o->time_ms && (!prev_deadline || F.t0 + o->time_ms < prev_deadline)) check_set_deadline(c, F.t0 + o->time_ms);
  bool prev_quick = check_set_quick_after_fatal(c, true);
  check_report_init(&F.rep);
  UnMoveList *ul = malloc(sizeof *ul), *ul2 = malloc(sizeof *ul2);
  FmLevel cur = {0}, next = {0};
  Move *line = malloc(sizeof(Move) * (size_t)(o->max_moves + 2));
  int rc = TS_OK;
  if (!ul || !ul2 || !line) {
    rc = TS_ERR_NOMEM;
    goto out;
  }
  ul->prev = ul2->prev = NULL;
  /* length 1: the attacker's last move un-made */
  retro_generate(&m, ul);
  for (int i = 0; i < ul->size && !fm_cut(&F); i++) {
    Position p;
    retro_apply(&m, &ul->u[i], &p);
    line[0] = ul->u[i].move;
    if ((rc = fm_judge(&F, &p, line, 1, &cur))) goto out;
  }
  for (int len = 3; len <= o->max_moves && cur.n && !fm_cut(&F); len += 2) {
    F.plies = len;
    for (size_t w = 0; w < cur.n && !fm_cut(&F); w++) {
      const FmNode *nd = &cur.v[w];
      retro_generate(&nd->pos, ul); /* the defender's un-moves */
      for (int i = 0; i < ul->size && !fm_cut(&F); i++) {
        Position q;
        retro_apply(&nd->pos, &ul->u[i], &q);
        if (!pos_in_check(&q)) continue; /* the defender answered a check */
        retro_generate(&q, ul2);          /* the attacker's un-moves */
        for (int j = 0; j < ul2->size && !fm_cut(&F); j++) {
          Position p;
          retro_apply(&q, &ul2->u[j], &p);
          line[0] = ul2->u[j].move;
          line[1] = ul->u[i].move;
          memcpy(line + 2, nd->line, (size_t)(len - 2) * sizeof *line);
          if ((rc = fm_judge(&F, &p, line, len, &next))) goto out;
        }
      }
    }
    level_free(&cur);
    cur = next;
    memset(&next, 0, sizeof next);
  }
out:
  check_set_deadline(c, prev_deadline);
  check_set_quick_after_fatal(c, prev_quick);
  r->time_ms = now_ms() - F.t0;
  level_free(&cur);
  level_free(&next);
  free(F.seen.k);
  free(F.works.k);
  free(ul);
  free(ul2);
  free(line);
  check_report_free(&F.rep);
  return rc;
}
