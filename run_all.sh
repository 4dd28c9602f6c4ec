#!/usr/bin/env bash
# Everything on a fresh Debian 12 machine: install what is missing, build Release, run the
# default suite (suites/default.toml) into results/, draw its charts and regenerate REPORT.md.
#   ./run_all.sh            the default suite (README.md states how long it took here)
#   ./run_all.sh --full     the same with the long sweeps extended (speed against n to 2^26 keys)
#   ./run_all.sh --quick    every experiment shrunk, into results/quick/ with results/quick/REPORT.md
#   ./run_all.sh --resume   continue an interrupted run: finished cells are kept, not run again
# The experiments whose report reads no timing (timed = false in the suite) run as one shard per
# core at once, first; every timed one then runs alone (amqbench suite --jobs).
# Extra cmake arguments go through AMQ_CMAKE_ARGS, e.g.
#   AMQ_CMAKE_ARGS=-DAMQ_MARCH_NATIVE=ON ./run_all.sh   (recorded in every result's context)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$root"

# run_all.sh regenerates everything: finished result files are replaced (--force), unless
# --resume asks to continue them.
suite_args=()
replace=(--force)
out=results
report=REPORT.md
for arg in "$@"; do
  case "$arg" in
    --quick) suite_args+=(--quick); out=results/quick; report=results/quick/REPORT.md ;;
    --full) suite_args+=(--full) ;;
    --resume) suite_args+=(--resume); replace=() ;;
    -h|--help) sed -n '2,11p' "$0"; exit 0 ;;
    *) echo "run_all.sh: unknown option '$arg' (try --help)" >&2; exit 2 ;;
  esac
done

scripts/install_deps.sh
# shellcheck disable=SC2086
scripts/build.sh ${AMQ_CMAKE_ARGS:-}
# FastFilter's reference figures come from -march=native builds: the suite times ours that way
# too, with the micro-benchmarks of a second build tree.
cmake -S . -B build-native -DCMAKE_BUILD_TYPE=Release -DAMQ_MARCH_NATIVE=ON >/dev/null
cmake --build build-native --target amqbench_micro -j "$(nproc)" >/dev/null

# Debian pathspider's real.pcap (GPL: fetched, never committed). Without it the suite skips the
# experiments that replay it and says so.
scripts/fetch_real_pcap.sh >/dev/null || echo "run_all: the real capture could not be fetched" >&2

started=$(date +%s)
build/amqbench suite suites/default.toml "${suite_args[@]}" "${replace[@]}" --out-dir "$out" \
  --micro-native build-native/amqbench_micro --jobs "$(nproc)"
echo "run_all: suite finished in $(( $(date +%s) - started )) s" >&2
# Into the local history (README.md, "Tracking regressions"); a run that cannot be recorded keeps its results.
/usr/bin/python3 plots/history.py record "$out" || echo "run_all: not recorded in results/history.sqlite; the results are in $out" >&2

/usr/bin/python3 plots/report.py --suite suites/default.toml --results "$out" --out "$report"
