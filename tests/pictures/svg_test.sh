#!/bin/sh
# svg_test.sh - `tsume show --svg` draws a well-formed SVG 図面: parsed as XML
# with xmllint (libxml2-utils), then its parts counted: 81 squares, the pieces
# of each side (sente upright, gote turned 180 degrees), each hand's pieces.
# usage: svg_test.sh <tsume binary>
. "$(dirname "$0")/lib.sh"
command -v xmllint >/dev/null 2>&1 || { echo "FAIL xmllint (libxml2-utils) is not installed"; exit 1; }
# count XPATH FILE: the number of nodes (or the value) the expression gives
q() { xmllint --xpath "$1" "$2" 2>/dev/null; }
svg() { # svg NAME ARGS...: draws into $W/NAME.svg and checks it is well-formed XML
  name=$1; shift
  "$T" show --svg "$@" >"$W/$name.svg" || { echo "FAIL $name: tsume show --svg $* exited $?"; fail=1; }
  xmllint --noout "$W/$name.svg" || { echo "FAIL $name: not well-formed XML"; fail=1; }
}
E='*[local-name()="'   # element by local name (the SVG namespace)

# mate in 3: sente 歩 and 馬 on the board and a gold in hand, gote's king, the rest in gote's hand
svg m3 --solve --title '第1番 <&"test">' "8k/7P1/6+B2/9/9/9/9/9/9 b G2rb3g4s4n4l17p 1"
f="$W/m3.svg"
check "root is svg" "svg" "$(q "local-name(/*)" "$f")"
check "81 squares" 81 "$(q "count(//${E}rect\"][@class=\"sq\"])" "$f")"
check "sente pieces" 2 "$(q "count(//${E}text\"][@class=\"pc b\"])" "$f")"
check "gote pieces" 1 "$(q "count(//${E}text\"][@class=\"pc w\"])" "$f")"
check "gote pieces turned" 1 "$(q "count(//${E}text\"][@class=\"pc w\"][starts-with(@transform,\"rotate(180\")])" "$f")"
check "sente pieces upright" 0 "$(q "count(//${E}text\"][@class=\"pc b\"][@transform])" "$f")"
check "kanji on the board" "歩馬玉" "$(q "concat(//${E}text\"][@class=\"pc b\"][1],//${E}text\"][@class=\"pc b\"][2],//${E}text\"][@class=\"pc w\"])" "$f")"
check "attacker's hand: one gold" "1 G 1" "$(q "concat(//${E}g\"][@data-side=\"b\"]/@data-count,\" \",//${E}g\"][@data-side=\"b\"]/${E}text\"][@class=\"hp\"]/@data-piece,\" \",//${E}g\"][@data-side=\"b\"]/${E}text\"][@class=\"hp\"]/@data-n)" "$f")"
check "attacker's hand label" "持駒" "$(q "string(//${E}g\"][@data-side=\"b\"]/${E}text\"][@class=\"hl\"])" "$f")"
check "defender's hand: the rest (35)" "35 残り全部" "$(q "concat(//${E}g\"][@data-side=\"w\"]/@data-count,\" \",//${E}g\"][@data-side=\"w\"]/${E}text\"][@class=\"hn\"])" "$f")"
check "title escaped and length" '第1番 <&"test">　3手詰' "$(q "string(//${E}text\"][@class=\"caption\"])" "$f")"
check "file labels" "９１" "$(q "concat(//${E}text\"][.=\"９\"],//${E}text\"][.=\"１\"])" "$f")"
check "rank labels" 9 "$(q "count(//${E}text\"][.=\"一\" or .=\"二\" or .=\"三\" or .=\"四\" or .=\"五\" or .=\"六\" or .=\"七\" or .=\"八\" or .=\"九\"])" "$f")"

# an explicit defender hand and an empty attacker hand; several kinds with counts
svg hands "4k4/9/4P4/9/9/9/9/9/9 b 2p3g 1"
f="$W/hands.svg"
check "empty attacker hand: なし" "0 なし" "$(q "concat(//${E}g\"][@data-side=\"b\"]/@data-count,\" \",//${E}g\"][@data-side=\"b\"]/${E}text\"][@class=\"hn\"])" "$f")"
check "defender's hand listed" "5 G3 P2" "$(q "concat(//${E}g\"][@data-side=\"w\"]/@data-count,\" \",//${E}g\"][@data-side=\"w\"]/${E}text\"][1]/following-sibling::*[1]/@data-piece,//${E}g\"][@data-side=\"w\"]/${E}text\"][1]/following-sibling::*[1]/@data-n,\" \",//${E}g\"][@data-side=\"w\"]/${E}text\"][last()]/@data-piece,//${E}g\"][@data-side=\"w\"]/${E}text\"][last()]/@data-n)" "$f")"
check "count written in kanji" "金三" "$(q "string(//${E}text\"][@data-piece=\"G\"])" "$f")"

# a full board: 40 pieces
svg full "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1"
check "start position: 20 sente pieces" 20 "$(q "count(//${E}text\"][@class=\"pc b\"])" "$W/full.svg")"
check "start position: 20 gote pieces" 20 "$(q "count(//${E}text\"][@class=\"pc w\"])" "$W/full.svg")"

# the final position (詰め上がり): the gold dropped on 2b, its square shaded
svg final --final "8k/7P1/6+B2/9/9/9/9/9/9 b G2rb3g4s4n4l17p 1"
f="$W/final.svg"
check "final: one shaded square" 1 "$(q "count(//${E}rect\"][@class=\"sq\"][@fill=\"#d9d9d9\"])" "$f")"
check "final: title" "詰め上がり　3手詰" "$(q "string(//${E}text\"][@class=\"caption\"])" "$f")"
check "final: the attacker's hand on the right, empty" "0 なし 持駒" "$(q "concat(//${E}g\"][@data-side=\"b\"]/@data-count,\" \",//${E}g\"][@data-side=\"b\"]/${E}text\"][@class=\"hn\"],\" \",//${E}g\"][@data-side=\"b\"]/${E}text\"][@class=\"hl\"])" "$f")"
check "final: the defender's hand is still the rest" "残り全部" "$(q "string(//${E}g\"][@data-side=\"w\"]/${E}text\"][@class=\"hn\"])" "$f")"
check "final: pieces (馬 金, 玉)" "2 1" "$(q "concat(count(//${E}text\"][@class=\"pc b\"]),\" \",count(//${E}text\"][@class=\"pc w\"]))" "$f")"

"$T" show --title x "8k/9/9/9/9/9/9/9/9 b G 1" >/dev/null 2>&1
check "--title without --svg is a usage error" 2 $?
"$T" show --svg --solve "8k/9/9/9/9/9/9/9/9 b P 1" >/dev/null 2>&1
check "--solve without a mate exits 1" 1 $?
exit $fail
