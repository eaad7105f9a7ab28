/*
 * find_cases - prints the brute-force facts of problems, to pick the hand-built
 * cases of test_check.c: reads lines "SFEN|usi moves" on standard input and,
 * for each attacker ply of the line, lists the other checks that mate within
 * the plies left (with their length); for each defender ply, the other replies
 * and the attacker's shortest mate after them against the line's remaining.
 *   tsume query --db x.mdb --flag ukai --json | python3 -c '...' | find_cases [extra]
 * extra: plies searched beyond the line for defender alternatives (default 4).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "brute.h"
#include "movegen.h"
#include "sfen.h"

static void show(Brute *b, const Position *root, const Move *line, int n, int extra) {
  Position p = *root;
  printf("  value %d, line %d\n", brute_value(b, root, n + extra), n);
  for (int i = 0; i < n; i++) {
    int rem = n - i; /* plies from this one to the end, this one included */
    MoveList l;
    if (i % 2 == 0)
      movegen_checks(&p, &l);
    else
      brute_replies(b, &p, rem, &l);
    for (int k = 0; k < l.size; k++) {
      if (move_compact(l.moves[k]) == move_compact(line[i])) continue;
      char mv[8];
      usi_move_write(l.moves[k], mv);
      if (i % 2 == 0) {
        int v = brute_value_after(b, &p, l.moves[k], rem - 1);
        if (v != BRUTE_NONE) printf("  ply %d att alt %s length %d (rem %d)\n", i + 1, mv, v + 1, rem);
      } else {
        int v = brute_value_after(b, &p, l.moves[k], rem - 1 + extra);
        printf("  ply %d def alt %s v %d (r %d)\n", i + 1, mv, v, rem - 1);
      }
    }
    Undo u;
    pos_do_move(&p, line[i], &u);
  }
  printf("  end hand %d, mate %d\n", hand_total(p.hand[root->side]), brute_within(b, &p, 0));
}

static void print_line(const char *tag, const Move *m, int n, const char *tail) {
  printf("  %s:", tag);
  for (int i = 0; i < n; i++) {
    char mv[8];
    usi_move_write(m[i], mv);
    printf(" %s", mv);
  }
  printf("%s\n", tail);
}

static int end_hand(const Position *root, const Move *m, int n) {
  Position p = *root;
  for (int i = 0; i < n; i++) {
    Undo u;
    pos_do_move(&p, m[i], &u);
  }
  return hand_total(p.hand[root->side]);
}

/* Lines for the kinds a database does not flag: a longer line than the shortest
 * mate (hayazume), a check with one reply mated at once and one escaping
 * (nomate), a shorter defence than the main line's (not-longest / henchou). */
static void search(Brute *b, const Position *root, const Move *line, int n) {
  int V = brute_value(b, root, n);
  MoveList l;
  movegen_checks(root, &l);
  Move buf[64];
  for (int k = 0; k < l.size; k++) {
    Position c = *root;
    Undo u;
    pos_do_move(&c, l.moves[k], &u);
    int v = brute_value(b, &c, V + 3);
    if (v == V + 1 || v == V + 3) {
      buf[0] = l.moves[k];
      if (brute_line(b, &c, v, buf + 1, 60) == v) print_line("hayazume line", buf, v + 1, "");
    }
    MoveList r;
    brute_replies(b, &c, 9, &r);
    Move mated = MOVE_NONE, esc = MOVE_NONE;
    for (int j = 0; j < r.size; j++) {
      int w = brute_value_after(b, &c, r.moves[j], 9);
      if (w == 1 && mated == MOVE_NONE) mated = r.moves[j];
      if (w == BRUTE_NONE && esc == MOVE_NONE) esc = r.moves[j];
    }
    if (mated != MOVE_NONE && esc != MOVE_NONE) {
      buf[0] = l.moves[k], buf[1] = mated;
      Position d = c;
      pos_do_move(&d, mated, &u);
      if (brute_line(b, &d, 1, buf + 2, 60) == 1) {
        char e[8], tail[32];
        usi_move_write(esc, e);
        snprintf(tail, sizeof tail, "  (escape %s)", e);
        print_line("nomate line", buf, 3, tail);
      }
    }
  }
  /* shorter defences at the line's defender plies */
  Position p = *root;
  for (int i = 0; i < n; i++) {
    if (i % 2 == 1) {
      MoveList r;
      brute_replies(b, &p, n - i, &r);
      for (int j = 0; j < r.size; j++) {
        if (move_compact(r.moves[j]) == move_compact(line[i])) continue;
        int w = brute_value_after(b, &p, r.moves[j], n - i - 1);
        if (w == BRUTE_NONE || w >= n - i - 1) continue;
        Position d = p;
        Undo u;
        pos_do_move(&d, r.moves[j], &u);
        memcpy(buf, line, (size_t)i * sizeof *buf);
        buf[i] = r.moves[j];
        if (brute_line(b, &d, w, buf + i + 1, 60) != w) continue;
        char tail[48];
        snprintf(tail, sizeof tail, "  (shorter at ply %d, end hand %d)", i + 1, end_hand(root, buf, i + 1 + w));
        print_line("short line", buf, i + 1 + w, tail);
      }
    }
    Undo u;
    pos_do_move(&p, line[i], &u);
  }
}

int main(int argc, char **argv) {
  core_init();
  int extra = argc > 1 ? atoi(argv[1]) : 4;
  char buf[4096];
  Brute *b = brute_create(BLACK, true);
  while (fgets(buf, sizeof buf, stdin)) {
    buf[strcspn(buf, "\r\n")] = 0;
    char *bar = strchr(buf, '|');
    if (!bar) continue;
    *bar = 0;
    Position pos;
    TsError err;
    if (sfen_parse(buf, &pos, "<in>", &err)) continue;
    Move line[64];
    int n = 0;
    if (usi_line_parse(&pos, bar + 1, line, 64, &n, &err)) {
      printf("%s: bad line\n", buf);
      continue;
    }
    brute_reset(b, pos.side, true);
    printf("%s | %s\n", buf, bar + 1);
    show(b, &pos, line, n, extra);
    search(b, &pos, line, n);
  }
  brute_free(b);
  return 0;
}
