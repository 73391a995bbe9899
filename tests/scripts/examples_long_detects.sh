#!/bin/sh
# The long artefacts' sampled check (examples_current.sh long) fails when a
# sampled row is not what this build computes, and when the rows record other
# arithmetic (another FLINT): two edited copies of examples/, each must fail
# and name the journal. The unedited examples/ passing is examples_table_long_build.
set -eu
np=${1:?NETPOLY}
here=$(cd "$(dirname "$0")" && pwd)
git -C "$here" rev-parse --git-dir >/dev/null 2>&1 || { echo "SKIPPED: not a git checkout"; exit 77; }
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
cp "$here/../../examples/"*.jsonl "$t/"
# 1. The cheapest row of lv-transition-L4 (L = 4, d = 2: sep 861) made 862.
sed -i '1s/"lower":861,/"lower":862,/' "$t/lv-transition-L4.md.jsonl"
grep -q '"lower":862,' "$t/lv-transition-L4.md.jsonl" || { echo "FAIL the edit did not apply"; exit 1; }
# Only the edited artefact is checked (the others are examples_table_long_build's).
export EXAMPLES_ONLY=lv-transition-L4
if EXAMPLES_DIR=$t sh "$here/examples_current.sh" long "$np" >"$t/out1" 2>&1; then
  cat "$t/out1"; echo "FAIL an edited row passed"; exit 1
fi
grep -q 'lv-transition-L4.md.jsonl: row attention L=4 d=2 H=1 N=2 seed=1: lower: 862 committed, 861 now' "$t/out1" ||
  { cat "$t/out1"; echo "FAIL the edited row is not named"; exit 1; }
# 2. Rows that record another FLINT are other arithmetic: nothing is compared, the artefact fails.
cp "$here/../../examples/lv-transition-L4.md.jsonl" "$t/"
sed -i 's/FLINT 2\.9\.0/FLINT 3.0.0/' "$t/lv-transition-L4.md.jsonl"
if EXAMPLES_DIR=$t sh "$here/examples_current.sh" long "$np" >"$t/out2" 2>&1; then
  cat "$t/out2"; echo "FAIL rows of another FLINT passed"; exit 1
fi
grep -q 'lv-transition-L4.md.jsonl: row .*FLINT 3.0.0.*other arithmetic' "$t/out2" || { cat "$t/out2"; echo "FAIL not named"; exit 1; }
echo "an edited row and rows of other arithmetic are caught"
