#!/bin/bash
# Spread one netpoly table sweep over a Slurm job array, then merge.
#
#   sbatch --array=1-16 examples/slurm-sweep.sh     # 16 shards
#   # when all are done:
#   netpoly table --merge sweep-shard-*.json -o sweep.md --plot sweep.svg
#
# Each array task runs the K-th of N slices of the same sweep and writes its
# own JSON table (rows are written as they finish; rerunning a task with
# --resume skips its finished rows). NETPOLY_SWEEP replaces the sweep's
# options (scripts/slurm-check runs this script with a small one).
#SBATCH --job-name=netpoly-sweep
#SBATCH --cpus-per-task=2
#SBATCH --time=04:00:00
#SBATCH --output=sweep-shard-%a.log
set -euo pipefail
N=${SLURM_ARRAY_TASK_COUNT:?run as a job array}
K=${SLURM_ARRAY_TASK_ID:?run as a job array}
NETPOLY=${NETPOLY:-build/netpoly}
SWEEP=${NETPOLY_SWEEP:-"--arch attention --layers 1..3 --width 2,4,6 --heads 1,2 --tokens 4 --seeds 5 --budget 600"}
# shellcheck disable=SC2086 # the sweep's options are words
"$NETPOLY" table $SWEEP --threads "${SLURM_CPUS_PER_TASK:-1}" \
  --shard "$K/$N" -o "sweep-shard-$K.json" --resume
