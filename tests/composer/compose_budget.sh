#!/bin/sh
# tsume compose keeps its promises: its outputs are tried before the search
# and a work whose file cannot be written is printed instead (exit 3); a
# failed history write is exit 3; the time budget holds for one thread and
# several (every checker question ends at the deadline, time_ms is the wall
# time); --from-mate shows progress and prints works as they are found;
# --iterations 0 is refused; "no mate found within the budget" is said as
# such; a run that stalls restarts until its budget.
#
#   compose_budget.sh TSUME
set -u
TSUME=${1:?usage: compose_budget.sh TSUME}
. "$(dirname "$0")/../enumerator/testlib.sh"
dir=$tmp
now_ms() { echo $(($(date +%s%N) / 1000000)); }

Y='6k2/4+P4/5G2G/9/9/9/9/9/9 b 2r2b2g4s4n4l17p 1'
# 19 pieces whose first check alone took 25 s of a 3 s budget
HEAVY='6S+Pl/5s3/4L2l1/5gkBr/4pn3/5Gp2/9/6N2/7+R+n b BN2g2sl15p 1'
# zukou-006 (data/bench_hard.tsv): an 81-ply mate
Z6='+Rg2+Bpk2/2p1g2pl/1n7/2P1GP1+rp/1N2p1+p2/N5N2/9/9/9 b BS4Pg3s3l6p 1'
# B1S1P1 with the king: under --max-pieces 4 every iteration is quick and nothing improves
STALL='7k1/9/6BP1/9/9/9/9/9/9 b S2r1b4g3s4n4l17p 1'

# ---- outputs tried first ----
# a folder that cannot be written: a mode-555 one, or /sys when run as root (root writes through modes)
RO=$dir/ro
mkdir "$RO" && chmod 555 "$RO"
if touch "$RO/probe" 2>/dev/null; then rm -f "$RO/probe"; RO=/sys; fi
RO_OUTS=""
[ "$RO" = /sys ] && touch /sys/tsume-probe 2>/dev/null && RO=""
[ -n "$RO" ] && RO_OUTS="--out=$RO/w.kifu --db=$RO/w.mdb --history=$RO/h.json"
[ -n "$RO" ] || echo "skip: no folder here refuses writes: read-only outputs not tried"
# shellcheck disable=SC2086
for o in "--out $dir/nodir/w.kifu" "--out /dev/null/w.kifu" "--out $dir" "--db $dir/nodir/w.mdb" "--history $dir/nodir/h.json" $RO_OUTS; do
  t0=$(now_ms)
  # shellcheck disable=SC2086
  "$TSUME" compose --quiet --time-ms 30000 $o "$Y" >"$dir/o" 2>"$dir/e"
  st=$? t=$(($(now_ms) - t0))
  if [ "$st" != 3 ] || [ "$t" -gt 5000 ] || ! grep -q "nodir\|/dev/null/w\|directory\|${RO:-nodir}/" "$dir/e"; then
    bad "outputs: $o: exit $st after $t ms ($(head -c 200 "$dir/e"))"
  else
    ok "outputs: $o refused at once (exit 3, $t ms): $(head -1 "$dir/e")"
  fi
done
# the folder goes away during the run: the work comes on stdout, exit 3
mkdir "$dir/sub"
"$TSUME" compose --quiet --time-ms 2500 --out "$dir/sub/w.kifu" "$Y" >"$dir/o" 2>"$dir/e" &
pid=$!
sleep 1
rm -rf "$dir/sub"
wait "$pid"
st=$?
if [ "$st" = 3 ] && grep -q "^#KIF" "$dir/o" && grep -q "printed on stdout" "$dir/e"; then
  ok "outputs: a work whose file cannot be written is printed on stdout (exit 3)"
else
  bad "outputs: lost work: exit $st, stdout $(head -c 100 "$dir/o"), stderr $(head -c 300 "$dir/e")"
fi

# ---- a failed history write ----
"$TSUME" compose --quiet --time-ms 1500 --history /dev/full "$Y" >"$dir/o" 2>"$dir/e"
st=$?
if [ "$st" = 3 ] && grep -q "/dev/full" "$dir/e" && grep -q "^#KIF" "$dir/o"; then
  ok "history: /dev/full is exit 3 with a message, the work on stdout"
else
  bad "history: /dev/full: exit $st ($(head -c 200 "$dir/e"))"
fi

# ---- the time budget ----
# the run stops at its budget: at most 20 % over it by the wall clock (three threads on two
# cores of a loaded machine, or the sanitizer build, take some of that)
for th in 1 3; do
  t0=$(now_ms)
  "$TSUME" compose --quiet --json --seed 4 --threads $th --time-ms 3000 "$HEAVY" >"$dir/o" 2>"$dir/e"
  wall=$(($(now_ms) - t0))
  tm=$(tail -1 "$dir/o" | sed -n 's/.*"time_ms":\([0-9]*\).*/\1/p')
  if [ -z "$tm" ] || [ "$wall" -gt 3600 ] || [ "$tm" -lt 2990 ] || [ "$tm" -gt "$wall" ]; then
    bad "budget: --threads $th --time-ms 3000: wall $wall ms, time_ms '$tm'"
  else
    ok "budget: --threads $th --time-ms 3000: wall $wall ms, time_ms $tm"
  fi
done

# ---- --from-mate: progress and works as found ----
"$TSUME" compose --from-mate --max-moves 7 --time-ms 4000 '9/9/6GGk/8p/9/9/9/9/9 w 2r2b2g4s4n4l17p 1' \
  >"$dir/fm.out" 2>"$dir/fm.err" &
pid=$!
sleep 2
early=$(wc -l <"$dir/fm.out")
progress=$(grep -c "from-mate: .*positions judged" "$dir/fm.err")
wait "$pid"
st=$?
if [ "$early" -gt 0 ] && [ "$progress" -gt 0 ] && [ "$st" = 0 ]; then
  ok "from-mate: $early works and $progress progress lines after 2 s (exit $st)"
else
  bad "from-mate: after 2 s $early works, $progress progress lines; exit $st"
fi
"$TSUME" compose --iterations 0 "$Y" >/dev/null 2>"$dir/e"
st=$?
if [ "$st" = 2 ] && grep -q -- "--iterations" "$dir/e"; then ok "--iterations 0 refused"; else bad "--iterations 0: exit $st"; fi

# ---- no mate found is not no mate ----
"$TSUME" compose --quiet --time-ms 1 "$Z6" >"$dir/o" 2>"$dir/e"
st=$?
if [ "$st" = 1 ] && grep -q "no mate found within the budget" "$dir/e" && ! grep -q "current no mate" "$dir/e"; then
  ok "budget 1 ms: $(head -1 "$dir/e")"
else
  bad "budget 1 ms: exit $st: $(head -c 300 "$dir/e")"
fi
"$TSUME" compose --json --time-ms 1 "$Z6" >"$dir/o" 2>"$dir/e"
if tail -1 "$dir/o" | grep -q '"result":"unknown"' && ! grep -q "current no mate$" "$dir/e"; then
  ok "budget 1 ms: --json says unknown"
else
  bad "budget 1 ms: $(tail -1 "$dir/o" | head -c 200)"
fi

# ---- a stalling run restarts until its budget ----
t0=$(now_ms)
"$TSUME" compose --quiet --json --max-pieces 4 --time-ms 3000 "$STALL" >"$dir/o" 2>"$dir/e"
wall=$(($(now_ms) - t0))
line=$(tail -1 "$dir/o")
restarts=$(printf '%s' "$line" | sed -n 's/.*"restarts":\([0-9]*\).*/\1/p')
if printf '%s' "$line" | grep -q '"stop_reason":"time"' && [ "${restarts:-0}" -gt 0 ] && [ "$wall" -ge 2900 ]; then
  ok "restarts: $restarts restarts, stopped by time after $wall ms"
else
  bad "restarts: wall $wall ms: $line"
fi
# the same seed, the same run
for k in 1 2; do
  "$TSUME" compose --quiet --json --max-pieces 4 --stall 30 --iterations 800 --seed 3 "$STALL" | tail -1 |
    sed 's/"time_ms":[0-9]*//' >"$dir/r$k"
done
if cmp -s "$dir/r1" "$dir/r2" && grep -q '"stop_reason":"iterations"' "$dir/r1"; then
  ok "restarts: the same seed, the same run"
else
  bad "restarts: two runs differ: $(cat "$dir/r1" "$dir/r2" | head -c 600)"
fi

summary
