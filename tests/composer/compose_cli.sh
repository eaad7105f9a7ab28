#!/bin/sh
# tsume compose / tsume roles end to end: bad input (exit 2 with a message,
# a missing file exit 3), the attacker's king taken off (and kept with
# --keep-king), --db (records that tsume query lists and tsume verify finds
# sound), and a compose killed by SIGKILL leaves a KIF that reads back.
#
#   compose_cli.sh TSUME
set -u
TSUME=${1:?usage: compose_cli.sh TSUME}
. "$(dirname "$0")/../enumerator/testlib.sh"
dir=$tmp

# expect STATUS NAME CMD...: the exit status and one message on stderr
expect() {
  want=$1
  name=$2
  shift 2
  "$@" >"$dir/out" 2>"$dir/err"
  got=$?
  if [ "$got" != "$want" ]; then
    bad "$name: exit $got, expected $want ($(head -c 300 "$dir/err"))"
  elif [ "$want" != 0 ] && ! grep -q "tsume " "$dir/err"; then
    bad "$name: exit $got without a message"
  else
    echo "ok: $name: exit $got: $(head -1 "$dir/err")"
  fi
}

# a 3-ply diagram with 余詰 (type B's B-17) and a simple mate
B17='6k1S/9/6+P2/6N2/9/9/9/9/9 b 2r2b4g3s3n4l17p 1'
EASY='8k/9/8P/9/9/9/9/9/9 b G2r2b3g4s4n4l17p 1'
NOMATE='8k/9/9/9/9/9/9/9/9 b G2r2b3g4s4n4l18p 1'

# ---- bad input ----
for cmd in compose roles; do
  expect 2 "$cmd: no mate" "$TSUME" $cmd "$NOMATE"
  expect 2 "$cmd: defender without a king" "$TSUME" $cmd '8K/8P/9/9/9/9/9/9/9 b G2r2b3g4s4n4l17p 1'
  expect 2 "$cmd: a pawn with no move" "$TSUME" $cmd 'P7k/9/9/9/9/9/9/9/9 b G2r2b3g4s4n4l17p 1'
  expect 2 "$cmd: the defender in check" "$TSUME" $cmd '8k/8P/9/9/9/9/9/9/9 b G2r2b3g4s4n4l17p 1'
  printf 'hello world\n' >"$dir/bad.sfen"
  expect 2 "$cmd: malformed file" "$TSUME" $cmd "$dir/bad.sfen"
  printf '# KIF\n手数----指手---------消費時間--\n   1 ２二金打\n' >"$dir/bad.kif"
  expect 2 "$cmd: malformed KIF" "$TSUME" $cmd "$dir/bad.kif"
  expect 3 "$cmd: missing file" "$TSUME" $cmd "$dir/absent.kif"
done
expect 2 "compose: --keep-line with an illegal move" "$TSUME" compose --keep-line "G*1b 2a1b" "$EASY"
expect 2 "compose: --keep-line that is not a mate" "$TSUME" compose --keep-line "G*2b" "$EASY"
expect 2 "roles: --line that is not a mate" "$TSUME" roles --line "G*2b" "$EASY"
expect 2 "roles: --line that does not end in mate" "$TSUME" roles --line "G*2b 1a2b" "$EASY"
expect 2 "compose: unknown option" "$TSUME" compose --bogus "$EASY"
expect 2 "compose: --threads 0" "$TSUME" compose --threads 0 "$EASY"
expect 2 "compose --from-mate: not a mate" "$TSUME" compose --from-mate '8k/9/8P/9/9/9/9/9/9 w G2r2b3g4s4n4l17p 1'
expect 2 "compose --from-mate: attacker's hand not empty" "$TSUME" compose --from-mate \
  '8k/8G/8P/9/9/9/9/9/9 w G2r2b2g4s4n4l17p 1'
expect 0 "roles: a mating --line" "$TSUME" roles --line "G*1b" "$EASY"

# ---- the attacker's king ----
REAL='l2+R2snl/2P2k3/2nppppl1/p7p/9/1PG3P1P/P3PPB2/1+b3KS2/+p4G1+pL b GN2Pr2snp 1'
"$TSUME" compose --json --iterations 1 "$REAL" >"$dir/k.out" 2>"$dir/k.err"
sfen=$(tail -1 "$dir/k.out" | sed -n 's/^{"result":"[a-z]*","sfen":"\([^"]*\)".*/\1/p')
if ! tail -1 "$dir/k.out" | grep -q '"king_dropped":true'; then
  bad "king: king_dropped not reported"
elif printf '%s' "$sfen" | cut -d' ' -f1 | grep -q K; then
  bad "king: the result $sfen still has the attacker's king"
elif ! grep -q "attacker's king on 4八 is taken off" "$dir/k.err"; then
  bad "king: no message on stderr"
else
  echo "ok: king: taken off ($sfen)"
fi
"$TSUME" compose --json --keep-king --iterations 1 "$REAL" >"$dir/k.out" 2>/dev/null
sfen=$(tail -1 "$dir/k.out" | sed -n 's/^{"result":"[a-z]*","sfen":"\([^"]*\)".*/\1/p')
if tail -1 "$dir/k.out" | grep -q '"king_dropped":true' || ! printf '%s' "$sfen" | cut -d' ' -f1 | grep -q K; then
  bad "king: --keep-king did not keep it ($sfen)"
else
  echo "ok: king: --keep-king keeps it"
fi

# ---- --db ----
db=$dir/works.mdb
"$TSUME" compose --quiet --json --iterations 300 --db "$db" "$B17" >"$dir/c1.out"
st=$?
[ "$st" -le 1 ] || bad "db: compose exit $st"
"$TSUME" compose --quiet --json --iterations 60 --seed 2 --db "$db" '9/8k/8g/7GP/9/9/9/9/9 b 2r2b2g4s4n4l17p 1' \
  >"$dir/c2.out"
st=$?
[ "$st" -le 1 ] || bad "db: second compose exit $st"
"$TSUME" compose --from-mate --quiet --max-moves 3 --db "$db" '8k/8G/8P/9/9/9/9/9/9 w 2r2b3g4s4n4l17p 1' \
  >"$dir/fm.out"
st=$?
[ "$st" = 0 ] || bad "db: --from-mate exit $st"
"$TSUME" query --db "$db" >"$dir/q.out" 2>"$dir/q.err" || bad "db: query failed: $(cat "$dir/q.err")"
grep -q "not finished" "$dir/q.err" && bad "db: query says the database is not finished"
for f in c1 c2; do
  s=$(tail -1 "$dir/$f.out" | sed -n 's/^{"result":"[a-z]*","sfen":"\([^"]*\)".*/\1/p')
  len=$(tail -1 "$dir/$f.out" | sed -n 's/.*"length":\([0-9]*\),"line".*/\1/p')
  if grep -q "^$s	$len	" "$dir/q.out"; then echo "ok: db: query lists $s ($len plies)"; else bad "db: $s not listed"; fi
done
while IFS="$(printf '\t')" read -r len s line; do
  grep -q "^$s	$len	complete" "$dir/q.out" || bad "db: the --from-mate work $s is not listed as complete"
done <"$dir/fm.out"
want=$(($(wc -l <"$dir/fm.out") + 2))
got=$(wc -l <"$dir/q.out")
[ "$got" = "$want" ] || bad "db: $got records, expected $want"
"$TSUME" verify --db "$db" >"$dir/v.out" 2>&1
st=$?
if [ "$st" != 0 ] || ! grep -q " 0 disagreements" "$dir/v.out"; then
  bad "db: verify exit $st: $(cat "$dir/v.out")"
else
  echo "ok: db: $(head -1 "$dir/v.out")"
fi
"$TSUME" verify --all --threads 1 --db "$db" >"$dir/v.out" 2>&1
st=$?
if [ "$st" != 0 ] || ! grep -q "verified $want problems.* 0 disagreements" "$dir/v.out"; then
  bad "db: verify --all exit $st: $(cat "$dir/v.out")"
else
  echo "ok: db: $(head -1 "$dir/v.out")"
fi
"$TSUME" export --db "$db" --kif "$dir/kif" >/dev/null 2>&1 || bad "db: export failed"
# a database of another material is not written into
"$TSUME" enumerate --pieces P1 --db "$dir/p1.mdb" --threads 1 >/dev/null 2>&1
expect 3 "db: an enumerator's database is refused" "$TSUME" compose --quiet --iterations 5 --db "$dir/p1.mdb" "$EASY"

# ---- a killed run leaves its best so far ----
out=$dir/killed.kif
"$TSUME" compose --quiet --time-ms 60000 --out "$out" "$B17" >/dev/null 2>&1 &
pid=$!
sleep 2
kill -9 "$pid" 2>/dev/null
wait "$pid" 2>/dev/null
if [ ! -f "$out" ]; then
  bad "kill: no KIF after 2 s"
else
  "$TSUME" check "$out" >"$dir/kc.out" 2>&1
  st=$?
  if [ "$st" -le 1 ] && grep -q "summary: 1 problem" "$dir/kc.out"; then
    echo "ok: kill: the KIF left reads back ($(grep '^verdict' "$dir/kc.out"))"
  else
    bad "kill: the KIF left does not read back (check exit $st): $(tail -3 "$dir/kc.out")"
  fi
fi

summary
