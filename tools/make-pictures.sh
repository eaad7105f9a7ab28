#!/bin/sh
# make-pictures.sh - the README's pictures, made by tsume itself: the SVG 図面 of
# 将棋図巧 第36番 (伊藤看寿 1755, public domain) and the HTML book of G2P1's
# complete 7-move works, each turned into a PNG by headless Chromium.
#   sh tools/make-pictures.sh build/tools/tsume data/pictures
set -eu
T=${1:-build/tools/tsume}
OUT=${2:-data/pictures}
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
B=$(command -v chromium || command -v chromium-browser)
shot() { # shot URL WxH PNG
  timeout 120 "$B" --headless=new --no-sandbox --disable-gpu --disable-dev-shm-usage --no-first-run \
    --user-data-dir="$W/profile" --hide-scrollbars --virtual-time-budget=10000 --window-size="$2" \
    --screenshot="$3" "$1" 2>/dev/null >/dev/null
}
mkdir -p "$OUT"
"$T" show --svg --solve --title "将棋図巧 第36番" "9/6nS1/4s4/4r1P1g/5Sk1B/5+pbR1/4Nsp2/9/4N4 b 3Gn4l15p 1" >"$W/diagram.svg"
shot "file://$W/diagram.svg" 480,440 "$OUT/diagram.png"
"$T" enumerate --pieces G2P1 --db "$W/g.mdb" >/dev/null 2>&1
"$T" export --db "$W/g.mdb" --moves 7 --complete --html "$W/book" 2>/dev/null
shot "file://$W/book/index.html" 900,700 "$OUT/book-index.png"
shot "file://$(ls "$W"/book/w/0000/*.html | sed -n 3p)" 900,1000 "$OUT/book-work.png"
ls -l "$OUT"
