#!/usr/bin/env bash
# Submits a suite to Slurm as a job array of SHARDS tasks, each `amqbench suite SUITE --shard auto`
# (its shard from the array task: harness/run/scheduler.h), and a merge job that starts once every
# task succeeded (--dependency=afterok) and joins them into OUT_DIR as one unsharded run would
# have written it; prints both job ids. README.md, "Sweeps on a scheduler", shows it in use.
#
#   scripts/slurm_sweep.sh SUITE_FILE SHARDS [OUT_DIR] [SBATCH_ARGS...] [-- SUITE_ARGS...]
#
#   OUT_DIR      default results/sweep-<suite file's name>; shard K writes OUT_DIR/shard-K, its
#                log OUT_DIR/logs/shard-K.out; the merge writes OUT_DIR itself (its stdout,
#                OUT_DIR/logs/merge.out, says which hosts the shards ran on)
#   SBATCH_ARGS  passed to both sbatch calls (--partition, --time, --mem, --account, ...)
#   SUITE_ARGS   passed to every task's amqbench suite (--quick, --only ID,...)
#
# The tasks run the binary at $AMQBENCH (default build/amqbench of this checkout) and write under
# OUT_DIR by absolute path, so both must be on a file system every node sees. A task runs with
# --resume: one Slurm requeues (a node failure) continues from its finished cells. Every task
# runs the same build; merge refuses shards of another build or suite file, and a timed
# experiment whose shards ran on different nodes (amqbench merge --allow-mixed-hosts merges it
# anyway). Bad arguments: one line on stderr, exit status 2.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
fail() { echo "slurm_sweep: $*" >&2; exit 2; }

[[ $# -ge 2 ]] || fail "usage: scripts/slurm_sweep.sh SUITE_FILE SHARDS [OUT_DIR] [SBATCH_ARGS...] [-- SUITE_ARGS...]"
suite="$1" shards="$2"
shift 2
[[ -f "$suite" ]] || fail "no suite file $suite"
[[ "$shards" =~ ^[0-9]+$ && "$shards" -ge 2 && "$shards" -le 10000 ]] ||
  fail "SHARDS must be a whole number from 2 to 10000 (merge joins two or more), got '$shards'"
suite="$(cd "$(dirname "$suite")" && pwd)/$(basename "$suite")"
out="$root/results/sweep-$(basename "$suite" .toml)"
if [[ $# -gt 0 && "$1" != -* ]]; then
  out="$1"
  shift
fi
sbatch_args=() suite_args=()
while [[ $# -gt 0 ]]; do
  if [[ "$1" == "--" ]]; then
    shift
    suite_args=("$@")
    break
  fi
  sbatch_args+=("$1")
  shift
done
bench="${AMQBENCH:-$root/build/amqbench}"
[[ -x "$bench" ]] || fail "no amqbench at $bench (build it, or set AMQBENCH)"
bench="$(cd "$(dirname "$bench")" && pwd)/$(basename "$bench")"
command -v sbatch >/dev/null || fail "sbatch is not on PATH (Debian: apt-get install slurm-client; a cluster to submit to)"
mkdir -p "$out/logs" || fail "cannot create $out/logs"
out="$(cd "$out" && pwd)"
name="amq-$(basename "$suite" .toml)"

# The command lines, quoted for the job's shell; the task's shard directory is named after the
# task id, expanded where the task runs.
task="$(printf '%q ' "$bench" suite "$suite" --shard auto --shard-count "$shards" --resume "${suite_args[@]}")"
task+="--out-dir $(printf '%q' "$out")/shard-\$SLURM_ARRAY_TASK_ID"
merge="$(printf '%q ' "$bench" merge --out-dir "$out")"
for ((k = 1; k <= shards; ++k)); do merge+="$(printf '%q' "$out/shard-$k") "; done

# sbatch --parsable prints "ID" or "ID;CLUSTER".
array_id="$(sbatch --parsable --job-name "$name" --array "1-$shards" --output "$out/logs/shard-%a.out" \
  "${sbatch_args[@]}" --wrap "exec $task")"
array_id="${array_id%%;*}"
merge_id="$(sbatch --parsable --job-name "$name-merge" --dependency "afterok:$array_id" --kill-on-invalid-dep=yes \
  --output "$out/logs/merge.out" "${sbatch_args[@]}" --wrap "exec $merge")"
merge_id="${merge_id%%;*}"
echo "array job $array_id: $shards shards of $suite, into $out/shard-1..$shards (logs in $out/logs)"
echo "merge job $merge_id: once job $array_id succeeds, amqbench merge into $out"
