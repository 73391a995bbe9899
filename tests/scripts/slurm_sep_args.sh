#!/usr/bin/env bash
# scripts/slurm-sep's arguments (issue 49 §5): every error exits 2 with its
# reason and the usage; --seed=S and --budget=B are taken as given (they were
# not recognised, the script added its own, and seprank refused the second);
# -n beyond the analysis' blocks becomes one task per block. The array runs
# through a stand-in sbatch that runs each task in turn here (the real Slurm
# run is scripts/slurm-check's).
# Usage: slurm_sep_args.sh NETPOLY WORKDIR
set -u
np=$1 dir=$2
root=$(cd "$(dirname "$0")/../.." && pwd)
rm -rf "$dir" && mkdir -p "$dir/bin" && cd "$dir" || exit 1
fail() { echo "FAIL slurm_sep_args: $*"; exit 1; }
"$np" make mixer --layers 2 --tokens 2 --width 2 --seed 1 -o m.json || exit 1
# sbatch --wait --array=I,J,... [options] SCRIPT: each task in turn, its output to --output (%a: the task).
cat >bin/sbatch <<'SB'
#!/usr/bin/env bash
set -u
array="" out="" script=""
for a in "$@"; do
  case "$a" in --array=*) array=${a#--array=} ;; --output=*) out=${a#--output=} ;; --*) ;; *) script=$a ;; esac
done
echo "Submitted batch job 1"
for i in ${array//,/ }; do
  SLURM_ARRAY_TASK_ID=$i bash "$script" >"${out//%a/$i}" 2>&1 || exit 1
done
SB
chmod +x bin/sbatch
export PATH="$dir/bin:$PATH" NETPOLY="$np"
run() { out=$("$root/scripts/slurm-sep" "$@" 2>&1); rc=$?; }
run -n; [ $rc -eq 2 ] && [[ $out == *"-n: expected a value"* ]] && [[ $out == *"usage"*"slurm-sep"* || $out == *"scripts/slurm-sep [-n TASKS]"* ]] ||
  fail "-n alone: exit $rc: $out"
run -- --time=5 m.json; [ $rc -eq 2 ] && [[ $out == *"no closing --"* ]] && [[ $out == *"scripts/slurm-sep [-n TASKS]"* ]] ||
  fail "-- unclosed: exit $rc: $out"
run -n 0 m.json; [ $rc -eq 2 ] && [[ $out == *"-n: expected a whole number >= 1, got '0'"* ]] || fail "-n 0: exit $rc: $out"
run -x m.json; [ $rc -eq 2 ] && [[ $out == *"unknown option '-x'"* ]] || fail "-x: exit $rc: $out"
run; [ $rc -eq 2 ] && [[ $out == *"no MODEL given"* ]] || fail "no model: exit $rc: $out"
run m.json --blocks 1/2; [ $rc -eq 2 ] && [[ $out == *"lays out the shares itself"* ]] || fail "--blocks: exit $rc: $out"
# The whole flow with --flag=value: one seed and one budget; -n 8 for 5 blocks
# (components) in 3 classes: 5 shares, of which 3 have work and are submitted.
run -n 8 -d sep m.json --seed=7 --budget=5
[ $rc -eq 0 ] || fail "--seed=7 --budget=5: exit $rc: $out"
[[ $out == *"-n 8, but the analysis has 5 block(s): 5 share(s)"* ]] || fail "tasks not capped: $out"
[[ $out == *"shares 1,2,3 of 5 have work; the others are not submitted"* ]] && [[ $out == *"3 array task(s) done"* ]] ||
  fail "empty shares submitted: $out"
[ ! -e sep/shard-4.json ] || fail "an empty share ran"
[[ $out == *"sep 9 (exact)"* ]] && [[ $out == *"recomputed from"* ]] || fail "merge: $out"
grep -q -- "--seed=7" sep/task.sh && ! grep -q -- "--seed [0-9]" sep/task.sh || fail "a second seed: $(cat sep/task.sh)"
grep -q -- "--budget=5" sep/task.sh && ! grep -q -- "--budget 1e7" sep/task.sh || fail "a second budget: $(cat sep/task.sh)"
echo "OK slurm_sep_args"
