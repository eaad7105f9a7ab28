#!/bin/sh
# Un-moves of extended positions (seed 002, the default) against the reference
# path that un-moves every concrete position (--concrete): the same database
# (every record, md5 of `query --json`) and the same figures (`--stats`:
# positions per layer, 余詰め判定 and 不詰め判定 per layer, table positions and
# extended positions) for materials with knights, silvers, golds and pawns
# (二歩 and 打ち歩詰め are decided per square of the free piece).
T="$1"
. "$(dirname "$0")/testlib.sh"
figures() { grep -v '^material\|^time:\|^peak RSS\|on disk' "$1"; }
for MAT in G2P1 S2P1 S1N2 S1N1P1 N3 G1P2 S1G1N1; do
  for how in ext conc; do
    opt=""; [ $how = conc ] && opt="--concrete"
    "$T" enumerate --pieces $MAT --db "$tmp/$MAT.$how.mdb" --threads 2 --stats $opt >"$tmp/$MAT.$how.out" 2>/dev/null ||
      bad "$MAT enumerate $opt failed"
    "$T" query --db "$tmp/$MAT.$how.mdb" --json >"$tmp/$MAT.$how.json" 2>/dev/null || bad "$MAT query $opt failed"
  done
  figures "$tmp/$MAT.ext.out" >"$tmp/a"
  figures "$tmp/$MAT.conc.out" >"$tmp/b"
  n=$(wc -l <"$tmp/$MAT.ext.json")
  [ "$n" -gt 0 ] && cmp -s "$tmp/$MAT.ext.json" "$tmp/$MAT.conc.json" && ok "$MAT: the same $n records" ||
    bad "$MAT: records differ ($n with extended un-moves)"
  grep -q '余詰め判定' "$tmp/a" && cmp -s "$tmp/a" "$tmp/b" && ok "$MAT: the same --stats figures" ||
    { bad "$MAT: --stats differ"; diff "$tmp/a" "$tmp/b" | head -5; }
done
summary
