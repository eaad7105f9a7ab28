#!/bin/sh
# --from-mate against the enumerator: enumerate G2P1, list its complete works
# with their lines, and let test_compose compare the works built back from
# mate pictures with the database's works ending in them.
set -e
TSUME=$1
TEST=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
"$TSUME" enumerate --pieces G2P1 --db "$dir/G2P1.mdb" --threads 1 >/dev/null
"$TSUME" query --db "$dir/G2P1.mdb" --complete --json >"$dir/complete.jsonl"
"$TEST" "$dir/complete.jsonl"
