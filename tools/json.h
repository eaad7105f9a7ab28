/*
 * json.h - the JSON that the commands print and `tsume serve` answers: one
 * writer per object, so that `check --json`, `roles --json`, `compose --json`
 * and `query --json` and the server's API give the same bytes.
 * Each writes to f, without a newline at the end.
 */
#ifndef TSUME_JSON_H
#define TSUME_JSON_H

#include <stdint.h>
#include <stdio.h>

#include "check.h"
#include "compose.h"
#include "position.h"
#include "roles.h"
#include "tsdb.h"

/* A string as JSON ("...", with \" \\ \n \t and \u00XX for other controls). */
void json_str(FILE *f, const char *s);
/* A string that came from outside (file names, messages): control bytes and
 * invalid UTF-8 escaped as cli_escape does, then as JSON. */
void json_user_str(FILE *f, const char *s);
/* A move in USI ("7g7f", "G*5b"), null for MOVE_NONE; a list of them. */
void json_move(FILE *f, Move m);
void json_moves(FILE *f, const Move *m, int n);

/* `check --json`'s object for one problem: id (a name of the input), and
 * either an input error (error != NULL: verdict "error" with the message), a
 * failed check (rc != 0) or the report r of pos. */
void json_check(FILE *f, const char *id, const Position *pos, const char *error, int rc, const CheckReport *r);
/* One flaw of r, as in json_check's "flaws". */
void json_flaw(FILE *f, const CheckReport *r, const CheckFlaw *fl);

/* `roles --json`'s object: the roles of every piece along line[0..n) from pos. */
void json_roles(FILE *f, const Position *pos, const Move *line, int n, const RoleMap *m);

/* A composer's score: {"verdict","length","flaws","yozume","pieces"}. */
void json_compose_score(FILE *f, const ComposeScore *s);
/* What a compose run made of its input: "complete", "improved", "unchanged",
 * or "unknown" (no mating line was found within the budget). */
const char *compose_result_word(const ComposeResult *r);
/* The totals of a compose run over its workers. */
typedef struct {
  uint64_t seed, iterations, checks, restarts, wall_ms;
} ComposeTotals;
/* `compose --json`'s last line. */
void json_compose_result(FILE *f, const ComposeResult *r, const ComposeTotals *t);
/* `compose --from-mate --json`'s last line; works: the complete works kept. */
void json_from_mate(FILE *f, const FromMateResult *r, uint64_t works);

/* `query --json`'s object for one record (pos and line decoded from it). */
void json_query_record(FILE *f, const Position *pos, const TsRecord *r, const Move *line, int n);

#endif
