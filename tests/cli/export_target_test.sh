#!/bin/sh
# tsume export into folders: a folder that holds other files is refused unless
# --force (a book or KIF folder this program wrote, told by its marker file,
# is replaced); an empty selection writes nothing; a killed --html export
# leaves the target as it was (the book is built beside it and renamed).
#
#   export_target_test.sh TSUME
set -u
T=${1:?usage: export_target_test.sh TSUME}
. "$(dirname "$0")/../enumerator/testlib.sh"
TMP=$tmp

DB=$TMP/g2p1.mdb
"$T" enumerate --pieces G2P1 --db "$DB" >/dev/null 2>&1 || bad "enumerate G2P1"
cd "$TMP" || exit 1

# ---- a folder holding other files ----
for kind in html kif; do
  mkdir "mine-$kind"
  echo "my own page" >"mine-$kind/index.html"
  echo "my own record" >"mine-$kind/G2P1-05-000001.kif"
  "$T" export --db "$DB" --moves 5 --$kind "mine-$kind" >out 2>err
  st=$?
  n=$(ls -A "mine-$kind" | wc -l)
  if [ "$st" = 2 ] && [ "$n" = 2 ] && grep -q "my own page" "mine-$kind/index.html" &&
    grep -q "my own record" "mine-$kind/G2P1-05-000001.kif" && grep -q -- "--force" err; then
    ok "--$kind into a folder of other files: refused (exit 2), nothing touched"
  else
    bad "--$kind into a folder of other files: exit $st, $n entries: $(head -c 200 err)"
  fi
  "$T" export --db "$DB" --moves 5 --$kind "mine-$kind" --force >out 2>err
  st=$?
  if [ "$st" = 0 ] && ! grep -q "my own record" "mine-$kind/G2P1-05-000001.kif" 2>/dev/null; then
    ok "--$kind --force: written"
  else
    bad "--$kind --force: exit $st: $(head -c 200 err)"
  fi
  # once written by this program, the folder is its own: a new export replaces it
  "$T" export --db "$DB" --moves 7 --complete --$kind "mine-$kind" >out 2>err
  st=$?
  [ "$st" = 0 ] && ok "--$kind into its own earlier output: written" || bad "--$kind again: exit $st: $(head -c 200 err)"
done
if [ -f mine-html/.tsume-book ] && [ ! -e mine-html/my-own-page ] && ! ls mine-html/w/*/*-05-* >/dev/null 2>&1; then
  ok "--html: the new book replaced the old one whole"
else
  bad "--html: the old book's pages are still there"
fi
[ -f mine-kif/.tsume-kif ] && ok "--kif: marker written" || bad "--kif: no marker"
printf 'x' >afile
"$T" export --db "$DB" --moves 5 --html afile >/dev/null 2>err
st=$?
[ "$st" = 2 ] && [ "$(cat afile)" = x ] && ok "--html onto a file: refused" || bad "--html onto a file: exit $st"

# ---- an empty selection writes nothing ----
for kind in html kif; do
  "$T" export --db "$DB" --moves 31 --complete --$kind "empty-$kind" >/dev/null 2>err
  st=$?
  left=$(ls -A | grep -c "empty-$kind")
  [ "$st" = 1 ] && [ "$left" = 0 ] && ok "--$kind, empty selection: exit 1, nothing written" ||
    bad "--$kind, empty selection: exit $st, $(ls -A | grep "empty-$kind" | tr '\n' ' ')"
done
cp mine-html/index.html before.html
"$T" export --db "$DB" --moves 31 --complete --html mine-html >/dev/null 2>&1
if cmp -s before.html mine-html/index.html && [ -f mine-html/book.css ] && [ "$(ls -A | grep -c '^\.mine-html')" = 0 ]; then
  ok "--html, empty selection over a book: the book is unchanged"
else
  bad "--html, empty selection over a book: changed"
fi

# ---- a KIF folder of an earlier export is replaced whole: no stale file stays ----
"$T" export --db "$DB" --moves 7 --kif stale >/dev/null 2>&1
first=$(ls stale | wc -l)
"$T" export --db "$DB" --moves 7 --complete --kif stale >/dev/null 2>err
st=$?
now=$(ls stale | wc -l)
dups=$(grep -ah '^SFEN' stale/*.kif | sort | uniq -d | wc -l)
if [ "$st" = 0 ] && [ "$first" = 79 ] && [ "$now" = 30 ] && [ "$dups" = 0 ] && [ -f stale/.tsume-kif ] &&
  [ "$(ls -A | grep -c '^\.stale')" = 0 ]; then
  ok "--kif over its own folder of 79: now the 30 works only"
else
  bad "--kif over its own folder: exit $st, $first then $now files, $dups twice: $(head -c 200 err)"
fi

# ---- killed during the export ----
for target in new-book mine-html; do
  "$T" export --db "$DB" --moves 3 --html "$target" >/dev/null 2>&1 &
  pid=$!
  sleep 1
  kill -9 "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
  wst=$?
  if [ "$wst" -ne 137 ]; then
    echo "skip: export --html $target ended (status $wst) before it was killed"
  elif [ "$target" = new-book ]; then
    [ ! -e new-book ] && ok "killed --html: no half book" || bad "killed --html: $(ls new-book | head -5 | tr '\n' ' ')"
  else
    cmp -s before.html mine-html/index.html && [ -f mine-html/book.css ] && ok "killed --html over a book: the book is unchanged" ||
      bad "killed --html over a book: changed"
  fi
done

summary
