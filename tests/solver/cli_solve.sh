#!/bin/sh
# End-to-end tests of `tsume solve` and `tsume bench`: text and JSON output, exit statuses.
# usage: cli_solve.sh <tsume binary>
T="$1"
fail=0
check() { # name expected actual
  if [ "$2" != "$3" ]; then
    echo "FAIL $1"; echo "--- expected"; echo "$2"; echo "--- got"; echo "$3"; fail=1
  else
    echo "ok   $1"
  fi
}
strip() { grep -v -E '^(nodes|time_ms|setup_ms|first_proof) '; }

out=$("$T" solve "8k/7P1/6+B2/9/9/9/9/9/9 b G2rb3g4s4n4l17p 1" | strip)
check "text mate 3" "mate 3
usi 2b2a+ 1a2a G*2b
kif ２一歩成(22) 同　玉(11) ２二金打" "$out"

out=$("$T" solve --json "8k/7P1/6+B2/9/9/9/9/9/9 b G2rb3g4s4n4l17p 1" | sed 's/"nodes":[0-9]*,"time_ms":[0-9]*,"setup_ms":[0-9]*/"nodes":N,"time_ms":T,"setup_ms":S/')
check "json mate 3" '{"result":"mate","length":3,"exact":true,"pv":["2b2a+","1a2a","G*2b"],"nodes":N,"time_ms":T,"setup_ms":S}' "$out"

out=$("$T" solve lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1; echo "exit $?")
check "nomate, exit 0" "nomate
nodes 1
time_ms 0
setup_ms 0
exit 0" "$(echo "$out" | sed 's/^\(time_ms\|setup_ms\) .*/\1 0/')"

out=$("$T" solve --json lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1 | sed 's/"time_ms":[0-9]*,"setup_ms":[0-9]*/"time_ms":T,"setup_ms":S/')
check "json nomate" '{"result":"nomate","length":0,"exact":true,"pv":[],"nodes":1,"time_ms":T,"setup_ms":S}' "$out"

out=$("$T" solve --nodes 50 "ln2p2nl/5+B1gk/p1p2p3/6Spp/2B2gp2/2P3P1P/PP1P1P3/2GK+R1S2/LN3G2L b R2SN4P 81" | strip; echo "exit $?")
check "unknown by nodes" "unknown (nodes)
exit 0" "$out"
"$T" solve --nodes 50 "ln2p2nl/5+B1gk/p1p2p3/6Spp/2B2gp2/2P3P1P/PP1P1P3/2GK+R1S2/LN3G2L b R2SN4P 81" >/dev/null
check "unknown exits 1" 1 $?

"$T" solve "9/9/9 b - 1" >/dev/null 2>&1
check "bad SFEN exits 2" 2 $?
"$T" solve --algo nonsense "8k/9/9/9/9/9/9/9/9 b - 1" >/dev/null 2>&1
check "bad option exits 2" 2 $?

# 無駄合: mate in 1 under the rule, 13 plies when every interposition counts
out=$("$T" solve "k8/9/1K7/9/9/9/8B/8B/9 b 2r4g4s4n4l18p 1" | strip)
check "futile rule" "mate 1
usi 1g2h
kif ２八角(17)" "$out"
out=$("$T" solve --no-futile-rule "k8/9/1K7/9/9/9/8B/8B/9 b 2r4g4s4n4l18p 1" | head -1)
check "no futile rule" "mate 13" "$out"

# 無駄合 as docs/design.md decides it, one case each
# a drop next to the king whose capture the king takes back: a defence (7, not 5)
out=$("$T" solve "8k/9/6+L2/6L1+L/9/9/9/9/9 b L2r2b4g4s4n18p 1" | sed -n 1,2p)
check "futile: not a free capture" "mate 7
usi L*1c S*1b 1c1b+ 1a1b 1d2c 1b1a S*1b" "$out"
# やぶ蛇合: captured for free by a piece other than the checker, then mate
out=$("$T" solve "7nl/8k/9/7+R1/9/9/9/9/9 b Brb4g4s3n3l18p 1" | sed -n 1,2p)
check "futile: yabuhebi" "mate 1
usi B*3d" "$out"
out=$("$T" solve --no-futile-rule "7nl/8k/9/7+R1/9/9/9/9/9 b Brb4g4s3n3l18p 1" | head -1)
check "yabuhebi, every interposition" "mate 3" "$out"
# 将棋図巧 33: P*8e comes back to the line after 同馬 同桂, but the knight takes the
# horse back: not free, a defence (17; the book's 15 counts it futile)
out=$("$T" solve "l8/1n7/np3B3/SR1+P5/k1N6/9/1Ps6/1N7/5+B3 b r4g2s3l15p 1" | head -1)
check "futile: zukou 33" "mate 17" "$out"
# 将棋図巧 50: after 1f2e the drop on 2d is captured for free (2e2d) and the position
# is mated, but not as without the drop: the king's 2c3b lasts 3 plies there, 1 ply
# without it (G*4b). A defence (21, as the full solution; 19 when "mated" sufficed)
out=$("$T" solve "9/9/6n2/8n/6+pl1/7Sn/4+pp1k1/7N1/7s+R b R2B4g2s3l15p 1" | head -1)
check "futile: zukou 50" "mate 21" "$out"
out=$("$T" solve --futile-rule=mated "9/9/6n2/8n/6+pl1/7Sn/4+pp1k1/7N1/7s+R b R2B4g2s3l15p 1" | head -1)
check "futile: zukou 50, first part alone" "mate 19" "$out"
# 将棋図巧 73 after ply 22: N*7g, taken for free by 6g7g, opens 9e to the king
# (mated there sooner than by the line's 8f8e): a reply the capture makes possible
# is a change of the mate, a defence; so is N*8f (17; the book's line, 13, counts
# both futile)
out=$("$T" solve "9/9/2ls5/9/2p6/lk1+P5/3+R+B1+b1+r/+pp3g+p+p1/9 b S3g2s4n2l12p 1" | sed -n 1,2p)
check "futile: zukou 73, a reply the capture opened" "mate 17
usi 5g6h N*7g 6g7g 8f8e 7g8g N*8f 6h8f 8e9d 8f9e 9d9e S*8d 9e9d 8g9f 9d8d L*8e 8d7d 9f9d" "$out"
# 将棋図巧 89 after ply 18: P*7d is taken by 7f7d, and the silver on 6c can take the
# rook back: not free, a defence. Later P*6c, taken for free by 7c6c, opens 4a to
# the king (barred without the drop), mated there in 7 plies where every defence
# without the drop lasts 1: not the same mate, a defence too (21; the book's line
# plays 7c6b and 5b5a, 11)
out=$("$T" solve "3B5/n4l3/1BksP4/9/3P5/1S2R4/9/9/9 b r4g2s3n3l16p 1" | sed -n 1,2p)
check "futile: zukou 89, the capture answered" "mate 21
usi 5f7f P*7d 7f7d 7c6b 5c5b+ 6c5b 7d7c+ 6b5a 6a5b+ 5a5b 8c7d+ P*6c 7c6c 5b4a 6c4c 4a3a 4c3c 3a2a S*2b 2a1b 3c1c" "$out"
out=$("$T" solve --futile-rule=mated "3B5/n4l3/1BksP4/9/3P5/1S2R4/9/9/9 b r4g2s3n3l16p 1" | head -1)
check "futile: zukou 89, first part alone" "mate 13" "$out"
# 将棋図巧 71 after ply 14: N*6g, taken for free by 5h6g, lets the king step to 6i
# (barred by the dragon on 5h without the drop): a change of the mate, though the king
# comes back to 7h after 7h6i 5f4g L*5h 6g5h 6i7h (41; 33 when "mated" sufficed)
out=$("$T" solve "2g3p2/3p1P3/4p4/9/S8/4r4/+p1l1nB3/1sks+B1+p2/2g6 b NLr2gs2n2l12p 1" | sed -n 1,2p | cut -c1-58)
check "futile: zukou 71, a detour back to the line" "mate 41
usi 4g5f N*6g 5h6g 7h6i 5f4g L*5h 6g5h 6i7h 4g5f N*6g 5h6g" "$out"
out=$("$T" solve --futile-rule=mated "2g3p2/3p1P3/4p4/9/S8/4r4/+p1l1nB3/1sks+B1+p2/2g6 b NLr2gs2n2l12p 1" | head -1)
check "futile: zukou 71, first part alone" "mate 33" "$out"
out=$("$T" solve --futile-rule=never "7nl/8k/9/7+R1/9/9/9/9/9 b Brb4g4s3n3l18p 1" 2>&1 | head -1)
check "bad --futile-rule names the values" "tsume solve: --futile-rule needs same, mated or none" "$out"

# 移動合: the silver stepping to 4c is taken for free by 4d4c (the rook guards 4c) and the
# position, the silver handed back, is mated: futile as a drop would be (5, not 7)
out=$("$T" solve "9/4sk3/7R1/6P2/9/9/9/9/9 b RL 1" | sed -n 1,2p)
check "futile: a board piece moved in between" "mate 5
usi L*4d 4b5a R*7a 5a6b 2c7c+" "$out"
out=$("$T" solve --no-futile-rule "9/4sk3/7R1/6P2/9/9/9/9/9 b RL 1" | head -1)
check "moved interposition, every interposition" "mate 7" "$out"
# the 成香 stepping from 2b to 1b is futile (1e1b takes it for free, then mate); a pawn dropped
# on 1b is a defence (the 成香 takes back), and the line ends with the 成香 taken (駒余り)
out=$("$T" solve "8k/6+L+l1/9/8+L/8L/9/9/9/9 b 2r2b4g4s4n18p 1" | sed -n 1,2p)
check "moved interposition futile, the drop a defence" "mate 3
usi 1d2c P*1b 2c2b" "$out"
# a drop that lasts longer than the bound being proven is a defence, not taken for futile (7)
out=$("$T" solve "7kg/9/8R/7+B1/9/9/9/9/9 b BLr3g4s4n3l18p 1" | sed -n 1,2p)
check "exact length past a real drop" "mate 7
usi B*4c P*3b 1c2c+ 1a2b 4c3b+ 2a1a 2c2b" "$out"

# gote attacks (edge case yane-mate7-line9)
out=$("$T" solve --no-futile-rule "ln3kgRl/2s1g2p1/2ppppn1p/p5p2/6b2/P3P4/1+rPP1PP1P/1P4S2/LNSK1G1NL w GPbsp 50" | head -1)
check "gote attacker" "mate 7" "$out"

# mate within a bound
out=$("$T" solve --within 11 --no-futile-rule "k8/9/1K7/9/9/9/8B/8B/9 b 2r4g4s4n4l18p 1" | head -1)
check "within 11: none" "nomate" "$out"

# the algorithms agree on the answer
for a in dfpn pds multipath; do
  out=$("$T" solve --algo $a "ln2p2nl/5+B1gk/p1p2p3/6Spp/2B2gp2/2P3P1P/PP1P1P3/2GK+R1S2/LN3G2L b R2SN4P 81" | head -1)
  check "algo $a" "mate 7" "$out"
done
for mp in "threads=3,tt=0" "threads=4,budget=const,base=100,leader=1" "budget=pn"; do
  out=$("$T" solve --algo multipath --mp "$mp" "ln2p2nl/5+B1gk/p1p2p3/6Spp/2B2gp2/2P3P1P/PP1P1P3/2GK+R1S2/LN3G2L b R2SN4P 81" | head -1)
  check "multipath $mp" "mate 7" "$out"
done
err=$("$T" solve --algo multipath --mp "threads=9" "8k/9/9/9/9/9/9/9/9 b - 1" 2>&1 >/dev/null)
check "bad --mp exits 2" 2 $?
check "bad --mp names the item" "tsume solve: --mp: bad value '9' for threads" "$(echo "$err" | head -1)"
"$T" bench --mp "speed=1" >/dev/null 2>&1
check "bench bad --mp exits 2" 2 $?

# bench on a two-problem list
list=$(mktemp)
printf '# test list\nex\t8k/7P1/6+B2/9/9/9/9/9/9 b G2rb3g4s4n4l17p 1\tfutile\t3\nyo\tln2p2nl/5+B1gk/p1p2p3/6Spp/2B2gp2/2P3P1P/PP1P1P3/2GK+R1S2/LN3G2L b R2SN4P 81\tstrict\t7\n' > "$list"
out=$("$T" bench --hash 4 --file "$list" | grep -c -E '^(Nodes searched|Nodes/second|Total time \(ms\)): [0-9]+$')
check "bench totals" 3 "$out"
out=$("$T" bench --hash 4 --file "$list" --compare mate1 | grep -c -E '^(time|node) ratio')
check "bench compare mate1" 2 "$out"
out=$("$T" bench --hash 4 --file "$list" --compare algo | grep -c 'geometric-mean speed-up over pds')
check "bench compare algo" 3 "$out"
rm -f "$list"
exit $fail
