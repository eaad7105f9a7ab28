/*
 * retro_insert.c - a phase's lists (the mates, a layer's new positions) into
 * the table on several threads, with the result of inserting them one by one
 * (retro_record_value).
 *
 * The lists are read a chunk at a time. The threads first split the chunk's
 * keys into record key and square; the items are then grouped by the region
 * of the table their first probed slot falls in, and each region is inserted
 * by one thread in push order. An item whose probe would leave its region is
 * put aside and inserted afterwards on one thread. The threads take no more
 * items at a time than one-by-one insertion could take without growing the
 * table; near that point the items go one by one. No two threads ever write
 * the same slot, and the records made are those of the one-by-one insertion:
 * a record per (record key, value), each concrete position once.
 *
 * The lists are read (from memory, or back from their files) by a thread of
 * their own into two chunks in turn: while one chunk is inserted the next one
 * is filled, and the chunks are inserted in the order they were filled.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "retro_internal.h"
#include "workers.h"

/* Items a chunk holds: 2^18, fewer under a small --mem (an item takes some
 * 80 bytes of the chunk's arrays and of the chunk being read meanwhile, kept
 * within half the lists' share). */
#define INSERT_CHUNK ((size_t)1 << 18)
#define INSERT_CHUNK_MIN ((size_t)4096)
#define INSERT_ITEM_BYTES 80
#define INSERT_REGION_BITS 8
#define INSERT_REGIONS (1u << INSERT_REGION_BITS)
/* the parallel insertion needs regions of some size, and more than one thread */
#define INSERT_MIN_CAP ((uint64_t)INSERT_REGIONS << 8)
#define SPLIT_SLICE 4096

typedef struct InsertChunk InsertChunk;

typedef struct {
  InsertChunk *c;
  uint64_t used, records, added, below; /* added: new positions of value n */
  uint64_t count[2][RETRO_MAX_LEN + 2];
  uint32_t *aside; /* indices of the items put aside */
  size_t naside;
} InsertWorker;

struct InsertChunk {
  Retro *r;
  int n;          /* the layer (values below it are anomalies) */
  size_t size;    /* items in the chunk */
  size_t cap;     /* items it holds */
  Key *key;       /* as pushed */
  uint16_t *val;
  Key *core;      /* split */
  uint64_t *hash; /* key_hash of core */
  uint8_t *sq;
  uint32_t *order;               /* item indices grouped by region, push order in each */
  size_t start[INSERT_REGIONS + 1];
  uint64_t next;                 /* work counter (slices, then regions) */
  int shift;                     /* slot >> shift = region */
};

static void *split_worker(void *arg) {
  InsertWorker *w = arg;
  InsertChunk *c = w->c;
  for (;;) {
    size_t b = (size_t)__atomic_fetch_add(&c->next, SPLIT_SLICE, __ATOMIC_RELAXED);
    if (b >= c->size) break;
    size_t e = b + SPLIT_SLICE < c->size ? b + SPLIT_SLICE : c->size;
    for (size_t i = b; i < e; i++) {
      Square sq;
      c->core[i] = retro_xkey_split(c->key[i], &sq);
      c->sq[i] = (uint8_t)sq;
      c->hash[i] = key_hash(c->core[i]);
    }
  }
  return NULL;
}

/* Item i into the region that ends at slot hi: 1 inserted, 0 already there,
 * -1 put aside (its run of slots goes on past the region). */
static int region_insert(InsertWorker *w, size_t i, uint64_t hi) {
  InsertChunk *c = w->c;
  Retro *r = c->r;
  uint16_t v = c->val[i];
  bool made;
  int in = table_place(r->tab, r->cap - 1, c->core[i], c->sq[i], v, c->hash[i] & (r->cap - 1), hi, &made);
  if (in <= 0) return in;
  w->records += made;
  w->used++;
  if (v <= RETRO_MAX_LEN + 1) w->count[key_side(c->key[i])][v]++;
  return 1;
}

static void *region_worker(void *arg) {
  InsertWorker *w = arg;
  InsertChunk *c = w->c;
  for (;;) {
    uint64_t g = __atomic_fetch_add(&c->next, 1, __ATOMIC_RELAXED);
    if (g >= INSERT_REGIONS) break;
    uint64_t hi = (g + 1) << c->shift, mask = c->r->cap - 1;
    size_t b = c->start[g], e = c->start[g + 1];
    for (size_t j = b; j < e; j++) {
      if (j + 8 < e) __builtin_prefetch(&c->r->tab[c->hash[c->order[j + 8]] & mask]);
      size_t i = c->order[j];
      int ins = region_insert(w, i, hi);
      if (ins < 0) {
        w->aside[w->naside++] = (uint32_t)i;
      } else if (ins) {
        w->added += c->val[i] == c->n;
        w->below += c->val[i] < c->n;
      }
    }
  }
  return NULL;
}

static int cmp_u32(const void *a, const void *b) {
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return (x > y) - (x < y);
}

/* Item i on one thread (retro_record_value, which grows the table when needed). */
static int insert_one(InsertChunk *c, size_t i, uint64_t *added) {
  return retro_record_value(c->r, c->key[i], c->val[i], c->n, added);
}

/* Items [at, at + p) on the threads, p small enough that inserting them one by
 * one would not grow the table. */
static int insert_part(InsertChunk *c, InsertWorker *ws, int nt, size_t at, size_t p, uint64_t *added) {
  Retro *r = c->r;
  uint64_t mask = r->cap - 1;
  c->shift = __builtin_ctzll(r->cap) - INSERT_REGION_BITS;
  size_t cnt[INSERT_REGIONS + 1] = {0};
  for (size_t i = at; i < at + p; i++) cnt[((c->hash[i] & mask) >> c->shift) + 1]++;
  for (unsigned g = 0; g < INSERT_REGIONS; g++) cnt[g + 1] += cnt[g];
  memcpy(c->start, cnt, sizeof c->start);
  for (size_t i = at; i < at + p; i++) c->order[cnt[(c->hash[i] & mask) >> c->shift]++] = (uint32_t)i;
  c->next = 0;
  for (int t = 0; t < nt; t++) ws[t].naside = 0;
  int started = workers_run(nt, region_worker, ws, sizeof *ws);
  size_t naside = 0;
  for (int t = 0; t < started; t++) {
    InsertWorker *w = &ws[t];
    r->used += w->used;
    r->records += w->records;
    for (int s = 0; s < 2; s++)
      for (int v = 0; v <= RETRO_MAX_LEN + 1; v++) r->count[s][v] += w->count[s][v];
    if (added) *added += w->added;
    r->stats.anomalies += w->below;
    if (t) memcpy(ws[0].aside + naside, w->aside, w->naside * sizeof *w->aside);
    naside += w->naside;
    w->used = w->records = w->added = w->below = 0;
    memset(w->count, 0, sizeof w->count);
  }
  /* the items put aside, in push order */
  qsort(ws[0].aside, naside, sizeof *ws[0].aside, cmp_u32);
  for (size_t j = 0; j < naside; j++) {
    int rc = insert_one(c, ws[0].aside[j], added);
    if (rc) return rc;
  }
  return TS_OK;
}

/* The chunk into the table (see above). */
static int insert_chunk(InsertChunk *c, InsertWorker *ws, int nt, uint64_t *added) {
  Retro *r = c->r;
  int rc = TS_OK;
  if (nt > 1) {
    c->next = 0;
    workers_run(nt, split_worker, ws, sizeof *ws);
  }
  for (size_t at = 0; at < c->size && !rc;) {
    /* one by one, the table grows at an item when records >= table_most:
     * p items (p - 1 new records at most before the last) cannot make it grow */
    uint64_t most = table_most(r), room = most > r->records ? most - r->records : 0;
    size_t p = c->size - at < room ? c->size - at : (size_t)room;
    if (nt > 1 && r->cap >= INSERT_MIN_CAP && p >= SPLIT_SLICE) {
      rc = insert_part(c, ws, nt, at, p, added);
      at += p;
      continue;
    }
    size_t e = c->size - at < SPLIT_SLICE ? c->size : at + SPLIT_SLICE;
    for (; at < e && !rc; at++) rc = insert_one(c, at, added);
  }
  c->size = 0;
  return rc;
}

/* A chunk's items as the lists give them. */
typedef struct {
  Key *key;
  uint16_t *val;
  size_t size;
  bool full; /* handed to the inserting thread */
} FeedBuf;

/* The reading thread and the inserting one: the reader fills buf[fill], hands
 * it over when full and goes on into the other one once that is inserted. */
typedef struct {
  SpillList *const *lists;
  int nl;
  bool with_value;
  size_t cap;
  FeedBuf buf[2];
  int fill;
  pthread_mutex_t mu;
  pthread_cond_t cv;
  bool done, stop; /* the reader has read everything; the inserting thread failed */
  int rc;          /* the reader's failure */
  /* no reader thread could be made: each full chunk is inserted on the spot */
  InsertChunk *here;
  InsertWorker *ws;
  int nt;
  uint64_t *added;
} InsertFeed;

/* buf's items into the table (the chunk's other arrays are the inserting thread's). */
static int insert_buf(InsertChunk *c, FeedBuf *b, InsertWorker *ws, int nt, uint64_t *added) {
  c->key = b->key;
  c->val = b->val;
  c->size = b->size;
  int rc = insert_chunk(c, ws, nt, added);
  b->size = 0;
  return rc;
}

static int feed_item(const void *item, void *ctx) {
  InsertFeed *f = ctx;
  FeedBuf *b = &f->buf[f->fill];
  if (f->with_value) {
    KeyVal kv;
    memcpy(&kv, item, sizeof kv);
    b->key[b->size] = kv.k;
    b->val[b->size] = kv.v;
  } else {
    memcpy(&b->key[b->size], item, sizeof(Key));
    b->val[b->size] = 0;
  }
  if (++b->size < f->cap) return TS_OK;
  if (f->here) return insert_buf(f->here, b, f->ws, f->nt, f->added);
  pthread_mutex_lock(&f->mu);
  b->full = true;
  pthread_cond_broadcast(&f->cv);
  f->fill ^= 1;
  while (f->buf[f->fill].full && !f->stop) pthread_cond_wait(&f->cv, &f->mu);
  int rc = f->stop ? TS_ERR_NOMEM : TS_OK; /* stopped: any code ends the reading; the inserter's stands */
  pthread_mutex_unlock(&f->mu);
  return rc;
}

/* Every list's items through feed_item. */
static int feed_read(InsertFeed *f) {
  int rc = TS_OK;
  for (int l = 0; l < f->nl && !rc; l++) rc = retro_spill_foreach(f->lists[l], feed_item, f);
  return rc;
}

static void *feed_reader(void *arg) {
  InsertFeed *f = arg;
  int rc = feed_read(f);
  pthread_mutex_lock(&f->mu);
  if (!rc && f->buf[f->fill].size) f->buf[f->fill].full = true;
  f->rc = rc;
  f->done = true;
  pthread_cond_broadcast(&f->cv);
  pthread_mutex_unlock(&f->mu);
  return NULL;
}

/* Inserts the chunks the reader hands over, in turn, until it is done. */
static int feed_insert(InsertFeed *f, InsertChunk *c, InsertWorker *ws, int nt, uint64_t *added) {
  int rc = TS_OK;
  for (int cur = 0;; cur ^= 1) {
    FeedBuf *b = &f->buf[cur];
    pthread_mutex_lock(&f->mu);
    while (!b->full && !f->done) pthread_cond_wait(&f->cv, &f->mu);
    bool have = b->full;
    pthread_mutex_unlock(&f->mu);
    if (!have) break;
    rc = insert_buf(c, b, ws, nt, added);
    pthread_mutex_lock(&f->mu);
    b->full = false;
    if (rc) f->stop = true;
    pthread_cond_broadcast(&f->cv);
    pthread_mutex_unlock(&f->mu);
    if (rc) break;
  }
  return rc;
}

int retro_table_insert_lists(Retro *r, SpillList *const *lists, int nl, bool with_value, int n,
                             uint64_t *added) {
  int nt = r->opt.threads > 1 ? r->opt.threads : 1;
  if (nt > WORKERS_MAX) nt = WORKERS_MAX;
  InsertChunk *c = calloc(1, sizeof *c);
  InsertWorker *ws = calloc((size_t)nt, sizeof *ws);
  int rc = c && ws ? TS_OK : TS_ERR_NOMEM;
  if (!rc) {
    c->r = r;
    c->n = n;
    c->cap = INSERT_CHUNK;
    if (r->opt.list_mem && r->opt.list_mem / 2 / INSERT_ITEM_BYTES < c->cap)
      c->cap = (size_t)(r->opt.list_mem / 2 / INSERT_ITEM_BYTES);
    if (c->cap < INSERT_CHUNK_MIN) c->cap = INSERT_CHUNK_MIN;
    c->core = malloc(c->cap * sizeof *c->core);
    c->sq = malloc(c->cap);
    c->hash = malloc(c->cap * sizeof *c->hash);
    c->order = malloc(c->cap * sizeof *c->order);
    if (!c->core || !c->sq || !c->hash || !c->order) rc = TS_ERR_NOMEM;
    for (int t = 0; t < nt && !rc; t++) {
      ws[t].c = c;
      /* thread 0's array gathers every thread's items put aside */
      ws[t].aside = malloc((t ? c->cap : c->cap * (size_t)nt) * sizeof *ws[t].aside);
      if (!ws[t].aside) rc = TS_ERR_NOMEM;
    }
  }
  InsertFeed f = {.lists = lists, .nl = nl, .with_value = with_value, .cap = c ? c->cap : 0};
  for (int i = 0; i < 2 && !rc; i++) {
    f.buf[i].key = malloc(f.cap * sizeof *f.buf[i].key);
    f.buf[i].val = malloc(f.cap * sizeof *f.buf[i].val);
    if (!f.buf[i].key || !f.buf[i].val) rc = TS_ERR_NOMEM;
  }
  if (!rc) {
    pthread_mutex_init(&f.mu, NULL);
    pthread_cond_init(&f.cv, NULL);
    pthread_t reader;
    if (pthread_create(&reader, NULL, feed_reader, &f) == 0) {
      rc = feed_insert(&f, c, ws, nt, added);
      pthread_join(reader, NULL);
      if (!rc) rc = f.rc;
    } else { /* no thread: read a chunk, insert it, and so on, on this one */
      f.here = c;
      f.ws = ws;
      f.nt = nt;
      f.added = added;
      rc = feed_read(&f);
      if (!rc && f.buf[0].size) rc = insert_buf(c, &f.buf[0], ws, nt, added);
    }
    pthread_cond_destroy(&f.cv);
    pthread_mutex_destroy(&f.mu);
  }
  for (int i = 0; i < 2; i++) {
    free(f.buf[i].key);
    free(f.buf[i].val);
  }
  if (c) {
    free(c->core);
    free(c->sq);
    free(c->hash);
    free(c->order);
  }
  for (int t = 0; ws && t < nt; t++) free(ws[t].aside);
  free(ws);
  free(c);
  return rc;
}
