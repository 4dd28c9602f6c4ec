#!/usr/bin/env bash
# Builds the libFuzzer targets of fuzz/ with clang into build-fuzz/ and runs each for SECONDS
# (default 60) on one job, one target per core at a time, from a seed corpus gathered out of the
# repository's own fixtures (and trace seeds written by fuzz/make_seeds) into
# build-fuzz/corpus/<target>/, which keeps growing from one run to the next. Prints each target's executions, execs/s, coverage
# and corpus size; exits 1 if any target found something (crash, sanitizer report, uncaught
# exception, broken promise, hang over 10 s, more than 2 GiB), with its input's path printed.
#   scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]
#   scripts/fuzz.sh 10                       what CI runs (.ci/run): the clang build from scratch
#                                            (123 s in CI's run at b7749d1), then
#                                            7 x 10 s, two at a time (49 s)
#   scripts/fuzz.sh 600 suite_fuzz           one target for ten minutes
#   AMQ_FUZZ_RUNS=1000000 scripts/fuzz.sh    each target for 10^6 executions instead of a time
# Built without debug information, as scripts/sanitize.sh and for its reason (line tables are
# a fifth of an ASan compile); AMQ_FUZZ_LINES=1 adds -gline-tables-only, for a finding's lines.
# Installs nothing: ./run_tests.sh installs clang with the other packages. Runs are seeded
# (-seed=1): from the same corpus, an AMQ_FUZZ_RUNS run is reproducible.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${AMQ_FUZZ_BUILD_DIR:-$root/build-fuzz}"
all_targets=(pcap_fuzz amqtrace_fuzz text_trace_fuzz key_file_fuzz suite_fuzz result_file_fuzz
             filter_ops_fuzz)

seconds="${1:-60}"
[[ $# -gt 0 ]] && shift
if ! [[ "$seconds" =~ ^[1-9][0-9]*$ ]]; then
  echo "usage: scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET...] (targets: ${all_targets[*]})" >&2
  exit 2
fi
targets=("$@")
[[ ${#targets[@]} -eq 0 ]] && targets=("${all_targets[@]}")
for t in "${targets[@]}"; do
  [[ " ${all_targets[*]} " == *" $t "* ]] || { echo "fuzz.sh: no target '$t' (${all_targets[*]})" >&2; exit 2; }
done

case "${AMQ_FUZZ_LINES:-0}" in
  0) opt="-O1" ;;
  1) opt="-O1 -gline-tables-only" ;;
  *) echo "fuzz.sh: AMQ_FUZZ_LINES must be 0 or 1, not '${AMQ_FUZZ_LINES}'" >&2; exit 2 ;;
esac
started=$SECONDS
generator=()  # Ninja for a new build directory, as scripts/build.sh
if [[ ! -f "$build/CMakeCache.txt" ]] && command -v ninja >/dev/null; then generator=(-G Ninja); fi
cmake -S "$root" -B "$build" "${generator[@]}" -DAMQ_FUZZ=ON -DCMAKE_CXX_COMPILER="${AMQ_FUZZ_CXX:-clang++-14}" \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="$opt" \
  -DCMAKE_EXE_LINKER_FLAGS="-fuse-ld=lld" >/dev/null
cmake --build "$build" -j "$(nproc)" --target make_seeds "${targets[@]}" >/dev/null
echo "fuzz.sh: built ${targets[*]} in $((SECONDS - started)) s"

# Seeds: copied in every run (cp -n keeps what the corpus already holds).
"$build/fuzz/make_seeds" "$build/seeds" >/dev/null
seed_corpus() {
  local target="$1" dir="$build/corpus/$1" f
  mkdir -p "$dir"
  case "$target" in
    pcap_fuzz) cp -n "$build"/seeds/pcap/* "$root"/fuzz/findings/*.pcap "$dir"/ ;;
    amqtrace_fuzz) cp -n "$build"/seeds/amqtrace/* "$dir"/ ;;
    text_trace_fuzz) cp -n "$build"/seeds/text/* "$dir"/ ;;
    filter_ops_fuzz) cp -n "$root"/fuzz/findings/filter_ops_*.bin "$dir"/ ;;
    key_file_fuzz)
      cp -n "$root"/fuzz/seeds/key_file/* "$dir"/
      [[ -r /usr/share/dict/words ]] && head -n 200 /usr/share/dict/words >"$dir/dict_words_head" ;;
    suite_fuzz)
      # Each suite file split into one suite per experiment: planning a whole file (the default
      # suite: hundreds of cells) costs a second per execution under the sanitizers, one
      # experiment a few milliseconds; libFuzzer's crossover joins experiments again.
      for f in "$root"/suites/*.toml "$root"/commands/testdata/*.toml "$root"/plots/fixtures/*.toml; do
        awk -v out="$dir/$(basename "$(dirname "$f")")_$(basename "$f" .toml)" '
          /^\[\[experiment\]\]/ { n++ }
          n == 0 { head = head $0 "\n"; next }
          { file = out "_" n ".toml"; if (!(file in started)) { printf "%s", head > file; started[file] = 1 }
            print > file }' "$f"
      done ;;
    result_file_fuzz)
      # Each committed result file's header, first record and end line: every line kind at a few
      # kB (a whole file is up to 250 kB, and every execution parses it three times).
      for f in "$root"/results/*.jsonl "$root"/plots/fixtures/v2/*.jsonl "$root"/plots/fixtures/written/*.jsonl; do
        { head -n 2 "$f"; tail -n 1 "$f"; } >"$dir/$(basename "$(dirname "$f")")_$(basename "$f")"
      done
      # Version 1 documents (IsCompleteResultFile reads those too), the small ones.
      for f in "$root"/plots/fixtures/*.json "$root"/commands/testdata/legacy/*.json; do
        [[ $(stat -c %s "$f") -le 4096 ]] && cp -n "$f" "$dir/$(basename "$(dirname "$f")")_$(basename "$f")"
      done ;;
  esac
  return 0
}

dictionary() {
  case "$1" in
    pcap_fuzz) echo "$root/fuzz/dict/pcap.dict" ;;
    text_trace_fuzz) echo "$root/fuzz/dict/text_trace.dict" ;;
    suite_fuzz) echo "$root/fuzz/dict/suite.dict" ;;
    result_file_fuzz) echo "$root/fuzz/dict/result_file.dict" ;;
  esac
}

# One target per core at a time: each libFuzzer process is one job on one core, so on 2 cores
# CI's 7 x 10 s take four rounds of about 10 s, not 70 s. Each target's row is printed when its
# round ends, in order.
run_target() {
  local t="$1" log="$build/logs/$1.log" dict t0=$SECONDS status=0
  rm -f "$build/logs/$t.status"
  seed_corpus "$t"
  # -reload=0: one job per corpus, so no other process adds to it while it runs.
  local flags=(-timeout=10 -rss_limit_mb=2048 -seed=1 -reload=0 -print_final_stats=1
               -artifact_prefix="$build/findings/$t-")
  if [[ -n "${AMQ_FUZZ_RUNS:-}" ]]; then flags+=(-runs="$AMQ_FUZZ_RUNS"); else flags+=(-max_total_time="$seconds"); fi
  dict="$(dictionary "$t")"
  [[ -n "$dict" ]] && flags+=(-dict="$dict")
  (cd "$build" && "$build/fuzz/$t" "${flags[@]}" "$build/corpus/$t") >"$log" 2>&1 || status=$?
  echo "$status $((SECONDS - t0))" >"$build/logs/$t.status"
}
report_target() {
  local t="$1" log="$build/logs/$1.log" status elapsed execs rate cov corpus result=ok
  status=1 elapsed="?"  # no status file: the run stopped before the target did (seeding failed)
  [[ -f "$build/logs/$t.status" ]] && read -r status elapsed <"$build/logs/$t.status"
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n 1)
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -n 1 | cut -d' ' -f2)
  corpus=$(find "$build/corpus/$t" -type f | wc -l)
  if [[ $status -ne 0 ]]; then
    result="FOUND (exit $status)"
    failed+=("$t")
  fi
  printf '%-18s %12s %8s %9s %7s %7s %s\n' "$t" "${execs:-?}" "$elapsed" "${rate:-?}" \
    "${cov:-?}" "$corpus" "$result"
  if [[ $status -ne 0 ]]; then
    # The report, and the input that caused it (libFuzzer: "Test unit written to PATH").
    grep -E -A40 '^==[0-9]+==|runtime error|terminate called|fuzz finding|ERROR: libFuzzer' "$log" | head -n 60 >&2 || true
    grep -h 'Test unit written to' "$log" >&2 || echo "  (no input saved; the whole log: $log)" >&2
  fi
}

export ASAN_OPTIONS="abort_on_error=1:detect_stack_use_after_return=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
mkdir -p "$build/logs" "$build/findings"
failed=()
printf '%-18s %12s %8s %9s %7s %7s %s\n' target executions seconds "execs/s" cov corpus result
per_round="$(nproc)"
for ((i = 0; i < ${#targets[@]}; i += per_round)); do
  round=("${targets[@]:i:per_round}")
  for t in "${round[@]}"; do run_target "$t" & done
  wait
  for t in "${round[@]}"; do report_target "$t"; done
done
echo "fuzz.sh: ${#targets[@]} targets in $((SECONDS - started)) s (build included); logs in $build/logs/"
if [[ ${#failed[@]} -gt 0 ]]; then
  echo "fuzz.sh: findings in ${failed[*]}" >&2
  exit 1
fi
