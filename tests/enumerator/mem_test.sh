#!/bin/sh
# enumerate --mem: a ceiling that refuses the table's doubling makes it fill
# its slots up to 90 % instead; one that refuses it again makes the table go
# on in a file beside the database, and a disk that cannot take that file
# stops the run with a clear message (exit 3, not an out-of-memory kill); a
# ceiling that leaves the sort little room makes it spill sorted runs to
# disk, and one that leaves the phases' lists little room makes them spill
# too; the database is the same.
#
#   mem_test.sh TSUME NOSPACE_SO
T="$1"
SO="$2"
. "$(dirname "$0")/testlib.sh"
"$T" enumerate --pieces N4 --db "$tmp/n4.mdb" --threads 2 >/dev/null 2>&1 || bad "N4 reference run"
"$T" enumerate --pieces N4 --db "$tmp/small.mdb" --mem 8 --threads 2 --stats >"$tmp/small.out" 2>"$tmp/small.err" ||
  bad "--mem 8: exit $?: $(tail -1 "$tmp/small.err")"
grep -q "(8.0 MB, past --mem: in a file beside the database)" "$tmp/small.out" &&
  ok "--mem 8: $(grep '^mate positions' "$tmp/small.out" | sed 's/.*table: //')" ||
  bad "--mem 8: the table did not go to a file: $(grep 'table:' "$tmp/small.out")"
"$T" query --db "$tmp/n4.mdb" --json >"$tmp/n4.json"
"$T" query --db "$tmp/small.mdb" --json | cmp -s - "$tmp/n4.json" && ok "--mem 8: the same N4 database" ||
  bad "--mem 8: database differs"
case "$(ldd "$T" 2>/dev/null)" in
*libasan* | *libtsan*) echo "sanitizer build: preloading is not possible, the full-disk case is skipped" ;;
*)
  LD_PRELOAD="$SO" "$T" enumerate --pieces N4 --db "$tmp/full.mdb" --mem 8 --threads 2 >/dev/null 2>"$tmp/full.err"
  st=$?
  [ $st = 3 ] && grep -q "cannot double within the memory ceiling of 7 MB nor go on in a file beside the database: No space left on device" "$tmp/full.err" &&
    ok "--mem 8 on a full disk: exit 3, $(grep -o 'nor go on.*device' "$tmp/full.err")" ||
    bad "--mem 8 on a full disk: exit $st: $(tail -1 "$tmp/full.err")"
  # a disk short of room for the database: the table's checkpoint goes, the run goes on
  "$T" enumerate --pieces G2P1 --db "$tmp/g2p1.mdb" --threads 2 >/dev/null 2>&1 || bad "G2P1 reference run"
  "$T" query --db "$tmp/g2p1.mdb" --json >"$tmp/g2p1.json"
  LD_PRELOAD="$SO" "$T" enumerate --pieces G2P1 --db "$tmp/room.mdb" --threads 2 >/dev/null 2>"$tmp/room.err"
  st=$?
  [ $st = 0 ] && grep -q "room.mdb-table removed to make room: the database may grow by [0-9]* MB and the disk had 1 MB free" "$tmp/room.err" &&
    grep -q "room.mdb: the database may grow by [0-9]* MB and the disk has 1 MB free" "$tmp/room.err" &&
    [ ! -e "$tmp/room.mdb-table" ] && "$T" query --db "$tmp/room.mdb" --json | cmp -s - "$tmp/g2p1.json" &&
    ok "a disk short of room for the database: the checkpoint removed and said, the same G2P1 database" ||
    bad "short of room: exit $st: $(cat "$tmp/room.err")"
  ;;
esac
"$T" enumerate --pieces N4 --max-moves 7 --db "$tmp/ref.mdb" --threads 2 >/dev/null 2>&1 || bad "reference run"
# a ceiling that refuses the table's last doubling: it fills past 60 % instead, the same database
"$T" enumerate --pieces N4 --max-moves 7 --db "$tmp/d.mdb" --mem 12 --threads 2 --stats >"$tmp/d.out" 2>/dev/null ||
  bad "--mem 12 run"
grep -q "(8.0 MB, filled past 60 % under --mem)" "$tmp/d.out" && ok "--mem 12: $(grep '^mate positions' "$tmp/d.out" |
  sed 's/.*table: //')" || bad "--mem 12: the table did not fill past 60 %: $(grep 'table:' "$tmp/d.out")"
"$T" enumerate --pieces N4 --max-moves 7 --db "$tmp/m.mdb" --mem 90 --threads 2 --stats >"$tmp/m.out" 2>/dev/null ||
  bad "--mem 90 run"
grep -q '^sort: [0-9]* runs' "$tmp/m.out" && ok "--mem 90: the sort spills runs ($(grep '^sort:' "$tmp/m.out"))" ||
  bad "--mem 90: the sort did not spill"
"$T" query --db "$tmp/ref.mdb" --json >"$tmp/ref.json"
"$T" query --db "$tmp/m.mdb" --json | cmp -s - "$tmp/ref.json" && ok "--mem 90: the same database" || bad "--mem 90: database differs"
"$T" query --db "$tmp/d.mdb" --json | cmp -s - "$tmp/ref.json" && ok "--mem 12: the same database" || bad "--mem 12: database differs"
"$T" enumerate --pieces N4 --db "$tmp/x.mdb" --mem 0 >/dev/null 2>&1; st=$?
[ $st = 2 ] && ok "--mem 0: refused (exit 2)" || bad "--mem 0: exit $st"
# --mem 1 keeps 4096 positions a thread in memory: the mates and layers spill to files
stable() { grep -v -E '^(time:|peak RSS|sort:|spilled:)|MB\)$' "$1" | sed 's/ in [^ ]*\.mdb / in DB /'; }
"$T" enumerate --pieces G2P1 --db "$tmp/g.mdb" --threads 2 --stats >"$tmp/g.out" 2>/dev/null || bad "G2P1 run"
"$T" enumerate --pieces G2P1 --db "$tmp/g1.mdb" --threads 2 --stats --mem 1 >"$tmp/g1.out" 2>/dev/null || bad "G2P1 --mem 1 run"
grep -q '^spilled: ' "$tmp/g1.out" && ok "--mem 1: $(grep '^spilled:' "$tmp/g1.out" | cut -c1-40)" || bad "--mem 1 spilled nothing"
"$T" query --db "$tmp/g.mdb" --json >"$tmp/g.json"
"$T" query --db "$tmp/g1.mdb" --json | cmp -s - "$tmp/g.json" && ok "--mem 1: the same database" || bad "--mem 1: database differs"
stable "$tmp/g1.out" | cmp -s - "$(stable "$tmp/g.out" >"$tmp/g.stable"; echo "$tmp/g.stable")" &&
  ok "--mem 1: the same per-length and per-layer figures" || bad "--mem 1: figures differ"
[ -z "$(ls "$tmp" | grep 'spill-')" ] && ok "no spill file left" || bad "spill files left"
summary
