/*
 * tsdb_check.c - walks an LMDB file of the problem database page by page
 * with pread() and reports what is broken (tsdb_check.h).
 *
 * The on-disk layout read here is LMDB 0.9's (liblmdb's mdb.c, data format
 * version 1), in the machine's byte order, with 64-bit page numbers:
 *
 *   page header (16 B)  pgno u64 | pad u16 | flags u16 | lower u16 | upper u16
 *                       (an overflow page holds its page count, u32, at 12)
 *   meta page           header, then magic u32 0xBEEFC0DE, version u32,
 *                       address u64, map size u64, two tree headers
 *                       (free list, main), last page u64, txnid u64
 *   tree header (48 B)  pad u32 (page size in the free list's) | flags u16 |
 *                       depth u16 | branch, leaf, overflow pages, entries,
 *                       root page: u64 each
 *   node (8 B + key)    lo u16 | hi u16 | flags u16 | key size u16 | key | data;
 *                       leaf: data size lo | hi << 16; branch: child page
 *                       lo | hi << 16 | flags << 32
 *   node flags          BIGDATA: data is the page number of overflow pages;
 *                       SUBDATA: data is a tree header (a named table, or a
 *                       key's duplicates); DUPDATA alone: data is a sub-page
 *
 * The main tree holds one SUBDATA node per named table (meta, prob, by_len);
 * by_len is a DUPSORT table. The free list maps txnids to page lists (count,
 * then page numbers). All keys compare as LMDB's default: memcmp over the
 * common part, then the shorter first.
 */
#include "tsdb_check.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tsdb_codec.h"

#define PAGE_HDR 16
#define NODE_HDR 8
#define META_MAGIC_LMDB 0xBEEFC0DEu
#define META_VERSION_LMDB 1u
#define P_BRANCH 0x01u
#define P_LEAF 0x02u
#define P_OVERFLOW 0x04u
#define P_META 0x08u
#define P_LEAF2 0x20u
#define P_SUBP 0x40u
#define F_BIGDATA 0x01u
#define F_SUBDATA 0x02u
#define F_DUPDATA 0x04u
#define PGNO_NONE UINT64_MAX
#define DEPTH_MAX 32          /* LMDB's cursor stack */
#define BIG_VALUE_MAX (1u << 26) /* overflow values read into memory for checking */
#define TXT 200

typedef struct {
  uint32_t pad;
  uint16_t flags, depth;
  uint64_t branch, leaf, overflow, entries, root;
} TreeHdr;

typedef struct {
  uint32_t magic, version, psize;
  uint64_t last_pg, txnid;
  TreeHdr free_db, main_db;
} Meta;

/* What a leaf callback gets: one (key, data) pair; for a DUPSORT table one
 * call per duplicate with data = the duplicate. data is NULL when it could
 * not be read (the damage is reported already). */
struct Walk;
typedef void (*LeafFn)(struct Walk *w, uint64_t page, const uint8_t *key, size_t klen,
                       const uint8_t *data, size_t dlen, unsigned nflags);

typedef struct Walk {
  int fd;
  const char *path;
  uint32_t psize;
  uint64_t npages; /* last page + 1 */
  uint8_t *used, *freed; /* bitmaps over npages */
  TsDbDamageFn fn;
  void *ctx;
  int stop;
  TsDbCheckStats *st;
  const char *table;
  LeafFn leaf;
  bool dupsort;  /* the table being walked has sorted duplicates */
  bool intkey;   /* its keys are native 8-byte integers (the free list) */
  int io_error;  /* errno of a failed read */
  /* named tables found in the main tree */
  TreeHdr meta_t, prob_t, by_len_t;
  bool has_meta, has_prob, has_by_len;
  /* records */
  TsDbCodec *codec;
  uint64_t prob_sum, by_len_sum; /* fingerprints of the (key, length) pairs */
  uint64_t by_len_pairs;
  /* the records of TSDB_UNLISTED_LENGTH: not in by_len from format version 2 on */
  uint64_t unlisted_sum, unlisted;
  unsigned version;
  bool magic_ok, version_ok, material_ok, rules_ok;
} Walk;

/* ---- small helpers ---- */

static uint16_t u16_at(const uint8_t *p) {
  uint16_t v;
  memcpy(&v, p, 2);
  return v;
}
static uint32_t u32_at(const uint8_t *p) {
  uint32_t v;
  memcpy(&v, p, 4);
  return v;
}
static uint64_t u64_at(const uint8_t *p) {
  uint64_t v;
  memcpy(&v, p, 8);
  return v;
}

static bool bit_get(const uint8_t *m, uint64_t i) { return m[i >> 3] >> (i & 7) & 1; }
static void bit_set(uint8_t *m, uint64_t i) { m[i >> 3] |= (uint8_t)(1u << (i & 7)); }

static void report(Walk *w, uint64_t page, const uint8_t *key, size_t klen, const char *kind,
                   const char *fmt, ...) __attribute__((format(printf, 6, 7)));
static void report(Walk *w, uint64_t page, const uint8_t *key, size_t klen, const char *kind,
                   const char *fmt, ...) {
  w->st->damages++;
  if (!w->fn || w->stop) return;
  TsDbDamage d = {.page = page, .table = w->table, .kind = kind, .key = key, .key_len = klen};
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(d.detail, sizeof d.detail, fmt, ap);
  va_end(ap);
  w->stop = w->fn(&d, w->ctx);
}

/* Reads len bytes at off; false (and io_error set, or a short file) on failure. */
static bool read_at(Walk *w, void *buf, size_t len, uint64_t off) {
  size_t done = 0;
  while (done < len) {
    ssize_t r = pread(w->fd, (uint8_t *)buf + done, len - done, (off_t)(off + done));
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) {
      w->io_error = errno;
      return false;
    }
    if (r == 0) return false;
    done += (size_t)r;
  }
  return true;
}

static int key_cmp(const Walk *w, const uint8_t *a, size_t an, const uint8_t *b, size_t bn) {
  if (w->intkey && an == 8 && bn == 8) {
    uint64_t x = u64_at(a), y = u64_at(b);
    return (x > y) - (x < y);
  }
  int c = memcmp(a, b, an < bn ? an : bn);
  return c ? c : (an > bn) - (an < bn);
}

static void tree_hdr_parse(const uint8_t *p, TreeHdr *t) {
  t->pad = u32_at(p);
  t->flags = u16_at(p + 4);
  t->depth = u16_at(p + 6);
  t->branch = u64_at(p + 8);
  t->leaf = u64_at(p + 16);
  t->overflow = u64_at(p + 24);
  t->entries = u64_at(p + 32);
  t->root = u64_at(p + 40);
}

static void meta_parse(const uint8_t *page, Meta *m) {
  const uint8_t *p = page + PAGE_HDR;
  m->magic = u32_at(p);
  m->version = u32_at(p + 4);
  tree_hdr_parse(p + 24, &m->free_db);
  tree_hdr_parse(p + 72, &m->main_db);
  m->psize = m->free_db.pad;
  m->last_pg = u64_at(p + 120);
  m->txnid = u64_at(p + 128);
}

static bool psize_ok(uint64_t ps) { return ps >= 512 && ps <= 65536 && !(ps & (ps - 1)); }

/* Why meta page i (read into page) cannot be used, or NULL when it can. */
static const char *meta_fault(const uint8_t *page, uint64_t i, const Meta *m) {
  if (u64_at(page) != i) return "bad page number";
  if (!(u16_at(page + 10) & P_META)) return "not a meta page";
  if (m->magic != META_MAGIC_LMDB) return "bad magic (not an LMDB file)";
  if (m->version != META_VERSION_LMDB) return "unknown LMDB data version";
  if (!psize_ok(m->psize)) return "bad page size";
  if (m->last_pg < 1) return "bad last page";
  return NULL;
}

/* A root page number is valid when none or inside the file's pages. */
static bool root_ok(const TreeHdr *t, uint64_t last) {
  return t->root == PGNO_NONE ? t->depth == 0 && t->entries == 0
                              : t->root >= 2 && t->root <= last && t->depth >= 1 &&
                                    t->depth <= DEPTH_MAX;
}

/*
 * Reads both meta pages and picks the one LMDB would use (the larger
 * txnid). Reports what is wrong with either; returns the index used, or -1
 * when neither is usable. buf holds 2 x 64 KiB.
 */
static int metas_read(Walk *w, uint64_t file_bytes, Meta m[2]) {
  static const uint32_t SIZES[] = {4096, 512, 1024, 2048, 8192, 16384, 32768, 65536};
  uint8_t page[PAGE_HDR + 160];
  const char *fault[2] = {"unreadable", "unreadable"};
  uint32_t ps = 0;
  if (read_at(w, page, sizeof page, 0)) {
    meta_parse(page, &m[0]);
    fault[0] = meta_fault(page, 0, &m[0]);
    if (!fault[0]) ps = m[0].psize;
  }
  /* page 1 sits one page further; when page 0 cannot say how far, try the sizes LMDB uses */
  for (size_t i = 0; i < sizeof SIZES / sizeof SIZES[0] && fault[1]; i++) {
    uint32_t off = ps ? ps : SIZES[i];
    if (read_at(w, page, sizeof page, off)) {
      meta_parse(page, &m[1]);
      const char *f = meta_fault(page, 1, &m[1]);
      if (!f && !ps) ps = m[1].psize;
      if (!f || ps) fault[1] = f;
    }
    if (ps) break;
  }
  w->table = "meta page";
  for (int i = 0; i < 2; i++)
    if (fault[i]) report(w, (uint64_t)i, NULL, 0, "meta page unusable", "meta page %d: %s", i, fault[i]);
  if (!fault[0] && !fault[1] && m[0].psize != m[1].psize) {
    report(w, 1, NULL, 0, "meta page unusable", "the meta pages disagree on the page size (%u, %u)",
           m[0].psize, m[1].psize);
    fault[1] = "bad page size";
  }
  if (!fault[0] && !fault[1] && m[0].txnid != 0 && m[1].txnid != 0 &&
      (m[0].txnid % 2 != 0 || m[1].txnid % 2 != 1 ||
       (m[0].txnid > m[1].txnid ? m[0].txnid - m[1].txnid : m[1].txnid - m[0].txnid) != 1))
    report(w, TSDB_CHECK_NO_PAGE, NULL, 0, "bad txnid",
           "meta pages hold transactions %llu and %llu; they alternate (even on page 0, odd on "
           "page 1, one apart)",
           (unsigned long long)m[0].txnid, (unsigned long long)m[1].txnid);
  int use = fault[0] ? (fault[1] ? -1 : 1) : fault[1] ? 0 : (m[1].txnid > m[0].txnid ? 1 : 0);
  if (use < 0) return -1;
  const Meta *u = &m[use];
  uint64_t need = (u->last_pg + 1) * (uint64_t)u->psize;
  if (u->last_pg > file_bytes / u->psize || need > file_bytes) {
    w->table = "file";
    report(w, TSDB_CHECK_NO_PAGE, NULL, 0, "truncated",
           "file has %llu bytes, its last page %llu needs %llu",
           (unsigned long long)file_bytes, (unsigned long long)u->last_pg,
           (unsigned long long)need);
    return -1;
  }
  w->table = "meta page";
  if (!root_ok(&u->free_db, u->last_pg) || !root_ok(&u->main_db, u->last_pg)) {
    report(w, (uint64_t)use, NULL, 0, "root out of range",
           "meta page %d: roots %lld (free list, depth %u) and %lld (main, depth %u) must lie in "
           "2..%llu",
           use, (long long)u->free_db.root, u->free_db.depth, (long long)u->main_db.root,
           u->main_db.depth, (unsigned long long)u->last_pg);
    return -1;
  }
  return use;
}

/* ---- pages and trees ---- */

typedef struct {
  uint64_t branch, leaf, overflow, entries;
  int depth;
  uint8_t prev[512]; /* last key seen, for the order check (keys of our tables are short) */
  size_t prev_len;
  bool have_prev;
} TreeCount;

static bool page_claim(Walk *w, uint64_t pg, const uint8_t *key, size_t klen) {
  if (pg < 2 || pg >= w->npages) {
    report(w, pg, key, klen, "page out of range", "page %llu is not in 2..%llu",
           (unsigned long long)pg, (unsigned long long)(w->npages - 1));
    return false;
  }
  if (bit_get(w->used, pg)) {
    report(w, pg, key, klen, "page reached twice", "page %llu is in a tree already",
           (unsigned long long)pg);
    return false;
  }
  bit_set(w->used, pg);
  w->st->pages_used++;
  return true;
}

/* Reads the overflow pages of a BIGDATA value; returns it (malloc'd) or NULL. */
static uint8_t *overflow_read(Walk *w, uint64_t pg, size_t dlen, TreeCount *tc,
                              const uint8_t *key, size_t klen) {
  uint64_t need = (PAGE_HDR - 1 + (uint64_t)dlen) / w->psize + 1;
  uint8_t hdr[PAGE_HDR];
  if (!page_claim(w, pg, key, klen)) return NULL;
  if (!read_at(w, hdr, sizeof hdr, pg * w->psize)) {
    report(w, pg, key, klen, "unreadable page", "cannot read page %llu", (unsigned long long)pg);
    return NULL;
  }
  uint32_t pages = u32_at(hdr + 12);
  if (u64_at(hdr) != pg || !(u16_at(hdr + 10) & P_OVERFLOW) || pages < need ||
      pg + pages > w->npages) {
    report(w, pg, key, klen, "bad overflow page",
           "page %llu: number %llu, flags 0x%x, %u pages for a %zu-byte value (needs %llu)",
           (unsigned long long)pg, (unsigned long long)u64_at(hdr), u16_at(hdr + 10), pages, dlen,
           (unsigned long long)need);
    return NULL;
  }
  for (uint64_t i = 1; i < pages; i++)
    if (!page_claim(w, pg + i, key, klen)) return NULL;
  tc->overflow += pages;
  if (dlen > BIG_VALUE_MAX) return NULL;
  uint8_t *v = malloc(dlen ? dlen : 1);
  if (v && !read_at(w, v, dlen, pg * w->psize + PAGE_HDR)) {
    report(w, pg, key, klen, "unreadable page", "cannot read the value at page %llu",
           (unsigned long long)pg);
    free(v);
    return NULL;
  }
  return v;
}

static void tree_walk(Walk *w, const TreeHdr *t, bool dups_of_key, const uint8_t *dkey,
                      size_t dklen);

/* The nodes of a page (or sub-page) of size size: offsets inside, sizes
 * inside. Returns the node count, or -1 (reported). */
static int nodes_check(Walk *w, uint64_t pg, const uint8_t *p, size_t size, bool leaf) {
  unsigned lower = u16_at(p + 12), upper = u16_at(p + 14);
  if (lower < PAGE_HDR || lower % 2 || upper < lower || upper > size) {
    report(w, pg, NULL, 0, "bad page bounds", "page %llu: lower %u, upper %u, size %zu",
           (unsigned long long)pg, lower, upper, size);
    return -1;
  }
  int n = (int)(lower - PAGE_HDR) / 2;
  for (int i = 0; i < n; i++) {
    unsigned off = u16_at(p + PAGE_HDR + 2 * i);
    if (off < upper || off + NODE_HDR > size) {
      report(w, pg, NULL, 0, "bad node offset", "page %llu: node %d at %u outside %u..%zu",
             (unsigned long long)pg, i, off, upper, size);
      return -1;
    }
    const uint8_t *nd = p + off;
    size_t ks = u16_at(nd + 6), ds = leaf ? (u16_at(nd) | (size_t)u16_at(nd + 2) << 16) : 0;
    unsigned fl = u16_at(nd + 4);
    if (leaf && (fl & F_BIGDATA)) ds = 8;
    if (off + NODE_HDR + ks + ds > size) {
      report(w, pg, NULL, 0, "bad node size",
             "page %llu: node %d at %u with a %zu-byte key and %zu-byte data overruns the page",
             (unsigned long long)pg, i, off, ks, ds);
      return -1;
    }
    if (leaf && (fl & ~(unsigned)(F_BIGDATA | F_SUBDATA | F_DUPDATA))) {
      report(w, pg, nd + NODE_HDR, ks, "bad node flags", "page %llu: node %d has flags 0x%x",
             (unsigned long long)pg, i, fl);
      return -1;
    }
  }
  return n;
}

/* Key order and range: lo <= key < hi (NULL = unbounded), after the previous key. */
static bool key_order(Walk *w, TreeCount *tc, uint64_t pg, const uint8_t *k, size_t kl,
                      const uint8_t *lo, size_t lol, const uint8_t *hi, size_t hil) {
  if ((lo && key_cmp(w, k, kl, lo, lol) < 0) || (hi && key_cmp(w, k, kl, hi, hil) >= 0)) {
    report(w, pg, k, kl, "key out of range", "page %llu: a key outside its parent's range",
           (unsigned long long)pg);
    return false;
  }
  if (tc->have_prev && key_cmp(w, k, kl, tc->prev, tc->prev_len) <= 0) {
    report(w, pg, k, kl, "keys out of order", "page %llu: a key not above the one before",
           (unsigned long long)pg);
    return false;
  }
  tc->prev_len = kl < sizeof tc->prev ? kl : sizeof tc->prev;
  memcpy(tc->prev, k, tc->prev_len);
  tc->have_prev = true;
  return true;
}

/* Duplicates stored in a sub-page (DUPDATA without SUBDATA). */
static void subpage_walk(Walk *w, uint64_t pg, const uint8_t *key, size_t klen,
                         const uint8_t *sp, size_t size, TreeCount *tc) {
  if (size < PAGE_HDR || (u16_at(sp + 10) & (P_LEAF | P_SUBP)) != (P_LEAF | P_SUBP) ||
      (u16_at(sp + 10) & P_LEAF2)) {
    report(w, pg, key, klen, "bad sub-page", "page %llu: duplicates of a key in a bad sub-page",
           (unsigned long long)pg);
    return;
  }
  int n = nodes_check(w, pg, sp, size, true);
  TreeCount sub = {0};
  for (int i = 0; i < n && !w->stop; i++) {
    const uint8_t *nd = sp + u16_at(sp + PAGE_HDR + 2 * i);
    size_t ks = u16_at(nd + 6);
    if (!key_order(w, &sub, pg, nd + NODE_HDR, ks, NULL, 0, NULL, 0)) return;
    tc->entries++;
    w->leaf(w, pg, key, klen, nd + NODE_HDR, ks, F_DUPDATA);
  }
}

static void page_walk(Walk *w, uint64_t pg, int depth, TreeCount *tc, const uint8_t *lo,
                      size_t lol, const uint8_t *hi, size_t hil, const uint8_t *dkey, size_t dklen) {
  if (w->stop || !page_claim(w, pg, NULL, 0)) return;
  if (depth > DEPTH_MAX) {
    report(w, pg, NULL, 0, "tree too deep", "page %llu at depth %d", (unsigned long long)pg, depth);
    return;
  }
  uint8_t *p = malloc(w->psize);
  if (!p) {
    w->stop = TS_ERR_NOMEM;
    return;
  }
  if (!read_at(w, p, w->psize, pg * w->psize)) {
    report(w, pg, NULL, 0, "unreadable page", "cannot read page %llu", (unsigned long long)pg);
    free(p);
    return;
  }
  unsigned flags = u16_at(p + 10);
  bool leaf = (flags & (P_BRANCH | P_LEAF | P_OVERFLOW | P_META | P_LEAF2 | P_SUBP)) == P_LEAF;
  bool branch = (flags & (P_BRANCH | P_LEAF | P_OVERFLOW | P_META | P_LEAF2 | P_SUBP)) == P_BRANCH;
  int n;
  if (u64_at(p) != pg) {
    report(w, pg, NULL, 0, "bad page number", "page %llu says it is page %llu",
           (unsigned long long)pg, (unsigned long long)u64_at(p));
  } else if (!leaf && !branch) {
    report(w, pg, NULL, 0, "bad page kind", "page %llu: flags 0x%x where a branch or leaf page belongs",
           (unsigned long long)pg, flags);
  } else if ((n = nodes_check(w, pg, p, w->psize, leaf)) < 0) {
    /* reported */
  } else if (n == 0 || (branch && n < 2 && depth > 1)) {
    report(w, pg, NULL, 0, "empty page", "page %llu holds %d node(s)", (unsigned long long)pg, n);
  } else if (branch) {
    tc->branch++;
    for (int i = 0; i < n && !w->stop; i++) {
      const uint8_t *nd = p + u16_at(p + PAGE_HDR + 2 * i);
      const uint8_t *nd1 = i + 1 < n ? p + u16_at(p + PAGE_HDR + 2 * (i + 1)) : NULL;
      uint64_t child = u16_at(nd) | (uint64_t)u16_at(nd + 2) << 16 | (uint64_t)u16_at(nd + 4) << 32;
      /* child i holds keys in [key i, key i+1); key 0 is empty and stands for lo */
      const uint8_t *clo = i ? nd + NODE_HDR : lo, *chi = nd1 ? nd1 + NODE_HDR : hi;
      size_t clol = i ? u16_at(nd + 6) : lol, chil = nd1 ? u16_at(nd1 + 6) : hil;
      page_walk(w, child, depth + 1, tc, clo, clol, chi, chil, dkey, dklen);
    }
  } else {
    tc->leaf++;
    if (depth > tc->depth) tc->depth = depth;
    for (int i = 0; i < n && !w->stop; i++) {
      const uint8_t *nd = p + u16_at(p + PAGE_HDR + 2 * i);
      size_t ks = u16_at(nd + 6), ds = u16_at(nd) | (size_t)u16_at(nd + 2) << 16;
      unsigned fl = u16_at(nd + 4);
      const uint8_t *k = nd + NODE_HDR, *d = k + ks;
      if (!key_order(w, tc, pg, k, ks, lo, lol, hi, hil)) break;
      if (dkey) { /* a tree of duplicates: the keys are the values */
        if (ds || fl) report(w, pg, dkey, dklen, "bad duplicate", "page %llu: a duplicate with data",
                             (unsigned long long)pg);
        tc->entries++;
        w->leaf(w, pg, dkey, dklen, k, ks, F_DUPDATA);
      } else if (fl & F_BIGDATA) {
        uint8_t *v = (fl & ~F_BIGDATA) ? NULL : overflow_read(w, u64_at(d), ds, tc, k, ks);
        if (fl & ~F_BIGDATA)
          report(w, pg, k, ks, "bad node flags", "page %llu: big data with flags 0x%x",
                 (unsigned long long)pg, fl);
        tc->entries++;
        w->leaf(w, pg, k, ks, v, ds, fl);
        free(v);
      } else if ((fl & F_DUPDATA) && w->dupsort) {
        if (fl & F_SUBDATA) {
          TreeHdr sub;
          if (ds != 48) {
            report(w, pg, k, ks, "bad node size", "page %llu: a %zu-byte tree header",
                   (unsigned long long)pg, ds);
            continue;
          }
          tree_hdr_parse(d, &sub);
          tc->entries += sub.entries;
          tree_walk(w, &sub, true, k, ks);
        } else {
          subpage_walk(w, pg, k, ks, d, ds, tc);
        }
      } else if (fl & F_DUPDATA) {
        report(w, pg, k, ks, "bad node flags", "page %llu: duplicates in a table without them",
               (unsigned long long)pg);
      } else {
        tc->entries++;
        w->leaf(w, pg, k, ks, d, ds, fl);
      }
    }
  }
  free(p);
}

/* Walks one tree; its counts must match its header t. */
static void tree_walk(Walk *w, const TreeHdr *t, bool dups_of_key, const uint8_t *dkey,
                      size_t dklen) {
  if (t->root == PGNO_NONE) {
    if (t->depth || t->entries || t->branch || t->leaf || t->overflow)
      report(w, TSDB_CHECK_NO_PAGE, dkey, dklen, "bad tree header", "an empty tree with counts");
    return;
  }
  TreeCount *tc = calloc(1, sizeof *tc);
  if (!tc) {
    w->stop = TS_ERR_NOMEM;
    return;
  }
  page_walk(w, t->root, 1, tc, NULL, 0, NULL, 0, dups_of_key ? dkey : NULL, dklen);
  if (!w->stop && (tc->branch != t->branch || tc->leaf != t->leaf || tc->overflow != t->overflow ||
                   tc->entries != t->entries || tc->depth != t->depth))
    report(w, t->root, dkey, dklen, "counts differ",
           "tree at page %llu: header says %llu branch, %llu leaf, %llu overflow pages, %llu "
           "entries, depth %u; walked %llu, %llu, %llu, %llu, %d",
           (unsigned long long)t->root, (unsigned long long)t->branch, (unsigned long long)t->leaf,
           (unsigned long long)t->overflow, (unsigned long long)t->entries, t->depth,
           (unsigned long long)tc->branch, (unsigned long long)tc->leaf,
           (unsigned long long)tc->overflow, (unsigned long long)tc->entries, tc->depth);
  free(tc);
}

/* ---- leaf callbacks: the free list, the main tree, our three tables ---- */

static void free_leaf(Walk *w, uint64_t page, const uint8_t *key, size_t klen, const uint8_t *d,
                      size_t dlen, unsigned fl) {
  (void)fl;
  if (klen != 8 || !d || dlen < 8 || dlen % 8 || u64_at(d) != dlen / 8 - 1) {
    if (d) report(w, page, key, klen, "bad free list", "page %llu: a free list entry of %zu bytes",
                  (unsigned long long)page, dlen);
    return;
  }
  for (size_t i = 1; i < dlen / 8; i++) {
    uint64_t pg = u64_at(d + 8 * i);
    if (pg < 2 || pg >= w->npages || bit_get(w->freed, pg)) {
      report(w, page, key, klen, "bad free list", "page %llu listed free %s",
             (unsigned long long)pg, pg < 2 || pg >= w->npages ? "is out of range" : "twice");
      continue;
    }
    bit_set(w->freed, pg);
    w->st->pages_free++;
  }
}

static void main_leaf(Walk *w, uint64_t page, const uint8_t *key, size_t klen, const uint8_t *d,
                      size_t dlen, unsigned fl) {
  static const char *NAMES[] = {"meta", "prob", "by_len"};
  for (int i = 0; i < 3; i++) {
    if (klen != strlen(NAMES[i]) || memcmp(key, NAMES[i], klen)) continue;
    if (!(fl & F_SUBDATA) || !d || dlen != 48) {
      report(w, page, key, klen, "bad table header", "page %llu: table %s", (unsigned long long)page,
             NAMES[i]);
      return;
    }
    TreeHdr *t = i == 0 ? &w->meta_t : i == 1 ? &w->prob_t : &w->by_len_t;
    tree_hdr_parse(d, t);
    *(i == 0 ? &w->has_meta : i == 1 ? &w->has_prob : &w->has_by_len) = true;
    return;
  }
  report(w, page, key, klen, "unknown table", "page %llu: an entry of the main tree that is not a table",
         (unsigned long long)page);
}

static bool meta_is(const uint8_t *key, size_t klen, const char *name) {
  return klen == strlen(name) && !memcmp(key, name, klen);
}

static void meta_leaf(Walk *w, uint64_t page, const uint8_t *key, size_t klen, const uint8_t *d,
                      size_t dlen, unsigned fl) {
  (void)fl;
  if (!d) return;
  if (meta_is(key, klen, "tsdb.magic")) {
    w->magic_ok = dlen == 8 && !memcmp(d, "tsume-db", 8);
  } else if (meta_is(key, klen, "tsdb.version")) {
    w->version_ok = dlen == 4 && d[0] == 0 && d[1] == 0 && d[2] == 0 && d[3] >= 1 &&
                    d[3] <= TSDB_FORMAT_VERSION;
    if (w->version_ok) w->version = d[3];
  } else if (meta_is(key, klen, "tsdb.material")) {
    w->material_ok = dlen > 0 && dlen < TSDB_MATERIAL_MAX && !memchr(d, 0, dlen);
  } else if (meta_is(key, klen, "tsdb.rules")) {
    w->rules_ok = dlen == 4;
  } else if (meta_is(key, klen, "tsdb.zdict") && dlen) {
    TsError e;
    if (tsdb_codec_dict_set(w->codec, d, dlen, w->path, &e))
      report(w, page, key, klen, "bad dictionary", "page %llu: %s", (unsigned long long)page, e.msg);
  } else if ((meta_is(key, klen, "tsdb.batches") || meta_is(key, klen, "tsdb.puts")) && dlen != 8) {
    report(w, page, key, klen, "bad meta value", "page %llu: a counter of %zu bytes",
           (unsigned long long)page, dlen);
  }
}

/* Order-free fingerprint of a (key, length) pair: prob and by_len must sum alike. */
static uint64_t pair_hash(const uint8_t *key, size_t klen, unsigned length) {
  uint64_t h = 1469598103934665603ULL ^ length;
  for (size_t i = 0; i < klen; i++) h = (h ^ key[i]) * 1099511628211ULL;
  h ^= h >> 29;
  return h * 0xBF58476D1CE4E5B9ULL;
}

static void prob_leaf(Walk *w, uint64_t page, const uint8_t *key, size_t klen, const uint8_t *d,
                      size_t dlen, unsigned fl) {
  (void)fl;
  w->st->records++;
  if (klen < 1 || klen > TSDB_KEY_MAX) {
    report(w, page, key, klen, "bad key", "page %llu: a key of %zu bytes", (unsigned long long)page, klen);
    return;
  }
  if (!d) return;
  TsRecord rec;
  TsError e;
  if (tsdb_codec_decode(w->codec, d, dlen, &rec, w->path, &e)) {
    report(w, page, key, klen, "bad record", "page %llu: %s", (unsigned long long)page, e.msg);
    return;
  }
  uint64_t h = pair_hash(key, klen, rec.length);
  w->prob_sum += h;
  if (rec.length == TSDB_UNLISTED_LENGTH) {
    w->unlisted_sum += h;
    w->unlisted++;
  }
}

static void by_len_leaf(Walk *w, uint64_t page, const uint8_t *key, size_t klen, const uint8_t *d,
                        size_t dlen, unsigned fl) {
  w->st->by_len_entries++;
  (void)fl;
  if (klen != 2 || !d || dlen < 1 || dlen > TSDB_KEY_MAX) {
    report(w, page, d, d ? dlen : 0, "bad by_len entry", "page %llu: key of %zu bytes, value of %zu bytes",
           (unsigned long long)page, klen, dlen);
    return;
  }
  w->by_len_pairs++;
  w->by_len_sum += pair_hash(d, dlen, (unsigned)key[0] << 8 | key[1]);
}

static void table_walk(Walk *w, const char *name, const TreeHdr *t, bool present, bool dupsort,
                       LeafFn leaf) {
  w->table = name;
  if (!present) {
    report(w, TSDB_CHECK_NO_PAGE, NULL, 0, "table missing", "no table \"%s\" in the main tree", name);
    return;
  }
  if (!root_ok(t, w->npages - 1)) {
    report(w, t->root, NULL, 0, "root out of range", "table %s: root page %lld, depth %u", name,
           (long long)t->root, t->depth);
    return;
  }
  w->leaf = leaf;
  w->dupsort = dupsort;
  w->intkey = !strcmp(name, "free");
  tree_walk(w, t, false, NULL, 0);
}

/* After the walk: every page in a tree or free, once. */
static void pages_account(Walk *w) {
  w->table = "file";
  uint64_t lost = 0, both = 0, first_lost = 0, first_both = 0;
  for (uint64_t pg = 2; pg < w->npages; pg++) {
    bool u = bit_get(w->used, pg), f = bit_get(w->freed, pg);
    if (u && f && !both++) first_both = pg;
    if (!u && !f && !lost++) first_lost = pg;
  }
  if (both)
    report(w, first_both, NULL, 0, "page in use and free",
           "%llu page(s) are both in a tree and on the free list (first: %llu)",
           (unsigned long long)both, (unsigned long long)first_both);
  if (lost)
    report(w, first_lost, NULL, 0, "page lost",
           "%llu page(s) are neither in a tree nor on the free list (first: %llu)",
           (unsigned long long)lost, (unsigned long long)first_lost);
}

static void records_account(Walk *w) {
  w->table = "meta";
  if (w->has_meta && (!w->magic_ok || !w->version_ok || !w->material_ok || !w->rules_ok))
    report(w, TSDB_CHECK_NO_PAGE, NULL, 0, "bad meta value",
           "meta table: magic %s, version %s, material %s, rules %s", w->magic_ok ? "ok" : "bad",
           w->version_ok ? "ok" : "bad", w->material_ok ? "ok" : "bad", w->rules_ok ? "ok" : "bad");
  w->table = "by_len";
  bool all = w->version < 2; /* format version 1 lists every length */
  uint64_t want = w->st->records - (all ? 0 : w->unlisted);
  uint64_t want_sum = w->prob_sum - (all ? 0 : w->unlisted_sum);
  if (w->has_prob && w->has_by_len && (want_sum != w->by_len_sum || w->by_len_pairs != want))
    report(w, TSDB_CHECK_NO_PAGE, NULL, 0, "index differs",
           "by_len lists %llu (length, key) pairs, prob holds %llu records to list%s",
           (unsigned long long)w->by_len_pairs, (unsigned long long)want,
           w->by_len_pairs == want ? ", not the same ones" : "");
}

int tsdb_check_file(const char *path, TsDbDamageFn fn, void *ctx, TsDbCheckStats *st,
                    TsError *err) {
  memset(st, 0, sizeof *st);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  struct stat sb;
  if (fd < 0 || fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
    int e = errno;
    bool dir = fd >= 0;
    if (fd >= 0) close(fd);
    return ts_error_set(err, TS_ERR_IO, path, 0, 0, "cannot read: %s",
                        dir ? "not a regular file" : strerror(e));
  }
  Walk *w = calloc(1, sizeof *w);
  if (!w || tsdb_codec_create(0, &w->codec, err)) {
    free(w);
    close(fd);
    return ts_error_set(err, TS_ERR_NOMEM, path, 0, 0, "out of memory");
  }
  *w = (Walk){.fd = fd, .path = path, .fn = fn, .ctx = ctx, .st = st, .codec = w->codec};
  st->file_bytes = (uint64_t)sb.st_size;
  Meta m[2];
  memset(m, 0, sizeof m);
  int use = metas_read(w, st->file_bytes, m);
  int ts = TS_OK;
  if (use >= 0) {
    w->psize = st->page_size = m[use].psize;
    st->last_page = m[use].last_pg;
    st->txnid = m[use].txnid;
    w->npages = m[use].last_pg + 1;
    w->used = calloc(w->npages / 8 + 1, 1);
    w->freed = calloc(w->npages / 8 + 1, 1);
    if (!w->used || !w->freed) {
      ts = ts_error_set(err, TS_ERR_NOMEM, path, 0, 0, "out of memory for the page maps");
    } else {
      bit_set(w->used, 0);
      bit_set(w->used, 1);
      st->pages_used = 2;
      table_walk(w, "free", &m[use].free_db, true, false, free_leaf);
      table_walk(w, "main", &m[use].main_db, true, false, main_leaf);
      table_walk(w, "meta", &w->meta_t, w->has_meta, false, meta_leaf);
      table_walk(w, "prob", &w->prob_t, w->has_prob, false, prob_leaf);
      table_walk(w, "by_len", &w->by_len_t, w->has_by_len, true, by_len_leaf);
      if (!w->stop) pages_account(w);
      if (!w->stop) records_account(w);
    }
  }
  if (!ts && w->io_error)
    ts = ts_error_set(err, TS_ERR_IO, path, 0, 0, "read error: %s", strerror(w->io_error));
  if (!ts && w->stop == TS_ERR_NOMEM)
    ts = ts_error_set(err, TS_ERR_NOMEM, path, 0, 0, "out of memory");
  else if (!ts && w->stop)
    ts = w->stop;
  free(w->used);
  free(w->freed);
  tsdb_codec_free(w->codec);
  free(w);
  close(fd);
  return ts;
}

/* ---- the cheap check made at every open ---- */

typedef struct {
  TsError *err;
  const char *path;
  int code;
} HeaderCtx;

static int header_first(const TsDbDamage *d, void *ctx) {
  HeaderCtx *h = ctx;
  bool trunc = !strcmp(d->kind, "truncated");
  h->code = ts_error_set(h->err, TS_ERR_DB, h->path, 0, 0, "%s database: %s", trunc ? "truncated" : "damaged",
                         d->detail);
  return 1;
}

int tsdb_check_header(const char *path, TsError *err) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  struct stat sb;
  if (fd < 0 || fstat(fd, &sb) != 0) {
    int e = errno;
    if (fd >= 0) close(fd);
    return ts_error_set(err, TS_ERR_IO, path, 0, 0, "cannot read: %s", strerror(e));
  }
  TsDbCheckStats st = {0};
  HeaderCtx h = {err, path, TS_OK};
  Walk w = {.fd = fd, .path = path, .fn = header_first, .ctx = &h, .st = &st};
  /* no LMDB magic where either meta page can be: a foreign file, not a damaged one */
  static const uint32_t AT[] = {0, 512, 1024, 2048, 4096, 8192, 16384, 32768, 65536};
  uint8_t mg[4];
  bool lmdb = false;
  for (size_t i = 0; i < sizeof AT / sizeof AT[0] && !lmdb; i++)
    lmdb = read_at(&w, mg, 4, AT[i] + PAGE_HDR) && u32_at(mg) == META_MAGIC_LMDB;
  if (!lmdb) {
    close(fd);
    return ts_error_set(err, TS_ERR_DB, path, 0, 0, "not an LMDB database");
  }
  Meta m[2];
  memset(m, 0, sizeof m);
  int use = metas_read(&w, (uint64_t)sb.st_size, m);
  /* the two roots LMDB reads first must be tree pages that know their number */
  for (int i = 0; i < 2 && use >= 0 && !h.code; i++) {
    const TreeHdr *t = i ? &m[use].main_db : &m[use].free_db;
    uint8_t hdr[PAGE_HDR];
    if (t->root == PGNO_NONE) continue;
    if (!read_at(&w, hdr, sizeof hdr, t->root * m[use].psize)) {
      h.code = ts_error_set(err, TS_ERR_IO, path, 0, 0, "cannot read page %llu", (unsigned long long)t->root);
    } else if (u64_at(hdr) != t->root || !(u16_at(hdr + 10) & (P_BRANCH | P_LEAF)) ||
               (u16_at(hdr + 10) & (P_OVERFLOW | P_META | P_SUBP))) {
      h.code = ts_error_set(err, TS_ERR_DB, path, 0, 0,
                            "damaged database: root page %llu of the %s tree is not a tree page "
                            "(run tsume db-check)",
                            (unsigned long long)t->root, i ? "main" : "free-list");
    }
  }
  if (!h.code && w.io_error)
    h.code = ts_error_set(err, TS_ERR_IO, path, 0, 0, "read error: %s", strerror(w.io_error));
  close(fd);
  return h.code;
}
