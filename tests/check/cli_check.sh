#!/bin/sh
# End-to-end tests of `tsume check`: text and JSON output (parsed with python3),
# inputs (SFEN, .sfen list, KIF, directory, TSV), options, exit statuses and
# bad input (an illegal line, a line past mate, 10 MB of garbage, ...).
# usage: cli_check.sh <tsume binary> <tests/cli/data directory> <scratch directory>
T="$1"
DATA="$2"
W="$3/cli_check.tmp"
rm -rf "$W"
mkdir -p "$W"
fail=0
ok() { echo "ok   $1"; }
bad() { echo "FAIL $1"; fail=1; }
expect() { # name expected actual
  if [ "$2" = "$3" ]; then ok "$1"; else bad "$1 (expected '$2', got '$3')"; fi
}
has() { # name pattern file
  if grep -q -e "$2" "$3"; then ok "$1"; else bad "$1 (no '$2' in $3)"; cat "$3"; fi
}

YOZUME="9/8k/8g/7GP/9/9/9/9/9 b 2r2b2g4s4n4l17p 1"   # 1d1c+ 1b1a G*1b; 2d1c also mates in 3
COMPLETE="6kgG/9/6+P2/9/9/9/9/9/9 b 2r2b2g4s4n4l17p 1" # 1a2a 3a2a G*2b
HIGENTEI="9/8k/9/7LS/8G/9/9/9/9 b 2r2b3g3s4n3l18p 1"   # 1d2c+ 1b1a 2c2b; 1d2c too
HENCHOU="7k1/9/7gR/9/9/9/9/9/9 b r2b3g4s4n4l18p 1"     # 1c2c+ 2a1a G*1b; drops on 2b last longer
NOMATE="8k/9/9/9/9/9/9/9/G8 b 2r2b3g4s4n4l18p 1"

# ---- text output
"$T" check --line "1d1c+ 1b1a G*1b" "$YOZUME" >"$W/yozume.txt" 2>"$W/err.txt"
expect "yozume: exit 1" 1 $?
has "yozume: diagram" "先手の持駒" "$W/yozume.txt"
has "yozume: line in KIF" "▲１三歩成(14)" "$W/yozume.txt"
has "yozume: kind in Japanese and English" "余詰 yozume" "$W/yozume.txt"
has "yozume: alternative in KIF and USI" "▲１三金(24) (2d1c), mate in 3" "$W/yozume.txt"
has "yozume: alternative line" "2d1c 1b1a G\*1b" "$W/yozume.txt"
has "yozume: tolerated last-move-alt" "最終手余詰 last-move-alt (キズ, tolerated)" "$W/yozume.txt"
has "yozume: verdict" "^verdict: flawed (不完全作)" "$W/yozume.txt"
has "yozume: summary" "^summary: 1 problem: 0 complete, 1 flawed" "$W/yozume.txt"
has "yozume: counts by kind" "^flaws by kind: yozume 1 last-move-alt 1" "$W/yozume.txt"
expect "yozume: nothing on stderr" "" "$(cat "$W/err.txt")"

# the SFEN in words, no line: the solver's main line is checked
"$T" check $COMPLETE >"$W/complete.txt"
expect "complete (unquoted SFEN, no line): exit 0" 0 $?
has "complete: the solver's line" "the solver's main line" "$W/complete.txt"
has "complete: verdict" "^verdict: complete (完全作)" "$W/complete.txt"

"$T" check --quiet --line "1d1c+ 1b1a G*1b" "$YOZUME" >"$W/quiet.txt"
expect "--quiet: summary only" "3" "$(wc -l <"$W/quiet.txt" | tr -d ' ')"
has "--quiet: summary" "^summary:" "$W/quiet.txt"

# ---- JSON
"$T" check --json --line "1d1c+ 1b1a G*1b" "$YOZUME" >"$W/yozume.json"
expect "json: exit 1" 1 $?
out=$(python3 - "$W/yozume.json" <<'EOF'
import json, sys
lines = open(sys.argv[1]).read().splitlines()
o = json.loads(lines[0]); s = json.loads(lines[1])["summary"]
assert len(lines) == 2
for k in ("id", "verdict", "length", "line_length", "flaws", "nodes", "time_ms"): assert k in o, k
f = [x for x in o["flaws"] if x["kind"] == "yozume"][0]
print(o["verdict"], o["length"], o["line_length"], " ".join(o["line"]))
print(f["ply"], f["move"], f["alt"], f["alt_length"], " ".join(f["alt_line"]), f["tolerated"])
l = [x for x in o["flaws"] if x["kind"] == "last-move-alt"][0]
print(l["ply"], l["alt"], l["tolerated"])
print(s["problems"], s["complete"], s["flawed"], s["kinds"]["yozume"])
EOF
)
expect "json: fields" "flawed 3 3 1d1c+ 1b1a G*1b
1 1d1c+ 2d1c 3 2d1c 1b1a G*1b False
3 G*2b True
1 0 1 1" "$out"

# henchou: the longer defences, komaamari at their end; --max-alts keeps one
"$T" check --json --line "1c2c+ 2a1a G*1b" "$HENCHOU" >"$W/henchou.json"
out=$(python3 -c '
import json, sys
o = json.loads(open(sys.argv[1]).readline())
h = [f for f in o["flaws"] if f["kind"] == "henchou"]
print(o["verdict"], len(h) > 1, all(f["ply"] == 2 and f["alt_komaamari"] and f["alt_length"] == 4 for f in h),
      any(f["alt"] == "P*2b" for f in h))' "$W/henchou.json")
expect "json: henchou" "flawed True True True" "$out"
"$T" check --json --max-alts 1 --line "1c2c+ 2a1a G*1b" "$HENCHOU" >"$W/max.json"
out=$(python3 -c '
import json, sys
o = json.loads(open(sys.argv[1]).readline())
print(len(o["flaws"]), o["flaws_dropped"] > 0, o["verdict"])' "$W/max.json")
expect "--max-alts 1" "1 True flawed" "$out"

# --strict: 非限定 becomes a flaw; --strict-last-move
"$T" check --quiet --line "1d2c+ 1b1a 2c2b" "$HIGENTEI" >/dev/null
expect "higentei tolerated: exit 0" 0 $?
"$T" check --quiet --strict --line "1d2c+ 1b1a 2c2b" "$HIGENTEI" >/dev/null
expect "higentei --strict: exit 1" 1 $?
"$T" check --quiet --strict-last-move --line "1a2a 3a2a G*2b" "$COMPLETE" >/dev/null
expect "--strict-last-move on a unique last move: exit 0" 0 $?
"$T" check --quiet --no-futile-rule --first-flaw --time-ms 10000 --nodes 10000000 --call-nodes 100000 --hash 8 \
  --line "1d1c+ 1b1a G*1b" "$YOZUME" >/dev/null
expect "all options: exit 1" 1 $?

# nomate (no line)
"$T" check --json "$NOMATE" >"$W/nomate.json"
expect "nomate: exit 1" 1 $?
expect "nomate: verdict" '"nomate"' "$(head -1 "$W/nomate.json" | sed 's/.*"verdict":\("[a-z-]*"\).*/\1/')"

# a line that is legal but does not check / does not end in mate: bad-line, exit 1
"$T" check --json --line "1d1c+ 1b1a" "$YOZUME" >"$W/notmate.json"
expect "not mate: exit 1" 1 $?
expect "not mate: bad-line" "bad-line not-mate" "$(python3 -c '
import json, sys
o = json.loads(open(sys.argv[1]).readline()); print(o["verdict"], o["flaws"][0]["kind"])' "$W/notmate.json")"

# ---- inputs: .sfen list, KIF, directory, TSV, several at once in input order
printf '# a list\n%s moves 1d1c+ 1b1a G*1b\n\n%s moves 1a2a 3a2a G*2b\n%s\n' "$YOZUME" "$COMPLETE" "$HIGENTEI" >"$W/list.sfen"
"$T" check --json --threads 2 "$W/list.sfen" >"$W/list.json"
expect "sfen list: exit 1" 1 $?
out=$(python3 -c '
import json, sys
for l in open(sys.argv[1]):
    o = json.loads(l)
    if "summary" in o: print("summary", o["summary"]["problems"], o["summary"]["complete"], o["summary"]["flawed"])
    else: print(o["id"].rsplit("/", 1)[1], o["verdict"], o["line_given"])' "$W/list.json")
expect "sfen list: ids, order, verdicts" "list.sfen:2 flawed True
list.sfen:4 complete True
list.sfen:5 complete False
summary 3 2 1" "$out"

mkdir -p "$W/dir"
cp "$DATA/TG3-000001.kifu" "$W/dir/b.kifu"
printf '%s moves 1d1c+ 1b1a G*1b\n' "$YOZUME" >"$W/dir/a.sfen"
echo "not a problem" >"$W/dir/notes.txt"
"$T" check --json "$W/dir" >"$W/dir.json"
expect "directory: exit 1" 1 $?
out=$(python3 -c '
import json, sys
for l in open(sys.argv[1]):
    o = json.loads(l)
    if "id" in o: print(o["id"].rsplit("/", 1)[1], o["verdict"])' "$W/dir.json")
expect "directory: problem files, sorted" "a.sfen flawed
b.kifu complete" "$out"

"$T" check --quiet "$DATA/TG3-000001.kif" "$DATA/TG3-000001.csa" "$DATA/TG3-000001.sfen" >"$W/files.txt"
expect "kif csa sfen files: exit 0" 0 $?
has "kif csa sfen files: 3 complete" "3 problems: 3 complete" "$W/files.txt"

# a KIF record without moves: the checker finds the line
sed '/^手数----/,$d' "$DATA/TG3-000001.kifu" >"$W/nomoves.kifu"
"$T" check --json "$W/nomoves.kifu" >"$W/nomoves.json"
expect "KIF without moves: exit 0" 0 $?
expect "KIF without moves: the solver's line" "False 3 complete" "$(python3 -c '
import json, sys
o = json.loads(open(sys.argv[1]).readline()); print(o["line_given"], o["line_length"], o["verdict"])' "$W/nomoves.json")"

# TSV: tab header with '#', an empty solution (the solver's line), a row with an id
printf '# a comment\n# id\tsfen\tsolution_usi\tmate_len\ny1\t%s\t1d1c+ 1b1a G*1b\t3\nc1\t%s\t\t3\n' \
  "$YOZUME" "$COMPLETE" >"$W/set.tsv"
"$T" check --json "$W/set.tsv" >"$W/tsv.json"
expect "tsv: exit 1" 1 $?
out=$(python3 -c '
import json, sys
for l in open(sys.argv[1]):
    o = json.loads(l)
    if "id" in o: print(o["id"], o["verdict"], o["line_given"])' "$W/tsv.json")
expect "tsv: rows" "y1 flawed True
c1 complete False" "$out"
# the public sets' header style: "# columns: id  sfen  solution_usi(...)" (two spaces)
printf '# columns: id  sfen  solution_usi(recorded main line)  len\nz1\t%s\t1a2a 3a2a G*2b\t3\n' "$COMPLETE" >"$W/cols.tsv"
"$T" check --quiet "$W/cols.tsv" >"$W/cols.txt"
expect "tsv columns: header: exit 0" 0 $?
has "tsv columns: header: one complete" "1 problem: 1 complete" "$W/cols.txt"

# ---- bad input: exit 2 with file, line and column
"$T" check --line "1d1c+ 1b1a 9i9h" "$YOZUME" >/dev/null 2>"$W/err.txt"
expect "illegal move in --line: exit 2" 2 $?
has "illegal move in --line: message" "tsume check: --line: column 12: illegal move '9i9h'" "$W/err.txt"
"$T" check --line "1d1c+ 1b1a G*1b 1a2a" "$YOZUME" >/dev/null 2>"$W/err.txt"
expect "line past mate: exit 2" 2 $?
has "line past mate: message" "goes on past mate (mate after move 3)" "$W/err.txt"
printf '%s moves 1d1c+ 1b1a G*1b 1a2a\n' "$YOZUME" >"$W/past.sfen"
"$T" check "$W/past.sfen" >/dev/null 2>"$W/err.txt"
expect "sfen file past mate: exit 2" 2 $?
has "sfen file past mate: file, line and column" "past.sfen:1:[0-9]*: illegal move '1a2a'.*past mate" "$W/err.txt"
printf '# id\tsfen\tsolution_usi\nok\t%s\t1a2a 3a2a G*2b\nbad\t%s\t1a2a 3a2a 5e5d\n' "$COMPLETE" "$COMPLETE" >"$W/bad.tsv"
"$T" check --quiet "$W/bad.tsv" >"$W/out.txt" 2>"$W/err.txt"
expect "tsv illegal row: exit 2" 2 $?
has "tsv illegal row: file:line:column" "bad.tsv:3:[0-9]*: illegal move '5e5d'" "$W/err.txt"
has "tsv illegal row: the other row is checked" "1 complete" "$W/out.txt"
printf 'id\tcolumn\n1\t2\n' >"$W/nohead.tsv"
"$T" check "$W/nohead.tsv" >/dev/null 2>"$W/err.txt"
expect "tsv without a sfen column: exit 2" 2 $?
has "tsv without a sfen column: message" "nohead.tsv:1:1: no header line naming a 'sfen' column" "$W/err.txt"
printf '# id\tsfen\nx\t9/9/9 b - 1\n' >"$W/badsfen.tsv"
"$T" check "$W/badsfen.tsv" >/dev/null 2>"$W/err.txt"
expect "tsv bad SFEN: exit 2" 2 $?
has "tsv bad SFEN: file and line" "badsfen.tsv:2" "$W/err.txt"

# 10 MB of garbage, as .kif and with no extension: a clear error, exit 2, no crash
head -c 10485760 /dev/urandom >"$W/garbage.kif"
"$T" check "$W/garbage.kif" >/dev/null 2>"$W/err.txt"
expect "10 MB garbage .kif: exit 2" 2 $?
has "10 MB garbage .kif: names the file" "garbage.kif" "$W/err.txt"
cp "$W/garbage.kif" "$W/garbage"
"$T" check "$W/garbage" >/dev/null 2>"$W/err.txt"
expect "10 MB garbage (no extension): exit 2" 2 $?
has "10 MB garbage: names the file" "garbage" "$W/err.txt"
tr -dc 'a-z0-9 /+*\n' <"$W/garbage.kif" | head -c 10485760 >"$W/garbage.sfen"
"$T" check --quiet "$W/garbage.sfen" >/dev/null 2>"$W/err.txt"
expect "10 MB text garbage .sfen: exit 2" 2 $?
has "garbage .sfen: file and line" "garbage.sfen:1" "$W/err.txt"
rm -f "$W/garbage" "$W/garbage.kif" "$W/garbage.sfen"

# I/O: a file that does not exist, exit 3; usage errors, exit 2
"$T" check "$W/none.kif" >/dev/null 2>"$W/err.txt"
expect "missing file: exit 3" 3 $?
has "missing file: message" "none.kif" "$W/err.txt"
"$T" check "$W/nodir/" >/dev/null 2>&1
expect "missing directory: exit 3" 3 $?
"$T" check >/dev/null 2>&1
expect "no argument: exit 2" 2 $?
"$T" check --line "1a2a" "$COMPLETE" "$YOZUME" >/dev/null 2>&1
expect "--line with two problems: exit 2" 2 $?
"$T" check --threads x "$COMPLETE" >/dev/null 2>&1
expect "--threads x: exit 2" 2 $?
"$T" check --bogus "$COMPLETE" >/dev/null 2>&1
expect "unknown option: exit 2" 2 $?
"$T" check --help >"$W/help.txt"
expect "--help: exit 0" 0 $?
has "--help: usage" "usage: tsume check" "$W/help.txt"
# no line given: the solver's main line goes through a 変同 branch (ply 12) where the attacker has a
# second mate (変別); the main line through the other defence is taken, and it is flawed all the same:
# at ply 13 the dragon's 2h1i mates in 7 against the line's 3, a longer 余詰 that never comes back
"$T" check "9/9/9/9/9/9/PGS6/gGN4+R1/krg6 b S2b2s3n4l17p 1" > "$W/hendou.txt"; st=$?
expect "no line, a 変同 branch with 変別: exit" 1 $st
has "no line, a 変同 branch with 変別: flawed" "^verdict: flawed" "$W/hendou.txt"
has "no line, a longer 余詰 at ply 13" "余詰 yozume: ▲１九龍(28) (2h1i), mate in 7" "$W/hendou.txt"

# a longer 余詰 (G2S2, 11 plies: at ply 5 G*3c mates in 9 against the line's 7) is flawed, and counted apart
"$T" check --line "3c3b 2c3c 4b4c 3c2b G*2c 2b1a 3b2a+ 1a2a 4c3b 2a1a 2c2b" "9/5Gg2/6Sk1/9/7+S1/9/9/9/9 b 2r2b2g2s4n4l18p 1" \
  > "$W/longer.txt"; st=$?
expect "longer 余詰: exit" 1 $st
has "longer 余詰: flawed" "^verdict: flawed" "$W/longer.txt"
has "longer 余詰: the alternative" "余詰 yozume: ▲３三金打 (G\*3c), mate in 9 (longer than the line)" "$W/longer.txt"
has "longer 余詰: the summary" "^of them longer than the line's remainder: yozume 1" "$W/longer.txt"
"$T" check --json --line "3c3b 2c3c 4b4c 3c2b G*2c 2b1a 3b2a+ 1a2a 4c3b 2a1a 2c2b" \
  "9/5Gg2/6Sk1/9/7+S1/9/9/9/9 b 2r2b2g2s4n4l18p 1" > "$W/longer.json"
has "longer 余詰: JSON" '"longer":{"yozume":1}' "$W/longer.json"

"$T" --help | grep -q "^  check "
expect "listed in tsume --help" 0 $?

rm -rf "$W"
exit $fail
