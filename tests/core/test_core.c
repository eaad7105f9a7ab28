/*
 * test_core.c - the rules: perft against published counts and invariants
 * over every position reached in small perfts and every public SFEN.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/testdata.h"
#include "encode.h"
#include "movegen.h"
#include "retro.h"
#include "sfen.h"

#define INITIAL "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1"
#define MATSURI "l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w GR5pnsg 1"
#define MAXMOVES "R8/2K1S1SSk/4B4/9/9/9/9/9/1L1L1L3 b RBGSNLP3g3n17p 1"
#define UCHIFU "7lk/9/8S/9/9/9/9/7L1/8K b P 1"
#define KNIGHTPRO "7k1/9/9/9/l2s5/6snb/9/9/8K b 2G 1"

static void load(const char *sfen, Position *pos) {
  TsError err;
  int rc = sfen_parse(sfen, pos, "<test>", &err);
  if (rc) fail_msg("%s: %s", sfen, err.msg);
}

static void check_perft(const char *sfen, const uint64_t *expect, int n) {
  Position pos;
  load(sfen, &pos);
  for (int d = 1; d <= n; d++) {
    assert_int_equal(perft(&pos, d, true), expect[d - 1]);
    if (expect[d - 1] < 1000000) assert_int_equal(perft(&pos, d, false), expect[d - 1]);
  }
  assert_true(pos_is_ok(&pos));
}

static void test_perft_initial(void **s) {
  (void)s;
  const uint64_t e[] = {30, 900, 25470, 719731, 19861490};
  check_perft(INITIAL, e, 5);
}
static void test_perft_matsuri(void **s) {
  (void)s;
  const uint64_t e[] = {207, 28684, 4809015};
  check_perft(MATSURI, e, 3);
}
static void test_perft_maxmoves(void **s) {
  (void)s;
  const uint64_t e[] = {593, 105677};
  check_perft(MAXMOVES, e, 2);
}
static void test_perft_uchifuzume(void **s) {
  (void)s;
  const uint64_t e[] = {85, 639, 10786, 167089};
  check_perft(UCHIFU, e, 4);
}
static void test_perft_knight_promotion(void **s) {
  (void)s;
  const uint64_t e[] = {76, 2606, 201658};
  check_perft(KNIGHTPRO, e, 3);
}

/* Invariants at one position; returns the number of legal moves. */
static int check_invariants(Position *pos) {
  MoveList legal, checks, ev;
  movegen_legal(pos, &legal);
  movegen_checks(pos, &checks);
  /* checks = legal moves after which the opponent is in check */
  int nchecks = 0;
  uint64_t key = pos_key(pos);
  for (int i = 0; i < legal.size; i++) {
    Move m = legal.moves[i];
    Position before = *pos;
    Undo u;
    bool gc = pos_gives_check(pos, m);
    Position placed = *pos;
    Piece cap;
    pos_place_move(&placed, m, &cap);
    /* the attacks of the mover around both kings' squares, asked before the move */
    Bitboard near_before[COLOR_NB], occ_after = pos_occupied(&placed);
    for (int c = 0; c < COLOR_NB; c++) {
      Square q = pos->king[c] != SQ_NONE ? pos->king[c] : move_to(m);
      Bitboard ring = STEP_ATTACKS[BLACK][KING][q];
      near_before[c] = pos_attacks_near_after(pos, m, q, ring, occ_after & ~BB_SQ[q]);
    }
    pos_do_move(pos, m, &u);
    assert_true(pos_is_ok(pos));
    for (int c = 0; c < COLOR_NB; c++) {
      Square q = before.king[c] != SQ_NONE ? before.king[c] : move_to(m);
      Bitboard ring = STEP_ATTACKS[BLACK][KING][q];
      assert_true(near_before[c] == pos_attacks_near(pos, color_flip(pos->side), q, ring, occ_after & ~BB_SQ[q]));
    }
    /* the board-only move leaves the board of the real one */
    assert_memory_equal(placed.board, pos->board, sizeof pos->board);
    assert_memory_equal(placed.by_color, pos->by_color, sizeof pos->by_color);
    assert_memory_equal(placed.by_type, pos->by_type, sizeof pos->by_type);
    assert_memory_equal(placed.king, pos->king, sizeof pos->king);
    pos_unplace_move(&placed, m, cap);
    assert_memory_equal(placed.board, before.board, sizeof before.board);
    assert_memory_equal(placed.by_color, before.by_color, sizeof before.by_color);
    assert_memory_equal(placed.by_type, before.by_type, sizeof before.by_type);
    assert_memory_equal(placed.king, before.king, sizeof before.king);
    bool in_check = pos_in_check(pos);
    assert_int_equal(gc, in_check);
    /* the mover's own king is never left in check */
    assert_true(pos_checkers_of(pos, color_flip(pos->side)) == 0);
    pos_undo_move(pos, m, &u);
    assert_true(pos_equal(pos, &before));
    assert_true(pos_key(pos) == key);
    assert_true(pos->checkers == before.checkers);
    if (in_check) {
      nchecks++;
      bool found = false;
      for (int j = 0; j < checks.size; j++) found |= checks.moves[j] == m;
      assert_true(found);
    }
    if (i < 3) assert_true(pos_move_is_legal(pos, m));
  }
  assert_int_equal(nchecks, checks.size);
  /* and in the order of the legal moves */
  for (int i = 0, j = 0; j < checks.size; i++) {
    assert_true(i < legal.size);
    if (legal.moves[i] == checks.moves[j]) j++;
  }
  if (pos_in_check(pos) && pos->king[pos->side] != SQ_NONE) {
    movegen_evasions(pos, &ev);
    assert_int_equal(ev.size, legal.size);
  }
  /* attack maps agree with the square-by-square tests, also with the king lifted off */
  for (int c = 0; c < COLOR_NB; c++)
    for (int lift = 0; lift < 2; lift++) {
      Bitboard occ = pos_occupied(pos);
      Square k = pos->king[pos->side];
      if (lift && k != SQ_NONE) occ &= ~BB_SQ[k];
      Bitboard want = 0;
      for (Square q = 0; q < SQ_NB; q++) {
        bool att = pos_attackers_to(pos, q, (Color)c, occ) != 0;
        assert_int_equal(pos_attacked(pos, q, (Color)c, occ), att);
        if (att) want |= BB_SQ[q];
      }
      for (Square q = 0; q < SQ_NB; q++) {
        Bitboard ring = STEP_ATTACKS[BLACK][KING][q];
        assert_true(pos_attacks_near(pos, (Color)c, q, ring, occ) == (want & ring));
      }
    }
  /* text and key round trips */
  char sfen[SFEN_MAX];
  sfen_write(pos, sfen, sizeof sfen);
  Position back;
  TsError err;
  /* positions inside a perft may be unreachable as problems (e.g. 40+ pieces never
     happen); pos_validate must still accept them since they came from legal play */
  int rc = sfen_parse(sfen, &back, "<rt>", &err);
  if (rc) fail_msg("%s: %s", sfen, err.msg);
  assert_true(pos_equal(pos, &back));
  Position m1, m2;
  pos_mirror(pos, &m1);
  pos_mirror(&m1, &m2);
  assert_true(pos_equal(pos, &m2));
  assert_true(pos_is_ok(&m1));
  uint8_t code[POS_CODE_MAX], code2[POS_CODE_MAX];
  size_t n = pos_encode(pos, code);
  Position dec;
  assert_int_equal(pos_decode(code, n, &dec, &err), TS_OK);
  assert_true(pos_equal(pos, &dec));
  bool mir;
  size_t cn = pos_canonical(pos, code, &mir);
  size_t cn2 = pos_canonical(&m1, code2, NULL);
  assert_int_equal(cn, cn2);
  assert_memory_equal(code, code2, cn);
  assert_int_equal(pos_decode(code, cn, &dec, &err), TS_OK);
  if (mir) pos_mirror(&dec, &dec);
  assert_true(pos_equal(pos, &dec));
  /* the mirror has the same number of legal moves */
  MoveList ml;
  movegen_legal(&m1, &ml);
  assert_int_equal(ml.size, legal.size);
  return legal.size;
}

static long walk(Position *pos, int depth) {
  long n = 1;
  check_invariants(pos);
  if (depth == 0) return n;
  MoveList l;
  movegen_legal(pos, &l);
  for (int i = 0; i < l.size; i++) {
    Undo u;
    pos_do_move(pos, l.moves[i], &u);
    n += walk(pos, depth - 1);
    pos_undo_move(pos, l.moves[i], &u);
  }
  return n;
}

static void test_invariants_perft_trees(void **s) {
  (void)s;
  const char *sf[] = {INITIAL, MATSURI, MAXMOVES, UCHIFU, KNIGHTPRO};
  const int depth[] = {2, 1, 1, 3, 2};
  long total = 0;
  for (int i = 0; i < 5; i++) {
    Position pos;
    load(sf[i], &pos);
    total += walk(&pos, depth[i]);
  }
  print_message("invariants checked at %ld positions\n", total);
  assert_true(total > 15000);
}

static void test_invariants_public_sfens(void **s) {
  (void)s;
  char(*sfens)[256];
  int n = testdata_load_all_sfens(&sfens);
  assert_true(n > 2500);
  long total = 0;
  int nifu = 0;
  for (int i = 0; i < n; i++) {
    Position pos;
    TsError err;
    int rc = sfen_parse(sfens[i], &pos, "<public>", &err);
    if (rc == TS_ERR_ILLEGAL && strstr(err.msg, "二歩")) {
      nifu++; /* tanuki rows with two unpromoted pawns on a file: rejected, as the rules say */
      continue;
    }
    if (rc) fail_msg("%s: %s", sfens[i], err.msg);
    total += walk(&pos, 0);
  }
  print_message("invariants checked at %ld positions from %d public SFENs (%d rejected for 二歩)\n", total, n, nifu);
  assert_int_equal(nifu, 174);
  free(sfens);
}

static void test_solution_lines_replay(void **s) {
  (void)s;
  /* every published solution is a legal line, every attacker move checks, it ends in mate */
  const char *files[] = {"tanuki_tsume_1979.tsv", "gts_tsume_120.tsv", "yaneuraou_jissen_120.tsv",
                         "long_problems_solutions.tsv"};
  int lines = 0;
  for (int f = 0; f < 4; f++) {
    TestRow *rows;
    int n = testdata_load(files[f], &rows);
    assert_true(n > 0);
    for (int i = 0; i < n; i++) {
      Position pos;
      TsError perr;
      int prc = sfen_parse(rows[i].sfen, &pos, rows[i].id, &perr);
      if (prc == TS_ERR_ILLEGAL && strstr(perr.msg, "二歩")) continue;
      if (prc) fail_msg("%s: %s", rows[i].id, perr.msg);
      static Move mv[2048];
      int k;
      TsError err;
      int rc = usi_line_parse(&pos, rows[i].solution, mv, 2048, &k, &err);
      if (rc) fail_msg("%s: %s", rows[i].id, err.msg);
      Color attacker = pos.side;
      for (int j = 0; j < k; j++) {
        Undo u;
        if (pos.side == attacker) assert_true(pos_gives_check(&pos, mv[j]));
        pos_do_move(&pos, mv[j], &u);
      }
      assert_true(pos_is_mate(&pos));
      lines++;
    }
    free(rows);
  }
  assert_true(lines > 2000);
}

/* un-moves are exactly consistent with forward moves */
static long check_retro(Position *pos) {
  MoveList l;
  movegen_legal(pos, &l);
  long n = 0;
  static UnMoveList ul;
  for (int i = 0; i < l.size; i++) {
    Move m = l.moves[i];
    Piece cap = pos->board[move_to(m)];
    Undo u;
    Position before = *pos;
    pos_do_move(pos, m, &u);
    retro_generate(pos, &ul);
    bool found = false;
    for (int j = 0; j < ul.size; j++) {
      Position prev, next;
      retro_apply(pos, &ul.u[j], &prev);
      assert_true(pos_is_ok(&prev));
      assert_true(pos_move_is_legal(&prev, ul.u[j].move));
      next = prev;
      Undo u2;
      pos_do_move(&next, ul.u[j].move, &u2);
      assert_true(pos_equal(&next, pos));
      if (move_compact(ul.u[j].move) == move_compact(m) && ul.u[j].captured == cap) {
        assert_true(pos_equal(&prev, &before));
        found = true;
      }
      n++;
    }
    /* the checked generation keeps exactly the predecessors with the mover in check */
    static UnMoveList ck;
    retro_generate_checked(pos, &ck, ~0u, BB_ALL);
    int in_check = 0, k = 0;
    for (int j = 0; j < ul.size; j++) {
      Position prev;
      retro_apply(pos, &ul.u[j], &prev);
      if (!prev.checkers) continue;
      in_check++;
      assert_true(k < ck.size);
      assert_int_equal(ck.u[k].move, ul.u[j].move);
      assert_int_equal(ck.u[k].captured, ul.u[j].captured);
      k++;
    }
    assert_int_equal(ck.size, in_check);
    if (!found) {
      char sf[SFEN_MAX], mv[8];
      sfen_write(&before, sf, sizeof sf);
      usi_move_write(m, mv);
      fail_msg("un-move of %s missing from %s", mv, sf);
    }
    pos_undo_move(pos, m, &u);
  }
  return n;
}

/* pos_add keeps the keys and checkers that pos_finish_setup would make */
static void test_pos_add(void **s) {
  (void)s;
  Position base;
  load("4k4/9/4G4/9/9/9/9/9/9 w 2N 1", &base);
  for (Square sq = 0; sq < SQ_NB; sq++) {
    if (base.board[sq]) continue;
    for (int c = 0; c < 2; c++) {
      Piece p = piece_make((Color)c, SILVER);
      Position a = base, b = base;
      pos_add(&a, sq, p);
      pos_put(&b, sq, p);
      pos_finish_setup(&b);
      assert_true(pos_equal(&a, &b));
      assert_true(a.board_key == b.board_key && a.hand_key == b.hand_key && a.checkers == b.checkers);
    }
  }
}

static void test_retro_consistency(void **s) {
  (void)s;
  const char *sf[] = {UCHIFU, KNIGHTPRO, "8k/9/9/9/9/9/9/9/9 b 2G2S2N2P 1", "7nk/9/6NGS/9/9/9/9/9/9 w N 1",
                      "4k4/9/4+P4/9/4N4/9/9/9/9 w 2G 1", "l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w GR5pnsg 1"};
  long n = 0;
  for (int i = 0; i < 6; i++) {
    Position pos;
    load(sf[i], &pos);
    if (i == 0) pos_give_remaining(&pos, WHITE);
    n += check_retro(&pos);
    MoveList l;
    movegen_legal(&pos, &l);
    for (int j = 0; j < l.size && j < (i == 5 ? 0 : 12); j++) {
      Undo u;
      pos_do_move(&pos, l.moves[j], &u);
      n += check_retro(&pos);
      pos_undo_move(&pos, l.moves[j], &u);
    }
  }
  print_message("%ld un-moves checked\n", n);
  assert_true(n > 1000);
}

static void expect_bad(const char *sfen, int code, int column) {
  Position pos;
  TsError err;
  int rc = sfen_parse(sfen, &pos, "<bad>", &err);
  if (rc != code) fail_msg("'%s': expected code %d, got %d (%s)", sfen, code, rc, err.msg);
  assert_true(err.msg[0] != 0);
  if (column) assert_int_equal(err.column, column);
}

static void test_sfen_bad_input(void **s) {
  (void)s;
  expect_bad("", TS_ERR_PARSE, 0);
  expect_bad("9/9/9/9/9/9/9/9 b - 1", TS_ERR_PARSE, 0);           /* 8 ranks */
  expect_bad("8k/9/9/9/9/9/9/9/9/9 b - 1", TS_ERR_PARSE, 0);      /* 10 ranks */
  expect_bad("8k/10/9/9/9/9/9/9/9 b - 1", TS_ERR_PARSE, 0);
  expect_bad("8x/9/9/9/9/9/9/9/9 b - 1", TS_ERR_PARSE, 2);        /* bad letter */
  expect_bad("7+gk/9/9/9/9/9/9/9/9 b - 1", TS_ERR_PARSE, 3);      /* +G */
  expect_bad("8k/9/9/9/9/9/9/9/9 x - 1", TS_ERR_PARSE, 0);
  expect_bad("8k/9/9/9/9/9/9/9/9 b 19P 1", TS_ERR_PARSE, 0);
  expect_bad("8k/9/9/9/9/9/9/9/9 b 3R 1", TS_ERR_PARSE, 0);
  expect_bad("8k/9/9/9/9/9/9/9/9 b K 1", TS_ERR_PARSE, 0);
  expect_bad("8k/9/9/9/9/9/9/9/9 b - 1 junk", TS_ERR_PARSE, 0);
  expect_bad("8k/9/9/9/9/9/9/9/9 b", TS_ERR_PARSE, 0);
  /* illegal positions */
  expect_bad("8k/9/9/9/9/9/P8/P8/9 b - 1", TS_ERR_ILLEGAL, 0);    /* 二歩 */
  expect_bad("P7k/9/9/9/9/9/9/9/9 b - 1", TS_ERR_ILLEGAL, 0);     /* pawn on rank 1 */
  expect_bad("8k/N8/9/9/9/9/9/9/9 b - 1", TS_ERR_ILLEGAL, 0);     /* knight on rank 2 */
  expect_bad("8k/9/9/9/9/9/9/9/l8 b - 1", TS_ERR_ILLEGAL, 0);     /* gote lance on rank 9 */
  expect_bad("8k/8G/9/9/9/9/9/9/9 b - 1", TS_ERR_ILLEGAL, 0);     /* side not to move in check */
  expect_bad("7kk/9/9/9/9/9/9/9/9 b - 1", TS_ERR_ILLEGAL, 0);     /* two gote kings */
  expect_bad("8k/9/9/9/9/9/9/9/9 b 5G 1", TS_ERR_PARSE, 0);       /* five golds in hand */
  expect_bad("8k/9/9/9/9/9/9/9/GGG6 b 2G 1", TS_ERR_ILLEGAL, 0);  /* five golds in all */
  /* 41 pieces: a full set plus one pawn */
  expect_bad("lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b P 1", TS_ERR_ILLEGAL, 0);
}

static void test_usi_moves(void **s) {
  (void)s;
  Position pos;
  load("8k/7P1/6+B2/9/9/9/9/9/9 b G2rb3g4s4n4l17p 1", &pos);
  Move m;
  TsError err;
  assert_int_equal(usi_move_parse(&pos, "2b2a+", &m, &err), TS_OK);
  assert_true(move_is_promote(m));
  char out[8];
  usi_move_write(m, out);
  assert_string_equal(out, "2b2a+");
  assert_int_equal(usi_move_parse(&pos, "G*2a", &m, &err), TS_OK);
  usi_move_write(m, out);
  assert_string_equal(out, "G*2a");
  assert_int_equal(usi_move_parse(&pos, "2b2c", &m, &err), TS_ERR_ILLEGAL);
  assert_int_equal(usi_move_parse(&pos, "R*5e", &m, &err), TS_ERR_ILLEGAL); /* no rook in hand */
  assert_int_equal(usi_move_parse(&pos, "zz", &m, &err), TS_ERR_PARSE);
  assert_int_equal(usi_move_parse(&pos, "2b2a=", &m, &err), TS_ERR_PARSE);
  /* mirror of moves */
  assert_int_equal(usi_move_parse(&pos, "2b2a+", &m, &err), TS_OK);
  usi_move_write(move_mirror(m), out);
  assert_string_equal(out, "8b8a+");
}

static void test_uchifuzume_and_nonpromotion(void **s) {
  (void)s;
  Position pos;
  Move m;
  TsError err;
  /* pawn drop mate is illegal; the same drop that checks without mating is legal */
  load("kl7/9/1S7/9/9/9/9/9/9 b P2rb4g3s4n3l17p 1", &pos);
  assert_int_equal(usi_move_parse(&pos, "P*9b", &m, &err), TS_ERR_ILLEGAL);
  load("k8/9/1S7/9/9/9/9/9/9 b P2rb4g3s4n4l17p 1", &pos);
  assert_int_equal(usi_move_parse(&pos, "P*9b", &m, &err), TS_OK);
  /* a pushed pawn may mate */
  load("kl7/9/PS7/9/9/9/9/9/9 b 2rb4g3s4n3l17p 1", &pos);
  assert_int_equal(usi_move_parse(&pos, "9c9b", &m, &err), TS_OK);
  /* non-promotion of a bishop into the zone is a legal move */
  load("8k/9/9/9/9/9/9/B8/9 b - 1", &pos);
  assert_int_equal(usi_move_parse(&pos, "9h3b", &m, &err), TS_OK);
  assert_int_equal(usi_move_parse(&pos, "9h3b+", &m, &err), TS_OK);
  /* a knight to rank 2 must promote */
  load("8k/9/9/N8/9/9/9/9/9 b - 1", &pos);
  assert_int_equal(usi_move_parse(&pos, "9d8b", &m, &err), TS_ERR_ILLEGAL);
  assert_int_equal(usi_move_parse(&pos, "9d8b+", &m, &err), TS_OK);
  /* 二歩 drop */
  load("8k/9/9/9/9/9/P8/9/9 b P 1", &pos);
  assert_int_equal(usi_move_parse(&pos, "P*9e", &m, &err), TS_ERR_ILLEGAL);
  assert_int_equal(usi_move_parse(&pos, "P*8e", &m, &err), TS_OK);
}

static void test_give_remaining(void **s) {
  (void)s;
  Position pos;
  load("8k/9/9/9/9/9/9/9/9 b 2G 1", &pos);
  pos_give_remaining(&pos, WHITE);
  char sfen[SFEN_MAX];
  sfen_write(&pos, sfen, sizeof sfen);
  assert_string_equal(sfen, "8k/9/9/9/9/9/9/9/9 b 2G2r2b2g4s4n4l18p 1");
  assert_true(pos_is_ok(&pos));
}

/* A problem needs the defender's king; a position without it is still a position. */
static void test_validate_problem(void **s) {
  (void)s;
  Position pos;
  TsError err;
  load("9/9/9/9/9/9/9/9/9 b G 1", &pos);
  assert_int_equal(pos_validate(&pos, "<p>", &err), TS_OK);
  assert_int_equal(pos_validate_problem(&pos, "<p>", &err), TS_ERR_ILLEGAL);
  assert_non_null(strstr(err.msg, "the defender (gote, the side not to move) has no king"));
  assert_string_equal(err.where, "<p>");
  load("9/9/9/9/9/9/9/9/4k4 w G 1", &pos); /* gote attacks: sente defends, without a king */
  assert_int_equal(pos_validate_problem(&pos, "<p>", &err), TS_ERR_ILLEGAL);
  assert_non_null(strstr(err.msg, "sente"));
  load("8k/9/9/9/9/9/9/9/9 b G 1", &pos);
  assert_int_equal(pos_validate_problem(&pos, "<p>", &err), TS_OK);
  load("4K4/9/9/9/9/9/9/9/9 w G 1", &pos);
  assert_int_equal(pos_validate_problem(&pos, NULL, NULL), TS_OK);
}

int main(void) {
  core_init();
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_perft_initial),
      cmocka_unit_test(test_perft_matsuri),
      cmocka_unit_test(test_perft_maxmoves),
      cmocka_unit_test(test_perft_uchifuzume),
      cmocka_unit_test(test_perft_knight_promotion),
      cmocka_unit_test(test_invariants_perft_trees),
      cmocka_unit_test(test_invariants_public_sfens),
      cmocka_unit_test(test_solution_lines_replay),
      cmocka_unit_test(test_sfen_bad_input),
      cmocka_unit_test(test_usi_moves),
      cmocka_unit_test(test_uchifuzume_and_nonpromotion),
      cmocka_unit_test(test_give_remaining),
      cmocka_unit_test(test_validate_problem),
      cmocka_unit_test(test_pos_add),
      cmocka_unit_test(test_retro_consistency),
  };
  return cmocka_run_group_tests_name("core", tests, NULL, NULL);
}
