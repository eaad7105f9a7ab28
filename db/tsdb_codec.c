/*
 * tsdb_codec.c - record codec: compact binary body, compressed per record
 * with a zstd dictionary trained once per database (layout in tsdb.h).
 *
 * Why per record with a dictionary and not blocks: prob is keyed by the
 * canonical key, and a query or an overwrite touches one record at a time;
 * blocks of records would need a second key space (block id) and a
 * read-modify-write of a whole block for every overwrite. The body is
 * already compact (varints, 2-byte moves), so zstd has little to win; it is
 * used only when smaller (one tag byte tells), in magicless frames without
 * dictionary id or checksum to keep the per-record overhead at ~5 bytes.
 *
 * Measured on the synthetic records of tests/db/bench_db (19-byte keys as in
 * core/encode.h, odd main lines of 5..25 moves around the king, 15 on
 * average; zstd 1.5.4; compression rows over 200,000 key-sorted records, the
 * dictionary trained on 50,000 of them; LMDB rows over 1,000,000), bytes per
 * record:
 *
 *   body, raw (varints + 2-byte moves)                  35.4
 *   per record, 16 KiB trained dictionary, level 3      38.9  (34.9 when the
 *                                                       raw form is kept
 *                                                       where smaller: -1.3%)
 *   blocks of 16 / 64 / 256 key-ordered bodies, no dict 32.7 / 29.8 / 28.5
 *   LMDB per record: prob ~104 + by_len ~40 (compacted file 143.6 in all)
 *
 * So compression could save at most ~7 of ~144 bytes a record needs in the
 * compacted file, and blocks would cost random access. The dictionary is
 * therefore trained once (first batch of >= dict_min_records records) and
 * kept only if it saves >= 5% on that batch; otherwise meta stores the empty
 * "stay raw" decision and no record pays the ~2 us compression attempt.
 * Real enumerator lines may repeat more than these synthetic ones; the same
 * rule then adopts the dictionary by itself.
 */
#define ZSTD_STATIC_LINKING_ONLY /* ZSTD_c_format / ZSTD_d_format (magicless frames) */
#include "tsdb_codec.h"

#include <stdlib.h>
#include <string.h>
#include <zdict.h>
#include <zstd.h>

#include "types.h"

struct TsDbCodec {
  int level;
  ZSTD_CCtx *cctx;
  ZSTD_DCtx *dctx;
  ZSTD_CDict *cdict;
  ZSTD_DDict *ddict;
};

int tsdb_codec_create(int level, TsDbCodec **out, TsError *err) {
  *out = NULL;
  TsDbCodec *c = calloc(1, sizeof *c);
  if (!c) return ts_error_set(err, TS_ERR_NOMEM, "tsdb", 0, 0, "out of memory for the codec");
  c->level = level ? level : 3;
  c->cctx = ZSTD_createCCtx();
  c->dctx = ZSTD_createDCtx();
  if (!c->cctx || !c->dctx) {
    tsdb_codec_free(c);
    return ts_error_set(err, TS_ERR_NOMEM, "tsdb", 0, 0, "out of memory for zstd contexts");
  }
  /* Sticky parameters: every frame is magicless, without checksum or
   * dictionary id (there is one dictionary per database). */
  if (ZSTD_isError(ZSTD_CCtx_setParameter(c->cctx, ZSTD_c_format, ZSTD_f_zstd1_magicless)) ||
      ZSTD_isError(ZSTD_CCtx_setParameter(c->cctx, ZSTD_c_dictIDFlag, 0)) ||
      ZSTD_isError(ZSTD_CCtx_setParameter(c->cctx, ZSTD_c_checksumFlag, 0)) ||
      ZSTD_isError(ZSTD_DCtx_setParameter(c->dctx, ZSTD_d_format, ZSTD_f_zstd1_magicless))) {
    tsdb_codec_free(c);
    return ts_error_set(err, TS_ERR_DB, "tsdb", 0, 0, "zstd refused the frame parameters");
  }
  *out = c;
  return TS_OK;
}

void tsdb_codec_free(TsDbCodec *c) {
  if (!c) return;
  ZSTD_freeCCtx(c->cctx);
  ZSTD_freeDCtx(c->dctx);
  ZSTD_freeCDict(c->cdict);
  ZSTD_freeDDict(c->ddict);
  free(c);
}

int tsdb_codec_dict_set(TsDbCodec *c, const void *dict, size_t len, const char *where,
                        TsError *err) {
  if (len == 0) return ts_error_set(err, TS_ERR_DB, where, 0, 0, "empty zstd dictionary");
  ZSTD_CDict *cd = ZSTD_createCDict(dict, len, c->level);
  ZSTD_DDict *dd = ZSTD_createDDict(dict, len);
  if (!cd || !dd) {
    ZSTD_freeCDict(cd);
    ZSTD_freeDDict(dd);
    return ts_error_set(err, TS_ERR_DB, where, 0, 0, "zstd cannot load the %zu-byte dictionary",
                        len);
  }
  if (ZSTD_isError(ZSTD_CCtx_refCDict(c->cctx, cd)) || ZSTD_isError(ZSTD_DCtx_refDDict(c->dctx, dd))) {
    ZSTD_freeCDict(cd);
    ZSTD_freeDDict(dd);
    ZSTD_CCtx_refCDict(c->cctx, c->cdict);
    ZSTD_DCtx_refDDict(c->dctx, c->ddict);
    return ts_error_set(err, TS_ERR_DB, where, 0, 0, "zstd cannot use the dictionary");
  }
  ZSTD_freeCDict(c->cdict);
  ZSTD_freeDDict(c->ddict);
  c->cdict = cd;
  c->ddict = dd;
  return TS_OK;
}

bool tsdb_codec_has_dict(const TsDbCodec *c) { return c->cdict != NULL; }

/* ---- varints ---- */

static size_t uvarint_put(uint8_t *p, uint32_t v) {
  size_t n = 0;
  while (v >= 0x80) {
    p[n++] = (uint8_t)(v | 0x80);
    v >>= 7;
  }
  p[n++] = (uint8_t)v;
  return n;
}

/* Reads a shortest-form uvarint of at most max_bytes bytes that is <= limit.
 * Returns the bytes read, 0 when malformed. */
static size_t uvarint_get(const uint8_t *p, size_t avail, size_t max_bytes, uint32_t limit,
                          uint32_t *v) {
  uint64_t x = 0;
  for (size_t i = 0; i < avail && i < max_bytes; i++) {
    x |= (uint64_t)(p[i] & 0x7f) << (7 * i);
    if (!(p[i] & 0x80)) {
      if (i > 0 && p[i] == 0) return 0; /* not the shortest form */
      if (x > limit) return 0;
      *v = (uint32_t)x;
      return i + 1;
    }
  }
  return 0;
}

/* ---- records ---- */

static bool move_ok(uint16_t m) {
  if (m & 0x8000) return false;
  unsigned to = m & 127, from = (m >> 7) & 127, promote = (m >> 14) & 1;
  if (to >= SQ_NB) return false;
  if (from < SQ_NB) return true;
  return from >= SQ_NB + PAWN && from <= SQ_NB + GOLD && !promote;
}

int tsdb_record_check(const TsRecord *r, TsError *err) {
  if (r->key_len < 1 || r->key_len > TSDB_KEY_MAX)
    return ts_error_set(err, TS_ERR_USAGE, "tsdb", 0, 0, "key length %u not in 1..%d",
                        (unsigned)r->key_len, TSDB_KEY_MAX);
  if (r->line_len > TSDB_LINE_MAX)
    return ts_error_set(err, TS_ERR_USAGE, "tsdb", 0, 0, "main line of %u moves (max %d)",
                        (unsigned)r->line_len, TSDB_LINE_MAX);
  for (unsigned i = 0; i < r->line_len; i++)
    if (!move_ok(r->line[i]))
      return ts_error_set(err, TS_ERR_USAGE, "tsdb", 0, 0,
                          "move %u of the main line (0x%04x) is not a compact move", i,
                          (unsigned)r->line[i]);
  return TS_OK;
}

size_t tsdb_record_body_write(const TsRecord *r, uint8_t *out) {
  size_t n = uvarint_put(out, r->flags);
  out[n++] = r->root_mates;
  n += uvarint_put(out + n, (uint32_t)r->line_len << 1 | (r->ext_len ? 1u : 0u));
  if (r->ext_len) out[n++] = r->ext_len;
  for (unsigned i = 0; i < r->line_len; i++) {
    out[n++] = (uint8_t)(r->line[i] & 0xff);
    out[n++] = (uint8_t)(r->line[i] >> 8);
  }
  memcpy(out + n, r->ext, r->ext_len);
  return n + r->ext_len;
}

size_t tsdb_record_raw_size(const TsRecord *r) {
  uint8_t body[TSDB_BODY_MAX];
  return 1 + (r->length < 128 ? 1u : r->length < 16384 ? 2u : 3u) + tsdb_record_body_write(r, body);
}

void tsdb_codec_encode(TsDbCodec *c, const TsRecord *r, uint8_t *out, size_t *len) {
  uint8_t body[TSDB_BODY_MAX];
  size_t head = 1 + uvarint_put(out + 1, r->length);
  size_t blen = tsdb_record_body_write(r, body);
  if (c->cdict) {
    /* dst capacity blen - 1: a frame that is not smaller fails and we stay raw */
    size_t z = blen > 1 ? ZSTD_compress2(c->cctx, out + head, blen - 1, body, blen) : 0;
    if (blen > 1 && !ZSTD_isError(z) && z > 0 && z < blen) {
      out[0] = TSDB_TAG_DICT;
      *len = head + z;
      return;
    }
  }
  out[0] = TSDB_TAG_RAW;
  memcpy(out + head, body, blen);
  *len = head + blen;
}

int tsdb_value_length(const uint8_t *v, size_t n, uint16_t *length, const char *where,
                      TsError *err) {
  uint32_t x;
  size_t k;
  if (n < 2 || (v[0] != TSDB_TAG_RAW && v[0] != TSDB_TAG_DICT))
    return ts_error_set(err, TS_ERR_DB, where, 0, 0, "corrupt record: bad tag (%zu bytes)", n);
  if (!(k = uvarint_get(v + 1, n - 1, 3, 0xffff, &x)))
    return ts_error_set(err, TS_ERR_DB, where, 0, 0, "corrupt record: bad mate length");
  *length = (uint16_t)x;
  return TS_OK;
}

bool tsdb_value_needs_dict(const uint8_t *v, size_t n) { return n > 0 && v[0] == TSDB_TAG_DICT; }

static int body_parse(const uint8_t *b, size_t n, TsRecord *r, const char *where, TsError *err) {
  size_t p = 0, k;
  uint32_t flags, nm;
  if (!(k = uvarint_get(b, n, 5, 0xffffffffu, &flags)))
    return ts_error_set(err, TS_ERR_DB, where, 0, 0, "corrupt record: bad flags");
  p += k;
  if (p >= n) return ts_error_set(err, TS_ERR_DB, where, 0, 0, "corrupt record: truncated");
  uint8_t root = b[p++];
  if (!(k = uvarint_get(b + p, n - p, 2, (TSDB_LINE_MAX << 1) | 1, &nm)))
    return ts_error_set(err, TS_ERR_DB, where, 0, 0, "corrupt record: bad move count");
  p += k;
  unsigned moves = nm >> 1, ext = 0;
  if (nm & 1) {
    if (p >= n) return ts_error_set(err, TS_ERR_DB, where, 0, 0, "corrupt record: truncated");
    ext = b[p++];
    if (ext == 0)
      return ts_error_set(err, TS_ERR_DB, where, 0, 0, "corrupt record: empty extension");
  }
  if (n - p != 2 * (size_t)moves + ext)
    return ts_error_set(err, TS_ERR_DB, where, 0, 0,
                        "corrupt record: %zu bytes left for %u moves and %u extension bytes",
                        n - p, moves, ext);
  for (unsigned i = 0; i < moves; i++, p += 2) {
    uint16_t m = (uint16_t)(b[p] | b[p + 1] << 8);
    if (!move_ok(m))
      return ts_error_set(err, TS_ERR_DB, where, 0, 0, "corrupt record: move %u is 0x%04x", i,
                          (unsigned)m);
    r->line[i] = m;
  }
  memcpy(r->ext, b + p, ext);
  r->flags = flags;
  r->root_mates = root;
  r->line_len = (uint16_t)moves;
  r->ext_len = (uint8_t)ext;
  return TS_OK;
}

int tsdb_codec_decode(TsDbCodec *c, const uint8_t *v, size_t n, TsRecord *r, const char *where,
                      TsError *err) {
  uint16_t length;
  int rc = tsdb_value_length(v, n, &length, where, err);
  if (rc) return rc;
  size_t head = 1;
  while (v[head] & 0x80) head++;
  head++;
  const uint8_t *body = v + head;
  size_t blen = n - head;
  uint8_t buf[TSDB_BODY_MAX];
  if (v[0] == TSDB_TAG_DICT) {
    if (!c->ddict)
      return ts_error_set(err, TS_ERR_DB, where, 0, 0,
                          "record is dictionary-compressed but the database has no dictionary");
    size_t z = ZSTD_decompressDCtx(c->dctx, buf, sizeof buf, body, blen);
    if (ZSTD_isError(z))
      return ts_error_set(err, TS_ERR_DB, where, 0, 0, "corrupt record: zstd: %s",
                          ZSTD_getErrorName(z));
    body = buf;
    blen = z;
  }
  rc = body_parse(body, blen, r, where, err);
  if (rc) return rc;
  r->length = length;
  return TS_OK;
}

size_t tsdb_dict_train(void *dict, size_t cap, const void *samples, const size_t *sizes,
                       unsigned n) {
  size_t z = ZDICT_trainFromBuffer(dict, cap, samples, sizes, n);
  return ZDICT_isError(z) ? 0 : z;
}
