#!/bin/sh
# `tsume verify` finds what is wrong: a stored length that is not the checker's,
# and a problem marked complete that has a second mating check (余詰). The
# records are rewritten by tamper_db in copies of a real G2P1 database.
T="$1"
TAMPER="$2"
. "$(dirname "$0")/testlib.sh"

"$T" enumerate --pieces G2P1 --db "$tmp/ref.mdb" --threads 1 >/dev/null 2>&1 || bad "enumerate G2P1"
"$T" verify --db "$tmp/ref.mdb" >"$tmp/v.txt"; st=$?
[ $st = 0 ] && grep -q ' 0 disagreements' "$tmp/v.txt" && ok "untouched database: $(cat "$tmp/v.txt")" ||
  bad "untouched database: exit $st: $(cat "$tmp/v.txt")"

# the flags of every record (complete or not) are the checker's
"$T" verify --db "$tmp/ref.mdb" --all >"$tmp/v.txt"; st=$?
[ $st = 0 ] && grep -q 'verified 27158 problems.* 0 disagreements' "$tmp/v.txt" && ok "--all: $(cat "$tmp/v.txt")" ||
  bad "--all: exit $st: $(head -5 "$tmp/v.txt")"

for mode in length yozume; do
  cp -r "$tmp/ref.mdb" "$tmp/$mode.mdb"
  before=$("$TAMPER" "$tmp/$mode.mdb" $mode) || { bad "tamper_db $mode found no record"; continue; }
  "$T" verify --db "$tmp/$mode.mdb" >"$tmp/v.txt"; st=$?
  n=$(grep -c '^DISAGREE' "$tmp/v.txt")
  case $mode in
    length) want='stored length 5 .*checker complete, mate 3' ;;
    yozume) want='checker flawed.*yozume at 1: ' ;;
  esac
  if [ $st = 1 ] && [ "$n" = 1 ] && grep -q "$want" "$tmp/v.txt" && grep -q ' 1 disagreements' "$tmp/v.txt"; then
    ok "$mode ($before): $(grep '^DISAGREE' "$tmp/v.txt")"
  else
    bad "$mode ($before): exit $st, $n lines: $(cat "$tmp/v.txt")"
  fi
done

# the workers split the records; the report is the same with any number of them
cp -r "$tmp/ref.mdb" "$tmp/both.mdb"
"$TAMPER" "$tmp/both.mdb" length >/dev/null && "$TAMPER" "$tmp/both.mdb" yozume >/dev/null || bad "tamper_db both"
"$T" verify --db "$tmp/both.mdb" --threads 1 | sed 's/ in [0-9.]* s:/:/' >"$tmp/t1.txt"
"$T" verify --db "$tmp/both.mdb" --threads 3 | sed 's/ in [0-9.]* s:/:/' >"$tmp/t3.txt"
if cmp -s "$tmp/t1.txt" "$tmp/t3.txt" && [ "$(grep -c '^DISAGREE' "$tmp/t1.txt")" = 2 ]; then ok "--threads 1 and 3 report alike"
else bad "--threads 1 and 3 differ: $(diff "$tmp/t1.txt" "$tmp/t3.txt")"; fi

# a length range walks those lengths only; a sample is drawn among them and is the same at every run
"$T" verify --db "$tmp/ref.mdb" --min-moves 5 >"$tmp/v.txt"; st=$?
[ $st = 0 ] && grep -q 'verified 146 complete works' "$tmp/v.txt" && ok "--min-moves 5: 146 works (116 + 30 of 5 and 7 plies)" ||
  bad "--min-moves 5: exit $st: $(cat "$tmp/v.txt")"
"$T" verify --db "$tmp/both.mdb" --sample=500 --seed=3 --max-moves=3 >"$tmp/s1.txt"
"$T" verify --db "$tmp/both.mdb" --sample 500 --seed 3 --max-moves 3 --threads 1 >"$tmp/s2.txt"
if grep -q '^sample of 500 drawn from 12519 (seed 3)' "$tmp/s1.txt" && grep -q 'verified 500 complete works' "$tmp/s1.txt" &&
  cmp -s "$(sed 's/ in [0-9.]* s:/:/' "$tmp/s1.txt" >"$tmp/s1n.txt"; echo "$tmp/s1n.txt")" \
         "$(sed 's/ in [0-9.]* s:/:/' "$tmp/s2.txt" >"$tmp/s2n.txt"; echo "$tmp/s2n.txt")"; then
  ok "--sample 500 of the 1- and 3-ply works: the same sample at each run"
else bad "--sample 500: $(cat "$tmp/s1.txt" "$tmp/s2.txt")"; fi
"$T" verify --db "$tmp/both.mdb" --sample 100000 >"$tmp/v.txt"; st=$?
[ $st = 1 ] && [ "$(grep -c '^DISAGREE' "$tmp/v.txt")" = 2 ] && grep -q '^sample of \([0-9]*\) drawn from \1 ' "$tmp/v.txt" &&
  ok "a sample larger than the works checks them all and finds both tampered records" ||
  bad "--sample 100000: exit $st: $(tail -3 "$tmp/v.txt")"
for args in "--moves 3 --min-moves 2" "--min-moves 5 --max-moves 3" "--sample 0" "--sample 5 --limit 5"; do
  "$T" verify --db "$tmp/ref.mdb" $args >/dev/null 2>"$tmp/e.txt"; st=$?
  [ $st = 2 ] && grep -q 'tsume verify: ' "$tmp/e.txt" && ok "verify $args: exit 2, $(head -1 "$tmp/e.txt")" ||
    bad "verify $args: exit $st"
done
summary
