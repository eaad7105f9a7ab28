#!/bin/sh
# The figures of seed 002's tests during generation (余詰め判定, 不詰め判定, positions
# per layer) are stored in the database: `query --generation` gives what
# `enumerate --stats` printed, the same with one thread and two, as JSON too.
# (A killed run's database has none: resume_test.sh.)
T="$1"
. "$(dirname "$0")/testlib.sh"

"$T" enumerate --pieces G2P1 --db "$tmp/a.mdb" --threads 2 --stats >"$tmp/stats.txt" 2>/dev/null || bad "enumerate G2P1"
"$T" enumerate --pieces G2P1 --db "$tmp/b.mdb" --threads 1 >/dev/null 2>&1 || bad "enumerate G2P1 one thread"
"$T" query --db "$tmp/a.mdb" --generation >"$tmp/gen.txt" || bad "query --generation"
"$T" query --db "$tmp/b.mdb" --generation | cmp -s - "$tmp/gen.txt" && ok "same figures with one and two threads" \
  || bad "figures differ between one and two threads"

# the stats lines, rebuilt from the stored table: "n:count" per layer
stat_line() { grep "^$1" "$tmp/stats.txt" | sed 's/^.*): //'; }
from_table() { # column side -> "layer:value ..." as --stats prints it
  awk -F'\t' -v c="$1" -v s="$2" '$2 == s { printf "%s%s:%s", n++ ? " " : "", $1, $c } END { print "" }' "$tmp/gen.txt"
}
[ "$(stat_line '余詰め判定')" = "$(from_table 4 attacker)" ] && ok "余詰め判定 per layer as --stats printed it" \
  || bad "余詰め判定: stats '$(stat_line '余詰め判定')' table '$(from_table 4 attacker)'"
[ "$(stat_line '不詰め判定')" = "$(from_table 5 defender)" ] && ok "不詰め判定 per layer as --stats printed it" \
  || bad "不詰め判定: stats '$(stat_line '不詰め判定')' table '$(from_table 5 defender)'"
pos=$(awk -F'\t' '$2 == "attacker" || $2 == "defender" { printf "%s%s:%s", n++ ? " " : "", $1, $3 } END { print "" }' "$tmp/gen.txt")
[ "$(stat_line 'positions per layer')" = "$pos" ] && ok "positions per layer" || bad "positions per layer: '$pos'"
fz=$(awk -F'\t' '$2 == "defender" { s += $5 } END { print s + 0 }' "$tmp/gen.txt")
[ "$fz" -gt 0 ] && ok "不詰め判定 total $fz" || bad "no 不詰め判定 stored"
grep -q "^material	G2P1$" "$tmp/gen.txt" && grep -q "^max_moves	31$" "$tmp/gen.txt" && ok "material and bound" \
  || bad "material or bound missing"

"$T" query --db "$tmp/a.mdb" --generation --json >"$tmp/gen.json" || bad "query --generation --json"
grep -q '^{"material":"G2P1","max_moves":31,.*"layers":\[{"layer":1,"side":"attacker","positions":[0-9]*,"yozume":[0-9]*},{"layer":2,"side":"defender","positions":[0-9]*,"fuzume":[0-9]*}.*\]}$' "$tmp/gen.json" \
  && ok "JSON form" || bad "JSON form: $(head -c 300 "$tmp/gen.json")"
if command -v node >/dev/null 2>&1; then
  node -e 'const g = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
    if (g.layers.length < 9 || g.layers.some((l, i) => l.layer !== i + 1)) process.exit(1);' "$tmp/gen.json" \
    && ok "JSON parses, one object per layer" || bad "JSON does not parse"
fi

# the solver's table size does not change a ranging set's database
"$T" enumerate --pieces B2 --db "$tmp/b1.mdb" --solver-hash 1 >/dev/null 2>&1 || bad "enumerate B2 --solver-hash 1"
"$T" enumerate --pieces B2 --db "$tmp/b2.mdb" >/dev/null 2>&1 || bad "enumerate B2"
"$T" query --db "$tmp/b1.mdb" --json >"$tmp/b1.txt"
"$T" query --db "$tmp/b2.mdb" --json | cmp -s - "$tmp/b1.txt" && [ -s "$tmp/b1.txt" ] \
  && ok "B2: same database with --solver-hash 1 and the default" || bad "B2: --solver-hash changes the database"
"$T" query --db "$tmp/missing.mdb" --generation >/dev/null 2>&1; [ $? = 3 ] && ok "missing file: exit 3" || bad "missing file"
summary
