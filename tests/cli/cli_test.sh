#!/bin/sh
# cli_test.sh - end-to-end checks of the tsume binary: runs it and compares its
# exit status, stdout and stderr with the files in expected/.
#
#   sh cli_test.sh <path to tsume> <this directory> [group...]
#
# Groups: help perft show errors (all of them when none is given). Prints one
# line per check ("ok" or "FAIL" and its name), then "N passed, M failed";
# exits 1 when a check failed, 2 on bad usage.
#
# After a deliberate change of an output, TSUME_CLI_UPDATE=1 rewrites the
# expected files from the actual outputs; review `git diff tests/cli/expected`.
#
# Paths given to tsume are relative to this directory (data/, bad/) so that the
# messages, which name the file, do not depend on where the tree is checked out.

set -u

if [ $# -lt 2 ]; then
  echo "usage: sh cli_test.sh <tsume> <tests/cli directory> [help|perft|show|errors]..." >&2
  exit 2
fi
TSUME=$1
SRC=$2
shift 2
WANTED=${*:-help perft show errors}
cd "$SRC" || exit 2
TMP=$(mktemp -d "${TMPDIR:-/tmp}/tsume-cli.XXXXXX") || exit 2
trap 'rm -rf "$TMP"' EXIT
trap 'exit 2' INT TERM

PASS=0
FAIL=0

ok() {
  PASS=$((PASS + 1))
  echo "ok    $1"
}

ko() {
  FAIL=$((FAIL + 1))
  echo "FAIL  $1: $2"
}

# run ARGS...: runs tsume with stdin closed; leaves $TMP/out, $TMP/err and $STATUS.
run() {
  "$TSUME" "$@" </dev/null >"$TMP/out" 2>"$TMP/err"
  STATUS=$?
}

# First line of the last stderr, for failure messages.
err_line() {
  head -n 1 "$TMP/err"
}

# same NAME ACTUAL EXPECTED: the two files are identical (or EXPECTED is rewritten).
same() {
  if [ -n "${TSUME_CLI_UPDATE:-}" ]; then
    cp "$2" "$3" && ok "$1 (updated $3)"
    return
  fi
  if [ ! -f "$3" ]; then
    ko "$1" "missing expected file $3"
  elif cmp -s "$3" "$2"; then
    ok "$1"
  else
    ko "$1" "output differs from $3"
    diff -u "$3" "$2" | head -n 30 | sed 's/^/      /'
  fi
}

# check_out NAME EXPECTED ARGS...: status 0 and stdout equal to expected/EXPECTED.
check_out() {
  c_name=$1
  c_exp=$2
  shift 2
  run "$@"
  if [ "$STATUS" -ne 0 ]; then
    ko "$c_name" "exit status $STATUS, want 0 ($(err_line))"
    return
  fi
  same "$c_name" "$TMP/out" "expected/$c_exp"
}

# check_err NAME STATUS TEXT EXPECTED ARGS...: exit status STATUS, nothing on stdout,
# stderr containing TEXT (a fixed string: the source with its line and column) and,
# unless EXPECTED is "-", stderr equal to expected/EXPECTED.
check_err() {
  c_name=$1
  c_want=$2
  c_text=$3
  c_exp=$4
  shift 4
  run "$@"
  if [ "$STATUS" -ne "$c_want" ]; then
    ko "$c_name" "exit status $STATUS, want $c_want ($(err_line))"
  elif [ -s "$TMP/out" ]; then
    ko "$c_name" "unexpected output on stdout: $(head -n 1 "$TMP/out")"
  elif ! grep -F -q -e "$c_text" "$TMP/err"; then
    ko "$c_name" "stderr does not contain '$c_text': $(err_line)"
  elif [ "$c_exp" = - ]; then
    ok "$c_name"
  else
    same "$c_name" "$TMP/err" "expected/$c_exp"
  fi
}

# check_last NAME LINE ARGS...: status 0 and LINE as the last line of stdout.
check_last() {
  c_name=$1
  c_line=$2
  shift 2
  run "$@"
  if [ "$STATUS" -ne 0 ]; then
    ko "$c_name" "exit status $STATUS, want 0 ($(err_line))"
  elif [ "$(tail -n 1 "$TMP/out")" != "$c_line" ]; then
    ko "$c_name" "last line '$(tail -n 1 "$TMP/out")', want '$c_line'"
  else
    ok "$c_name"
  fi
}

INITIAL='lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1'
# formats.md §1.11: 1.２一歩成 同玉 2.２二金打 まで3手詰.
TG3='8k/7P1/6+B2/9/9/9/9/9/9 b G2rb3g4s4n4l17p 1'
TG3_MIRROR='k8/1P7/2+B6/9/9/9/9/9/9 b G2rb3g4s4n4l17p 1'

group_help() {
  run --help
  if [ "$STATUS" -ne 0 ]; then
    ko "--help" "exit status $STATUS, want 0"
    return
  fi
  ok "--help exits 0"
  cp "$TMP/out" "$TMP/help"
  for c in show perft; do
    if grep -q "^  $c " "$TMP/help"; then ok "--help lists $c"; else ko "--help lists $c" "not in the command list"; fi
  done
  # The commands tested here answer --help with their usage line.
  for c in show perft; do
    run "$c" --help
    if [ "$STATUS" -eq 0 ] && grep -q "usage: tsume $c" "$TMP/out"; then
      ok "$c --help"
    else
      ko "$c --help" "exit status $STATUS, stdout '$(head -n 1 "$TMP/out")'"
    fi
  done
  run
  if [ "$STATUS" -eq 0 ] && cmp -s "$TMP/out" "$TMP/help"; then ok "no arguments prints the help"; else ko "no arguments prints the help" "exit status $STATUS"; fi
  check_last "--version" "tsume 0.1.0" --version
}

group_perft() {
  check_last "perft --depth 1 initial" "nodes 30" perft --depth 1 "$INITIAL"
  check_last "perft --depth 2 initial" "nodes 900" perft --depth 2 "$INITIAL"
  check_last "perft --depth 3 initial" "nodes 25470" perft --depth 3 "$INITIAL"
  check_last "perft --depth 3 --no-bulk initial" "nodes 25470" perft --depth 3 --no-bulk "$INITIAL"
  check_last "perft --depth 3 initial as SFEN words" "nodes 25470" perft --depth 3 $INITIAL
  check_out "perft --depth 3 --divide initial" perft_divide_d3.out perft --divide --depth 3 "$INITIAL"
  # The per-move counts add up to the total, and there is one per legal move.
  awk '$1 == "nodes" { total = $2; next } { sum += $2; n++ }
       END { exit !(n == 30 && sum == total && total == 25470) }' "$TMP/out"
  if [ $? -eq 0 ]; then ok "perft --divide: 30 moves summing to nodes 25470"; else ko "perft --divide sums" "$(tail -n 1 "$TMP/out")"; fi
  check_out "perft --depth 2 --divide TG3 (drops, promotions)" perft_divide_tg3_d2.out perft --divide --depth 2 "$TG3"
  run perft --depth 3 "$TG3"
  want=$(tail -n 1 "$TMP/out")
  for f in data/TG3-000001.kifu data/TG3-000001.kif data/TG3-000001.csa data/TG3-000001.sfen; do
    check_last "perft --depth 3 $f = on its SFEN ($want)" "$want" perft --depth 3 "$f"
  done
  check_err "perft without --depth" 2 "missing --depth" perft_no_depth.err perft "$INITIAL"
  check_err "perft --depth x" 2 "--depth needs a number" perft_bad_depth.err perft --depth x "$INITIAL"
  check_err "perft unknown option" 2 "unknown option '--bogus'" perft_bad_option.err perft --bogus --depth 1 "$INITIAL"
}

group_show() {
  check_out "show initial position" show_initial.out show "$INITIAL"
  check_out "show TG3 SFEN (one word)" show_tg3.out show "$TG3"
  check_out "show TG3 SFEN (four words)" show_tg3.out show $TG3
  check_out "show TG3 SFEN without move number" show_tg3.out show '8k/7P1/6+B2/9/9/9/9/9/9 b G2rb3g4s4n4l17p'
  # The same problem from every file format: the same diagram and sfen line.
  for f in data/TG3-000001.kifu data/TG3-000001.kif data/TG3-noheader-cp932.kif data/TG3-noheader-utf8.kif \
    data/TG3-000001.csa data/TG3-000001.sfen; do
    check_out "show $f" show_tg3.out show "$f"
  done
  check_out "show gote to move (後手番)" show_gote.out show '8k/7P1/6+B2/9/9/9/9/9/9 w G2rb3g4s4n4l17p 2'
  check_out "show --mirror TG3" show_tg3_mirror.out show --mirror "$TG3"
  check_out "show --mirror data/TG3-000001.kif" show_tg3_mirror.out show --mirror data/TG3-000001.kif
  check_out "show the mirror image of TG3" show_tg3_mirror.out show "$TG3_MIRROR"
  check_out "show --mirror of the mirror image = TG3" show_tg3.out show --mirror "$TG3_MIRROR"
  check_out "show --canonical TG3" show_tg3_canonical.out show --canonical "$TG3"
  check_out "show --canonical of the mirror image = same key" show_tg3_canonical.out show --canonical "$TG3_MIRROR"
  check_out "show --canonical --mirror data/TG3-000001.csa" show_tg3_canonical.out show --canonical --mirror data/TG3-000001.csa
  check_out "show --canonical initial position" show_initial_canonical.out show --canonical "$INITIAL"
}

group_errors() {
  # Malformed SFEN: the column is a character offset in the argument.
  check_err "SFEN with a bad letter" 2 "<sfen>:5: " sfen_bad_letter.err show '8k/7X1/9/9/9/9/9/9/9 b G 1'
  check_err "SFEN with 10 ranks" 2 "<sfen>:19: " sfen_ten_ranks.err show '8k/9/9/9/9/9/9/9/9/9 b G 1'
  check_err "SFEN with a bad side" 2 "<sfen>:20: " sfen_bad_side.err show '8k/9/9/9/9/9/9/9/9 x G 1'
  check_err "SFEN with a bad letter, perft" 2 "<sfen>:5: " perft_sfen_bad_letter.err perft --depth 1 '8k/7X1/9/9/9/9/9/9/9 b G 1'
  # Illegal positions.
  check_err "SFEN 二歩" 2 "<sfen>: 二歩" sfen_nifu.err show '8k/9/9/9/P8/P8/9/9/9 b G 1'
  check_err "SFEN side not to move in check" 2 "<sfen>: the side not to move" sfen_check.err show '8k/8G/9/9/9/9/9/9/9 b G 1'
  check_err "SFEN with 41 pieces" 2 "<sfen>: 19 pawns" sfen_41_pieces.err show '8k/9/9/9/9/9/9/9/P7K b 2r2b4g4s4n4l18p 1'
  # .sfen files: the line of the SFEN, and the column within it.
  check_err "bad/ten_ranks.sfen" 2 "bad/ten_ranks.sfen:2:19: " file_ten_ranks_sfen.err show bad/ten_ranks.sfen
  check_err "bad/nifu.sfen" 2 "bad/nifu.sfen:1: " file_nifu_sfen.err show bad/nifu.sfen
  check_err "bad/illegal_move.sfen" 2 "bad/illegal_move.sfen:3:57: " file_illegal_move_sfen.err show bad/illegal_move.sfen
  # KIF: columns count characters, in UTF-8 and CP932 alike.
  check_err "bad/bad_row.kifu (short row)" 2 "bad/bad_row.kifu:13:19: " file_bad_row_kifu.err show bad/bad_row.kifu
  check_err "bad/bad_piece.kif (CP932, bad row)" 2 "bad/bad_piece.kif:13:19: " file_bad_piece_kif.err show bad/bad_piece.kif
  check_err "bad/nifu.kifu" 2 "bad/nifu.kifu:14:17: " file_nifu_kifu.err show bad/nifu.kifu
  check_err "bad/illegal_move.kifu" 2 "bad/illegal_move.kifu:28:6: " file_illegal_move_kifu.err show bad/illegal_move.kifu
  # CSA.
  check_err "bad/bad_piece.csa" 2 "bad/bad_piece.csa:6:22: " file_bad_piece_csa.err show bad/bad_piece.csa
  check_err "bad/no_side.csa" 2 "bad/no_side.csa:15:1: " file_no_side_csa.err show bad/no_side.csa
  check_err "bad/nifu.csa" 2 "bad/nifu.csa:7:24: " file_nifu_csa.err show bad/nifu.csa
  check_err "bad/check.csa (side not to move in check)" 2 "bad/check.csa:15:1: " file_check_csa.err show bad/check.csa
  check_err "bad/illegal_move.csa" 2 "bad/illegal_move.csa:18:1: " file_illegal_move_csa.err show bad/illegal_move.csa
  # Missing files: I/O error (the message holds strerror, so only the name is checked).
  for f in bad/missing.kif bad/missing.kifu bad/missing.csa bad/missing.sfen; do
    check_err "missing file $f" 3 "$f: " - show "$f"
  done
  check_err "perft on a missing file" 3 "bad/missing.kif: " - perft --depth 1 bad/missing.kif
  # Bad usage.
  check_err "show unknown option" 2 "unknown option '--bogus'" show_bad_option.err show --bogus "$TG3"
  check_err "show without a position" 2 "missing position" show_no_position.err show
  check_err "show with an extra argument" 2 "unexpected argument 'extra'" show_extra_argument.err show "$TG3" extra
  check_err "unknown command" 2 "unknown command 'frobnicate'" - frobnicate
  check_err "unknown global option" 2 "unknown command '--bogus'" - --bogus
}

for g in $WANTED; do
  case $g in
  help | perft | show | errors) "group_$g" ;;
  *)
    echo "cli_test.sh: unknown group '$g'" >&2
    exit 2
    ;;
  esac
done

echo "$PASS passed, $FAIL failed"
[ "$FAIL" -eq 0 ]
