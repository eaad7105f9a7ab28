/*
 * tsdb_codec.h - the record codec of tsdb.h (value layout drawn there):
 * TsRecord <-> bytes stored in `prob`, with an optional zstd dictionary.
 * Internal to db/ (and the fuzz target); callers use tsdb.h.
 *
 * How to use:
 *   TsDbCodec *c; tsdb_codec_create(3, &c, &err);
 *   tsdb_codec_dict_set(c, dict, dict_len, &err);   // optional, once
 *   uint8_t v[TSDB_VALUE_MAX]; size_t n;
 *   tsdb_codec_encode(c, &rec, v, &n);             // rec checked with tsdb_record_check
 *   tsdb_codec_decode(c, v, n, &rec2, "where", &err);  // rec2.key untouched
 *
 * A codec holds zstd contexts: one per thread.
 */
#ifndef TSUME_TSDB_CODEC_H
#define TSUME_TSDB_CODEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "tsdb.h"

#define TSDB_TAG_RAW 0x01
#define TSDB_TAG_DICT 0x02
/* largest body: flags 5 + root 1 + n_moves 2 + ext_len 1 + line + ext */
#define TSDB_BODY_MAX (5 + 1 + 2 + 1 + 2 * TSDB_LINE_MAX + TSDB_EXT_MAX)
/* largest value: tag + length uvarint (3) + body (raw is used when zstd is not smaller) */
#define TSDB_VALUE_MAX (1 + 3 + TSDB_BODY_MAX)

typedef struct TsDbCodec TsDbCodec;

/* level: zstd level for dictionary compression (0 = 3). */
int tsdb_codec_create(int level, TsDbCodec **out, TsError *err);
void tsdb_codec_free(TsDbCodec *c);
/* Loads a dictionary (zstd-format, or any bytes as raw content). Replaces a
 * previous one. TS_ERR_DB when zstd refuses it, TS_ERR_NOMEM. */
int tsdb_codec_dict_set(TsDbCodec *c, const void *dict, size_t len, const char *where,
                        TsError *err);
bool tsdb_codec_has_dict(const TsDbCodec *c);

/* TS_OK, or TS_ERR_USAGE naming the first field out of range. */
int tsdb_record_check(const TsRecord *r, TsError *err);
/* Writes the uncompressed body of a checked record to out (TSDB_BODY_MAX
 * bytes); returns its size. */
size_t tsdb_record_body_write(const TsRecord *r, uint8_t *out);

/* Size of the raw (uncompressed) value of a checked record. */
size_t tsdb_record_raw_size(const TsRecord *r);
/* Encodes a checked record into out (TSDB_VALUE_MAX bytes): dictionary
 * compressed when a dictionary is loaded and that is smaller, raw otherwise. */
void tsdb_codec_encode(TsDbCodec *c, const TsRecord *r, uint8_t *out, size_t *len);
/* Decodes a stored value into *r (all fields but key/key_len). Every length
 * and bound is checked: TS_ERR_DB with a message (prefixed by where) for bytes
 * that are not a value this codec writes, or for a dictionary-compressed value
 * when no dictionary is loaded. */
int tsdb_codec_decode(TsDbCodec *c, const uint8_t *v, size_t n, TsRecord *r, const char *where,
                      TsError *err);
/* The mate length of a stored value, without decompressing. TS_ERR_DB. */
int tsdb_value_length(const uint8_t *v, size_t n, uint16_t *length, const char *where,
                      TsError *err);
/* Whether a stored value needs the dictionary (tag TSDB_TAG_DICT). */
bool tsdb_value_needs_dict(const uint8_t *v, size_t n);

/* Trains a dictionary of at most cap bytes from the bodies of records
 * (concatenated in samples, sizes[i] each). Returns the size, or 0 when zstd
 * could not train one (too few or too small samples): stay raw then. */
size_t tsdb_dict_train(void *dict, size_t cap, const void *samples, const size_t *sizes,
                       unsigned n);

#endif
