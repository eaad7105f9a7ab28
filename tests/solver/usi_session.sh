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
option name PvInterval type spin default 1000 min 1 max 60000
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

# ---- a live session through a fifo: the client waits for replies, as a GUI does
W=$(mktemp -d)
trap 'exec 3>&- 2>/dev/null; rm -rf "$W"' EXIT
start() { # start the engine reading $W/in, replies in $W/out
  rm -f "$W/in" "$W/out"; mkfifo "$W/in"
  "$T" usi <"$W/in" >"$W/out" 2>&1 &
  pid=$!
  exec 3>"$W/in"
}
send() { printf '%s\n' "$1" >&3; }
waitfor() { # waitfor REGEX SECONDS: 0 when a reply line matches in time
  i=0
  while [ $i -lt $(($2 * 10)) ]; do
    grep -q "$1" "$W/out" && return 0
    sleep 0.1; i=$((i + 1))
  done
  return 1
}
ended() { # ended SECONDS: 0 when the engine exits within that time
  i=0
  while [ $i -lt $(($1 * 10)) ]; do
    kill -0 $pid 2>/dev/null || { wait $pid; return 0; }
    sleep 0.1; i=$((i + 1))
  done
  kill $pid; wait $pid; return 1
}
MICRO="position sfen g1+P1k1+P+P+L/1p3P3/+R+p2pp1pl/1NNsg+p2+R/+b+nL+P1+p3/1P3ssP1/2P1+Ps2N/4+P1P1L/+B5G1g b - 1" # ミクロコスモス: no answer for minutes

# the GUI dies (end of input) during go mate infinite: the search stops and the engine exits at once
start; send "$MICRO"; send "go mate infinite"; sleep 1; exec 3>&-
ended 20 && r=exited || r="still running 20 s after the end of input"
check "EOF during go mate infinite" "exited
checkmate timeout" "$r
$(noinfo <"$W/out")"

# quit during go mate infinite
start; send "$MICRO"; send "go mate infinite"; sleep 1; send quit
ended 20 && r=exited || r="still running 20 s after quit"
exec 3>&-
check "quit during go mate infinite" "exited
checkmate timeout" "$r
$(noinfo <"$W/out")"

# info lines carry the best line known once a first proof exists; stop then answers a mating line
start; send "setoption name PvInterval value 5"; send "$HARD"; send "go mate infinite"
waitfor '^info .*score mate [0-9]* pv ' 120 && send stop
waitfor '^checkmate' 120
send quit; exec 3>&-; ended 20
n=$(grep -c '^info .*score mate [0-9][0-9]* pv [0-9PLNSGBRK]' "$W/out")
check "info lines with score mate and pv while searching" yes "$([ "$n" -ge 2 ] && echo yes || echo "no ($n)")"
check "stop answers the mating line known" yes "$(grep -q '^checkmate [0-9PLNSGBR]' "$W/out" && echo yes || grep '^checkmate' "$W/out")"

# go mate before any valid position: an error, never a false 'nomate'
out=$(printf 'go mate 1000\nposition sfen bogus\ngo mate 1000\n' | "$T" usi)
check "go mate without a position" "info string error: no valid position (send 'position' first)
checkmate timeout
info string error: no valid position (send 'position' first)
checkmate timeout" "$(printf '%s\n' "$out" | grep -v '^info string bad position')"
check "no nomate without a position" 0 "$(printf '%s\n' "$out" | grep -c nomate)"

# bad USI_Hash values are refused with a message and the table stays
out=$(printf 'setoption name USI_Hash value 0\nsetoption name USI_Hash value abc\nsetoption name USI_Hash value 99999999\nsetoption name FutileRule value maybe\nposition sfen 8k/7P1/6+B2/9/9/9/9/9/9 b G2rb3g4s4n4l17p 1\ngo mate 10000\n' | "$T" usi | noinfo)
check "bad option values" "checkmate 2b2a+ 1a2a G*2b" "$out"
out=$(printf 'setoption name USI_Hash value 0\nsetoption name USI_Hash value abc\nsetoption name USI_Hash value 99999999\n' | "$T" usi | grep -c "^info string error: USI_Hash value '.*' is not a size in MB from 1 to 65536; it stays 64")
check "bad USI_Hash named" 3 "$out"

# a table that cannot be allocated: an error, the previous table stays, go still answers
# (a sanitizer build reserves terabytes of address space: ulimit -v stops it at start)
if (ulimit -v 1000000; "$T" --version) >/dev/null 2>&1; then
out=$( (ulimit -v 1000000; printf 'setoption name USI_Hash value 16\nsetoption name USI_Hash value 4000\nisready\nposition sfen 8k/7P1/6+B2/9/9/9/9/9/9 b G2rb3g4s4n4l17p 1\ngo mate 10000\n' | "$T" usi) | grep -v '^info time')
check "USI_Hash out of memory" "info string error: out of memory for a 4000 MB hash table; USI_Hash stays 16
readyok
checkmate 2b2a+ 1a2a G*2b" "$out"
else
  echo "skip USI_Hash out of memory: this build cannot run under ulimit -v"
fi

# a 10 MB position line (2,000,000 moves that come back to the start) is one command, read in linear time
awk 'BEGIN { printf "position sfen 8k/7P1/6+B2/9/9/9/9/9/9 b G2rb3g4s4n4l17p 1 moves";
  for (i = 0; i < 500000; i++) printf " 3c4d 1a1b 4d3c 1b1a"; print ""; print "go mate 10000" }' >"$W/long"
out=$("$T" usi <"$W/long" | noinfo)
check "10 MB position line" "checkmate 2b2a+ 1a2a G*2b" "$out"

"$T" usi --bogus </dev/null >/dev/null 2>&1
check "usi --bogus is a usage error" 2 $?
exit $fail
