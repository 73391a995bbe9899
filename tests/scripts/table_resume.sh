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
# the merge gives exactly the unsharded table, title included
cmp "$dir/full.md" "$dir/merged.md"
# a missing shard is refused (it used to "succeed" with half the rows)
if "$np" table --merge "$dir/s1.json" -o "$dir/half.md" 2>"$dir/err"; then echo "merge of one shard of two succeeded"; exit 1; fi
grep -q "a shard is missing" "$dir/err" || { cat "$dir/err"; exit 1; }
[ ! -e "$dir/half.md" ] || { echo "a refused merge wrote its output"; exit 1; }
# shards of another sweep (other --range) are refused
"$np" table $sweep --range 5 -o "$dir/r5.json" --shard 2/2
if "$np" table --merge "$dir/s1.json" "$dir/r5.json" -o "$dir/mix.md" 2>"$dir/err"; then echo "merged two sweeps"; exit 1; fi
grep -qF -- "rows of another sweep than $dir/s1.json (--range 0 there, 5 here)" "$dir/err" || { cat "$dir/err"; exit 1; }
# a resume with other options is refused, naming the option, and keeps the journal
cp "$dir/full.md.jsonl" "$dir/keep.jsonl"
for opt in "--partition A=0" "--range 5" "--methods support,blackbox" "--budget 100" "--max-terms 1000"; do
  if "$np" table $sweep $opt -o "$dir/full.md" --resume 2>"$dir/err"; then echo "resume with $opt reused the rows"; exit 1; fi
  flag=${opt%% *}
  grep -q -- "$flag" "$dir/err" || { echo "the refusal does not name $flag:"; cat "$dir/err"; exit 1; }
  cmp "$dir/full.md.jsonl" "$dir/keep.jsonl" || { echo "a refused resume changed the journal"; exit 1; }
done
echo "resume, jobs and merge agree"
