#!/bin/sh
# Kill a table run mid-way, resume it, and compare with an uninterrupted run.
# Also: --jobs 2 and a sharded run merged give the same table.
set -eu
np="$1"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
sweep="--arch attention --layers 1..2 --width 2,3,4 --heads 1 --tokens 2,3 --seeds 2"
"$np" table $sweep -o "$dir/full.md"
# interrupted run: stop it once two rows are in the journal
"$np" table $sweep -o "$dir/part.md" &
pid=$!
i=0
while [ "$(wc -l < "$dir/part.md.jsonl" 2>/dev/null || echo 0)" -lt 2 ] && [ $i -lt 600 ]; do sleep 0.05; i=$((i + 1)); done
kill -INT $pid 2>/dev/null || true
wait $pid || true
rows=$(wc -l < "$dir/part.md.jsonl")
total=24
echo "interrupted after $rows of $total rows"
[ "$rows" -lt "$total" ] || echo "warning: the run finished before the interruption"
"$np" table $sweep -o "$dir/part.md" --resume
cmp "$dir/full.md" "$dir/part.md"
"$np" table $sweep -o "$dir/jobs.md" --jobs 2
cmp "$dir/full.md" "$dir/jobs.md"
"$np" table $sweep -o "$dir/s1.json" --shard 1/2
"$np" table $sweep -o "$dir/s2.json" --shard 2/2
"$np" table --merge "$dir/s1.json" "$dir/s2.json" -o "$dir/merged.md"
# the merged title names the merge; compare the tables below the title line
tail -n +2 "$dir/full.md" > "$dir/a"; tail -n +2 "$dir/merged.md" > "$dir/b"
cmp "$dir/a" "$dir/b"
echo "resume, jobs and merge agree"
