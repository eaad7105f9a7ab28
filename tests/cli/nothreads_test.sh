#!/bin/sh
# With every pthread_create failing (nothreads.so preloaded, as when a process
# reaches its thread or memory limit), each command that starts threads does
# their work in the calling thread: enumerate (mates, layers, classification,
# the bulk writer and the sorter spilling runs), solve, check, verify and
# compose give the same output as with threads.
#
#   nothreads_test.sh TSUME NOTHREADS_SO
T="$1"
SO="$2"
. "$(dirname "$0")/../enumerator/testlib.sh"
case "$(ldd "$T" 2>/dev/null)" in *libasan*|*libtsan*) echo "sanitizer build: preloading is not possible, skipped"; exit 77;; esac
nt() { LD_PRELOAD="$SO" "$@"; }

# the shim works: a run under it says nothing of threads but does its work
stable() { grep -v -E '^(time:|peak RSS|sort:|spilled:)|MB\)$' "$1" | sed 's/ in [^ ]*\.mdb / in DB /'; }
"$T" enumerate --pieces S1N2 --db "$tmp/ref.mdb" --threads 2 --stats >"$tmp/ref.out" 2>/dev/null || bad "reference run"
nt "$T" enumerate --pieces S1N2 --db "$tmp/nt.mdb" --threads 2 --stats --mem 1 --sort-mem 1 --batch 500 \
  >"$tmp/nt.out" 2>"$tmp/nt.err"; st=$?
[ $st = 0 ] && ok "enumerate without threads: exit 0" || bad "enumerate without threads: exit $st: $(tail -1 "$tmp/nt.err")"
grep -q '^sort: [0-9]* runs' "$tmp/nt.out" && ok "the sort spilled runs in the calling thread" || bad "no sort runs"
grep -q '^spilled: ' "$tmp/nt.out" && ok "the phases spilled their lists" || bad "no lists spilled"
"$T" query --db "$tmp/ref.mdb" --json >"$tmp/ref.json"
"$T" query --db "$tmp/nt.mdb" --json | cmp -s - "$tmp/ref.json" && ok "enumerate: the same database" ||
  bad "enumerate: database differs"
stable "$tmp/nt.out" >"$tmp/nt.stable"
stable "$tmp/ref.out" | cmp -s - "$tmp/nt.stable" && ok "enumerate: the same figures" || bad "enumerate: figures differ"
[ -z "$(ls "$tmp" | grep -E 'spill-|run-')" ] && ok "no spill or run file left" || bad "files left: $(ls "$tmp")"

"$T" verify --db "$tmp/ref.mdb" --threads 2 --max-moves 3 --sample 2000 --seed 7 >"$tmp/v.ref" 2>&1
nt "$T" verify --db "$tmp/nt.mdb" --threads 2 --max-moves 3 --sample 2000 --seed 7 >"$tmp/v.nt" 2>&1; st=$?
[ $st = 0 ] && grep -v -E 'in [0-9.]+ ?s|/s' "$tmp/v.nt" >"$tmp/v.nts" && grep -v -E 'in [0-9.]+ ?s|/s' "$tmp/v.ref" |
  cmp -s - "$tmp/v.nts" && ok "verify: the same report" || bad "verify: exit $st: $(tail -2 "$tmp/v.nt")"

P='6k1S/9/6+P2/6N2/9/9/9/9/9 b 2r2b4g3s3n4l17p 1'
for cmd in "solve" "check --json --threads 2"; do
  "$T" $cmd "$P" 2>&1 | grep -v -E '_ms|time|nps' >"$tmp/c.ref"
  nt "$T" $cmd "$P" >"$tmp/c.raw" 2>&1; st=$?
  grep -v -E '_ms|time|nps' "$tmp/c.raw" | cmp -s - "$tmp/c.ref" && ok "$cmd: the same output (exit $st)" ||
    bad "$cmd: exit $st, output differs: $(head -3 "$tmp/c.raw")"
done
"$T" compose --quiet --json --iterations 40 --seed 3 --threads 2 "$P" 2>/dev/null | grep -v time >"$tmp/k.ref"
nt "$T" compose --quiet --json --iterations 40 --seed 3 --threads 2 "$P" >"$tmp/k.raw" 2>&1; st=$?
grep -v time "$tmp/k.raw" | cmp -s - "$tmp/k.ref" && ok "compose: the same work (exit $st)" ||
  bad "compose: exit $st, output differs: $(head -c 300 "$tmp/k.raw")"
summary
