#include "solver.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "search.h"

void solver_options_default(SolverOptions *o) {
  memset(o, 0, sizeof *o);
  o->hash_mb = 64;
  o->algo = SOLVER_ALGO_DFPN;
  o->use_mate1 = true;
  o->futile_rule = true;
  o->futile_compare = true;
  o->prove_exact = true;
  /* the multi-path paper: two pseudo-threads with table probes weighted 0.05 gave its best
   * speed-up (fig. 5), base 1000 nodes (fig. 4), leader priority 1.25-1.5 (fig. 7) */
  o->mp_threads = 2;
  o->mp_base = 1000;
  o->mp_leader = 1.5;
  o->mp_tt_weight = 0.05;
  o->mp_use_dn = true;
  o->progress_ms = 1000;
}

static void solver_release(Solver *s) {
  tt_release(&s->tt);
  free(s->rep.key);
  free(s->rep.gen);
  free(s->rep.depth);
  free(s->rep.len);
  free(s->path_full);
  free(s->rep_filter);
  free(s->arena);
  free(s->pv);
  free(s->known);
  search_same_release(s);
}

Solver *solver_create(const SolverOptions *o) {
  Solver *s = calloc(1, sizeof *s);
  if (!s) return NULL;
  if (o)
    s->opt = *o;
  else
    solver_options_default(&s->opt);
  if (!s->opt.hash_mb) s->opt.hash_mb = 1;
  search_keys_init(s);
  uint64_t t0 = solver_now_ms();
  size_t rep_n = (size_t)1 << 18;
  s->rep.key = malloc(rep_n * sizeof *s->rep.key);
  s->rep.gen = calloc(rep_n, sizeof *s->rep.gen);
  s->rep.depth = malloc(rep_n * sizeof *s->rep.depth);
  s->rep.len = malloc(rep_n * sizeof *s->rep.len);
  s->rep.mask = rep_n - 1;
  s->rep.cur = 1;
  s->path_full = malloc(SOLVER_MAX_DEPTH * sizeof *s->path_full);
  s->rep_filter = calloc((size_t)1 << REP_BITS, sizeof *s->rep_filter);
  s->arena_cap = (size_t)1 << 16;
  s->arena = malloc(s->arena_cap * sizeof *s->arena);
  s->pv_cap = 1024;
  s->pv = malloc((size_t)s->pv_cap * sizeof *s->pv);
  if (!s->rep.key || !s->rep.gen || !s->rep.depth || !s->rep.len || !s->path_full || !s->rep_filter || !s->arena ||
      !s->pv || !tt_init(&s->tt, s->opt.hash_mb)) {
    solver_release(s);
    free(s);
    return NULL;
  }
  s->setup_ms = solver_now_ms() - t0;
  return s;
}

void solver_free(Solver *s) {
  if (!s) return;
  solver_release(s);
  free(s);
}

void solver_clear(Solver *s) {
  uint64_t t0 = solver_now_ms();
  tt_clear(&s->tt);
  search_same_clear(s); /* the 無駄合 rule's nested questions start afresh too */
  s->setup_ms += solver_now_ms() - t0;
}

int solver_set_options(Solver *s, const SolverOptions *o) {
  size_t mb = o->hash_mb ? o->hash_mb : 1;
  if (mb != s->opt.hash_mb) {
    uint64_t t0 = solver_now_ms();
    TT t;
    if (!tt_init(&t, mb)) return TS_ERR_NOMEM;
    tt_release(&s->tt);
    s->tt = t;
    s->setup_ms += solver_now_ms() - t0;
  }
  s->opt = *o;
  s->opt.hash_mb = mb;
  return TS_OK;
}

const SolverOptions *solver_options(const Solver *s) { return &s->opt; }

int solver_hashfull(const Solver *s) { return tt_hashfull(&s->tt); }

const char *solver_algo_name(SolverAlgo a) {
  switch (a) {
  case SOLVER_ALGO_PDS: return "pds";
  case SOLVER_ALGO_MULTIPATH: return "multipath";
  default: return "dfpn";
  }
}

bool solver_mp_parse(const char *spec, SolverOptions *o, char *why, size_t whyn) {
  SolverOptions t = *o;
  const char *p = spec;
  while (*p) {
    const char *end = strchr(p, ',');
    size_t n = end ? (size_t)(end - p) : strlen(p);
    char item[64];
    if (n == 0 || n >= sizeof item) {
      snprintf(why, whyn, "bad item '%.*s' (expected key=value)", (int)(n < 40 ? n : 40), p);
      return false;
    }
    memcpy(item, p, n);
    item[n] = 0;
    char *eq = strchr(item, '=');
    if (!eq || eq == item || !eq[1]) {
      snprintf(why, whyn, "bad item '%s' (expected key=value)", item);
      return false;
    }
    *eq = 0;
    const char *k = item, *v = eq + 1;
    char *rest = NULL;
    bool ok = true;
    if (!strcmp(k, "threads")) {
      long x = strtol(v, &rest, 10);
      ok = *rest == 0 && x >= 1 && x <= 8;
      t.mp_threads = (int)x;
    } else if (!strcmp(k, "base")) {
      long x = strtol(v, &rest, 10);
      ok = *rest == 0 && x >= 1 && x <= 100000000;
      t.mp_base = (int)x;
    } else if (!strcmp(k, "leader") || !strcmp(k, "tt")) {
      double x = strtod(v, &rest);
      ok = *rest == 0 && x >= 0 && x <= 1000 && (x > 0 || !strcmp(k, "tt"));
      if (!strcmp(k, "leader")) t.mp_leader = x;
      else t.mp_tt_weight = x;
    } else if (!strcmp(k, "budget")) {
      ok = !strcmp(v, "pn") || !strcmp(v, "pndn") || !strcmp(v, "const");
      t.mp_use_dn = !strcmp(v, "pndn");
      t.mp_constant = !strcmp(v, "const");
    } else {
      snprintf(why, whyn, "unknown key '%s' (threads, base, leader, tt, budget)", k);
      return false;
    }
    if (!ok) {
      snprintf(why, whyn, "bad value '%s' for %s", v, k);
      return false;
    }
    p += n;
    if (*p == ',') p++;
  }
  *o = t;
  return true;
}

bool solver_algo_parse(const char *name, SolverAlgo *a) {
  if (!strcmp(name, "dfpn") || !strcmp(name, "df-pn")) *a = SOLVER_ALGO_DFPN;
  else if (!strcmp(name, "pds")) *a = SOLVER_ALGO_PDS;
  else if (!strcmp(name, "multipath") || !strcmp(name, "mp")) *a = SOLVER_ALGO_MULTIPATH;
  else return false;
  return true;
}

void search_call_reset(Solver *s) {
  s->nodes = 0;
  s->tt_probes = 0;
  s->stopped = false;
  s->budget_hit = false;
  s->budget_stop = 0;
  s->stop_reason = NULL;
  s->sel_depth = 0;
  s->start_ms = solver_now_ms();
  s->deadline_ms = s->opt.time_ms ? s->start_ms + s->opt.time_ms : 0;
  s->next_progress_ms = s->start_ms + (s->opt.progress_ms ? s->opt.progress_ms : 1000);
  s->node_limit = s->opt.max_nodes;
  s->known_n = 0;
}

const Move *solver_known_line(const Solver *s, int *n) {
  *n = s->known_n;
  return s->known_n ? s->known : NULL;
}

static void call_begin(Solver *s, SolveResult *r) {
  memset(r, 0, sizeof *r);
  r->status = SOLVE_UNKNOWN;
  r->setup_ms = s->setup_ms;
  s->setup_ms = 0;
  search_call_reset(s);
}

static void call_end(Solver *s, SolveResult *r) {
  r->nodes = s->nodes;
  r->time_ms = solver_now_ms() - s->start_ms;
  if (r->status == SOLVE_UNKNOWN && !r->stop_reason) r->stop_reason = s->stop_reason ? s->stop_reason : "unknown";
  if (r->status != SOLVE_UNKNOWN && r->exact) r->stop_reason = NULL;
  if (!r->pv) r->pv = s->pv;
}

static int check_input(const Position *pos) { return pos_validate_problem(pos, NULL, NULL); }

int solver_solve(Solver *s, const Position *pos, SolveResult *r) {
  call_begin(s, r);
  if (check_input(pos)) {
    call_end(s, r);
    return TS_ERR_ILLEGAL;
  }
  s->pos = *pos;
  search_begin(s, pos->side, false);
  SearchResult sr;
  switch (s->opt.algo) {
  case SOLVER_ALGO_PDS: sr = search_pds(s, TT_LEN_INF); break;
  case SOLVER_ALGO_MULTIPATH: sr = search_multipath(s, TT_LEN_INF); break;
  default: sr = search_solve(s, TT_LEN_INF); break;
  }
  r->first_nodes = s->nodes;
  r->first_time_ms = solver_now_ms() - s->start_ms;
  if (sr.pn == 0) {
    r->first_length = sr.len;
    pv_solve(s, pos, sr.len, r);
  } else if (sr.dn == 0 && !(sr.rep && s->depth_hit)) {
    r->status = SOLVE_NOMATE;
  } else {
    r->status = SOLVE_UNKNOWN;
    r->stop_reason = s->depth_hit && !s->stop_reason ? "depth" : s->stop_reason;
  }
  call_end(s, r);
  return TS_OK;
}

int solver_mate_within(Solver *s, const Position *pos, int max_plies, SolveResult *r) {
  call_begin(s, r);
  if (check_input(pos)) {
    call_end(s, r);
    return TS_ERR_ILLEGAL;
  }
  if (max_plies > TT_LEN_INF - 2) max_plies = TT_LEN_INF - 2;
  int m = 0;
  int k = pv_mate_within(s, pos, pos->side, max_plies, &m);
  r->first_nodes = s->nodes;
  r->first_time_ms = solver_now_ms() - s->start_ms;
  if (k == 1) {
    r->first_length = m;
    pv_solve(s, pos, m, r); /* without prove_exact: the length found and a line from the table */
  } else if (k == 0) {
    r->status = SOLVE_NOMATE;
  } else {
    r->status = SOLVE_UNKNOWN;
  }
  call_end(s, r);
  return TS_OK;
}
