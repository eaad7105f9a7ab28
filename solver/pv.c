/*
 * pv.c - exact length, main line and line verification.
 *
 * Exactness: with a mate of length U known, ask "mate within U-2?" (bounded
 * df-pn with the 無駄合 rule when enabled); a yes gives a shorter U, a no proves
 * U exact.
 *
 * Main line for an exact length R, ply by ply:
 *   OR node:  a check whose reply position is mated within R-1 (at the last
 *             move, one that empties the attacker's hand when there is one);
 *   AND node: leave out futile interpositions (solver.h: a free capture, then a mated
 *             position at any length; a drop that outlasts R-1 must be one, and
 *             the question is asked only of those that last R-1); the defences
 *             not mated within R-3 are the longest; among several, the one
 *             whose own main line ends with an empty attacker hand (駒余り
 *             tie-break), found by building those lines (bounded by a budget so
 *             long problems stay cheap).
 * A node with only futile interpositions left ends the line as mate. A node of bound R
 * with no defence of R-1 plies cannot arise when R is its exact value (futility
 * does not depend on R); the branches for it guard a caller's inexact bound.
 */
#include <stdlib.h>
#include <string.h>

#include "movegen.h"
#include "search.h"
#include "solver_value.h"

/* Above this first-proof length the exact length comes from backward induction. */
#define PV_LONG 10
/* plies at the end of a long line rebuilt as a main line (tie-breaks) by the induction */
#define PV_TAIL 40

int pv_mate_within(Solver *s, const Position *pos, Color attacker, int len, int *mlen) {
  if (s->stopped) return -1;
  if (len < 0) return 0;
  s->pos = *pos;
  search_begin(s, attacker, s->opt.futile_rule);
  /* an unbounded search under the rule's last condition proves mates whose length it does not
   * keep: its entries stay apart from the first proof's, which share the table otherwise */
  if (len >= TT_LEN_INF && s->opt.futile_rule && s->opt.futile_compare)
    s->salt = (s->salt ^ 0x9e3779b97f4a7c15ULL) * 0xbf58476d1ce4e5b9ULL;
  SearchResult r = search_solve(s, len);
  s->root_dn = r.dn;
  s->root_pn = r.pn;
  if (r.pn == 0) {
    if (mlen) *mlen = r.len;
    return 1;
  }
  if (r.dn == 0 && !(r.rep && s->depth_hit)) return 0;
  if (!s->stopped) {
    s->stopped = true;
    s->stop_reason = "depth";
  }
  return -1;
}

typedef struct {
  Solver *s;
  Color att;
  int R, err;
} FutileCtx;

static bool mated_within_R(const Position *after, void *vctx) {
  FutileCtx *c = vctx;
  int k = pv_mate_within(c->s, after, c->att, c->R, NULL);
  if (k < 0) c->err = 1;
  return k != 0; /* a stopped search ends the test too */
}

bool pv_futile_within(Solver *s, const Position *pos, Color att, Move m, int L, int *err) {
  FutileCtx c = {s, att, L, 0};
  bool f = solver_futile_any(pos, m, s, mated_within_R, &c);
  if (s->stopped) c.err = 1;
  if (c.err) *err = 1;
  return f && !c.err;
}

bool pv_futile_exact(Solver *s, const Position *pos, Color att, Move m, int R, int *err) {
  /* Futility asks for a mate at any length; the position after a free capture
   * is most often mated at once or soon, so a bounded question comes first and
   * the unbounded one only when it fails. */
  FutileCtx c = {s, att, R >= 0 && R + 1 < TT_LEN_INF ? R + 1 : TT_LEN_INF, 0};
  bool f = solver_futile_any(pos, m, s, mated_within_R, &c);
  if (s->stopped) c.err = 1;
  if (!f && !c.err && c.R < TT_LEN_INF) {
    c.R = TT_LEN_INF;
    f = solver_futile_any(pos, m, s, mated_within_R, &c);
    if (s->stopped) c.err = 1;
  }
  if (c.err) *err = 1;
  return f && !c.err;
}

/* After move m from pos: mated within len? (pv_mate_within's answers) */
static int after_mate_within(Solver *s, const Position *pos, Move m, Color att, int len) {
  Position c = *pos;
  Undo u;
  pos_do_move(&c, m, &u);
  return pv_mate_within(s, &c, att, len, NULL);
}

/* The defence of pos (defender to move, mated within R) that lasts longest when
 * every drop counts as a defence; *len gets the plies its reply position needs.
 * A futile interposition lasts at most R + 2 plies (its capture leaves a position no harder
 * than the capture-and-hand-back one, mated within R), so R + 1 bounds the search.
 * MOVE_NONE when stopped. */
static Move pv_longest_defence(Solver *s, const Position *pos, Color att, const MoveList *ml, int R, int *len) {
  Move best = MOVE_NONE;
  int bl = R - 3; /* a defence must outlast this (the node is not mated within R-2) */
  for (int i = 0; i < ml->size; i++) {
    if (bl >= 0) {
      int k = after_mate_within(s, pos, ml->moves[i], att, bl);
      if (k < 0) return MOVE_NONE;
      if (k == 1) continue; /* no longer than the best so far */
    }
    for (int L = bl + 2; L <= R + 1; L += 2) {
      int k = after_mate_within(s, pos, ml->moves[i], att, L);
      if (k < 0) return MOVE_NONE;
      if (k == 1) {
        best = ml->moves[i], bl = L;
        break;
      }
    }
  }
  *len = bl;
  return best;
}

/*
 * Is the interposition m futile, at an AND node pos whose exact value is R
 * (futility itself does not depend on R)? For a drop the answer holds for its
 * square (the capture-and-hand-back position does not depend on the kind
 * dropped), for a moved piece (移動合) for the move. An interposition that is not
 * mated within R-1 must be futile (a real defence would make the node last
 * longer); one mated within R-3 is no longest defence, futile or not (0). Only
 * when the longest of them lasts exactly R-1 is the rule's question asked.
 * 1 futile, 0 not, -1 stopped.
 */
static int pv_interpose_futile_at(Solver *s, const Position *pos, Color att, const MoveList *ml, Move m, int R) {
  Square sq = move_to(m);
  bool exact_r1 = false;
  /* the common case first: the capture leaves a position mated soon */
  int err0 = 0;
  if (R >= 0 && pv_futile_within(s, pos, att, m, R + 1, &err0)) return 1;
  if (err0) return -1;
  for (int i = 0; i < ml->size; i++) {
    Move d = ml->moves[i];
    if (move_is_drop(m) ? (!move_is_drop(d) || move_to(d) != sq) : move_compact(d) != move_compact(m)) continue;
    int k = after_mate_within(s, pos, d, att, R - 1);
    if (k < 0) return -1;
    if (k == 0) return 1;
    if (R - 3 < 0) {
      exact_r1 = true;
      continue;
    }
    k = after_mate_within(s, pos, d, att, R - 3);
    if (k < 0) return -1;
    if (k == 0) exact_r1 = true;
  }
  if (!exact_r1) return 0;
  int err = 0;
  bool f = pv_futile_exact(s, pos, att, m, R, &err);
  return err ? -1 : f;
}

/* Is the interposition m futile at the AND node pos, answers kept in *fm: with
 * r_exact, R is the node's exact value and pv_interpose_futile_at's shortcuts
 * hold; else the rule's own question (pv_futile_exact), R only ordering its
 * bounded first try. 1, 0, -1 stopped. */
static int pv_interpose_futile_memo(Solver *s, const Position *pos, Color att, const MoveList *ml, Move m, int R,
                                    bool r_exact, FutileMemo *fm) {
  int f = futile_memo_get(fm, m);
  if (f >= 0) return f;
  if (r_exact) {
    f = pv_interpose_futile_at(s, pos, att, ml, m, R);
  } else {
    int err = 0;
    f = pv_futile_exact(s, pos, att, m, R, &err);
    if (err) f = -1;
  }
  if (f >= 0) futile_memo_put(fm, m, f);
  return f;
}

/* The nodes a main line may spend on the futility of one interposition square: at most
 * this, and an eighth of what its search has left. */
#define LINE_FUTILE_NODES 200000

/* pv_interpose_futile_memo for the main line of an AND node of exact value R, where an
 * answer the budget leaves open counts as futile: such a drop is then a main-line move only
 * when no real defence lasts R-1 plies and it does, and it is one whatever the answer (a
 * real longest defence, or the futile one that lasts as long: line_build_from). Were it
 * real beside a real defence of R-1 plies, the line's defence ties with it. 1, 0, -1 stopped. */
static int line_interpose_futile(Solver *s, const Position *pos, Color att, const MoveList *ml, Move m, int R,
                                 FutileMemo *fm) {
  uint64_t lim = s->node_limit, left = lim > s->nodes ? (lim - s->nodes) / 8 : 0;
  uint64_t cap = s->nodes + (lim && left < LINE_FUTILE_NODES ? left : LINE_FUTILE_NODES);
  if (!lim || cap < lim) s->node_limit = cap;
  int f = pv_interpose_futile_memo(s, pos, att, ml, m, R, true, fm);
  s->node_limit = lim;
  if (f < 0 && s->stopped && s->stop_reason && !strcmp(s->stop_reason, "nodes") && (!lim || s->nodes < lim)) {
    s->stopped = false;
    s->stop_reason = NULL;
    futile_memo_put(fm, m, true);
    f = 1;
  }
  return f;
}

static int line_build_from(Solver *s, const Position *root, Color att, int R, Move *out, int cap, bool *grew);
/* line_build_from with root an attacker node */
static int line_build(Solver *s, const Position *root, int R, Move *out, int cap, bool *grew) {
  return line_build_from(s, root, root->side, R, out, cap, grew);
}

/* Up to this length an attacker node tries its other mating checks when the line
 * below the first one grows (a 無駄合 gap), so the line takes a check without one. */
#define PV_BACKTRACK 32

/* line_build at an attacker node (pos, checks ml, exact length R > 1): the first
 * check whose line keeps the length, else the check with the shortest grown line. */
static int line_build_or(Solver *s, const Position *pos, int R, const MoveList *ml, Move *out, int cap, bool *grew) {
  if (cap < 1) return -1;
  Move *sub = malloc((size_t)cap * sizeof *sub);
  if (!sub) return -1;
  int best = -1;
  for (int i = 0; i < ml->size; i++) {
    Position c = *pos;
    Undo u;
    pos_do_move(&c, ml->moves[i], &u);
    int k = pv_mate_within(s, &c, pos->side, R - 1, NULL);
    if (k < 0) break;
    if (k == 0) continue;
    bool g = false;
    int sn = line_build_from(s, &c, pos->side, R - 1, sub, cap - 1, &g);
    if (s->stopped) break;
    if (sn < 0 || (g && best >= 0 && sn >= best)) continue;
    out[0] = ml->moves[i];
    memcpy(out + 1, sub, (size_t)sn * sizeof *sub);
    best = sn;
    if (!g) {
      free(sub);
      return sn + 1;
    }
  }
  free(sub);
  if (s->stopped || best < 0) return -1;
  *grew = true;
  return best + 1;
}

/* Builds the main line of pos (exact length R) into out; returns its length or -1.
 * *grew is set when a node had no defence of the bound's length under the 無駄合
 * rule (see pv_longest_defence): the line is then longer than R. */
static int line_build_from(Solver *s, const Position *root, Color att, int R, Move *out, int cap, bool *grew) {
  Position pos = *root;
  int n = 0;
  MoveList ml;
  for (;;) {
    if (s->stopped || n >= cap) return -1;
    if (pos.side == att) {
      if (R < 1) return -1;
      movegen_checks(&pos, &ml);
      if (R > 1 && R <= PV_BACKTRACK) {
        int k = line_build_or(s, &pos, R, &ml, out + n, cap - n, grew);
        return k < 0 ? -1 : n + k;
      }
      Move chosen = MOVE_NONE;
      for (int i = 0; i < ml.size; i++) {
        Position c = pos;
        Undo u;
        pos_do_move(&c, ml.moves[i], &u);
        int k = pv_mate_within(s, &c, att, R - 1, NULL);
        if (k < 0) return -1;
        if (k == 1) {
          if (R > 1 || hand_empty(c.hand[att])) {
            chosen = ml.moves[i];
            break;
          }
          if (chosen == MOVE_NONE) chosen = ml.moves[i];
        }
      }
      if (chosen == MOVE_NONE) return -1;
      Undo u;
      pos_do_move(&pos, chosen, &u);
      out[n++] = chosen;
      R--;
      continue;
    }
    /* AND node */
    movegen_evasions(&pos, &ml);
    if (ml.size == 0) return n;
    Bitboard fut = s->opt.futile_rule ? search_distant_check(&pos) : 0;
    Move cand[MAX_MOVES], futm[MAX_MOVES];
    int nc = 0, nf = 0;
    FutileMemo fm = {0, 0};
    for (int i = 0; i < ml.size; i++) {
      Move m = ml.moves[i];
      if (bb_test(fut, move_to(m))) {
        int f = line_interpose_futile(s, &pos, att, &ml, m, R, &fm);
        if (f < 0) return -1;
        if (f) {
          futm[nf++] = m;
          continue;
        }
      }
      cand[nc++] = m;
    }
    if (nc == 0) {
      /* Only futile interpositions. At R = 0 that is mate. At R > 0 a drop can be futile
       * at R and still last R-1 plies itself (the capture that makes it futile
       * is answered and the mate takes as long): those drops are the defences. */
      if (R < 2) return n;
      for (int i = 0; i < ml.size; i++) {
        int k = after_mate_within(s, &pos, ml.moves[i], att, R - 1);
        if (k < 0) return -1;
        if (k == 1) cand[nc++] = ml.moves[i];
      }
      if (nc == 0) {
        /* every drop is futile at R and lasts longer than R: the gap described below */
        int rc = 0;
        Move m = pv_longest_defence(s, &pos, att, &ml, R, &rc);
        if (m == MOVE_NONE) return -1;
        *grew = true;
        Undo u;
        pos_do_move(&pos, m, &u);
        out[n++] = m;
        R = rc;
        continue;
      }
    }
    if (R < 2) return -1;
    const int R0 = R;
    for (;;) {
      Move longest[MAX_MOVES];
      int nl = 0;
      for (int i = 0; i < nc; i++) {
        int k = R - 3 >= 1 ? after_mate_within(s, &pos, cand[i], att, R - 3) : 0;
        if (k < 0) return -1;
        if (k == 0) longest[nl++] = cand[i];
      }
      if (nl == 0 && R == R0) {
        /* No real defence lasts R-1 plies (the drops, futile at R, are real at
         * R-2 and make the node last R): a futile interposition that itself lasts R-1
         * plies is the longest defence, as in the enumerator's main line. */
        for (int i = 0; i < nf; i++) {
          int k = after_mate_within(s, &pos, futm[i], att, R - 1);
          if (k < 0) return -1;
          if (k == 0) continue;
          k = R - 3 >= 1 ? after_mate_within(s, &pos, futm[i], att, R - 3) : 0;
          if (k < 0) return -1;
          if (k == 0) longest[nl++] = futm[i];
        }
      }
      if (nl == 0) {
        /* No defence lasts R plies though the node is mated within R and not within
         * a drop futile at R (its capture-and-hand-back position is mated within
         * R) is not futile at R-2, where it lasts longer, and every other defence is
         * shorter. The rule's bound has no main line here; the line goes on with the
         * longest defence of all, drops counted as defences, and grows beyond R. */
        int rc = 0;
        Move m = pv_longest_defence(s, &pos, att, &ml, R, &rc);
        if (m == MOVE_NONE) return -1;
        *grew = true;
        longest[nl++] = m;
        R = rc + 1;
      }
      Move chosen = longest[0];
      if (nl > 1 && s->tie_budget > 0) {
        /* 駒余り tie-break: prefer a defence whose line ends with the attacker's hand empty */
        Move *sub = malloc((size_t)R * sizeof *sub);
        if (sub) {
          for (int i = 0; i < nl && s->tie_budget > 0; i++) {
            s->tie_budget--;
            Position c = pos;
            Undo u;
            pos_do_move(&c, longest[i], &u);
            bool sub_grew = false;
            int k = line_build(s, &c, R - 1, sub, R, &sub_grew);
            if (sub_grew) continue; /* not a line of R-1 plies */
            if (k < 0) break;
            Position e = c;
            for (int j = 0; j < k; j++) {
              Undo uu;
              pos_do_move(&e, sub[j], &uu);
            }
            if (hand_empty(e.hand[att])) {
              chosen = longest[i];
              break;
            }
          }
          free(sub);
        }
        if (s->stopped) return -1;
      }
      Undo u;
      pos_do_move(&pos, chosen, &u);
      out[n++] = chosen;
      R--;
      break;
    }
  }
}

/* Probe of the table for the position p (s->salt set for the attacker). */
static void probe_pos(Solver *s, const Position *p, int futsq, TTProbe *out) {
  uint64_t keep = s->bh;
  s->bh = search_board_hash(s, p);
  uint64_t key = search_key(s, futsq);
  s->bh = keep;
  tt_probe(&s->tt, key, p->hand[s->attacker], TT_LEN_INF, out);
}

/* A line read from the proofs in the table only (no search): shortest proven
 * check at OR nodes, longest proven defence at AND nodes. -1 when a proof is missing. */
static int line_follow_table(Solver *s, const Position *root, int U, Move *out, int cap) {
  Position pos = *root;
  Color att = root->side;
  s->pos = *root;
  search_begin(s, att, s->opt.futile_rule);
  int n = 0;
  MoveList ml;
  while (n < cap && n <= U + 64) {
    if (pos.side == att) {
      movegen_checks(&pos, &ml);
      Move best = MOVE_NONE;
      int bl = 0;
      for (int i = 0; i < ml.size; i++) {
        Position c = pos;
        Undo u;
        pos_do_move(&c, ml.moves[i], &u);
        TTProbe p;
        probe_pos(s, &c, -1, &p);
        int l = p.pn == 0 ? p.len : (pos_is_mate(&c) ? 0 : -1);
        if (l >= 0 && (best == MOVE_NONE || l < bl)) best = ml.moves[i], bl = l;
      }
      if (best == MOVE_NONE) return -1;
      Undo u;
      pos_do_move(&pos, best, &u);
      out[n++] = best;
    } else {
      movegen_evasions(&pos, &ml);
      if (ml.size == 0) return n;
      Bitboard fut = search_distant_check(&pos);
      Move best = MOVE_NONE;
      int bl = -1;
      for (int i = 0; i < ml.size; i++) {
        Position c = pos;
        Undo u;
        pos_do_move(&c, ml.moves[i], &u);
        TTProbe p;
        probe_pos(s, &c, -1, &p);
        if (p.pn != 0) {
          /* a futile interposition proven through its capture-and-hand-back position is no defence */
          if (bb_test(fut, move_to(ml.moves[i]))) {
            probe_pos(s, &c, move_to(ml.moves[i]), &p);
            if (p.pn == 0) continue;
          }
          return -1;
        }
        if (p.len > bl) best = ml.moves[i], bl = p.len;
      }
      if (best == MOVE_NONE) return n;
      Undo u;
      pos_do_move(&pos, best, &u);
      out[n++] = best;
    }
  }
  return -1;
}

static bool mated_modulo_futile(const Position *pos, Color att, bool futile, int depth);

/*
 * Local shortcuts of a long line before the backward induction. The first
 * proof often reaches a later position of its own line by a roundabout order
 * of moves (a detour of a few plies, each costing the problem 4 plies or so).
 * At each attacker node j a small AND/OR search of `depth` plies bounds the
 * plies to mate: a position of the line at ply k counts n - k, a proven table
 * entry its proof length, anything else nothing. When the bound is below the
 * n - j plies left, the line is rewritten through the shortcut.
 */
#define SC_SLOTS (1u << 14)

typedef struct {
  const Position *ps; /* line positions, ps[0..n] */
  int n;
  int slot[SC_SLOTS]; /* index into ps by hash, -1 empty */
} LineIndex;

static uint64_t sc_hash(const Position *p) { return p->board_key ^ (p->hand_key * 0x9e3779b97f4a7c15ULL); }

static void sc_index(LineIndex *li, const Position *ps, int n) {
  li->ps = ps;
  li->n = n;
  for (unsigned i = 0; i < SC_SLOTS; i++) li->slot[i] = -1;
  for (int k = 0; k <= n; k++) {
    unsigned h = (unsigned)sc_hash(&ps[k]) & (SC_SLOTS - 1);
    while (li->slot[h] >= 0) h = (h + 1) & (SC_SLOTS - 1);
    li->slot[h] = k;
  }
}

/* The last ply at which p stands on the line, or -1. */
static int sc_find(const LineIndex *li, const Position *p) {
  int best = -1;
  for (unsigned h = (unsigned)sc_hash(p) & (SC_SLOTS - 1); li->slot[h] >= 0; h = (h + 1) & (SC_SLOTS - 1)) {
    int k = li->slot[h];
    if (k > best && pos_equal(&li->ps[k], p)) best = k;
  }
  return best;
}

/* Upper bound of the plies to mate from pos within the local search; *best the move. */
static int sc_bound(Solver *s, const LineIndex *li, const Position *pos, int depth, Move *best) {
  *best = MOVE_NONE;
  int k = sc_find(li, pos);
  int v = k >= 0 ? li->n - k : TT_LEN_INF;
  TTProbe p;
  probe_pos(s, pos, -1, &p);
  if (p.pn == 0 && p.len < v) v = p.len;
  if (depth == 0) return v;
  bool att = pos->side == s->attacker;
  MoveList ml;
  if (att)
    movegen_checks(pos, &ml);
  else
    movegen_evasions(pos, &ml);
  if (!att && ml.size == 0) return 0;
  int agg = att ? TT_LEN_INF : 0;
  Move am = MOVE_NONE;
  for (int i = 0; i < ml.size; i++) {
    Position c = *pos;
    Undo u;
    pos_do_move(&c, ml.moves[i], &u);
    Move dummy;
    int cv = sc_bound(s, li, &c, depth - 1, &dummy);
    if (cv >= TT_LEN_INF) {
      if (att) continue;
      agg = TT_LEN_INF; /* a defence without a bound: none here */
      break;
    }
    cv += 1;
    if (att ? cv < agg : cv > agg) agg = cv, am = ml.moves[i];
  }
  if (agg < v) {
    v = agg;
    *best = am;
  }
  return v;
}

static int line_shortcuts(Solver *s, const Position *root, Move *line, int n, int cap, int depth) {
  Color att = root->side;
  if (n + 1 > (int)(SC_SLOTS / 2)) return n; /* the index holds half its slots at most */
  Position *ps = malloc((size_t)(cap + 1) * sizeof *ps);
  LineIndex *li = malloc(sizeof *li);
  Move *tmp = malloc((size_t)cap * sizeof *tmp);
  if (!ps || !li || !tmp) {
    free(ps);
    free(li);
    free(tmp);
    return n;
  }
  s->pos = *root;
  search_begin(s, att, s->opt.futile_rule);
  for (bool again = true; again && !s->stopped;) {
    again = false;
    ps[0] = *root;
    for (int j = 0; j < n; j++) {
      Undo u;
      ps[j + 1] = ps[j];
      pos_do_move(&ps[j + 1], line[j], &u);
    }
    sc_index(li, ps, n);
    for (int j = 0; j + 4 < n; j++) {
      if (ps[j].side != att) continue;
      Move m;
      int v = sc_bound(s, li, &ps[j], depth, &m);
      if (v >= n - j || m == MOVE_NONE) continue;
      /* follow the shortcut: the bound's moves (longest bounded defence) until the line or a proof */
      Position q = ps[j];
      int t = 0, k = -1;
      while (t < cap - j) {
        Move mv;
        int d = depth - t < 0 ? 0 : depth - t;
        sc_bound(s, li, &q, d, &mv);
        if (mv == MOVE_NONE) break;
        /* an interposition against a distant check may be futile: such a shortcut is left alone */
        if (q.side != att && bb_test(search_distant_check(&q), move_to(mv))) {
          t = -1;
          break;
        }
        tmp[t++] = mv;
        Undo u;
        pos_do_move(&q, mv, &u);
        k = sc_find(li, &q);
        if (k > j + t) break;
        k = -1;
      }
      if (t < 0) continue;
      int tail;
      if (k > 0) {
        tail = n - k;
        if (t + tail > cap - j) continue;
        memcpy(tmp + t, line + k, (size_t)tail * sizeof *tmp);
      } else {
        /* from the attacker's side only: the table is keyed for that attacker */
        if (q.side != att) continue;
        tail = line_follow_table(s, &q, n, tmp + t, cap - j - t);
        if (tail < 0) continue;
      }
      if (t + tail >= n - j || !solver_line_verify(&ps[j], tmp, t + tail, s->opt.futile_rule, NULL)) continue;
      memcpy(line + j, tmp, (size_t)(t + tail) * sizeof *tmp);
      if (s->opt.trace)
        fprintf(s->opt.trace, "shortcut at ply %d: %d plies instead of %d\n", j, t + tail, n - j);
      n = j + t + tail;
      again = true;
      break;
    }
  }
  free(ps);
  free(li);
  free(tmp);
  return n;
}

/*
 * Exact value by backward induction along a mating line (long problems, where a
 * root-level "mate within U-2?" disproof is out of reach). From the end:
 *   OR node:  no mate within V-2 (else a shorter line from the table is made exact
 *             recursively and replaces the rest of the line);
 *   AND node: the line move is not a futile interposition, and every other defence that is
 *             not a futile interposition is mated within V-1 (else that longer defence and its
 *             own exact line replace the rest).
 * Each answer reuses the table left by the answers below it, so only the
 * alternatives at each node cost a search. line[0..*n) is rewritten in place
 * (capacity cap), *n updated even when stopped; returns the exact length, or -1
 * (stopped, or a case not handled).
 */
static int line_exact_backward(Solver *s, const Position *root, Move *line, int *n, int cap, int depth) {
  Color att = root->side;
  int len = *n;
  if (depth > 64 || len < 0) return -1;
  Position *ps = malloc((size_t)(len + 1) * sizeof *ps);
  if (!ps) return -1;
  ps[0] = *root;
  for (int j = 0; j < len; j++) {
    Undo u;
    ps[j + 1] = ps[j];
    pos_do_move(&ps[j + 1], line[j], &u);
  }
  int V = -1;
  if (len % 2 == 1 && mated_modulo_futile(&ps[len], att, s->opt.futile_rule, 0)) V = 0;
  uint64_t last_trace = solver_now_ms();
  for (int j = len - 1; j >= 0 && V >= 0; j--) {
    Position *p = &ps[j];
    int Vj = V + 1;
    if (s->opt.trace && solver_now_ms() - last_trace >= 2000) {
      last_trace = solver_now_ms();
      fprintf(s->opt.trace, "exact length: depth %d, ply %d of %d, value %d, nodes %llu, %.1f s\n", depth, j, len, V,
              (unsigned long long)s->nodes, (last_trace - s->start_ms) / 1000.0);
      fflush(s->opt.trace);
    }
    if (s->stopped) {
      V = -1;
      break;
    }
    if (p->side == att) {
      int m = 0;
      int k = Vj - 2 >= 1 ? pv_mate_within(s, p, att, Vj - 2, &m) : 0;
      if (k < 0) {
        V = -1;
        break;
      }
      if (k == 1) {
        int sn = line_follow_table(s, p, m, line + j, cap - j);
        int sv = sn < 0 ? -1 : line_exact_backward(s, p, line + j, &sn, cap - j, depth + 1);
        if (sn >= 0) len = j + sn; /* line + j was rewritten */
        if (sv < 0) {
          V = -1;
          break;
        }
        len = j + sn;
        Vj = sv;
      }
    } else {
      Bitboard fut = s->opt.futile_rule ? search_distant_check(p) : 0;
      FutileMemo fm = {0, 0};
      MoveList ev;
      movegen_evasions(p, &ev);
      /* Vj is what this node is worth if no other defence lasts longer: not yet
       * its exact value, so futility is asked by the rule itself, and only of an
       * interposition that would otherwise be such a longer defence. */
      if (bb_test(fut, move_to(line[j]))) {
        int f = pv_interpose_futile_memo(s, p, att, &ev, line[j], Vj, false, &fm);
        if (f != 0) {
          V = -1; /* the line defends with a futile interposition (or stopped): not handled here */
          break;
        }
      }
      for (int i = 0; i < ev.size && V >= 0; i++) {
        Move e = ev.moves[i];
        if (move_compact(e) == move_compact(line[j])) continue;
        Position c = *p;
        Undo u;
        pos_do_move(&c, e, &u);
        int k = pv_mate_within(s, &c, att, Vj - 1, NULL);
        if (k < 0) {
          V = -1;
          break;
        }
        if (k == 0 && bb_test(fut, move_to(e))) {
          int f = pv_interpose_futile_memo(s, p, att, &ev, e, Vj, false, &fm);
          if (f < 0) {
            V = -1;
            break;
          }
          if (f) continue;
        }
        if (k == 0) {
          /* a longer defence: its own exact line replaces the rest */
          int m = 0;
          if (pv_mate_within(s, &c, att, TT_LEN_INF - 2, &m) != 1 || j + 1 >= cap) {
            V = -1;
            break;
          }
          line[j] = e;
          int sn = line_follow_table(s, &c, m, line + j + 1, cap - j - 1);
          int sv = sn < 0 ? -1 : line_exact_backward(s, &c, line + j + 1, &sn, cap - j - 1, depth + 1);
          if (sn >= 0) len = j + 1 + sn;
          if (sv < 0 || sv + 1 <= Vj) {
            V = -1;
            break;
          }
          len = j + 1 + sn;
          Vj = sv + 1;
        }
      }
      if (V < 0) break;
    }
    V = Vj;
    /* the last plies, now of known exact value, become the main line with its
     * tie-breaks (駒余り) once: the rest of the induction only looks before j */
    if (depth == 0 && p->side == att && Vj == len - j && len - j >= PV_TAIL && len - j < PV_TAIL + 2) {
      Move *tail = malloc((size_t)(Vj + 8) * sizeof *tail);
      s->tie_budget = 64;
      bool grew = false;
      int tn = tail ? line_build(s, p, Vj, tail, Vj + 8, &grew) : -1;
      if (tn == Vj && !grew && j + tn <= cap && solver_line_verify(p, tail, tn, s->opt.futile_rule, NULL))
        memcpy(line + j, tail, (size_t)tn * sizeof *tail);
      free(tail);
    }
  }
  free(ps);
  *n = len; /* also when stopped: the line as far as it was rewritten */
  return V;
}

void pv_known_update(Solver *s, const Position *root, int U) {
  int cap = U + 72;
  if (s->known_cap < cap) {
    Move *p = realloc(s->known, (size_t)cap * sizeof *p);
    if (!p) return;
    s->known = p;
    s->known_cap = cap;
  }
  Move *line = malloc((size_t)cap * sizeof *line);
  if (!line) return;
  int n = line_follow_table(s, root, U, line, cap);
  if (n > 0 && (s->known_n == 0 || n < s->known_n) && solver_line_verify(root, line, n, s->opt.futile_rule, NULL)) {
    memcpy(s->known, line, (size_t)n * sizeof *line);
    s->known_n = n;
  }
  free(line);
}

void pv_solve(Solver *s, const Position *root, int upper, SolveResult *r) {
  int U = upper;
  if (s->opt.progress) pv_known_update(s, root, U);
  bool exact = false;
  Move *best = NULL; /* long problems: the checked line reached when the proof is cut short */
  int bestn = 0;
  if (s->opt.prove_exact && U > PV_LONG) {
    /* long problem: exact value by backward induction along the first line */
    int cap = 2 * U + 4096;
    if (s->pv_cap < cap) {
      Move *p = realloc(s->pv, (size_t)cap * sizeof *p);
      if (!p) return;
      s->pv = p;
      s->pv_cap = cap;
    }
    int n = line_follow_table(s, root, U, s->pv, s->pv_cap);
    if (n > 0) n = line_shortcuts(s, root, s->pv, n, s->pv_cap, 4);
    if (s->opt.trace && n > 0) fprintf(s->opt.trace, "shortcuts: a line of %d plies\n", n);
    int v = n < 0 ? -1 : line_exact_backward(s, root, s->pv, &n, s->pv_cap, 0);
    if (v >= 0 && v == n && solver_line_verify(root, s->pv, n, s->opt.futile_rule, NULL)) {
      Position e = *root;
      for (int i = 0; i < n; i++) {
        Undo u;
        pos_do_move(&e, s->pv[i], &u);
      }
      r->status = SOLVE_MATE;
      r->length = n;
      r->exact = true;
      r->pv = s->pv;
      r->pv_len = n;
      r->komaamari = !hand_empty(e.hand[root->side]);
      return;
    }
    /* not settled: keep the line as far as it got, when it is a checked mate */
    if (n > 0 && solver_line_verify(root, s->pv, n, s->opt.futile_rule, NULL) &&
        (best = malloc((size_t)n * sizeof *best)) != NULL) {
      memcpy(best, s->pv, (size_t)n * sizeof *best);
      bestn = n;
    }
    /* and fall through to the general way (a limit stops it soon) */
  }
  if (s->opt.prove_exact) {
    for (;;) {
      if (U - 2 < 1) {
        exact = true;
        break;
      }
      int m = 0;
      int k = pv_mate_within(s, root, root->side, U - 2, &m);
      if (k == 1) {
        U = m < U - 2 ? m : U - 2;
        if (s->opt.progress) pv_known_update(s, root, U);
        continue;
      }
      if (k == 0) exact = true;
      break;
    }
  }
  r->status = SOLVE_MATE;
  r->length = U;
  r->exact = exact;
  r->pv_len = 0;
  r->komaamari = false;
  if (!exact && !r->stop_reason) r->stop_reason = s->stop_reason;
  /* a line that grows past the rule's bound (line_build) gains at most 2 plies per defence */
  if (s->pv_cap < 2 * U + 8) {
    Move *p = realloc(s->pv, (size_t)(2 * U + 8) * sizeof *p);
    if (!p) {
      free(best);
      return;
    }
    s->pv = p;
    s->pv_cap = 2 * U + 8;
  }
  int n = -1;
  bool grew = false;
  if (!s->stopped && s->opt.prove_exact) {
    s->tie_budget = 64;
    n = line_build(s, root, U, s->pv, s->pv_cap, &grew);
  }
  if (n < 0) {
    /* a limit stopped the search: follow the proofs left in the table instead */
    n = line_follow_table(s, root, U, s->pv, s->pv_cap);
    r->exact = false;
    if (!r->stop_reason && s->opt.prove_exact) r->stop_reason = s->stop_reason ? s->stop_reason : "line";
  } else if (grew) {
    /* Mated within U under the 無駄合 rule, but no line of U plies: the answer is
     * the longest-defence line, longer than U, and says why it is not exact. */
    r->exact = false;
    r->length = n;
    r->futile_bound = U;
    r->stop_reason = "futile";
  }
  /* a checked line, not a main line: only when the answer is not exact anyway */
  if (best && !r->exact && !grew && (n < 0 || bestn < n) && bestn <= s->pv_cap) {
    memcpy(s->pv, best, (size_t)bestn * sizeof *best);
    n = bestn;
  }
  free(best);
  if (n < 0) return;
  int bad = 0;
  if (!solver_line_verify(root, s->pv, n, s->opt.futile_rule, &bad)) {
    if (r->exact) r->stop_reason = "line";
    r->exact = false;
    return;
  }
  Position e = *root;
  for (int i = 0; i < n; i++) {
    Undo u;
    pos_do_move(&e, s->pv[i], &u);
  }
  r->pv = s->pv;
  r->pv_len = n;
  r->komaamari = !hand_empty(e.hand[root->side]);
  /* A line read from the table (limits, or no exactness asked) is a checked mate
   * but not necessarily the main line: its length may differ from the bound U. */
  if (n != r->length && r->exact) {
    r->exact = false;
    r->stop_reason = "line";
  }
}

/* ---------------------------------------------------------------- verification */

typedef struct {
  Color att;
  int depth;
} MatedCtx;

static bool mated_after_capture(const Position *after, void *vctx) {
  const MatedCtx *c = vctx;
  return mated_modulo_futile(after, c->att, true, c->depth + 1);
}

/* Defender to move: mate, or (futile) every reply is a futile interposition
 * whose capture leaves a position that is itself mate in this sense. */
static bool mated_modulo_futile(const Position *pos, Color att, bool futile, int depth) {
  if (!pos->checkers) return false;
  MoveList ev;
  movegen_evasions(pos, &ev);
  if (ev.size == 0) return true;
  if (!futile || depth > 8) return false;
  Bitboard between = search_distant_check(pos);
  if (!between) return false;
  FutileMemo fm = {0, 0}; /* every answer kept is "futile": the first other one ends the loop */
  MatedCtx ctx = {att, depth};
  for (int i = 0; i < ev.size; i++) {
    Move d = ev.moves[i];
    if (!bb_test(between, move_to(d))) return false;
    if (futile_memo_get(&fm, d) > 0) continue;
    if (!solver_futile_any(pos, d, NULL, mated_after_capture, &ctx)) return false;
    futile_memo_put(&fm, d, true);
  }
  return true;
}

bool solver_line_verify(const Position *pos, const Move *line, int n, bool futile_rule, int *bad_ply) {
  Position p = *pos;
  Color att = p.side;
  MoveList ml;
  for (int i = 0; i < n; i++) {
    movegen_legal(&p, &ml);
    Move m = MOVE_NONE;
    for (int j = 0; j < ml.size; j++)
      if (move_compact(ml.moves[j]) == move_compact(line[i])) m = ml.moves[j];
    if (m == MOVE_NONE || (p.side == att && !pos_gives_check(&p, m))) {
      if (bad_ply) *bad_ply = i;
      return false;
    }
    Undo u;
    pos_do_move(&p, m, &u);
  }
  if (!solver_mated(&p, att, futile_rule)) {
    if (bad_ply) *bad_ply = n;
    return false;
  }
  return true;
}

bool solver_mated(const Position *pos, Color attacker, bool futile_rule) {
  return pos->side != attacker && mated_modulo_futile(pos, attacker, futile_rule, 0);
}

int solver_line_from(Solver *s, const Position *pos, Color attacker, int plies, Move *out, int cap) {
  search_call_reset(s);
  s->tie_budget = 64;
  bool grew = false;
  if (plies == 0) return 0;
  int n = line_build_from(s, pos, attacker, plies, out, cap, &grew);
  if (n < 0 || s->stopped) return -1;
  return n;
}
