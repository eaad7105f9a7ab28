/*
 * api.c - the JSON API of `tsume serve` (docs/serve.md): each handler reads
 * its request (a JSON body, or the query string), refuses bad input with a 4xx
 * and the message the command line gives, and answers with the objects that
 * the commands print (tools/json.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <jansson.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cli.h"
#include "compose.h"
#include "dbutil.h"
#include "diagram.h"
#include "json.h"
#include "kif.h"
#include "movegen.h"
#include "roles.h"
#include "serve_internal.h"
#include "sfen.h"
#include "solver.h"
#include "source.h"
#include "svg.h"
#include "tsdb.h"

#define JSON_TYPE "application/json; charset=utf-8"
#define QUERY_LIMIT_MAX 10000u /* works in one answer of /api/query and /api/export.kif */
#define QUERY_BOOK_MAX 2000u   /* works in one book of /api/export.tar */

/* ------------------------------------------------------------------ requests */

/* What a request names: a problem (SFEN, with a line) and numbers. */
typedef struct {
  char sfen_text[4096]; /* as given (the id of check's object) */
  Position pos;
  SourceLine line; /* the line given (line.n == 0: none) */
  uint64_t time_ms;
  uint64_t nodes; /* a check's node budget, 0: none (its answers reproducible) */
  bool from_mate;
  int max_moves;
  uint64_t seed;
  int max_pieces;
} ApiRequest;

typedef struct {
  unsigned status;
  char msg[1200];
} ApiError;

static int api_fail(ApiError *e, unsigned status, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int api_fail(ApiError *e, unsigned status, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(e->msg, sizeof e->msg, fmt, ap);
  va_end(ap);
  e->status = status;
  return -1;
}

static int api_ts_fail(ApiError *e, const TsError *err) {
  char buf[1024];
  ts_error_format(err, buf, sizeof buf);
  return api_fail(e, err->code == TS_ERR_NOMEM ? 503 : 400, "%s: %s", ts_strerror(err->code), buf);
}

/* A whole number field of the body, from min to max; def when absent. */
static int field_u64(json_t *o, const char *name, uint64_t min, uint64_t max, uint64_t def, uint64_t *out,
                     ApiError *e) {
  json_t *v = json_object_get(o, name);
  if (!v || json_is_null(v)) {
    *out = def;
    return 0;
  }
  if (!json_is_integer(v) || json_integer_value(v) < 0 || (uint64_t)json_integer_value(v) < min ||
      (uint64_t)json_integer_value(v) > max)
    return api_fail(e, 400, "%s needs a whole number from %llu to %llu", name, (unsigned long long)min,
                    (unsigned long long)max);
  *out = (uint64_t)json_integer_value(v);
  return 0;
}

/* The line field: a string of USI moves, or an array of them. */
static int field_line(json_t *o, char *out, size_t n, bool *given, ApiError *e) {
  json_t *v = json_object_get(o, "line");
  *given = false;
  out[0] = 0;
  if (!v || json_is_null(v)) return 0;
  if (json_is_string(v)) {
    if (json_string_length(v) >= n) return api_fail(e, 400, "line: longer than %zu bytes", n - 1);
    snprintf(out, n, "%s", json_string_value(v));
  } else if (json_is_array(v)) {
    size_t k = 0, i;
    json_t *m;
    json_array_foreach(v, i, m) {
      if (!json_is_string(m)) return api_fail(e, 400, "line: move %zu is not a string", i + 1);
      size_t l = json_string_length(m);
      if (k + l + 2 >= n) return api_fail(e, 400, "line: longer than %zu bytes", n - 1);
      if (k) out[k++] = ' ';
      memcpy(out + k, json_string_value(m), l);
      k += l;
      out[k] = 0;
    }
  } else {
    return api_fail(e, 400, "line: a string of USI moves or an array of them");
  }
  *given = out[strspn(out, " \t")] != 0;
  return 0;
}

/*
 * The body as a problem: {"sfen": "...", "line": "...", "time_ms": N, "nodes": N (a check), ...}.
 * what: "check", "roles", "compose", "svg" (a diagram), "mate" (a mate picture).
 */
static int read_request(Server *s, const char *body, size_t len, const char *what, ApiRequest *q, ApiError *e) {
  json_error_t je;
  json_t *o = json_loadb(body, len, JSON_REJECT_DUPLICATES, &je);
  if (!o) return api_fail(e, 400, "body: not JSON (line %d, column %d: %s)", je.line, je.column, je.text);
  int rc = 0;
  if (!json_is_object(o)) {
    rc = api_fail(e, 400, "body: a JSON object is needed, {\"sfen\": ...}");
    goto out;
  }
  json_t *sf = json_object_get(o, "sfen");
  if (!json_is_string(sf) || json_string_length(sf) == 0) {
    rc = api_fail(e, 400, "sfen: missing (a SFEN string is needed)");
    goto out;
  }
  if (json_string_length(sf) >= sizeof q->sfen_text) {
    rc = api_fail(e, 400, "sfen: longer than %zu bytes", sizeof q->sfen_text - 1);
    goto out;
  }
  snprintf(q->sfen_text, sizeof q->sfen_text, "%s", json_string_value(sf));
  json_t *fm = json_object_get(o, "from_mate");
  q->from_mate = fm && json_is_true(fm);
  if (fm && !json_is_boolean(fm) && !json_is_null(fm)) {
    rc = api_fail(e, 400, "from_mate: true or false");
    goto out;
  }
  if (q->from_mate) what = "mate";
  uint64_t def = !strcmp(what, "check") ? SERVE_CHECK_MS_DEFAULT : SERVE_COMPOSE_MS_DEFAULT, v;
  if (field_u64(o, "time_ms", 1, s->opt.max_time_ms, def, &q->time_ms, e) ||
      field_u64(o, "nodes", 0, SERVE_NODES_MAX, 0, &q->nodes, e) ||
      field_u64(o, "seed", 0, UINT32_MAX, 1, &q->seed, e) || field_u64(o, "max_moves", 1, 255, 7, &v, e)) {
    rc = -1;
    goto out;
  }
  q->max_moves = (int)v;
  if (field_u64(o, "max_pieces", 0, 40, 0, &v, e)) {
    rc = -1;
    goto out;
  }
  q->max_pieces = (int)v;
  static __thread char line_text[SOURCE_LINE_MAX * 8];
  bool given;
  if (field_line(o, line_text, sizeof line_text, &given, e)) {
    rc = -1;
    goto out;
  }
  TsError err;
  if (strpbrk(q->sfen_text, "\r\n")) {
    rc = api_fail(e, 400, "%s: <sfen>: line break in a SFEN argument", ts_strerror(TS_ERR_PARSE));
    goto out;
  }
  /* the SFEN, with the moves that may follow it ("... 1 moves 7g7f") */
  if (sfen_text_parse(q->sfen_text, strlen(q->sfen_text), "<sfen>", &q->pos, q->line.moves, SOURCE_LINE_MAX, &q->line.n,
                      &err)) {
    err.line = 0; /* one string, as a SFEN argument: its column alone places the fault */
    rc = api_ts_fail(e, &err);
    goto out;
  }
  if (!strcmp(what, "mate")) {
    if (pos_validate(&q->pos, "<sfen>", &err)) {
      rc = api_ts_fail(e, &err);
    } else if (!pos_is_mate(&q->pos)) {
      rc = api_fail(e, 400, "sfen: not a mate picture (the side to move must be mated)");
    } else {
      Position m = q->pos;
      if (hand_total(m.hand[color_flip(m.side)]) != 0)
        rc = api_fail(e, 400, "sfen: a mate picture has no pieces in the attacker's hand");
    }
    goto out;
  }
  if (strcmp(what, "svg") && pos_validate_problem(&q->pos, "<sfen>", &err)) {
    rc = api_ts_fail(e, &err);
    goto out;
  }
  if (!strcmp(what, "svg") && pos_validate(&q->pos, "<sfen>", &err)) {
    rc = api_ts_fail(e, &err);
    goto out;
  }
  if (given) {
    if (usi_line_parse(&q->pos, line_text, q->line.moves, SOURCE_LINE_MAX, &q->line.n, &err)) {
      snprintf(err.where, sizeof err.where, "line");
      rc = api_ts_fail(e, &err);
      goto out;
    }
  }
out:
  json_decref(o);
  return rc;
}

static ApiRequest *request_new(void) { return calloc(1, sizeof(ApiRequest)); }

/* Text made with open_memstream, emitted as one line of the job's output. */
typedef struct {
  char *buf;
  size_t len;
  FILE *f;
} Mem;

static bool mem_open(Mem *m) {
  m->buf = NULL, m->len = 0;
  m->f = open_memstream(&m->buf, &m->len);
  return m->f != NULL;
}

static void mem_emit(Mem *m, Job *j) {
  putc('\n', m->f);
  fclose(m->f);
  m->f = NULL;
  if (m->buf) job_emit(j, m->buf, m->len);
  free(m->buf);
  m->buf = NULL;
}

static void emit_error(Job *j, const char *msg) {
  Mem m;
  if (!mem_open(&m)) return;
  fputs("{\"error\":", m.f);
  json_user_str(m.f, msg);
  putc('}', m.f);
  mem_emit(&m, j);
}

/* ------------------------------------------------------------------ check */

/* A flaw as soon as the checker proves it: {"flaw": <as in the report>, "line": <the line checked>}. */
static void on_check_flaw(void *ctx, const CheckReport *r, const CheckFlaw *f) {
  Mem m;
  if (!mem_open(&m)) return;
  fputs("{\"flaw\":", m.f);
  json_flaw(m.f, r, f);
  fputs(",\"line\":", m.f);
  json_moves(m.f, r->line, r->line_length);
  putc('}', m.f);
  mem_emit(&m, ctx);
}

static void run_check(Job *j) {
  ApiRequest *q = j->arg;
  CheckerSlot *slot = NULL;
  Checker *k = checker_take(j, &slot);
  if (!k) {
    emit_error(j, "out of memory: cannot allocate a checker's table");
    return;
  }
  check_set_time(k, q->time_ms); /* the budget from here: the table was set up before */
  check_set_nodes(k, q->nodes);
  CheckReport rep;
  check_report_init(&rep);
  check_set_on_flaw(k, on_check_flaw, j);
  int rc = check_problem(k, &q->pos, q->line.n ? q->line.moves : NULL, q->line.n, &rep);
  check_set_on_flaw(k, NULL, NULL);
  Mem m;
  if (mem_open(&m)) {
    json_check(m.f, q->sfen_text, &q->pos, NULL, rc, &rep);
    mem_emit(&m, j);
  }
  check_report_free(&rep);
  checker_put(j, slot);
}

/* ------------------------------------------------------------------ roles */

static void run_roles(Job *j) {
  ApiRequest *q = j->arg;
  if (!q->line.n) { /* the solver's main line, within the request's time */
    SolverOptions so;
    solver_options_default(&so);
    so.time_ms = q->time_ms;
    so.stop = &j->stop;
    so.hash_mb = j->srv->opt.hash_mb;
    Solver *sv = solver_create(&so);
    if (!sv) {
      emit_error(j, "out of memory: cannot allocate the solver's table");
      return;
    }
    SolveResult r;
    int rc = solver_solve(sv, &q->pos, &r);
    if (rc == TS_OK && r.status == SOLVE_MATE && r.pv_len > 0) {
      q->line.n = r.pv_len < SOURCE_LINE_MAX ? r.pv_len : SOURCE_LINE_MAX;
      memcpy(q->line.moves, r.pv, (size_t)q->line.n * sizeof q->line.moves[0]);
    }
    solver_free(sv);
    if (q->line.n == 0) {
      emit_error(j, rc == TS_OK && r.status == SOLVE_NOMATE ? "the diagram has no mate: there is no line to read the roles from"
                                                             : "no mating line was found within the time");
      return;
    }
  } else {
    int bad = 0;
    if (!solver_line_verify(&q->pos, q->line.moves, q->line.n, true, &bad)) {
      char msg[160];
      if (bad < q->line.n)
        snprintf(msg, sizeof msg, "line: move %d gives no check (not a mating line)", bad + 1);
      else
        snprintf(msg, sizeof msg, "line: the line does not end in mate (not a mating line)");
      emit_error(j, msg);
      return;
    }
  }
  RoleMap map;
  if (roles_compute(&q->pos, q->line.moves, q->line.n, &map)) {
    emit_error(j, "out of memory");
    return;
  }
  Mem m;
  if (mem_open(&m)) {
    json_roles(m.f, &q->pos, q->line.moves, q->line.n, &map);
    mem_emit(&m, j);
  }
  roles_free(&map);
}

/* ------------------------------------------------------------------ compose */

typedef struct {
  Job *job;
  ComposeScore best;
  bool have;
  Checker *checker;
} ComposeCtx;

static void on_step(void *vctx, const ComposeStep *st) {
  ComposeCtx *x = vctx;
  if (!st->score.valid || (x->have && !compose_kept_better(&st->score, &x->best))) return;
  x->best = st->score;
  x->have = true;
  Mem m;
  if (!mem_open(&m)) return;
  char sfen[SFEN_MAX];
  sfen_write(st->pos, sfen, sizeof sfen);
  fprintf(m.f, "{\"best\":{\"step\":\"%s\",\"iteration\":%llu,\"complete\":%s,\"score\":", compose_step_name(st->kind),
          (unsigned long long)st->iteration, st->score.verdict == CHECK_COMPLETE ? "true" : "false");
  json_compose_score(m.f, &st->score);
  fputs(",\"check\":", m.f);
  json_check(m.f, sfen, st->pos, NULL, 0, st->report);
  fputs("}}", m.f);
  mem_emit(&m, x->job);
}

static void on_progress(void *vctx, const ComposeProgress *p) {
  ComposeCtx *x = vctx;
  Mem m;
  if (!mem_open(&m)) return;
  fprintf(m.f, "{\"progress\":{\"elapsed_ms\":%llu,\"iterations\":%llu,\"checks\":%llu,\"accepted\":%llu,\"restarts\":%llu,"
               "\"current\":",
          (unsigned long long)p->elapsed_ms, (unsigned long long)p->iterations, (unsigned long long)p->checks,
          (unsigned long long)p->accepted, (unsigned long long)p->restarts);
  json_compose_score(m.f, &p->current);
  fputs(",\"best_complete\":", m.f);
  if (p->best_complete.valid)
    json_compose_score(m.f, &p->best_complete);
  else
    fputs("null", m.f);
  fputs("}}", m.f);
  mem_emit(&m, x->job);
}

static int on_work(void *vctx, const Position *pos, const Move *line, int n, const CheckReport *rep) {
  ComposeCtx *x = vctx;
  (void)line, (void)n;
  Mem m;
  if (!mem_open(&m)) return 0;
  char sfen[SFEN_MAX];
  sfen_write(pos, sfen, sizeof sfen);
  fputs("{\"work\":", m.f);
  json_check(m.f, sfen, pos, NULL, 0, rep);
  putc('}', m.f);
  mem_emit(&m, x->job);
  return 0;
}

static void fm_progress(void *vctx, int plies, uint64_t candidates, uint64_t works, uint64_t elapsed_ms) {
  ComposeCtx *x = vctx;
  char buf[200];
  int k = snprintf(buf, sizeof buf, "{\"progress\":{\"elapsed_ms\":%llu,\"plies\":%d,\"candidates\":%llu,\"works\":%llu}}\n",
                   (unsigned long long)elapsed_ms, plies, (unsigned long long)candidates, (unsigned long long)works);
  job_emit(x->job, buf, (size_t)k);
}

static void run_compose(Job *j) {
  ApiRequest *q = j->arg;
  CheckOptions o; /* the composer's own stop flag and deadline end its checks */
  check_options_default(&o);
  o.hash_mb = j->srv->opt.hash_mb;
  Checker *k = check_create(&o);
  if (!k) {
    emit_error(j, "out of memory: cannot allocate a checker's table");
    return;
  }
  ComposeCtx x = {.job = j};
  Mem m;
  if (q->from_mate) {
    FromMateOptions fo;
    compose_from_mate_options_default(&fo);
    Position mate = q->pos;
    pos_give_remaining(&mate, mate.side);
    fo.max_moves = q->max_moves | 1;
    int pieces = bb_popcount(pos_occupied(&mate)) + hand_total(mate.hand[color_flip(mate.side)]);
    fo.max_pieces = q->max_pieces ? q->max_pieces : pieces + 2;
    fo.time_ms = q->time_ms;
    fo.stop = &j->stop;
    fo.on_progress = fm_progress;
    fo.progress_ctx = &x;
    fo.on_work = on_work;
    fo.work_ctx = &x;
    FromMateResult res;
    TsError err;
    int rc = compose_from_mate(k, &mate, &fo, &res, &err);
    if (rc == TS_ERR_ILLEGAL) {
      char buf[1024];
      ts_error_format(&err, buf, sizeof buf);
      emit_error(j, buf);
    } else if (rc) {
      emit_error(j, "out of memory");
    } else if (mem_open(&m)) {
      json_from_mate(m.f, &res, res.works);
      mem_emit(&m, j);
    }
    check_free(k);
    return;
  }
  ComposeOptions co;
  compose_options_default(&co);
  co.time_ms = q->time_ms;
  co.seed = q->seed;
  co.stop = &j->stop;
  co.max_pieces = q->max_pieces;
  co.keep_line = q->line.n ? q->line.moves : NULL;
  co.keep_n = q->line.n;
  co.on_step = on_step;
  co.step_ctx = &x;
  co.on_progress = on_progress;
  co.progress_ctx = &x;
  co.progress_ms = 500;
  ComposeResult r;
  int rc = compose_run(k, &q->pos, &co, &r);
  if (rc == TS_ERR_ILLEGAL) {
    emit_error(j, r.report.message[0] ? r.report.message : "the line is not a mating line from the diagram");
    compose_result_free(&r);
  } else if (rc) {
    emit_error(j, "out of memory");
  } else {
    ComposeTotals t = {co.seed, r.iterations, r.checks, r.restarts, serve_now_ms() - j->t0_ms};
    if (mem_open(&m)) {
      json_compose_result(m.f, &r, &t);
      mem_emit(&m, j);
    }
    compose_result_free(&r);
  }
  check_free(k);
}

/* ------------------------------------------------------------------ pictures, records */

static enum MHD_Result reply_svg(struct MHD_Connection *c, const ApiRequest *q) {
  SvgOptions so;
  svg_options_default(&so);
  char *svg = NULL;
  size_t n = 0;
  if (svg_diagram_alloc(&q->pos, &so, &svg, &n)) return serve_error(c, 503, "out of memory");
  return serve_reply_owned(c, 200, "image/svg+xml; charset=utf-8", svg, n);
}

static enum MHD_Result reply_bod(struct MHD_Connection *c, const ApiRequest *q) {
  char buf[8192];
  size_t n = diagram_write(&q->pos, buf, sizeof buf);
  if (n >= sizeof buf) return serve_error(c, 500, "the diagram does not fit its buffer");
  return serve_reply(c, 200, "text/plain; charset=utf-8", buf, n);
}

/* Does line[0..n) from pos end in mate? */
static bool ends_in_mate(const Position *pos, const Move *line, int n) {
  Position p = *pos;
  Undo u;
  for (int i = 0; i < n; i++) pos_do_move(&p, line[i], &u);
  return pos_is_mate(&p);
}

/* The KIF bytes (UTF-8) of pos with line. */
static int kif_bytes(const Position *pos, const Move *line, int n, char **bytes, size_t *len, TsError *err) {
  KifRecord rec;
  int rc = kif_record_init(&rec, pos);
  if (rc) return ts_error_set(err, rc, "kif", 0, 0, "out of memory");
  char sfen[SFEN_MAX];
  sfen_write(pos, sfen, sizeof sfen);
  kif_header_add(&rec, "SFEN", sfen);
  rc = n > 0 ? kif_line_add(&rec, rec.root, line, n, ends_in_mate(pos, line, n) ? KIF_SPECIAL_MATE : KIF_SPECIAL_NONE,
                            NULL)
             : TS_OK;
  if (!rc) rc = kif_write(&rec, KIF_ENC_UTF8, "tsume " TSUME_VERSION, bytes, len, err);
  else ts_error_set(err, rc, "kif", 0, 0, "cannot build the KIF record");
  kif_record_free(&rec);
  return rc;
}

static enum MHD_Result reply_kif(struct MHD_Connection *c, const ApiRequest *q) {
  char *bytes = NULL;
  size_t len = 0;
  TsError err;
  if (kif_bytes(&q->pos, q->line.moves, q->line.n, &bytes, &len, &err)) return serve_ts_error(c, &err);
  return serve_reply_owned(c, 200, "text/plain; charset=utf-8", bytes, len);
}

/* POST /api/parse: a problem in any format the commands read -> its SFEN and line. */
static enum MHD_Result reply_parse(struct MHD_Connection *c, const char *body, size_t len) {
  Position pos;
  SourceLine *line = malloc(sizeof *line);
  if (!line) return serve_error(c, 503, "out of memory");
  TsError err;
  SourceRecord info = {0, 0, ""};
  /* read as a file whose name says nothing is read: by its content; of several records, the first */
  int rc = source_load_text("text", body, len, 0, &pos, line, &info, &err);
  const char *format = info.format ? info.format : "";
  if (!rc) rc = pos_validate_problem(&pos, "text", &err);
  if (rc) {
    free(line);
    return serve_ts_error(c, &err);
  }
  char *out = NULL;
  size_t n = 0;
  FILE *f = open_memstream(&out, &n);
  if (!f) {
    free(line);
    return serve_error(c, 503, "out of memory");
  }
  char sfen[SFEN_MAX];
  sfen_write(&pos, sfen, sizeof sfen);
  fprintf(f, "{\"sfen\":\"%s\",\"line\":", sfen);
  json_moves(f, line->moves, line->n);
  fputs(",\"format\":", f);
  json_str(f, format);
  fputs("}\n", f);
  fclose(f);
  free(line);
  return serve_reply_owned(c, 200, JSON_TYPE, out, n);
}

/* ------------------------------------------------------------------ database */

typedef struct {
  uint32_t need;
  uint64_t limit, offset, seen, shown;
  const Material *mat; /* the database's (NULL: unknown) */
  FILE *f;
  int rc;
  TsError err;
} QueryCtx;

static int query_record(const TsRecord *r, void *vctx) {
  QueryCtx *q = vctx;
  if ((r->flags & q->need) != q->need) return 0;
  if (q->seen++ < q->offset) return 0;
  if (q->shown >= q->limit) return 1;
  q->shown++;
  Position pos;
  static __thread Move line[TSDB_LINE_MAX];
  int n;
  if (dbutil_record_decode(r, q->mat, &pos, line, &n, &q->err)) {
    q->rc = q->err.code;
    return 1;
  }
  json_query_record(q->f, &pos, r, line, n);
  putc('\n', q->f);
  return 0;
}

/* The flag=F[,F] of /api/query and the exports: the names, split in buf, and their bits. */
typedef struct {
  char buf[256];
  char *name[8];
  int n;
  uint32_t need;
} FlagList;

/* Reads flag=F[,F] into fl; false with what is wrong in why (for a 400). line_only: the names of a
 * given line's flaws pass too. */
static bool flag_list(struct MHD_Connection *c, FlagList *fl, bool line_only, char *why, size_t n) {
  memset(fl, 0, sizeof *fl);
  const char *v = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "flag");
  if (!v || !*v) return true;
  if (strlen(v) >= sizeof fl->buf) return snprintf(why, n, "too long"), false;
  snprintf(fl->buf, sizeof fl->buf, "%s", v);
  for (char *save = NULL, *t = strtok_r(fl->buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
    uint32_t b = dbutil_flag_parse(t);
    if (!b && !(line_only && dbutil_flag_line_only(t))) return snprintf(why, n, "unknown flag '%.200s'", t), false;
    if (fl->n == (int)(sizeof fl->name / sizeof *fl->name)) return snprintf(why, n, "at most 8 names"), false;
    fl->name[fl->n++] = t;
    fl->need |= b;
  }
  return true;
}

static enum MHD_Result reply_query(Server *s, struct MHD_Connection *c) {
  if (!s->have_db) return serve_error(c, 404, "no database is open (tsume serve --db PATH)");
  QueryCtx q;
  memset(&q, 0, sizeof q);
  q.limit = 100;
  const char *v;
  uint64_t moves = 0;
  int length = -1;
  if ((v = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "moves")) && *v) {
    if (!cli_parse_u64(v, &moves) || moves < 1 || moves > 65535)
      return serve_error(c, 400, "moves needs a number from 1 to 65535");
    length = (int)moves;
  }
  if ((v = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "limit")) && *v) {
    if (!cli_parse_u64(v, &q.limit) || q.limit < 1 || q.limit > QUERY_LIMIT_MAX)
      return serve_error(c, 400, "limit needs a number from 1 to %u", QUERY_LIMIT_MAX);
  }
  if ((v = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "offset")) && *v) {
    if (!cli_parse_u64(v, &q.offset)) return serve_error(c, 400, "offset needs a whole number");
  }
  if ((v = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "complete")) && *v && strcmp(v, "0"))
    q.need |= dbutil_flag_parse("complete");
  if ((v = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "minimal")) && *v && strcmp(v, "0"))
    q.need |= dbutil_flag_parse("minimal");
  FlagList fl;
  char why[300];
  if (!flag_list(c, &fl, false, why, sizeof why)) return serve_error(c, 400, "flag: %s", why);
  q.need |= fl.need;
  char *out = NULL;
  size_t n = 0;
  q.f = open_memstream(&out, &n);
  if (!q.f) return serve_error(c, 503, "out of memory");
  TsDb *db = NULL;
  TsError err;
  int rc = tsdb_open(s->db_path, TSDB_RDONLY, NULL, &db, &err);
  Material mat;
  if (!rc) {
    if (dbutil_material_load(db, &mat)) q.mat = &mat;
    rc = tsdb_foreach(db, length, query_record, &q, &err);
    if (rc == 1) rc = 0;
    if (!rc && q.rc) rc = q.rc, err = q.err;
    tsdb_close(db);
  }
  fclose(q.f);
  if (rc) {
    free(out);
    return serve_ts_error(c, &err);
  }
  return serve_reply_owned(c, 200, "application/x-ndjson; charset=utf-8", out, n);
}

/* ------------------------------------------------------------------ export */

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
  (void)st, (void)flag, (void)ftw;
  return remove(path);
}

/* Runs argv (argv[0] a path) with its output in log; its exit status, or -1 when it could not run. */
static int run_child(char *const argv[], const char *log) {
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 2, log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_adddup2(&fa, 2, 1);
  pid_t pid;
  extern char **environ;
  int e = posix_spawn(&pid, argv[0], &fa, NULL, argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  if (e) return -1;
  int st;
  while (waitpid(pid, &st, 0) < 0)
    if (errno != EINTR) return -1;
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* The last line of a child's log (its message), for an error answer. */
static void last_line(const char *log, char *out, size_t n) {
  out[0] = 0;
  FILE *f = fopen(log, "r");
  if (!f) return;
  char line[1024];
  while (fgets(line, sizeof line, f))
    if (strncmp(line, "tsume export: ", 14) == 0 || !out[0]) {
      line[strcspn(line, "\n")] = 0;
      snprintf(out, n, "%s", line);
    }
  fclose(f);
}

/*
 * GET /api/export.kif and /api/export.tar: the works of the query written by
 * `tsume export` itself (a child process of this binary: the same checker's
 * confirmation, 変化 and files as the command), as one KIF file (UTF-8) or as
 * the HTML book in a tar archive.
 */
static enum MHD_Result reply_export(Server *s, struct MHD_Connection *c, bool html) {
  if (!s->have_db) return serve_error(c, 404, "no database is open (tsume serve --db PATH)");
  const char *v;
  char moves[16] = "", limit[24] = "100";
  uint64_t n;
  unsigned most = html ? QUERY_BOOK_MAX : QUERY_LIMIT_MAX;
  if ((v = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "moves")) && *v) {
    if (!cli_parse_u64(v, &n) || n < 1 || n > 65535) return serve_error(c, 400, "moves needs a number from 1 to 65535");
    snprintf(moves, sizeof moves, "%llu", (unsigned long long)n);
  }
  if ((v = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "limit")) && *v) {
    if (!cli_parse_u64(v, &n) || n < 1 || n > most) return serve_error(c, 400, "limit needs a number from 1 to %u", most);
    snprintf(limit, sizeof limit, "%llu", (unsigned long long)n);
  }
  bool complete = (v = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "complete")) && *v && strcmp(v, "0");
  bool minimal = (v = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "minimal")) && *v && strcmp(v, "0");
  /* flag=F[,F], passed on as --flag F: a flaw of a given line only is export's to answer (nothing matches) */
  FlagList fl;
  char why[300];
  if (!flag_list(c, &fl, true, why, sizeof why)) return serve_error(c, 400, "flag: %s", why);
  if ((v = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "offset")) && *v && strcmp(v, "0"))
    return serve_error(c, 400, "offset: an export starts from the first work of the selection");
  pthread_mutex_lock(&s->mu);
  bool full = s->running >= s->opt.max_jobs;
  if (!full) s->running++;
  pthread_mutex_unlock(&s->mu);
  if (full)
    return serve_error(c, 503, "busy: %d jobs are running (the most at once); try again when one ends", s->opt.max_jobs);
  char dir[] = "/tmp/tsume-serve-XXXXXX", out[64], log[64], tarf[64], msg[1024] = "";
  enum MHD_Result ret;
  if (!mkdtemp(dir)) {
    ret = serve_error(c, 500, "cannot make a temporary folder: %s", strerror(errno));
    goto done;
  }
  snprintf(out, sizeof out, "%s/%s", dir, html ? "book" : "works.kifu");
  snprintf(log, sizeof log, "%s/log", dir);
  snprintf(tarf, sizeof tarf, "%s/book.tar", dir);
  char exe[4096];
  ssize_t k = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (k <= 0) {
    ret = serve_error(c, 500, "cannot find this program's file to run the export");
    goto clean;
  }
  exe[k] = 0;
  char *argv[32];
  int a = 0;
  argv[a++] = exe, argv[a++] = "export", argv[a++] = "--db", argv[a++] = s->db_path;
  if (moves[0]) argv[a++] = "--moves", argv[a++] = moves;
  if (complete) argv[a++] = "--complete";
  if (minimal) argv[a++] = "--minimal";
  for (int i = 0; i < fl.n; i++) argv[a++] = "--flag", argv[a++] = fl.name[i];
  argv[a++] = "--limit", argv[a++] = limit;
  argv[a++] = html ? "--html" : "--kif-file", argv[a++] = out;
  argv[a] = NULL;
  int st = run_child(argv, log);
  struct stat sb;
  if (st < 0 || stat(out, &sb) != 0) { /* 1 with a file: some works not confirmed were left out */
    last_line(log, msg, sizeof msg);
    ret = serve_error(c, st == 1 ? 404 : 500, "%s", msg[0] ? msg : "the export wrote nothing");
    goto clean;
  }
  if (html) {
    char *targv[] = {"/bin/tar", "-C", dir, "-cf", tarf, "book", NULL};
    if (run_child(targv, log) != 0) {
      ret = serve_error(c, 500, "cannot make the archive of the book");
      goto clean;
    }
  }
  int fd = open(html ? tarf : out, O_RDONLY | O_CLOEXEC);
  if (fd < 0 || fstat(fd, &sb) != 0) {
    if (fd >= 0) close(fd);
    ret = serve_error(c, 500, "cannot read the export back");
    goto clean;
  }
  struct MHD_Response *r = MHD_create_response_from_fd((uint64_t)sb.st_size, fd); /* closes fd */
  if (!r) {
    close(fd);
    ret = MHD_NO;
    goto clean;
  }
  MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, html ? "application/x-tar" : "text/plain; charset=utf-8");
  MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_DISPOSITION,
                          html ? "attachment; filename=\"book.tar\"" : "attachment; filename=\"works.kifu\"");
  MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
  MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
  ret = MHD_queue_response(c, 200, r);
  MHD_destroy_response(r);
clean:
  nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS); /* the open archive stays readable until sent */
done:
  pthread_mutex_lock(&s->mu);
  s->running--;
  pthread_cond_broadcast(&s->idle);
  pthread_mutex_unlock(&s->mu);
  return ret;
}

static enum MHD_Result reply_info(Server *s, struct MHD_Connection *c) {
  char *out = NULL;
  size_t n = 0;
  FILE *f = open_memstream(&out, &n);
  if (!f) return serve_error(c, 503, "out of memory");
  pthread_mutex_lock(&s->mu);
  int running = s->running;
  pthread_mutex_unlock(&s->mu);
  fprintf(f, "{\"version\":\"%s\",\"running\":%d,\"max_jobs\":%d,\"max_time_ms\":%llu,\"check_ms\":%u,\"compose_ms\":%u,\"db\":",
          TSUME_VERSION, running, s->opt.max_jobs, (unsigned long long)s->opt.max_time_ms, SERVE_CHECK_MS_DEFAULT,
          SERVE_COMPOSE_MS_DEFAULT);
  if (!s->have_db) {
    fputs("null", f);
  } else {
    TsDb *db = NULL;
    TsError err;
    TsDbMeta meta;
    memset(&meta, 0, sizeof meta);
    uint64_t total = 0;
    if (!tsdb_open(s->db_path, TSDB_RDONLY, NULL, &db, &err)) {
      tsdb_meta_get(db, &meta, &err);
      tsdb_count(db, &total, &err);
      tsdb_close(db);
    }
    const char *base = strrchr(s->db_path, '/');
    fputs("{\"name\":", f);
    json_user_str(f, base ? base + 1 : s->db_path);
    fputs(",\"material\":", f);
    json_user_str(f, meta.material);
    fprintf(f, ",\"problems\":%llu,\"flags\":[", (unsigned long long)total);
    for (size_t i = 0; i < DB_FLAG_NAMES_N; i++) fprintf(f, "%s\"%s\"", i ? "," : "", DB_FLAG_NAMES[i].name);
    fputs("]}", f);
  }
  fputs("}\n", f);
  fclose(f);
  return serve_reply_owned(c, 200, JSON_TYPE, out, n);
}

/* ------------------------------------------------------------------ dispatch */

enum MHD_Result api_dispatch(Server *s, struct MHD_Connection *c, const char *method, const char *url,
                             const char *body, size_t len) {
  bool post = !strcmp(method, "POST");
  if (!strcmp(url, "/api/info") || !strcmp(url, "/api/query") || !strcmp(url, "/api/export.kif") ||
      !strcmp(url, "/api/export.tar")) {
    if (post) return serve_error(c, 405, "%s takes GET", url);
    if (!strcmp(url, "/api/info")) return reply_info(s, c);
    if (!strcmp(url, "/api/query")) return reply_query(s, c);
    return reply_export(s, c, !strcmp(url, "/api/export.tar"));
  }
  static const char *const POSTS[] = {"/api/parse", "/api/check", "/api/roles", "/api/compose",
                                      "/api/svg",   "/api/kif",   "/api/bod"};
  bool known = false;
  for (size_t i = 0; i < sizeof POSTS / sizeof POSTS[0]; i++) known |= !strcmp(url, POSTS[i]);
  const char *stop_tail = "/stop";
  size_t ul = strlen(url);
  bool stop = !strncmp(url, "/api/jobs/", 10) && ul == 10 + 32 + strlen(stop_tail) && !strcmp(url + 42, stop_tail);
  if (!known && !stop) return serve_error(c, 404, "no such API: %.80s", url);
  if (!post) return serve_error(c, 405, "%s takes POST", url);
  if (stop) {
    char id[33];
    memcpy(id, url + 10, 32);
    id[32] = 0;
    Job *j = job_find(s, id);
    if (!j) return serve_error(c, 404, "no such job (it ended, or never was)");
    job_stop(j);
    job_release(j);
    return serve_reply(c, 200, JSON_TYPE, "{\"stopped\":true}\n", 17);
  }
  if (!strcmp(url, "/api/parse")) return reply_parse(c, body, len);
  ApiRequest *q = request_new();
  if (!q) return serve_error(c, 503, "out of memory");
  ApiError e;
  const char *what = !strcmp(url, "/api/check")     ? "check"
                     : !strcmp(url, "/api/svg")     ? "svg"
                     : !strcmp(url, "/api/bod")     ? "svg"
                     : !strcmp(url, "/api/compose") ? "compose"
                                                    : "roles";
  if (read_request(s, body, len, what, q, &e)) {
    free(q);
    return serve_error(c, e.status, "%s", e.msg);
  }
  if (q->from_mate && strcmp(url, "/api/compose")) {
    free(q);
    return serve_error(c, 400, "from_mate: only /api/compose takes it");
  }
  enum MHD_Result ret;
  if (!strcmp(url, "/api/svg")) {
    ret = reply_svg(c, q);
  } else if (!strcmp(url, "/api/bod")) {
    ret = reply_bod(c, q);
  } else if (!strcmp(url, "/api/kif")) {
    ret = reply_kif(c, q);
  } else {
    JobFn fn = !strcmp(url, "/api/check") ? run_check : !strcmp(url, "/api/roles") ? run_roles : run_compose;
    return job_start(s, c, fn != run_roles, fn, q, free);
  }
  free(q);
  return ret;
}
