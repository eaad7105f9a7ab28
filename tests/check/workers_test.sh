#!/bin/sh
# One problem checked with a time budget and threads left over: the lead asks the questions
# alone for the first second (most checks end there), then its aides join, each with a table
# of its own. Where every question is settled the answer cannot depend on who asked what: the
# verdict, the main line and every flaw (kind, ply, move, length) are those of one thread.
# usage: workers_test.sh <tsume binary> <scratch directory> <bench.tsv>
T="$1"
W="$2/workers_test.tmp"
SET="$3"
rm -rf "$W"
mkdir -p "$W"
fail=0
ok() { echo "ok   $1"; }
bad() { echo "FAIL $1"; fail=1; }
cores=$(nproc)
# 将棋図巧 problems whose check takes a few seconds and settles every question (no line given:
# the solver's main line is checked)
for id in zukou-043 zukou-087; do
  sfen=$(awk -F'\t' -v id="$id" '$1 == id { print $2 }' "$SET")
  [ -n "$sfen" ] || { bad "$id not in $SET"; continue; }
  "$T" check --json --threads 1 --time-ms 60000 "$sfen" | head -1 >"$W/$id.one.json"
  "$T" check --json --threads 2 --time-ms 60000 "$sfen" | head -1 >"$W/$id.two.json"
  r=$(python3 - "$W/$id.one.json" "$W/$id.two.json" "$cores" <<'PY'
import json, sys
a = json.load(open(sys.argv[1])); b = json.load(open(sys.argv[2])); cores = int(sys.argv[3])
key = lambda o: (o["verdict"], o["line"], sorted((f["kind"], f["ply"], f["alt"], f["alt_length"]) for f in o["flaws"]))
if "open" in a or "open" in b:
    print("unsettled")
elif key(a) != key(b):
    print("differ: %s / %s" % (key(a), key(b)))
elif a.get("workers", 1) != 1 or (cores >= 2 and b.get("workers", 1) != 2):
    print("workers %s / %s" % (a.get("workers", 1), b.get("workers", 1)))
else:
    print("ok %s, %d flaws, %d / %d ms" % (a["verdict"], len(a["flaws"]), a["time_ms"], b["time_ms"]))
PY
)
  case "$r" in
    ok*) ok "$id: one thread and two workers give the same answer ($r)" ;;
    unsettled) ok "$id: not settled within 60 s here, nothing to compare" ;;
    *) bad "$id: $r" ;;
  esac
done
[ "$cores" -lt 2 ] && echo "note: one processor, so no threads were left over and one worker asked"
[ $fail -eq 0 ] && echo "workers_test: all passed" || echo "workers_test: FAILED"
exit $fail
