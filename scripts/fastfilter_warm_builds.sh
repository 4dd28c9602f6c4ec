#!/usr/bin/env bash
# Builds scripts/fastfilter_warm_builds.cc against a FastFilter checkout (outside this tree) and
# runs it: FastFilter's XOR and binary fuse constructions beside ours in one process, same keys,
# warm memory on both sides, alternating (the .cc says why the side-by-side's build ratios
# cannot show this). Compiled as FastFilter's benchmark is: -O3 -march=native.
#   scripts/fastfilter_warm_builds.sh FASTFILTER_CHECKOUT [ROUNDS] [N]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ff_dir=${1:-}
if [ -z "$ff_dir" ] || [ ! -f "$ff_dir/src/xorfilter/xorfilter.h" ]; then
  echo "fastfilter_warm_builds.sh: FASTFILTER_CHECKOUT must be a fastfilter_cpp checkout (src/xorfilter/xorfilter.h missing)" >&2
  exit 2
fi
exe=$(mktemp -d)/fastfilter_warm_builds
g++ -std=c++20 -O3 -march=native -DNDEBUG -w -I"$ff_dir/src" -I"$ff_dir/benchmarks" -I"$root" \
  "$root/scripts/fastfilter_warm_builds.cc" -o "$exe"
"$exe" "${2:-11}" "${3:-1000000}"
