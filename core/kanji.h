/*
 * kanji.h - Japanese text helpers shared by the KIF reader/writer and the
 * diagram printer: UTF-8 decoding, CP932 <-> UTF-8 conversion (glibc iconv),
 * kanji numerals and the piece names of KIF.
 *
 * Everything here is pure (no state, no printing). Strings are UTF-8 unless a
 * function says otherwise. Typical use:
 *
 *   uint32_t cp; int k = kanji_utf8_decode(s, len, &cp);  // k bytes, or -1
 *   char *u8; size_t u8len, bad;
 *   if (kanji_convert("UTF-8", "CP932", bytes, n, &u8, &u8len, &bad) == TS_OK) ... free(u8);
 */
#ifndef TSUME_KANJI_H
#define TSUME_KANJI_H

#include <stddef.h>
#include <stdint.h>

#include "types.h"

/*
 * Decodes one code point from s (n bytes available). Returns the number of
 * bytes used (1..4) or -1 for an invalid, overlong, surrogate or truncated
 * sequence.
 */
int kanji_utf8_decode(const char *s, size_t n, uint32_t *cp);
/* Encodes cp (<= 0x10FFFF, not a surrogate) into out; returns 1..4 (0 if invalid). */
int kanji_utf8_encode(uint32_t cp, char out[4]);
/* Returns 1 when s[0..n) is valid UTF-8; otherwise 0 and *bad = offset of the first bad byte. */
int kanji_utf8_check(const char *s, size_t n, size_t *bad);
/* Display columns of a UTF-8 string: ASCII (and half-width katakana) = 1, everything else = 2. */
int kanji_display_width(const char *s);

/*
 * Converts n bytes from encoding `from` to encoding `to` with iconv (e.g.
 * "CP932" -> "UTF-8"). On success *out is a malloc'd, NUL-terminated buffer
 * (caller frees) of *out_len bytes. Errors: TS_ERR_PARSE when a byte sequence
 * of the input is invalid or cannot be represented in `to` (*bad = its offset
 * in the input), TS_ERR_NOMEM, TS_ERR_USAGE when iconv does not know an encoding.
 */
int kanji_convert(const char *to, const char *from, const char *in, size_t n, char **out, size_t *out_len,
                  size_t *bad);

/* Full-width file digit "１".."９" (f = 1..9), kanji rank "一".."九" (r = 1..9). */
const char *kanji_file_digit(int f);
const char *kanji_rank_numeral(int r);
/*
 * Writes n (1..99) as a kanji numeral: 1..9 "一".."九", 10 "十", 11..19 "十一"..,
 * 20 "二十"... out must hold 16 bytes. Returns the byte length.
 */
int kanji_number_write(int n, char out[16]);
/*
 * Parses a kanji numeral from the code points cps[0..n): the longest prefix of
 * the form [二-九]?十[一-九]? or [一-九]. Returns the number of code points used
 * (0 when cps does not start with a numeral, -1 when it starts with numeral
 * characters that do not form a numeral, e.g. 十十) and the value in *value.
 */
int kanji_number_parse(const uint32_t *cps, int n, int *value);

/* KIF move name of a kind: 歩 香 桂 銀 角 飛 金 玉 と 成香 成桂 成銀 馬 龍 ("" for PT_NONE). */
const char *kanji_piece_move_name(PieceType t);
/* One-character diagram name: as above but 杏 圭 全 for the promoted lance/knight/silver. */
const char *kanji_piece_board_char(PieceType t);
/* Kind named by one code point as it may appear on a diagram (玉 王 飛 龍 竜 ... 杏); PT_NONE if none. */
PieceType kanji_piece_from_char(uint32_t cp);

#endif
