/*
 * json.c - the JSON objects of check, roles, compose and query (json.h).
 */
#include "json.h"

#include <string.h>

#include "cli.h"
#include "dbutil.h"
#include "sfen.h"

void json_str(FILE *f, const char *s) {
  putc('"', f);
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
    if (*p == '"' || *p == '\\')
      fprintf(f, "\\%c", *p);
    else if (*p == '\n')
      fputs("\\n", f);
    else if (*p == '\t')
      fputs("\\t", f);
    else if (*p < 0x20 || *p == 0x7f)
      fprintf(f, "\\u%04x", *p);
    else
      putc(*p, f);
  }
  putc('"', f);
}

void json_user_str(FILE *f, const char *s) {
  char buf[2048];
  cli_escape(s, buf, sizeof buf);
  json_str(f, buf);
}

void json_move(FILE *f, Move m) {
  if (m == MOVE_NONE) {
    fputs("null", f);
    return;
  }
  char mv[8];
  usi_move_write(m, mv);
  fprintf(f, "\"%s\"", mv);
}

void json_moves(FILE *f, const Move *m, int n) {
  putc('[', f);
  for (int i = 0; i < n; i++) {
    if (i) putc(',', f);
    json_move(f, m[i]);
  }
  putc(']', f);
}

static const char *VERDICT_JA[] = {"完全作", "不完全作", "不詰", "未確定", "手順不正"};

static const char *tf(bool b) { return b ? "true" : "false"; }

/* Why a verdict is unknown: the budget ran out before the solver found any mating
 * line to check ("no-line"), else questions about the line were stopped ("unproven"). */
static bool unknown_no_line(const CheckReport *r) { return !r->line_given && r->line_length == 0; }

void json_flaw(FILE *f, const CheckReport *r, const CheckFlaw *fl) {
  fprintf(f, "{\"kind\":\"%s\",\"kind_ja\":\"%s\",\"ply\":%d,\"move\":", check_flaw_name(fl->kind),
          check_flaw_name_ja(fl->kind), fl->ply);
  json_move(f, fl->move);
  fputs(",\"alt\":", f);
  json_move(f, fl->alt);
  fprintf(f, ",\"alt_length\":%d,", fl->alt_length);
  if (fl->alt_length_min > 0) fprintf(f, "\"alt_length_min\":%d,", fl->alt_length_min);
  if (fl->alt_length_max > 0) fprintf(f, "\"alt_length_max\":%d,", fl->alt_length_max);
  fputs("\"alt_line\":", f);
  json_moves(f, fl->alt_line, fl->alt_line_len);
  fprintf(f, ",\"alt_komaamari\":%s,\"longer\":%s,\"tolerated\":%s}", tf(fl->alt_komaamari),
          tf(check_flaw_longer(r, fl)), tf(fl->tolerated));
}

void json_check(FILE *f, const char *id, const Position *pos, const char *error, int rc, const CheckReport *r) {
  fputs("{\"id\":", f);
  json_user_str(f, id);
  if (error) {
    fputs(",\"verdict\":\"error\",\"message\":", f);
    json_user_str(f, error);
    putc('}', f);
    return;
  }
  char sfen[SFEN_MAX];
  sfen_write(pos, sfen, sizeof sfen);
  fprintf(f, ",\"sfen\":\"%s\"", sfen);
  if (rc) {
    fputs(",\"verdict\":\"error\",\"message\":", f);
    json_str(f, ts_strerror(rc));
    putc('}', f);
    return;
  }
  fprintf(f, ",\"verdict\":\"%s\",\"verdict_ja\":\"%s\",\"length\":%d,\"length_exact\":%s,\"line_length\":%d,"
             "\"line_given\":%s,\"line\":",
          check_verdict_name(r->verdict), VERDICT_JA[r->verdict], r->length, tf(r->length_exact), r->line_length,
          tf(r->line_given));
  json_moves(f, r->line, r->line_length);
  fputs(",\"flaws\":[", f);
  for (int i = 0; i < r->nflaws; i++) {
    if (i) putc(',', f);
    json_flaw(f, r, &r->flaws[i]);
  }
  fprintf(f, "],\"flaws_dropped\":%d,\"unproven\":%d,\"unproven_ply\":%d,\"nodes\":%llu,\"time_ms\":%llu",
          r->flaws_dropped, r->unproven, r->unproven_ply, (unsigned long long)r->nodes, (unsigned long long)r->time_ms);
  if (r->workers > 1) fprintf(f, ",\"workers\":%d", r->workers);
  if (r->verdict == CHECK_UNKNOWN) fprintf(f, ",\"reason\":\"%s\"", unknown_no_line(r) ? "no-line" : "unproven");
  if (r->nopen) {
    fputs(",\"open\":[", f);
    for (int i = 0; i < r->nopen; i++) {
      const CheckOpen *o = &r->open[i];
      fprintf(f, "%s{\"ply\":%d,\"side\":\"%s\",\"alt\":", i ? "," : "", o->ply, o->ply % 2 ? "attacker" : "defender");
      json_move(f, o->alt);
      fprintf(f, ",\"question\":\"%s\",\"nodes\":%llu,\"limit\":",
              o->ply % 2 ? (o->longer ? "any-length" : "within-line") : "defence", (unsigned long long)o->nodes);
      if (o->asked)
        fprintf(f, "%llu", (unsigned long long)o->limit);
      else
        fputs("null", f); /* not asked: the budget ran out before its turn */
      if (o->mates) fputs(",\"mates\":true", f);
      if (o->mates && o->mate_max > 0) fprintf(f, ",\"mate_length_max\":%d", o->mate_max);
      putc('}', f);
    }
    putc(']', f);
  }
  if (r->first_flaw_nodes)
    fprintf(f, ",\"first_flaw_nodes\":%llu,\"first_flaw_ms\":%llu", (unsigned long long)r->first_flaw_nodes,
            (unsigned long long)r->first_flaw_ms);
  if (r->message[0]) {
    fputs(",\"message\":", f);
    json_user_str(f, r->message);
  }
  putc('}', f);
}

/* ------------------------------------------------------------------ roles */

/* SFEN letters of a piece ("+R", "g"). */
static void piece_letters(Piece p, char out[4]) {
  static const char L[] = " PLNSBRGK";
  PieceType t = piece_type(p);
  char c = L[pt_demote(t) == KING ? KING : pt_demote(t)];
  if (piece_color(p) == WHITE) c = (char)(c - 'A' + 'a');
  int k = 0;
  if (pt_is_promoted(t)) out[k++] = '+';
  out[k++] = c;
  out[k] = 0;
}

static void role_names(FILE *f, uint8_t r) {
  putc('[', f);
  for (int b = 0, k = 0; b < ROLE_NB; b++)
    if (r & (1u << b)) fprintf(f, "%s\"%s\"", k++ ? "," : "", roles_name(b));
  putc(']', f);
}

void json_roles(FILE *f, const Position *pos, const Move *line, int n, const RoleMap *m) {
  char sfen[SFEN_MAX];
  sfen_write(pos, sfen, sizeof sfen);
  fprintf(f, "{\"sfen\":\"%s\",\"line\":", sfen);
  json_moves(f, line, n);
  fputs(",\"plies\":[", f);
  for (int i = 0; i <= m->n; i++) {
    const RolePly *rp = &m->ply[i];
    fprintf(f, "%s{\"ply\":%d,\"side\":\"%s\",\"move\":", i ? "," : "", i,
            rp->pos.side == pos->side ? "attacker" : "defender");
    if (i < m->n) {
      json_move(f, rp->move);
      fprintf(f, ",\"mover\":%d", rp->mover);
    } else {
      fputs("null", f);
    }
    fputs(",\"squares\":[", f);
    int k = 0;
    for (Square s = SQ_NB - 1; s >= 0; s--) {
      if (!rp->role[s]) continue;
      char sq[4], pl[4];
      usi_square_write(s, sq);
      piece_letters(rp->pos.board[s], pl);
      fprintf(f, "%s{\"sq\":\"%s\",\"piece\":\"%s\",\"id\":%d,\"roles\":", k++ ? "," : "", sq, pl, rp->id[s]);
      role_names(f, rp->role[s]);
      putc('}', f);
    }
    fputs("],\"prevented\":[", f);
    for (int j = 0; j < rp->nprevented; j++) {
      char sq[4];
      usi_square_write(rp->prevented[j].sq, sq);
      fprintf(f, "%s{\"sq\":\"%s\",\"move\":", j ? "," : "", sq);
      json_move(f, rp->prevented[j].move);
      putc('}', f);
    }
    fputs("]}", f);
  }
  fputs("],\"pieces\":[", f);
  for (int id = 0; id < m->npieces; id++) {
    const RolePiece *p = &m->piece[id];
    char pl[4], sq[4];
    piece_letters(p->piece, pl);
    fprintf(f, "%s{\"id\":%d,\"start\":", id ? "," : "", id);
    if (p->start_sq != SQ_NONE) {
      usi_square_write(p->start_sq, sq);
      fprintf(f, "\"%s\"", sq);
    } else {
      fputs("null", f);
    }
    fprintf(f, ",\"piece\":\"%s\",\"first_ply\":%d,\"roles\":", pl, p->first_ply);
    role_names(f, p->roles);
    putc('}', f);
  }
  fputs("]}", f);
}

/* ------------------------------------------------------------------ compose */

void json_compose_score(FILE *f, const ComposeScore *s) {
  fprintf(f, "{\"verdict\":\"%s\",\"length\":%d,\"flaws\":%d,\"yozume\":%d,\"pieces\":%d}",
          s->valid || s->verdict != CHECK_BAD_LINE ? check_verdict_name(s->verdict) : "bad-line", s->length,
          s->defects, s->yozume, s->pieces);
}

const char *compose_result_word(const ComposeResult *r) {
  bool unknown = !r->best_score.valid && r->report.line_length == 0;
  return r->complete ? "complete"
         : unknown   ? "unknown"
         : compose_better(&r->best_score, &r->start_score) ? "improved"
                                                           : "unchanged";
}

/* The flaws of a report, short: kind, ply, alternative, tolerated. */
static void compose_flaws(FILE *f, const CheckReport *rep) {
  putc('[', f);
  for (int i = 0; i < rep->nflaws; i++) {
    const CheckFlaw *fl = &rep->flaws[i];
    fprintf(f, "%s{\"kind\":\"%s\",\"ply\":%d,\"alt\":", i ? "," : "", check_flaw_name(fl->kind), fl->ply);
    json_move(f, fl->alt);
    fprintf(f, ",\"tolerated\":%s}", tf(fl->tolerated));
  }
  putc(']', f);
}

void json_compose_result(FILE *f, const ComposeResult *r, const ComposeTotals *t) {
  char sfen[SFEN_MAX], ssfen[SFEN_MAX];
  sfen_write(&r->best, sfen, sizeof sfen);
  sfen_write(&r->start, ssfen, sizeof ssfen);
  fprintf(f, "{\"result\":\"%s\",\"sfen\":\"%s\",\"length\":%d,\"line\":", compose_result_word(r), sfen,
          r->best_score.length);
  json_moves(f, r->report.line, r->report.line_length);
  fputs(",\"flaws\":", f);
  compose_flaws(f, &r->report);
  fprintf(f, ",\"verdict\":\"%s\",\"pieces\":%d,\"start\":{\"sfen\":\"%s\",\"score\":",
          check_verdict_name(r->report.verdict), r->best_score.pieces, ssfen);
  json_compose_score(f, &r->start_score);
  fprintf(f, "},\"king_dropped\":%s,\"seed\":%llu,\"iterations\":%llu,\"checks\":%llu,\"restarts\":%llu,"
             "\"time_ms\":%llu,\"stop_reason\":\"%s\"}",
          tf(r->king_dropped), (unsigned long long)t->seed, (unsigned long long)t->iterations,
          (unsigned long long)t->checks, (unsigned long long)t->restarts, (unsigned long long)t->wall_ms,
          r->stop_reason ? r->stop_reason : "");
}

void json_from_mate(FILE *f, const FromMateResult *r, uint64_t works) {
  fprintf(f, "{\"result\":\"%s\",\"works\":%llu,\"longest\":%d,\"candidates\":%llu,\"cut\":%s,\"time_ms\":%llu}",
          works ? "complete" : "none", (unsigned long long)r->works, r->longest, (unsigned long long)r->candidates,
          tf(r->cut), (unsigned long long)r->time_ms);
}

/* ------------------------------------------------------------------ query */

void json_query_record(FILE *f, const Position *pos, const TsRecord *r, const Move *line, int n) {
  char sfen[SFEN_MAX], flags[256];
  sfen_write(pos, sfen, sizeof sfen);
  dbutil_flags_format(r->flags, flags, sizeof flags);
  fprintf(f, "{\"sfen\":\"%s\",\"length\":%u,\"flags\":\"%s\",\"root_mates\":%u,\"line\":", sfen, r->length, flags,
          r->root_mates);
  json_moves(f, line, n);
  putc('}', f);
}
