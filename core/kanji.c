#include "kanji.h"

#include <errno.h>
#include <iconv.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"

int kanji_utf8_decode(const char *s, size_t n, uint32_t *cp) {
  const unsigned char *u = (const unsigned char *)s;
  if (n == 0) return -1;
  unsigned char c = u[0];
  if (c < 0x80) {
    *cp = c;
    return 1;
  }
  int len;
  uint32_t v, min;
  if (c >= 0xC2 && c <= 0xDF) {
    len = 2, v = c & 0x1F, min = 0x80;
  } else if (c >= 0xE0 && c <= 0xEF) {
    len = 3, v = c & 0x0F, min = 0x800;
  } else if (c >= 0xF0 && c <= 0xF4) {
    len = 4, v = c & 0x07, min = 0x10000;
  } else {
    return -1;
  }
  if ((size_t)len > n) return -1;
  for (int i = 1; i < len; i++) {
    if ((u[i] & 0xC0) != 0x80) return -1;
    v = (v << 6) | (u[i] & 0x3F);
  }
  if (v < min || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF)) return -1;
  *cp = v;
  return len;
}

int kanji_utf8_encode(uint32_t cp, char out[4]) {
  if (cp < 0x80) {
    out[0] = (char)cp;
    return 1;
  }
  if (cp < 0x800) {
    out[0] = (char)(0xC0 | (cp >> 6));
    out[1] = (char)(0x80 | (cp & 0x3F));
    return 2;
  }
  if (cp >= 0xD800 && cp <= 0xDFFF) return 0;
  if (cp < 0x10000) {
    out[0] = (char)(0xE0 | (cp >> 12));
    out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
    out[2] = (char)(0x80 | (cp & 0x3F));
    return 3;
  }
  if (cp > 0x10FFFF) return 0;
  out[0] = (char)(0xF0 | (cp >> 18));
  out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
  out[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
  out[3] = (char)(0x80 | (cp & 0x3F));
  return 4;
}

int kanji_utf8_check(const char *s, size_t n, size_t *bad) {
  size_t i = 0;
  while (i < n) {
    uint32_t cp;
    int k = kanji_utf8_decode(s + i, n - i, &cp);
    if (k < 0) {
      if (bad) *bad = i;
      return 0;
    }
    i += (size_t)k;
  }
  return 1;
}

int kanji_display_width(const char *s) {
  size_t n = strlen(s), i = 0;
  int w = 0;
  while (i < n) {
    uint32_t cp;
    int k = kanji_utf8_decode(s + i, n - i, &cp);
    if (k < 0) {
      k = 1;
      cp = '?';
    }
    w += (cp < 0x80 || (cp >= 0xFF61 && cp <= 0xFF9F)) ? 1 : 2;
    i += (size_t)k;
  }
  return w;
}

int kanji_convert(const char *to, const char *from, const char *in, size_t n, char **out, size_t *out_len,
                  size_t *bad) {
  *out = NULL;
  *out_len = 0;
  iconv_t cd = iconv_open(to, from);
  if (cd == (iconv_t)-1) return TS_ERR_USAGE;
  size_t cap = n * 2 + 16;
  char *buf = malloc(cap);
  if (!buf) {
    iconv_close(cd);
    return TS_ERR_NOMEM;
  }
  char *ip = (char *)(uintptr_t)in; /* iconv's prototype is not const-correct */
  size_t il = n, used = 0;
  int rc = TS_OK;
  for (;;) {
    char *op = buf + used;
    size_t ol = cap - used - 1;
    size_t r = il ? iconv(cd, &ip, &il, &op, &ol) : iconv(cd, NULL, NULL, &op, &ol);
    used = (size_t)(op - buf);
    if (r != (size_t)-1) {
      if (il == 0) {
        /* flush any shift state, then done */
        op = buf + used;
        ol = cap - used - 1;
        if (iconv(cd, NULL, NULL, &op, &ol) == (size_t)-1 && errno == E2BIG) goto grow;
        used = (size_t)(op - buf);
        break;
      }
      continue;
    }
    if (errno == E2BIG) {
    grow:;
      size_t ncap = cap * 2;
      char *nb = realloc(buf, ncap);
      if (!nb) {
        rc = TS_ERR_NOMEM;
        break;
      }
      buf = nb;
      cap = ncap;
      continue;
    }
    /* EILSEQ: invalid or unrepresentable sequence; EINVAL: truncated at the end */
    if (bad) *bad = (size_t)(ip - in);
    rc = TS_ERR_PARSE;
    break;
  }
  iconv_close(cd);
  if (rc != TS_OK) {
    free(buf);
    return rc;
  }
  buf[used] = 0;
  *out = buf;
  *out_len = used;
  return TS_OK;
}

static const char *const FILE_DIGIT[10] = {"", "１", "２", "３", "４", "５", "６", "７", "８", "９"};
static const char *const NUMERAL[10] = {"", "一", "二", "三", "四", "五", "六", "七", "八", "九"};

const char *kanji_file_digit(int f) { return f >= 1 && f <= 9 ? FILE_DIGIT[f] : "？"; }
const char *kanji_rank_numeral(int r) { return r >= 1 && r <= 9 ? NUMERAL[r] : "？"; }

int kanji_number_write(int n, char out[16]) {
  out[0] = 0;
  if (n < 1 || n > 99) return 0;
  int tens = n / 10, units = n % 10;
  if (tens > 1) strcat(out, NUMERAL[tens]);
  if (tens > 0) strcat(out, "十");
  if (units > 0) strcat(out, NUMERAL[units]);
  return (int)strlen(out);
}

/* 一..九 -> 1..9, 十 -> 10, other -> 0 */
static int numeral_value(uint32_t cp) {
  switch (cp) {
  case 0x4E00: return 1; /* 一 */
  case 0x4E8C: return 2; /* 二 */
  case 0x4E09: return 3; /* 三 */
  case 0x56DB: return 4; /* 四 */
  case 0x4E94: return 5; /* 五 */
  case 0x516D: return 6; /* 六 */
  case 0x4E03: return 7; /* 七 */
  case 0x516B: return 8; /* 八 */
  case 0x4E5D: return 9; /* 九 */
  case 0x5341: return 10; /* 十 */
  default: return 0;
  }
}

int kanji_number_parse(const uint32_t *cps, int n, int *value) {
  int k = 0;
  while (k < n && numeral_value(cps[k])) k++;
  if (k == 0) return 0;
  int a = numeral_value(cps[0]);
  int b = k > 1 ? numeral_value(cps[1]) : 0;
  int c = k > 2 ? numeral_value(cps[2]) : 0;
  if (k == 1) {
    *value = a;
    return 1;
  }
  if (k == 2 && a == 10 && b < 10) { /* 十一 */
    *value = 10 + b;
    return 2;
  }
  if (k == 2 && a >= 2 && a < 10 && b == 10) { /* 二十 */
    *value = a * 10;
    return 2;
  }
  if (k == 3 && a >= 2 && a < 10 && b == 10 && c < 10) { /* 二十一 */
    *value = a * 10 + c;
    return 3;
  }
  return -1;
}

static const char *const MOVE_NAME[PT_NB] = {"",   "歩",   "香",   "桂",   "銀", "角", "飛", "金",
                                             "玉", "と", "成香", "成桂", "成銀", "馬", "龍"};
static const char *const BOARD_CHAR[PT_NB] = {"", "歩", "香", "桂", "銀", "角", "飛", "金",
                                              "玉", "と", "杏", "圭", "全", "馬", "龍"};

const char *kanji_piece_move_name(PieceType t) { return t > PT_NONE && t < PT_NB ? MOVE_NAME[t] : ""; }
const char *kanji_piece_board_char(PieceType t) { return t > PT_NONE && t < PT_NB ? BOARD_CHAR[t] : ""; }

PieceType kanji_piece_from_char(uint32_t cp) {
  switch (cp) {
  case 0x6B69: return PAWN;       /* 歩 */
  case 0x9999: return LANCE;      /* 香 */
  case 0x6842: return KNIGHT;     /* 桂 */
  case 0x9280: return SILVER;     /* 銀 */
  case 0x89D2: return BISHOP;     /* 角 */
  case 0x98DB: return ROOK;       /* 飛 */
  case 0x91D1: return GOLD;       /* 金 */
  case 0x7389: return KING;       /* 玉 */
  case 0x738B: return KING;       /* 王 */
  case 0x3068: return PRO_PAWN;   /* と */
  case 0x674F: return PRO_LANCE;  /* 杏 */
  case 0x572D: return PRO_KNIGHT; /* 圭 */
  case 0x5168: return PRO_SILVER; /* 全 */
  case 0x99AC: return HORSE;      /* 馬 */
  case 0x9F8D: return DRAGON;     /* 龍 */
  case 0x7ADC: return DRAGON;     /* 竜 */
  default: return PT_NONE;
  }
}
