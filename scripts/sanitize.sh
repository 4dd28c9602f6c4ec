#!/usr/bin/env bash
# CI's second half: the whole ctest suite again, built with AddressSanitizer and
# UndefinedBehaviorSanitizer into build-sanitize/ (-O1, frame pointers, every UB report fatal).
# Built with clang++-14 and Ninja: the same tests built by g++ with full debug info took
# 12.5 min to compile on 2 cores. No debug information by default: line tables cost a fifth of
# the compile time under ASan (one filters_tests unity batch: 83 s with -gline-tables-only,
# 65 s without, one after the other), which CI pays on every run. A report still names the
# functions of its stack (from the symbol table; inlined ones fold into their callers) and
# UBSan its file and line (compiled into each check); for ASan's file:line, rebuild with
# AMQ_SANITIZE_LINES=1. The driver library and the micro-benchmarks, which tests drive here only
# at tiny n, are compiled at -O0 (CMakeLists.txt, AMQ_UNTIMED_LOOPS_O0), and so are the test
# binaries that parse and drive rather than compute (AMQ_DRIVING_TEST_OPT). The ctest tests of
# the micro-benchmarks (micro_*) are left out: they time nothing here, and the Release build's
# ctest run has already run every benchmark once; the tests that drive amqbench_micro for its
# flags and key lists run, so it is built.
#   scripts/sanitize.sh                       build and test
#   AMQ_SANITIZE_LINES=1 scripts/sanitize.sh  the same with line tables (-gline-tables-only)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="$root/build-sanitize"
source "$root/scripts/stages.sh"
# ASan's checks outlined (a call each, not inline code): a fifth less compile time again (the
# same unity batch: 68 s inline, 55 s outlined), for slower tests (the stage's times in README.md).
flags="-fsanitize=address,undefined -fsanitize-address-outline-instrumentation -fno-omit-frame-pointer"
flags+=" -fno-sanitize-recover=undefined"
case "${AMQ_SANITIZE_LINES:-0}" in
  0) opt="-O1" ;;
  1) opt="-O1 -gline-tables-only" ;;
  *) echo "sanitize.sh: AMQ_SANITIZE_LINES must be 0 or 1, not '${AMQ_SANITIZE_LINES}'" >&2; exit 2 ;;
esac
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_CXX_COMPILER="${AMQ_SANITIZE_CXX:-clang++-14}" \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="$opt" \
  -DCMAKE_CXX_FLAGS="$flags" -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined -fuse-ld=lld" \
  -DAMQ_TEST_SHARDS=4 -DAMQ_UNTIMED_LOOPS_O0=ON -DAMQ_DRIVING_TEST_OPT=-O0 >/dev/null
# Every test binary, and what they drive (amqbench, amqbench_micro, the probes: their dependencies),
# but bmi2_tests: the quotient family's tests again with PDEP/TZCNT, which change how select
# finds a bit inside a 64-bit word, in registers, not which memory it reads, and the Release
# build's bmi2_tests compare every answer and byte with the portable path's (33 s of CPU here).
# threaded_tests too: the concurrent insert paths run only there, and scripts/tsan.sh's
# ThreadSanitizer finds races, not out-of-bounds accesses.
targets=(amqbench avx2_tests avx512_tests threaded_tests)
for dir in core filters workloads traces harness commands; do targets+=("${dir}_tests"); done
stage build cmake --build "$build" -j "$(nproc)" --target "${targets[@]}"
export ASAN_OPTIONS="abort_on_error=1:detect_stack_use_after_return=1:strict_string_checks=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
stage ctest ctest --test-dir "$build" --output-on-failure -j "$(nproc)" --timeout 900 -E '^(micro_|bmi2_tests)'
