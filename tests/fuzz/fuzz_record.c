/*
 * fuzz_record.c - libFuzzer target for the record codec (db/tsdb_codec.h).
 *
 * Input byte 0 picks the codec (bit 0: with a trained dictionary) and the
 * mode (bit 1):
 *   decode  - the rest is a stored value: decoding returns TS_OK or
 *             TS_ERR_DB (never crashes); a decoded record re-encodes and
 *             decodes to the same record, and a raw value without a
 *             dictionary re-encodes to the very same bytes (one encoding).
 *   encode  - the rest fills a record (moves forced valid): encoding then
 *             decoding gives it back unchanged.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tsdb.h"
#include "tsdb_codec.h"

/* assert() is compiled out in Release builds (NDEBUG); the fuzzer always checks */
#define CHECK(x) ((x) ? (void)0 : abort())

typedef struct {
  TsDbCodec *plain, *dict;
} Codecs;

static uint64_t rng_next(uint64_t *s) {
  *s ^= *s << 13;
  *s ^= *s >> 7;
  *s ^= *s << 17;
  return *s;
}

static uint16_t fix_move(uint16_t m) {
  unsigned to = (m & 127) % 81, from = (m >> 7) & 127, promote = (m >> 14) & 1;
  if (from >= 81) {
    from = 82 + (from - 81) % 7;
    promote = 0;
  }
  return (uint16_t)(to | from << 7 | promote << 14);
}

/* Codecs made once per process (the harness keeps them for speed). */
static Codecs *codecs_get(void) {
  static Codecs c;
  if (c.plain) return &c;
  TsError err;
  if (tsdb_codec_create(3, &c.plain, &err) || tsdb_codec_create(3, &c.dict, &err)) abort();
  enum { N = 3000 };
  uint8_t *samples = malloc((size_t)N * TSDB_BODY_MAX);
  size_t *sizes = malloc(N * sizeof *sizes), total = 0;
  static TsRecord r;
  uint64_t s = 1;
  for (int i = 0; i < N; i++) {
    memset(&r, 0, sizeof r);
    r.key_len = 1;
    r.flags = (uint32_t)(rng_next(&s) % 1024);
    r.root_mates = 1;
    r.line_len = (uint16_t)(5 + rng_next(&s) % 21);
    for (unsigned j = 0; j < r.line_len; j++) r.line[j] = fix_move((uint16_t)rng_next(&s));
    sizes[i] = tsdb_record_body_write(&r, samples + total);
    total += sizes[i];
  }
  uint8_t dict[8192];
  size_t len = tsdb_dict_train(dict, sizeof dict, samples, sizes, N);
  if (!len) { /* fall back to a raw-content dictionary */
    len = total < sizeof dict ? total : sizeof dict;
    memcpy(dict, samples, len);
  }
  if (tsdb_codec_dict_set(c.dict, dict, len, "<fuzz>", &err)) abort();
  free(samples);
  free(sizes);
  return &c;
}

static void assert_same(const TsRecord *a, const TsRecord *b) {
  CHECK(a->length == b->length && a->flags == b->flags && a->root_mates == b->root_mates);
  CHECK(a->line_len == b->line_len && a->ext_len == b->ext_len);
  CHECK(!memcmp(a->line, b->line, 2u * a->line_len));
  CHECK(!memcmp(a->ext, b->ext, a->ext_len));
}

static size_t take(const uint8_t **p, size_t *n, void *out, size_t want) {
  size_t k = *n < want ? *n : want;
  memcpy(out, *p, k);
  *p += k;
  *n -= k;
  return k;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1) return 0;
  Codecs *cs = codecs_get();
  unsigned mode = data[0];
  TsDbCodec *c = mode & 1 ? cs->dict : cs->plain;
  static TsRecord r, r2;
  static uint8_t v[TSDB_VALUE_MAX];
  TsError err;
  size_t vlen;
  data++;
  size--;
  if (!(mode & 2)) {
    memset(&r, 0, sizeof r);
    int rc = tsdb_codec_decode(c, data, size, &r, "<fuzz>", &err);
    CHECK(rc == TS_OK || rc == TS_ERR_DB);
    if (rc) return 0;
    r.key_len = 1;
    CHECK(tsdb_record_check(&r, &err) == TS_OK);
    tsdb_codec_encode(c, &r, v, &vlen);
    if (c == cs->plain && size && data[0] == TSDB_TAG_RAW) CHECK(vlen == size && !memcmp(v, data, size));
    CHECK(tsdb_codec_decode(c, v, vlen, &r2, "<fuzz>", &err) == TS_OK);
    assert_same(&r, &r2);
    return 0;
  }
  memset(&r, 0, sizeof r);
  r.key_len = 1;
  uint16_t line_len = 0;
  take(&data, &size, &r.length, 2);
  take(&data, &size, &r.flags, 4);
  take(&data, &size, &r.root_mates, 1);
  take(&data, &size, &r.ext_len, 1);
  take(&data, &size, &line_len, 2);
  take(&data, &size, r.ext, r.ext_len);
  r.line_len = (uint16_t)(line_len % (TSDB_LINE_MAX + 1));
  for (unsigned i = 0; i < r.line_len; i++) {
    uint16_t m = (uint16_t)(i * 0x1234u);
    take(&data, &size, &m, 2);
    r.line[i] = fix_move(m);
  }
  CHECK(tsdb_record_check(&r, &err) == TS_OK);
  tsdb_codec_encode(c, &r, v, &vlen);
  CHECK(vlen <= TSDB_VALUE_MAX);
  memset(&r2, 0x55, sizeof r2);
  CHECK(tsdb_codec_decode(c, v, vlen, &r2, "<fuzz>", &err) == TS_OK);
  assert_same(&r, &r2);
  return 0;
}
