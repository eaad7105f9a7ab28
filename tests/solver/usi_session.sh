#!/bin/sh
# A USI session through stdin/stdout: exact replies (info lines aside).
# usage: usi_session.sh <tsume binary>
T="$1"
fail=0
check() {
  if [ "$2" != "$3" ]; then
    echo "FAIL $1"; echo "--- expected"; echo "$2"; echo "--- got"; echo "$3"; fail=1
  else
    echo "ok   $1"
  fi
}
noinfo() { grep -v '^info '; }

out=$(printf 'usi\nisready\nsetoption name USI_Hash value 16\nusinewgame\nposition sfen 8k/7P1/6+B2/9/9/9/9/9/9 b G2rb3g4s4n4l17p 1\ngo mate 10000\n' | "$T" usi | noinfo)
check "handshake and mate" "id name tsume 0.1.0
id author the tsume developers
option name USI_Hash type spin default 64 min 1 max 65536
option name FutileRule type check default true
usiok
readyok
checkmate 2b2a+ 1a2a G*2b" "$out"

out=$(printf 'isready\nposition sfen 8k/7P1/6+B2/9/9/9/9/9/9 b G2rb3g4s4n4l17p 1\ngo mate 10000\n' | "$T" usi | grep -c '^info .*score mate 3 pv 2b2a+ 1a2a G\*2b$')
check "info line with the pv" 1 "$out"

out=$(printf 'position startpos\ngo mate 1000\n' | "$T" usi | noinfo)
check "nomate" "checkmate nomate" "$out"

out=$(printf 'position startpos moves 7g7f 3c3d\ngo mate infinite\n' | "$T" usi | noinfo)
check "position with moves" "checkmate nomate" "$out"

# gote to move attacks
out=$(printf 'position sfen ln3kgRl/2s1g2p1/2ppppn1p/p5p2/6b2/P3P4/1+rPP1PP1P/1P4S2/LNSK1G1NL w GPbsp 50\ngo mate 10000\n' | "$T" usi | noinfo)
check "gote attacker" "checkmate 3e7i+ 6i5i S*6h 5i4h B*5g 4h5h 7i6i" "$out"

HARD="position sfen 1pG1B4/Gs+P6/pP7/n1ls5/3k5/nL4+r1b/1+p1p+R4/1S7/2N6 b SP2gn2l11p 1" # zukou-001: seconds to solve
# a time limit that is too short: timeout, never another word, never bestmove
out=$(printf '%s\ngo mate 100\n' "$HARD" | "$T" usi | noinfo)
check "timeout" "checkmate timeout" "$out"

# stop during go mate infinite still answers
out=$( (printf '%s\ngo mate infinite\n' "$HARD"; sleep 1; printf 'stop\n') | "$T" usi | noinfo)
check "stop" "checkmate timeout" "$out"

out=$(printf 'position sfen 8k/7P1/6+B2/9/9/9/9/9/9 b G2rb3g4s4n4l17p 1\ngo mate 10000\nquit\n' | "$T" usi | grep -c bestmove)
check "no bestmove in mate mode" 0 "$out"
exit $fail
