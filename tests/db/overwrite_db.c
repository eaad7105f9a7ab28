/*
 * overwrite_db.c - damages a file on purpose, deterministically, for the
 * database-damage tests (tests/db/damage_test.sh).
 *
 *   overwrite_db FILE random SEED      4 pseudo-random bytes at a pseudo-random
 *                                      offset, both from SEED (xorshift64*)
 *   overwrite_db FILE at OFFSET HEX    the bytes HEX (e.g. deadbeef) at OFFSET
 *   overwrite_db FILE key SFEN         writes nothing: prints the file offset of
 *                                      each copy of SFEN's canonical record key
 *                                      (encode.h), one a line, then its length
 *
 * Prints "offset bytes" of what it wrote. Exit 0 when written, 2 on bad
 * usage, 3 when the file cannot be read or written.
 */
#define _GNU_SOURCE /* memmem */
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bitboard.h"
#include "encode.h"
#include "sfen.h"

static uint64_t next(uint64_t *s) {
  *s ^= *s >> 12;
  *s ^= *s << 25;
  *s ^= *s >> 27;
  return *s * 0x2545F4914F6CDD1DULL;
}

static int usage(void) {
  fprintf(stderr, "usage: overwrite_db FILE random SEED | overwrite_db FILE at OFFSET HEX\n");
  return 2;
}

int main(int argc, char **argv) {
  if (argc < 4) return usage();
  int fd = open(argv[1], O_RDWR);
  struct stat st;
  if (fd < 0 || fstat(fd, &st) != 0 || st.st_size < 4) {
    fprintf(stderr, "overwrite_db: cannot use %s\n", argv[1]);
    return 3;
  }
  uint8_t bytes[64];
  size_t n = 0;
  if (!strcmp(argv[2], "key") && argc == 4) {
    core_init();
    Position pos;
    TsError err;
    if (sfen_parse(argv[3], &pos, "<sfen>", &err)) return usage();
    uint8_t key[POS_CODE_MAX];
    size_t kl = pos_canonical(&pos, key, NULL);
    uint8_t *file = malloc((size_t)st.st_size);
    if (!file || pread(fd, file, (size_t)st.st_size, 0) != st.st_size) return 3;
    for (const uint8_t *p = file; (p = memmem(p, (size_t)(file + st.st_size - p), key, kl)) != NULL; p++)
      printf("%td\n", p - file);
    printf("length %zu\n", kl);
    free(file);
    return 0;
  }
  uint64_t off;
  if (!strcmp(argv[2], "random") && argc == 4) {
    uint64_t s = strtoull(argv[3], NULL, 10) * 0x9E3779B97F4A7C15ULL + 1;
    for (int i = 0; i < 4; i++) next(&s);
    off = next(&s) % (uint64_t)(st.st_size - 3);
    uint64_t r = next(&s);
    for (n = 0; n < 4; n++) bytes[n] = (uint8_t)(r >> (8 * n));
  } else if (!strcmp(argv[2], "at") && argc == 5) {
    off = strtoull(argv[3], NULL, 0);
    const char *h = argv[4];
    size_t len = strlen(h);
    if (len % 2 || len / 2 > sizeof bytes || len == 0) return usage();
    for (n = 0; n < len / 2; n++) {
      unsigned b;
      if (sscanf(h + 2 * n, "%2x", &b) != 1) return usage();
      bytes[n] = (uint8_t)b;
    }
  } else {
    return usage();
  }
  if (pwrite(fd, bytes, n, (off_t)off) != (ssize_t)n || close(fd) != 0) {
    fprintf(stderr, "overwrite_db: cannot write %s\n", argv[1]);
    return 3;
  }
  printf("%" PRIu64 " ", off);
  for (size_t i = 0; i < n; i++) printf("%02x", bytes[i]);
  printf("\n");
  return 0;
}
