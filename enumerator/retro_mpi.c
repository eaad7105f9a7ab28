/*
 * retro_mpi.c - the mates and the layers run over MPI ranks (built only when
 * MPI is found at configure time).
 *
 * The table is partitioned by a hash of the record key (retro_owner): each
 * rank holds the records it owns, and every position is sent to its owner.
 * The mate phase splits the king squares over the ranks and sends each mate
 * to its owner. A layer is made on the records, as in one process
 * (retro_phase_unmove, the enumeration paper's un-moves of extended positions): each
 * rank's threads un-move the frontier records it owns and read the other
 * ranks' tables by one-sided MPI reads (the tables change only between the
 * phases); the new positions then go to their owners in rounds of all-to-all
 * exchanges and are inserted there. With --concrete a layer is made position
 * by position in rounds: each rank un-moves a batch of its frontier and the
 * new positions go to their owners in one all-to-all exchange; an attacker
 * layer's owner tests a position against its table (余詰め判定) and keeps
 * it; a defender layer's owner asks, in a second all-to-all, the owners of
 * every reply of a candidate for their values and an answer comes back in a
 * third (不詰め判定 when one is unknown). Either way inserts wait for the end
 * of the layer, as in the single-process run, and the per-value counts and
 * the tests' figures are summed over the ranks, so the figures and the
 * database are those of a single-process run.
 *
 * Each rank then classifies the problems it owns, following main lines
 * through records of any owner (retro_gather_distributed). By default every
 * record stays with its owner: each rank's share is put in memory the ranks
 * of its machine share, they read it there, and a rank on another machine
 * reads it by one-sided MPI reads (a probe run of slots at a time, the
 * records of a key kept in a per-thread cache, a position's look-ups read
 * together). So the memory of every phase is divided by the ranks.
 * RETRO_TABLE_WHOLE instead gives every machine the whole table once (no
 * reads across machines; the classification's memory divided by the ranks of
 * a machine only). Materials with a ranging piece (whose defender positions
 * the solver values) are not distributed.
 */
#include <mpi.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "movegen.h"
#include "retro.h"
#include "retro_internal.h"
#include "retro_shares.h"

/* positions un-moved per rank and round before an exchange */
#define DIST_BATCH ((uint64_t)1 << 18)

typedef struct {
  void *p;
  uint64_t n, cap; /* elements */
} Buf;

typedef struct {
  Retro *r;
  int np;
  MPI_Datatype key_type, rec_type; /* 16 and 32 bytes */
  Buf *to;                         /* keys for each rank */
  int *sc, *rc, *sd, *rd;          /* counts and displacements of an exchange */
} Dist;

static int buf_push(Buf *b, const void *x, size_t size) {
  if (b->n == b->cap) {
    uint64_t nc = b->cap ? b->cap * 2 : 4096;
    void *np = realloc(b->p, nc * size);
    if (!np) return TS_ERR_NOMEM;
    b->p = np;
    b->cap = nc;
  }
  memcpy((char *)b->p + b->n * size, x, size);
  b->n++;
  return TS_OK;
}

static int buf_reserve(Buf *b, uint64_t n, size_t size) {
  if (n <= b->cap) return TS_OK;
  void *np = realloc(b->p, n * size);
  if (!np) return TS_ERR_NOMEM;
  b->p = np;
  b->cap = n;
  return TS_OK;
}

/* Whether some rank failed (rc != TS_OK there): every rank must call it at
 * the same point, so that all of them leave the collective steps together. */
static bool agree_fail(int rc) {
  int failed = rc != TS_OK, any = 0;
  MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  return any != 0;
}

/* Sends to[k] (elements of elem bytes, MPI type `type`) to rank k and receives into *in what every rank
 * sent here (rank order); d->sc / d->rd keep the counts and displacements. A failure here or on any rank
 * (local: this rank's own, to agree on) fails it on every rank, nothing sent. */
static int exchange(Dist *d, Buf *to, size_t elem, MPI_Datatype type, Buf *packed, Buf *in, int local) {
  uint64_t total = 0;
  for (int k = 0; k < d->np; k++) {
    d->sc[k] = to ? (int)to[k].n : 0;
    d->sd[k] = (int)total;
    total += (uint64_t)d->sc[k];
  }
  if (agree_fail(local ? local : buf_reserve(packed, total ? total : 1, elem))) return TS_ERR_NOMEM;
  for (int k = 0; k < d->np; k++) {
    if (d->sc[k]) memcpy((char *)packed->p + (size_t)d->sd[k] * elem, to[k].p, to[k].n * elem);
    to[k].n = 0;
  }
  MPI_Alltoall(d->sc, 1, MPI_INT, d->rc, 1, MPI_INT, MPI_COMM_WORLD);
  uint64_t rtotal = 0;
  for (int k = 0; k < d->np; k++) {
    d->rd[k] = (int)rtotal;
    rtotal += (uint64_t)d->rc[k];
  }
  if (agree_fail(buf_reserve(in, rtotal ? rtotal : 1, elem))) return TS_ERR_NOMEM;
  in->n = rtotal;
  MPI_Alltoallv(packed->p, d->sc, d->sd, type, in->p, d->rc, d->rd, type, MPI_COMM_WORLD);
  return TS_OK;
}

static int key_cmp(const void *a, const void *b) {
  Key x = *(const Key *)a, y = *(const Key *)b;
  return x < y ? -1 : x > y;
}

static int exchange_keys(Dist *d, Buf *packed, Buf *in) {
  return exchange(d, d->to, sizeof(Key), d->key_type, packed, in, TS_OK);
}

/* Any rank still has work: every rank must call it the same number of times. */
static bool any_rank(bool mine) {
  int m = mine, all = 0;
  MPI_Allreduce(&m, &all, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  return all != 0;
}

static uint64_t max_ranks(uint64_t x) {
  uint64_t m = 0;
  MPI_Allreduce(&x, &m, 1, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
  return m;
}

static uint64_t sum_ranks(uint64_t x) {
  uint64_t s = 0;
  MPI_Allreduce(&x, &s, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
  return s;
}

static int send_lists(Dist *d, SpillList *const *lists, int nl, size_t elem, SpillList *mine, int rc);

/* A mate phase's lists (every rank's mates of its king squares) sent to the mates' owners, who insert them. */
static int deliver_mates(Retro *r, SpillList *const *lists, int nl, int rc, uint64_t *found) {
  Dist *d = r->mates_ctx;
  SpillList mine;
  retro_spill_init(&mine, sizeof(Key), retro_spill_cap(r, sizeof(Key)), r->opt.spill_prefix);
  rc = send_lists(d, lists, nl, sizeof(Key), &mine, rc);
  if (!rc) {
    SpillList *in[1] = {&mine};
    rc = retro_table_insert_lists(r, in, 1, false, 0, found);
  }
  r->stats.spilled_bytes += mine.nfile * mine.elem;
  retro_spill_free(&mine);
  return rc;
}

/* The mates: the king squares split over the ranks, each mate sent to its owner. */
static int dist_mates(Dist *d, TsError *err) {
  Retro *r = d->r;
  r->king_first = r->rank;
  r->king_step = r->nranks;
  r->mates_deliver = deliver_mates;
  r->mates_ctx = d;
  int rc = retro_mates_run(r, err);
  r->mates_deliver = NULL;
  r->mates_ctx = NULL;
  if (agree_fail(rc) && !rc) rc = ts_error_set(err, TS_ERR_NOMEM, "enumerate", 0, 0, "another rank failed");
  r->stats.mates = sum_ranks(r->stats.mates);
  r->stats.defender_by_len[0] = r->stats.mates;
  return rc;
}

/* Un-moves from the frontier record at `slot` into the owners' buffers;
 * returns the number of positions made. */
static uint64_t unmove_record(Dist *d, const XRecord *rec, bool defender, unsigned kinds, UnMoveList *ul, int *rc) {
  Retro *r = d->r;
  Square sqs[SQ_NB];
  int ns = retro_xr_squares(rec, sqs);
  uint64_t made = 0;
  for (int s = 0; s < ns && !*rc; s++) {
    Position x;
    retro_key_decode(retro_xkey_join(rec->core, sqs[s]), &x);
    if (!defender)
      retro_generate(&x, ul);
    else
      retro_generate_kinds(&x, ul, kinds);
    for (int j = 0; j < ul->size && !*rc; j++) {
      const Position *q = &ul->prev[j];
      if (defender && (!q->checkers || (ul->u[j].captured && !retro_within_material(r, q)))) continue;
      Key k;
      Square sq;
      Key c = retro_pos_split(q, &k, &sq);
      *rc = buf_push(&d->to[retro_owner(c, d->np)], &k, sizeof k);
      made++;
    }
  }
  return made;
}

/* A defender layer's candidates (in->p, every rank's, sorted here): each
 * distinct one not in the table asks the owners of its replies for their
 * values; those all known make it a new position of value 1 + the longest,
 * one unknown counts a 不詰め判定 per time the candidate was made. */
static int defender_round(Dist *d, Buf *in, Buf *packed, Buf *req, Buf *cand, Buf *dests, Buf *vals, Buf *outs,
                          uint64_t *hits) {
  Retro *r = d->r;
  Key *ks = in->p;
  qsort(ks, in->n, sizeof *ks, key_cmp);
  cand->n = dests->n = 0;
  int rc = TS_OK;
  /* candidate: key, times made, replies asked of other ranks, the longest reply known here */
  typedef struct {
    Key k;
    uint32_t times;
    int32_t nrep;
    int32_t best;
  } Cand;
  for (uint64_t i = 0; i < in->n && !rc;) {
    uint64_t j = i;
    while (j < in->n && ks[j] == ks[i]) j++;
    Cand c = {ks[i], (uint32_t)(j - i), 0, -1};
    i = j;
    Square sq;
    Key core = retro_xkey_split(c.k, &sq);
    if (table_get_split(r, core, sq) >= 0) continue;
    Position q;
    retro_key_decode(c.k, &q);
    MoveList l;
    movegen_legal(&q, &l);
    /* the replies this rank owns first: one unknown settles it without asking */
    Key pk[MAX_MOVES];
    uint16_t pd[MAX_MOVES];
    bool unknown = false;
    for (int m = 0; m < l.size && !unknown; m++) {
      Position p = q;
      Undo u;
      pos_do_move(&p, l.moves[m], &u);
      Square psq;
      Key pc = retro_pos_split(&p, &pk[m], &psq);
      pd[m] = (uint16_t)retro_owner(pc, d->np);
      if (pd[m] != r->rank) continue;
      int v = table_get_split(r, pc, psq);
      if (v < 0) unknown = true;
      else if (v > c.best) c.best = v;
    }
    if (unknown) {
      *hits += c.times;
      continue;
    }
    for (int m = 0; m < l.size && !rc; m++) {
      if (pd[m] == r->rank) continue;
      rc = buf_push(&d->to[pd[m]], &pk[m], sizeof pk[m]);
      if (!rc) rc = buf_push(dests, &pd[m], sizeof pd[m]);
      c.nrep++;
    }
    if (!rc) rc = buf_push(cand, &c, sizeof c);
  }
  /* every rank takes part in both exchanges, whatever its own work */
  if (agree_fail(rc)) return rc ? rc : TS_ERR_NOMEM;
  if ((rc = exchange_keys(d, packed, req))) return rc;
  /* the answers: each request's value here (-1: not in the table) */
  if (agree_fail(buf_reserve(vals, req->n ? req->n : 1, sizeof(int16_t)))) return TS_ERR_NOMEM;
  int16_t *ans = vals->p;
  for (uint64_t i = 0; i < req->n; i++) {
    Square sq;
    Key core = retro_xkey_split(((Key *)req->p)[i], &sq);
    ans[i] = (int16_t)table_get_split(r, core, sq);
  }
  /* back to the askers: what came from rank k (rc[k] at rd[k]) goes back to k */
  int *back_c = malloc((size_t)d->np * sizeof *back_c), *back_d = malloc((size_t)d->np * sizeof *back_d);
  Buf got = {0};
  uint64_t asked = 0;
  for (int k = 0; k < d->np; k++) asked += (uint64_t)d->sc[k];
  if (agree_fail(!back_c || !back_d || buf_reserve(&got, asked ? asked : 1, sizeof(int16_t)))) {
    free(back_c);
    free(back_d);
    free(got.p);
    return TS_ERR_NOMEM;
  }
  for (int k = 0; k < d->np; k++) {
    back_c[k] = d->sc[k];
    back_d[k] = d->sd[k];
  }
  MPI_Alltoallv(ans, d->rc, d->rd, MPI_INT16_T, got.p, back_c, back_d, MPI_INT16_T, MPI_COMM_WORLD);
  /* the answers to this rank's requests, per owner, in the order they were asked */
  const int16_t *v = got.p;
  const uint16_t *dst = dests->p;
  uint64_t di = 0;
  for (int k = 0; k < d->np; k++) back_c[k] = 0;
  const Cand *cs = cand->p;
  for (uint64_t i = 0; i < cand->n && !rc; i++) {
    int best = cs[i].best;
    bool unknown = false;
    for (int32_t m = 0; m < cs[i].nrep; m++) {
      uint16_t k = dst[di++];
      int x = v[back_d[k] + back_c[k]++];
      if (x < 0) unknown = true;
      else if (x > best) best = x;
    }
    if (unknown) {
      *hits += cs[i].times;
      continue;
    }
    KeyVal kv = {cs[i].k, (uint16_t)(best + 1)};
    rc = buf_push(outs, &kv, sizeof kv);
  }
  free(back_c);
  free(back_d);
  free(got.p);
  return rc;
}

/* One layer over the ranks: the new positions of layer n from the frontier (layer n-1). */
static int dist_phase(Dist *d, int n, bool defender, unsigned kinds, Buf *packed, Buf *in, TsError *err) {
  Retro *r = d->r;
  UnMoveList ul;
  ul.prev = malloc(MAX_UNMOVES * sizeof *ul.prev);
  Buf req = {0}, cand = {0}, dests = {0}, vals = {0}, outs = {0};
  int rc = ul.prev ? TS_OK : TS_ERR_NOMEM;
  uint64_t slot = 0, hits = 0;
  bool more = true;
  while (any_rank(more)) {
    uint64_t made = 0;
    for (; slot < r->cap && made < DIST_BATCH && !rc; slot++) {
      const XRecord *rec = &r->tab[slot];
      if (!rec->core || key_side(rec->core) == (int)defender || xr_value(rec) != n - 1) continue;
      made += unmove_record(d, rec, defender, kinds, &ul, &rc);
    }
    more = slot < r->cap;
    if (agree_fail(rc) || (rc = exchange_keys(d, packed, in))) {
      if (!rc) rc = TS_ERR_NOMEM;
      break;
    }
    if (!defender) {
      for (uint64_t i = 0; i < in->n && !rc; i++) {
        Key k = ((Key *)in->p)[i];
        Square sq;
        Key core = retro_xkey_split(k, &sq);
        if (table_get_split(r, core, sq) >= 0) {
          hits++;
          continue;
        }
        KeyVal kv = {k, (uint16_t)n};
        rc = buf_push(&outs, &kv, sizeof kv);
      }
    } else {
      rc = defender_round(d, in, packed, &req, &cand, &dests, &vals, &outs, &hits);
    }
    retro_report(r, "layers", n, outs.n, slot, r->cap);
    if (agree_fail(rc)) {
      if (!rc) rc = TS_ERR_NOMEM;
      break;
    }
  }
  uint64_t used0 = r->used;
  const KeyVal *o = outs.p;
  for (uint64_t i = 0; i < outs.n && !rc; i++) rc = retro_record_value(r, o[i].k, o[i].v, n, NULL);
  if (defender)
    r->stats.fuzume_hits[n] = sum_ranks(hits);
  else
    r->stats.yozume_hits[n] = sum_ranks(hits + (outs.n - (r->used - used0)));
  free(ul.prev);
  free(req.p);
  free(cand.p);
  free(dests.p);
  free(vals.p);
  free(outs.p);
  if (rc) return ts_error_set(err, rc, "enumerate", 0, 0, "out of memory at layer %d (rank %d)", n, r->rank);
  return TS_OK;
}

/* The counts of positions by side and value over every rank. */
static void global_counts(const Retro *r, uint64_t g[2][RETRO_MAX_LEN + 2]) {
  MPI_Allreduce(r->count, g, 2 * (RETRO_MAX_LEN + 2), MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
}

static bool pending_after(uint64_t g[2][RETRO_MAX_LEN + 2], int n) {
  for (int v = n + 1; v <= RETRO_MAX_LEN + 1; v++)
    if (g[1][v]) return true;
  return false;
}

static int dist_phase_records(Dist *d, int n, bool defender, unsigned kinds, TsError *err);

/* Layer n over the ranks: made on the records, or position by position with --concrete. */
static int dist_layer(Dist *d, int n, bool defender, unsigned kinds, Buf *packed, Buf *in, TsError *err) {
  return d->r->opt.concrete_unmoves ? dist_phase(d, n, defender, kinds, packed, in, err)
                                    : dist_phase_records(d, n, defender, kinds, err);
}

static int dist_layers(Dist *d, Buf *packed, Buf *in, TsError *err) {
  Retro *r = d->r;
  unsigned kinds = 0;
  for (int t = PAWN; t <= GOLD; t++)
    if (r->mat.count[t]) kinds |= 1u << t;
  uint64_t g[2][RETRO_MAX_LEN + 2];
  for (int n = 1; n <= r->opt.max_moves; n += 2) {
    int rc = dist_layer(d, n, false, kinds, packed, in, err);
    if (rc) return rc;
    global_counts(r, g);
    r->stats.attacker_by_len[n] = g[0][n];
    r->stats.last_layer = n;
    r->stats.layers_cut = g[0][n] != 0 || pending_after(g, n);
    if (!r->stats.layers_cut || n + 1 > r->opt.max_moves) break;
    rc = dist_layer(d, n + 1, true, kinds, packed, in, err);
    if (rc) return rc;
    global_counts(r, g);
    r->stats.defender_by_len[n + 1] = g[1][n + 1];
    r->stats.layers_cut = g[1][n + 1] != 0 || pending_after(g, n + 1);
    if (!r->stats.layers_cut) break;
  }
  return TS_OK;
}

/* The table held in memory shared by the ranks of one machine (MPI-3 shared
 * window): released with the window. */
typedef struct {
  MPI_Win win;
  MPI_Comm node;
} SharedTable;

static void release_shared(Retro *r) {
  SharedTable *s = r->tab_owner;
  MPI_Win_free(&s->win);
  MPI_Comm_free(&s->node);
  free(s);
  r->tab = NULL;
  r->tab_owner = NULL;
  r->tab_release = NULL;
}

/*
 * Every rank's records into one table per machine, for the classification:
 * the ranks of a machine share it (an MPI-3 shared window, filled by the
 * machine's first rank), so a machine holds the whole table once whatever
 * its number of ranks. Each rank's share goes out to all in turn (broadcast).
 */
static int gather_table(Dist *d, TsError *err) {
  Retro *r = d->r;
  uint64_t mine = r->records, *all = calloc((size_t)d->np, sizeof *all);
  XRecord *own = malloc((mine ? mine : 1) * sizeof *own);
  SharedTable *sh = calloc(1, sizeof *sh);
  int rc = (all && own && sh) ? TS_OK : TS_ERR_NOMEM;
  if (agree_fail(rc)) {
    free(all);
    free(own);
    free(sh);
    return ts_error_set(err, TS_ERR_NOMEM, "enumerate", 0, 0, "out of memory gathering the table");
  }
  uint64_t m = 0, total = 0;
  for (uint64_t i = 0; i < r->cap; i++)
    if (r->tab[i].core) own[m++] = r->tab[i];
  MPI_Allgather(&m, 1, MPI_UINT64_T, all, 1, MPI_UINT64_T, MPI_COMM_WORLD);
  for (int k = 0; k < d->np; k++) total += all[k];
  /* a capacity that takes every record without growing (retro_table_put_record's test) */
  uint64_t cap = (uint64_t)1 << 16;
  while (total * 10 > cap * 6) cap *= 2;
  retro_table_free_mem(r);
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, r->rank, MPI_INFO_NULL, &sh->node);
  int nrank;
  MPI_Comm_rank(sh->node, &nrank);
  /* the window's base need not be 16-byte aligned (the keys are): 64 bytes more, and the
   * first rank's padding to a 64-byte boundary (the same in every process, whose mappings
   * start on a page) */
  char *raw = NULL;
  int mrc = MPI_Win_allocate_shared(nrank == 0 ? (MPI_Aint)(cap * sizeof(XRecord) + 64) : 0, 1, MPI_INFO_NULL,
                                    sh->node, &raw, &sh->win);
  if (agree_fail(mrc != MPI_SUCCESS)) {
    MPI_Comm_free(&sh->node);
    free(sh);
    free(all);
    free(own);
    return ts_error_set(err, TS_ERR_NOMEM, "enumerate", 0, 0, "cannot allocate the shared table of %llu MB",
                        (unsigned long long)(cap * sizeof(XRecord) >> 20));
  }
  if (nrank != 0) {
    MPI_Aint size;
    int unit;
    MPI_Win_shared_query(sh->win, 0, &size, &unit, &raw);
  }
  int pad = (int)((64 - (uintptr_t)raw % 64) % 64);
  MPI_Bcast(&pad, 1, MPI_INT, 0, sh->node);
  XRecord *base = (XRecord *)(void *)(raw + pad);
  if (nrank == 0) memset(base, 0, cap * sizeof(XRecord));
  r->tab = base;
  r->cap = cap;
  r->records = r->used = 0;
  r->tab_owner = sh;
  r->tab_release = release_shared;
  /* one rank's records at a time, so only one other share is in flight */
  XRecord *theirs = NULL;
  for (int k = 0; k < d->np; k++) {
    uint64_t nk = all[k];
    XRecord *buf = k == r->rank ? own : (theirs = realloc(theirs, (nk ? nk : 1) * sizeof *theirs));
    if (agree_fail(buf == NULL || rc)) {
      rc = TS_ERR_NOMEM;
      break;
    }
    MPI_Bcast(buf, (int)nk, d->rec_type, k, MPI_COMM_WORLD);
    for (uint64_t i = 0; nrank == 0 && i < nk && !rc; i++) rc = retro_table_put_record(r, &buf[i]);
  }
  /* the first rank's stores are seen by the others after the barrier */
  __atomic_thread_fence(__ATOMIC_SEQ_CST);
  MPI_Barrier(sh->node);
  __atomic_thread_fence(__ATOMIC_SEQ_CST);
  free(theirs);
  free(own);
  free(all);
  if (rc) return ts_error_set(err, rc, "enumerate", 0, 0, "out of memory gathering the table (rank %d)", r->rank);
  return TS_OK;
}

typedef struct {
  Dist *d;
  size_t elem; /* bytes of an item, its key first */
  Buf *to, packed, in;
  MPI_Datatype type;
  SpillList *mine; /* the items this rank owns, sent or its own */
  uint64_t buffered;
  int rc;     /* this rank's failure, agreed at the next round */
  bool broke; /* a round failed on every rank: no more rounds */
} ListSend;

/* One round: what is gathered goes to its owners, what comes is kept; whether any rank goes on (more: this
 * one). */
static bool send_round(ListSend *k, bool more) {
  if (k->broke) return false;
  int rc = exchange(k->d, k->to, k->elem, k->type, &k->packed, &k->in, k->rc);
  if (rc) {
    if (!k->rc) k->rc = rc;
    k->broke = true;
    return false;
  }
  const uint8_t *p = k->in.p;
  for (uint64_t i = 0; i < k->in.n && !k->rc; i++) k->rc = retro_spill_push(k->mine, p + i * k->elem);
  k->buffered = 0;
  return any_rank(more);
}

static int send_item(const void *item, void *ctx) {
  ListSend *k = ctx;
  Key key;
  memcpy(&key, item, sizeof key);
  Square sq;
  int o = retro_owner(retro_xkey_split(key, &sq), k->d->np);
  if (!k->rc) k->rc = o == k->d->r->rank ? retro_spill_push(k->mine, item) : buf_push(&k->to[o], item, k->elem);
  if (o != k->d->r->rank && ++k->buffered >= DIST_BATCH) {
    send_round(k, true);
    if (k->broke) return k->rc;
  }
  return TS_OK;
}

/*
 * The items of lists (elem bytes, a key first) to the ranks that own their
 * keys, in rounds of all-to-all exchanges of at most DIST_BATCH items a rank:
 * what this rank owns into mine. Every rank calls it, with its failure so far
 * (rc); the outcome is the same on every rank.
 */
static int send_lists(Dist *d, SpillList *const *lists, int nl, size_t elem, SpillList *mine, int rc) {
  ListSend k = {.d = d, .elem = elem, .mine = mine, .rc = rc};
  k.to = calloc((size_t)d->np, sizeof *k.to);
  MPI_Type_contiguous((int)elem, MPI_BYTE, &k.type);
  MPI_Type_commit(&k.type);
  if (!k.to && !k.rc) k.rc = TS_ERR_NOMEM;
  for (int l = 0; l < nl && !k.rc && !k.broke; l++) retro_spill_foreach(lists[l], send_item, &k);
  while (send_round(&k, false)) continue;
  for (int i = 0; k.to && i < d->np; i++) free(k.to[i].p);
  free(k.to);
  free(k.packed.p);
  free(k.in.p);
  MPI_Type_free(&k.type);
  rc = k.rc;
  if (agree_fail(rc) && !rc) rc = TS_ERR_NOMEM;
  return rc;
}

/*
 * A layer made on the records (the enumeration paper's extended positions), as in one
 * process (retro_phase_unmove): each rank's threads un-move its frontier
 * records, reading every other rank's table one-sided; the new positions go
 * to their owners in rounds of all-to-all exchanges and are inserted there.
 */
static int dist_phase_records(Dist *d, int n, bool defender, unsigned kinds, TsError *err) {
  Retro *r = d->r;
  ShareState *s;
  int rc = retro_shares_layer(r, &s, err);
  if (rc) return rc;
  LayerPhase *ph = NULL;
  SpillList *const *lists = NULL;
  int nl = 0;
  uint64_t hits = 0, outs = 0;
  rc = retro_phase_unmove(r, n, defender, kinds, &ph, &lists, &nl, &hits, &outs);
  uint64_t reads[4];
  retro_shares_counts(s, reads);
  for (int k = 0; k < 4; k++) r->stats.layer_reads[k] += reads[k];
  retro_shares_drop(r, s); /* every rank's reads done: the tables may change */
  SpillList mine;
  retro_spill_init(&mine, sizeof(KeyVal), retro_spill_cap(r, sizeof(KeyVal)), r->opt.spill_prefix);
  rc = send_lists(d, lists, nl, sizeof(KeyVal), &mine, rc);
  retro_phase_free(ph);
  uint64_t used0 = r->used;
  if (!rc) {
    SpillList *in[1] = {&mine};
    rc = retro_table_insert_lists(r, in, 1, true, n, NULL);
  }
  r->stats.spilled_bytes += mine.nfile * mine.elem;
  retro_spill_free(&mine);
  if (defender)
    r->stats.fuzume_hits[n] = sum_ranks(hits);
  else
    r->stats.yozume_hits[n] = sum_ranks(hits + outs - (r->used - used0));
  if (agree_fail(rc)) {
    if (!rc) rc = TS_ERR_NOMEM;
    if (rc == TS_ERR_IO)
      return ts_error_set(err, rc, "enumerate", 0, 0, "rank %d: cannot write the new positions of layer %d beside %s",
                          r->rank, n, r->opt.spill_prefix);
    return ts_error_set(err, rc, "enumerate", 0, 0, "out of memory at layer %d (rank %d)", n, r->rank);
  }
  return TS_OK;
}

/* The threads' MPI calls MPI_Init_thread allowed (the one-sided reads of
 * retro_shares.c need MPI_THREAD_SERIALIZED with more than one thread). */
static int thread_level = MPI_THREAD_SINGLE;

int retro_mpi_thread_level(void) { return thread_level; }
bool retro_mpi_failed(int rc) { return agree_fail(rc); }

int retro_mpi_init(int *argc, char ***argv, int *rank, int *nranks) {
  int provided;
  if (MPI_Init_thread(argc, argv, MPI_THREAD_SERIALIZED, &provided) != MPI_SUCCESS) return TS_ERR_IO;
  thread_level = provided;
  MPI_Comm_rank(MPI_COMM_WORLD, rank);
  MPI_Comm_size(MPI_COMM_WORLD, nranks);
  return TS_OK;
}

void retro_mpi_finalize(void) { MPI_Finalize(); }
void retro_mpi_barrier(void) { MPI_Barrier(MPI_COMM_WORLD); }
void retro_mpi_abort(int status) { MPI_Abort(MPI_COMM_WORLD, status); }
bool retro_mpi_all_ok(bool ok) { return !any_rank(!ok); }
uint64_t retro_mpi_sum(uint64_t x) { return sum_ranks(x); }

int retro_mpi_machine_ranks(void) {
  MPI_Comm node;
  int n = 1;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  MPI_Comm_size(node, &n);
  MPI_Comm_free(&node);
  return n;
}

void retro_mpi_attach(Retro *r) {
  MPI_Comm_rank(MPI_COMM_WORLD, &r->rank);
  MPI_Comm_size(MPI_COMM_WORLD, &r->nranks);
}

/* The exchange's buffers and types of a run over the ranks of r; false when out of memory. */
static bool dist_init(Dist *d, Retro *r) {
  *d = (Dist){.r = r};
  retro_mpi_attach(r);
  d->np = r->nranks;
  d->to = calloc((size_t)d->np, sizeof *d->to);
  d->sc = calloc((size_t)d->np * 4, sizeof *d->sc);
  if (!d->to || !d->sc) {
    free(d->to);
    free(d->sc);
    return false;
  }
  d->rc = d->sc + d->np;
  d->sd = d->rc + d->np;
  d->rd = d->sd + d->np;
  MPI_Type_contiguous((int)sizeof(Key), MPI_BYTE, &d->key_type);
  MPI_Type_commit(&d->key_type);
  MPI_Type_contiguous((int)sizeof(XRecord), MPI_BYTE, &d->rec_type);
  MPI_Type_commit(&d->rec_type);
  return true;
}

static void dist_free(Dist *d) {
  for (int k = 0; k < d->np; k++) free(d->to[k].p);
  MPI_Type_free(&d->key_type);
  MPI_Type_free(&d->rec_type);
  free(d->to);
  free(d->sc);
}

int retro_run_distributed(Retro *r, TsError *err) {
  if (r->ranging)
    return ts_error_set(err, TS_ERR_USAGE, "enumerate", 0, 0,
                        "a distributed run takes a material without ranging pieces (R, B, L)");
  Dist d;
  bool ok = dist_init(&d, r);
  if (agree_fail(ok ? TS_OK : TS_ERR_NOMEM)) {
    if (ok) dist_free(&d);
    return ts_error_set(err, TS_ERR_NOMEM, "enumerate", 0, 0, "out of memory");
  }
  Buf packed = {0}, in = {0};
  uint64_t t0 = retro_now_ms();
  int rc = dist_mates(&d, err);
  uint64_t t1 = retro_now_ms();
  r->stats.ms_mates = t1 - t0;
  if (!rc) rc = dist_layers(&d, &packed, &in, err);
  r->stats.ms_layers = retro_now_ms() - t1;
  r->stats.entries = sum_ranks(r->used);
  r->stats.records = sum_ranks(r->records);
  r->stats.table_dense = r->dense; /* this rank's share (its checkpoint keeps it) */
  free(packed.p);
  free(in.p);
  if (rc && r->over_limit)
    rc = ts_error_set(err, TS_ERR_NOMEM, "enumerate", 0, 0,
                      "rank %d: the table (%llu MB) cannot double within the memory ceiling of %llu MB nor go on in "
                      "a file beside the shard: %s (raise --mem, free disk space, or add ranks on other machines)",
                      r->rank, (unsigned long long)(r->cap * sizeof(XRecord) >> 20),
                      (unsigned long long)(r->opt.table_limit >> 20), strerror(r->tab_errno));
  dist_free(&d);
  return rc;
}

int retro_gather_distributed(Retro *r, RetroTableMode mode, TsError *err) {
  Dist d;
  bool ok = dist_init(&d, r);
  if (agree_fail(ok ? TS_OK : TS_ERR_NOMEM)) {
    if (ok) dist_free(&d);
    return ts_error_set(err, TS_ERR_NOMEM, "enumerate", 0, 0, "out of memory");
  }
  int rc = mode == RETRO_TABLE_WHOLE ? gather_table(&d, err) : retro_shares_table(r, mode == RETRO_TABLE_REMOTE, err);
  /* the classification's table (the whole one, or the shares summed), in memory the machine's ranks share */
  r->stats.table_bytes = mode == RETRO_TABLE_WHOLE ? r->cap * sizeof(XRecord) : sum_ranks(r->cap * sizeof(XRecord));
  r->stats.share_bytes_max = mode == RETRO_TABLE_WHOLE ? 0 : max_ranks(r->cap * sizeof(XRecord));
  r->stats.table_file = 0;
  dist_free(&d);
  return rc;
}

void retro_mpi_sum_reads(Retro *r) {
  uint64_t reads[4];
  retro_shares_counts(retro_shares_of(r), reads);
  r->stats.remote_reads = sum_ranks(reads[0]);
  r->stats.remote_cached = sum_ranks(reads[1]);
  r->stats.remote_gets = sum_ranks(reads[2]);
  r->stats.remote_trips = sum_ranks(reads[3]);
  for (int k = 0; k < 4; k++) r->stats.layer_reads[k] = sum_ranks(r->stats.layer_reads[k]);
}
