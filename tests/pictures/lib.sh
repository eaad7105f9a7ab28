# lib.sh - sourced by the pictures tests: $T the tsume binary (first argument),
# $W a temporary folder removed at exit, check NAME EXPECTED GOT (sets fail=1).
T="$1"
fail=0
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
check() {
  if [ "$2" != "$3" ]; then
    echo "FAIL $1: expected '$2', got '$3'"; fail=1
  else
    echo "ok   $1"
  fi
}
