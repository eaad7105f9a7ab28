#!/bin/sh
# enumerate --store complete|minimal: the database holds only those problems,
# yet `query --count` (every filter, --moves, --both-mirrors) answers for all of
# them exactly as on a --store all database; the stored records are the same
# as the all database's; query, export and verify work on it; a resumed run
# must keep the store mode.
T="$1"
. "$(dirname "$0")/testlib.sh"
MAT=G2P1
"$T" enumerate --pieces $MAT --db "$tmp/all.mdb" --threads 2 >"$tmp/all.out" 2>/dev/null || bad "--store all (default) run"
"$T" enumerate --pieces $MAT --db "$tmp/c.mdb" --threads 2 --store complete >"$tmp/c.out" 2>/dev/null || bad "--store complete run"
"$T" enumerate --pieces $MAT --db "$tmp/m.mdb" --threads 1 --store minimal >"$tmp/m.out" 2>/dev/null || bad "--store minimal run"
grep -q "^material $MAT: [0-9]* problems, [0-9]* of them (--store complete) stored" "$tmp/c.out" &&
  ok "enumerate says how many are stored" || bad "enumerate output: $(head -1 "$tmp/c.out")"
# the per-length table printed is the same whatever is stored
tail -n +2 "$tmp/m.out" >"$tmp/m.tail"
tail -n +2 "$tmp/all.out" | cmp -s - "$tmp/m.tail" && ok "per-length table unchanged by --store" || bad "per-length table differs"

same_count() { # name query-args...
  name=$1; shift
  "$T" query --db "$tmp/all.mdb" "$@" >"$tmp/qa" 2>&1
  for db in c m; do
    "$T" query --db "$tmp/$db.mdb" "$@" >"$tmp/q$db" 2>&1
    cmp -s "$tmp/qa" "$tmp/q$db" || { bad "query $* on --store $db differs: $(head -3 "$tmp/q$db")"; return; }
  done
  ok "query --count $name: same on all, complete and minimal ($(tail -1 "$tmp/qa"))"
}
same_count "table" --count
same_count "--both-mirrors" --count --both-mirrors
same_count "--moves 3" --count --moves 3
same_count "--flag yozume --moves 5" --count --flag yozume --moves 5
same_count "--complete --minimal" --count --complete --minimal
same_count "--flag komaamari --both-mirrors" --count --flag komaamari --both-mirrors

n=$("$T" query --db "$tmp/c.mdb" --json | wc -l)
want=$("$T" query --db "$tmp/all.mdb" --count --complete | tail -1 | awk '{print $2}')
[ "$n" = "$want" ] && ok "--store complete holds the $n complete works" || bad "--store complete holds $n records, want $want"
"$T" query --db "$tmp/all.mdb" --complete --json >"$tmp/ac"
"$T" query --db "$tmp/c.mdb" --json | cmp -s - "$tmp/ac" && ok "its records equal the complete ones of --store all" ||
  bad "records of --store complete differ"
"$T" query --db "$tmp/all.mdb" --complete --minimal --json >"$tmp/am"
"$T" query --db "$tmp/m.mdb" --json | cmp -s - "$tmp/am" && ok "--store minimal holds exactly the minimal complete works" ||
  bad "records of --store minimal differ"
"$T" query --db "$tmp/c.mdb" --generation >/dev/null && ok "generation figures kept" || bad "no generation figures"

"$T" verify --db "$tmp/c.mdb" --moves 5 >"$tmp/v" 2>&1; st=$?
[ $st = 0 ] && grep -q ' 0 disagreements' "$tmp/v" && ok "verify on --store complete: $(tail -1 "$tmp/v")" ||
  bad "verify exit $st: $(cat "$tmp/v")"
"$T" export --db "$tmp/m.mdb" --moves 5 --sfen "$tmp/m5.sfen" >"$tmp/e" 2>&1; st=$?
n5=$(wc -l <"$tmp/m5.sfen" 2>/dev/null || echo 0)
[ $st = 0 ] && [ "$n5" -gt 0 ] && ok "export --sfen on --store minimal: $n5 problems" || bad "export exit $st: $(cat "$tmp/e")"

# resuming with another store mode is refused (the mode is part of the rules)
"$T" enumerate --pieces $MAT --db "$tmp/c.mdb" --resume --store all >/dev/null 2>"$tmp/err"; st=$?
[ $st != 0 ] && ok "resume with another --store refused (exit $st)" || bad "resume with another --store accepted"
"$T" enumerate --pieces $MAT --db "$tmp/c.mdb" --resume --store complete >/dev/null 2>&1 &&
  "$T" query --db "$tmp/c.mdb" --json | cmp -s - "$tmp/ac" && ok "resume with the same --store keeps the database" ||
  bad "resume with the same --store"
"$T" enumerate --pieces $MAT --db "$tmp/x.mdb" --store some >/dev/null 2>&1; st=$?
[ $st = 2 ] && ok "bad --store value: exit 2" || bad "bad --store value: exit $st"
summary
