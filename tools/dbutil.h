/*
 * dbutil.h - what the database commands (query, export, verify) share: flag
 * names, and turning a stored record back into a position and a main line.
 */
#ifndef TSUME_DBUTIL_H
#define TSUME_DBUTIL_H

#include <stdbool.h>
#include <stddef.h>

#include "position.h"
#include "check.h"
#include "material.h"
#include "tsdb.h"

typedef struct {
  const char *name;
  uint32_t bit;
  const char *kanji;
} DbFlagName;

extern const DbFlagName DB_FLAG_NAMES[];
extern const size_t DB_FLAG_NAMES_N;
/* DB_FLAG_NAMES_N never exceeds this (checked where the table is defined). */
#define DB_FLAG_NAMES_MAX 16

/* "complete,minimal" style list of the flags set in f. */
void dbutil_flags_format(uint32_t f, char *out, size_t n);
/* Bit of a flag name ("complete", "yozume", ..., and the flaw names hayazume and
 * nomate, stored as yozume+hayazume and fuzume); 0 when unknown. */
uint32_t dbutil_flag_parse(const char *name);
/* Whether name is a flaw kind of a given line only (illegal, not-check, not-mate,
 * not-longest-defence): a name `tsume check` reports that no stored problem carries. */
bool dbutil_flag_line_only(const char *name);
/* --flag NAME of a command selecting records (query, export): adds its bit to
 * *need. 0 ok; 1 a flaw of a given line only, which no record has (said:
 * nothing matches); 2 an unknown name (a usage error, said). */
int dbutil_option_flag(const char *cmd, const char *name, uint32_t *need);
/* 1 (said: nothing matches) when need asks for complete works and a flaw that
 * excludes it; 0 otherwise. */
int dbutil_need_exclusive(const char *cmd, uint32_t need);
/* The flags a complete work never has (fatal flaws, and the records not settled). */
#define DB_FLAGS_NOT_COMPLETE                                                                                  \
  (TSDB_F_YOZUME | TSDB_F_HAYAZUME | TSDB_F_KOMAAMARI | TSDB_F_HENCHOU | TSDB_F_FUZUME | TSDB_F_FUTILE_CUT |   \
   TSDB_F_UNSETTLED)
/* The record flags (TSDB_F_*) of a flaw checker's report: complete, and one flag
 * per kind found (hayazume with yozume; a one-move problem's longer second mate
 * makes it "not complete" alone). What verify compares and compose --db stores. */
uint32_t dbutil_report_flags(const CheckReport *r);
/*
 * Position of a record and its main line as full moves. Checked: the key
 * decodes and is the canonical form of its position, the position is a problem
 * (attacker to move, no attacker king, pos_validate_problem) of the material
 * mat (NULL: any; dbutil_position_check), every stored move is legal. On
 * failure TS_ERR_DB naming the record by its key in hex ("record 00a1...")
 * and what is wrong; *pos is then what decoded (cleared when nothing did).
 */
int dbutil_record_decode(const TsRecord *rec, const Material *mat, Position *pos, Move *line, int *n, TsError *err);
/*
 * Whether pos is a problem of material mat as `tsume enumerate` stores them:
 * attacker (sente) to move, the defender's king alone on the board, legal
 * (pos_validate_problem), each kind of mat on the board (either side) or in
 * the attacker's hand within mat's count, every other piece in the defender's
 * hand. mat NULL skips the material. TS_OK or TS_ERR_ILLEGAL saying what differs.
 */
int dbutil_position_check(const Position *pos, const Material *mat, const char *where, TsError *err);
/* The material stored in db's meta into *mat; false when there is none that parses. */
bool dbutil_material_load(TsDb *db, Material *mat);
/* A record's key in hex (2 * key_len + 1 bytes fit). */
void dbutil_key_hex(const TsRecord *rec, char *out, size_t n);
/*
 * Meta entry written by `tsume enumerate`: the figures of the enumeration paper's tests made
 * during generation, as UTF-8 text. Lines "name<TAB>value", then a header line
 * "layer<TAB>side<TAB>positions<TAB>yozume<TAB>fuzume" and one line per layer:
 * positions of that value in the retrograde table (all sub-materials), 余詰め判定
 * (attacker layers: positions reached again by un-moving, another check mates)
 * and 不詰め判定 (defender layers: candidates with a reply not known to mate);
 * "-" where a test does not apply to the side.
 */
#define DB_META_GENERATION "enumerate.generation"

/* Opens a database read-only, with a message naming the path on failure. */
int dbutil_open_ro(const char *path, TsDb **db, TsError *err);
/*
 * Whether the enumeration that writes db has finished: `tsume enumerate` stores
 * DB_META_GENERATION after the last record, so a database without it is being
 * written, was interrupted (resume it with --resume), or was made by an older
 * version. *finished is set on TS_OK.
 */
int dbutil_finished(TsDb *db, bool *finished, TsError *err);
/*
 * What every reader of a database does: dbutil_open_ro, then dbutil_finished;
 * a database that is not finished is named in a warning on stderr ("tsume <cmd>:
 * warning: PATH is not finished ..."). On failure the message is printed too
 * and the exit status returned (*db NULL); 0 otherwise.
 */
int dbutil_open_reader(const char *cmd, const char *path, TsDb **db, bool *finished);

#endif
