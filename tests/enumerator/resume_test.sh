#!/bin/sh
# SIGKILL an enumeration at random moments, resume it until it completes, and
# compare the database with an uninterrupted run (every record, key order).
# Also: the exit statuses of bad enumerate/query/export/verify invocations.
T="$1"
. "$(dirname "$0")/testlib.sh"
expect_status() { # name expected command...
  name=$1; want=$2; shift 2
  "$@" >"$tmp/out" 2>"$tmp/err"; got=$?
  if [ "$got" = "$want" ]; then ok "$name (exit $got)"; else bad "$name: exit $got, expected $want: $(cat "$tmp/err")"; fi
}

MAT=S1N1P1
"$T" enumerate --pieces $MAT --db "$tmp/ref.mdb" --batch 2000 >/dev/null 2>&1 || bad "reference run"
"$T" query --db "$tmp/ref.mdb" --json >"$tmp/ref.txt" || bad "reference query"
"$T" query --db "$tmp/ref.mdb" --generation >"$tmp/ref.gen" || bad "reference generation figures"
refn=$(wc -l <"$tmp/ref.txt")
[ "$refn" -gt 100000 ] && ok "reference run: $refn records" || bad "reference run has $refn records"
# a sort memory of 1 MB spills sorted runs to files and merges them
"$T" enumerate --pieces $MAT --db "$tmp/runs.mdb" --batch 2000 --sort-mem 1 --stats >"$tmp/runs.out" 2>&1 || bad "run with --sort-mem 1"
grep -q '^sort: [0-9]* runs' "$tmp/runs.out" && ok "--sort-mem 1 spills runs" || bad "--sort-mem 1 spilled nothing"
"$T" query --db "$tmp/runs.mdb" --json | cmp -s - "$tmp/ref.txt" && ok "merged runs give the same database" || bad "merged runs differ"
[ -z "$(ls "$tmp" | grep 'sort-')" ] && ok "no run file left beside the database" || bad "run files left: $(ls "$tmp")"

seed=12345
for trial in 1 2 3; do
  rm -f "$tmp/k.mdb" "$tmp/k.mdb-lock"
  # the last trial is killed while it spills and merges sorted runs
  sm=1024; [ $trial = 3 ] && sm=1
  kills=0
  first=1
  while :; do
    seed=$(( (seed * 1103515245 + 12345) % 2147483648 ))
    ms=$(( 200 + seed % 1900 ))
    if [ $first = 1 ]; then
      "$T" enumerate --pieces $MAT --db "$tmp/k.mdb" --batch 2000 --sort-mem $sm >/dev/null 2>&1 &
    else
      "$T" enumerate --pieces $MAT --db "$tmp/k.mdb" --batch 2000 --sort-mem $sm --resume >/dev/null 2>&1 &
    fi
    pid=$!
    first=0
    sleep "$(awk "BEGIN{print $ms/1000}")"
    if kill -9 $pid 2>/dev/null; then
      wait $pid 2>/dev/null
      kills=$((kills + 1))
      # the figures are written last: a killed run has none (or, killed in its last
      # instant, all of them)
      "$T" query --db "$tmp/k.mdb" --generation >"$tmp/k.gen" 2>/dev/null; st=$?
      if [ $st = 1 ] || { [ $st = 0 ] && cmp -s "$tmp/k.gen" "$tmp/ref.gen"; }; then :
      else bad "trial $trial: killed run: query --generation exit $st"; fi
      [ $kills -ge 6 ] && break
    else
      wait $pid
      break
    fi
  done
  "$T" enumerate --pieces $MAT --db "$tmp/k.mdb" --batch 2000 --resume >/dev/null 2>"$tmp/err" || bad "trial $trial: final resume failed: $(cat "$tmp/err")"
  "$T" query --db "$tmp/k.mdb" --json >"$tmp/k.txt"
  if cmp -s "$tmp/ref.txt" "$tmp/k.txt"; then ok "trial $trial: $kills kills, database equal to the uninterrupted run"
  else bad "trial $trial: $kills kills, database differs ($(wc -l <"$tmp/k.txt") records)"; fi
  "$T" query --db "$tmp/k.mdb" --generation | cmp -s - "$tmp/ref.gen" && ok "trial $trial: generation figures equal" \
    || bad "trial $trial: generation figures differ"
done

# the table's checkpoint: a run keeps its table in PATH-table once the layers
# are done, and a run resumed from there reads it instead of making it again;
# one that is damaged, cut short or of another material is said and passed over
ck_run() { # a fresh run, killed as soon as its checkpoint is whole (tried again when it ends first)
  for attempt in 1 2 3 4 5; do
    rm -f "$tmp/c.mdb" "$tmp/c.mdb-lock" "$tmp/c.mdb-table"
    "$T" enumerate --pieces $MAT --db "$tmp/c.mdb" --batch 2000 >/dev/null 2>&1 &
    pid=$!
    while [ ! -e "$tmp/c.mdb-table" ] && kill -0 $pid 2>/dev/null; do sleep 0.02; done
    kill -9 $pid 2>/dev/null
    wait $pid 2>/dev/null
    [ -e "$tmp/c.mdb-table" ] && return 0
  done
  bad "no checkpoint seen beside the run in 5 runs"
  return 1
}
ck_resume() { # name expected-message
  "$T" enumerate --pieces $MAT --db "$tmp/c.mdb" --batch 2000 --resume >/dev/null 2>"$tmp/c.err" ||
    { bad "$1: resume failed: $(tail -1 "$tmp/c.err")"; return; }
  grep -q "$2" "$tmp/c.err" && ok "$1: $(grep "$2" "$tmp/c.err" | sed "s|$tmp/||g")" ||
    bad "$1: no \"$2\" in: $(grep -v '^[a-z]* *layer' "$tmp/c.err" | head -2)"
  "$T" query --db "$tmp/c.mdb" --json | cmp -s - "$tmp/ref.txt" && ok "$1: the same database" ||
    bad "$1: database differs"
  "$T" query --db "$tmp/c.mdb" --generation | cmp -s - "$tmp/ref.gen" && ok "$1: the same generation figures" ||
    bad "$1: generation figures differ"
  [ ! -e "$tmp/c.mdb-table" ] && ok "$1: the checkpoint is gone once the run is whole" || bad "$1: checkpoint left"
}
ck_run && ck_resume "checkpoint" "resuming: the table (.*) read from"
if ck_run; then
  size=$(stat -c %s "$tmp/c.mdb-table")
  printf 'XXXXXXXX' | dd of="$tmp/c.mdb-table" bs=1 seek=$((size / 2)) conv=notrunc 2>/dev/null
  ck_resume "damaged checkpoint" "damaged (checksum); the table is made again"
fi
if ck_run; then
  truncate -s $(($(stat -c %s "$tmp/c.mdb-table") / 2)) "$tmp/c.mdb-table"
  ck_resume "checkpoint cut short" "cut short; the table is made again"
fi
if ck_run; then
  printf '\011' | dd of="$tmp/c.mdb-table" bs=1 seek=28 conv=notrunc 2>/dev/null # a piece count of the header
  ck_resume "checkpoint of another material" "of another material or other rules; the table is made again"
fi
# a checkpoint larger than the resumed run's ceiling is read into a table in a file beside the
# database (G4: a 4 MB table, past --mem 2's 1.75 MB)
"$T" enumerate --pieces G4 --db "$tmp/g4ref.mdb" --threads 2 >/dev/null 2>&1 || bad "G4 reference run"
"$T" query --db "$tmp/g4ref.mdb" --json >"$tmp/g4ref.json"
seen=0
for attempt in 1 2 3 4 5; do
  rm -f "$tmp"/g4.mdb*
  "$T" enumerate --pieces G4 --db "$tmp/g4.mdb" --threads 2 >/dev/null 2>&1 &
  pid=$!
  while [ ! -e "$tmp/g4.mdb-table" ] && kill -0 $pid 2>/dev/null; do sleep 0.02; done
  kill -9 $pid 2>/dev/null
  wait $pid 2>/dev/null
  [ -e "$tmp/g4.mdb-table" ] && { seen=1; break; }
done
if [ $seen = 1 ]; then
  "$T" enumerate --pieces G4 --db "$tmp/g4.mdb" --threads 2 --resume --mem 2 --stats >"$tmp/g4.out" 2>"$tmp/g4.err" ||
    bad "G4 --mem 2 resume failed: $(tail -1 "$tmp/g4.err")"
  grep -q "resuming: the table (.*) read from" "$tmp/g4.err" && grep -q "(4.0 MB, past --mem: in a file beside the database)" "$tmp/g4.out" &&
    "$T" query --db "$tmp/g4.mdb" --json | cmp -s - "$tmp/g4ref.json" &&
    ok "G4 checkpoint past --mem 2: read into a table in a file, the same database" ||
    bad "G4 checkpoint past --mem 2: $(grep 'table:' "$tmp/g4.out") $(tail -1 "$tmp/g4.err")"
else
  bad "G4: no checkpoint seen beside the run in 5 runs"
fi
# a fresh run (--force) does not take up a checkpoint left beside the file it replaces
if ck_run; then
  "$T" enumerate --pieces $MAT --db "$tmp/c.mdb" --batch 2000 --force >/dev/null 2>"$tmp/c.err"
  ! grep -q "read from" "$tmp/c.err" && [ ! -e "$tmp/c.mdb-table" ] &&
    "$T" query --db "$tmp/c.mdb" --json | cmp -s - "$tmp/ref.txt" && ok "--force: the checkpoint left is not used" ||
    bad "--force took up the checkpoint"
fi

# bad usage and bad input
expect_status "enumerate without --pieces" 2 "$T" enumerate --db "$tmp/x.mdb"
expect_status "enumerate bad spec" 2 "$T" enumerate --pieces X4 --db "$tmp/x.mdb"
expect_status "enumerate too many pieces with a ranging piece" 2 "$T" enumerate --pieces R1G2S2 --db "$tmp/x.mdb"
expect_status "enumerate bad --sort-mem" 2 "$T" enumerate --pieces $MAT --db "$tmp/x.mdb" --sort-mem 0
expect_status "enumerate bad --solver-hash" 2 "$T" enumerate --pieces R2 --db "$tmp/x.mdb" --solver-hash 0
expect_status "enumerate onto an existing db" 2 "$T" enumerate --pieces $MAT --db "$tmp/ref.mdb"
expect_status "resume with another material" 3 "$T" enumerate --pieces G2 --db "$tmp/ref.mdb" --resume
printf 'not a database at all, just text\n' >"$tmp/foreign.mdb"
expect_status "query a foreign file" 3 "$T" query --db "$tmp/foreign.mdb" --count
expect_status "enumerate --force refuses a foreign file" 3 "$T" enumerate --pieces G2 --db "$tmp/foreign.mdb" --force
grep -q 'just text' "$tmp/foreign.mdb" && ok "foreign file left untouched" || bad "foreign file changed"
expect_status "query a missing file" 3 "$T" query --db "$tmp/missing.mdb"
expect_status "query bad flag" 2 "$T" query --db "$tmp/ref.mdb" --flag nosuch
expect_status "export without output" 2 "$T" export --db "$tmp/ref.mdb"
expect_status "verify missing db" 3 "$T" verify --db "$tmp/missing.mdb"
expect_status "query count" 0 "$T" query --db "$tmp/ref.mdb" --moves 9 --count
[ "$(tail -1 "$tmp/out")" = "$(grep -c '"length":9,' "$tmp/ref.txt")" ] && ok "count equals listed records" || bad "count mismatch"
expect_status "verify clean" 0 "$T" verify --db "$tmp/ref.mdb" --moves 9

summary
