/*
 * retro_shares.c - a distributed run's reads of the table over the ranks
 * (built only with MPI; retro_mpi.c runs the phases).
 *
 * Each rank's records stay with it. A layer reads its own table in memory
 * and the other ranks' by one-sided MPI reads (MPI_Get under a passive
 * MPI_Win_lock_all, so an owner does nothing to answer), which the tables
 * allow since they change only between the phases. For the classification
 * each rank's share is put in memory the ranks of its machine share (an MPI-3
 * shared window per machine), which they read there; a share on another
 * machine is read one-sided (RETRO_TABLE_REMOTE makes each rank a machine of
 * its own). A read fetches a run of slots from where the key's probe run
 * starts; a thread keeps every record of a key it read (so the key's other
 * squares, and its absence, are answered without another read), and the
 * look-ups of one position's children that miss go out together, in one
 * round trip. Threads take turns at the MPI calls (MPI_THREAD_SERIALIZED).
 */
#include <mpi.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "retro_internal.h"
#include "retro_shares.h"

/* slots a one-sided read fetches: a probe run is most often shorter */
#define REMOTE_SLOTS 8
/* a thread's cache of remote records: by record key, the records of that key
 * (at most REMOTE_RECS: a key has one record per value) */
#define REMOTE_CACHE_BITS 19
#define REMOTE_RECS 3

typedef struct {
  Key c;                 /* 0: empty */
  uint64_t lo[REMOTE_RECS], hi[REMOTE_RECS];
  uint8_t n;             /* records of key c */
  bool whole;            /* they are all of them (the probe run was read to its end) */
} RemoteEntry;

/* A thread's remote state: its cache, and the slots a batch of reads fetches. */
typedef struct {
  RemoteEntry cache[(size_t)1 << REMOTE_CACHE_BITS];
  XRecord buf[MAX_MOVES][REMOTE_SLOTS];
} RemoteThread;

typedef struct ShareState {
  RetroShares pub;
  const XRecord **base;
  uint64_t *cap;
  MPI_Comm node;
  MPI_Win node_win, world_win;
  bool across;          /* some share is on another machine: world_win is made */
  pthread_mutex_t lock; /* one thread's MPI calls at a time */
  uint64_t gen;
  RemoteThread **threads; /* the threads' states, freed with the shares */
  int nthreads, cap_threads;
  /* look-ups of remote records, those a cache answered, reads made, round trips (flushes) */
  uint64_t reads, cached, gets, trips;
} ShareState;

static uint64_t share_gen;
static __thread RemoteThread *t_remote;
static __thread uint64_t t_gen;

static RemoteThread *remote_thread(ShareState *s) {
  if (t_gen == s->gen) return t_remote;
  RemoteThread *t = calloc(1, sizeof *t);
  if (!t) return NULL;
  pthread_mutex_lock(&s->lock);
  if (s->nthreads == s->cap_threads) {
    int nc = s->cap_threads ? 2 * s->cap_threads : 8;
    RemoteThread **nn = realloc(s->threads, (size_t)nc * sizeof *nn);
    if (!nn) {
      pthread_mutex_unlock(&s->lock);
      free(t);
      return NULL;
    }
    s->threads = nn;
    s->cap_threads = nc;
  }
  s->threads[s->nthreads++] = t;
  pthread_mutex_unlock(&s->lock);
  t_remote = t;
  t_gen = s->gen;
  return t;
}

static RemoteEntry *cache_slot(RemoteThread *t, Key c) {
  return &t->cache[key_hash(c) >> (64 - REMOTE_CACHE_BITS)];
}

/* The value of (c, sq) a cache entry knows: 1 and *v (-1: no such position), else 0. */
static int cache_value(const RemoteEntry *e, Key c, Square sq, int *v) {
  if (e->c != c) return 0;
  for (int k = 0; k < e->n; k++) {
    XRecord x = {c, e->lo[k], e->hi[k]};
    if (xr_has(&x, sq)) {
      *v = xr_value(&x);
      return 1;
    }
  }
  if (!e->whole) return 0;
  *v = -1;
  return 1;
}

/* Starts reading the slots of rank o's share from slot i on (at most REMOTE_SLOTS, not past its end) into
 * buf; their number. Under s->lock. */
static int remote_get(ShareState *s, int o, uint64_t i, XRecord *buf) {
  uint64_t cap = s->cap[o];
  int n = cap - i < REMOTE_SLOTS ? (int)(cap - i) : REMOTE_SLOTS;
  MPI_Get(buf, n * (int)sizeof(XRecord), MPI_BYTE, o, (MPI_Aint)(i * sizeof(XRecord)), n * (int)sizeof(XRecord),
          MPI_BYTE, s->world_win);
  return n;
}

/* n slots read from key c's probe run into e (started empty for c): whether they end the run. With only a
 * square (not SQ_NB), only the records holding it are kept. */
static bool scan_slots(const XRecord *buf, int n, Key c, RemoteEntry *e, Square only) {
  for (int k = 0; k < n; k++) {
    if (!buf[k].core) {
      e->whole = e->n <= REMOTE_RECS;
      if (!e->whole) e->n = REMOTE_RECS;
      return true;
    }
    if (buf[k].core != c || (only != SQ_NB && !xr_has(&buf[k], only))) continue;
    if (e->n < REMOTE_RECS) {
      e->lo[e->n] = buf[k].lo;
      e->hi[e->n] = buf[k].hi;
    }
    e->n++;
  }
  return false;
}

/* Reads key c's records from rank o's share into e, a run of slots at a time, from slot i on (the slots
 * before it already scanned into e). */
static void remote_follow(ShareState *s, int o, Key c, uint64_t i, RemoteEntry *e, XRecord *buf, Square only) {
  uint64_t mask = s->cap[o] - 1, gets = 0;
  pthread_mutex_lock(&s->lock);
  for (;;) {
    int n = remote_get(s, o, i, buf);
    MPI_Win_flush(o, s->world_win);
    gets++;
    if (scan_slots(buf, n, c, e, only)) break;
    i = (i + (uint64_t)n) & mask;
  }
  pthread_mutex_unlock(&s->lock);
  if (e->n > REMOTE_RECS) e->n = REMOTE_RECS; /* more than kept: not whole */
  __atomic_fetch_add(&s->gets, gets, __ATOMIC_RELAXED);
  __atomic_fetch_add(&s->trips, gets, __ATOMIC_RELAXED);
}

/* The value of (c, sq) in rank o's share, from the thread's cache or read into it. */
static int remote_value(ShareState *s, RemoteThread *t, int o, Key c, Square sq) {
  XRecord buf[REMOTE_SLOTS];
  RemoteEntry own, *e = t ? cache_slot(t, c) : &own;
  int v;
  if (t && cache_value(e, c, sq, &v)) {
    __atomic_fetch_add(&s->cached, 1, __ATOMIC_RELAXED);
    return v;
  }
  *e = (RemoteEntry){.c = c};
  remote_follow(s, o, c, key_hash(c) & (s->cap[o] - 1), e, buf, SQ_NB);
  if (cache_value(e, c, sq, &v)) return v;
  /* more records of c than an entry keeps, none of them with sq: the run read again for sq's record alone
   * (not kept: the entry no longer stands for all of c) */
  *e = (RemoteEntry){.c = c};
  remote_follow(s, o, c, key_hash(c) & (s->cap[o] - 1), e, buf, sq);
  v = e->n ? xr_value(&(XRecord){c, e->lo[0], e->hi[0]}) : -1;
  e->c = 0;
  return v;
}

static int share_remote(const RetroShares *pub, int o, Key c, Square sq) {
  ShareState *s = pub->ctx;
  __atomic_fetch_add(&s->reads, 1, __ATOMIC_RELAXED);
  return remote_value(s, remote_thread(s), o, c, sq);
}

/* n look-ups at once: the remote keys the cache does not know read together, in one round trip. */
static void share_many(const RetroShares *pub, int n, const Key *c, const Square *sq, int *out) {
  ShareState *s = pub->ctx;
  RemoteThread *t = remote_thread(s);
  if (!t) {
    for (int i = 0; i < n; i++) out[i] = shares_get(pub, c[i], sq[i]);
    return;
  }
  int pend[MAX_MOVES], got[MAX_MOVES], np = 0, nremote = 0, hits = 0;
  bool later[MAX_MOVES];
  for (int i = 0; i < n; i++) {
    int o = retro_owner(c[i], s->pub.nranks);
    later[i] = false;
    if (s->base[o]) {
      out[i] = table_probe(s->base[o], s->cap[o], c[i], sq[i]);
      continue;
    }
    nremote++;
    if (cache_value(cache_slot(t, c[i]), c[i], sq[i], &out[i])) {
      hits++;
      continue;
    }
    later[i] = true;
    bool again = false; /* a key read once for the batch */
    for (int k = 0; k < np && !again; k++) again = c[pend[k]] == c[i];
    if (!again) pend[np++] = i;
  }
  if (np) {
    pthread_mutex_lock(&s->lock);
    for (int k = 0; k < np; k++) {
      int o = retro_owner(c[pend[k]], s->pub.nranks);
      got[k] = remote_get(s, o, key_hash(c[pend[k]]) & (s->cap[o] - 1), t->buf[k]);
    }
    MPI_Win_flush_all(s->world_win);
    pthread_mutex_unlock(&s->lock);
    __atomic_fetch_add(&s->gets, (uint64_t)np, __ATOMIC_RELAXED);
    __atomic_fetch_add(&s->trips, 1, __ATOMIC_RELAXED);
    for (int k = 0; k < np; k++) {
      Key ck = c[pend[k]];
      int o = retro_owner(ck, s->pub.nranks);
      RemoteEntry *e = cache_slot(t, ck);
      *e = (RemoteEntry){.c = ck};
      /* a probe run longer than the slots read: followed on its own */
      if (!scan_slots(t->buf[k], got[k], ck, e, SQ_NB)) {
        uint64_t mask = s->cap[o] - 1;
        remote_follow(s, o, ck, ((key_hash(ck) & mask) + (uint64_t)got[k]) & mask, e, t->buf[k], SQ_NB);
      }
    }
    /* the look-ups from the entries just read (two keys of the batch on one entry, or a key of more
     * records than an entry keeps: read again) */
    for (int i = 0; i < n; i++)
      if (later[i] && !cache_value(cache_slot(t, c[i]), c[i], sq[i], &out[i]))
        out[i] = remote_value(s, t, retro_owner(c[i], s->pub.nranks), c[i], sq[i]);
  }
  if (nremote) __atomic_fetch_add(&s->reads, (uint64_t)nremote, __ATOMIC_RELAXED);
  if (hits) __atomic_fetch_add(&s->cached, (uint64_t)hits, __ATOMIC_RELAXED);
}

void retro_shares_drop(Retro *r, ShareState *s) {
  if (s->across) {
    MPI_Win_unlock_all(s->world_win);
    MPI_Win_free(&s->world_win);
  }
  for (int k = 0; k < s->nthreads; k++) free(s->threads[k]);
  free(s->threads);
  pthread_mutex_destroy(&s->lock);
  free(s->base);
  free(s->cap);
  free(s);
  r->shares = NULL;
}

static void release_shares(Retro *r) {
  ShareState *s = r->tab_owner;
  MPI_Comm node = s->node;
  MPI_Win node_win = s->node_win;
  retro_shares_drop(r, s);
  MPI_Win_free(&node_win);
  MPI_Comm_free(&node);
  r->tab = NULL;
  r->tab_owner = NULL;
  r->tab_release = NULL;
}

/* The state of shares over the r->nranks ranks, their capacities gathered; NULL (on every rank) when out of
 * memory. */
static ShareState *shares_new(Retro *r) {
  ShareState *s = calloc(1, sizeof *s);
  if (s) {
    s->base = calloc((size_t)r->nranks, sizeof *s->base);
    s->cap = calloc((size_t)r->nranks, sizeof *s->cap);
  }
  bool ok = s && s->base && s->cap;
  if (retro_mpi_failed(ok ? TS_OK : TS_ERR_NOMEM)) {
    if (s) {
      free(s->base);
      free(s->cap);
    }
    free(s);
    return NULL;
  }
  uint64_t cap = r->cap;
  MPI_Allgather(&cap, 1, MPI_UINT64_T, s->cap, 1, MPI_UINT64_T, MPI_COMM_WORLD);
  pthread_mutex_init(&s->lock, NULL);
  s->gen = ++share_gen;
  s->pub = (RetroShares){.nranks = r->nranks, .base = s->base, .cap = s->cap, .remote = share_remote,
                          .many = share_many, .ctx = s};
  return s;
}

/* Opens the window of one-sided reads on this rank's table (a collective call; made when some share is
 * elsewhere) and makes r read through s. */
static void shares_open(Retro *r, ShareState *s, bool across) {
  s->across = across;
  if (across) {
    MPI_Win_create(r->tab, (MPI_Aint)(r->cap * sizeof(XRecord)), 1, MPI_INFO_NULL, MPI_COMM_WORLD, &s->world_win);
    MPI_Win_lock_all(MPI_MODE_NOCHECK, s->world_win);
  }
  r->shares = &s->pub;
}

int retro_shares_layer(Retro *r, ShareState **out, TsError *err) {
  ShareState *s = shares_new(r);
  *out = s;
  if (!s) return ts_error_set(err, TS_ERR_NOMEM, "enumerate", 0, 0, "out of memory sharing the table");
  s->base[r->rank] = r->tab;
  shares_open(r, s, r->nranks > 1);
  if (retro_mpi_failed(r->nranks > 1 && retro_mpi_thread_level() < MPI_THREAD_SERIALIZED && r->opt.threads > 1
                           ? TS_ERR_USAGE
                           : TS_OK)) {
    retro_shares_drop(r, s);
    *out = NULL;
    return ts_error_set(err, TS_ERR_USAGE, "enumerate", 0, 0,
                        "this MPI does not let threads make calls (MPI_THREAD_SERIALIZED): run with --threads 1");
  }
  return TS_OK;
}

int retro_shares_table(Retro *r, bool remote_all, TsError *err) {
  ShareState *s = shares_new(r);
  if (!s) return ts_error_set(err, TS_ERR_NOMEM, "enumerate", 0, 0, "out of memory sharing the table");
  uint64_t cap = r->cap;
  if (remote_all)
    MPI_Comm_split(MPI_COMM_WORLD, r->rank, 0, &s->node);
  else
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, r->rank, MPI_INFO_NULL, &s->node);
  int nn, nrank;
  MPI_Comm_size(s->node, &nn);
  MPI_Comm_rank(s->node, &nrank);
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "alloc_shared_noncontig", "true");
  /* 64 bytes more: the keys are 16-byte aligned, the segment need not be */
  char *raw = NULL;
  size_t bytes = (size_t)cap * sizeof(XRecord);
  int mrc = MPI_Win_allocate_shared((MPI_Aint)(bytes + 64), 1, info, s->node, &raw, &s->node_win);
  MPI_Info_free(&info);
  int *world = mrc == MPI_SUCCESS ? malloc((size_t)nn * sizeof *world) : NULL;
  if (retro_mpi_failed(world ? TS_OK : TS_ERR_NOMEM)) {
    if (mrc == MPI_SUCCESS) MPI_Win_free(&s->node_win);
    MPI_Comm_free(&s->node);
    free(world);
    retro_shares_drop(r, s);
    return ts_error_set(err, TS_ERR_NOMEM, "enumerate", 0, 0, "rank %d: cannot allocate a shared share of %llu MB",
                        r->rank, (unsigned long long)(bytes >> 20));
  }
  XRecord *mine = (XRecord *)(void *)(raw + (64 - (uintptr_t)raw % 64) % 64);
  memcpy(mine, r->tab, bytes);
  retro_table_free_mem(r);
  r->tab = mine;
  r->cap = cap;
  /* the machine's other shares, at the offset of their own alignment (mappings start on a page) */
  MPI_Allgather(&r->rank, 1, MPI_INT, world, 1, MPI_INT, s->node);
  for (int k = 0; k < nn; k++) {
    MPI_Aint size;
    int unit;
    char *p;
    MPI_Win_shared_query(s->node_win, k, &size, &unit, &p);
    s->base[world[k]] = (const XRecord *)(const void *)(p + (64 - (uintptr_t)p % 64) % 64);
  }
  free(world);
  /* one-sided reads when some share is on another machine (nn < np on every rank then) */
  shares_open(r, s, nn < r->nranks);
  r->tab_owner = s;
  r->tab_release = release_shares;
  /* every share copied before any is read */
  __atomic_thread_fence(__ATOMIC_SEQ_CST);
  MPI_Barrier(MPI_COMM_WORLD);
  __atomic_thread_fence(__ATOMIC_SEQ_CST);
  if (retro_mpi_failed(s->across && retro_mpi_thread_level() < MPI_THREAD_SERIALIZED && r->opt.threads > 1
                           ? TS_ERR_USAGE
                           : TS_OK))
    return ts_error_set(err, TS_ERR_USAGE, "enumerate", 0, 0,
                        "this MPI does not let threads make calls (MPI_THREAD_SERIALIZED): run with --threads 1, "
                        "or --mpi-table=whole");
  return TS_OK;
}

void retro_shares_counts(const ShareState *s, uint64_t out[4]) {
  out[0] = s ? s->reads : 0;
  out[1] = s ? s->cached : 0;
  out[2] = s ? s->gets : 0;
  out[3] = s ? s->trips : 0;
}

const ShareState *retro_shares_of(const Retro *r) { return r->shares ? r->shares->ctx : NULL; }
