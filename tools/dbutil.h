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
/* Bit of a flag name ("complete", "yozume", ...); 0 when unknown. */
uint32_t dbutil_flag_parse(const char *name);
/* The record flags (TSDB_F_*) of a flaw checker's report: complete, and one flag
 * per kind found (hayazume with yozume; a one-move problem's longer second mate
 * makes it "not complete" alone). What verify compares and compose --db stores. */
uint32_t dbutil_report_flags(const CheckReport *r);
/* Position of a record and its main line as full moves (each checked legal). */
int dbutil_record_decode(const TsRecord *rec, Position *pos, Move *line, int *n, TsError *err);
/*
 * Meta entry written by `tsume enumerate`: the figures of seed 002's tests made
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
