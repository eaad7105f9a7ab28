#!/bin/sh
# damage_test.sh - damaged databases never crash a reader.
#
#   sh damage_test.sh <tsume> <overwrite_db> [N]
#
# Enumerates G2P1 once, then for N seeds (default 200) copies it, overwrites 4
# pseudo-random bytes (overwrite_db, deterministic per seed) and runs
# `query --count`, `query --json` and `db-check` on the copy: each must exit
# 0, 1, 2 or 3, never by a signal (SIGSEGV, SIGBUS, abort). Then fixed damage:
# the file cut to half its size (truncated: exit 3), both meta pages broken
# (exit 3), and db-check on the sound file (exit 0) and on the truncated one.
set -u
T=$1 OW=$2 N=${3:-200}
TMP=$(mktemp -d) || exit 2
trap 'rm -rf "$TMP"' EXIT
PASS=0 FAIL=0
ok() { PASS=$((PASS + 1)); echo "ok    $1"; }
ko() { FAIL=$((FAIL + 1)); echo "FAIL  $1: $2"; }

"$T" enumerate --pieces G2P1 --db "$TMP/base.mdb" >/dev/null 2>&1 || { echo "FAIL enumerate"; exit 1; }
"$T" db-check --db "$TMP/base.mdb" >/dev/null 2>&1
st=$?; [ $st -eq 0 ] && ok "db-check on a sound database: exit 0" || ko "db-check sound" "exit $st"

crashes=0 damaged=0 seed=1
while [ $seed -le "$N" ]; do
  cp "$TMP/base.mdb" "$TMP/d.mdb"; rm -f "$TMP/d.mdb-lock"
  "$OW" "$TMP/d.mdb" random $seed >/dev/null || { ko "overwrite seed $seed" "overwrite_db failed"; break; }
  for cmd in "query --count" "query --json" "db-check"; do
    # shellcheck disable=SC2086
    "$T" $cmd --db "$TMP/d.mdb" >/dev/null 2>"$TMP/err"
    st=$?
    if [ $st -gt 3 ]; then
      crashes=$((crashes + 1))
      echo "crash: seed $seed, $cmd, exit $st: $(head -n 1 "$TMP/err")"
    fi
    [ "$cmd" = "db-check" ] && [ $st -eq 1 ] && damaged=$((damaged + 1))
  done
  seed=$((seed + 1))
done
echo "random overwrites: $N, reader crashes: $crashes, db-check reported damage on $damaged"
[ $crashes -eq 0 ] && ok "$N random 4-byte overwrites: no crash" || ko "random overwrites" "$crashes crash(es)"

size=$(stat -c %s "$TMP/base.mdb")
cp "$TMP/base.mdb" "$TMP/t.mdb"; truncate -s $((size / 2)) "$TMP/t.mdb"
for cmd in "query --count" "verify" "db-check"; do
  # shellcheck disable=SC2086
  "$T" $cmd --db "$TMP/t.mdb" >/dev/null 2>"$TMP/err"
  st=$?
  if [ $st -eq 3 ] || { [ "$cmd" = "db-check" ] && [ $st -eq 1 ]; }; then ok "truncated to half: $cmd exit $st"
  else ko "truncated to half: $cmd" "exit $st: $(head -n 1 "$TMP/err")"; fi
done

cp "$TMP/base.mdb" "$TMP/m.mdb"
ps=4096
"$OW" "$TMP/m.mdb" at 16 deadbeef >/dev/null && "$OW" "$TMP/m.mdb" at $((ps + 16)) deadbeef >/dev/null
"$T" query --count --db "$TMP/m.mdb" >/dev/null 2>"$TMP/err"
st=$?
[ $st -eq 3 ] && ok "both meta pages broken: query exit 3 ($(head -n 1 "$TMP/err" | cut -c1-80))" || ko "meta pages broken" "exit $st"

echo "$PASS passed, $FAIL failed"
[ "$FAIL" -eq 0 ]
