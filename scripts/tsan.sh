#!/usr/bin/env bash
# CI's ThreadSanitizer stage: threaded_tests (every *_threaded_test.cc: the concurrent insert
# mode of every filter that has one, its locks, and the thread team with the kernel the
# concurrent_inserts kind times) built with clang++-14 -fsanitize=thread into build-tsan/ and run;
# any race report fails it (TSan exits 66 on a report; halt_on_error stops at the first). Only
# that binary is built: it needs amq_core and the headers, not the driver that CI's Release and
# ASan builds compile, so the stage costs a small compile (-O1, no debug information, as
# scripts/sanitize.sh and for its reason; AMQ_TSAN_LINES=1 adds -gline-tables-only for a
# report's file:line).
#   scripts/tsan.sh                  build and run
#   AMQ_TSAN_LINES=1 scripts/tsan.sh the same with line tables
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="$root/build-tsan"
source "$root/scripts/stages.sh"
case "${AMQ_TSAN_LINES:-0}" in
  0) opt="-O1" ;;
  1) opt="-O1 -gline-tables-only" ;;
  *) echo "tsan.sh: AMQ_TSAN_LINES must be 0 or 1, not '${AMQ_TSAN_LINES}'" >&2; exit 2 ;;
esac
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_CXX_COMPILER="${AMQ_TSAN_CXX:-clang++-14}" \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="$opt" \
  -DCMAKE_CXX_FLAGS="-fsanitize=thread" -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=thread -fuse-ld=lld" \
  -DAMQ_TEST_SHARDS=2 >/dev/null
stage build cmake --build "$build" -j "$(nproc)" --target threaded_tests
export TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1"
stage ctest ctest --test-dir "$build" --output-on-failure -j "$(nproc)" --timeout 600 -R '^threaded_tests'
