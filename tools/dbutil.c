#include "dbutil.h"

#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "encode.h"
#include "sfen.h"
#include "movegen.h"

const DbFlagName DB_FLAG_NAMES[] = {
    {"complete", TSDB_F_COMPLETE, "完全作"},     {"yozume", TSDB_F_YOZUME, "余詰"},
    {"last-move-alt", TSDB_F_LAST_MOVE_ALT, "最終手余詰"}, {"komaamari", TSDB_F_KOMAAMARI, "駒余り"},
    {"hendou", TSDB_F_HENDOU, "変同"},           {"henchou", TSDB_F_HENCHOU, "変長"},
    {"fuzume", TSDB_F_FUZUME, "不詰"},           {"minimal", TSDB_F_MINIMAL, "最小"},
    {"higentei", TSDB_F_HIGENTEI, "非限定"},     {"tejun-zengo", TSDB_F_TEJUN_ZENGO, "手順前後"},
    {"ukai", TSDB_F_UKAI, "迂回"},               {"futile-cut", TSDB_F_FUTILE_CUT, "無駄合で手順切れ"},
    {"unsettled", TSDB_F_UNSETTLED, "未確定"},
};
const size_t DB_FLAG_NAMES_N = sizeof DB_FLAG_NAMES / sizeof DB_FLAG_NAMES[0];
_Static_assert(sizeof DB_FLAG_NAMES / sizeof DB_FLAG_NAMES[0] <= DB_FLAG_NAMES_MAX, "DB_FLAG_NAMES_MAX too small");

void dbutil_flags_format(uint32_t f, char *out, size_t n) {
  size_t k = 0;
  out[0] = 0;
  for (size_t i = 0; i < DB_FLAG_NAMES_N; i++)
    if ((f & DB_FLAG_NAMES[i].bit) && k < n)
      k += (size_t)snprintf(out + k, n - k, "%s%s", k ? "," : "", DB_FLAG_NAMES[i].name);
  if (!k) snprintf(out, n, "-");
}

uint32_t dbutil_flag_parse(const char *name) {
  for (size_t i = 0; i < DB_FLAG_NAMES_N; i++)
    if (!strcmp(name, DB_FLAG_NAMES[i].name)) return DB_FLAG_NAMES[i].bit;
  /* the other names of the flaw table (design.md) that a record can carry */
  if (!strcmp(name, "hayazume")) return TSDB_F_HAYAZUME;
  if (!strcmp(name, "nomate")) return TSDB_F_FUZUME;
  return 0;
}

bool dbutil_flag_line_only(const char *name) {
  static const char *const LINE_ONLY[] = {"not-longest-defence", "illegal", "not-check", "not-mate"};
  for (size_t i = 0; i < sizeof LINE_ONLY / sizeof LINE_ONLY[0]; i++)
    if (!strcmp(name, LINE_ONLY[i])) return true;
  return false;
}

int dbutil_option_flag(const char *cmd, const char *name, uint32_t *need) {
  if (dbutil_flag_line_only(name)) {
    cli_message(cmd, "--flag %s: a flaw of a given line (tsume check), which no stored problem has: nothing matches",
                name);
    return 1;
  }
  uint32_t b = dbutil_flag_parse(name);
  if (!b) return cli_usage_error(cmd, "unknown flag '%s' (the names are in tsume query --help)", name);
  *need |= b;
  return 0;
}

int dbutil_need_exclusive(const char *cmd, uint32_t need) {
  if (!(need & TSDB_F_COMPLETE) || !(need & DB_FLAGS_NOT_COMPLETE)) return 0;
  char f[256];
  dbutil_flags_format(need & DB_FLAGS_NOT_COMPLETE, f, sizeof f);
  cli_message(cmd, "--complete and --flag %s exclude each other (a complete work has no such flaw): nothing matches", f);
  return 1;
}

void dbutil_key_hex(const TsRecord *rec, char *out, size_t n) {
  size_t k = 0;
  out[0] = 0;
  for (size_t i = 0; i < rec->key_len && k + 3 <= n; i++) k += (size_t)snprintf(out + k, n - k, "%02x", rec->key[i]);
}

bool dbutil_material_load(TsDb *db, Material *mat) {
  TsDbMeta meta;
  TsError err;
  return tsdb_meta_get(db, &meta, &err) == TS_OK && material_parse(meta.material, mat, &err) == TS_OK;
}

/* "record KEY: " before a message about the record, in err. */
static int record_error(TsError *err, const TsRecord *rec, const char *fmt, const char *detail) {
  char hex[2 * TSDB_KEY_MAX + 1];
  dbutil_key_hex(rec, hex, sizeof hex);
  char where[2 * TSDB_KEY_MAX + 16];
  snprintf(where, sizeof where, "record %s", hex);
  return ts_error_set(err, TS_ERR_DB, where, 0, 0, fmt, detail);
}

int dbutil_position_check(const Position *pos, const Material *mat, const char *where, TsError *err) {
  if (pos->side != BLACK) return ts_error_set(err, TS_ERR_ILLEGAL, where, 0, 0, "the defender (gote) is to move");
  if (pos->king[BLACK] != SQ_NONE) return ts_error_set(err, TS_ERR_ILLEGAL, where, 0, 0, "the attacker has a king");
  int rc = pos_validate_problem(pos, where, err);
  if (rc) return rc;
  if (!mat) return TS_OK;
  int used[PT_NB] = {0};
  Bitboard occ = pos_occupied(pos);
  while (occ) used[pt_demote(piece_type(pos->board[bb_pop(&occ)]))]++;
  static const char *NAME[HAND_PT_NB] = {"", "pawn", "lance", "knight", "silver", "bishop", "rook", "gold"};
  for (int t = PAWN; t <= GOLD; t++) {
    int n = used[t] + hand_count(pos->hand[BLACK], (PieceType)t);
    if (n < mat->min_count[t] || n > mat->count[t])
      return ts_error_set(err, TS_ERR_ILLEGAL, where, 0, 0,
                          "%d %s(s) on the board and in the attacker's hand, where the material %s has %d", n, NAME[t],
                          mat->text, mat->count[t]);
    int rest = PIECE_INVENTORY[t] - n;
    if (hand_count(pos->hand[WHITE], (PieceType)t) != rest)
      return ts_error_set(err, TS_ERR_ILLEGAL, where, 0, 0,
                          "the defender holds %d %s(s), where the rest of the set is %d", hand_count(pos->hand[WHITE], (PieceType)t),
                          NAME[t], rest);
  }
  return TS_OK;
}

int dbutil_record_decode(const TsRecord *rec, const Material *mat, Position *pos, Move *line, int *n, TsError *err) {
  TsError e;
  *n = 0;
  if (pos_decode(rec->key, rec->key_len, pos, &e)) {
    pos_clear(pos);
    return record_error(err, rec, "the key does not decode: %s", e.msg);
  }
  uint8_t canon[POS_CODE_MAX];
  size_t cl = pos_canonical(pos, canon, NULL);
  if (cl != rec->key_len || memcmp(canon, rec->key, cl))
    return record_error(err, rec, "%s", "the key is not the canonical form of its position (nor its mirror's)");
  char sf[SFEN_MAX];
  sfen_write(pos, sf, sizeof sf);
  if (dbutil_position_check(pos, mat, sf, &e)) {
    char msg[sizeof e.msg + SFEN_MAX + 8];
    snprintf(msg, sizeof msg, "%s: %s", sf, e.msg);
    return record_error(err, rec, "not a problem of this database: %s", msg);
  }
  Position p = *pos;
  for (int i = 0; i < rec->line_len; i++) {
    MoveList l;
    movegen_legal(&p, &l);
    Move m = MOVE_NONE;
    for (int j = 0; j < l.size; j++)
      if (move_compact(l.moves[j]) == rec->line[i]) m = l.moves[j];
    if (m == MOVE_NONE) {
      char msg[SFEN_MAX + 48];
      snprintf(msg, sizeof msg, "%s: stored move %d is not legal", sf, i + 1);
      return record_error(err, rec, "%s", msg);
    }
    line[(*n)++] = m;
    Undo u;
    pos_do_move(&p, m, &u);
  }
  return TS_OK;
}

int dbutil_open_ro(const char *path, TsDb **db, TsError *err) { return tsdb_open(path, TSDB_RDONLY, NULL, db, err); }

int dbutil_finished(TsDb *db, bool *finished, TsError *err) {
  size_t len = 0;
  int rc = tsdb_meta_get_raw(db, DB_META_GENERATION, NULL, 0, &len, err);
  if (rc && rc != TS_ERR_NOTFOUND) return rc;
  *finished = rc == TS_OK;
  return TS_OK;
}

int dbutil_open_reader(const char *cmd, const char *path, TsDb **db, bool *finished) {
  TsError err;
  int rc = dbutil_open_ro(path, db, &err);
  if (!rc) rc = dbutil_finished(*db, finished, &err);
  if (rc) {
    tsdb_close(*db);
    *db = NULL;
    return cli_fail(cmd, &err);
  }
  if (!*finished)
    cli_message(cmd,
                "warning: %s is not finished (its enumeration is in progress or was interrupted): "
                "it may not hold every problem",
                path);
  return 0;
}

uint32_t dbutil_report_flags(const CheckReport *r) {
  uint32_t f = r->verdict == CHECK_COMPLETE ? TSDB_F_COMPLETE : 0;
  for (int i = 0; i < r->nflaws; i++) {
    const CheckFlaw *fl = &r->flaws[i];
    switch (fl->kind) {
    case FLAW_YOZUME: f |= TSDB_F_YOZUME; break;
    case FLAW_HAYAZUME: f |= TSDB_F_YOZUME | TSDB_F_HAYAZUME; break;
    case FLAW_LAST_MOVE_ALT: f |= TSDB_F_LAST_MOVE_ALT; break;
    case FLAW_KOMAAMARI: f |= TSDB_F_KOMAAMARI; break;
    case FLAW_HENDOU: f |= TSDB_F_HENDOU; break;
    case FLAW_HENCHOU: f |= TSDB_F_HENCHOU; break;
    case FLAW_HIGENTEI: f |= TSDB_F_HIGENTEI; break;
    case FLAW_TEJUN_ZENGO: f |= TSDB_F_TEJUN_ZENGO; break;
    case FLAW_UKAI: f |= TSDB_F_UKAI; break;
    case FLAW_NOMATE: f |= TSDB_F_FUZUME; break;
    default: break;
    }
  }
  return f;
}
