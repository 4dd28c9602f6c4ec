#!/usr/bin/env bash
# Everything on a fresh Debian 12 machine: install what is missing, build Release, run the
# default suite into results/, draw the plots and regenerate REPORT.md.
#   ./run_all.sh           the full suite (about 30 minutes on 2 cores; measured 28)
#   ./run_all.sh --quick   a small version (under 2 minutes after the build) into
#                          results/quick/, with its own results/quick/REPORT.md
# Extra cmake arguments can be passed through AMQ_CMAKE_ARGS, e.g.
#   AMQ_CMAKE_ARGS=-DAMQ_MARCH_NATIVE=ON ./run_all.sh   (recorded in every result's context)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$root"

quick=0
for arg in "$@"; do
  case "$arg" in
    --quick) quick=1 ;;
    -h|--help) sed -n '2,9p' "$0"; exit 0 ;;
    *) echo "run_all.sh: unknown option '$arg' (try --help)" >&2; exit 2 ;;
  esac
done

scripts/install_deps.sh
# shellcheck disable=SC2086
scripts/build.sh ${AMQ_CMAKE_ARGS:-}
bench=build/amqbench
micro=build/amqbench_micro

if [[ $quick == 1 ]]; then
  out=results/quick
  report=$out/REPORT.md
  n=100000; queries=200000; repeat=1; lab_repeat=1
  micro_args=(--benchmark_filter='^(bloom|blocked_bloom|cuckoo12)/' --benchmark_min_time=0.05 --benchmark_repetitions=1)
  native_filter='--benchmark_filter=^(bloom|blocked_bloom|cuckoo12)/'
  load_slots=65536
  workload_keys=20000; synth_packets=200000; synth_flows=20000; adapt_slots=1024; adapt_trials=1
else
  out=results
  report=REPORT.md
  n=1000000; queries=1000000; repeat=5; lab_repeat=5
  # RocksDB is timed through DB::Get and the adaptive filters are timed by `adapt`: their
  # micro-benchmarks would measure something else, so they are left out here.
  # (Google Benchmark's filter is a POSIX regex; a leading '-' runs everything it does not match.)
  micro_args=(--benchmark_repetitions=5 '--benchmark_filter=-^(rocksdb_|acf_|cuckoo_[24]x)')
  native_filter='--benchmark_filter=-^(rocksdb_|acf_|cuckoo_[24]x|quotient_family)'
  load_slots=1048576
  workload_keys=50000; synth_packets=1000000; synth_flows=100000; adapt_slots=4096; adapt_trials=2
fi
mkdir -p "$out"
step() { echo "== $*" >&2; }

step "seed 000's cuckoo lab"
$bench run --filter cuckoo --keys 30000 --fpr 0.01 --max-load 0.94 --max-kicks 500 \
  --queries 1000000 --repeat "$lab_repeat" --out "$out/seed_lab.json"

step "Bloom, blocked Bloom and cuckoo at 1% and 0.1%"
# --max-load 0.96: 10^6 keys then fit 2^18 cuckoo buckets (load 0.954); at 0.95 the
# power-of-two table would double to load 0.477.
$bench run --filter bloom,blocked_bloom,cuckoo --keys "$n" --fpr 0.01,0.001 --max-load 0.96 \
  --queries "$queries" --repeat "$repeat" --out "$out/space.json"

step "cuckoo12: kicks against load (fixed table, n sets the load)"
load_keys=$(/usr/bin/python3 -c "s=$load_slots; print(','.join(str(round(s*l)) for l in (0.5,0.7,0.8,0.9,0.93,0.95,0.96,0.97,0.98,0.99,1.0)))")
$bench run --filter cuckoo12 --keys "$load_keys" --capacity "$load_slots" --max-load 1.0 --queries "$queries" \
  --repeat 1 --out "$out/cuckoo_load.json"

# Filters measured through a library are listed only when the build found the library.
production=$($bench list | grep -E '^(leveldb_bloom|rocksdb_bloom|rocksdb_ribbon)$' | paste -sd, -)
with_production() { if [[ -n "$production" ]]; then echo "$1,$production"; else echo "$1"; fi; }

step "every family at 1% (quotient filters at their own default load)"
$bench run --filter "$(with_production bloom,blocked_bloom,cuckoo,xor,binary_fuse,binary_fuse_4wise,ribbon,ribbon64)" \
  --keys "$n" --fpr 0.01 --max-load 0.96 --queries "$queries" --repeat 1 --out "$out/one_percent.json"
$bench run --filter quotient,rsqf,cqf --keys "$n" --fpr 0.01 --queries "$queries" --repeat 1 \
  --out "$out/one_percent_quotient.json"

step "fixed-width static and production filters"
$bench run --filter "$(with_production xor8,xor16,binary_fuse8,binary_fuse16,binary_fuse8_4wise,binary_fuse16_4wise,ribbon,ribbon64,cuckoo8,cuckoo12,cuckoo16)" \
  --keys "$n" --max-load 0.96 --queries "$queries" --repeat "$repeat" --out "$out/static.json"

step "FPR sweep 2^-4 .. 2^-16 over every family that sizes itself from --fpr"
sweep_fprs=$(/usr/bin/python3 -c "print(','.join(repr(2.0**-k) for k in range(4, 17, 2)))")
# The filters whose width follows --fpr (fixed-width variants such as cuckoo12 would repeat).
sweep_filters=bloom,blocked_bloom,cuckoo,xor,binary_fuse,binary_fuse_4wise,ribbon
$bench run --filter "$sweep_filters" --keys "$n" --fpr "$sweep_fprs" --max-load 0.96 \
  --queries "$queries" --repeat 1 --out "$out/sweep.json"

step "quotient family: space at several n, and a fill sweep to 99% of one table"
$bench run --filter quotient,rsqf,cqf --keys 10000,100000,"$n" --fpr 0.01 --queries "$queries" \
  --repeat 1 --out "$out/quotient_space.json"
qslots=$((load_slots / 4))
qkeys=$(/usr/bin/python3 -c "s=$qslots; print(','.join(str(round(s*l)) for l in (0.1,0.25,0.5,0.75,0.9,0.95,0.99)))")
# One table of 2^q slots for every step (--capacity with --max-load 1.0); queries kept small
# because a lookup in a 99%-full classic QF walks clusters of thousands of slots.
$bench run --filter quotient,rsqf,cqf --keys "$qkeys" --capacity "$qslots" --max-load 1.0 --fpr 0.01 \
  --queries 20000 --repeat "$repeat" --out "$out/quotient_load.json"

step "quotient family against FastFilter's CQF (21.38 bits/key at 0.193%): r = 9 at load 0.954"
$bench run --filter rsqf,cqf --keys "$n" --fpr 0.002 --max-load 0.96 --queries "$queries" --repeat 1 \
  --out "$out/quotient_vs_fastfilter.json"

step "churn: erasable filters held at their load while keys are erased, inserted and queried"
$bench run --filter cuckoo12,quotient,rsqf,cqf --keys "$workload_keys" --fpr 0.01 --max-load 0.9 \
  --churn $((workload_keys * 4)) --queries "$queries" --repeat "$repeat" --out "$out/churn.json"

step "key distributions (uniform, sequential, strided, words) and query popularity"
# n = 50,000 so a Debian word list (wamerican: ~100k words) supplies members and non-members.
general=bloom,blocked_bloom,cuckoo,xor,binary_fuse,ribbon,quotient,rsqf
$bench run --filter "$general" --fpr 0.01 --keys "$workload_keys" \
  --keys-from uniform,sequential,strided:4096,words:wamerican --query-dist uniform,zipf:1.0 \
  --queries "$queries" --repeat 1 --out "$out/workloads.json"

step "trace replay: the real capture (pathspider's real.pcap) and a synthetic trace"
mkdir -p results/cache
synth=results/cache/synth_${synth_packets}.pcap
[[ -s "$synth" ]] || $bench trace synth --out "$synth" --packets "$synth_packets" --flows "$synth_flows" --seed 1
if real=$(scripts/fetch_real_pcap.sh); then
  $bench run --trace "$real" --filter "$general" --fpr 0.01 --repeat "$repeat" --out "$out/trace_real.json"
else
  echo "run_all: the real capture could not be fetched; its sections are left out" >&2
  real=""
fi
$bench run --trace "$synth" --filter "$general" --fpr 0.01 --repeat "$repeat" --out "$out/trace_synth.json"

step "adaptive cuckoo filters: A/S grid, trace replay, adversarial repetition"
$bench adapt --slots "$adapt_slots" --bits-per-slot 8,12 --as-ratio 1,10,100 --queries-per-flow 10,100 \
  --trials "$adapt_trials" --out "$out/adapt_grid.json"
[[ -n "$real" ]] && $bench adapt --trace "$real" --slots "$adapt_slots" --windows 10 --out "$out/adapt_trace_real.json"
$bench adapt --trace "$synth" --slots $((adapt_slots * 4)) --windows 10 --out "$out/adapt_trace_synth.json"
$bench adapt --experiment adversarial --slots "$adapt_slots" --fp-set 1,10,100 --repeats 10000 \
  --trials "$adapt_trials" --out "$out/adapt_adversarial.json"

step "micro-benchmarks (Google Benchmark)"
# Google Benchmark exits 0 even when it runs nothing: a result file without benchmarks fails here.
keep_micro() {
  /usr/bin/python3 -c "import json,sys; sys.exit(0 if json.load(open('$1'))['benchmarks'] else 1)" \
    || { echo "run_all: $1 holds no benchmarks" >&2; exit 1; }
  mv "$1" "$2"
}
$micro "${micro_args[@]}" --benchmark_out="$out/micro.json.tmp" --benchmark_out_format=json >&2
keep_micro "$out/micro.json.tmp" "$out/micro.json"
# FastFilter's reference figures come from -march=native builds: time ours that way too,
# from a second build tree, and keep both (the report shows them side by side).
step "micro-benchmarks, -march=native build"
cmake -S . -B build-native -DCMAKE_BUILD_TYPE=Release -DAMQ_MARCH_NATIVE=ON >/dev/null
cmake --build build-native --target amqbench_micro -j "$(nproc)" >/dev/null
build-native/amqbench_micro "${micro_args[@]}" "$native_filter" --benchmark_out="$out/micro_native.json.tmp" \
  --benchmark_out_format=json >&2
keep_micro "$out/micro_native.json.tmp" "$out/micro_native.json"

step "plots"
for f in "$out"/*.json; do
  [[ "$f" == */micro*.json ]] || /usr/bin/python3 plots/make_plots.py "$f" >/dev/null
done

step "report"
/usr/bin/python3 plots/report.py --results "$out" --out "$report"
