#!/usr/bin/env bash
# Installs what is missing, builds Release, and runs every test: ctest (C++) and pytest
# (the plotting and report scripts, under Debian's /usr/bin/python3).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$root"
scripts/install_deps.sh
scripts/build.sh
ctest --test-dir build --output-on-failure -j "$(nproc)" --timeout 600
/usr/bin/python3 -m pytest -q plots scripts
