#!/bin/sh
# The checker against the enumerator on real databases: every record of 3 plies
# or more of each material is checked on its stored main line, and the verdict
# and flaw kinds must agree with the stored flags (db_agree.py says how).
# usage: db_agree.sh <tsume binary> <scratch directory> <material>...
T="$1"
W="$2/db_agree.tmp"
shift 2
rm -rf "$W"
mkdir -p "$W"
fail=0
for m in "$@"; do
  if ! "$T" enumerate --pieces "$m" --db "$W/$m.mdb" --force >/dev/null 2>"$W/err"; then
    echo "FAIL $m: enumerate"; cat "$W/err"; fail=1; continue
  fi
  "$T" query --db "$W/$m.mdb" --json | python3 -c '
import json, sys
for l in sys.stdin:
    o = json.loads(l)
    if o["length"] >= 3:
        print(o["sfen"] + " moves " + " ".join(o["line"]) + "\t" + o["flags"])' >"$W/$m.txt"
  cut -f1 "$W/$m.txt" >"$W/$m.sfen"
  "$T" check --json --threads 2 "$W/$m.sfen" >"$W/$m.jsonl" 2>"$W/err"
  rc=$?
  if [ $rc -ge 2 ]; then echo "FAIL $m: check exited $rc"; head -3 "$W/err"; fail=1; continue; fi
  if python3 "$(dirname "$0")/db_agree.py" "$W/$m.txt" "$W/$m.jsonl" >"$W/out"; then
    echo "ok   $m: $(head -1 "$W/out")"
  else
    echo "FAIL $m"; cat "$W/out"; fail=1
  fi
done
rm -rf "$W"
exit $fail
