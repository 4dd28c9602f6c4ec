#!/usr/bin/env bash
# Configures and builds Release into build/ (or $AMQ_BUILD_DIR). Extra arguments go to cmake,
# e.g. scripts/build.sh -DAMQ_MARCH_NATIVE=ON.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${AMQ_BUILD_DIR:-$root/build}"
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release "$@" >/dev/null
cmake --build "$build" -j "$(nproc)"
