#include "material.h"

#include <stdio.h>
#include <string.h>

static PieceType kind_of(char c) {
  switch (c) {
  case 'P': return PAWN;
  case 'L': return LANCE;
  case 'N': return KNIGHT;
  case 'S': return SILVER;
  case 'G': return GOLD;
  case 'B': return BISHOP;
  case 'R': return ROOK;
  default: return PT_NONE;
  }
}

/* Reads the digits at spec[*i]: their value, or -1 when it exceeds any piece
 * inventory (the text is then quoted as given, never an overflowed int). */
static int count_read(const char *spec, size_t *i) {
  int n = 0;
  for (; spec[*i] >= '0' && spec[*i] <= '9'; (*i)++)
    if (n >= 0) n = n * 10 + (spec[*i] - '0') > 99 ? -1 : n * 10 + (spec[*i] - '0');
  return n;
}

int material_parse(const char *spec, Material *m, TsError *err) {
  memset(m, 0, sizeof *m);
  const char *where = "--pieces";
  size_t i = 0;
  bool range_used = false;
  if (!spec || !spec[0]) return ts_error_set(err, TS_ERR_PARSE, where, 0, 1, "empty material spec");
  while (spec[i]) {
    PieceType t = kind_of(spec[i]);
    if (t == PT_NONE)
      return ts_error_set(err, TS_ERR_PARSE, where, 0, (int)i + 1,
                          "'%c' is not a piece letter (P L N S G B R) in '%s'", spec[i], spec);
    if (m->count[t]) return ts_error_set(err, TS_ERR_PARSE, where, 0, (int)i + 1, "kind '%c' given twice", spec[i]);
    i++;
    bool ranged = false;
    size_t from = i;
    if (spec[i] < '0' || spec[i] > '9')
      return ts_error_set(err, TS_ERR_PARSE, where, 0, (int)i + 1, "count expected after '%c'", spec[i - 1]);
    int n = count_read(spec, &i), lo = n;
    if (spec[i] == '-') {
      if (range_used) return ts_error_set(err, TS_ERR_PARSE, where, 0, (int)i + 1, "only one kind may have a range");
      range_used = ranged = true;
      i++;
      if (spec[i] < '0' || spec[i] > '9')
        return ts_error_set(err, TS_ERR_PARSE, where, 0, (int)i + 1, "range end expected");
      n = count_read(spec, &i);
      if (lo >= 0 && n >= 0 && (lo < 1 || lo > n))
        return ts_error_set(err, TS_ERR_PARSE, where, 0, (int)i, "bad range %.*s", (int)(i - from), spec + from);
    }
    if (lo < 1 || lo > PIECE_INVENTORY[t] || n < 1 || n > PIECE_INVENTORY[t])
      return ts_error_set(err, TS_ERR_PARSE, where, 0, (int)from + 1, "count %.*s of '%c' outside 1..%d",
                          (int)(i - from), spec + from, spec[from - 1], PIECE_INVENTORY[t]);
    m->count[t] = n;
    m->min_count[t] = ranged ? lo : n;
  }
  int ranging = m->count[LANCE] + m->count[BISHOP] + m->count[ROOK];
  if (ranging && material_total(m) > MATERIAL_MAX_RANGING)
    return ts_error_set(err, TS_ERR_USAGE, where, 0, 0, "with ranging pieces (R, B, L) at most %d pieces: '%s'",
                        MATERIAL_MAX_RANGING, spec);
  if (material_total(m) > MATERIAL_MAX_PIECES)
    return ts_error_set(err, TS_ERR_USAGE, where, 0, 0, "at most %d pieces: '%s'", MATERIAL_MAX_PIECES, spec);
  snprintf(m->text, sizeof m->text, "%s", spec);
  return TS_OK;
}

int material_total(const Material *m) {
  int n = 0;
  for (int t = PAWN; t <= GOLD; t++) n += m->count[t];
  return n;
}

void material_format(const int count[HAND_PT_NB], char *out, size_t n) {
  static const PieceType ORDER[7] = {ROOK, BISHOP, GOLD, SILVER, KNIGHT, LANCE, PAWN};
  static const char LETTER[HAND_PT_NB] = {0, 'P', 'L', 'N', 'S', 'B', 'R', 'G'};
  size_t k = 0;
  out[0] = 0;
  for (int i = 0; i < 7; i++)
    if (count[ORDER[i]] && k < n) k += (size_t)snprintf(out + k, n - k, "%c%d", LETTER[ORDER[i]], count[ORDER[i]]);
}
