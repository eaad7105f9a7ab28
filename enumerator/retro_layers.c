/*
 * retro_layers.c - the layers of the retrograde analysis.
 *
 * Layer n (odd): un-move the attacker from the defender positions of value
 * n-1 to get the attacker-to-move positions with mate in exactly n (a
 * position already in the table is seed 002's 余詰め判定: another check
 * mates sooner or as soon). Layer n+1: un-move the defender from those and
 * keep the positions all of whose replies reach known mates, valued 1 + the
 * longest (a candidate with a reply not yet known is the 不詰め判定: held
 * back, it comes again if that reply gets a value later). With ranging
 * pieces a defender position whose replies include drops between a distant
 * checker and the king is valued by the solver once its board replies are
 * known.
 */
#include <stdlib.h>
#include <string.h>

#include "movegen.h"
#include "retro.h"
#include "retro_internal.h"
#include "workers.h"

/* ---------- layers ---------- */

/* Is the material of pos inside the spec (each kind at most the spec count)? */
bool retro_within_material(const Retro *r, const Position *pos) {
  int cnt[PT_NB] = {0};
  Bitboard occ = pos_occupied(pos);
  while (occ) {
    Piece p = pos->board[bb_pop(&occ)];
    cnt[pt_demote(piece_type(p))]++;
  }
  for (int t = PAWN; t <= GOLD; t++) {
    cnt[t] += hand_count(pos->hand[BLACK], (PieceType)t);
    if (cnt[t] > r->mat.count[t]) return false;
  }
  return true;
}

/* Defender to move: 1 + the longest reply if every reply reaches a known mate, else -1. */
static int eval_defender(Retro *r, const Position *q) {
  MoveList l;
  movegen_legal(q, &l);
  if (l.size == 0) return 0;
  int best = -1;
  for (int i = 0; i < l.size; i++) {
    Position p = *q;
    Undo u;
    pos_do_move(&p, l.moves[i], &u);
    int v = retro_table_get_pos(r, &p);
    if (v < 0) return -1;
    if (v > best) best = v;
  }
  return best + 1;
}

/*
 * A defender position in a distant check: do all its replies that are board
 * moves (never futile) reach known mates? A board reply not yet valued is worth
 * more than the layer being built (or is no mate), and the position is
 * generated again from that reply when it gets its value.
 */
static bool board_replies_known(Retro *r, const Position *q) {
  MoveList l;
  movegen_legal(q, &l);
  for (int i = 0; i < l.size; i++) {
    if (move_is_drop(l.moves[i])) continue;
    Position p = *q;
    Undo u;
    pos_do_move(&p, l.moves[i], &u);
    if (retro_table_get_pos(r, &p) < 0) return false;
  }
  return true;
}

/*
 * Layers run on opt.threads threads. Within a phase the table is only read
 * (an attacker layer needs the defender values found before it, a defender
 * layer the attacker values up to n); each thread collects its new keys, and
 * the keys are inserted after the threads have joined.
 */
typedef struct {
  Retro *r;
  int n;           /* plies of the layer being built */
  bool defender;   /* building defender positions (else attacker) */
  unsigned kinds;  /* kinds of the material (for un-captures) */
  int id;
  uint64_t *next_chunk; /* shared work counter */
  KeyVal *out;
  uint64_t nout, cap;
  uint64_t hits; /* yozume (attacker phase) or fuzume (defender phase) tests that hit */
  UnMoveList ul;
  int rc;
} LayerWorker;

static int kv_push(LayerWorker *w, Key k, uint16_t v) {
  if (w->nout == w->cap) {
    uint64_t nc = w->cap ? w->cap * 2 : 4096;
    KeyVal *na = realloc(w->out, nc * sizeof *na);
    if (!na) return TS_ERR_NOMEM;
    w->out = na;
    w->cap = nc;
  }
  w->out[w->nout++] = (KeyVal){k, v};
  return TS_OK;
}

/* Un-moves from one position x of the frontier; new positions go to w->out. */
static void layer_position(LayerWorker *w, const Position *x) {
  Retro *r = w->r;
  if (!w->defender) {
    retro_generate(x, &w->ul);
    for (int j = 0; j < w->ul.size; j++) {
      Key k;
      Square sq;
      Key c = retro_pos_split(&w->ul.prev[j], &k, &sq);
      if (table_get_split(r, c, sq) >= 0) {
        w->hits++;
        continue;
      }
      if (kv_push(w, k, (uint16_t)w->n)) w->rc = TS_ERR_NOMEM;
    }
    return;
  }
  retro_generate_kinds(x, &w->ul, w->kinds);
  for (int j = 0; j < w->ul.size; j++) {
    const Position *q = &w->ul.prev[j];
    if (!q->checkers) continue;
    if (w->ul.u[j].captured && !retro_within_material(r, q)) continue;
    Key k;
    Square sq;
    Key c = retro_pos_split(q, &k, &sq);
    if (table_get_split(r, c, sq) >= 0) continue;
    if (r->ranging && solver_drop_squares(q)) {
      /* drops between checker and king bring in outside pieces: the solver values it,
       * once every board reply has a known value (else it comes back at a later layer) */
      if (!board_replies_known(r, q)) {
        w->hits++;
        continue;
      }
      /* a board move leads from q to x, valued n - 1: q is at least n */
      int lo = move_is_drop(w->ul.u[j].move) ? 0 : w->n;
      if (kv_push(w, k, retro_solver_value(r, r->solvers[w->id], q, lo))) w->rc = TS_ERR_NOMEM;
      continue;
    }
    int v = eval_defender(r, q);
    if (v < 0) {
      w->hits++;
      continue;
    }
    if (kv_push(w, k, (uint16_t)v)) w->rc = TS_ERR_NOMEM;
  }
}

static void *layer_worker(void *arg) {
  LayerWorker *w = arg;
  Retro *r = w->r;
  for (;;) {
    uint64_t c = __atomic_fetch_add(w->next_chunk, 1, __ATOMIC_RELAXED);
    uint64_t begin = c * LAYER_CHUNK;
    if (begin >= r->cap || w->rc) break;
    uint64_t end = begin + LAYER_CHUNK < r->cap ? begin + LAYER_CHUNK : r->cap;
    for (uint64_t i = begin; i < end; i++) {
      /* the frontier: positions of the previous layer (defender positions of
       * value n-1 for an attacker layer, attacker positions of n-1 for a defender one) */
      const XRecord *rec = &r->tab[i];
      if (!rec->core || key_side(rec->core) == (int)w->defender || xr_value(rec) != w->n - 1) continue;
      Square sqs[SQ_NB];
      int ns = retro_xr_squares(rec, sqs);
      for (int k = 0; k < ns; k++) {
        Position x;
        retro_key_decode(retro_xkey_join(rec->core, sqs[k]), &x);
        layer_position(w, &x);
      }
    }
    if (w->id == 0) retro_report(r, "layers", w->n, w->nout, end, r->cap);
  }
  return NULL;
}

/* Runs one phase: the new positions of layer n from the frontier (layer n-1). */
static int run_phase(Retro *r, int n, bool defender, unsigned kinds, TsError *err) {
  int nt = r->opt.threads > 0 ? r->opt.threads : 1;
  LayerWorker *ws = calloc((size_t)nt, sizeof *ws);
  if (!ws) return ts_error_set(err, TS_ERR_NOMEM, "enumerate", 0, 0, "out of memory at layer %d", n);
  uint64_t next_chunk = 0;
  int rc = TS_OK;
  for (int t = 0; t < nt; t++) {
    ws[t] = (LayerWorker){.r = r, .n = n, .defender = defender, .kinds = kinds, .id = t, .next_chunk = &next_chunk};
    ws[t].ul.prev = malloc(MAX_UNMOVES * sizeof *ws[t].ul.prev);
    if (!ws[t].ul.prev) rc = TS_ERR_NOMEM;
  }
  int started = rc ? 0 : workers_run(nt, layer_worker, ws, sizeof *ws);
  uint64_t hits = 0, outs = 0, used0 = r->used;
  for (int t = 0; t < started && !rc; t++) {
    if (ws[t].rc) rc = ws[t].rc;
    hits += ws[t].hits;
    outs += ws[t].nout;
    for (uint64_t i = 0; i < ws[t].nout && !rc; i++)
      rc = retro_record_value(r, ws[t].out[i].k, ws[t].out[i].v, n, NULL);
    free(ws[t].out);
    ws[t].out = NULL;
  }
  if (defender)
    r->stats.fuzume_hits[n] = hits;
  else
    r->stats.yozume_hits[n] = hits + (outs - (r->used - used0));
  for (int t = 0; t < nt; t++) {
    free(ws[t].out);
    free(ws[t].ul.prev);
  }
  free(ws);
  if (rc) return ts_error_set(err, rc, "enumerate", 0, 0, "out of memory at layer %d", n);
  return TS_OK;
}

/* Positions of layer n (attacker positions when n is odd). */
static uint64_t layer_size(const Retro *r, int n) { return r->count[n & 1 ? 0 : 1][n]; }

/* Are defender positions valued ahead of their layer waiting for a layer after n? */
static bool pending_after(const Retro *r, int n) {
  for (int v = n + 1; v <= RETRO_MAX_LEN + 1; v++)
    if (r->count[1][v]) return true;
  return false;
}

int retro_layers_run(Retro *r, TsError *err) {
  unsigned kinds = 0;
  for (int t = PAWN; t <= GOLD; t++)
    if (r->mat.count[t]) kinds |= 1u << t;
  for (int n = 1; n <= r->opt.max_moves; n += 2) {
    /* attacker layer n: predecessors of the defender positions of value n-1 */
    int rc = run_phase(r, n, false, kinds, err);
    if (rc) return rc;
    r->stats.attacker_by_len[n] = layer_size(r, n);
    r->stats.last_layer = n;
    if ((layer_size(r, n) == 0 && !pending_after(r, n)) || n + 1 > r->opt.max_moves) break;
    /* defender layer n+1: positions all of whose replies reach known mates */
    rc = run_phase(r, n + 1, true, kinds, err);
    if (rc) return rc;
    r->stats.defender_by_len[n + 1] = layer_size(r, n + 1);
    if (layer_size(r, n + 1) == 0 && !pending_after(r, n + 1)) break;
  }
  return TS_OK;
}

int retro_run(Retro *r, TsError *err) {
  uint64_t t0 = retro_now_ms();
  int rc = retro_mates_run(r, err);
  if (rc) return rc;
  uint64_t t1 = retro_now_ms();
  r->stats.ms_mates = t1 - t0;
  rc = retro_layers_run(r, err);
  r->stats.ms_layers = retro_now_ms() - t1;
  r->stats.entries = r->used;
  r->stats.records = r->records;
  r->stats.table_bytes = r->cap * sizeof(XRecord);
  return rc;
}
