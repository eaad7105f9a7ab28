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

# ---- what the program writes, it reads: a KIF of several records, the export's SFEN lines ----
"$T" export --db g.mdb --moves 7 --complete --kif-file m.kif >/dev/null 2>&1 || ko "export --kif-file" "failed"
"$T" export --db g.mdb --moves 7 --complete --kif-file m.kifu >/dev/null 2>&1 || ko "export --kif-file .kifu" "failed"
"$T" export --db g.mdb --moves 7 --complete --sfen e.sfen >/dev/null 2>&1 || ko "export --sfen" "failed"
for f in m.kif m.kifu e.sfen; do
  expect "check $f: every record a problem" 0 out "summary: 30 problems: 30 complete" check --quiet "$f"
  expect "show $f: every problem" 0 out "problem 30 of 30" show "$f"
  [ "$(grep -c '^sfen ' out)" = 30 ] && ok "show $f: 30 diagrams" || ko "show $f" "$(grep -c '^sfen ' out) diagrams"
done
expect "check e.sfen: each problem named by its line" 0 out "== e.sfen:30" check e.sfen
expect "check m.kif: each record named by its first line" 0 out "== m.kif:1" check m.kif
run show e.sfen
grep -q "not used" err && ko "show e.sfen" "notes unused moves: $(head -n 1 err)" || ok "show e.sfen: no note about the lines"
expect "roles e.sfen: each problem along its own line" 0 out "problem 30 of 30" roles e.sfen
expect "roles --json m.kif: one object a problem" 0 out '"sfen"' roles --json m.kif
[ "$(wc -l <out)" = 30 ] && ok "roles --json m.kif: 30 lines" || ko "roles --json m.kif" "$(wc -l <out) lines"
expect "compose m.kif: says which problem it composes from" 0 err "holds 30 problems: composing from the first" \
  compose --iterations 3 --seed 1 m.kif
expect "show --svg m.kif: one diagram only" 2 err "holds 30 problems" show --svg m.kif
# a damaged record is named by its file and line in the file
awk 'NR == 20 { sub(/\t7\t/, "\tseven\t") } { print }' e.sfen >bad.sfen
expect "check: a bad export line named by its line" 2 err "bad.sfen:20:47: after the SFEN" check bad.sfen
grep -q "summary: 30 problems: 29 complete" out && ok "check: the other 29 are checked" || ko "check bad.sfen" "$(tail -n 3 out)"

# ---- compose --max-pieces below the diagram's own count: refused at once ----
IDEA="9/8k/8g/7GP/9/9/9/9/9 b 2r2b2g4s4n4l17p 1"
t0=$(date +%s)
expect "compose --max-pieces 2 on a 4-piece diagram: refused" 2 err "--max-pieces 2 is below the diagram's own 4 pieces" \
  compose --max-pieces 2 --time-ms 30000 "$IDEA"
[ $(($(date +%s) - t0)) -le 5 ] && ok "compose --max-pieces 2: at once" || ko "compose --max-pieces 2" "took $(($(date +%s) - t0)) s"
expect "compose --from-mate --max-pieces 2 on a 4-piece picture: refused" 2 err "below the mate picture's own" \
  compose --from-mate --max-moves 3 --max-pieces 2 "8k/8G/8P/9/9/9/9/9/9 w 2r2b3g4s4n4l17p 1"

# ---- output files: never the input, never an existing file without --force, - is stdout ----
printf '%s\n' "$IDEA" >idea.sfen
cp idea.sfen idea.keep
expect "compose --out onto its input: refused" 2 err "is the input" compose --iterations 2 --out idea.sfen --force idea.sfen
cmp -s idea.sfen idea.keep && ok "compose --out onto its input: the input kept" || ko "compose --out input" "changed"
echo mine >work.kifu
expect "compose --out onto an existing file: refused" 2 err "exists: give another name, or --force" \
  compose --iterations 2 --out work.kifu idea.sfen
[ "$(cat work.kifu)" = mine ] && ok "compose --out: the file kept" || ko "compose --out existing" "replaced"
expect "compose --out with --force: replaced" 1 err "tsume compose:" compose --iterations 2 --force --out work.kifu idea.sfen
grep -q "^手数----" work.kifu && ok "compose --out --force: a KIF written" || ko "compose --out --force" "$(head -c 100 work.kifu)"
echo mine >hist.jsonl
expect "compose --history onto an existing file: refused" 2 err "--history hist.jsonl exists" \
  compose --iterations 2 --history hist.jsonl idea.sfen
expect "compose --out -: the KIF on stdout" 1 out "手数----" compose --iterations 2 --out - idea.sfen
[ ! -e ./- ] && ok "compose --out -: no file named -" || ko "compose --out -" "a file named - was written"
for opt in sfen kif-file; do
  echo mine >"own.$opt"
  expect "export --$opt onto an existing file: refused" 2 err "own.$opt exists" export --db g.mdb --moves 7 --complete --$opt "own.$opt"
  [ "$(cat "own.$opt")" = mine ] && ok "export --$opt: the file kept" || ko "export --$opt existing" "replaced"
  expect "export --$opt --force: replaced" 0 err "exported 30" export --db g.mdb --moves 7 --complete --$opt "own.$opt" --force
  expect "export --$opt onto the database: refused" 2 err "is the input" export --db g.mdb --moves 7 --$opt g.mdb --force
done
expect "export --sfen -: on stdout" 0 out "complete" export --db g.mdb --moves 7 --complete --sfen -
[ "$(wc -l <out)" = 30 ] && [ ! -e ./- ] && ok "export --sfen -: 30 lines, no file named -" || ko "export --sfen -" "$(wc -l <out) lines"
# ---- export selects as query does: --flag (repeatable), with query's messages ----
"$T" query --db g.mdb --moves 5 --flag hendou --count >q.cnt 2>/dev/null
run export --db g.mdb --moves 5 --flag hendou --sfen -
[ "$ST" = 0 ] && [ "$(wc -l <"$TMP/out")" = "$(tail -n 1 q.cnt)" ] && [ "$(cut -f3 "$TMP/out" | grep -c hendou)" = "$(wc -l <"$TMP/out")" ] &&
  ok "export --flag hendou: the problems query --flag lists ($(tail -n 1 q.cnt))" || ko "export --flag hendou" "exit $ST, $(wc -l <"$TMP/out") lines, query $(tail -n 1 q.cnt)"
run export --db g.mdb --moves=5 --flag=hendou --flag=yozume --sfen=-
n=$(wc -l <"$TMP/out")
[ "$ST" = 0 ] && [ "$n" -gt 0 ] && [ "$(cut -f3 "$TMP/out" | grep 'hendou' | grep -c 'yozume')" = "$n" ] &&
  ok "export --flag=hendou --flag=yozume: $n problems, each with both" || ko "export --flag twice" "exit $ST, $n lines"
expect "export --flag: an unknown name" 2 err "unknown flag 'nosuch'" export --db g.mdb --flag nosuch --sfen -
expect "export --flag: a flaw of a given line only" 1 err "no stored problem has" export --db g.mdb --flag not-mate --sfen -
expect "export --complete --flag yozume: nothing matches" 1 err "exclude each other" export --db g.mdb --complete --flag yozume --sfen -
expect "export --kif-file -: on stdout in UTF-8" 0 out "作品番号" export --db g.mdb --moves 7 --complete --kif-file -

# ---- a refused run leaves nothing: enumerate --mpi of a material with a ranging piece ----
if command -v mpirun >/dev/null 2>&1; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  # Open MPI's own allocations at exit are not this program's: no leak report under ASan
  ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
    timeout 120 mpirun --oversubscribe -np 2 "$T" enumerate --mpi --pieces R1 --db r.mdb >out 2>err
else
  timeout 120 "$T" enumerate --mpi --pieces R1 --db r.mdb >out 2>err # built without MPI: refused the same way
fi
st=$?
[ "$st" = 2 ] && ok "enumerate --mpi R1: refused (exit 2)" || ko "enumerate --mpi R1" "exit $st: $(grep tsume err | head -n 1)"
[ -z "$(ls | grep '^r\.mdb')" ] && ok "enumerate --mpi R1 refused: no file left" || ko "enumerate --mpi R1" "left $(ls | grep '^r\.mdb' | tr '\n' ' ')"
expect "enumerate R1 after the refused run: not 'already exists'" 0 out "problems stored in r.mdb" enumerate --pieces R1 --db r.mdb

# ---- inputs as the user has them: a USI position line, standard input, a diagram without 後手の持駒 ----
expect "check a USI position line with moves" 1 out "verdict: flawed" \
  check "position sfen $IDEA moves 1d1c+ 1b1a G*1b"
grep -q "3 plies (given)" out && ok "check position ... moves: the moves are the line" || ko "check position moves" "$(grep '^line' out)"
expect "check \"position startpos\": read as usi reads it" 1 out "verdict: nomate" check "position startpos"
timeout 60 "$T" check --quiet - <e.sfen >out 2>err
st=$?
[ "$st" = 0 ] && grep -q "summary: 30 problems: 30 complete" out && ok "check -: standard input" || ko "check -" "exit $st: $(head -n 2 err)"
printf '%s\n' "$IDEA" | timeout 60 "$T" check - >out 2>err
grep -q "^== <stdin>" out && ok "check -: named <stdin>" || ko "check - name" "$(head -n 1 out)"
cat >nohand.kif <<'KIF'
  ９ ８ ７ ６ ５ ４ ３ ２ １
+---------------------------+
| ・ ・ ・ ・ ・ ・ ・ ・ ・|一
| ・ ・ ・ ・ ・ ・ ・ ・v玉|二
| ・ ・ ・ ・ ・ ・ ・ ・v金|三
| ・ ・ ・ ・ ・ ・ ・ 金 歩|四
| ・ ・ ・ ・ ・ ・ ・ ・ ・|五
| ・ ・ ・ ・ ・ ・ ・ ・ ・|六
| ・ ・ ・ ・ ・ ・ ・ ・ ・|七
| ・ ・ ・ ・ ・ ・ ・ ・ ・|八
| ・ ・ ・ ・ ・ ・ ・ ・ ・|九
+---------------------------+
先手の持駒：なし
KIF
expect "a diagram without 後手の持駒: the defender holds the rest" 0 out "sfen $IDEA" show nohand.kif
grep -q "no 後手の持駒 line: the defender is given every piece" err && ok "a diagram without 後手の持駒: said on stderr" ||
  ko "no 後手の持駒" "stderr: $(head -n 1 err)"

# ---- a line with a 無駄合 inside it, a KIF that goes on past mate ----
expect "--line with a futile interposition at ply 2: named as such" 1 out \
  "ply 2: P*1b is a futile interposition (無駄合): the line's own move 1, R*1i, already mates" \
  check --line "R*1i P*1b 2c1b" "8k/6S2/7G1/9/9/9/9/9/9 b Rr2b3g3s4n4l18p 1"
grep -q "hayazume" out && ko "--line with a 無駄合" "reported as 早詰: $(grep -c hayazume out)" || ok "--line with a 無駄合: no 早詰 of the other drops"
sed 's/^   4 詰み         ( 0:00\/00:00:00)/   4 １一玉(21)   ( 0:00\/00:00:00)/' "$SRC/data/TG3-000001.kifu" | sed '/変化/,$d' >past.kifu
expect "a KIF going on past mate: said so" 2 err "past.kifu:29:6: illegal move １一玉(21): the line goes on past mate" check past.kifu

# ---- statuses and messages ----
: >empty.sfen
mkdir emptydir
printf 'id\tsfen\n' >header.tsv
expect "check: an empty .sfen list is nothing found (exit 1)" 1 err "empty.sfen: no problem in it" check empty.sfen
expect "check: an empty folder is nothing found (exit 1)" 1 err "emptydir: no problem file in it" check emptydir
expect "check: a TSV of a header alone is nothing found (exit 1)" 1 err "header.tsv: no problem in it" check header.tsv
expect "query --count --json: JSON" 0 out '{"lengths":[{"length":1,"problems":21279,' query --db g.mdb --count --json
expect "query --count --json --moves 7: JSON" 0 out '{"count":79}' query --db g.mdb --count --json --moves 7
expect "query --both-mirrors without --count: refused" 2 err "--both-mirrors goes with --count" query --db g.mdb --both-mirrors
expect "query --complete --flag yozume: said to exclude each other" 1 err "--complete and --flag yozume exclude each other" \
  query --db g.mdb --complete --flag yozume
for f in hayazume nomate fuzume unsettled futile-cut; do
  run query --db g.mdb --flag $f
  grep -q "unknown flag" err && ko "query --flag $f" "$(head -n 1 err)" || ok "query --flag $f: a name the docs give"
done
expect "query --flag not-mate: a flaw of a line, said so" 1 err "a flaw of a given line" query --db g.mdb --flag not-mate
run query --help
grep -q "unsettled, fuzume" out && grep -q "hayazume" out && ok "query --help lists every flag" || ko "query --help" "flags missing"
expect "compose KIF: 完全性 in Japanese" 1 out "完全性：余詰" compose --iterations 2 --seed 1 "$IDEA"
expect "solve --hash too large: names --hash" 3 err "(--hash 100000): give a smaller --hash" solve --hash 100000 "$IDEA"
expect "check --hash too large: names --hash" 3 err "(--hash 100000): give a smaller --hash" check --hash 100000 "$IDEA"
expect "SFEN hand P10: says the count goes first" 2 err "SFEN writes the count before the piece (10P, not P10)" \
  show "8k/9/9/9/9/9/9/9/9 b P10 1"
run compose --help
grep -q "0: never restart" out && grep -q "(default, and 0: no such cap" out && ok "compose --help: --stall 0 and --restarts 0 mean something" ||
  ko "compose --help" "--stall/--restarts 0 not described"

# ---- --help speaks to a user: no references to sections or tables of papers a user has not seen ----
for c in enumerate query export verify db-check solve check roles compose usi bench perft show; do
  run $c --help
  if grep -n -E 'seed 00[0-9]|Table [0-9]|§' out >hits; then ko "$c --help" "$(head -n 2 hits | tr '\n' ' ')"; else ok "$c --help: in words"; fi
done
run compose --help
grep -q "A run repeats exactly when it is" out && ok "compose --help: says when a run repeats" || ko "compose --seed" "not said"

echo "$PASS passed, $FAIL failed"
[ "$FAIL" -eq 0 ]
