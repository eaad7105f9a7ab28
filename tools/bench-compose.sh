#!/bin/sh
# Composer benchmark: runs `tsume compose` on every input of a set
# (data/compose/typeA.tsv, typeB.tsv: id<TAB>sfen<TAB>...) with a time budget
# per input on one core, re-judges each output independently (a fresh
# checker: `tsume check` when the binary has it, else a judge-only compose run
# with the default question budget), and prints per input and in total:
# complete works made (compose says complete and the fresh checker agrees),
# length before / after, 余詰 before / after, time. Rows are printed as each
# input ends, so a run cut short keeps the rows it made.
#
#   tools/bench-compose.sh [--time-ms T] [--seed N] [--limit K] SET.tsv [TSUME]
#
# T defaults to 600000 (the goal: at least half complete within 10 minutes each).
set -eu
T=600000
SEED=1
LIMIT=0
while [ $# -gt 0 ]; do
  case $1 in
  --time-ms) T=$2; shift 2 ;;
  --seed) SEED=$2; shift 2 ;;
  --limit) LIMIT=$2; shift 2 ;;
  *) break ;;
  esac
done
SET=${1:?usage: bench-compose.sh [--time-ms T] [--seed N] [--limit K] SET.tsv [TSUME]}
TSUME=${2:-$(dirname "$0")/../build/tools/tsume}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
has_check=0
"$TSUME" check --help >/dev/null 2>&1 && has_check=1

field() { # JSON number or string field $2 of the line $1 (which holds it once)
  printf '%s' "$1" | sed -n "s/.*\"$2\":\"\{0,1\}\([^\",}]*\).*/\1/p" | head -1
}

printf 'id\tbefore_len\tbefore_yozume\tafter_len\tafter_flaws\tresult\trecheck\ttime_ms\tpieces\tafter_yozume\n'
n=0 complete=0 lb=0 la=0 yb=0 ya=0 tt=0
grep -v '^#' "$SET" | while IFS="$(printf '\t')" read -r id sfen rest; do
  [ -n "$sfen" ] || continue
  n=$((n + 1))
  if [ "$LIMIT" -gt 0 ] && [ "$n" -gt "$LIMIT" ]; then break; fi
  out=$("$TSUME" compose --quiet --json --seed "$SEED" --time-ms "$T" --threads 1 --out "$tmp/w.kifu" "$sfen" 2>/dev/null | tail -1) || true
  # the start object {"sfen":...,"score":{...}} apart from the result's fields
  start=$(printf '%s' "$out" | sed -n 's/.*"start":{\([^}]*}\)}.*/\1/p')
  out=$(printf '%s' "$out" | sed 's/,"start":{[^}]*}}//')
  b_len=$(field "$start" length); b_yz=$(field "$start" yozume)
  res=$(field "$out" result); a_len=$(field "$out" length); a_sfen=$(field "$out" sfen)
  a_fl=$(printf '%s' "$out" | grep -o '"tolerated":false' | wc -l)
  a_yz=$(printf '%s' "$out" | grep -o '"kind":"\(yozume\|hayazume\)"[^}]*"tolerated":false' | wc -l)
  ms=$(field "$out" time_ms); pcs=$(field "$out" pieces)
  # the independent judgement of the output
  if [ "$has_check" = 1 ]; then
    re=$("$TSUME" check --json "$a_sfen" 2>/dev/null | head -1 | sed -n 's/^{[^{}]*"verdict":"\([a-z-]*\)".*/\1/p')
  else
    re=$("$TSUME" compose --quiet --json --time-ms 1 --call-nodes 2000000 "$a_sfen" 2>/dev/null | tail -1 |
      sed -n 's/.*"start":{.*"score":{"verdict":"\([a-z-]*\)".*/\1/p')
  fi
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$id" "$b_len" "$b_yz" "$a_len" "$a_fl" "$res" "$re" "$ms" "$pcs" "$a_yz"
done | tee "$tmp/rows"
awk -F'\t' '{ n++; lb += $2; yb += $3; la += $4; fa += $5; ya += $10; t += $8; if ($6 == "complete" && $7 == "complete") c++ }
  END { if (n) printf "inputs %d  complete %d (%.0f%%, re-judged)  length before %.1f after %.1f  余詰 before %.2f after %.2f  flaws after %.2f  time %.1f s total, %.1f s mean\n",
        n, c, 100 * c / n, lb / n, la / n, yb / n, ya / n, fa / n, t / 1000, t / 1000 / n }' "$tmp/rows"
