#!/bin/sh
# run.sh - the desk of `tsume serve` in a real browser: starts `tsume serve
# --port 0`, reads its address from the first line it prints, runs
# desk.test.mjs (playwright-core driving headless Chromium, see there for what
# is checked) and stops the server. The screenshot is <outdir>/desk.png.
#
#   sh run.sh <path to tsume> <outdir>
#
# Installs playwright-core with `npm ci` (package-lock.json) when node_modules
# is missing; Chromium is Debian's (/usr/bin/chromium, or TSUME_CHROMIUM).
# A missing tool fails the test (it is not skipped).

set -u

if [ $# -ne 2 ]; then
  echo "usage: sh run.sh <tsume> <outdir>" >&2
  exit 2
fi
TSUME=$1
OUT=$2
HERE=$(cd "$(dirname "$0")" && pwd) || exit 2

die() {
  echo "FAIL desk_browser: $*" >&2
  exit 1
}

[ -x "$TSUME" ] || die "tsume binary '$TSUME' not found or not executable"
command -v node >/dev/null 2>&1 || die "node (Node.js) is not installed"
CHROMIUM=${TSUME_CHROMIUM:-/usr/bin/chromium}
[ -x "$CHROMIUM" ] || die "Chromium is not installed at $CHROMIUM (tools/install-deps.sh installs it)"

if [ ! -f "$HERE/node_modules/playwright-core/package.json" ]; then
  command -v npm >/dev/null 2>&1 ||
    die "npm is not installed and $HERE/node_modules is missing: cannot install playwright-core"
  echo "installing playwright-core: npm ci in $HERE"
  (cd "$HERE" && npm ci --no-audit --no-fund) ||
    die "'npm ci' failed in $HERE (is the npm registry reachable?)"
fi

mkdir -p "$OUT" || die "cannot make $OUT"
rm -f "$OUT/serve.out" "$OUT/serve.err" "$OUT/desk.png" "$OUT/desk-failure.png"
"$TSUME" serve --port 0 >"$OUT/serve.out" 2>"$OUT/serve.err" &
PID=$!
trap 'kill $PID 2>/dev/null; wait $PID 2>/dev/null' EXIT
trap 'exit 2' INT TERM

# the address, from the first line: "tsume serve: http://127.0.0.1:PORT/"
URL=
tries=0
while [ -z "$URL" ]; do
  URL=$(sed -n '1s/^tsume serve: \(http:\/\/[^ ]*\).*/\1/p' "$OUT/serve.out")
  [ -n "$URL" ] && break
  kill -0 $PID 2>/dev/null || die "tsume serve ended: $(cat "$OUT/serve.err")"
  tries=$((tries + 1))
  [ $tries -le 300 ] || die "tsume serve printed no address in 30 s"
  sleep 0.1
done
echo "tsume serve at $URL"

TSUME_CHROMIUM=$CHROMIUM node "$HERE/desk.test.mjs" "$URL" "$OUT"
rc=$?
[ $rc -eq 0 ] || { echo "server's stderr:"; tail -20 "$OUT/serve.err"; }
exit $rc
