/*
 * fuzz_sfen.c - libFuzzer target for sfen_parse: whatever parses must write back
 * to a SFEN that parses to an equal position and writes the same text again.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bitboard.h"
#include "sfen.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  core_init();
  if (size > 1024) return 0;
  char in[1025];
  memcpy(in, data, size);
  in[size] = 0;
  Position p, q;
  TsError err;
  if (sfen_parse(in, &p, "<fuzz>", &err) != TS_OK) return 0;
  char out[SFEN_MAX], again[SFEN_MAX];
  sfen_write(&p, out, sizeof out);
  if (sfen_parse(out, &q, "<fuzz>", &err) != TS_OK) abort();
  if (!pos_equal(&p, &q)) abort();
  sfen_write(&q, again, sizeof again);
  if (strcmp(out, again) != 0) abort();
  return 0;
}
