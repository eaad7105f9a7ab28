#include "kifvar.h"

#include <stdio.h>
#include <string.h>

#include "movegen.h"
#include "solver_value.h"

int kifvar_add(Solver *s, KifRecord *rec, KifNode *node, const Position *start, Color attacker, const Move *line,
               int n, int *budget) {
  Position pos = *start;
  for (int ply = 0; ply < n; ply++) {
    if (pos.side != attacker && ply < n - 1) {
      MoveList l;
      movegen_legal(&pos, &l);
      for (int i = 0; i < l.size && *budget > 0; i++) {
        if (move_compact(l.moves[i]) == move_compact(line[ply])) continue;
        /* a futile interposition (無駄合) is no defence: not written as a 変化 */
        if (solver_interpose_futile(s, &pos, l.moves[i], attacker, n - ply) == 1) continue;
        Position p = pos;
        Undo u;
        pos_do_move(&p, l.moves[i], &u);
        SolveResult r;
        if (solver_solve(s, &p, &r) != TS_OK || r.status != SOLVE_MATE) continue;
        Move var[512];
        int k = 0;
        var[k++] = l.moves[i];
        for (int j = 0; j < r.pv_len && k < 512; j++) var[k++] = r.pv[j];
        int rc = kif_line_add(rec, node, var, k, KIF_SPECIAL_MATE, NULL);
        if (rc) return rc;
        (*budget)--;
        KifNode *b = node->child;
        while (b && move_compact(b->move) != move_compact(l.moves[i])) b = b->sibling;
        if (b && k > 1) {
          rc = kifvar_add(s, rec, b, &p, attacker, var + 1, k - 1, budget);
          if (rc) return rc;
        }
      }
    }
    /* follow the line */
    KifNode *c = node->child;
    while (c && move_compact(c->move) != move_compact(line[ply])) c = c->sibling;
    if (!c) return TS_ERR_ILLEGAL;
    node = c;
    Undo u;
    pos_do_move(&pos, line[ply], &u);
  }
  return TS_OK;
}

const char *kifvar_completeness(const CheckReport *r, char *buf, size_t n) {
  if (r->verdict == CHECK_COMPLETE) {
    size_t k = (size_t)snprintf(buf, n, "完全作");
    int m = 0;
    bool seen[FLAW_KIND_NB] = {false};
    for (int i = 0; i < r->nflaws && k < n; i++) {
      FlawKind kind = r->flaws[i].kind;
      if (seen[kind]) continue;
      seen[kind] = true;
      k += (size_t)snprintf(buf + k, n - k, "%s%s", m++ ? "・" : "（", check_flaw_name_ja(kind));
    }
    if (m && k < n) snprintf(buf + k, n - k, "あり）");
    return buf;
  }
  size_t k = 0;
  for (int i = 0; i < r->nflaws && k < n; i++)
    if (!r->flaws[i].tolerated && (k == 0 || !strstr(buf, check_flaw_name_ja(r->flaws[i].kind))))
      k += (size_t)snprintf(buf + k, n - k, "%s%s", k ? "・" : "", check_flaw_name_ja(r->flaws[i].kind));
  return k ? buf : "不完全";
}
