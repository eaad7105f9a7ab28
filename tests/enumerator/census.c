#include "census.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "encode.h"
#include "movegen.h"
#include "retro_enum.h"
#include "solver.h"

/* ---------- forward classification (values from the solver) ---------- */

typedef struct {
  Solver *s;
  Solver *first; /* the 無駄合 rule's first part alone: the lengths its second part compares */
} Fwd;

/* Attacker to move: exact mate length under s's rule, or -1 when the solver proves no mate. */
static int fwd_value_by(Solver *s, const Position *pos) {
  MoveList l;
  movegen_checks(pos, &l);
  if (l.size == 0) return -1;
  SolveResult r;
  if (solver_solve(s, pos, &r) != TS_OK) abort();
  if (r.status == SOLVE_NOMATE) return -1;
  if (r.status != SOLVE_MATE || !r.exact) {
    fprintf(stderr, "census: solver gave no exact answer\n");
    abort();
  }
  return r.length;
}

static int fwd_value_attacker(Fwd *f, const Position *pos) { return fwd_value_by(f->s, pos); }

static int fwd_value_defender(Fwd *f, const Position *pos);

/* A single distant ranging checker: the squares between it and the king, else 0. */
static Bitboard fwd_interpose_squares(const Position *pos) {
  if (!pos->checkers || bb_more_than_one(pos->checkers)) return 0;
  Square c = bb_lsb(pos->checkers);
  PieceType t = piece_type(pos->board[c]);
  if (t != LANCE && t != BISHOP && t != ROOK && t != HORSE && t != DRAGON) return 0;
  return BETWEEN[pos->king[pos->side]][c];
}

/* After the attacker's capture on sq (defender to move in h): can any defender
 * piece, the king included, take back on sq? */
static bool fwd_retaken(const Position *h, Square sq) {
  MoveList l;
  movegen_legal(h, &l);
  for (int i = 0; i < l.size; i++)
    if (!move_is_drop(l.moves[i]) && move_to(l.moves[i]) == sq) return true;
  return false;
}

/* Attacker to move: exact mate length under the 無駄合 rule's first part alone
 * (a free capture, then a mated position), -1 when none. */
static int fwd_value_first(Fwd *f, const Position *pos) { return fwd_value_by(f->first, pos); }

/* The rule's second part: y is the position after the capture with the piece
 * handed back, z the position after the interposition with the interposed piece
 * lifted into the defender's hand (defender to move). Every legal reply r of y
 * is a legal reply of z, and is mated after it in y in no more plies than in z
 * (any number when z has no mate after it). */
static bool fwd_same_mate(Fwd *f, const Position *y, const Position *z) {
  MoveList ly, lz;
  movegen_legal(y, &ly);
  movegen_legal(z, &lz);
  for (int i = 0; i < ly.size; i++) {
    int j = 0;
    while (j < lz.size && move_compact(lz.moves[j]) != move_compact(ly.moves[i])) j++;
    if (j == lz.size) return false;
    Position yr = *y, zr = *z;
    Undo u;
    pos_do_move(&yr, ly.moves[i], &u);
    pos_do_move(&zr, lz.moves[j], &u);
    int vy = fwd_value_first(f, &yr), vz = fwd_value_first(f, &zr);
    if (vy < 0 || (vz >= 0 && vz < vy)) return false;
  }
  return true;
}

/*
 * 無駄合, straight from its definition (docs/design.md): an interposition `drop`
 * (a drop, or a board piece moved between the distant checker and the king) is
 * futile when some check captures the interposed piece, the capturing piece
 * cannot be taken back (a free capture), the position after it, with the piece
 * handed back to the defender's hand, is mated at any length, and the mate goes
 * on there as without the interposition (fwd_same_mate).
 */
static bool fwd_futile(Fwd *f, const Position *pos, Move drop) {
  Position p = *pos;
  Undo u;
  pos_do_move(&p, drop, &u);
  Position z = p;
  Piece on = z.board[move_to(drop)];
  pos_remove(&z, move_to(drop));
  z.hand[pos->side] = hand_add(z.hand[pos->side], pt_demote(piece_type(on)));
  z.side = pos->side;
  pos_finish_setup(&z);
  MoveList l;
  movegen_checks(&p, &l);
  for (int i = 0; i < l.size; i++) {
    if (move_is_drop(l.moves[i]) || move_to(l.moves[i]) != move_to(drop)) continue;
    Position h = p;
    Undo u2;
    pos_do_move(&h, l.moves[i], &u2);
    if (fwd_retaken(&h, move_to(drop))) continue;
    PieceType t = pt_demote(piece_type(u2.captured));
    h.hand[BLACK] = hand_sub(h.hand[BLACK], t);
    h.hand[WHITE] = hand_add(h.hand[WHITE], t);
    pos_finish_setup(&h);
    if (fwd_value_defender(f, &h) >= 0 && fwd_same_mate(f, &h, &z)) return true;
  }
  return false;
}

/*
 * Defender to move: plies to mate (0 = mated), -1 if some reply escapes. Futile
 * interpositions are no replies: the value is one more than the longest other
 * reply, 0 when there is none.
 */
static int fwd_value_defender(Fwd *f, const Position *pos) {
  MoveList l;
  movegen_legal(pos, &l);
  if (l.size == 0) return pos->checkers ? 0 : -1;
  Bitboard drops = fwd_interpose_squares(pos);
  int futile[SQ_NB];
  for (int s = 0; s < SQ_NB; s++) futile[s] = -1;
  int need = 0;
  for (int i = 0; i < l.size; i++) {
    Move m = l.moves[i];
    if (bb_test(drops, move_to(m))) {
      Square sq = move_to(m);
      if (!move_is_drop(m)) {
        if (fwd_futile(f, pos, m)) continue;
      } else {
        if (futile[sq] < 0) futile[sq] = fwd_futile(f, pos, m);
        if (futile[sq]) continue;
      }
    }
    Position q = *pos;
    Undo u;
    pos_do_move(&q, m, &u);
    int v = fwd_value_attacker(f, &q);
    if (v < 0) return -1;
    if (v + 1 > need) need = v + 1;
  }
  return need;
}

static bool fwd_leftover(Fwd *f, const Position *pos, int value);

/* The rules' main-line choice: shortest check / longest reply (futile
 * interpositions left out), preferring a line that ends with the attacker's hand empty.
 * *nwithin: checks that mate within the remaining length (余詰 test);
 * *nmates: checks that mate at all. */
static Move fwd_best(Fwd *f, const Position *pos, int value, int *nmates, int *nwithin, int *nsame) {
  MoveList l;
  bool att = pos->side == BLACK;
  if (att)
    movegen_checks(pos, &l);
  else
    movegen_legal(pos, &l);
  Bitboard drops = att ? 0 : fwd_interpose_squares(pos);
  int vals[MAX_MOVES];
  bool futile[MAX_MOVES];
  int cnt = 0, within = 0, longest = 0;
  for (int i = 0; i < l.size; i++) {
    Position q = *pos;
    Undo u;
    pos_do_move(&q, l.moves[i], &u);
    futile[i] = false;
    if (bb_test(drops, move_to(l.moves[i]))) futile[i] = fwd_futile(f, pos, l.moves[i]);
    vals[i] = att ? fwd_value_defender(f, &q) : fwd_value_attacker(f, &q);
    if (!futile[i] && vals[i] == value - 1) longest++;
    if (futile[i]) continue;
    if (vals[i] >= 0) cnt++;
    if (vals[i] >= 0 && vals[i] <= value - 1) within++;
  }
  /* futile interpositions stay out of the line, unless every longest defence is one */
  for (int i = 0; i < l.size; i++)
    if (futile[i] && longest > 0) vals[i] = -1;
  *nmates = cnt;
  *nwithin = within;
  Move bm = MOVE_NONE;
  int same = 0;
  for (int i = 0; i < l.size; i++) {
    if (vals[i] != value - 1) continue;
    Position q = *pos;
    Undo u;
    pos_do_move(&q, l.moves[i], &u);
    bool left = fwd_leftover(f, &q, value - 1);
    if (bm == MOVE_NONE) bm = l.moves[i];
    if (!left) {
      if (same++ == 0) bm = l.moves[i];
      if (att) break;
    }
  }
  *nsame = same;
  return bm;
}

static bool fwd_leftover(Fwd *f, const Position *pos, int value) {
  if (value == 0) return pos->hand[BLACK] != 0;
  int nm, nw, ns;
  Move m = fwd_best(f, pos, value, &nm, &nw, &ns);
  if (m == MOVE_NONE) return pos->hand[BLACK] != 0;
  Position q = *pos;
  Undo u;
  pos_do_move(&q, m, &u);
  return fwd_leftover(f, &q, value - 1);
}

typedef struct {
  int length, root_mates, line_len;
  uint32_t flags;
  Move line[CENSUS_MAX_LEN];
} FwdProblem;

static int cmp_u16(const void *a, const void *b) {
  return (int)*(const uint16_t *)a - (int)*(const uint16_t *)b;
}

/* The main line's candidates at pos (exact value `value`): shortest checks, or
 * longest replies with futile interpositions left out unless every longest one
 * is one (as fwd_best chooses among them). */
static int fwd_candidates(Fwd *f, const Position *pos, int value, Move *out) {
  MoveList l;
  bool att = pos->side == BLACK;
  if (att)
    movegen_checks(pos, &l);
  else
    movegen_legal(pos, &l);
  Bitboard drops = att ? 0 : fwd_interpose_squares(pos);
  bool futile[MAX_MOVES];
  int vals[MAX_MOVES], longest = 0, n = 0;
  for (int i = 0; i < l.size; i++) {
    Position q = *pos;
    Undo u;
    pos_do_move(&q, l.moves[i], &u);
    futile[i] = false;
    if (bb_test(drops, move_to(l.moves[i]))) futile[i] = fwd_futile(f, pos, l.moves[i]);
    vals[i] = att ? fwd_value_defender(f, &q) : fwd_value_attacker(f, &q);
    if (!futile[i] && vals[i] == value - 1) longest++;
  }
  for (int i = 0; i < l.size; i++)
    if (vals[i] == value - 1 && !(futile[i] && longest > 0)) out[n++] = l.moves[i];
  return n;
}

typedef struct {
  const Position *main;
  const Move *line;
  int nmain, length, i, budget, na;
  uint16_t a[CENSUS_MAX_LEN];
} FwdRejoin;

/* Does some main line from q (exact value w) on an alternative played at ply
 * rj->i reach a position of the line at or after that ply with the same value,
 * main[j] with j = length - w? The alternative may be as long as the line's
 * remainder or longer (a detour that comes back). 2 with the same attacker
 * moves as the line (sorted), 1 with others, 0 no. */
static int fwd_rejoin(Fwd *f, FwdRejoin *rj, const Position *q, int w) {
  int j = rj->length - w;
  if (j >= rj->i && j < rj->length && j <= rj->nmain && pos_equal(q, &rj->main[j])) {
    uint16_t a[CENSUS_MAX_LEN], b[CENSUS_MAX_LEN];
    int nb = 0;
    for (int k = rj->i; k < j; k += 2) b[nb++] = move_compact(rj->line[k]);
    if (rj->na != nb) return 1;
    memcpy(a, rj->a, sizeof a[0] * (size_t)rj->na);
    qsort(a, (size_t)rj->na, sizeof a[0], cmp_u16);
    qsort(b, (size_t)nb, sizeof b[0], cmp_u16);
    return memcmp(a, b, sizeof a[0] * (size_t)nb) == 0 ? 2 : 1;
  }
  if (w <= 1 || rj->budget-- <= 0) return 0;
  Move cand[MAX_MOVES];
  int nc = fwd_candidates(f, q, w, cand), best = 0;
  for (int k = 0; k < nc && best < 2; k++) {
    Position p = *q;
    Undo u;
    pos_do_move(&p, cand[k], &u);
    bool att = q->side == BLACK;
    if (att && rj->na < CENSUS_MAX_LEN) rj->a[rj->na++] = move_compact(cand[k]);
    int r = fwd_rejoin(f, rj, &p, w - 1);
    if (att) rj->na--;
    if (r > best) best = r;
  }
  return best;
}

/*
 * design.md §2's classifier for an alternative check `alt` at attacker ply i
 * (not the last) after which the defender is mated in w plies. As long as the
 * line's remainder (w = length - i - 1): same from/to but promotion, or a drop
 * of the same kind on the same line to the king -> 非限定; some main line of it
 * meets the main line's position at the same ply -> 手順前後 when the attacker
 * moves up to there are the same ones (sorted), else 迂回; otherwise 余詰.
 * Longer: some main line of it comes back to a position of the line -> 迂回
 * (it has more attacker moves, never the same ones), otherwise 余詰.
 */
static uint32_t fwd_alt_kind(Fwd *f, const Position *main, int nmain, const Move *line, int length, int i, Move alt,
                             int w) {
  Move m = line[i];
  bool same = w == length - i - 1;
  if (same && !move_is_drop(m) && !move_is_drop(alt) && move_from(m) == move_from(alt) && move_to(m) == move_to(alt))
    return RETRO_F_HIGENTEI;
  if (same && move_is_drop(m) && move_is_drop(alt) && move_drop_type(m) == move_drop_type(alt)) {
    Square k = main[i].king[WHITE];
    Bitboard ray = LINE[k][move_to(m)];
    /* the same side of the king on one line */
    if (ray && bb_test(ray, move_to(alt)) && !bb_test(BETWEEN[move_to(m)][move_to(alt)], k)) return RETRO_F_HIGENTEI;
  }
  Position q = main[i];
  Undo u;
  pos_do_move(&q, alt, &u);
  FwdRejoin rj = {.main = main, .line = line, .nmain = nmain, .length = length, .i = i, .budget = 20000, .na = 1};
  rj.a[0] = move_compact(alt);
  int r = fwd_rejoin(f, &rj, &q, w);
  return r == 2 ? RETRO_F_TEJUN_ZENGO : r == 1 ? RETRO_F_UKAI : RETRO_F_YOZUME;
}

static void fwd_classify(Fwd *f, const Position *start, int length, FwdProblem *p) {
  static Position main[CENSUS_MAX_LEN + 1];
  Position pos = *start;
  memset(p, 0, sizeof *p);
  p->length = length;
  int alt_plies[CENSUS_MAX_LEN], nalt = 0, root_within = 0;
  for (int ply = 0; ply < length; ply++) {
    int nm, nw, ns;
    main[ply] = pos;
    Move m = fwd_best(f, &pos, length - ply, &nm, &nw, &ns);
    if (m == MOVE_NONE) {
      p->flags |= RETRO_F_FUTILE_CUT;
      break;
    }
    if (pos.side == BLACK) {
      if (ply == 0) {
        p->root_mates = nm;
        root_within = nw;
      }
      /* the last move: only another mate in one counts; before it, another
       * check that mates at all */
      if (nw > 1 && ply == length - 1) p->flags |= RETRO_F_LAST_MOVE_ALT;
      if (nm > 1 && ply < length - 1) alt_plies[nalt++] = ply;
    }
    p->line[p->line_len++] = m;
    Undo u;
    pos_do_move(&pos, m, &u);
  }
  main[p->line_len] = pos;
  for (int k = 0; k < nalt; k++) {
    int i = alt_plies[k];
    MoveList l;
    movegen_checks(&main[i], &l);
    for (int j = 0; j < l.size; j++) {
      if (l.moves[j] == p->line[i]) continue;
      Position q = main[i];
      Undo u;
      pos_do_move(&q, l.moves[j], &u);
      int v = fwd_value_defender(f, &q);
      if (v < 0) continue;
      /* the line mates shortest: no alternative is shorter than its remainder */
      if (v < length - i - 1) abort();
      /* past a 余詰 the record is not complete, and a longer alternative adds
       * only 余詰 or 迂回: the census does not count 迂回 of such records */
      if (v > length - i - 1 && (p->flags & RETRO_F_YOZUME)) continue;
      p->flags |= fwd_alt_kind(f, main, p->line_len, p->line, length, i, l.moves[j], v);
    }
  }
  if (pos.hand[BLACK]) {
    p->flags |= RETRO_F_KOMAAMARI;
    /* 変長: a defence 2 or 4 plies shorter, not a futile interposition, ending clean */
    for (int ply = 1; ply < p->line_len && !(p->flags & RETRO_F_HENCHOU); ply += 2) {
      int R = length - ply;
      MoveList l;
      movegen_legal(&main[ply], &l);
      Bitboard drops = fwd_interpose_squares(&main[ply]);
      for (int j = 0; j < l.size; j++) {
        Position q = main[ply];
        Undo u;
        pos_do_move(&q, l.moves[j], &u);
        int v = fwd_value_attacker(f, &q);
        if (v != R - 3 && v != R - 5) continue;
        if (bb_test(drops, move_to(l.moves[j])) && fwd_futile(f, &main[ply], l.moves[j])) continue;
        if (!fwd_leftover(f, &q, v)) {
          p->flags |= RETRO_F_HENCHOU;
          break;
        }
      }
    }
  }
  bool complete = !(p->flags & (RETRO_F_YOZUME | RETRO_F_KOMAAMARI | RETRO_F_FUTILE_CUT));
  /* a 1-move problem needs a unique mating move: another mate in one is not
   * accepted, and another check that mates longer is 余詰 */
  if (length == 1 && p->root_mates > 1) {
    if (p->root_mates > root_within) p->flags |= RETRO_F_YOZUME;
    complete = false;
  }
  if (complete) p->flags |= RETRO_F_COMPLETE;
}

static bool fwd_same_complete(Fwd *f, Position *q, const FwdProblem *p) {
  pos_give_remaining(q, WHITE);
  pos_finish_setup(q);
  if (q->checkers || pos_checkers_of(q, WHITE)) return false;
  int v = fwd_value_attacker(f, q);
  if (v != p->length) return false;
  FwdProblem s;
  fwd_classify(f, q, v, &s);
  if (!(s.flags & RETRO_F_COMPLETE)) return false;
  for (int i = 0; i < p->line_len; i++)
    if (move_compact(s.line[i]) != move_compact(p->line[i])) return false;
  return true;
}

static bool fwd_minimal(Fwd *f, const Position *pos, const FwdProblem *p) {
  for (int t = PAWN; t <= GOLD; t++) {
    if (!hand_has(pos->hand[BLACK], (PieceType)t)) continue;
    Position q = *pos;
    q.hand[BLACK] = hand_sub(q.hand[BLACK], (PieceType)t);
    if (fwd_same_complete(f, &q, p)) return false;
  }
  Bitboard occ = pos_occupied(pos) & ~BB_SQ[pos->king[WHITE]];
  while (occ) {
    Square s = bb_pop(&occ);
    Position q = *pos;
    pos_remove(&q, s);
    q.hand[WHITE] = 0;
    if (fwd_same_complete(f, &q, p)) return false;
  }
  return true;
}

static void tally(CensusTable *t, int len, uint32_t flags) {
  if (len >= CENSUS_MAX_LEN) len = CENSUS_MAX_LEN - 1;
  t->n[len][0]++;
  if (flags & RETRO_F_COMPLETE) t->n[len][1]++;
  if ((flags & RETRO_F_COMPLETE) && (flags & RETRO_F_MINIMAL)) t->n[len][2]++;
  if (flags & RETRO_F_YOZUME) t->n[len][3]++;
  if (flags & RETRO_F_KOMAAMARI) t->n[len][4]++;
  if (flags & RETRO_F_LAST_MOVE_ALT) t->n[len][5]++;
  if (flags & RETRO_F_HIGENTEI) t->n[len][6]++;
  if (flags & RETRO_F_TEJUN_ZENGO) t->n[len][7]++;
  /* 迂回 of a record with 余詰 is left out: the enumerator looks at the longer
   * alternatives only while no 余詰 is known, so it is defined only without one */
  if ((flags & RETRO_F_UKAI) && !(flags & RETRO_F_YOZUME)) t->n[len][8]++;
  if (flags & RETRO_F_HENCHOU) t->n[len][9]++;
}

/* ---------- enumeration of every position of a material ---------- */

typedef struct {
  Fwd f;
  CensusTable *t;
  PieceType kinds[MATERIAL_MAX_PIECES];
  int npieces;
  int chosen[MATERIAL_MAX_PIECES]; /* state index: 0 = hand, 1 + ... = square states */
  Position pos;
} Walk;

static inline bool dead_on(Color c, PieceType t, Square s) {
  int rr = c == BLACK ? sq_rank(s) : 10 - sq_rank(s);
  return ((t == PAWN || t == LANCE) && rr == 1) || (t == KNIGHT && rr <= 2);
}

/* State k of a piece of kind t: 0 = attacker's hand, else square (k-1)/4 with
 * owner and promotion from (k-1)%4. Returns false for impossible states. */
static bool state_of(PieceType t, int k, Square *sq, Piece *p) {
  if (k == 0) return true;
  int s = (k - 1) / 4, v = (k - 1) % 4;
  Color c = (Color)(v & 1);
  bool pr = v >> 1;
  if (pr && !pt_can_promote(t)) return false;
  if (!pr && dead_on(c, t, s)) return false;
  *sq = s;
  *p = piece_make(c, pr ? pt_promote(t) : t);
  return true;
}

static void leaf(Walk *w) {
  Position *q = &w->pos;
  Square k = q->king[WHITE];
  /* cheap rejections on the incremental position first: the defender in check
   * with the attacker to move, 二歩, and no check at all for the attacker */
  if (pos_attackers_to(q, k, BLACK, pos_occupied(q))) return;
  for (int c = 0; c < 2; c++) {
    Bitboard p = pos_pieces(q, (Color)c, PAWN);
    for (int f = 1; f <= 9 && p; f++)
      if (bb_more_than_one(p & BB_FILE[f])) return;
  }
  Hand h = 0;
  for (int i = 0; i < w->npieces; i++)
    if (w->chosen[i] == 0) h = hand_add(h, w->kinds[i]);
  /* one position per mirror pair: king on files 1-4 always (the mirror has it on
   * 6-9, never enumerated), on file 5 only in the canonical orientation */
  bool file5 = sq_file(k) == 5;
  {
    /* no check available: no problem (the defender's hand cannot matter here) */
    Position t = *q;
    t.hand[BLACK] = h;
    t.side = BLACK;
    MoveList l;
    movegen_checks(&t, &l);
    if (l.size == 0) {
      /* still a position of the census: count it when it is the one of its pair */
      if (!file5) {
        w->t->positions++;
        return;
      }
    }
  }
  Position full = *q;
  full.hand[BLACK] = h;
  full.hand[WHITE] = 0;
  full.side = BLACK;
  pos_give_remaining(&full, WHITE);
  pos_finish_setup(&full);
  TsError err;
  if (pos_validate(&full, "<census>", &err) != TS_OK) return;
  if (file5) {
    uint8_t a[POS_CODE_MAX], b[POS_CODE_MAX];
    size_t na = pos_encode(&full, a);
    bool mir;
    size_t nb = pos_canonical(&full, b, &mir);
    if (na != nb || memcmp(a, b, na) != 0) return;
  }
  w->t->positions++;
  MoveList l;
  movegen_checks(&full, &l);
  if (l.size == 0) return;
  int v = fwd_value_attacker(&w->f, &full);
  if (v < 0) return;
  FwdProblem p;
  fwd_classify(&w->f, &full, v, &p);
  if ((p.flags & RETRO_F_COMPLETE) && fwd_minimal(&w->f, &full, &p)) p.flags |= RETRO_F_MINIMAL;
  tally(w->t, v, p.flags);
}

static void place(Walk *w, int i) {
  if (i == w->npieces) {
    leaf(w);
    return;
  }
  PieceType t = w->kinds[i];
  int start = (i > 0 && w->kinds[i - 1] == t) ? w->chosen[i - 1] : 0;
  for (int k = start; k < 1 + SQ_NB * 4; k++) {
    Square sq = SQ_NONE;
    Piece p = 0;
    if (!state_of(t, k, &sq, &p)) continue;
    if (k > 0 && w->pos.board[sq]) continue;
    w->chosen[i] = k;
    if (k > 0) pos_put(&w->pos, sq, p);
    place(w, i + 1);
    if (k > 0) pos_remove(&w->pos, sq);
  }
}

int census_forward(const Material *m, CensusTable *t) {
  memset(t, 0, sizeof *t);
  Walk *w = calloc(1, sizeof *w);
  SolverOptions o;
  solver_options_default(&o);
  o.hash_mb = 16;
  w->f.s = solver_create(&o);
  o.futile_compare = false;
  w->f.first = solver_create(&o);
  w->t = t;
  for (int k = PAWN; k <= GOLD; k++)
    for (int j = 0; j < m->count[k]; j++) w->kinds[w->npieces++] = (PieceType)k;
  for (Square k = 0; k < sq_make(6, 1); k++) { /* files 1..5 */
    pos_clear(&w->pos);
    pos_put(&w->pos, k, piece_make(WHITE, KING));
    place(w, 0);
  }
  solver_free(w->f.s);
  solver_free(w->f.first);
  free(w);
  return 0;
}

typedef struct {
  CensusTable *t;
} RetroCtx;

static int on_retro(const RetroProblem *p, void *ctx) {
  RetroCtx *c = ctx;
  tally(c->t, p->length, p->flags);
  return 0;
}

int census_retro(const Material *m, CensusTable *t) {
  memset(t, 0, sizeof *t);
  Retro *r;
  RetroOptions o = {.max_moves = 63, .threads = 2};
  if (retro_create(m, &o, &r, NULL)) return -1;
  if (retro_run(r, NULL)) {
    retro_free(r);
    return -1;
  }
  RetroCtx c = {t};
  retro_foreach_problem(r, m->count, on_retro, &c);
  retro_free(r);
  return 0;
}

void census_format(const CensusTable *t, char *out, size_t n) {
  size_t k = 0;
  out[0] = 0;
  for (int len = 0; len < CENSUS_MAX_LEN; len++) {
    if (!t->n[len][0]) continue;
    k += (size_t)snprintf(out + k, n > k ? n - k : 0, "%d", len);
    for (int c = 0; c < CENSUS_COLS; c++)
      k += (size_t)snprintf(out + k, n > k ? n - k : 0, " %llu", (unsigned long long)t->n[len][c]);
    k += (size_t)snprintf(out + k, n > k ? n - k : 0, "\n");
  }
}
