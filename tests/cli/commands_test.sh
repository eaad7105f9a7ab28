#!/bin/sh
# commands_test.sh - what the composer-facing commands promise about their
# inputs, budgets and messages: each check runs the tsume binary and tests its
# exit status and what it printed.
#
#   sh commands_test.sh <path to tsume> <path to tamper_db> <tests/cli directory>
#
# Prints one line per check, then "N passed, M failed"; exits 1 when a check failed.

set -u
[ $# -ge 3 ] || {
  echo "usage: sh commands_test.sh <tsume> <tamper_db> <tests/cli directory>" >&2
  exit 2
}
T=$1 TAMPER=$2 SRC=$3
TMP=$(mktemp -d "${TMPDIR:-/tmp}/tsume-commands.XXXXXX") || exit 2
trap 'rm -rf "$TMP"' EXIT
trap 'exit 2' INT TERM
PASS=0 FAIL=0
S="6k2/4G4/6G2/8p/9/9/9/9/9 b 2r2b2g4s4n4l17p 1"
Z6="+Rg2+Bpk2/2p1g2pl/1n7/2P1GP1+rp/1N2p1+p2/N5N2/9/9/9 b BS4Pg3s3l6p 1"
KIF=$SRC/data/TG3-000001.kifu

ok() { PASS=$((PASS + 1)); echo "ok    $1"; }
ko() { FAIL=$((FAIL + 1)); echo "FAIL  $1: $2"; }
# run ARGS...: tsume with stdin closed, at most 60 s; ST, $TMP/out, $TMP/err.
run() {
  timeout 60 "$T" "$@" </dev/null >"$TMP/out" 2>"$TMP/err"
  ST=$?
}
# expect NAME STATUS STREAM TEXT ARGS...: exit STATUS, and TEXT in std$STREAM.
expect() {
  name=$1 want=$2 stream=$3 text=$4
  shift 4
  run "$@"
  if [ "$ST" -ne "$want" ]; then ko "$name" "exit $ST, want $want ($(head -n 1 "$TMP/err"))"
  elif ! grep -F -q -e "$text" "$TMP/$stream"; then ko "$name" "std$stream lacks '$text': $(head -n 1 "$TMP/$stream")"
  else ok "$name"; fi
}
# json_num KEY: the number after "KEY": in the first line of $TMP/out.
json_num() { head -n 1 "$TMP/out" | sed -n "s/.*\"$1\":\([0-9]*\).*/\1/p"; }

# 7. a directory: regular files only, the others named on stderr (a FIFO would block)
mkdir "$TMP/fifo"
cp "$KIF" "$TMP/fifo/a.kifu"
if mkfifo "$TMP/fifo/b.kif" 2>/dev/null; then
  expect "check DIR with a FIFO: skipped, named" 0 err "skipped $TMP/fifo/b.kif: not a regular file" check --quiet "$TMP/fifo"
else
  echo "skip  check DIR with a FIFO: mkfifo failed"
fi

# 8. the time limit is search time; the table is set-up, reported apart
run solve --json --time-ms 1 --hash 1024 "$Z6"
tm=$(json_num time_ms) su=$(json_num setup_ms)
if [ -n "$tm" ] && [ "$tm" -le 100 ] && [ -n "$su" ]; then ok "solve --time-ms 1 --hash 1024: time_ms $tm, setup_ms $su"
else ko "solve --time-ms 1 --hash 1024" "time_ms '$tm' (want <= 100), setup_ms '$su'"; fi
run check --json --time-ms 1 --hash 1024 "$Z6"
tm=$(json_num time_ms)
if [ -n "$tm" ] && [ "$tm" -le 100 ]; then ok "check --time-ms 1 --hash 1024: time_ms $tm"
else ko "check --time-ms 1 --hash 1024" "time_ms '$tm' (want <= 100)"; fi
printf 'id\tsfen\none\t%s\ntwo\t%s\n' "$S" "$S" >"$TMP/twice.tsv"
run check --json --threads 1 "$TMP/twice.tsv"
n1=$(sed -n 1p "$TMP/out" | sed -n 's/.*"nodes":\([0-9]*\).*/\1/p') n2=$(sed -n 2p "$TMP/out" | sed -n 's/.*"nodes":\([0-9]*\).*/\1/p')
if [ -n "$n1" ] && [ "$n1" = "$n2" ]; then ok "check: a problem checked after another costs the same ($n1 nodes)"
else ko "check: the same problem twice" "nodes '$n1' then '$n2'"; fi
mkdir "$TMP/many"
i=0
while [ $i -lt 40 ]; do
  echo "$S" >"$TMP/many/p$i.sfen"
  i=$((i + 1))
done
run check --quiet --threads 1 --time-ms 50 "$TMP/many"
one=$(head -n 1 "$TMP/out")
run check --quiet --threads 64 --time-ms 50 "$TMP/many"
if [ "$one" = "$(head -n 1 "$TMP/out")" ] && [ "$ST" -eq 0 ]; then ok "check --threads 64 = --threads 1: $one"
else ko "check --threads 64" "'$(head -n 1 "$TMP/out")' against '$one'"; fi

# 9. "moves" after a SFEN: the same on the command line as in a .sfen file
echo "$S moves 9i9h" >"$TMP/m1.sfen"
echo "$S moves 5b4b 3a2a" >"$TMP/m2.sfen"
expect "check SFEN moves 9i9h (one word): illegal, exit 2" 2 err "illegal move '9i9h'" check --quiet "$S moves 9i9h"
expect "check .sfen moves 9i9h: exit 2" 2 err "illegal move '9i9h'" check --quiet "$TMP/m1.sfen"
expect "check SFEN moves 5b4b 3a2a (words): not-mate, exit 1" 1 out "not-mate 1" check --quiet $S moves 5b4b 3a2a
expect "check .sfen moves 5b4b 3a2a: exit 1" 1 out "not-mate 1" check --quiet "$TMP/m2.sfen"
expect "roles SFEN moves 9i9h: exit 2" 2 err "illegal move '9i9h'" roles "$S moves 9i9h"
expect "show SFEN moves 9i9h: exit 2" 2 err "illegal move '9i9h'" show "$S moves 9i9h"
expect "solve SFEN moves 9i9h: exit 2" 2 err "illegal move '9i9h'" solve $S moves 9i9h
expect "solve SFEN moves 5b4b: legal, said to be unused" 0 err "not used" solve "$S moves 5b4b"
expect "roles SFEN moves: the given line is the line" 0 out '"line":["5b4b","3a2a"' roles --json $S moves 5b4b 3a2a

# 10. nothing to check is exit 1
mkdir "$TMP/empty"
expect "check EMPTYDIR: exit 1" 1 err "nothing to check" check "$TMP/empty"
printf 'id\tsfen\n' >"$TMP/header.tsv"
expect "check header-only TSV: exit 1" 1 err "nothing to check" check "$TMP/header.tsv"

# 11. show --svg --solve: a length only when it is exact
run show --svg --solve --time-ms 2000 "$Z6"
if [ "$ST" -eq 0 ] && ! grep -q '手詰' "$TMP/out" && grep -q 'not that none is shorter' "$TMP/err"; then
  ok "show --svg --solve, length not proven: none written, said on stderr"
else ko "show --svg --solve" "exit $ST, $(grep -o '[0-9]*手詰' "$TMP/out" | head -n 1), $(head -n 1 "$TMP/err")"; fi
expect "show --svg --solve, exact: the length" 0 out "7手詰" show --svg --solve "$S"

# 12. verify: unproven works fail the run, counted first
DB=$TMP/g2p1.mdb
"$T" enumerate --pieces G2P1 --db "$DB" >/dev/null 2>&1 || ko "enumerate G2P1" "failed"
run verify --db "$DB" --moves 7 --nodes 1
if [ "$ST" -eq 1 ] && grep -q 'verified [0-9]* complete works in [0-9.]* s: [1-9][0-9]* unproven, 0 disagreements' "$TMP/out"; then
  ok "verify --nodes 1: exit 1, unproven first"
else ko "verify --nodes 1" "exit $ST: $(head -n 1 "$TMP/out")"; fi

# 13. an unknown verdict says why
run check --json --time-ms 200 "$Z6"
if head -n 1 "$TMP/out" | grep -q '"verdict":"unknown".*"reason":"\(no-line\|unproven\)"'; then ok "check --json unknown: reason given"
else ko "check --json unknown" "$(head -n 1 "$TMP/out" | cut -c1-200)"; fi

# 14. db-check on an interrupted enumeration warns
"$TAMPER" "$DB" unfinished "$TMP/part.mdb" >/dev/null || ko "tamper_db unfinished" "failed"
expect "db-check unfinished: warns" 0 err "part.mdb is not finished" db-check --db "$TMP/part.mdb"
expect "db-check unfinished: summary says so" 0 out "sound (enumeration not finished)" db-check --db "$TMP/part.mdb"

# 15. control bytes are escaped on stdout too
printf '%s moves 5b4b\033[31m\n' "$S" >"$TMP/esc.sfen"
run check "$TMP/esc.sfen"
if [ "$ST" -eq 2 ] && ! grep -q "$(printf '\033')" "$TMP/out" && grep -q 'x1b' "$TMP/out"; then ok "check esc.sfen: ESC escaped on stdout"
else ko "check esc.sfen" "exit $ST, raw ESC on stdout or not named"; fi
printf 'position sfen \377\376\nposition startpos moves 7g7f \377\nquit\n' | "$T" usi >"$TMP/out" 2>"$TMP/err"
if ! LC_ALL=C grep -q "$(printf '\377')" "$TMP/out" && grep -q 'xff' "$TMP/out"; then ok "usi: 0xff escaped in info string"
else ko "usi" "raw 0xff in its output"; fi

run show --svg --title "$(printf 'a\033[31mb')" "$S"
if [ "$ST" -eq 0 ] && ! grep -q "$(printf '\033')" "$TMP/out" && grep -q 'a\\x1b' "$TMP/out"; then ok "show --svg --title with ESC: escaped"
else ko "show --svg --title" "exit $ST, raw ESC in the SVG"; fi

# 16. options after operands, for every command
expect "check FILE --quiet" 0 out "summary: 1 problem" check "$KIF" --quiet
if grep -q '^== ' "$TMP/out"; then ko "check FILE --quiet" "not quiet"; fi
expect "roles FILE --json" 0 out '{"sfen":' roles "$KIF" --json
expect "show FILE --mirror" 0 out "sfen " show "$KIF" --mirror
expect "solve SFEN --json" 0 out '"result":"mate"' solve $S --json
expect "perft SFEN --depth 1" 0 out "" perft $S --depth 1

# 17. a bad option value names the option and its range
expect "check --threads -1" 2 err "--threads needs a whole number from 1 to 64, not '-1'" check --threads -1 "$KIF"
expect "check --threads abc" 2 err "--threads needs a whole number from 1 to 64, not 'abc'" check --threads abc "$KIF"
expect "check --hash -5" 2 err "--hash needs a whole number from 1 to 1048576, not '-5'" check --hash -5 "$KIF"
expect "solve --hash -5" 2 err "--hash needs a whole number from 1 to 1048576" solve --hash -5 "$S"
expect "db-check --max -1" 2 err "--max needs a whole number from 0 to" db-check --db "$DB" --max -1
expect "bench --nodes x" 2 err "--nodes needs a whole number from 1 to" bench --nodes x

# 18. one size limit (bad input, exit 2, before reading) and one line limit
truncate -s 65M "$TMP/big.sfen" && truncate -s 100M "$TMP/big.kif" || ko "truncate" "failed"
expect "check 65 MiB .sfen: exit 2" 2 err "larger than 64 MiB" check "$TMP/big.sfen"
expect "check 100 MB .kif: exit 2" 2 err "larger than 64 MiB" check "$TMP/big.kif"
expect "roles 100 MB .kif: exit 2" 2 err "larger than 64 MiB" roles "$TMP/big.kif"
{
  printf '%s' "k8/9/9/9/9/9/9/9/8R b - 1 moves"
  i=0
  while [ $i -lt 525 ]; do
    printf ' 1i2i 9a8a 2i1i 8a9a'
    i=$((i + 1))
  done
  echo
} >"$TMP/long.sfen"
expect "check: a 2100-move line is refused" 2 err "a line longer than 2048 moves" check --quiet "$TMP/long.sfen"
expect "roles: the same limit, the same message" 2 err "a line longer than 2048 moves" roles "$TMP/long.sfen"

# 19. a 変化 past the end of the main line names its length
sed 's/^変化：2手/変化：20手/; s/^   2 １二玉(11)/  20 １二玉(11)/' "$KIF" >"$TMP/branch.kifu"
expect "変化：20手 in a 3-move record" 2 err "the main line has 3 moves" check "$TMP/branch.kifu"

echo "$PASS passed, $FAIL failed"
[ "$FAIL" -eq 0 ]
