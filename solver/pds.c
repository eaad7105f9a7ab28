/*
 * pds.c - PDS (Nagai 1998) and the multi-path simultaneous search of the multi-path paper
 * (Takano et al.), both on the df-pn engine of dfpn.c and its table.
 *
 * PDS: both numbers are thresholds and every node deepens them itself (multiple
 * iterative deepening): the chosen child is asked to raise its number by one
 * step only (pn + 1 at OR nodes, dn + 1 at AND nodes), where df-pn lets it work
 * up to the second-best child's number. OR nodes expand the least pn child,
 * AND nodes the least dn child, and the table keeps every node's numbers.
 *
 * Multi-path: pseudo-threads share the table. Thread 0, the leader, runs PDS
 * from the root. Each other thread is attached to an OR node on the leader's
 * current path (the root, then every second ply below it) and searches, by
 * PDS, the children of that node from the largest proof number down (the
 * leader takes the smallest). Turns are round-robin; a turn ends when its
 * budget (expanded nodes + table probes x weight) is spent, the budget being
 * eq. (3) of the seed, sum_j (pn_j + dn_j) / (pn_i + dn_i) x base (or eq. (2)
 * with pn only), times the leader priority for the leader. When a thread
 * proves its node the next turn goes to the leader at once. A stopped turn
 * leaves its work in the table, so the next turn of that thread resumes it.
 */
#include <string.h>

#include "movegen.h"
#include "search.h"

SearchResult search_pds(Solver *s, int len) {
  s->pds_mode = 1;
  SearchResult r = search_solve(s, len);
  s->pds_mode = 0;
  return r;
}

/* ---------------------------------------------------------------- multi-path */

#define MP_MAX_THREADS 8
#define MP_PATH_MAX 64

typedef struct {
  Move path[MP_PATH_MAX]; /* from the root to the node searched by this thread */
  int n;
  int anchor;             /* slaves: length of the path to the OR node they are attached to */
  uint32_t pn, dn;        /* of the node searched, for the budgets */
  bool active;
  Move done[MAX_MOVES];   /* children of the anchor this thread has finished (a disproof that
                           * depends on the path is not in the table) */
  int ndone;
} PseudoThread;

/* The leader's current path: least pn at OR nodes, least dn at AND nodes.
 * *fpn, *fdn: the numbers of the node at its end (where the leader works). */
static int principal_path(Solver *s, Move *path, int max, int len, uint32_t *fpn, uint32_t *fdn) {
  Position keep = s->pos;
  int n = 0;
  MoveList ml;
  Color att = s->attacker;
  while (n < max) {
    Position *pos = &s->pos;
    bool or_node = pos->side == att;
    if (or_node)
      movegen_checks(pos, &ml);
    else
      movegen_evasions(pos, &ml);
    Move best = MOVE_NONE;
    uint32_t bv = PN_INF, bpn = 1, bdn = 1;
    for (int i = 0; i < ml.size; i++) {
      Undo u;
      pos_do_move(pos, ml.moves[i], &u);
      TTProbe p;
      search_probe_pos(s, len, &p);
      pos_undo_move(pos, ml.moves[i], &u);
      uint32_t v = or_node ? p.pn : p.dn;
      if (v == 0) {
        best = MOVE_NONE; /* solved below: the path ends here */
        break;
      }
      if (v < bv) bv = v, best = ml.moves[i], bpn = p.pn, bdn = p.dn;
    }
    if (best == MOVE_NONE || bv >= PN_INF) break;
    *fpn = bpn;
    *fdn = bdn;
    Undo u;
    pos_do_move(&s->pos, best, &u);
    path[n++] = best;
  }
  s->pos = keep;
  return n;
}

/* For a slave attached at path[0..anchor): the child of that OR node with the
 * largest pn that is still open and is not the leader's move. */
static bool slave_pick(Solver *s, PseudoThread *t, const Move *leader_path, int leader_n, int len) {
  Position keep = s->pos;
  Undo u[MP_PATH_MAX];
  for (int i = 0; i < t->anchor; i++) pos_do_move(&s->pos, t->path[i], &u[i]);
  MoveList ml;
  movegen_checks(&s->pos, &ml);
  Move leader_move = leader_n > t->anchor ? leader_path[t->anchor] : MOVE_NONE;
  Move best = MOVE_NONE;
  uint32_t bpn = 0, bdn = 0;
  for (int i = 0; i < ml.size; i++) {
    if (ml.moves[i] == leader_move) continue;
    bool done = false;
    for (int k = 0; k < t->ndone && !done; k++) done = t->done[k] == ml.moves[i];
    if (done) continue;
    Undo uu;
    pos_do_move(&s->pos, ml.moves[i], &uu);
    TTProbe p;
    search_probe_pos(s, len, &p);
    pos_undo_move(&s->pos, ml.moves[i], &uu);
    if (p.pn == 0 || p.dn == 0) continue;
    if (best == MOVE_NONE || p.pn > bpn) best = ml.moves[i], bpn = p.pn, bdn = p.dn;
  }
  s->pos = keep;
  if (best == MOVE_NONE) return false;
  t->path[t->anchor] = best;
  t->n = t->anchor + 1;
  t->pn = bpn;
  t->dn = bdn;
  return true;
}

SearchResult search_multipath(Solver *s, int len) {
  int nt = s->opt.mp_threads;
  if (nt < 1) nt = 1;
  if (nt > MP_MAX_THREADS) nt = MP_MAX_THREADS;
  PseudoThread th[MP_MAX_THREADS];
  memset(th, 0, sizeof th);
  th[0].active = true;
  s->pds_mode = 1;
  s->probe_w1024 = (uint32_t)(s->opt.mp_tt_weight * 1024.0);
  uint64_t base = s->opt.mp_base > 0 ? (uint64_t)s->opt.mp_base : 1000;
  Move lpath[MP_PATH_MAX];
  int ln = 0;
  SearchResult r = {1, 1, 0, 0, false, -1, false};
  int turn = 0;
  for (;;) {
    if (s->stopped) break;
    /* assignments follow the leader's path */
    if (turn == 0) {
      uint32_t fpn = 1, fdn = 1;
      ln = principal_path(s, lpath, MP_PATH_MAX - 1, len, &fpn, &fdn);
      for (int i = 1; i < nt; i++) {
        int anchor = 2 * (i - 1);
        PseudoThread *t = &th[i];
        bool same = t->active && t->anchor == anchor && anchor <= ln &&
                    memcmp(t->path, lpath, (size_t)anchor * sizeof(Move)) == 0;
        if (!same) {
          t->active = false;
          if (anchor > ln) continue;
          memcpy(t->path, lpath, (size_t)anchor * sizeof(Move));
          t->anchor = anchor;
          t->ndone = 0;
          t->active = slave_pick(s, t, lpath, ln, len);
        }
      }
      th[0].pn = fpn ? fpn : 1; /* the leader's own node: the end of its path (the multi-path paper §3.3.3) */
      th[0].dn = fdn ? fdn : 1;
    }
    PseudoThread *t = &th[turn];
    if (!t->active) {
      turn = (turn + 1) % nt;
      continue;
    }
    /* budget, eq. (2) / (3) */
    double sum = 0;
    for (int i = 0; i < nt; i++)
      if (th[i].active) sum += (double)th[i].pn + (s->opt.mp_use_dn ? (double)th[i].dn : 0.0);
    double mine = (double)t->pn + (s->opt.mp_use_dn ? (double)t->dn : 0.0);
    if (mine < 1) mine = 1;
    double budget = s->opt.mp_constant ? (double)base : sum / mine * (double)base;
    if (turn == 0) budget *= s->opt.mp_leader;
    if (budget < 16) budget = 16;
    if (budget > 64.0 * (double)base) budget = 64.0 * (double)base; /* one turn never monopolises */
    s->budget_hit = false;
    s->budget_stop = s->nodes + ((s->tt_probes * s->probe_w1024) >> 10) + (uint64_t)budget;
    bool proved_anchor = false;
    if (turn == 0) {
      r = search_at(s, NULL, 0, PN_INF - 1, PN_INF - 1, len);
      s->budget_stop = 0;
      if (r.pn == 0 || r.dn == 0) break;
    } else {
      for (;;) {
        SearchResult q = search_at(s, t->path, t->n, PN_INF - 1, PN_INF - 1, len);
        t->pn = q.pn;
        t->dn = q.dn;
        if (q.pn == 0) {
          proved_anchor = true; /* its OR node is proven: back to the leader */
          t->active = false;
          break;
        }
        if (q.dn == 0) {
          if (t->ndone < MAX_MOVES) t->done[t->ndone++] = t->path[t->anchor];
          if (!slave_pick(s, t, lpath, ln, len)) t->active = false;
        }
        if (s->budget_hit || s->stopped || !t->active) break;
      }
      s->budget_stop = 0;
    }
    s->budget_hit = false;
    turn = proved_anchor ? 0 : (turn + 1) % nt;
  }
  s->budget_stop = 0;
  s->budget_hit = false;
  s->pds_mode = 0;
  if (s->stopped && !(r.pn == 0 || r.dn == 0)) {
    TTProbe p;
    search_probe_pos(s, len, &p);
    r.pn = p.pn ? p.pn : 1;
    r.dn = p.dn ? p.dn : 1;
    if (p.pn == 0 || p.dn == 0) r = (SearchResult){p.pn, p.dn, p.len, p.hand, false, -1, p.hand_only};
  }
  return r;
}
