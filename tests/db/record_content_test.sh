#!/bin/sh
# Every record is a legal problem of its material, and a changed byte inside a record key that leaves the file's structure valid:
# db-check finds it (the key does not decode, or decodes to a position that
# is not a problem of the database's material), and every reader names the
# record by its key instead of printing a wrong position.
#
#   record_content_test.sh TSUME OVERWRITE_DB
set -u
T=${1:?usage: record_content_test.sh TSUME OVERWRITE_DB}
W=${2:?usage: record_content_test.sh TSUME OVERWRITE_DB}
. "$(dirname "$0")/../enumerator/testlib.sh"
cd "$tmp" || exit 1

"$T" enumerate --pieces G2P1 --db g.mdb >/dev/null 2>&1 || bad "enumerate G2P1"
"$T" db-check --db g.mdb >out 2>&1 && grep -q "sound: 0 finding" out && ok "db-check: the fresh file is sound" ||
  bad "db-check on the fresh file: $(head -c 300 out)"

# two pawns: a tokin un-promoted on the file of the other pawn would be 二歩,
# a position no problem can have
"$T" enumerate --pieces G1P2 --db g1p2.mdb >/dev/null 2>&1 || bad "enumerate G1P2"
"$T" db-check --db g1p2.mdb >out 2>&1 && grep -q "sound: 0 finding" out && ok "db-check: G1P2 holds no 二歩 position" ||
  bad "db-check on G1P2: $(head -c 300 out)"

# the key of a 9-ply G2P1 problem: side, (square, piece) pairs, 0xff, two hands of 3 bytes
SFEN="6k2/9/5G2p/9/9/9/9/9/9 b G2r2b2g4s4n4l17p 1"
"$W" g.mdb key "$SFEN" >keys || bad "overwrite_db key"
off=$(head -1 keys)
len=$(sed -n 's/^length //p' keys)
[ "$(wc -l <keys)" = 2 ] && [ -n "$off" ] && ok "the key is found once in the file" || bad "key offsets: $(cat keys)"

# $1 name, $2 byte offset in the key, $3 new byte, $4 what db-check must say
flip() {
  cp g.mdb "$1.mdb"
  "$W" "$1.mdb" at $((off + $2)) "$3" >/dev/null
  "$T" db-check --db "$1.mdb" >out 2>&1
  st=$?
  if [ "$st" = 1 ] && grep -q "(prob): record [0-9a-f]*: $4" out && grep -q "damaged: 1 finding" out; then
    ok "$1: db-check finds the record ($4)"
  else
    bad "$1: db-check exit $st: $(head -c 300 out)"
  fi
  "$T" query --db "$1.mdb" >/dev/null 2>err
  st=$?
  n=$(grep -o "record " err | wc -l)
  if [ "$st" = 3 ] && [ "$n" = 1 ] && grep -q "record [0-9a-f]\{$((2 * len))\}: $4" err; then
    ok "$1: query names the record once (exit 3)"
  else
    bad "$1: query exit $st: $(head -c 300 err)"
  fi
  "$T" verify --db "$1.mdb" --all --threads 1 >out 2>&1
  st=$?
  if [ "$st" = 1 ] && grep -q "^DAMAGED record [0-9a-f]*: $4" out && grep -q " 1 disagreements" out; then
    ok "$1: verify --all names the damaged record"
  else
    bad "$1: verify exit $st: $(grep -v '^ok' out | head -c 300)"
  fi
}
# the defender's hand's last byte: 5 golds in it, 7 in all
flip golds $((len - 1)) 58 "not a problem of this database: .*7 golds"
# a piece byte that is no piece
flip piece $((len - 8)) fe "the key does not decode"
summary
