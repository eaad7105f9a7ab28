#!/bin/sh
# bench-check.sh - time and nodes of `tsume check` on the public problem sets,
# with the verdicts and flaw kinds of each set.
#
# usage: tools/bench-check.sh [-b build/tools/tsume] [-d data/public] [-o DIR]
#                             [-s SET]... [-- tsume check options...]
#   -b PATH   the tsume binary (default: build/tools/tsume)
#   -d DIR    the public data directory (default: data/public)
#   -o DIR    where the JSON lines of each set are kept (default: a temporary directory,
#             removed at the end)
#   -s SET    only this set (zukou, gts, tanuki, jissen); may be repeated
#   options after -- go to `tsume check` (e.g. --threads 1 --time-ms 60000);
#   default: --threads 1
# Sets: zukou100.tsv (the recorded lines), gts_tsume_120.tsv, tanuki_tsume_1979.tsv,
# yaneuraou_jissen_120.tsv; each is checked with its solution_usi column as the line.
# Prints per set: problems, verdict counts, flaw counts by kind, the sum of the
# checks' time and nodes, the wall time, and the slowest problems.
set -u
T=build/tools/tsume
D=$(dirname "$0")/../data/public
OUT=
SETS=
while [ $# -gt 0 ]; do
  case "$1" in
  -b) T="$2"; shift 2 ;;
  -d) D="$2"; shift 2 ;;
  -o) OUT="$2"; shift 2 ;;
  -s) SETS="$SETS $2"; shift 2 ;;
  -h|--help) sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
  --) shift; break ;;
  *) echo "bench-check.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
[ $# -gt 0 ] || set -- --threads 1
[ -n "$SETS" ] || SETS="zukou gts tanuki jissen"
if [ ! -x "$T" ]; then echo "bench-check.sh: no tsume binary at $T (-b)" >&2; exit 2; fi
if ! command -v python3 >/dev/null 2>&1; then echo "bench-check.sh: python3 is needed" >&2; exit 2; fi
KEEP=1
if [ -z "$OUT" ]; then OUT=$(mktemp -d); KEEP=0; fi
mkdir -p "$OUT" || exit 3

status=0
echo "tsume check $* on $D ($(date -u +%Y-%m-%dT%H:%MZ), $(nproc 2>/dev/null || echo '?') processors)"
for s in $SETS; do
  case "$s" in
  zukou) f=zukou100.tsv ;;
  gts) f=gts_tsume_120.tsv ;;
  tanuki) f=tanuki_tsume_1979.tsv ;;
  jissen) f=yaneuraou_jissen_120.tsv ;;
  *) echo "bench-check.sh: unknown set '$s'" >&2; exit 2 ;;
  esac
  if [ ! -f "$D/$f" ]; then echo "bench-check.sh: $D/$f not found" >&2; status=3; continue; fi
  start=$(date +%s%N)
  "$T" check --json "$@" "$D/$f" >"$OUT/$s.jsonl" 2>"$OUT/$s.err"
  rc=$?
  end=$(date +%s%N)
  if [ $rc -ge 2 ]; then
    echo "== $s ($f): tsume check exited $rc" >&2
    head -5 "$OUT/$s.err" >&2
    status=$rc
  fi
  python3 - "$s" "$f" "$OUT/$s.jsonl" $(((end - start) / 1000000)) <<'EOF'
import json, sys
name, f, path, wall = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
rows, summary = [], None
for line in open(path, encoding="utf-8"):
    line = line.strip()
    if not line:
        continue
    o = json.loads(line)
    if "summary" in o:
        summary = o["summary"]
    else:
        rows.append(o)
verdicts, kinds, kinds_untol = {}, {}, {}
for o in rows:
    verdicts[o["verdict"]] = verdicts.get(o["verdict"], 0) + 1
    for fl in o.get("flaws", []):
        kinds[fl["kind"]] = kinds.get(fl["kind"], 0) + 1
        if not fl["tolerated"]:
            kinds_untol[fl["kind"]] = kinds_untol.get(fl["kind"], 0) + 1
nodes = sum(o.get("nodes", 0) for o in rows)
time_ms = sum(o.get("time_ms", 0) for o in rows)
order = ["complete", "flawed", "nomate", "unknown", "bad-line", "error"]
print(f"== {name} ({f}): {len(rows)} problems, wall {wall} ms, check time {time_ms} ms, nodes {nodes}")
print("   verdicts: " + ", ".join(f"{v} {verdicts[v]}" for v in order if v in verdicts))
print("   flaws:    " + (", ".join(f"{k} {n} ({kinds_untol.get(k, 0)} not tolerated)" for k, n in sorted(kinds.items())) or "none"))
slow = sorted(rows, key=lambda o: -o.get("time_ms", 0))[:3]
print("   slowest:  " + ", ".join(f"{o['id']} {o.get('time_ms', 0)} ms {o.get('nodes', 0)} nodes ({o['verdict']})" for o in slow))
if rows:
    ts = sorted(o.get("time_ms", 0) for o in rows)
    print(f"   per problem: median {ts[len(ts) // 2]} ms, max {ts[-1]} ms, mean {time_ms / len(rows):.1f} ms")
if summary is None:
    print("   (no summary line: the run did not finish)")
EOF
done
if [ $KEEP = 1 ]; then echo "JSON lines in $OUT"; else rm -rf "$OUT"; fi
exit $status
