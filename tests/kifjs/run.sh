#!/bin/sh
# run.sh - end-to-end check that the KIF files written by `tsume export` are read
# by a second, independent KIF reader: tsshogi (npm, the reader behind ShogiHome).
#
#   sh run.sh <path to tsume>
#
# Enumerates G2P1 into a temporary database, exports the complete 5-move
# problems as CP932 .kif and the complete 7-move problems as UTF-8 .kifu, and
# runs readback.mjs on both directories (see there for what is checked).
# Installs tsshogi with `npm ci` (package-lock.json) when node_modules is missing,
# so the test needs node and npm, and the npm registry on a fresh checkout; if
# either tool is missing the test fails (it is not skipped).

set -u

if [ $# -ne 1 ]; then
  echo "usage: sh run.sh <tsume>" >&2
  exit 2
fi
TSUME=$1
HERE=$(cd "$(dirname "$0")" && pwd) || exit 2

die() {
  echo "FAIL kifjs_readback: $*" >&2
  exit 1
}

[ -x "$TSUME" ] || die "tsume binary '$TSUME' not found or not executable"
command -v node >/dev/null 2>&1 ||
  die "node (Node.js) is not installed; it is needed to run the tsshogi KIF reader"

if [ ! -f "$HERE/node_modules/tsshogi/package.json" ]; then
  command -v npm >/dev/null 2>&1 ||
    die "npm is not installed and $HERE/node_modules is missing: cannot install tsshogi (install Node.js with npm, or run 'npm ci' in tests/kifjs)"
  echo "installing tsshogi: npm ci in $HERE"
  (cd "$HERE" && npm ci --no-audit --no-fund) ||
    die "'npm ci' failed in $HERE (is the npm registry reachable?)"
  [ -f "$HERE/node_modules/tsshogi/package.json" ] ||
    die "'npm ci' did not install tsshogi"
fi

TMP=$(mktemp -d "${TMPDIR:-/tmp}/tsume-kifjs.XXXXXX") || exit 2
trap 'rm -rf "$TMP"' EXIT
trap 'exit 2' INT TERM

echo "+ tsume enumerate --pieces G2P1 --db \$tmp/g.mdb"
"$TSUME" enumerate --pieces G2P1 --db "$TMP/g.mdb" ||
  die "tsume enumerate failed"
echo "+ tsume export --db \$tmp/g.mdb --complete --moves 5 --kif \$tmp/kif"
"$TSUME" export --db "$TMP/g.mdb" --complete --moves 5 --kif "$TMP/kif" ||
  die "tsume export (CP932 .kif) failed"
echo "+ tsume export --db \$tmp/g.mdb --complete --moves 7 --kif \$tmp/kifu --utf8"
"$TSUME" export --db "$TMP/g.mdb" --complete --moves 7 --kif "$TMP/kifu" --utf8 ||
  die "tsume export (UTF-8 .kifu) failed"

echo "+ tsume enumerate --pieces R1G1 --db \$tmp/r.mdb"
"$TSUME" enumerate --pieces R1G1 --db "$TMP/r.mdb" ||
  die "tsume enumerate (ranging) failed"
echo "+ tsume export --db \$tmp/r.mdb --complete --moves 11 --kif \$tmp/kifu --utf8"
"$TSUME" export --db "$TMP/r.mdb" --complete --moves 11 --kif "$TMP/kifu" --utf8 ||
  die "tsume export (ranging, UTF-8 .kifu) failed"

nkif=$(find "$TMP/kif" -name '*.kif' | wc -l)
nkifu=$(find "$TMP/kifu" -name '*.kifu' | wc -l)
echo "exported $nkif .kif and $nkifu .kifu files"
[ "$nkif" -gt 0 ] || die "no .kif file exported"
[ "$nkifu" -gt 0 ] || die "no .kifu file exported"

# Names relative to $TMP so that the report does not show the random directory.
cd "$TMP" || exit 2
node "$HERE/readback.mjs" kif kifu
