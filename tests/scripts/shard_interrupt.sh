#!/usr/bin/env bash
# A shard stopped by Ctrl-C keeps what finished (issue 41 §2): seprank
# --blocks 1/2 of attention L=3 d=5 N=2 H=1 (largest block 8,568 points, far
# more than a few rounds) is sent SIGINT once its shard file has been written
# (after its first round); it must exit 130 and leave a shard marked running
# whose ranks are certified lower bounds (1 <= rank <= cap, lower = their sum).
# Usage: shard_interrupt.sh NETPOLY WORKDIR
set -u
np=$1 dir=$2
rm -rf "$dir" && mkdir -p "$dir" || exit 1
"$np" make attention --layers 3 --width 5 --heads 1 --tokens 2 --weights generic --seed 1 -o "$dir/m.json" || exit 1
"$np" seprank "$dir/m.json" --seed 1 --blocks 1/2 -o "$dir/s1.json" >"$dir/out" 2>&1 &
pid=$!
for _ in $(seq 1 600); do [ -s "$dir/s1.json" ] && break; sleep 0.1; done
sleep 0.5
kill -INT $pid
wait $pid
rc=$?
[ $rc -eq 130 ] || { cat "$dir/out"; echo "FAIL shard_interrupt: exit $rc, expected 130"; exit 1; }
python3 - "$dir/s1.json" <<'PY' || exit 1
import json, sys
j = json.load(open(sys.argv[1]))
ranks = [b["rank"] for b in j["blocks"]]
ok = (j["running"] is True and j["lower"] == sum(ranks) and j["lower"] >= 1
      and all(0 <= b["rank"] <= b["cap"] for b in j["blocks"]))
print("OK shard_interrupt: running, lower", j["lower"]) if ok else print("FAIL shard_interrupt:", j)
PY
