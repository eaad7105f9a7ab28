#!/bin/sh
# browser_test.sh - the HTML book in a real browser: headless Chromium opens the
# exported book's index and one work page from file:// (no server), the test
# reads the DOM it dumps after the scripts ran and checks that the list holds
# every work (and the filter script counted them, book.js drew them), that the
# work page's two diagrams were drawn, and that the player
# (kifu-for-js) drew its board and its move list. Screenshots of both pages are
# saved in OUTDIR for a person to look at.
# usage: browser_test.sh <tsume binary> <OUTDIR>
. "$(dirname "$0")/lib.sh"
OUT=${2:-.}
mkdir -p "$OUT"
B=$(command -v chromium || command -v chromium-browser) || { echo "FAIL chromium is not installed (tools/install-deps.sh)"; exit 1; }
# a root sandbox (CI containers) needs --no-sandbox; a profile of our own, no GPU, a time limit
browser() { # browser URL ARGS...: runs headless Chromium, page scripts given 10 s of virtual time
  url=$1; shift
  timeout 120 "$B" --headless=new --no-sandbox --disable-gpu --disable-dev-shm-usage --no-first-run \
    --user-data-dir="$W/profile" --hide-scrollbars --virtual-time-budget=10000 "$@" "$url" 2>>"$W/chromium.log"
}

"$T" enumerate --pieces G2P1 --db "$W/g.mdb" >/dev/null 2>&1 || { echo "FAIL enumerate G2P1"; exit 1; }
"$T" export --db "$W/g.mdb" --moves 7 --html "$W/book" 2>"$W/export.log" || { echo "FAIL export --html"; cat "$W/export.log"; exit 1; }
n=$(sed -n 's/^exported \([0-9]*\) problem.*/\1/p' "$W/export.log")

browser "file://$W/book/index.html" --dump-dom >"$W/index.dom"
check "index: rows in the list" "$n" "$(grep -o '<tr data-len="7"' "$W/index.dom" | wc -l)"
check "index: the filter script ran" "$n / $n" "$(sed -n 's/.*<span id="shown">\([^<]*\)<.*/\1/p' "$W/index.dom")"
check "index: every row's diagram drawn by book.js" "$n" "$(grep -o '<svg[^>]*class="tsume-diagram"' "$W/index.dom" | wc -l)"
check "index: the histogram" 1 "$(grep -c '<svg class="hist"' "$W/index.dom")"
browser "file://$W/book/index.html" --window-size=1000,800 --screenshot="$OUT/book-index.png" >/dev/null
check "index: screenshot" yes "$([ -s "$OUT/book-index.png" ] && echo yes)"

# a work page: kifu-for-js replaces its script by an SVG board and a list of moves
# (the start position, the 7 moves, 詰: 9 entries)
page=$(ls "$W/book/w/0000/"*.html | head -1)
browser "file://$page" --dump-dom >"$W/work.dom"
check "work: the player drew its board" 1 "$(grep -o '<svg[^>]*class="kifuforjs-lite"' "$W/work.dom" | wc -l)"
check "work: the player's move list (start, 7 moves, 詰)" 9 "$(grep -o 'role="option"' "$W/work.dom" | wc -l)"
check "work: the player's first move" 1 "$(grep -o '<span[^>]*>1</span> ☗[^<]*' "$W/work.dom" | wc -l)"
check "work: the 図面 drawn" 81 "$(awk '/<figure id="diagram"/,/<\/figure>/' "$W/work.dom" | grep -o 'class="sq"' | wc -l)"
check "work: the final position drawn, its last move shaded" "81 1" "$(awk '/<figure id="final"/,/<\/figure>/' "$W/work.dom" | grep -o 'class="sq"' | wc -l) $(awk '/<figure id="final"/,/<\/figure>/' "$W/work.dom" | grep -o 'class="sq"[^>]*fill="#d9d9d9"' | wc -l)"
browser "file://$page" --window-size=1000,1300 --screenshot="$OUT/book-work.png" >/dev/null
check "work: screenshot" yes "$([ -s "$OUT/book-work.png" ] && echo yes)"
[ $fail = 0 ] || tail -20 "$W/chromium.log"
exit $fail
