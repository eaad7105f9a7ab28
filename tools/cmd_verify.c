#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "dbutil.h"
#include "movegen.h"
#include "sfen.h"
#include "solver.h"
#include "solver_value.h"

static const char VERIFY_HELP[] =
    "usage: tsume verify --db PATH [--moves N] [--limit K] [--nodes N]\n"
    "Re-solves every complete work of the database forward with the df-pn solver:\n"
    "its mate length must equal the stored one (proven exact), its stored main line\n"
    "must be legal, check at every attacker move and end in mate, and at every\n"
    "attacker move of the main line but the last no other check may mate within the\n"
    "remaining length (the solver proves the position after it is not mated within\n"
    "the plies left; 余詰 as in rules.md), unless the record carries the flag of a\n"
    "tolerated kind and the alternative is one: higentei (the same move but for\n"
    "promotion, or a drop of the same piece on the same line to the king), or\n"
    "tejun-zengo / ukai (some line of shortest checks and longest defences from it\n"
    "reaches the main line's position at the same ply). Each disagreement is\n"
    "printed; the exit status is 1 if there is any, 0 otherwise.\n"
    "  --nodes N   node limit of each solver call (default 2000000); a call that\n"
    "              hits it is counted as 'unproven', not as a disagreement\n";

typedef struct {
  Solver *solver;
  uint64_t limit, checked, bad, unproven, alternatives, tolerated;
  int budget; /* solver calls left for one rejoin search */
  int rc;
  TsError err;
} VerifyCtx;

static void report(const Position *pos, const char *what) {
  char sfen[SFEN_MAX];
  sfen_write(pos, sfen, sizeof sfen);
  printf("DISAGREE %s: %s\n", sfen, what);
}

/* After the attacker's check m' (defender to move in p) with `left` plies of the
 * main line still to go after it: 1 when shown not to mate within them, 0 when
 * it does, -1 when not proven either way. */
static int check_refuted(VerifyCtx *v, Position *p, Color attacker, int left) {
  int k = solver_value(v->solver, p, attacker, left);
  if (k == SOLVER_VALUE_UNKNOWN) return -1;
  return k == SOLVER_VALUE_NONE ? 1 : 0;
}

static bool shape_non_limiting(const Position *pos, Move m, Move alt) {
  if (!move_is_drop(m) && !move_is_drop(alt)) return move_from(m) == move_from(alt) && move_to(m) == move_to(alt);
  if (!move_is_drop(m) || !move_is_drop(alt) || move_drop_type(m) != move_drop_type(alt)) return false;
  Square k = pos->king[pos->side == BLACK ? WHITE : BLACK];
  Bitboard line = LINE[k][move_to(m)];
  return line && bb_test(line, move_to(alt)) && !bb_test(BETWEEN[move_to(m)][move_to(alt)], k);
}

/* Does some line from q (ply j of a main line of n plies) of shortest checks and
 * longest defences reach main[j'] at its own ply j'? 1 yes, 0 no, -1 out of budget. */
static int rejoins(VerifyCtx *v, const Position *q, const Position *main, int j, int n, Color attacker) {
  if (j < n && pos_equal(q, &main[j])) return 1;
  if (j >= n - 1) return 0;
  int R = n - j, unknown = 0;
  MoveList l;
  if (q->side == attacker)
    movegen_checks(q, &l);
  else
    movegen_legal(q, &l);
  for (int i = 0; i < l.size; i++) {
    if (v->budget-- <= 0) return -1;
    Position c = *q;
    Undo u;
    pos_do_move(&c, l.moves[i], &u);
    if (solver_value(v->solver, &c, attacker, R - 1) != R - 1) continue;
    int k = rejoins(v, &c, main, j + 1, n, attacker);
    if (k > 0) return 1;
    if (k < 0) unknown = 1;
  }
  return unknown ? -1 : 0;
}

/*
 * The other check `alt` at attacker ply `ply` of the stored line (positions
 * main[0..n]): true when it mates within the plies left and the record does
 * not tolerate it. Refuted, tolerated and unproven alternatives are counted.
 */
static bool alternative_mates(VerifyCtx *v, const TsRecord *rec, const Position *main, const Move *line, int n,
                              int ply, Move alt) {
  Color attacker = main[0].side;
  Position q = main[ply];
  Undo u;
  pos_do_move(&q, alt, &u);
  v->alternatives++;
  int k = check_refuted(v, &q, attacker, n - ply - 1);
  if (k < 0) v->unproven++;
  if (k != 0) return false;
  if ((rec->flags & TSDB_F_HIGENTEI) && shape_non_limiting(&main[ply], line[ply], alt)) {
    v->tolerated++;
    return false;
  }
  if (rec->flags & (TSDB_F_TEJUN_ZENGO | TSDB_F_UKAI)) {
    v->budget = 20000;
    int j = rejoins(v, &q, main, ply + 1, n, attacker);
    if (j > 0) v->tolerated++;
    if (j < 0) v->unproven++;
    if (j != 0) return false;
  }
  return true;
}

static int verify_one(const TsRecord *rec, void *vctx) {
  VerifyCtx *v = vctx;
  if (!(rec->flags & TSDB_F_COMPLETE)) return 0;
  if (v->limit && v->checked >= v->limit) return 1;
  v->checked++;
  Position pos;
  static Move line[TSDB_LINE_MAX];
  int n;
  if (dbutil_record_decode(rec, &pos, line, &n, &v->err)) {
    report(&pos, v->err.msg);
    v->bad++;
    return 0;
  }
  SolveResult r;
  if (solver_solve(v->solver, &pos, &r) != TS_OK || r.status == SOLVE_UNKNOWN) {
    v->unproven++;
    return 0;
  }
  char what[256];
  if (r.status != SOLVE_MATE || r.length != rec->length || !r.exact) {
    snprintf(what, sizeof what, "stored length %u, solver %s %d%s", rec->length,
             r.status == SOLVE_MATE ? "mate" : "nomate", r.length, r.exact ? "" : " (upper bound)");
    report(&pos, what);
    v->bad++;
    return 0;
  }
  static Position main[TSDB_LINE_MAX + 1];
  main[0] = pos;
  for (int ply = 0; ply < n; ply++) {
    main[ply + 1] = main[ply];
    Undo u;
    pos_do_move(&main[ply + 1], line[ply], &u);
  }
  for (int ply = 0; ply < n; ply += 2) {
    if (!pos_gives_check(&main[ply], line[ply])) {
      snprintf(what, sizeof what, "stored move %d does not check", ply + 1);
      report(&pos, what);
      v->bad++;
      return 0;
    }
    if (ply == n - 1) break;
    MoveList l;
    movegen_checks(&main[ply], &l);
    for (int i = 0; i < l.size; i++) {
      if (move_compact(l.moves[i]) == move_compact(line[ply])) continue;
      if (alternative_mates(v, rec, main, line, n, ply, l.moves[i])) {
        char mv[8];
        usi_move_write(l.moves[i], mv);
        snprintf(what, sizeof what, "yozume at move %d: %s also mates within %d plies", ply + 1, mv, n - ply);
        report(&pos, what);
        v->bad++;
        return 0;
      }
    }
  }
  if (!solver_line_verify(&pos, line, n, true, NULL)) {
    report(&pos, "stored main line does not end in mate");
    v->bad++;
  }
  return 0;
}

int cmd_verify(int argc, char **argv) {
  const char *path = NULL;
  uint64_t moves = 0, nodes = 2000000;
  bool have_moves = false;
  VerifyCtx v;
  memset(&v, 0, sizeof v);
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      fputs(VERIFY_HELP, stdout);
      return 0;
    } else if (!strcmp(a, "--db") && i + 1 < argc) {
      path = argv[++i];
    } else if (!strcmp(a, "--moves") && i + 1 < argc) {
      if (!cli_parse_u64(argv[++i], &moves) || moves < 1 || moves > 65535)
        return cli_usage_error("verify", "--moves needs a number from 1 to 65535");
      have_moves = true;
    } else if (!strcmp(a, "--limit") && i + 1 < argc) {
      if (!cli_parse_u64(argv[++i], &v.limit)) return cli_usage_error("verify", "--limit needs a number");
    } else if (!strcmp(a, "--nodes") && i + 1 < argc) {
      if (!cli_parse_u64(argv[++i], &nodes) || nodes < 1) return cli_usage_error("verify", "--nodes needs a number");
    } else {
      return cli_usage_error("verify", "unknown or incomplete option '%s'", a);
    }
  }
  if (!path) return cli_usage_error("verify", "missing --db PATH");
  TsDb *db;
  TsError err;
  int rc = dbutil_open_ro(path, &db, &err);
  if (rc) return cli_fail("verify", &err);
  SolverOptions so;
  solver_options_default(&so);
  so.hash_mb = 32;
  so.max_nodes = nodes;
  v.solver = solver_create(&so);
  if (!v.solver) {
    tsdb_close(db);
    fprintf(stderr, "tsume verify: out of memory\n");
    return 3;
  }
  uint64_t t0 = cli_now_ms();
  rc = tsdb_foreach(db, have_moves ? (int)moves : -1, verify_one, &v, &err);
  solver_free(v.solver);
  tsdb_close(db);
  if (rc && rc != 1) return cli_fail("verify", &err);
  printf("verified %llu complete works in %.1f s: %llu disagreements, %llu alternative checks refuted or "
         "mating (%llu of them tolerated: higentei, tejun-zengo, ukai), %llu solver calls unproven\n",
         (unsigned long long)v.checked, (cli_now_ms() - t0) / 1000.0, (unsigned long long)v.bad,
         (unsigned long long)v.alternatives, (unsigned long long)v.tolerated, (unsigned long long)v.unproven);
  return v.bad ? 1 : 0;
}
