#!/bin/sh
# io_test.sh - what the tsume binary does when output, disk or database let it
# down, and with options and input meant to trip it:
#   write errors on standard output (/dev/full) exit 3 with a message;
#   a database whose enumeration is not finished is named by every reader, and
#   export / verify refuse it without --partial;
#   exports appear complete or not at all (SIGKILL at random moments, a full
#   disk, an empty selection);
#   a reader in a folder it cannot write still reads (no lock file);
#   a full disk during enumerate is named as such; bad options exit 2;
#   control bytes of the input never reach the terminal.
#
#   sh io_test.sh <tsume> <tamper_db>
#
# Prints one line per check and "N passed, M failed"; exit 1 when one failed.
# Checks that need root (mounting a small tmpfs, running as nobody) are
# skipped with a message when that is not possible.

set -u
T=$1
TAMPER=$2
TMP=$(mktemp -d "${TMPDIR:-/tmp}/tsume-io.XXXXXX") || exit 2
MNT=
cleanup() {
  [ -n "$MNT" ] && umount "$MNT" 2>/dev/null
  chmod -R u+w "$TMP" 2>/dev/null
  rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 2' INT TERM
PASS=0
FAIL=0
ok() { PASS=$((PASS + 1)); echo "ok    $1"; }
ko() { FAIL=$((FAIL + 1)); echo "FAIL  $1: $2"; }
skip() { echo "skip  $1"; }

# run ARGS...: leaves $TMP/out, $TMP/err and $ST.
run() {
  "$T" "$@" </dev/null >"$TMP/out" 2>"$TMP/err"
  ST=$?
}
# expect NAME STATUS TEXT ARGS...: exit STATUS and TEXT (fixed string) on stderr ("" for any).
expect() {
  e_name=$1 e_st=$2 e_text=$3
  shift 3
  run "$@"
  if [ "$ST" -ne "$e_st" ]; then
    ko "$e_name" "exit $ST, want $e_st ($(head -n 1 "$TMP/err"))"
  elif [ -n "$e_text" ] && ! grep -F -q -e "$e_text" "$TMP/err"; then
    ko "$e_name" "stderr lacks '$e_text': $(head -n 1 "$TMP/err")"
  else
    ok "$e_name"
  fi
}
# no_file NAME PATH: neither PATH nor a temporary of it is left.
no_file() {
  if [ -e "$2" ]; then
    ko "$1" "$2 exists ($(wc -c <"$2") bytes)"
  elif ls -a "$(dirname "$2")" | grep -q "^\.$(basename "$2")\.tmp"; then
    ko "$1" "temporary of $2 left behind"
  else
    ok "$1"
  fi
}

DB=$TMP/g2p1.mdb
"$T" enumerate --pieces G2P1 --db "$DB" >/dev/null 2>&1 || ko "enumerate G2P1" "failed"
TG3='8k/7P1/6+B2/9/9/9/9/9/9 b G2rb3g4s4n4l17p 1'

# ---- 1. write errors on standard output
if [ -w /dev/full ]; then
  for args in "query --db $DB --json" "query --db $DB --count" "query --db $DB --moves 3 --count" \
    "query --db $DB --generation" "verify --db $DB --moves 3" "perft --depth 2 $TG3" "solve $TG3" "show $TG3" \
    "--help" "query --help"; do
    # shellcheck disable=SC2086 # the words of args are the arguments
    "$T" $args </dev/null >/dev/full 2>"$TMP/err"
    st=$?
    if [ $st -eq 3 ] && grep -q 'error writing standard output: No space left on device' "$TMP/err"; then
      ok "tsume $(echo "$args" | cut -c1-40) >/dev/full: exit 3, named"
    else
      ko "tsume $args >/dev/full" "exit $st: $(head -n 1 "$TMP/err")"
    fi
  done
else
  skip "no /dev/full: write errors on standard output not checked"
fi

# ---- 2. databases that are not finished
"$TAMPER" "$DB" unfinished "$TMP/part.mdb" >/dev/null || ko "tamper_db unfinished" "failed"
run query --db "$DB" --count
cp "$TMP/out" "$TMP/count.ref"
[ "$ST" -eq 0 ] && [ ! -s "$TMP/err" ] && ok "finished database: query says nothing on stderr" ||
  ko "finished database" "exit $ST: $(head -n 1 "$TMP/err")"
expect "unfinished: query --count warns, exit 0" 0 "part.mdb is not finished" query --db "$TMP/part.mdb" --count
cmp -s "$TMP/out" "$TMP/count.ref" && ok "unfinished copy: same records" || ko "unfinished copy" "counts differ"
expect "unfinished: query lists and warns" 0 "is not finished" query --db "$TMP/part.mdb" --moves 3
expect "unfinished: query --generation says so" 1 "not finished" query --db "$TMP/part.mdb" --generation
expect "unfinished: export refuses, exit 1" 1 "give --partial" export --db "$TMP/part.mdb" --sfen "$TMP/p.sfen"
no_file "unfinished: export wrote nothing" "$TMP/p.sfen"
expect "unfinished: export --partial, exit 0" 0 "is not finished" export --db "$TMP/part.mdb" --moves 3 --sfen "$TMP/p.sfen" --partial
[ -s "$TMP/p.sfen" ] && ok "export --partial wrote its file" || ko "export --partial" "no file"
expect "unfinished: verify refuses, exit 1" 1 "give --partial" verify --db "$TMP/part.mdb" --moves 3
expect "unfinished: verify --partial, exit 0" 0 "is not finished" verify --db "$TMP/part.mdb" --moves 3 --partial
# a run killed in the middle: N4 takes seconds; killed once its file exists.
# A run that ended before the signal (wait says 0) is skipped, not judged.
"$T" enumerate --pieces N4 --db "$TMP/killed.mdb" --batch 2000 >/dev/null 2>&1 &
pid=$!
for _ in $(seq 1 100); do [ -e "$TMP/killed.mdb" ] && break; sleep 0.02; done
sleep 0.3
kill -9 $pid 2>/dev/null
wait $pid 2>/dev/null
wst=$?
if [ "$wst" -eq 137 ]; then
  run query --db "$TMP/killed.mdb" --count
  if [ "$ST" -eq 3 ] || grep -q 'killed.mdb is not finished' "$TMP/err"; then ok "killed enumerate: query names it not finished (exit $ST)"
  else ko "killed enumerate" "exit $ST, no warning: $(head -n 1 "$TMP/err")"; fi
else
  skip "enumerate N4 ended (status $wst) before it was killed"
fi

# ---- 3. exports: complete or absent
"$T" export --db "$DB" --sfen "$TMP/ref.sfen" 2>/dev/null || ko "reference export --sfen" "failed"
"$T" export --db "$DB" --limit 4000 --kif-file "$TMP/ref.kif" 2>/dev/null || ko "reference export --kif-file" "failed"
seed=4242
for trial in 1 2 3 4 5 6 7 8; do
  seed=$(((seed * 1103515245 + 12345) % 2147483648))
  ms=$((seed % 300))
  case $trial in
  [1-4]) out=$TMP/k.sfen ref=$TMP/ref.sfen; set -- --sfen "$out" ;;
  *) out=$TMP/k.kif ref=$TMP/ref.kif; set -- --limit 4000 --kif-file "$out" ;;
  esac
  rm -f "$out"
  "$T" export --db "$DB" "$@" >/dev/null 2>&1 &
  pid=$!
  sleep "$(awk "BEGIN{print $ms/1000}")"
  kill -9 $pid 2>/dev/null && what=killed || what=finished
  wait $pid 2>/dev/null
  if [ ! -e "$out" ]; then ok "export $1 $what after $ms ms: no file"
  elif cmp -s "$out" "$ref"; then ok "export $1 $what after $ms ms: complete file"
  else ko "export $1 $what after $ms ms" "cut file ($(wc -c <"$out") of $(wc -c <"$ref") bytes)"; fi
done
rm -f "$TMP"/.k.*.tmp*
# one KIF file per problem: each one complete
"$T" export --db "$DB" --limit 1000 --kif "$TMP/kdref" >/dev/null 2>&1
# every_complete NAME DIR: each file in DIR equals the one of the reference export, none is left half-written
every_complete() {
  cut=$(diff -rq "$2" "$TMP/kdref" | grep -c -v '^Only in ')
  if [ "$cut" -ne 0 ]; then ko "$1" "$cut cut files"
  elif ls -a "$2" | grep -q '\.tmp'; then ko "$1" "temporary left"
  else ok "$1 ($(ls "$2" | wc -l) files)"; fi
}
"$T" export --db "$DB" --limit 1000 --kif "$TMP/kd" >/dev/null 2>&1 &
pid=$!
sleep 0.05
kill -9 $pid 2>/dev/null
wait $pid 2>/dev/null
rm -f "$TMP"/kd/.*.tmp*
every_complete "export --kif DIR killed: every file there complete" "$TMP/kd"
# an empty selection leaves nothing, and an older file stays as it was
expect "empty selection --sfen: exit 1" 1 "exported 0" export --db "$DB" --moves 99 --sfen "$TMP/m.sfen"
no_file "empty selection --sfen: no file" "$TMP/m.sfen"
expect "empty selection --kif-file: exit 1" 1 "exported 0" export --db "$DB" --moves 99 --kif-file "$TMP/m.kif"
no_file "empty selection --kif-file: no file" "$TMP/m.kif"
expect "empty selection --kif DIR: exit 1" 1 "exported 0" export --db "$DB" --moves 99 --kif "$TMP/mdir"
no_file "empty selection --kif DIR: no directory" "$TMP/mdir"
echo old >"$TMP/old.sfen"
expect "empty selection over an existing file: exit 1" 1 "" export --db "$DB" --moves 99 --sfen "$TMP/old.sfen" --force
[ "$(cat "$TMP/old.sfen")" = old ] && ok "the existing file is left as it was" || ko "existing file" "changed"
# what cannot be replaced by a rename is written directly; a symbolic link stays one
"$T" export --db "$DB" --moves 3 --limit 5 --sfen /dev/stdout </dev/null 2>/dev/null >"$TMP/o.sfen"
[ "$(wc -l <"$TMP/o.sfen")" -eq 5 ] && [ -L /dev/stdout ] && ok "export --sfen /dev/stdout: written to standard output" ||
  ko "export --sfen /dev/stdout" "$(wc -l <"$TMP/o.sfen") lines"
echo old >"$TMP/real.sfen"
ln -s real.sfen "$TMP/link.sfen"
expect "export --sfen through a symbolic link: exit 0" 0 "" export --db "$DB" --moves 3 --limit 5 --sfen "$TMP/link.sfen" --force
[ -L "$TMP/link.sfen" ] && [ "$(wc -l <"$TMP/real.sfen")" -eq 5 ] && ok "the link stays, the file it names is written" ||
  ko "export through a symbolic link" "link replaced or file not written"
# a full disk: the file-size limit (any user), then a 256 KB tmpfs (root)
(
  ulimit -f 200
  "$T" export --db "$DB" --sfen "$TMP/big.sfen" </dev/null >"$TMP/out" 2>"$TMP/err"
  echo $? >"$TMP/st"
)
st=$(cat "$TMP/st")
[ "$st" -eq 3 ] && grep -q 'big.sfen: write failed: File too large' "$TMP/err" && ok "export past ulimit -f: exit 3, named" ||
  ko "export past ulimit -f" "exit $st: $(head -n 1 "$TMP/err")"
no_file "export past ulimit -f: no file" "$TMP/big.sfen"
mkdir "$TMP/small"
"$T" enumerate --pieces G2 --db "$TMP/tiny.mdb" >/dev/null 2>&1 && rm -f "$TMP/tiny.mdb-lock"
if [ "$(id -u)" -eq 0 ] && mount -t tmpfs -o size=256k tmpfs "$TMP/small" 2>/dev/null; then
  MNT=$TMP/small
  for o in --sfen --kif-file; do
    expect "export $o on a full disk: exit 3" 3 "No space left on device" export --db "$DB" $o "$MNT/full$o"
    no_file "export $o on a full disk: no file" "$MNT/full$o"
  done
  expect "enumerate on a full disk: exit 3, ENOSPC named" 3 "write failed: No space left on device" \
    enumerate --pieces G2P1 --db "$MNT/e.mdb"
  rm -f "$MNT"/e.mdb*
  expect "export --kif DIR on a full disk: exit 3" 3 "No space left on device" export --db "$DB" --limit 400 --kif "$MNT/kd"
  every_complete "export --kif DIR on a full disk: the files there complete" "$MNT/kd"
  # nothing left at all: the lock file cannot be made (LMDB would die of SIGBUS on its pages)
  cat /dev/zero >"$MNT/fill" 2>/dev/null
  expect "enumerate on a disk with no block left: exit 3" 3 "No space left on device" enumerate --pieces G2 --db "$MNT/f.mdb"
  rm -rf "${MNT:?}"/*
  cp "$TMP/tiny.mdb" "$MNT/r.mdb" && cat /dev/zero >"$MNT/fill" 2>/dev/null
  expect "query on a disk with no block left: reads, exit 0" 0 "" query --db "$MNT/r.mdb" --count
  umount "$MNT" && MNT=
else
  skip "cannot mount a tmpfs (not root): full-disk checks by ulimit -f only"
fi
# 18. the real cause of a failed database write
(
  ulimit -f 100
  "$T" enumerate --pieces G2P1 --db "$TMP/lim.mdb" </dev/null >"$TMP/out" 2>"$TMP/err"
  echo $? >"$TMP/st"
)
st=$(cat "$TMP/st")
[ "$st" -eq 3 ] && grep -q 'lim.mdb: write failed: File too large' "$TMP/err" && ok "enumerate past ulimit -f: exit 3, EFBIG named" ||
  ko "enumerate past ulimit -f" "exit $st: $(tail -n 1 "$TMP/err")"
# a sort run that cannot be written (spilled by the sorter thread): its error, not a hang or a crash;
# before it, the table's checkpoint that cannot be written is said and the run goes on
(
  ulimit -f 100
  "$T" enumerate --pieces S1N1P1 --db "$TMP/runs.mdb" --sort-mem 4 </dev/null >"$TMP/out" 2>"$TMP/err"
  echo $? >"$TMP/st"
)
st=$(cat "$TMP/st")
[ "$st" -eq 3 ] && grep -q 'runs.mdb: cannot write a sort run beside the database: File too large' "$TMP/err" &&
  ok "a sort run past ulimit -f: exit 3, named" || ko "a sort run past ulimit -f" "exit $st: $(tail -n 1 "$TMP/err")"
grep -q "runs.mdb-table: cannot write the table's checkpoint: File too large; a resumed run will make the table again" \
  "$TMP/err" && ok "a checkpoint past ulimit -f: said, the run goes on" ||
  ko "a checkpoint past ulimit -f" "$(head -n 1 "$TMP/err")"
[ -z "$(ls "$TMP" | grep -E 'runs.mdb.sort-|runs.mdb-table')" ] && ok "no sort run or checkpoint file left" ||
  ko "files left" "$(ls "$TMP")"

# ---- 13. a folder the reader cannot write
mkdir "$TMP/ro" "$TMP/ro2"
cp "$DB" "$TMP/ro/"
cp "$DB" "$TMP/ro2/"
"$T" query --db "$TMP/ro2/g2p1.mdb" --count >/dev/null 2>&1 # leaves a lock file writable by its owner only
chmod 755 "$TMP"
chmod 555 "$TMP/ro" "$TMP/ro2"
chmod 644 "$TMP/ro/g2p1.mdb" "$TMP/ro2/g2p1.mdb" "$TMP/ro2/g2p1.mdb-lock"
AS=
if [ "$(id -u)" -eq 0 ]; then
  if command -v setpriv >/dev/null && setpriv --reuid=nobody --regid=nogroup --clear-groups "$T" --version >/dev/null 2>&1; then
    AS="setpriv --reuid=nobody --regid=nogroup --clear-groups"
  elif su nobody -s /bin/sh -c "'$T' --version" >/dev/null 2>&1; then
    AS=su
  fi
else
  AS=self
fi
for d in ro ro2; do
  case $AS in
  "") skip "no unprivileged user can run $T: read-only folder not checked"; break ;;
  self) "$T" query --db "$TMP/$d/g2p1.mdb" --count >"$TMP/out" 2>"$TMP/err"; st=$? ;;
  su) su nobody -s /bin/sh -c "'$T' query --db '$TMP/$d/g2p1.mdb' --count" >"$TMP/out" 2>"$TMP/err"; st=$? ;;
  *) $AS "$T" query --db "$TMP/$d/g2p1.mdb" --count >"$TMP/out" 2>"$TMP/err"; st=$? ;;
  esac
  what="no lock file"
  [ $d = ro2 ] && what="a lock file it may not write"
  [ $st -eq 0 ] && cmp -s "$TMP/out" "$TMP/count.ref" && ok "read-only folder, $what: query reads it" ||
    ko "read-only folder, $what" "exit $st: $(head -n 1 "$TMP/err")"
done
chmod 755 "$TMP/ro" "$TMP/ro2"
chmod 700 "$TMP"

# ---- 14, 15, 16. options
expect "query --limit 0: exit 2" 2 "--limit needs a number of at least 1" query --db "$DB" --limit 0
expect "export --limit 0: exit 2" 2 "--limit needs a number of at least 1" export --db "$DB" --sfen "$TMP/l.sfen" --limit 0
no_file "export --limit 0: no file" "$TMP/l.sfen"
expect "verify --limit 0: exit 2" 2 "--limit needs a number of at least 1" verify --db "$DB" --limit 0
expect "enumerate --resume --force: exit 2" 2 "contradict" enumerate --pieces G2 --db "$TMP/rf.mdb" --resume --force
for c in query export verify enumerate perft solve show bench; do
  expect "$c --bogus: exit 2" 2 "'--bogus'" $c --bogus
done
expect "query stray argument: exit 2" 2 "unexpected argument 'stray'" query --db "$DB" stray
expect "export --db without a value: exit 2" 2 "option '--db' needs a value" export --db
run query --db="$DB" --moves=3 --limit=2
[ "$ST" -eq 0 ] && [ "$(wc -l <"$TMP/out")" -eq 2 ] && ok "--opt=value works" || ko "--opt=value" "exit $ST"
expect "--pieces G99999999999: exit 2, the count as given" 2 "count 99999999999 of 'G' outside 1..4" \
  enumerate --pieces G99999999999 --db "$TMP/x.mdb"
expect "--pieces P4294967297: exit 2" 2 "count 4294967297 of 'P'" enumerate --pieces P4294967297 --db "$TMP/x.mdb"
expect "--pieces G1-99999999999: exit 2" 2 "count 1-99999999999 of 'G'" enumerate --pieces G1-99999999999 --db "$TMP/x.mdb"

# ---- 17. control bytes in messages
ESC=$(printf '\033')
for args in "frobnicate${ESC}[2J" "show 8k/7${ESC}X1/9/9/9/9/9/9/9 b G 1" "show bad${ESC}]0;title.kif" \
  "query --db $DB --flag ${ESC}[31m" "query --db x${ESC}[31m.mdb"; do
  # shellcheck disable=SC2086
  "$T" $args </dev/null >/dev/null 2>"$TMP/err"
  st=$?
  name="control bytes escaped: $(echo "$args" | tr -d '\033' | cut -c1-30)"
  if grep -q "$ESC" "$TMP/err"; then ko "$name" "raw ESC on stderr"
  elif ! grep -q 'x1b' "$TMP/err"; then ko "$name" "no \\x1b in: $(head -n 1 "$TMP/err")"
  elif [ $st -ne 2 ] && [ $st -ne 3 ]; then ko "$name" "exit $st"
  else ok "$name"; fi
done

# ---- one writer per database: a held writer lock stops a second enumerate, --force included
"$T" enumerate --pieces G1P1 --db "$TMP/w.mdb" >/dev/null 2>&1
flock "$TMP/w.mdb-writer" sleep 4 &
FLOCK_PID=$!
for _ in $(seq 1 100); do flock -n "$TMP/w.mdb-writer" true 2>/dev/null || break; sleep 0.02; done
expect "second writer with --force: exit 3" 3 "being written by another process" enumerate --pieces G1P1 --db "$TMP/w.mdb" --force
expect "readers work while a writer holds the lock" 0 "" query --db "$TMP/w.mdb" --count
wait $FLOCK_PID
expect "writer lock released: --force replaces, exit 0" 0 "" enumerate --pieces G1P1 --db "$TMP/w.mdb" --force

echo "$PASS passed, $FAIL failed"
[ "$FAIL" -eq 0 ]
