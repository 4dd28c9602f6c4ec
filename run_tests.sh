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
stage pytest /usr/bin/python3 -m pytest -q plots scripts
stage baseline baseline
