#!/bin/sh
# book_test.sh - `tsume export --html DIR` writes a paged book: list pages of 500
# works, work pages in folders of 1000, each work page with its diagram and final
# position (as SFENs that book.js draws), its KIF with 変化 and the player; the
# player copied into the book; a book of 1,200 works under 6 MB.
# usage: book_test.sh <tsume binary>
. "$(dirname "$0")/lib.sh"
"$T" enumerate --pieces G2P1 --db "$W/g.mdb" >/dev/null 2>&1 || { echo "FAIL enumerate G2P1"; exit 1; }

# 1,200 three-move works: 3 list pages (500, 500, 200) and 2 folders (1000, 200)
"$T" export --db "$W/g.mdb" --moves 3 --limit 1200 --html "$W/b" 2>"$W/err"
check "export --html exit status" 0 $?
check "list pages" "index.html page-0002.html page-0003.html" "$(cd "$W/b" && echo index.html page-*.html)"
check "rows per page" "500 500 200" "$(for p in index.html page-0002.html page-0003.html; do grep -c '^<tr data-len' "$W/b/$p"; done | tr '\n' ' ' | sed 's/ $//')"
check "work folders" "0000 0001" "$(ls "$W/b/w" | tr '\n' ' ' | sed 's/ $//')"
check "files in the folders" "1000 200" "$(for d in 0000 0001; do ls "$W/b/w/$d" | wc -l; done | tr '\n' ' ' | sed 's/ $//')"
check "total on every page" 3 "$(grep -l '<span id="total">1200</span>' "$W/b"/*.html | wc -l)"
check "no temporary file left" "" "$(find "$W/b" -name '*.tmp*')"
check "player copied" yes "$([ -s "$W/b/player/kifu-for-js.min.js" ] && [ -s "$W/b/player/LICENSE.txt" ] && echo yes)"
check "no CDN or remote URL" 0 "$(grep -l 'src="http\|href="http' "$W/b"/*.html "$W/b/w/0000"/*.html | wc -l)"
# every list row links to a work page that exists, through its diagram's SFEN
missing=0
for p in index.html page-0002.html page-0003.html; do
  for f in $(grep -o '<a href="w/[0-9]*/[^"]*\.html" class="dg" aria-label="[^"]*" data-sfen="[^"]*"' "$W/b/$p" | sed 's/^<a href="//; s/".*//'); do
    [ -f "$W/b/$f" ] || missing=$((missing + 1))
  done
done
check "every row's diagram links to its page" "0 1200" "$missing $(cat "$W/b"/*.html | grep -c 'class="dg" aria-label="[^"]*" data-sfen="[^"]')"
check "the book's script" yes "$(cmp -s "$W/b/book.js" "$(dirname "$0")/../../db/book.js" && echo yes)"
check "every page loads it" 3 "$(grep -l '<script src="book.js">' "$W/b"/*.html | wc -l)"
size=$(du -sk --apparent-size "$W/b" | cut -f1)
check "1,200 works under 6 MB (got ${size} KB)" yes "$([ "$size" -lt 6144 ] && echo yes)"

# 7-move works: a work page holds the diagram and the final position (SFENs), the KIF with 変化, the player
"$T" export --db "$W/g.mdb" --moves 7 --complete --html "$W/c" 2>/dev/null
n=$(grep -c '^<tr data-len="7"' "$W/c/index.html")
check "7-move complete works listed" 30 "$n"
page=$(ls "$W/c/w/0000"/*.html | head -1)
sfen=$(sed -n 's/.*<tr><th>SFEN<\/th><td><code>\([^<]*\)<.*/\1/p' "$page")
check "work diagram: the page's SFEN" 1 "$(grep -c "<figure id=\"diagram\" data-sfen=\"$sfen\" data-title=\"[^\"]*\" data-length=\"7\">" "$page")"
# book.js draws, from the page's SFENs, what `tsume show --svg` draws: the
# diagram, and the final position (the solver's line played, its last move shaded)
same=0
for pg in "$W/c/w/0000"/*.html; do
  sf=$(sed -n 's/.*<tr><th>SFEN<\/th><td><code>\([^<]*\)<.*/\1/p' "$pg")
  id=$(basename "$pg" .html)
  node "$(dirname "$0")/draw_figure.js" "$pg" diagram >"$W/j1.svg" && "$T" show --svg --title "$id" --length 7 "$sf" >"$W/c1.svg" &&
    node "$(dirname "$0")/draw_figure.js" "$pg" final >"$W/j2.svg" &&
    "$T" show --svg --final --title 詰め上がり --length 7 "$sf" >"$W/c2.svg" && cmp -s "$W/j1.svg" "$W/c1.svg" &&
    cmp -s "$W/j2.svg" "$W/c2.svg" && same=$((same + 1))
done
check "book.js = show --svg, diagram and final, on every 7-move page" 30 "$same"
check "work diagram is well-formed XML" ok "$(xmllint --noout "$W/j1.svg" && echo ok)"
check "work page: KIF with 変化" yes "$(grep -q '^変化：' "$page" && echo yes)"
check "work page: the player, fed from the KIF text (written once)" "1 0 1" "$(grep -c '<div class="player" id="player" data-kif="kif"></div>' "$page") $(grep -c 'text/kifu' "$page") $(grep -c '^手数----指手' "$page")"
check "work page: loads book.js" 1 "$(grep -c '<script src="../../book.js">' "$page")"

# without the player: the book is written, with a warning
TSUME_PLAYER_DIR="$W/none" "$T" export --db "$W/g.mdb" --moves 5 --limit 3 --html "$W/np" 2>"$W/err"
check "no player: exit 0" 0 $?
check "no player: warned" 1 "$(grep -c 'kifu-for-js) is not installed' "$W/err")"
check "no player: no player" 0 "$(cat "$W/np/w/0000"/*.html | grep -c 'data-kif')"
"$T" export --db "$W/g.mdb" --moves 5 --html "$W/x" --sfen "$W/x.sfen" >/dev/null 2>&1
check "--html with --sfen is a usage error" 2 $?
exit $fail
