# Shared by the end-to-end enumerator scripts (sourced): a scratch directory
# removed on exit, pass/fail counters, and a closing summary.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0
ok() { echo "ok: $1"; pass=$((pass + 1)); }
bad() { echo "FAIL: $1"; fail=$((fail + 1)); }
summary() { echo "$pass passed, $fail failed"; [ $fail = 0 ]; }
