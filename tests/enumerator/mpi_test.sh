#!/bin/sh
# enumerate --mpi over 1, 2 and 3 ranks on this machine gives the database of
# a single-process run (md5 of query --json) and the same --stats figures (the
# layers made on records, and position by position with --concrete), with
# the classification's table in shares (default, and read one-sided by every
# other rank) or whole on the machine; no shard is left; a material with a ranging piece is refused; a run whose rank
# is killed stops, and --resume then gives the same database, from the ranks'
# checkpoints of the table when every rank has one.
# Skipped (exit 77) when tsume was built without MPI or mpirun is missing.
T="$1"
HAVE_MPI="$2"
LOWROOM="$3"
if [ "$HAVE_MPI" != "ON" ] || ! command -v mpirun >/dev/null 2>&1; then
  echo "skip: tsume built without MPI (libopenmpi-dev) or no mpirun"
  exit 77
fi
. "$(dirname "$0")/testlib.sh"
# Open MPI refuses root unless told; 3 ranks on fewer cores need --oversubscribe
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
MPIRUN="mpirun --oversubscribe"
# Open MPI's own libraries keep allocations until exit; in the sanitizer build the
# leak check would report them (they are not tsume's), so it is off for the ranks.
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
export ASAN_OPTIONS
stable() { grep -v -E '^(time:|peak RSS|sort:|mpi:)|MB\)$' "$1" | sed 's/ in [^ ]*\.mdb / in DB /'; }
MAT=G2P1
"$T" enumerate --pieces $MAT --db "$tmp/one.mdb" --threads 1 --stats >"$tmp/one.out" 2>/dev/null || bad "single-process run"
"$T" query --db "$tmp/one.mdb" --json >"$tmp/one.json"
ref=$(md5sum <"$tmp/one.json" | cut -c1-32)
stable "$tmp/one.out" >"$tmp/one.stable"
for np in 1 2 3; do
  if timeout 300 $MPIRUN -np $np "$T" enumerate --mpi --pieces $MAT --db "$tmp/m$np.mdb" --threads 1 --stats \
    >"$tmp/m$np.out" 2>"$tmp/m$np.err"; then
    got=$("$T" query --db "$tmp/m$np.mdb" --json | md5sum | cut -c1-32)
    [ "$got" = "$ref" ] && ok "$np ranks: the same database ($got)" || bad "$np ranks: md5 $got, single-process $ref"
    stable "$tmp/m$np.out" | cmp -s - "$tmp/one.stable" && ok "$np ranks: the same per-length and per-layer figures" ||
      bad "$np ranks: figures differ: $(stable "$tmp/m$np.out" | diff - "$tmp/one.stable" | head -5)"
    grep -q "^mpi: $np ranks" "$tmp/m$np.out" && ok "$np ranks: --stats names them" || bad "$np ranks: no mpi line"
  else
    bad "$np ranks: mpirun failed: $(tail -3 "$tmp/m$np.err")"
  fi
done
# the classification's table: each rank's share read by the others one-sided (remote: as over a
# network), or the whole table on every machine; two threads a rank share the one-sided reads
for mode in remote whole; do
  for np in 2 3; do
    if timeout 300 $MPIRUN -np $np "$T" enumerate --mpi --mpi-table=$mode --pieces $MAT --db "$tmp/$mode$np.mdb" \
      --threads 2 --stats >"$tmp/$mode$np.out" 2>"$tmp/$mode$np.err"; then
      got=$("$T" query --db "$tmp/$mode$np.mdb" --json | md5sum | cut -c1-32)
      [ "$got" = "$ref" ] && ok "--mpi-table=$mode, $np ranks: the same database" || bad "--mpi-table=$mode, $np ranks: md5 $got, single-process $ref"
      stable "$tmp/$mode$np.out" | cmp -s - "$tmp/one.stable" && ok "--mpi-table=$mode, $np ranks: the same figures" ||
        bad "--mpi-table=$mode, $np ranks: figures differ"
    else
      bad "--mpi-table=$mode, $np ranks: mpirun failed: $(tail -3 "$tmp/$mode$np.err")"
    fi
  done
done
reads=$(sed -n 's/^mpi: .*, \([0-9]*\) look-ups of another.*/\1/p' "$tmp/remote2.out")
[ "${reads:-0}" -gt 0 ] && ok "--mpi-table=remote: $reads look-ups read one-sided ($(sed -n 's/^mpi: .*(\(.*\))$/\1/p' "$tmp/remote2.out"))" ||
  bad "--mpi-table=remote made no remote read: $(grep '^mpi:' "$tmp/remote2.out")"
lreads=$(sed -n 's/^mpi: the layers made on records read \([0-9]*\) positions.*/\1/p' "$tmp/m2.out")
[ "${lreads:-0}" -gt 0 ] && ok "2 ranks: the layers made on records read $lreads positions of the other rank's table" ||
  bad "2 ranks: no layers' reads: $(grep '^mpi:' "$tmp/m2.out")"
# the layers made position by position (--concrete), exchanged in rounds: the same database
timeout 300 $MPIRUN -np 2 "$T" enumerate --mpi --concrete --pieces $MAT --db "$tmp/mk.mdb" --threads 1 >/dev/null 2>&1 &&
  [ "$("$T" query --db "$tmp/mk.mdb" --json | md5sum | cut -c1-32)" = "$ref" ] &&
  ok "--concrete over 2 ranks: the same database" || bad "--concrete over 2 ranks differs or failed"
grep -q "^mpi: 2 ranks; the classification read the ranks' shares (the largest [0-9.]* MB of [0-9.]* MB), 0 look-ups" "$tmp/m2.out" &&
  ok "default (shares) on one machine: every share read in memory" || bad "default: $(grep '^mpi:' "$tmp/m2.out")"
"$T" enumerate --mpi --mpi-table=all --pieces $MAT --db "$tmp/x.mdb" >/dev/null 2>"$tmp/x.err"; st=$?
[ $st = 2 ] && grep -q "mpi-table needs shares, whole or remote" "$tmp/x.err" && ok "--mpi-table=all refused (exit 2)" ||
  bad "--mpi-table=all: exit $st"
[ -z "$(ls "$tmp" | grep 'shard')" ] && ok "no shard left" || bad "shards left: $(ls "$tmp" | grep shard)"
"$T" query --db "$tmp/m2.mdb" --count >"$tmp/c2" && "$T" query --db "$tmp/one.mdb" --count | cmp -s - "$tmp/c2" &&
  ok "query --count equal" || bad "query --count differs"
# --store complete over the ranks
timeout 300 $MPIRUN -np 2 "$T" enumerate --mpi --pieces $MAT --db "$tmp/mc.mdb" --threads 1 --store complete >/dev/null 2>&1 ||
  bad "--store complete over 2 ranks failed"
"$T" query --db "$tmp/mc.mdb" --json >"$tmp/mc.json"
"$T" query --db "$tmp/one.mdb" --complete --json >"$tmp/one-c.json"
"$T" query --db "$tmp/mc.mdb" --count | cmp -s - "$tmp/c2" && cmp -s "$tmp/mc.json" "$tmp/one-c.json" &&
  ok "--store complete over 2 ranks: the counts of all, the complete works stored" || bad "--store complete over 2 ranks differs"
# a disk short of room for the shards and the database: every rank's checkpoint of the table goes, the
# run goes on (statvfs reports 1 MB free in the ranks; not under the sanitizers, which cannot be preloaded)
case "$(ldd "$T" 2>/dev/null)" in
*libasan* | *libtsan*) echo "sanitizer build: preloading is not possible, the short-room case is skipped" ;;
*)
  if [ -n "$LOWROOM" ] && timeout 300 $MPIRUN -np 2 -x LD_PRELOAD="$LOWROOM" "$T" enumerate --mpi --pieces $MAT \
    --db "$tmp/room.mdb" --threads 1 >/dev/null 2>"$tmp/room.err"; then
    grep -q "room.mdb.shard-\*-table removed to make room: the shards and the database may take [0-9]* MB and the disk had 1 MB free" "$tmp/room.err" &&
      grep -q "room.mdb: the shards and the database may take [0-9]* MB and the disk has 1 MB free" "$tmp/room.err" &&
      [ "$("$T" query --db "$tmp/room.mdb" --json | md5sum | cut -c1-32)" = "$ref" ] &&
      ok "a disk short of room over 2 ranks: the checkpoints removed and said, the same database" ||
      bad "short of room over 2 ranks: $(grep -v '^[a-z]* *layer' "$tmp/room.err" | head -3)"
  else
    bad "short of room over 2 ranks: the run failed: $(tail -3 "$tmp/room.err")"
  fi
  ;;
esac
# ranging pieces are not distributed: a clear message, exit 2, on every rank
timeout 120 $MPIRUN -np 2 "$T" enumerate --mpi --pieces R1G1 --db "$tmp/r.mdb" >/dev/null 2>"$tmp/r.err"; st=$?
[ $st = 2 ] && grep -q "without ranging pieces" "$tmp/r.err" && ok "R1G1 refused (exit 2)" || bad "R1G1: exit $st: $(tail -2 "$tmp/r.err")"
[ -z "$(ls "$tmp" | grep '^r\.mdb')" ] && ok "R1G1 refused: no file left" || bad "R1G1 refused: left $(ls "$tmp" | grep '^r\.mdb' | tr '\n' ' ')"
# an existing database is not replaced without --force
timeout 120 $MPIRUN -np 2 "$T" enumerate --mpi --pieces $MAT --db "$tmp/m2.mdb" >/dev/null 2>"$tmp/e.err"; st=$?
[ $st != 0 ] && grep -q "already exists" "$tmp/e.err" && ok "existing database kept (exit $st)" || bad "existing database: exit $st"
# kill one rank at a random moment of its work (once both ranks have opened their
# shards: mpirun itself does not stop when a rank dies before it has started); the run
# stops, --resume completes it the same
seed=7
for trial in 1 2; do
  rm -f "$tmp"/k.mdb*
  timeout -k 10 300 $MPIRUN -np 2 "$T" enumerate --mpi --pieces S1N2 --db "$tmp/k.mdb" --threads 1 >/dev/null 2>&1 &
  mp=$!
  i=0
  while kill -0 $mp 2>/dev/null && ! { [ -e "$tmp/k.mdb.shard-0" ] && [ -e "$tmp/k.mdb.shard-1" ]; } && [ $i -lt 30000 ]; do
    sleep 0.01; i=$((i + 1))
  done
  seed=$(( (seed * 1103515245 + 12345) % 2147483648 ))
  sleep "0.$(( seed % 4 ))"
  victim=$(pgrep -f "^$T enumerate --mpi --pieces S1N2 --db $tmp/k.mdb" | tail -1)
  [ -n "$victim" ] && kill -9 "$victim" 2>/dev/null
  wait $mp; st=$?
  pkill -9 -f "enumerate --mpi --pieces S1N2 --db $tmp/k.mdb" 2>/dev/null
  if [ $st = 0 ]; then ok "trial $trial: finished before the kill"
  elif [ -z "$victim" ]; then bad "trial $trial: the run, not killed, ended with exit $st"
  elif [ $st = 124 ]; then bad "trial $trial: the run did not stop within 300 s of the kill"
  else ok "trial $trial: killed rank stopped the run (exit $st)"; fi
  timeout 300 $MPIRUN -np 2 "$T" enumerate --mpi --pieces S1N2 --db "$tmp/k.mdb" --threads 1 --resume >/dev/null 2>"$tmp/k.err" ||
    bad "trial $trial: resume failed: $(tail -2 "$tmp/k.err")"
done
"$T" enumerate --pieces S1N2 --db "$tmp/s.mdb" --threads 1 >/dev/null 2>&1 || bad "single-process S1N2"
"$T" query --db "$tmp/s.mdb" --json >"$tmp/s.json"
"$T" query --db "$tmp/k.mdb" --json | cmp -s - "$tmp/s.json" && ok "killed and resumed: the same S1N2 database" ||
  bad "killed and resumed S1N2 differs"
# each rank keeps its share of the table once the layers are done (PATH.shard-RANK-table);
# a run resumed with every share reads them instead of making the table again, and one
# that lacks a share, or has another number of ranks, makes it again; the same database
mck_run() { # [ranks] a run killed as soon as every rank's checkpoint is whole (tried again when it ends first)
  np=${1:-2}
  for attempt in 1 2 3 4 5; do
    rm -f "$tmp"/q.mdb*
    $MPIRUN -np $np "$T" enumerate --mpi --pieces S1N2 --db "$tmp/q.mdb" --threads 1 >/dev/null 2>&1 &
    mp=$!
    while kill -0 $mp 2>/dev/null; do
      n=$(ls "$tmp" | grep -c '^q\.mdb\.shard-[0-9]*-table$')
      [ "$n" -ge $np ] && break
      sleep 0.01
    done
    pkill -9 -f "enumerate --mpi --pieces S1N2 --db $tmp/q.mdb"
    wait $mp 2>/dev/null
    [ "$(ls "$tmp" | grep -c '^q\.mdb\.shard-[0-9]*-table$')" -ge $np ] && return 0
  done
  bad "no checkpoints seen beside the $np ranks in 5 runs"
  return 1
}
mck_resume() { # name ranks expected-message
  timeout 300 $MPIRUN -np "$2" "$T" enumerate --mpi --pieces S1N2 --db "$tmp/q.mdb" --threads 1 --resume >/dev/null 2>"$tmp/q.err" ||
    { bad "$1: resume failed: $(tail -2 "$tmp/q.err")"; return; }
  grep -q "$3" "$tmp/q.err" && ok "$1: $(grep "$3" "$tmp/q.err" | head -1 | sed "s|$tmp/||g")" ||
    bad "$1: no \"$3\" in: $(grep -v '^[a-z]* *layer' "$tmp/q.err" | head -2)"
  "$T" query --db "$tmp/q.mdb" --json | cmp -s - "$tmp/s.json" && ok "$1: the same S1N2 database" || bad "$1: database differs"
  [ -z "$(ls "$tmp" | grep 'q.mdb.shard')" ] && ok "$1: no shard or checkpoint left" || bad "$1: left: $(ls "$tmp" | grep q.mdb.shard)"
}
mck_run && mck_resume "ranks' checkpoints" 2 "resuming: the table read from the 2 ranks' checkpoints"
if mck_run; then
  rm -f "$tmp/q.mdb.shard-1-table"
  mck_resume "one rank's checkpoint missing" 2 "the table is made again (not every one of the 2 ranks"
fi
if mck_run; then
  mck_resume "checkpoints of 2 ranks resumed over 3" 3 "of another rank or another number of ranks"
fi
if mck_run 3; then
  mck_resume "checkpoints of 3 ranks resumed over 2 (the third one's shard and share removed at the end)" 2 "the table is made again"
fi
summary
