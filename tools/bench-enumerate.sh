#!/bin/sh
# bench-enumerate.sh - time and peak memory of `tsume enumerate` per material.
# Not a test: it prints figures to compare two builds (before/after a change).
#
#   sh tools/bench-enumerate.sh [-t TSUME] [-j THREADS] [-o "ENUMERATE OPTIONS"] [MATERIAL...]
#   sh tools/bench-enumerate.sh G2P1 N4                 # default list: G2P1 S1N2 N4 G3S1 G2S2
#   sh tools/bench-enumerate.sh -t old/tsume -j 1 G2P1
#   sh tools/bench-enumerate.sh -o "--store complete" N4
#
# One line per material: wall time, user+system CPU, peak RSS (from the kernel's
# accounting of the child, via /usr/bin/time when present, else the run's own
# `--stats` line), problems and database size, and the md5 of `query --json`
# so two builds can be checked to give the same database. Each database is
# made in a temporary folder and removed.
set -eu
T=build/tools/tsume
J=2
EXTRA=""
while [ $# -gt 0 ]; do
  case "$1" in
    -t) T=$2; shift 2 ;;
    -j) J=$2; shift 2 ;;
    -o) EXTRA=$2; shift 2 ;;
    -h|--help) sed -n '2,13p' "$0"; exit 0 ;;
    -*) echo "bench-enumerate.sh: unknown option $1" >&2; exit 2 ;;
    *) break ;;
  esac
done
MATS="$*"
[ -n "$MATS" ] || MATS="G2P1 S1N2 N4 G3S1 G2S2"
[ -x "$T" ] || { echo "bench-enumerate.sh: $T is not an executable (build first, or give -t)" >&2; exit 2; }
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
TIMEV=""
if [ -x /usr/bin/time ] && /usr/bin/time -v true >/dev/null 2>&1; then TIMEV=/usr/bin/time; fi
printf '%-10s %10s %10s %10s %12s %10s  %s\n' material wall_s cpu_s peak_MB problems db_MB "md5(query --json)"
for m in $MATS; do
  db="$W/$m.mdb"
  s=$(date +%s.%N)
  if [ -n "$TIMEV" ]; then
    # shellcheck disable=SC2086
    $TIMEV -v -o "$W/time" "$T" enumerate --pieces "$m" --db "$db" --threads "$J" --stats $EXTRA >"$W/out" 2>"$W/err" || {
      echo "$m: enumerate failed:"; tail -3 "$W/err"; continue; }
    rss=$(awk -F': ' '/Maximum resident set size/ {printf "%.0f", $2 / 1024}' "$W/time")
    cpu=$(awk -F': ' '/User time/ {u=$2} /System time/ {s=$2} END {printf "%.2f", u + s}' "$W/time")
  else
    # shellcheck disable=SC2086
    "$T" enumerate --pieces "$m" --db "$db" --threads "$J" --stats $EXTRA >"$W/out" 2>"$W/err" || {
      echo "$m: enumerate failed:"; tail -3 "$W/err"; continue; }
    rss=$(sed -n 's/^peak RSS \([0-9]*\) MB.*/\1/p' "$W/out")
    cpu="-"
  fi
  e=$(date +%s.%N)
  wall=$(awk -v s="$s" -v e="$e" 'BEGIN {printf "%.2f", e - s}')
  probs=$(sed -n 's/^material [^:]*: \([0-9]*\) problems.*/\1/p' "$W/out")
  dbmb=$(sed -n 's/.*database \([0-9.]*\) MB on disk.*/\1/p' "$W/out")
  md5=$("$T" query --db "$db" --json | md5sum | cut -c1-32)
  printf '%-10s %10s %10s %10s %12s %10s  %s\n' "$m" "$wall" "$cpu" "$rss" "$probs" "$dbmb" "$md5"
  rm -f "$db" "$db-lock"
done
