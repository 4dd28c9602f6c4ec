#!/usr/bin/env bash
# Installs what is missing, builds Release, and runs every test: ctest (C++) and pytest
# (the plotting and report scripts, under Debian's /usr/bin/python3); then the regression
# baseline: suites/ci.toml's run must equal results/baseline on every deterministic field
# (amqbench compare prints what moved and exits 1 otherwise; README.md, "Tracking regressions").
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$root"
source scripts/stages.sh
baseline() {
  build/amqbench suite suites/ci.toml --out-dir build/ci-results --force 2>build/ci-results.log ||
    { cat build/ci-results.log >&2; return 1; }
  build/amqbench compare results/baseline build/ci-results
}
stage install scripts/install_deps.sh
stage build scripts/build.sh
stage ctest ctest --test-dir build --output-on-failure -j "$(nproc)" --timeout 600
# pytest beside the baseline: each keeps about one core busy (pytest runs its tests one by one,
# the suite its cells one at a time), and neither reads what the other writes.
pytest_beside_baseline() {
  local status=0 baseline_status=0 pid
  baseline >build/baseline.out 2>&1 &
  pid=$!
  /usr/bin/python3 -m pytest -q plots scripts || status=$?
  wait "$pid" || baseline_status=$?
  cat build/baseline.out
  if [[ $baseline_status -ne 0 ]]; then echo "run_tests.sh: the baseline failed (exit $baseline_status)" >&2; fi
  if [[ $status -ne 0 ]]; then return $status; fi
  return $baseline_status
}
stage pytest+baseline pytest_beside_baseline
