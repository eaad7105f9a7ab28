/*
 * fuzz_kif.c - libFuzzer target for kif_parse: whatever parses must write back
 * (UTF-8, and CP932 when the text is representable) to KIF that parses to the
 * same position, headers and move tree, and writes the same bytes again.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bitboard.h"
#include "kif.h"

static void node_check(const KifNode *a, const KifNode *b) {
  if (move_compact(a->move) != move_compact(b->move) || a->special != b->special || a->ply != b->ply) abort();
  if ((a->comment == NULL) != (b->comment == NULL)) abort();
  if (a->comment && strcmp(a->comment, b->comment) != 0) abort();
}

/* Walks both trees in step, without recursion (lines can be thousands of moves long). */
static void tree_check(const KifNode *ra, const KifNode *rb) {
  const KifNode *a = ra, *b = rb;
  for (;;) {
    node_check(a, b);
    if (a->child || b->child) {
      if (!a->child || !b->child) abort();
      a = a->child, b = b->child;
      continue;
    }
    for (;;) {
      if (a == ra) {
        if (b != rb) abort();
        return;
      }
      if (a->sibling || b->sibling) {
        if (!a->sibling || !b->sibling) abort();
        a = a->sibling, b = b->sibling;
        break;
      }
      a = a->parent, b = b->parent;
    }
  }
}

static void record_check(const KifRecord *a, const KifRecord *b) {
  if (!pos_equal(&a->start, &b->start)) abort();
  tree_check(a->root, b->root);
}

static void roundtrip(const KifRecord *rec, KifEncoding enc) {
  char *out, *again;
  size_t len, len2;
  TsError err;
  int rc = kif_write(rec, enc, "fuzz", &out, &len, &err);
  if (rc == TS_ERR_PARSE && enc == KIF_ENC_CP932) return; /* text CP932 cannot hold */
  if (rc != TS_OK) abort();
  KifRecord back;
  if (kif_parse(out, len, KIF_ENC_AUTO, "<fuzz-out>", &back, &err) != TS_OK) abort();
  record_check(rec, &back);
  if (kif_write(&back, enc, "fuzz", &again, &len2, &err) != TS_OK) abort();
  if (len != len2 || memcmp(out, again, len) != 0) abort();
  free(out);
  free(again);
  kif_record_free(&back);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  core_init();
  KifRecord rec;
  TsError err;
  if (kif_parse((const char *)data, size, KIF_ENC_AUTO, "<fuzz>", &rec, &err) != TS_OK) return 0;
  roundtrip(&rec, KIF_ENC_UTF8);
  roundtrip(&rec, KIF_ENC_CP932);
  kif_record_free(&rec);
  return 0;
}
