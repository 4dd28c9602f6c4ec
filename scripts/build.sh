#!/usr/bin/env bash
# Configures and builds Release into build/ (or $AMQ_BUILD_DIR). Extra arguments go to cmake,
# e.g. scripts/build.sh -DAMQ_MARCH_NATIVE=ON. A new build directory uses Ninja when it is
# installed (scripts/debian-packages.txt has it); an existing one keeps its generator.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${AMQ_BUILD_DIR:-$root/build}"
generator=()
if [[ ! -f "$build/CMakeCache.txt" ]] && command -v ninja >/dev/null; then generator=(-G Ninja); fi
cmake -S "$root" -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release "$@" >/dev/null
cmake --build "$build" -j "$(nproc)"
