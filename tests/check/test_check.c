/*
 * test_check.c - the flaw checker (solver/check.h) on small hand-picked
 * problems, one or more for every flaw kind, and complete ones.
 *
 * Every expectation is first established by the brute-force search of brute.c
 * (never by the solver): that the alternative mates within the plies left and
 * in how many, that a defence lasts longer or escapes, that a line rejoins the
 * intended one. Then check_problem must report that kind at that ply with that
 * alternative and length. A second pass compares every report with the brute
 * force as a whole: each alternative check the brute force finds mating, at
 * any length up to BRUTE_LONGER plies past the line's end (the last move
 * excepted, where only another mate in one counts), is listed with its
 * length, each listed alternative mates as reported, and each longer or
 * escaping defence is listed.
 *
 * The positions come from the enumerator's databases (G2P1, S2P1, N4, R1G1,
 * L1G1S1: records flagged yozume, hendou, henchou, higentei, tejun-zengo, ukai)
 * and from find_cases (a longer line than the shortest mate, a shorter defence,
 * a check with an escape).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "brute.h"
#include "check.h"
#include "movegen.h"
#include "sfen.h"

#define NO_FLAW FLAW_KIND_NB
#define BRUTE_EXTRA 6 /* plies beyond the line searched for longer defences */
#define BRUTE_LONGER 10 /* plies beyond the line's remainder searched for longer attacker alternatives */

typedef struct {
  const char *name;
  const char *sfen;
  const char *line; /* USI moves of the intended line */
  CheckVerdict verdict;
  FlawKind kind;    /* NO_FLAW: no flaw at all that is not tolerated */
  int ply;
  const char *alt;  /* NULL for a flaw of the line itself */
  bool tolerated;
} Case;

static const Case CASES[] = {
    /* complete works of the databases */
    {"complete-5", "9/9/9/9/9/9/8G/6+P2/8k b G2r2b2g4s4n4l17p 1", "G*1h 1i2i 1h2h 2i1i 1g1h", CHECK_COMPLETE, NO_FLAW,
     0, NULL, false},
    {"complete-3", "6kgG/9/6+P2/9/9/9/9/9/9 b 2r2b2g4s4n4l17p 1", "1a2a 3a2a G*2b", CHECK_COMPLETE, NO_FLAW, 0, NULL,
     false},
    {"complete-9", "6k2/+R7G/9/9/9/9/9/9/9 b r2b3g4s4n4l18p 1", "1b2b 3a4a 2b3b 4a5a 3b4b 5a6a 4b5b 6a7a 5b6b",
     CHECK_COMPLETE, NO_FLAW, 0, NULL, false},
    /* 余詰 at ply 1 (G2P1 record flagged yozume): 2d1c also mates in 3 */
    {"yozume", "9/8k/8g/7GP/9/9/9/9/9 b 2r2b2g4s4n4l17p 1", "1d1c+ 1b1a G*1b", CHECK_FLAWED, FLAW_YOZUME, 1, "2d1c",
     false},
    /* 最終手余詰: 3i2i mates as well at the last move */
    {"last-move-alt", "8G/9/9/9/9/9/7G1/8k/6+P2 b 2r2b2g4s4n4l17p 1", "2g2h 1h1i 2h2i", CHECK_COMPLETE,
     FLAW_LAST_MOVE_ALT, 3, "3i2i", true},
    /* 駒余り: a gold left in hand */
    {"komaamari", "9/8k/6Gp1/8G/9/9/9/9/9 b 2r2b2g4s4n4l17p 1", "1d2c 1b1a 2c2b", CHECK_FLAWED, FLAW_KOMAAMARI, 3,
     NULL, false},
    /* 変同 at ply 2 (not the second-last ply): 3b4a lasts as long */
    {"hendou", "9/3+N2k1+N/9/6+N2/6N2/9/9/9/9 b 2r2b4g4s4l18p 1", "3d4c 3b3a 3e2c 3a4a 6b5b", CHECK_COMPLETE,
     FLAW_HENDOU, 2, "3b4a", true},
    /* 変長: the interposition P*2b lasts 2 plies longer and ends with 駒余り */
    {"henchou", "7k1/9/7gR/9/9/9/9/9/9 b r2b3g4s4n4l18p 1", "1c2c+ 2a1a G*1b", CHECK_FLAWED, FLAW_HENCHOU, 2, "P*2b",
     false},
    /* 非限定: 1d2c without promotion mates as well */
    {"higentei", "9/8k/9/7LS/8G/9/9/9/9 b 2r2b3g3s4n3l18p 1", "1d2c+ 1b1a 2c2b", CHECK_COMPLETE, FLAW_HIGENTEI, 1,
     "1d2c", true},
    /* 手順前後: 2g2h first, then 1h2h, reaches the line's position */
    {"tejun-zengo", "9/9/9/9/9/9/7+N+N/5+N2+N/7k1 b 2r2b4g4s4l18p 1", "1h2h 2i3i 2h3h 3i2i 2g2h 2i1i 1g1h",
     CHECK_COMPLETE, FLAW_TEJUN_ZENGO, 1, "2g2h", true},
    /* 迂回: the dragon goes 1e2e (or 2f) then 2b: other moves, same position */
    {"ukai", "7k1/9/6G2/9/8+R/9/9/9/9 b r2b3g4s4n4l18p 1", "1e2d 2a3a 2d2b 3a4a 2b4b", CHECK_COMPLETE, FLAW_UKAI, 1,
     "1e2e", true},
    /* 余詰 longer than the line (G2S2, 11 plies): at ply 5 G*3c mates in 9 against the line's 7,
     * the gold staying on 3c, the line never rejoined */
    {"yozume-longer", "9/5Gg2/6Sk1/9/7+S1/9/9/9/9 b 2r2b2g2s4n4l18p 1",
     "3c3b 2c3c 4b4c 3c2b G*2c 2b1a 3b2a+ 1a2a 4c3b 2a1a 2c2b", CHECK_FLAWED, FLAW_YOZUME, 5, "G*3c", false},
    /* 迂回 longer than the line: 3b2c without promotion, then 2c1d+ and 1d2c, comes back to the
     * line's position after ply 2 four plies later */
    {"ukai-longer", "5B2r/6B1k/9/9/9/9/9/9/9 b r4g4s4n4l18p 1", "3b2c+ 1b2a 4a3b+", CHECK_COMPLETE, FLAW_UKAI, 1,
     "3b2c", true},
    /* 早詰: 3d3a+ mates in 3 against a line of 5 */
    {"hayazume", "8k/9/7G1/6R2/9/9/9/9/9 b r2b3g4s4n4l18p 1", "3d1d 1a2a 1d1b+ 2a3a 1b3b", CHECK_FLAWED,
     FLAW_HAYAZUME, 1, "3d3a+", false},
    /* 不詰: after 1d1c (no promotion) the king escapes by 1b2a */
    {"nomate", "9/8k/8g/7GP/9/9/9/9/9 b 2r2b2g4s4n4l17p 1", "1d1c 1b1a G*1b", CHECK_NOMATE, FLAW_NOMATE, 2, "1b2a",
     false},
    /* the line's 2a1a is mated at once; 2a1b lasts 3 with an empty hand */
    {"not-longest-defence", "5S1k1/9/6+S2/8p/9/9/9/9/9 b 2r2b4g2s4n4l17p 1", "4a3b+ 2a1a 3b2b", CHECK_FLAWED,
     FLAW_NOT_LONGEST_DEFENCE, 2, "2a1b", false},
};

/* ------------------------------------------------------------ helpers */

typedef struct {
  Position pos;
  Move line[64];
  int n;
  Position at[65]; /* at[i]: before ply i+1 */
} Problem;

static void problem_load(const Case *c, Problem *p) {
  TsError err;
  if (sfen_parse(c->sfen, &p->pos, c->name, &err) != TS_OK) fail_msg("%s: bad SFEN: %s", c->name, err.msg);
  p->n = 0;
  if (usi_line_parse(&p->pos, c->line, p->line, 64, &p->n, &err) != TS_OK)
    fail_msg("%s: bad line: %s", c->name, err.msg);
  p->at[0] = p->pos;
  for (int i = 0; i < p->n; i++) {
    Undo u;
    p->at[i + 1] = p->at[i];
    pos_do_move(&p->at[i + 1], p->line[i], &u);
  }
}

static Move parse_at(const Problem *p, int ply, const char *usi) {
  Move m;
  TsError err;
  if (usi_move_parse(&p->at[ply - 1], usi, &m, &err) != TS_OK) fail_msg("move %s at ply %d: %s", usi, ply, err.msg);
  return m;
}

static const CheckFlaw *find_flaw(const CheckReport *r, FlawKind kind, int ply, Move alt) {
  for (int i = 0; i < r->nflaws; i++) {
    const CheckFlaw *f = &r->flaws[i];
    if (f->ply == ply && (kind == NO_FLAW || f->kind == kind) &&
        (alt == MOVE_NONE ? f->alt == MOVE_NONE : move_compact(f->alt) == move_compact(alt)))
      return f;
  }
  return NULL;
}

static void print_report(const char *name, const CheckReport *r) {
  fprintf(stderr, "%s: verdict %s, %d flaws, length %d, line %d\n", name, check_verdict_name(r->verdict), r->nflaws,
          r->length, r->line_length);
  for (int i = 0; i < r->nflaws; i++) {
    char mv[8] = "-", alt[8] = "-";
    if (r->flaws[i].move) usi_move_write(r->flaws[i].move, mv);
    if (r->flaws[i].alt) usi_move_write(r->flaws[i].alt, alt);
    fprintf(stderr, "  ply %d %s move %s alt %s length %d%s\n", r->flaws[i].ply, check_flaw_name(r->flaws[i].kind), mv,
            alt, r->flaws[i].alt_length, r->flaws[i].tolerated ? " (tolerated)" : "");
  }
  if (r->message[0]) fprintf(stderr, "  %s\n", r->message);
}

/* Does a line of shortest checks and longest defences from q (value w) reach a
 * position of the line, p->at[j] with j >= from and the same value (j = n - w)?
 * The alternative was played at ply `from` (0-based) and may be longer than the
 * line. *same: some such path uses the line's attacker moves (in another order). */
static bool brute_rejoins(Brute *b, const Problem *p, const Position *q, int w, int from, Move *path, int plen,
                          bool *same) {
  int j = p->n - w;
  if (j >= from && j < p->n && pos_equal(q, &p->at[j])) {
    /* the attacker moves of the path against the line's from the branch point */
    int matched = 0, total = 0, line_total = 0;
    bool used[64] = {false};
    for (int l = from; l < j; l += 2) line_total++;
    for (int k = 0; k < plen; k += 2) {
      total++;
      for (int l = from; l < j; l += 2)
        if (!used[l] && move_compact(p->line[l]) == move_compact(path[k])) {
          used[l] = true;
          matched++;
          break;
        }
    }
    if (matched == total && total == line_total) *same = true;
    return true;
  }
  if (w <= 1 || plen >= 63) return false;
  MoveList l;
  if (q->side == p->pos.side)
    movegen_checks(q, &l);
  else
    brute_replies(b, q, w, &l);
  bool any = false;
  for (int i = 0; i < l.size; i++) {
    Position c = *q;
    Undo u;
    pos_do_move(&c, l.moves[i], &u);
    if (brute_value(b, &c, w - 1) != w - 1) continue;
    path[plen] = l.moves[i];
    if (brute_rejoins(b, p, &c, w - 1, from, path, plen + 1, same)) any = true;
  }
  return any;
}

/* Some main line (shortest checks, longest defences) from q, value v, ends with an empty attacker hand. */
static bool brute_empty_end(Brute *b, const Position *q, Color att, int v) {
  if (v == 0) return hand_empty(q->hand[att]);
  MoveList l;
  if (q->side == att)
    movegen_checks(q, &l);
  else
    brute_replies(b, q, v, &l);
  for (int i = 0; i < l.size; i++) {
    Position c = *q;
    Undo u;
    pos_do_move(&c, l.moves[i], &u);
    if (brute_value(b, &c, v - 1) != v - 1) continue;
    if (brute_empty_end(b, &c, att, v - 1)) return true;
  }
  return false;
}

/*
 * The facts of case c by brute force alone; returns the expected alt_length
 * (-1 when the kind has none, or no mate).
 */
static int establish(Brute *b, const Case *c, const Problem *p) {
  Color att = p->pos.side;
  int n = p->n;
  if (c->kind == NO_FLAW) {
    assert_int_equal(brute_value(b, &p->pos, n), n);
    return -1;
  }
  if (c->kind == FLAW_KOMAAMARI) {
    assert_int_equal(c->ply, n); /* the last ply */
    assert_true(brute_within(b, &p->at[n], 0));
    assert_false(hand_empty(p->at[n].hand[att]));
    return -1;
  }
  const Position *before = &p->at[c->ply - 1];
  Move alt = parse_at(p, c->ply, c->alt);
  int rem = n - c->ply + 1; /* plies from this one to the end, this one included */
  bool attacker_ply = c->ply % 2 == 1;
  assert_true(attacker_ply == (before->side == att));
  if (attacker_ply) {
    assert_true(pos_gives_check(before, alt));
    /* mates, within the plies left or (not on the last move) at some longer length */
    int v = brute_value_after(b, before, alt, c->ply == n ? 0 : rem - 1 + BRUTE_LONGER);
    assert_int_not_equal(v, BRUTE_NONE);
    int len = v + 1;
    switch (c->kind) {
    case FLAW_LAST_MOVE_ALT: assert_int_equal(c->ply, n); break;
    case FLAW_HAYAZUME: assert_true(len < rem); break;
    case FLAW_HIGENTEI:
      assert_int_equal(move_from(alt), move_from(p->line[c->ply - 1]));
      assert_int_equal(move_to(alt), move_to(p->line[c->ply - 1]));
      break;
    case FLAW_TEJUN_ZENGO:
    case FLAW_UKAI:
    case FLAW_YOZUME: {
      assert_true(len >= rem);
      assert_true(c->kind != FLAW_TEJUN_ZENGO || len == rem);
      Position q = *before;
      Undo u;
      pos_do_move(&q, alt, &u);
      Move path[64];
      path[0] = alt;
      bool same = false;
      bool rejoin = brute_rejoins(b, p, &q, v, c->ply - 1, path, 1, &same);
      if (c->kind == FLAW_YOZUME)
        assert_false(rejoin);
      else
        assert_true(rejoin && same == (c->kind == FLAW_TEJUN_ZENGO));
      break;
    }
    default: fail_msg("%s: kind %s at an attacker ply", c->name, check_flaw_name(c->kind));
    }
    return len;
  }
  int r = n - c->ply; /* the line's plies after this defence */
  int v = brute_value_after(b, before, alt, r + BRUTE_EXTRA);
  switch (c->kind) {
  case FLAW_NOMATE: assert_int_equal(v, BRUTE_NONE); return -1;
  case FLAW_HENDOU: assert_int_equal(v, r); assert_true(c->ply < n - 1); break;
  case FLAW_HENCHOU:
  case FLAW_NOT_LONGEST_DEFENCE: {
    assert_true(v != BRUTE_NONE && v > r);
    Position q = *before;
    Undo u;
    pos_do_move(&q, alt, &u);
    assert_true(brute_empty_end(b, &q, att, v) == (c->kind == FLAW_NOT_LONGEST_DEFENCE));
    break;
  }
  default: fail_msg("%s: kind %s at a defender ply", c->name, check_flaw_name(c->kind));
  }
  return v + 1;
}

/* Replays a reported alternative line from before ply `ply`: legal, every
 * attacker move a check, ending in mate after alt_length plies. */
static void assert_alt_line(Brute *b, const Problem *p, const CheckFlaw *f) {
  if (f->alt_length < 0 || f->alt_length > CHECK_ALT_LINE_MAX) return;
  assert_int_equal(f->alt_line_len, f->alt_length);
  assert_int_equal(move_compact(f->alt_line[0]), move_compact(f->alt));
  Position q = p->at[f->ply - 1];
  for (int i = 0; i < f->alt_line_len; i++) {
    assert_true(pos_move_is_legal(&q, f->alt_line[i]));
    if (q.side == p->pos.side) assert_true(pos_gives_check(&q, f->alt_line[i]));
    Undo u;
    pos_do_move(&q, f->alt_line[i], &u);
  }
  assert_true(brute_within(b, &q, 0));
  assert_true(f->alt_komaamari == !hand_empty(q.hand[p->pos.side]));
}

/*
 * Every report against the brute force as a whole (lines that are not bad):
 * attacker plies - each other check mating within the plies left is listed
 * with its length, and nothing else is; defender plies - each other defence
 * that escapes or lasts longer is listed, and a defence as long is listed
 * (HENDOU) except at the second-last ply, where it may be left out.
 */
static void cross_check(Brute *b, const Case *c, const Problem *p, const CheckReport *r) {
  int n = p->n;
  for (int i = 0; i < r->nflaws; i++) {
    const CheckFlaw *f = &r->flaws[i];
    assert_true(f->ply >= 1 && f->ply <= n);
    if (f->alt == MOVE_NONE) continue;
    assert_true(f->ply <= n);
    assert_int_equal(move_compact(f->move), move_compact(p->line[f->ply - 1]));
    assert_true(pos_move_is_legal(&p->at[f->ply - 1], f->alt));
    assert_alt_line(b, p, f);
  }
  for (int i = 0; i < n; i++) {
    const Position *q = &p->at[i];
    int rem = n - i;
    MoveList l;
    if (i % 2 == 0)
      movegen_checks(q, &l);
    else
      brute_replies(b, q, rem, &l);
    for (int k = 0; k < l.size; k++) {
      Move m = l.moves[k];
      if (move_compact(m) == move_compact(p->line[i])) continue;
      const CheckFlaw *f = find_flaw(r, NO_FLAW, i + 1, m);
      char mv[8];
      usi_move_write(m, mv);
      if (i % 2 == 0) {
        /* the last move: another mate in one only; before it: a mate at any length */
        int horizon = i == n - 1 ? 0 : rem - 1 + BRUTE_LONGER;
        int v = brute_value_after(b, q, m, horizon);
        if (v == BRUTE_NONE) {
          /* beyond the brute force's horizon a listed one is checked by its line (assert_alt_line) */
          if (f && (i == n - 1 || f->alt_length <= horizon + 1))
            fail_msg("%s: ply %d: %s listed, but it does not mate within %d", c->name, i + 1, mv, horizon + 1);
          continue;
        }
        if (!f) fail_msg("%s: ply %d: %s mates in %d, not listed", c->name, i + 1, mv, v + 1);
        assert_int_equal(f->alt_length, v + 1);
        if (i == n - 1) assert_int_equal(f->kind, FLAW_LAST_MOVE_ALT);
        if (v + 1 < rem) assert_true(f->kind == FLAW_HAYAZUME || f->kind == FLAW_HIGENTEI);
        if (v + 1 > rem) assert_true(f->kind == FLAW_YOZUME || f->kind == FLAW_UKAI);
      } else {
        int r2 = n - i - 1;
        int v = brute_value_after(b, q, m, r2 + BRUTE_EXTRA);
        if (v != BRUTE_NONE && v < r2) {
          if (f) fail_msg("%s: ply %d: %s listed, but it is shorter (%d < %d)", c->name, i + 1, mv, v, r2);
          continue;
        }
        if (v == r2 && i == n - 2) continue; /* 変同 at the second-last ply: ignored */
        if (v == r2 && hand_empty(p->at[n].hand[p->pos.side])) {
          /* as long but ending with 駒余り while the line's hand ends empty: a worse
           * defence, not 変同 (rules.md); it may be left out */
          Position d = *q;
          Undo u;
          pos_do_move(&d, m, &u);
          if (!brute_empty_end(b, &d, p->pos.side, v) && !f) continue;
        }
        if (!f) fail_msg("%s: ply %d: defence %s (%d against %d) not listed", c->name, i + 1, mv, v, r2);
        if (v == BRUTE_NONE)
          assert_true(f->kind == FLAW_NOMATE || f->kind == FLAW_HENCHOU || f->kind == FLAW_NOT_LONGEST_DEFENCE);
        else if (v == r2)
          assert_true(f->kind == FLAW_HENDOU || f->kind == FLAW_NOT_LONGEST_DEFENCE);
        else
          assert_true(f->kind == FLAW_HENCHOU || f->kind == FLAW_NOT_LONGEST_DEFENCE);
      }
    }
  }
}

static Checker *checker_new(void (*edit)(CheckOptions *)) {
  CheckOptions o;
  check_options_default(&o);
  o.hash_mb = 16;
  if (edit) edit(&o);
  Checker *k = check_create(&o);
  assert_non_null(k);
  return k;
}

/* ------------------------------------------------------------ the cases */

static void run_case(const Case *c) {
  Problem p;
  problem_load(c, &p);
  Brute *b = brute_create(p.pos.side, true);
  assert_non_null(b);
  int expect_len = establish(b, c, &p);
  Checker *k = checker_new(NULL);
  CheckReport r;
  check_report_init(&r);
  assert_int_equal(check_problem(k, &p.pos, p.line, p.n, &r), TS_OK);
  print_report(c->name, &r);
  assert_int_equal(r.verdict, c->verdict);
  assert_int_equal(r.line_length, p.n);
  assert_true(r.line_given);
  assert_int_equal(r.unproven, 0);
  if (c->kind == NO_FLAW) {
    for (int i = 0; i < r.nflaws; i++) assert_true(r.flaws[i].tolerated);
    assert_true(check_is_complete(&r));
  } else {
    Move alt = c->alt ? parse_at(&p, c->ply, c->alt) : MOVE_NONE;
    const CheckFlaw *f = find_flaw(&r, c->kind, c->ply, alt);
    if (!f) fail_msg("%s: no %s at ply %d (alt %s)", c->name, check_flaw_name(c->kind), c->ply, c->alt ? c->alt : "-");
    assert_true(f->tolerated == c->tolerated);
    assert_true(check_kind_tolerated(check_options(k), c->kind) == c->tolerated);
    if (c->alt) assert_int_equal(f->alt_length, expect_len);
    if (c->kind == FLAW_HENCHOU) assert_true(f->alt_komaamari);
    if (c->kind == FLAW_NOT_LONGEST_DEFENCE) assert_false(f->alt_komaamari);
  }
  /* the problem's own mate length against the brute force */
  int len = brute_value(b, &p.pos, p.n + BRUTE_EXTRA);
  if (len != BRUTE_NONE && r.length_exact) assert_int_equal(r.length, len);
  cross_check(b, c, &p, &r);
  check_report_free(&r);
  check_free(k);
  brute_free(b);
}

/* The facts of every case by brute force alone (independent of the checker). */
static void test_brute_facts(void **state) {
  (void)state;
  for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++) {
    Problem p;
    problem_load(&CASES[i], &p);
    Brute *b = brute_create(p.pos.side, true);
    assert_non_null(b);
    establish(b, &CASES[i], &p);
    brute_free(b);
  }
}

static void test_cases(void **state) {
  (void)state;
  for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++) run_case(&CASES[i]);
}

/* On the last move another check that mates only at a longer length is no
 * flaw (the seeds exempt the last move): the brute force finds such checks at
 * the last ply of some complete cases, and their reports do not list them. */
static void test_last_move_longer(void **state) {
  (void)state;
  int seen = 0;
  for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++) {
    const Case *c = &CASES[i];
    if (c->verdict != CHECK_COMPLETE) continue;
    Problem p;
    problem_load(c, &p);
    Brute *b = brute_create(p.pos.side, true);
    assert_non_null(b);
    Checker *k = checker_new(NULL);
    CheckReport r;
    check_report_init(&r);
    assert_int_equal(check_problem(k, &p.pos, p.line, p.n, &r), TS_OK);
    assert_int_equal(r.verdict, CHECK_COMPLETE);
    const Position *last = &p.at[p.n - 1];
    MoveList l;
    movegen_checks(last, &l);
    for (int j = 0; j < l.size; j++) {
      if (move_compact(l.moves[j]) == move_compact(p.line[p.n - 1])) continue;
      int v = brute_value_after(b, last, l.moves[j], BRUTE_LONGER);
      if (v == BRUTE_NONE || v == 0) continue;
      seen++;
      assert_null(find_flaw(&r, NO_FLAW, p.n, l.moves[j]));
    }
    check_report_free(&r);
    check_free(k);
    brute_free(b);
  }
  fprintf(stderr, "last-move checks mating longer, not listed: %d\n", seen);
  assert_true(seen > 0);
}

/* Every flaw kind of check.h is covered by a case here or by a bad-line test below. */
static void test_every_kind_covered(void **state) {
  (void)state;
  bool seen[FLAW_KIND_NB] = {false};
  for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++)
    if (CASES[i].kind != NO_FLAW) seen[CASES[i].kind] = true;
  seen[FLAW_ILLEGAL] = seen[FLAW_NOT_CHECK] = seen[FLAW_NOT_MATE] = true; /* test_bad_lines */
  for (int k = 0; k < FLAW_KIND_NB; k++) {
    if (!seen[k]) fail_msg("no case for %s", check_flaw_name((FlawKind)k));
    assert_non_null(check_flaw_name((FlawKind)k));
    assert_non_null(check_flaw_name_ja((FlawKind)k));
  }
  /* names as the enumerator spells its flags */
  assert_string_equal(check_flaw_name(FLAW_YOZUME), "yozume");
  assert_string_equal(check_flaw_name(FLAW_LAST_MOVE_ALT), "last-move-alt");
  assert_string_equal(check_flaw_name(FLAW_TEJUN_ZENGO), "tejun-zengo");
  assert_string_equal(check_flaw_name(FLAW_NOT_LONGEST_DEFENCE), "not-longest-defence");
  assert_string_equal(check_verdict_name(CHECK_BAD_LINE), "bad-line");
  assert_string_equal(check_verdict_name(CHECK_COMPLETE), "complete");
}

/* ------------------------------------------------------------ bad lines */

static void expect_bad(Checker *k, const Problem *p, const Move *line, int n, FlawKind kind, int ply) {
  CheckReport r;
  check_report_init(&r);
  assert_int_equal(check_problem(k, &p->pos, line, n, &r), TS_OK);
  print_report(check_flaw_name(kind), &r);
  assert_int_equal(r.verdict, CHECK_BAD_LINE);
  assert_true(r.message[0] != 0);
  const CheckFlaw *f = find_flaw(&r, kind, ply, MOVE_NONE);
  if (!f) fail_msg("no %s at ply %d", check_flaw_name(kind), ply);
  assert_false(f->tolerated);
  assert_false(check_is_complete(&r));
  check_report_free(&r);
}

static void test_bad_lines(void **state) {
  (void)state;
  const Case *c = &CASES[0]; /* complete-5: G*1h 1i2i 1h2h 2i1i 1g1h */
  Problem p;
  problem_load(c, &p);
  Brute *b = brute_create(p.pos.side, true);
  Checker *k = checker_new(NULL);
  Move line[8];

  /* ILLEGAL at ply 3: a gold moved from an empty square */
  memcpy(line, p.line, sizeof(Move) * 5);
  line[2] = move_make(sq_make(5, 5), sq_make(5, 4), false, piece_make(BLACK, GOLD));
  assert_false(pos_move_is_legal(&p.at[2], line[2]));
  expect_bad(k, &p, line, 5, FLAW_ILLEGAL, 3);
  /* ILLEGAL at ply 2: the defender's king onto an attacked square */
  line[1] = move_make(sq_make(1, 9), sq_make(1, 8), false, piece_make(WHITE, KING));
  assert_false(pos_move_is_legal(&p.at[1], line[1]));
  expect_bad(k, &p, line, 2, FLAW_ILLEGAL, 2);

  /* NOT_CHECK at ply 1: a legal attacker move that gives no check */
  MoveList l;
  movegen_legal(&p.pos, &l);
  Move quiet = MOVE_NONE;
  for (int i = 0; i < l.size && quiet == MOVE_NONE; i++)
    if (!pos_gives_check(&p.pos, l.moves[i])) quiet = l.moves[i];
  assert_int_not_equal(quiet, MOVE_NONE);
  expect_bad(k, &p, &quiet, 1, FLAW_NOT_CHECK, 1);

  /* NOT_MATE: the line stops after 3 plies, the king not mated (at the last ply) */
  assert_false(brute_within(b, &p.at[3], 0));
  expect_bad(k, &p, p.line, 3, FLAW_NOT_MATE, 3);
  /* NOT_MATE: the last move replaced by a check that does not mate */
  movegen_checks(&p.at[4], &l);
  Move nonmate = MOVE_NONE;
  for (int i = 0; i < l.size && nonmate == MOVE_NONE; i++)
    if (brute_value_after(b, &p.at[4], l.moves[i], 0) == BRUTE_NONE) nonmate = l.moves[i];
  assert_int_not_equal(nonmate, MOVE_NONE);
  memcpy(line, p.line, sizeof(Move) * 5);
  line[4] = nonmate;
  expect_bad(k, &p, line, 5, FLAW_NOT_MATE, 5);

  check_free(k);
  brute_free(b);
}

/* ------------------------------------------------------------ options */

static void opt_strict(CheckOptions *o) { o->strict = true; }
static void opt_strict_last(CheckOptions *o) { o->strict_last_move = true; }
static void opt_first_flaw(CheckOptions *o) { o->first_flaw = true; }
static void opt_max_alts(CheckOptions *o) { o->max_alts = 1; }

static const Case *case_named(const char *name) {
  for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++)
    if (!strcmp(CASES[i].name, name)) return &CASES[i];
  fail_msg("no case %s", name);
  return NULL;
}

static CheckVerdict verdict_with(const char *name, void (*edit)(CheckOptions *), CheckReport *out) {
  Problem p;
  problem_load(case_named(name), &p);
  Checker *k = checker_new(edit);
  check_report_init(out);
  assert_int_equal(check_problem(k, &p.pos, p.line, p.n, out), TS_OK);
  check_free(k);
  return out->verdict;
}

static void test_options(void **state) {
  (void)state;
  CheckReport r;
  /* --strict: 非限定, 手順前後, 迂回 become flaws; 変同 stays tolerated */
  const char *strict_kinds[] = {"higentei", "tejun-zengo", "ukai"};
  for (size_t i = 0; i < 3; i++) {
    assert_int_equal(verdict_with(strict_kinds[i], opt_strict, &r), CHECK_FLAWED);
    check_report_free(&r);
  }
  assert_int_equal(verdict_with("hendou", opt_strict, &r), CHECK_COMPLETE);
  check_report_free(&r);
  /* --strict-last-move: 最終手余詰 becomes a flaw */
  assert_int_equal(verdict_with("last-move-alt", opt_strict_last, &r), CHECK_FLAWED);
  check_report_free(&r);
  assert_int_equal(verdict_with("last-move-alt", opt_strict, &r), CHECK_COMPLETE);
  check_report_free(&r);
  /* --max-alts 1: one flaw kept, the others counted as dropped */
  verdict_with("henchou", opt_max_alts, &r);
  assert_int_equal(r.nflaws, 1);
  assert_true(r.flaws_dropped > 0);
  assert_int_equal(r.verdict, CHECK_FLAWED);
  check_report_free(&r);
  /* first_flaw: the verdict is the same, with fewer or as many flaws */
  verdict_with("ukai", NULL, &r);
  int all = r.nflaws;
  check_report_free(&r);
  assert_int_equal(verdict_with("yozume", opt_first_flaw, &r), CHECK_FLAWED);
  assert_true(r.nflaws >= 1);
  check_report_free(&r);
  assert_true(all >= 1);
  /* the tolerated kinds under the defaults */
  CheckOptions o;
  check_options_default(&o);
  assert_true(check_kind_tolerated(&o, FLAW_HIGENTEI));
  assert_true(check_kind_tolerated(&o, FLAW_LAST_MOVE_ALT));
  assert_false(check_kind_tolerated(&o, FLAW_YOZUME));
  assert_false(check_kind_tolerated(&o, FLAW_HAYAZUME));
  assert_false(check_kind_tolerated(&o, FLAW_KOMAAMARI));
  o.strict = true;
  assert_false(check_kind_tolerated(&o, FLAW_UKAI));
  assert_true(check_kind_tolerated(&o, FLAW_LAST_MOVE_ALT));
}

/* No line given: the checker finds the main line and checks it. */
static void test_no_line(void **state) {
  (void)state;
  Brute *b = brute_create(BLACK, true);
  for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++) {
    const Case *c = &CASES[i];
    Position pos;
    TsError err;
    assert_int_equal(sfen_parse(c->sfen, &pos, c->name, &err), TS_OK);
    int v = brute_value(b, &pos, 11);
    Checker *k = checker_new(NULL);
    CheckReport r;
    check_report_init(&r);
    assert_int_equal(check_problem(k, &pos, NULL, 0, &r), TS_OK);
    assert_false(r.line_given);
    if (v == BRUTE_NONE) {
      assert_int_equal(r.verdict, CHECK_NOMATE);
    } else {
      assert_int_equal(r.length, v);
      assert_int_equal(r.line_length, v);
      assert_true(r.verdict != CHECK_BAD_LINE && r.verdict != CHECK_NOMATE);
      assert_true(solver_line_verify(&pos, r.line, r.line_length, true, NULL));
      if (!strcmp(c->name, "yozume")) assert_int_equal(r.verdict, CHECK_FLAWED);
      if (!strncmp(c->name, "complete", 8)) assert_int_equal(r.verdict, CHECK_COMPLETE);
    }
    check_report_free(&r);
    check_free(k);
  }
  /* no mate at all: a lone gold far from the king */
  Position pos;
  TsError err;
  assert_int_equal(sfen_parse("8k/9/9/9/9/9/9/9/G8 b 2r2b3g4s4n4l18p 1", &pos, "nomate", &err), TS_OK);
  assert_int_equal(brute_value(b, &pos, 7), BRUTE_NONE);
  Checker *k = checker_new(NULL);
  CheckReport r;
  check_report_init(&r);
  assert_int_equal(check_problem(k, &pos, NULL, 0, &r), TS_OK);
  assert_int_equal(r.verdict, CHECK_NOMATE);
  assert_int_equal(r.length, -1);
  /* a position that is not a problem */
  Position bad;
  assert_int_equal(sfen_parse("9/9/9/9/9/9/9/9/G8 b 2r2b3g4s4n4l18p 1", &bad, "noking", &err), TS_OK);
  assert_int_equal(check_problem(k, &bad, NULL, 0, &r), TS_ERR_ILLEGAL);
  check_report_free(&r);
  check_free(k);
  brute_free(b);
}

/* A report is reused: a second check on the same report fills it afresh. */
static void test_report_reuse(void **state) {
  (void)state;
  Problem p;
  problem_load(case_named("henchou"), &p);
  Problem q;
  problem_load(case_named("complete-3"), &q);
  Checker *k = checker_new(NULL);
  CheckReport r;
  check_report_init(&r);
  assert_int_equal(check_problem(k, &p.pos, p.line, p.n, &r), TS_OK);
  assert_int_equal(r.verdict, CHECK_FLAWED);
  assert_int_equal(check_problem(k, &q.pos, q.line, q.n, &r), TS_OK);
  assert_int_equal(r.verdict, CHECK_COMPLETE);
  assert_int_equal(r.line_length, 3);
  for (int i = 0; i < r.nflaws; i++) assert_true(r.flaws[i].tolerated);
  check_report_free(&r);
  check_free(k);
}

/* The brute force itself on known facts (so that its answers can be trusted above). */
static void test_brute(void **state) {
  (void)state;
  Brute *b = brute_create(BLACK, true);
  Position pos;
  TsError err;
  /* G2P1: mate in 3 / 5 per the enumerator */
  assert_int_equal(sfen_parse("9/8k/8g/7GP/9/9/9/9/9 b 2r2b2g4s4n4l17p 1", &pos, "t", &err), TS_OK);
  assert_int_equal(brute_value(b, &pos, 9), 3);
  assert_int_equal(sfen_parse("9/9/9/9/9/9/8G/6+P2/8k b G2r2b2g4s4n4l17p 1", &pos, "t", &err), TS_OK);
  assert_int_equal(brute_value(b, &pos, 9), 5);
  Move line[8];
  assert_int_equal(brute_line(b, &pos, 5, line, 8), 5);
  assert_true(solver_line_verify(&pos, line, 5, true, NULL));
  /* 無駄合: 5i1i checks from afar, every drop between is futile: mate in 1 with the rule */
  assert_int_equal(sfen_parse("7lk/7p1/9/7N1/9/9/9/9/4R4 b r2b4g4s3n3l17p 1", &pos, "t", &err), TS_OK);
  assert_int_equal(brute_value(b, &pos, 7), 1);
  brute_reset(b, BLACK, false);
  /* without the rule: seven pawn drops, each taken, then mate (the solver's 15) */
  assert_int_equal(brute_value(b, &pos, 15), 15);
  brute_free(b);
}

int main(void) {
  core_init();
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_brute),        cmocka_unit_test(test_every_kind_covered),
      cmocka_unit_test(test_brute_facts),  cmocka_unit_test(test_cases),        cmocka_unit_test(test_bad_lines),
      cmocka_unit_test(test_options),      cmocka_unit_test(test_no_line),
      cmocka_unit_test(test_report_reuse), cmocka_unit_test(test_last_move_longer),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
