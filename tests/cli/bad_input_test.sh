#!/bin/sh
# bad_input_test.sh - end-to-end checks that bad input never crashes the tsume
# binary nor gets a wrong answer: each check runs tsume and tests its exit status
# (2 bad input, 3 I/O error) and the message, which names the file (and line and
# column when there is one). Under a sanitizer build a report on stderr fails
# the check even when the status is right.
#
#   sh bad_input_test.sh <path to tsume> <this directory> <scratch directory> [small|large]
#
# small: the committed files of bad/ (line ends, file types, bench lists, no king...);
# large: files generated in the scratch directory and deleted afterwards (a 50 MB
#        comment KIF, 10 MB of random bytes); prints how long each read took, as a
#        figure, not as a limit (a hang is caught by a 120 s timeout).
# Prints one line per check, then "N passed, M failed"; exits 1 when a check failed.

set -u

[ $# -ge 3 ] || {
  echo "usage: sh bad_input_test.sh <tsume> <tests/cli directory> <scratch directory> [small|large]..." >&2
  exit 2
}
TSUME=$1 SRC=$2 SCRATCH=$3
shift 3
WANTED=${*:-small large}
PASS=0
FAIL=0
# Paths given to tsume are relative to SRC, so that messages do not depend on the checkout.
cd "$SRC" && mkdir -p "$SCRATCH" && TMP=$(mktemp -d "$SCRATCH/tsume-bad.XXXXXX") || exit 2
trap 'rm -rf "$TMP"' EXIT
trap 'exit 2' INT TERM

# run ARGS...: tsume with stdin closed (or from $TMP/in when it exists), at most 120 s.
run() {
  if [ -f "$TMP/in" ]; then
    timeout 120 "$TSUME" "$@" <"$TMP/in" >"$TMP/out" 2>"$TMP/err"
  else
    timeout 120 "$TSUME" "$@" </dev/null >"$TMP/out" 2>"$TMP/err"
  fi
  STATUS=$?
}

# verdict NAME WANT_STATUS STREAM TEXT: the last run exited WANT_STATUS, STREAM
# (out or err) contains TEXT, and no sanitizer spoke.
verdict() {
  if [ "$STATUS" -ne "$2" ]; then
    FAIL=$((FAIL + 1))
    echo "FAIL  $1: exit status $STATUS, want $2 ($(head -n 1 "$TMP/err"))"
  elif ! grep -F -q -e "$4" "$TMP/$3"; then
    FAIL=$((FAIL + 1))
    echo "FAIL  $1: std$3 does not contain '$4': $(head -n 1 "$TMP/$3")"
  elif grep -E -q 'runtime error:|AddressSanitizer|LeakSanitizer' "$TMP/err"; then
    FAIL=$((FAIL + 1))
    echo "FAIL  $1: sanitizer report: $(grep -E -m 1 'runtime error:|Sanitizer' "$TMP/err")"
  else
    PASS=$((PASS + 1))
    echo "ok    $1"
  fi
}

# expect NAME STATUS TEXT ARGS...: exit STATUS and TEXT on stderr.
expect() {
  e_name=$1
  e_status=$2
  e_text=$3
  shift 3
  run "$@"
  verdict "$e_name" "$e_status" err "$e_text"
}

# expect_out NAME TEXT ARGS...: exit 0 and TEXT on stdout.
expect_out() {
  e_name=$1
  e_text=$2
  shift 2
  run "$@"
  verdict "$e_name" 0 out "$e_text"
}

TG3_SFEN='sfen 8k/7P1/6+B2/9/9/9/9/9/9 b G2rb3g4s4n4l17p 1'
NO_KING='9/9/9/9/9/9/9/9/9 b G 1'

group_small() {
  # bench lists: a missing file or a directory is an I/O error (3); a line without
  # the 4 columns, a bad SFEN, no problem at all is bad input (2). Each crashed or
  # ran "0 problems" before.
  expect "bench --file missing" 3 "bad/missing.tsv: cannot open" bench --file bad/missing.tsv
  expect "bench --file directory" 3 "bad: cannot read the bench list" bench --file bad
  expect "bench --file 2 columns" 2 "bad/two_columns.tsv:2:1: expected 4 tab-separated columns" \
    bench --file bad/two_columns.tsv
  expect "bench --file empty" 2 "bad/empty.tsv: no problems" bench --file bad/empty.tsv
  expect "bench --file bad SFEN" 2 "bad/bad_sfen.tsv:1:" bench --file bad/bad_sfen.tsv
  expect "bench --file no defender king" 2 "bad/no_king.tsv:2: the defender (gote" bench --file bad/no_king.tsv

  # a material with no problems: empty sort (UB with a NULL array before)
  expect_out "enumerate --pieces R1 (no problems)" "0 problems stored" enumerate --pieces R1 --db "$TMP/r1.mdb"

  # line ends: CR only (old Mac files), mixed; read as the LF files are
  for f in bad/cr_only.kifu bad/cr_only.kif bad/cr_only.csa bad/cr_only.sfen bad/mixed_eol.kifu; do
    expect_out "show $f" "$TG3_SFEN" show "$f"
  done
  expect_out "solve bad/cr_only.kif" "mate 3" solve bad/cr_only.kif
  expect "CR-only KIF with an illegal move: file:line:column" 2 "bad/cr_illegal_move.kifu:28:6: illegal move" \
    solve bad/cr_illegal_move.kifu
  expect "KIF with an illegal move: file:line:column" 2 "bad/illegal_move.kifu:28:6: illegal move" \
    solve bad/illegal_move.kifu
  # no diagram, 手合割 or moves: not the initial position
  expect "solve bad/no_diagram.kifu" 2 "bad/no_diagram.kifu: no position diagram" solve bad/no_diagram.kifu
  expect_out "show bad/hirate_no_diagram.kifu (平手 and moves)" \
    "sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1" show bad/hirate_no_diagram.kifu

  # no defender king: shown, never solved
  expect "solve SFEN without a defender king" 2 "<sfen>: the defender (gote, the side not to move) has no king" \
    solve "$NO_KING"
  expect "solve bad/no_king.sfen" 2 "bad/no_king.sfen: the defender (gote" solve bad/no_king.sfen
  expect_out "show bad/no_king.sfen (showing is allowed)" "sfen $NO_KING" show bad/no_king.sfen
  printf 'usi\nposition sfen %s\ngo mate\n' "$NO_KING" >"$TMP/in"
  expect_out "usi go mate without a defender king" "info string the defender (gote" usi
  verdict "usi answers checkmate nomate to it" 0 out "checkmate nomate"
  rm -f "$TMP/in"

  # file types: by the extension in any case, else by the content, else refused
  expect_out "solve bad/GOOD.KIF (upper-case extension)" "mate 3" solve bad/GOOD.KIF
  expect_out "solve bad/kif_content.txt (KIF by its content)" "mate 3" solve bad/kif_content.txt
  expect_out "solve bad/csa_content.rec (CSA by its content)" "mate 3" solve bad/csa_content.rec
  expect "solve bad/unknown.dat" 2 "bad/unknown.dat: unknown file type" solve bad/unknown.dat
  expect "solve a missing .KIF" 3 "bad/MISSING.KIF: cannot open" solve bad/MISSING.KIF
  expect "solve a directory" 3 "bad: cannot read" solve bad
}

# elapsed START: seconds since START (date +%s%N), with 2 decimals.
elapsed() {
  awk -v a="$1" -v b="$(date +%s%N)" 'BEGIN { printf "%.2f", (b - a) / 1e9 }'
}

group_large() {
  # 50 MB of comment lines before the §1.11 record: linear reading (it took
  # 44 s for 8 MB and 4 times as long per doubling before).
  yes '*コメント行。' | head -c 50000000 >"$TMP/comments.kifu"
  cat data/TG3-000001.kifu >>"$TMP/comments.kifu"
  t0=$(date +%s%N)
  run show "$TMP/comments.kifu"
  echo "figure: show of a 50 MB comment KIF took $(elapsed "$t0") s"
  verdict "show a 50 MB comment KIF" 0 out "$TG3_SFEN"
  # the same made of comments only: read, then refused
  yes '*' | head -c 50000000 >"$TMP/comments.kifu"
  t0=$(date +%s%N)
  run solve "$TMP/comments.kifu"
  echo "figure: solve of a 50 MB comment-only KIF took $(elapsed "$t0") s"
  verdict "solve a 50 MB comment-only KIF" 2 err "comments.kifu: no position diagram"
  rm -f "$TMP/comments.kifu"

  # 10 MB on one line, and 10 MB of random bytes, under every name
  yes 'P1' | tr -d '\n' | head -c 10000000 >"$TMP/line.csa"
  expect "show a 10 MB CSA line" 2 "line.csa:1:" show "$TMP/line.csa"
  head -c 10000000 /dev/urandom >"$TMP/garbage"
  for ext in kif kifu csa sfen bin; do
    cp "$TMP/garbage" "$TMP/garbage.$ext"
    for c in show solve; do
      t0=$(date +%s%N)
      expect "$c 10 MB of random bytes as .$ext" 2 "garbage.$ext" "$c" "$TMP/garbage.$ext"
    done
    echo "figure: solve of 10 MB of random bytes as .$ext took $(elapsed "$t0") s"
    rm -f "$TMP/garbage.$ext"
  done
}

for g in $WANTED; do
  case $g in
  small | large) "group_$g" ;;
  *)
    echo "bad_input_test.sh: unknown group '$g'" >&2
    exit 2
    ;;
  esac
done

echo "$PASS passed, $FAIL failed"
[ "$FAIL" -eq 0 ]
