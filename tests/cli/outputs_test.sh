#!/bin/sh
# outputs_test.sh - what tsume writes is right, and what it writes it reads:
# exports of every kind of database, the program's own files as inputs, the
# composer's limits, output files that never overwrite the input or an
# existing file, refused runs that leave nothing, and messages that say
# exactly what happened.
#
#   sh outputs_test.sh <path to tsume> <tests/cli directory>
#
# Prints one line per check, then "N passed, M failed"; exits 1 when a check failed.

set -u
[ $# -ge 2 ] || {
  echo "usage: sh outputs_test.sh <tsume> <tests/cli directory>" >&2
  exit 2
}
T=$1 SRC=$2
TMP=$(mktemp -d "${TMPDIR:-/tmp}/tsume-outputs.XXXXXX") || exit 2
trap 'rm -rf "$TMP"' EXIT
trap 'exit 2' INT TERM
PASS=0 FAIL=0
cd "$TMP" || exit 2

ok() { PASS=$((PASS + 1)); echo "ok    $1"; }
ko() { FAIL=$((FAIL + 1)); echo "FAIL  $1: $2"; }
# run ARGS...: tsume with stdin closed, at most 120 s; ST, $TMP/out, $TMP/err.
run() {
  timeout 120 "$T" "$@" </dev/null >"$TMP/out" 2>"$TMP/err"
  ST=$?
}
# expect NAME STATUS STREAM TEXT ARGS...: exit STATUS, and TEXT in std$STREAM.
expect() {
  name=$1 want=$2 stream=$3 text=$4
  shift 4
  run "$@"
  if [ "$ST" -ne "$want" ]; then ko "$name" "exit $ST, want $want ($(head -n 2 "$TMP/err" | tr '\n' ' '))"
  elif ! grep -F -q -e "$text" "$TMP/$stream"; then ko "$name" "std$stream lacks '$text': $(head -n 2 "$TMP/$stream" | tr '\n' ' ')"
  else ok "$name"; fi
}

"$T" enumerate --pieces G2P1 --db g.mdb >/dev/null 2>&1 || ko "enumerate G2P1" "failed"
"$T" enumerate --pieces G2P1 --db g5.mdb --max-moves 5 >/dev/null 2>&1 || ko "enumerate G2P1 --max-moves 5" "failed"

# ---- export of a database cut by --max-moves: its unsettled works as verify treats them ----
expect "export of a --max-moves database: every 5-ply problem written" 0 err "exported 193 problem(s)" \
  export --db g5.mdb --moves 5 --sfen g5.sfen
grep -q "116 of them flagged unsettled" err && ok "export names the unsettled works" || ko "export unsettled" "$(cat err)"
[ "$(wc -l <g5.sfen)" = 193 ] && ! grep -q "does not confirm" err && ok "export: no unsettled work refused" ||
  ko "export unsettled" "$(wc -l <g5.sfen) lines"

echo "$PASS passed, $FAIL failed"
[ "$FAIL" -eq 0 ]
