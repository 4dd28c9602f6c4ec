#!/usr/bin/env bash
# Builds scripts/fastfilter_warm_builds.cc against a FastFilter checkout (outside this tree) and
# runs it: FastFilter's builds, inserts and lookups beside ours in one process, same keys,
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
# FastFilter's include directories, as its benchmarks/Makefile lists them.
ff_includes=()
for d in src src/bloom src/cuckoo src/gcs src/gqf src/morton src/xorfilter src/ribbon src/vqf benchmarks; do
  ff_includes+=(-I"$ff_dir/$d")
done
g++ -std=c++20 -O3 -march=native -DNDEBUG -w "${ff_includes[@]}" -I"$root" \
  "$root/scripts/fastfilter_warm_builds.cc" -o "$exe"
"$exe" "${2:-11}" "${3:-1000000}"
