/*
 * retro_layers.c - the layers of the retrograde analysis.
 *
 * Layer n (odd): un-move the attacker from the defender positions of value
 * n-1 to get the attacker-to-move positions with mate in exactly n (a
 * position already in the table is the enumeration paper's 余詰め判定: another check
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

/* Pieces of kind t (promoted or not) on the board and in the attacker's hand, with piece f more on the
 * board (PIECE_NONE: none). */
static int kind_count(const Position *pos, PieceType t, Piece f) {
  Bitboard on = pos->by_type[t];
  if (pt_can_promote(t)) on |= pos->by_type[pt_promote(t)];
  return bb_popcount(on) + hand_count(pos->hand[BLACK], t) + (f != PIECE_NONE && pt_demote(piece_type(f)) == t);
}

/* Is the material of pos, with piece f more on the board (PIECE_NONE: none),
 * inside the spec (each kind at most the spec count)? */
static bool within_material_plus(const Retro *r, const Position *pos, Piece f) {
  for (int t = PAWN; t <= GOLD; t++)
    if (kind_count(pos, (PieceType)t, f) > r->mat.count[t]) return false;
  return true;
}

bool retro_within_material(const Retro *r, const Position *pos) { return within_material_plus(r, pos, PIECE_NONE); }

/* After the defender's un-capture of `captured` (an attacker's piece put back on the board, from a position
 * inside the material, f more on the board with it): is its kind still within the spec count? The other
 * kinds are as they were. */
static bool uncapture_within(const Retro *r, const Position *pos, Piece captured, Piece f) {
  PieceType t = pt_demote(piece_type(captured));
  return kind_count(pos, t, f) <= r->mat.count[t];
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
 * moves reach known mates? (The table's defender has only its king on the
 * board, so those are king moves, never interpositions.) A board reply not yet valued is worth
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
  SpillList out;  /* KeyVal: the new positions */
  uint64_t hits; /* yozume (attacker phase) or fuzume (defender phase) tests that hit */
  UnMoveList ul;
  struct GroupReplies *group; /* a defender layer's replies of one predecessor */
  int rc;
} LayerWorker;

static int kv_push(LayerWorker *w, Key k, uint16_t v) {
  KeyVal kv = {k, v};
  return retro_spill_push(&w->out, &kv);
}

/* An attacker layer's predecessor: 余詰め判定 if already valued, else new with value n. */
static void attacker_prev(LayerWorker *w, const Position *prev) {
  Key k;
  Square sq;
  Key c = retro_pos_split(prev, &k, &sq);
  if (table_get_near(w->r, c, sq) >= 0) {
    w->hits++;
    return;
  }
  int prc = kv_push(w, k, (uint16_t)w->n);
  if (prc) w->rc = prc;
}

/* A defender layer's candidate q, reached by the un-move u: valued when every reply is known. */
static void defender_prev(LayerWorker *w, const Position *q, const UnMove *um) {
  Retro *r = w->r;
  if (!q->checkers) return;
  if (um->captured && !retro_within_material(r, q)) return;
  Key k;
  Square sq;
  Key c = retro_pos_split(q, &k, &sq);
  if (table_get_split(r, c, sq) >= 0) return;
  if (r->ranging && solver_interpose_squares(q)) {
    /* drops between checker and king bring in outside pieces: the solver values it,
     * once every board reply has a known value (else it comes back at a later layer) */
    if (!board_replies_known(r, q)) {
      w->hits++;
      return;
    }
    /* a board move leads from q to x, valued n - 1: q is at least n */
    int lo = move_is_drop(um->move) ? 0 : w->n;
    int prc = kv_push(w, k, retro_solver_value(r, r->solvers[w->id], q, lo));
    if (prc) w->rc = prc;
    return;
  }
  int v = eval_defender(r, q);
  if (v < 0) {
    w->hits++;
    return;
  }
  int prc = kv_push(w, k, (uint16_t)v);
  if (prc) w->rc = prc;
}

/* Un-moves of the pieces of x on to_mask; new positions go to w->out. */
static void layer_position(LayerWorker *w, const Position *x, Bitboard to_mask) {
  /* a defender layer's candidates answer a check (defender_prev) */
  if (w->defender)
    retro_generate_checked(x, &w->ul, w->kinds, to_mask);
  else
    retro_generate_to(x, &w->ul, ~0u, to_mask);
  for (int j = 0; j < w->ul.size; j++) {
    if (w->defender)
      defender_prev(w, &w->ul.prev[j], &w->ul.u[j]);
    else
      attacker_prev(w, &w->ul.prev[j]);
  }
}

/* ---------- un-moves of an extended position (the enumeration paper) ---------- */

/*
 * A frontier record stands for the positions x(s): the fixed pieces B and the
 * free piece f on each square s of a set. Without sliders (gold, silver,
 * knight, pawn materials) an un-move of a fixed piece is the same move in
 * every x(s) but where f stands on its origin, and its predecessor is legal in
 * x(s) exactly when it is in B and f on s does not make it illegal (f giving
 * check to the king that must not be in check, or a second pawn on a file).
 * So the un-moves of B are made once per record and each square costs a key
 * and a look-up; the un-moves of f itself, and those to a square where a pawn
 * drop would check (打ち歩詰め asks whether x(s) is mate), are made on x(s).
 *
 * A defender layer's candidate q(s) = P + f on s (P: a predecessor of B, in
 * check) is valued once per un-move too, each reply's position being that of
 * P plus f on s. When f is the attacker's, not next to the king and not giving
 * check, the replies of q(s) are those of P less the king moves to squares f
 * attacks from s. When f is the defender's it cannot interpose (no piece
 * slides), so the replies of q(s) are those of P less the moves to s, on the
 * squares from which f cannot take the one checker. The other squares are
 * valued on q(s) itself.
 */
typedef struct {
  bool king; /* a king move (f on s may attack its square) */
  Square to;
  KeyBase kb; /* the position after the reply, made when a square still standing needs it */
} GroupReply;

typedef struct GroupReplies {
  int n, made; /* replies; of them, those whose kb is made */
  const Position *p;
  Move move[MAX_MOVES];
  GroupReply rep[MAX_MOVES];
} GroupReplies;

/* eval_defender of p with f put on s: -2 when a reply is not known. */
static int eval_with(Retro *r, const Position *p, Square s, Piece f) {
  Position q = *p;
  pos_add(&q, s, f); /* s is empty in p: f stood there in B's successor */
  int v = eval_defender(r, &q);
  return v < 0 ? -2 : v;
}

/* P's replies, the king's first (a candidate is most often refuted by a king
 * move); the position after each is made when group_values reaches it. */
static void group_replies(const Position *p, GroupReplies *g) {
  MoveList l;
  movegen_legal(p, &l);
  g->n = g->made = 0;
  g->p = p;
  for (int pass = 0; pass < 2; pass++)
    for (int i = 0; i < l.size; i++) {
      Move m = l.moves[i];
      bool king = !move_is_drop(m) && move_from(m) == p->king[WHITE];
      if (king != (pass == 0)) continue;
      GroupReply *gr = &g->rep[g->n];
      g->move[g->n++] = m;
      gr->king = king;
      gr->to = move_to(m);
    }
}

static const GroupReply *group_reply(GroupReplies *g, int j) {
  GroupReply *gr = &g->rep[j];
  if (j >= g->made) {
    Position t = *g->p;
    Undo u;
    pos_do_move(&t, g->move[j], &u);
    retro_keybase_init(&gr->kb, &t);
    g->made = j + 1;
  }
  return gr;
}

/* The keys of one un-move's predecessors, one per square of the free piece. */
typedef struct {
  int n;
  Square s[SQ_NB], sq[SQ_NB];
  Key core[SQ_NB], full[SQ_NB];
} SquareKeys;

/* The keys of kb plus f on each square of todo, their first slots prefetched. */
static void square_keys(const Retro *r, const KeyBase *kb, Bitboard todo, Piece f, SquareKeys *k) {
  k->n = 0;
  while (todo) {
    Square s = bb_pop(&todo);
    int i = k->n++;
    k->s[i] = s;
    k->core[i] = retro_keybase_split(kb, s, f, &k->full[i], &k->sq[i]);
    table_prefetch(r, k->core[i]);
  }
}

/* The values of q(s) for the squares k->s[i] marked in want from the replies
 * of P (see above): -1 where one is not known. The replies are taken one at a
 * time for all the squares still standing (their look-ups as one batch), so
 * a square refuted by a reply costs nothing more. */
static inline __attribute__((always_inline)) void group_values_as(const Retro *r, GroupReplies *g,
                                                                   const SquareKeys *k, const bool *want, Piece f,
                                                                   int *out, const bool shared) {
  PieceType ft = piece_type(f);
  Color fc = piece_color(f);
  int alive[SQ_NB], best[SQ_NB], na = 0;
  for (int i = 0; i < k->n; i++)
    if (want[i]) {
      alive[na++] = i;
      best[i] = -1;
    }
  Key core[SQ_NB];
  Square sqs[SQ_NB];
  for (int j = 0; j < g->n && na; j++) {
    const GroupReply *gr = &g->rep[j];
    for (int a = 0; a < na; a++) {
      int i = alive[a];
      /* f's square is taken; a king move to a square the attacker's f attacks from s is not a reply of q(s) */
      if (gr->to == k->s[i] || (gr->king && fc == BLACK && bb_test(STEP_ATTACKS[WHITE][ft][gr->to], k->s[i]))) {
        core[a] = 0;
        continue;
      }
      gr = group_reply(g, j);
      core[a] = retro_keybase_split(&gr->kb, k->s[i], f, NULL, &sqs[a]);
      table_prefetch(r, core[a]);
    }
    /* a table over ranks: the look-ups of other ranks' tables in one round trip */
    int got[SQ_NB];
    if (shared) {
      Key bc[SQ_NB];
      Square bs[SQ_NB];
      int nb = 0, bv[SQ_NB];
      for (int a = 0; a < na; a++)
        if (core[a]) {
          bc[nb] = core[a];
          bs[nb++] = sqs[a];
        }
      r->shares->many(r->shares, nb, bc, bs, bv);
      for (int a = 0, b = 0; a < na; a++)
        if (core[a]) got[a] = bv[b++];
    }
    int kept = 0;
    for (int a = 0; a < na; a++) {
      int i = alive[a];
      if (core[a]) {
        int v = shared ? got[a] : table_probe(r->tab, r->cap, core[a], sqs[a]);
        if (v < 0) {
          out[i] = -1;
          continue;
        }
        if (v > best[i]) best[i] = v;
      }
      alive[kept++] = i;
    }
    na = kept;
  }
  /* best + 1 over the replies; no reply at all: mated (0) */
  for (int a = 0; a < na; a++) out[alive[a]] = best[alive[a]] + 1;
}

static void group_values(const Retro *r, GroupReplies *g, const SquareKeys *k, const bool *want, Piece f,
                         int *out) {
  if (__builtin_expect(r->shares != NULL, 0))
    group_values_as(r, g, k, want, f, out, true);
  else
    group_values_as(r, g, k, want, f, out, false);
}

/* A defender layer's candidates q(s) = P + f on s for the squares of todo (P
 * the predecessor of B by um): those not yet valued are valued on q(s) itself
 * (f the defender's, giving check, or next to the king) or as a group. */
static void record_defender(LayerWorker *w, const UnMove *um, const Position *p, const KeyBase *kb, Bitboard todo,
                            Piece f, SquareKeys *sk) {
  Retro *r = w->r;
  PieceType ft = piece_type(f);
  Color fc = piece_color(f);
  GroupReplies *g = w->group;
  if (um->captured && !uncapture_within(r, p, um->captured, f)) return;
  Square kp = p->king[WHITE];
  Bitboard fchk = fc == BLACK ? STEP_ATTACKS[WHITE][ft][kp] : 0;
  if (!p->checkers) todo &= fchk;
  /* valued on q(s) itself: the attacker's f giving check or next to the king; the defender's f able to take
   * the one checker (it takes none of two) */
  Bitboard single = !p->checkers ? BB_ALL
                    : fc == BLACK ? fchk | STEP_ATTACKS[BLACK][KING][kp]
                    : bb_more_than_one(p->checkers) ? 0
                                                    : STEP_ATTACKS[BLACK][ft][bb_lsb(p->checkers)];
  square_keys(r, kb, todo, f, sk);
  bool want[SQ_NB], any = false;
  int vals[SQ_NB], got[SQ_NB];
  table_get_many(r, sk->n, sk->core, sk->sq, got);
  for (int i = 0; i < sk->n; i++) {
    want[i] = got[i] < 0;
    vals[i] = -1;
    if (want[i] && bb_test(single, sk->s[i])) {
      vals[i] = eval_with(r, p, sk->s[i], f);
      want[i] = false;
    } else if (want[i]) {
      any = true;
    }
  }
  if (any) {
    group_replies(p, g);
    group_values(r, g, sk, want, f, vals);
  }
  for (int i = 0; i < sk->n; i++) {
    if (!want[i] && vals[i] == -1) continue; /* already in the table */
    if (vals[i] < 0) {
      w->hits++;
      continue;
    }
    int prc = kv_push(w, sk->full[i], (uint16_t)vals[i]);
    if (prc) w->rc = prc;
  }
}

static void layer_record(LayerWorker *w, const XRecord *rec) {
  Retro *r = w->r;
  Square sqs[SQ_NB];
  int ns = retro_xr_squares(rec, sqs);
  Piece f = (Piece)(rec->core & 31);
  if (r->ranging || r->opt.concrete_unmoves || f == PIECE_NONE || ns < 2) {
    for (int k = 0; k < ns; k++) {
      Position x;
      retro_key_decode(retro_xkey_join(rec->core, sqs[k]), &x);
      layer_position(w, &x, BB_ALL);
    }
    return;
  }
  Position b;
  retro_key_decode(retro_xkey_join(rec->core, sqs[0]), &b);
  retro_record_base(&b, sqs[0]);
  Color mover = color_flip(b.side), fc = piece_color(f);
  PieceType ft = piece_type(f);
  Bitboard set = 0;
  for (int k = 0; k < ns; k++) set |= BB_SQ[sqs[k]];
  /* squares of the mover's pawns that check the defender king: un-moves there are made on x(s) */
  Bitboard conc = 0, fcheck = 0;
  if (mover == BLACK) {
    Square ek = b.king[WHITE];
    conc = pos_pieces(&b, BLACK, PAWN) & STEP_ATTACKS[WHITE][PAWN][ek];
    if (fc == BLACK) fcheck = STEP_ATTACKS[WHITE][ft][ek];
  }
  retro_generate_to(&b, &w->ul, w->defender ? w->kinds : ~0u, BB_ALL & ~conc);
  SquareKeys skv, *sk = &skv;
  for (int j = 0; j < w->ul.size && !w->rc; j++) {
    const UnMove *um = &w->ul.u[j];
    const Position *p = &w->ul.prev[j];
    Move m = um->move;
    Bitboard bad = fcheck;
    if (!move_is_drop(m)) bad |= BB_SQ[move_from(m)];
    if (um->captured && piece_type(um->captured) == PAWN && f == um->captured) bad |= BB_FILE[sq_file(move_to(m))];
    if (move_is_drop(m) && move_drop_type(m) == PAWN && f == piece_make(mover, PAWN))
      bad |= BB_FILE[sq_file(move_to(m))];
    /* an un-promoted tokin is a pawn again: f, a pawn of the mover, not on its file (二歩) */
    if (!move_is_drop(m) && move_is_promote(m) && piece_type(p->board[move_from(m)]) == PAWN && f == piece_make(mover, PAWN))
      bad |= BB_FILE[sq_file(move_from(m))];
    Bitboard todo = set & ~bad;
    if (!todo) continue;
    KeyBase kb;
    retro_keybase_init(&kb, p);
    if (!w->defender) {
      square_keys(r, &kb, todo, f, sk);
      for (int i = 0; i < sk->n; i++) {
        if (table_get_near(r, sk->core[i], sk->sq[i]) >= 0) {
          w->hits++;
          continue;
        }
        int prc = kv_push(w, sk->full[i], (uint16_t)w->n);
        if (prc) w->rc = prc;
      }
      continue;
    }
    record_defender(w, um, p, &kb, todo, f, sk);
  }
  /* the un-moves of f itself, and those to the squares of conc, on each x(s) = B + f on s; f's only where
   * it is the mover's and B allows an un-move to its square (B's pieces, none of them sliding, check or
   * attack the same with f on s) */
  Bitboard fsq = fc != mover ? 0 : retro_unmove_squares(&b, w->defender ? w->kinds : ~0u, w->defender);
  for (int k = 0; k < ns && !w->rc; k++) {
    Bitboard mask = (BB_SQ[sqs[k]] & fsq) | conc;
    if (!mask) continue;
    Position x = b;
    pos_add(&x, sqs[k], f);
    layer_position(w, &x, mask);
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
      layer_record(w, rec);
    }
    if (w->id == 0) retro_report(r, "layers", w->n, retro_spill_count(&w->out), end, r->cap);
  }
  return NULL;
}

struct LayerPhase {
  LayerWorker *ws;
  int nt, started;
  SpillList *lists[WORKERS_MAX];
};

int retro_phase_unmove(Retro *r, int n, bool defender, unsigned kinds, LayerPhase **out, SpillList *const **lists,
                       int *nl, uint64_t *hits, uint64_t *outs) {
  int nt = r->opt.threads > 0 ? r->opt.threads : 1;
  if (nt > WORKERS_MAX) nt = WORKERS_MAX;
  LayerPhase *ph = calloc(1, sizeof *ph);
  LayerWorker *ws = calloc((size_t)nt, sizeof *ws);
  *out = ph;
  *nl = 0;
  *hits = *outs = 0;
  if (!ph || !ws) {
    free(ws);
    return TS_ERR_NOMEM;
  }
  ph->ws = ws;
  ph->nt = nt;
  uint64_t next_chunk = 0;
  int rc = TS_OK;
  for (int t = 0; t < nt; t++) {
    ws[t] = (LayerWorker){.r = r, .n = n, .defender = defender, .kinds = kinds, .id = t, .next_chunk = &next_chunk};
    retro_spill_init(&ws[t].out, sizeof(KeyVal), retro_spill_cap(r, sizeof(KeyVal)), r->opt.spill_prefix);
    ws[t].ul.prev = malloc(MAX_UNMOVES * sizeof *ws[t].ul.prev);
    ws[t].group = malloc(sizeof *ws[t].group);
    if (!ws[t].ul.prev || !ws[t].group) rc = TS_ERR_NOMEM;
  }
  ph->started = rc ? 0 : workers_run(nt, layer_worker, ws, sizeof *ws);
  for (int t = 0; t < ph->started && !rc; t++) {
    if (ws[t].rc) rc = ws[t].rc;
    *hits += ws[t].hits;
    *outs += retro_spill_count(&ws[t].out);
    ph->lists[t] = &ws[t].out;
    r->stats.spilled_bytes += ws[t].out.nfile * ws[t].out.elem;
  }
  *lists = ph->lists;
  *nl = rc ? 0 : ph->started;
  return rc;
}

void retro_phase_free(LayerPhase *ph) {
  if (!ph) return;
  for (int t = 0; ph->ws && t < ph->nt; t++) {
    retro_spill_free(&ph->ws[t].out);
    free(ph->ws[t].ul.prev);
    free(ph->ws[t].group);
  }
  free(ph->ws);
  free(ph);
}

/* Runs one phase: the new positions of layer n from the frontier (layer n-1). */
static int run_phase(Retro *r, int n, bool defender, unsigned kinds, TsError *err) {
  LayerPhase *ph;
  SpillList *const *lists;
  int nl;
  uint64_t hits, outs, used0 = r->used;
  int rc = retro_phase_unmove(r, n, defender, kinds, &ph, &lists, &nl, &hits, &outs);
  if (!rc) rc = retro_table_insert_lists(r, lists, nl, true, n, NULL);
  if (defender)
    r->stats.fuzume_hits[n] = hits;
  else
    r->stats.yozume_hits[n] = hits + (outs - (r->used - used0));
  retro_phase_free(ph);
  if (rc == TS_ERR_IO)
    return ts_error_set(err, rc, "enumerate", 0, 0, "cannot write the new positions of layer %d to a file beside %s",
                        n, r->opt.spill_prefix);
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
    r->stats.layers_cut = layer_size(r, n) != 0 || pending_after(r, n);
    if (!r->stats.layers_cut || n + 1 > r->opt.max_moves) break;
    /* defender layer n+1: positions all of whose replies reach known mates */
    rc = run_phase(r, n + 1, true, kinds, err);
    if (rc) return rc;
    r->stats.defender_by_len[n + 1] = layer_size(r, n + 1);
    r->stats.layers_cut = layer_size(r, n + 1) != 0 || pending_after(r, n + 1);
    if (!r->stats.layers_cut) break;
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
  r->stats.table_dense = r->dense;
  r->stats.table_file = r->tab_file;
  if (rc && r->over_limit)
    return ts_error_set(err, TS_ERR_NOMEM, r->opt.spill_prefix ? r->opt.spill_prefix : "enumerate", 0, 0,
                        "the table of %llu positions (%llu MB, 90 %% full) cannot double within the memory ceiling of %llu MB "
                        "nor go on in a file beside the database: %s (raise --mem, free disk space, or spread the run "
                        "over machines with --mpi)",
                        (unsigned long long)r->used, (unsigned long long)(r->cap * sizeof(XRecord) >> 20),
                        (unsigned long long)(r->opt.table_limit >> 20), strerror(r->tab_errno));
  return rc;
}
