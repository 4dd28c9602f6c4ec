#!/usr/bin/env bash
# Rewrites results/baseline, CI's regression baseline, from a fresh run of suites/ci.toml: runs
# the suite into build/ci-results, prints what moved against the old baseline (the table
# amqbench compare prints), then replaces results/baseline atomically with the new run's
# deterministic fields (amqbench compare --update-baseline). Only on purpose, in a commit of its
# own that says which numbers moved and why (README.md, "Tracking regressions").
#   scripts/update_baseline.sh            with build/amqbench (scripts/build.sh builds it)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bench="${AMQ_BENCH:-$root/build/amqbench}"
cd "$root"
"$bench" suite suites/ci.toml --out-dir build/ci-results --force
"$bench" compare --update-baseline build/ci-results --max-rows 0
