/*
 * fuzz_csa.c - libFuzzer target for csa_parse: whatever parses must write back
 * to CSA that parses to the same position and moves and writes the same text.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bitboard.h"
#include "csa.h"

#define FUZZ_MOVES 4096

static char *csa_text(const Position *pos, const Move *moves, int n, size_t *len) {
  *len = csa_write(pos, moves, n, NULL, 0);
  char *buf = malloc(*len + 1);
  if (!buf) abort();
  if (csa_write(pos, moves, n, buf, *len + 1) != *len) abort();
  return buf;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  core_init();
  Move *moves = malloc(2 * FUZZ_MOVES * sizeof *moves), *back = moves + FUZZ_MOVES;
  if (!moves) abort();
  Position p, q;
  int n = 0, nb = 0;
  TsError err;
  if (csa_parse((const char *)data, size, "<fuzz>", &p, moves, FUZZ_MOVES, &n, &err) != TS_OK) {
    free(moves);
    return 0;
  }
  size_t len, len2;
  char *text = csa_text(&p, moves, n, &len);
  if (csa_parse(text, len, "<fuzz>", &q, back, FUZZ_MOVES, &nb, &err) != TS_OK) abort();
  if (!pos_equal(&p, &q) || nb != n) abort();
  for (int i = 0; i < n; i++)
    if (move_compact(moves[i]) != move_compact(back[i])) abort();
  char *again = csa_text(&q, back, nb, &len2);
  if (len != len2 || memcmp(text, again, len) != 0) abort();
  free(text);
  free(again);
  free(moves);
  return 0;
}
