/*
 * retro_mates.c - the mate seeds: every mate position (defender to move, in
 * check, no reply) of the material and of every sub-material reached by
 * captures, the table's layer 0.
 *
 * Without ranging pieces a mate is generated from its checker and the pieces
 * near the king or the checker; the other pieces stand anywhere far and are
 * expanded once the core mates. With a ranging piece every placement is
 * tried, and positions in check whose only replies are drops between a
 * distant checker and the king (seeds) are valued by the solver, since those
 * drops bring in pieces from outside the material.
 */
#include <stdlib.h>
#include <string.h>

#include "movegen.h"
#include "retro_internal.h"
#include "workers.h"

/* ---------- mates ---------- */

/* The states one piece of kind t can take: attacker's hand, defender's hand,
 * or a square with an owner and promotion (dead squares left out). */
typedef struct {
  int8_t where; /* -1 attacker hand, -2 defender hand, else square */
  Piece piece;
} PieceState;

static inline int rel_rank(Color c, Square s) { return c == BLACK ? sq_rank(s) : 10 - sq_rank(s); }
static inline bool dead_on(Color c, PieceType t, Square s) {
  int rr = rel_rank(c, s);
  return ((t == PAWN || t == LANCE) && rr == 1) || (t == KNIGHT && rr <= 2);
}

static int build_states(PieceType t, PieceState **out) {
  PieceState *s = malloc(sizeof *s * (2 + SQ_NB * 4));
  if (!s) return -1;
  int n = 0;
  s[n++] = (PieceState){-1, 0};
  s[n++] = (PieceState){-2, 0};
  for (Square q = 0; q < SQ_NB; q++)
    for (int c = 0; c < 2; c++)
      for (int pr = 0; pr < 2; pr++) {
        if (pr && !pt_can_promote(t)) continue;
        PieceType pt = pr ? pt_promote(t) : t;
        if (!pr && dead_on((Color)c, t, q)) continue;
        s[n++] = (PieceState){(int8_t)q, piece_make((Color)c, pt)};
      }
  *out = s;
  return n;
}

/*
 * Mate generation. A mate needs a checker: a black piece attacking the king.
 * With non-ranging pieces only, a piece can take part in the mate only from
 * the 7x7 squares around the king (covering an escape square, being one, or
 * guarding a piece the king could take) or the 5x5 around the checker
 * (capturing or guarding it); anywhere else it changes nothing. So the
 * generator places the checker, then the other pieces on those "near" squares
 * or in a hand; a piece left in the defender's hand stands for "anywhere far"
 * and is expanded over every far square once the core is known to mate.
 * Duplicates (the same position from two checkers) are merged by the table.
 */
typedef struct {
  Retro *r;
  Position pos;
  PieceType kinds[MATERIAL_MAX_PIECES];
  int npieces;
  PieceState *states[HAND_PT_NB];
  int nstates[HAND_PT_NB];
  int16_t sidx[HAND_PT_NB][SQ_NB][2][2]; /* the state of a kind on a square, owner, promotion (-1: none) */
  int chosen[MATERIAL_MAX_PIECES];
  Bitboard near;
  Square king;
  int rc;
  uint64_t found;
  /* expansion */
  PieceType freek[MATERIAL_MAX_PIECES];
  int nfree;
  int fchosen[MATERIAL_MAX_PIECES];
  /* this thread's mates (merged into the table after the threads join) */
  SpillList out; /* Key */
  int id;
  int *next_king; /* shared work counter over the 45 king squares */
  /* ranging materials: positions in check whose only replies are drops */
  bool ranging;
  Key *seeds;
  uint64_t nseeds, capseeds;
} MateGen;

static bool nifu(const Position *pos) {
  for (int c = 0; c < 2; c++) {
    Bitboard p = pos_pieces(pos, (Color)c, PAWN);
    for (int f = 1; f <= 9 && p; f++)
      if (bb_more_than_one(p & BB_FILE[f])) return true;
  }
  return false;
}

/* The squares the attacker's pieces attack (no ranging pieces: the same whatever the occupancy). */
static Bitboard step_attacks(const Position *pos) {
  Bitboard att = 0, black = pos->by_color[BLACK];
  while (black) {
    Square s = bb_pop(&black);
    PieceType t = piece_type(pos->board[s]);
    att |= STEP_ATTACKS[BLACK][pt_is_promoted(t) ? GOLD : t][s];
  }
  return att;
}

/* Mate test for positions without ranging pieces: the king in check with no
 * escape, and a double check or a checker no defender piece can take. */
static bool fast_mate(const Position *pos, Square k) {
  Bitboard att = step_attacks(pos);
  if (!bb_test(att, k) || (STEP_ATTACKS[WHITE][KING][k] & ~pos->by_color[WHITE] & ~att)) return false;
  Bitboard occ = pos_occupied(pos);
  Bitboard checkers = pos_attackers_to(pos, k, BLACK, occ);
  if (bb_more_than_one(checkers)) return true;
  Square c = bb_lsb(checkers);
  return (pos_attackers_to(pos, c, WHITE, occ) & ~BB_SQ[k]) == 0;
}

static void mate_store(MateGen *g, Position *q) {
  if (nifu(q)) return;
  /* the key reads the board, the king and the attacker's hand only (the
   * defender holds the rest): no keys or defender's hand to make */
  q->side = WHITE;
  Key k = retro_key_of(q);
  int rc = retro_spill_push(&g->out, &k);
  if (rc) g->rc = rc;
}

/* Places the free pieces on far squares or leaves them in the defender's hand. */
static void mate_expand(MateGen *g, Position *q, int i) {
  if (g->rc) return;
  if (i == g->nfree) {
    Position c = *q;
    mate_store(g, &c);
    return;
  }
  PieceType t = g->freek[i];
  int start = (i > 0 && g->freek[i - 1] == t) ? g->fchosen[i - 1] : 1;
  for (int s = start; s < g->nstates[t]; s++) {
    PieceState st = g->states[t][s];
    if (st.where == -1) continue;
    if (st.where >= 0 && (bb_test(g->near, st.where) || q->board[st.where])) continue;
    g->fchosen[i] = s;
    if (st.where >= 0) pos_put(q, st.where, st.piece);
    mate_expand(g, q, i + 1);
    if (st.where >= 0) pos_remove(q, st.where);
  }
}

static void mate_leaf(MateGen *g) {
  Position *pos = &g->pos;
  if (!fast_mate(pos, g->king)) return;
  Position q = *pos;
  q.hand[BLACK] = 0;
  q.hand[WHITE] = 0;
  g->nfree = 0;
  for (int i = 0; i < g->npieces; i++) {
    PieceState st = g->states[g->kinds[i]][g->chosen[i]];
    if (st.where == -1) q.hand[BLACK] = hand_add(q.hand[BLACK], g->kinds[i]);
    if (st.where == -2) g->freek[g->nfree++] = g->kinds[i];
  }
  mate_expand(g, &q, 0);
}

/*
 * With ranging pieces a piece anywhere can matter (a rook guards a whole file),
 * so every piece is placed on every square. A leaf is kept when the king is in
 * check with no escape square, and then either no reply exists (a mate) or the
 * only replies are drops between a distant checker and the king (a seed: the
 * solver values it, since those drops bring in pieces from outside the
 * material, and it may even be a mate under the 無駄合 rule).
 */
static void rmate_leaf(MateGen *g) {
  Position *pos = &g->pos;
  Square k = g->king;
  Bitboard occ = pos_occupied(pos);
  if (!pos_attackers_to(pos, k, BLACK, occ)) return;
  Bitboard esc = STEP_ATTACKS[WHITE][KING][k] & ~pos->by_color[WHITE];
  Bitboard occk = occ & ~BB_SQ[k];
  while (esc) {
    Square e = bb_pop(&esc);
    if (!pos_attackers_to(pos, e, BLACK, occk)) return;
  }
  if (nifu(pos)) return;
  Position q = *pos;
  q.hand[BLACK] = 0;
  q.hand[WHITE] = 0;
  for (int i = 0; i < g->npieces; i++)
    if (g->states[g->kinds[i]][g->chosen[i]].where == -1) q.hand[BLACK] = hand_add(q.hand[BLACK], g->kinds[i]);
  q.side = WHITE;
  pos_give_remaining(&q, WHITE);
  pos_finish_setup(&q);
  MoveList l;
  movegen_legal(&q, &l);
  if (l.size == 0) {
    Key k = retro_key_of(&q);
    int rc = retro_spill_push(&g->out, &k);
    if (rc) g->rc = rc;
    return;
  }
  if (!solver_interpose_squares(&q)) return;
  for (int i = 0; i < l.size; i++)
    if (!move_is_drop(l.moves[i])) return;
  if (retro_keys_push(&g->seeds, &g->nseeds, &g->capseeds, retro_key_of(&q))) g->rc = TS_ERR_NOMEM;
}

/* The king's escape squares that the attacker's pieces on the board leave
 * open (empty or the attacker's, and not attacked; no ranging pieces). */
static Bitboard open_escapes(const Position *pos, Square k) {
  return STEP_ATTACKS[WHITE][KING][k] & ~pos->by_color[WHITE] & ~step_attacks(pos);
}

static void mate_place(MateGen *g, int i);

/* The last piece while the escapes u are open (fast_mate's first test fails
 * otherwise): only where it closes them all, the attacker's piece attacking
 * each (standing on none) or the defender's standing on the only one; in the
 * order of its states, from start on. */
static void mate_last(MateGen *g, int i, PieceType t, int start, Bitboard u) {
  /* closes[c][pr]: the squares from which that state closes u */
  Bitboard closes[2][2] = {{BB_ALL, pt_can_promote(t) ? BB_ALL : 0}, {bb_more_than_one(u) ? 0 : u, 0}}, v = u;
  while (v) { /* an attacker's piece on q attacks e when the defender's on e would attack q */
    Square e = bb_pop(&v);
    closes[BLACK][0] &= STEP_ATTACKS[WHITE][t][e];
    closes[BLACK][1] &= STEP_ATTACKS[WHITE][GOLD][e];
  }
  closes[WHITE][1] = closes[WHITE][0];
  Bitboard cand = (closes[BLACK][0] | closes[BLACK][1] | closes[WHITE][0]) & g->near & ~pos_occupied(&g->pos);
  while (cand && !g->rc) {
    Square q = bb_pop(&cand);
    for (int c = 0; c < 2; c++)
      for (int pr = 0; pr < 2; pr++) {
        int s = g->sidx[t][q][c][pr];
        if (s < start || !bb_test(closes[c][pr], q)) continue;
        g->chosen[i] = s;
        pos_put(&g->pos, q, g->states[t][s].piece);
        mate_place(g, i + 1);
        pos_remove(&g->pos, q);
      }
  }
}

static void mate_place(MateGen *g, int i) {
  if (g->rc) return;
  if (i == g->npieces) {
    if (g->ranging)
      rmate_leaf(g);
    else
      mate_leaf(g);
    return;
  }
  PieceType t = g->kinds[i];
  int start = (i > 0 && g->kinds[i - 1] == t) ? g->chosen[i - 1] : 0;
  /* the last piece: with escapes still open, only the states that close them
   * all can make a mate (the others fail mate_leaf's first test) */
  if (!g->ranging && i == g->npieces - 1) {
    Bitboard u = open_escapes(&g->pos, g->king);
    if (u) {
      mate_last(g, i, t, start, u);
      return;
    }
  }
  for (int s = start; s < g->nstates[t]; s++) {
    PieceState st = g->states[t][s];
    if (st.where >= 0 && (g->pos.board[st.where] || !bb_test(g->near, st.where))) continue;
    g->chosen[i] = s;
    if (st.where >= 0) pos_put(&g->pos, st.where, st.piece);
    mate_place(g, i + 1);
    if (st.where >= 0) pos_remove(&g->pos, st.where);
  }
}

static Bitboard square_area(Square s, int d) {
  Bitboard b = 0;
  for (int f = sq_file(s) - d; f <= sq_file(s) + d; f++)
    for (int r = sq_rank(s) - d; r <= sq_rank(s) + d; r++)
      if (f >= 1 && f <= 9 && r >= 1 && r <= 9) b |= BB_SQ[sq_make(f, r)];
  return b;
}

static void *mate_worker(void *arg) {
  MateGen *g = arg;
  Retro *r = g->r;
  for (;;) {
    int ki = r->king_first + r->king_step * __atomic_fetch_add(g->next_king, 1, __ATOMIC_RELAXED);
    if (ki >= 45 || g->rc) break;
    /* the king on files 1..5: the mirror covers files 6..9 */
    g->king = (Square)ki;
    for (int ct = PAWN; ct <= GOLD && !g->rc; ct++) {
      if (!r->mat.count[ct]) continue;
      /* the checker: one piece of kind ct, sente's, on a square attacking the king */
      g->npieces = 0;
      for (int t = PAWN; t <= GOLD; t++)
        for (int k = 0; k < r->mat.count[t] - (t == ct); k++) g->kinds[g->npieces++] = (PieceType)t;
      for (int s = 2; s < g->nstates[ct] && !g->rc; s++) {
        PieceState st = g->states[ct][s];
        if (piece_color(st.piece) != BLACK || st.where == g->king) continue;
        if (!bb_test(bb_attacks(BLACK, piece_type(st.piece), st.where, 0), g->king)) continue;
        pos_clear(&g->pos);
        pos_put(&g->pos, g->king, piece_make(WHITE, KING));
        pos_put(&g->pos, st.where, st.piece);
        g->near = g->ranging ? BB_ALL : square_area(g->king, 3) | square_area(st.where, 2);
        mate_place(g, 0);
      }
    }
    if (g->id == 0) retro_report(r, "mates", 0, retro_spill_count(&g->out), (uint64_t)ki + 1, 45);
  }
  return NULL;
}


/* The solver's value of a defender position (VAL_NONE: not mated within the bound),
 * known to be at least lo. */
uint16_t retro_solver_value(Retro *r, Solver *s, const Position *q, int lo) {
  int v = solver_value_above(s, q, BLACK, lo, r->opt.max_moves - 1);
  __atomic_fetch_add(&r->stats.solver_calls, 1, __ATOMIC_RELAXED);
  if (v == SOLVER_VALUE_UNKNOWN) __atomic_fetch_add(&r->stats.anomalies, 1, __ATOMIC_RELAXED);
  return v >= 0 ? (uint16_t)v : (uint16_t)VAL_NONE;
}


typedef struct {
  Retro *r;
  const Key *keys;
  uint64_t n;
  uint64_t *next;
  KeyVal *out;
  int id;
} SeedWorker;

static void *seed_worker(void *arg) {
  SeedWorker *w = arg;
  for (;;) {
    uint64_t i = __atomic_fetch_add(w->next, 1, __ATOMIC_RELAXED);
    if (i >= w->n) break;
    Position q;
    retro_key_decode(w->keys[i], &q);
    w->out[i] = (KeyVal){w->keys[i], retro_solver_value(w->r, w->r->solvers[w->id], &q, 0)};
    if (w->id == 0 && (i & 255) == 0) retro_report(w->r, "mates", 0, i, i, w->n);
  }
  return NULL;
}

static int key_cmp(const void *a, const void *b) {
  Key x = *(const Key *)a, y = *(const Key *)b;
  return x < y ? -1 : x > y;
}

/* Values the seeds of the mate phase (in check, only drops as replies). */
static int value_seeds(Retro *r, Key *seeds, uint64_t n, uint64_t *found) {
  qsort(seeds, n, sizeof *seeds, key_cmp);
  uint64_t u = 0;
  for (uint64_t i = 0; i < n; i++)
    if (!u || seeds[u - 1] != seeds[i]) seeds[u++] = seeds[i];
  r->stats.seeds = u;
  KeyVal *out = malloc((u ? u : 1) * sizeof *out);
  int nt = r->nsolvers > 0 ? r->nsolvers : 1;
  SeedWorker *ws = calloc((size_t)nt, sizeof *ws);
  int rc = (out && ws) ? TS_OK : TS_ERR_NOMEM;
  if (!rc) {
    uint64_t next = 0;
    for (int t = 0; t < nt; t++)
      ws[t] = (SeedWorker){.r = r, .keys = seeds, .n = u, .next = &next, .out = out, .id = t};
    workers_run(nt, seed_worker, ws, sizeof *ws);
    for (uint64_t i = 0; i < u && !rc; i++)
      rc = retro_record_value(r, out[i].k, out[i].v, 0, found);
  }
  free(out);
  free(ws);
  return rc;
}

int retro_mates_run(Retro *r, TsError *err) {
  int nt = r->opt.threads > 0 ? r->opt.threads : 1;
  MateGen *gs = calloc((size_t)nt, sizeof *gs);
  PieceState *states[HAND_PT_NB] = {0};
  int nstates[HAND_PT_NB] = {0};
  int rc = gs ? TS_OK : TS_ERR_NOMEM;
  for (int t = PAWN; t <= GOLD && !rc; t++)
    if (r->mat.count[t]) {
      nstates[t] = build_states((PieceType)t, &states[t]);
      if (nstates[t] < 0) rc = TS_ERR_NOMEM;
    }
  int next_king = 0, started = 0;
  if (!rc) {
    for (int t = 0; t < nt; t++) {
      gs[t].r = r;
      gs[t].id = t;
      gs[t].next_king = &next_king;
      gs[t].ranging = r->ranging;
      retro_spill_init(&gs[t].out, sizeof(Key), retro_spill_cap(r, sizeof(Key)), r->opt.spill_prefix);
      memcpy(gs[t].states, states, sizeof states);
      memcpy(gs[t].nstates, nstates, sizeof nstates);
      memset(gs[t].sidx, 0xff, sizeof gs[t].sidx);
      for (int k = PAWN; k <= GOLD; k++)
        for (int x = 2; x < nstates[k]; x++) {
          PieceState st = states[k][x];
          gs[t].sidx[k][st.where][piece_color(st.piece)][pt_is_promoted(piece_type(st.piece))] = (int16_t)x;
        }
    }
    started = workers_run(nt, mate_worker, gs, sizeof *gs);
  }
  uint64_t found = 0;
  SpillList *lists[WORKERS_MAX];
  for (int t = 0; t < started && !rc; t++) {
    if (gs[t].rc) rc = gs[t].rc;
    lists[t] = &gs[t].out;
    r->stats.spilled_bytes += gs[t].out.nfile * gs[t].out.elem;
  }
  if (r->mates_deliver) /* a distributed run: to their owners (every rank calls it) */
    rc = r->mates_deliver(r, lists, rc ? 0 : started, rc, &found);
  else if (!rc)
    rc = retro_table_insert_lists(r, lists, started, false, 0, &found);
  Key *seeds = NULL;
  uint64_t nseeds = 0, capseeds = 0;
  for (int t = 0; t < started && !rc; t++)
    for (uint64_t i = 0; i < gs[t].nseeds && !rc; i++)
      if (retro_keys_push(&seeds, &nseeds, &capseeds, gs[t].seeds[i])) rc = TS_ERR_NOMEM;
  for (int t = 0; t < nt && gs; t++) {
    retro_spill_free(&gs[t].out);
    free(gs[t].seeds);
  }
  for (int t = 0; t < HAND_PT_NB; t++) free(states[t]);
  free(gs);
  if (!rc && nseeds) rc = value_seeds(r, seeds, nseeds, &found);
  free(seeds);
  r->stats.mates = found;
  r->stats.defender_by_len[0] = found;
  if (rc == TS_ERR_IO)
    return ts_error_set(err, rc, "enumerate", 0, 0, "cannot write the mates to a file beside %s", r->opt.spill_prefix);
  if (rc) return ts_error_set(err, rc, "enumerate", 0, 0, "out of memory while generating mates");
  return TS_OK;
}
