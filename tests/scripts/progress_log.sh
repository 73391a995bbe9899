#!/bin/sh
# Without a terminal (a batch job, nohup, a log file), a long seprank writes its
# progress as whole lines to stderr, at most once every NETPOLY_LOG_SECONDS
# (60 by default; 1 here): a 6 s run (attention (2,12,3,8), one thread) must
# leave such lines, each "netpoly: [N s] ...", and a result on stdout.
# usage: progress_log.sh NETPOLY
set -eu
netpoly=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
"$netpoly" make attention --layers 2 --width 12 --heads 3 --tokens 8 --seed 1 -o "$dir/m.json"
NETPOLY_LOG_SECONDS=1 "$netpoly" seprank "$dir/m.json" --threads 1 --seed 1 >"$dir/out" 2>"$dir/err"
lines=$(grep -c '^netpoly: \[[0-9]* s\] ' "$dir/err" || true)
grep -q 'exact' "$dir/out" || { echo "FAIL progress_log: no result"; cat "$dir/out" "$dir/err"; exit 1; }
[ "$lines" -ge 2 ] || { echo "FAIL progress_log: $lines progress line(s) in the log"; cat "$dir/err"; exit 1; }
if grep -q "$(printf '\r')" "$dir/err"; then echo "FAIL progress_log: a terminal's carriage return in a log"; exit 1; fi
echo "OK progress_log: $lines lines"
