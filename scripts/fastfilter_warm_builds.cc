// scripts/fastfilter_warm_builds.cc - every pair of ../shared/tools/side_by_side_fastfilter.sh:
// FastFilter's builds or inserts and its lookups beside ours in one process, on the same keys,
// with warm memory on both sides, every lookup out of line on both sides. Morton too, which
// that script cannot pair: FastFilter's benchmark fills its Morton with the batched add
// (insert_many), which corrupts the heap at n = 10^6 here ("malloc(): invalid next size", exit
// 134 in every round), so here it is filled with one Add per key, which finds every member.
//
// Why: the side-by-side script runs FastFilter's benchmark as its own process, where a build is
// warm or cold depending on what the filters before it left in the allocator (its Xor8, the
// first, faults its pages in; the binary fuse filters after it mostly do not), so its build
// figures move by a third between runs and the best of five is its luckiest allocator state.
// Here every build reuses pages kept in the process (malloc keeps freed memory: mallopt below),
// two untimed builds of each kind come first, and the two sides alternate which goes first.
// What each side times is what its own benchmark times: FastFilter's AddAll or Add loop (its
// constructor, which allocates the table, runs before the clock, as in bulk-insert-and-query),
// our whole build() (allocation included) or insert loop (table allocated before the clock); its
// lookups through FilterAPI's Contain, out of line (bulk-insert-and-query's CONTAIN_ATTRIBUTES is
// noinline), ours through a call that is not inlined either (as the micro-benchmarks'
// query_*_noinline; until 2026-12-04 ours were inlined here, which saved ours the call). Lookups run
// over n members and over n non-members of one filter per side, built once, after a check that
// each side finds every member. Our cuckoo12 has a power-of-two bucket count, FastFilter's
// Cuckoo12 does not: their loads are close at n = 10^6 (0.954 and 0.94), not at every N (the
// bits-per-key row shows both).
//
// Built against a FastFilter checkout outside this tree (no FastFilter code is copied here):
//   scripts/fastfilter_warm_builds.sh FASTFILTER_CHECKOUT [ROUNDS] [N]
#include <malloc.h>

#include <algorithm>
#include <chrono>
#include <climits>  // FastFilter's headers use CHAR_BIT and memset without including them
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

// FastFilter's benchmark API (its benchmarks/filterapi.h): every filter of bulk-insert-and-query
// constructed, filled and asked as that program does it.
#include "filterapi.h"

#include "core/hashing.h"
#include "filters/binary_fuse.h"
#include "filters/blocked_bloom.h"
#include "filters/blocked_bloom256.h"
#include "filters/bumped_ribbon.h"
#include "filters/counting_bloom.h"
#include "filters/cqf.h"
#include "filters/cuckoo.h"
#include "filters/cuckoo_semisort.h"
#include "filters/gcs.h"
#include "filters/morton.h"
#include "filters/homog_ribbon.h"
#include "filters/prefix.h"
#include "filters/ribbon.h"
#include "filters/rsqf.h"
#include "filters/vqf.h"
#include "filters/xor.h"
#include "filters/xor_plus.h"
#include "harness/cell/micro_size.h"

namespace {

using Clock = std::chrono::steady_clock;

double NanosPerKey(Clock::time_point start, std::size_t n) {
  return std::chrono::duration<double, std::nano>(Clock::now() - start).count() /
         static_cast<double>(n);
}

// FastFilter's fill, as bulk-insert-and-query's FilterBenchmark does it: AddAll (its batched
// add) or one Add per key (which throws when the table is full).
template <class Theirs>
void FillTheirs(Theirs& filter, const std::vector<std::uint64_t>& keys, bool batched) {
  if (batched) {
    FilterAPI<Theirs>::AddAll(keys, 0, keys.size(), &filter);
  } else {
    for (std::uint64_t k : keys) FilterAPI<Theirs>::Add(k, &filter);
  }
}

// FastFilter's timed region: its fill of a filter constructed before the clock starts.
template <class Theirs>
double TimeTheirs(const std::vector<std::uint64_t>& keys, bool batched = true) {
  Theirs filter = FilterAPI<Theirs>::ConstructFromAddCount(keys.size());
  const auto start = Clock::now();
  FillTheirs(filter, keys, batched);
  const double t = NanosPerKey(start, keys.size());
  asm volatile("" : : "r"(&filter) : "memory");
  return t;
}

// Ours: the whole static build.
template <class Ours>
double TimeOurs(const std::vector<std::uint64_t>& keys) {
  const auto start = Clock::now();
  Ours filter = Ours::build(
      keys, amq::MicroFilterParams(keys.size(), amq::MicroSizingOf<Ours>()));
  const double t = NanosPerKey(start, keys.size());
  asm volatile("" : : "r"(&filter) : "memory");
  return t;
}

// FastFilter's lookup as its benchmark calls it: FilterAPI's Contain, out of line
// (CONTAIN_ATTRIBUTES is noinline in its filterapi.h). Its Morton's Contain takes a pointer to a
// non-const filter; every filter passed here is a non-const object, so the cast is defined.
template <class Theirs>
bool TheirContain(std::uint64_t key, const Theirs* filter) {
  return FilterAPI<Theirs>::Contain(key, const_cast<Theirs*>(filter));
}

// Ours the same way: one call per lookup that the compiler may not inline (the micro-benchmarks'
// query_*_noinline, harness/cell/kernels.h), the like-for-like pair.
template <class Ours>
__attribute__((noinline)) bool OurContain(std::uint64_t key, const Ours* filter) {
  return filter->contains(key);
}

template <class Contains>
double TimeLookups(const std::vector<std::uint64_t>& queries, Contains contains) {
  const auto start = Clock::now();
  std::size_t found = 0;
  for (std::uint64_t q : queries) found += contains(q) ? 1 : 0;
  const double t = NanosPerKey(start, queries.size());
  asm volatile("" : : "r"(found) : "memory");
  return t;
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
}

// One row: the two sides' samples, alternating which goes first, as median [min-max] and the
// per-round ratio ours / theirs.
struct Row {
  std::vector<double> ours, theirs;
};

template <class Ours, class Theirs>
Row Alternate(int rounds, Ours ours, Theirs theirs) {
  Row row;
  for (int r = 0; r < rounds; ++r) {
    if (r % 2 == 0) {
      row.ours.push_back(ours());
      row.theirs.push_back(theirs());
    } else {
      row.theirs.push_back(theirs());
      row.ours.push_back(ours());
    }
  }
  return row;
}

void Print(const std::string& ours_name, const std::string& their_name, const char* operation,
           const Row& row) {
  std::vector<double> ratios;
  for (std::size_t i = 0; i < row.ours.size(); ++i) ratios.push_back(row.ours[i] / row.theirs[i]);
  const auto [omin, omax] = std::minmax_element(row.ours.begin(), row.ours.end());
  const auto [tmin, tmax] = std::minmax_element(row.theirs.begin(), row.theirs.end());
  const auto [rmin, rmax] = std::minmax_element(ratios.begin(), ratios.end());
  std::printf("| %s | %s | %s | %.1f [%.1f-%.1f] | %.1f [%.1f-%.1f] | %.2f [%.2f-%.2f] |\n",
              ours_name.c_str(), their_name.c_str(), operation, Median(row.ours), *omin, *omax,
              Median(row.theirs), *tmin, *tmax, Median(ratios), *rmin, *rmax);
  std::fflush(stdout);
}

template <class Ours, class Theirs>
void Build(const char* ours_name, const char* their_name, const std::vector<std::uint64_t>& keys,
           int rounds) {
  for (int warm = 0; warm < 2; ++warm) {
    TimeOurs<Ours>(keys);
    TimeTheirs<Theirs>(keys);
  }
  Print(ours_name, their_name, "build", Alternate(rounds, [&] { return TimeOurs<Ours>(keys); },
                                                  [&] { return TimeTheirs<Theirs>(keys); }));
}

// Lookups of one built filter per side over n members and n non-members.
template <class Ours, class Theirs>
void Lookups(const std::string& ours_name, const std::string& their_name, const Ours& ours,
             const Theirs& theirs, const std::vector<std::uint64_t>& members,
             const std::vector<std::uint64_t>& others, int rounds) {
  // Both sides must find every member before anything is timed (zero false negatives).
  std::size_t ours_found = 0, theirs_found = 0;
  for (std::uint64_t k : members) {
    ours_found += OurContain(k, &ours) ? 1 : 0;
    theirs_found += TheirContain(k, &theirs) ? 1 : 0;
  }
  if (ours_found != members.size() || theirs_found != members.size()) {
    std::fprintf(stderr, "fastfilter_warm_builds: false negatives: %s found %zu, %s %zu of %zu members\n",
                 ours_name.c_str(), ours_found, their_name.c_str(), theirs_found, members.size());
    std::exit(1);
  }
  for (const auto* queries : {&others, &members}) {
    const auto ours_loop = [&] {
      return TimeLookups(*queries, [&](std::uint64_t k) { return OurContain(k, &ours); });
    };
    const auto their_loop = [&] {
      return TimeLookups(*queries, [&](std::uint64_t k) { return TheirContain(k, &theirs); });
    };
    ours_loop();
    their_loop();
    Print(ours_name, their_name, queries == &members ? "query, present" : "query, absent",
          Alternate(rounds, ours_loop, their_loop));
  }
}

template <class Ours, class Theirs>
void StaticLookups(const char* ours_name, const char* their_name,
                   const std::vector<std::uint64_t>& members,
                   const std::vector<std::uint64_t>& others, int rounds) {
  const Ours ours = Ours::build(
      members, amq::MicroFilterParams(members.size(), amq::MicroSizingOf<Ours>()));
  Theirs theirs = FilterAPI<Theirs>::ConstructFromAddCount(members.size());
  FillTheirs(theirs, members, /*batched=*/true);
  Lookups(ours_name, their_name, ours, theirs, members, others, rounds);
}

// A static pair: its builds, then the lookups of one filter per side.
template <class Ours, class Theirs>
void Static(const char* ours_name, const char* their_name, const std::vector<std::uint64_t>& members,
            const std::vector<std::uint64_t>& others, int rounds) {
  Build<Ours, Theirs>(ours_name, their_name, members, rounds);
  StaticLookups<Ours, Theirs>(ours_name, their_name, members, others, rounds);
}

// A dynamic pair: inserts into a table allocated before the clock on both sides (ours
// insert_many where the filter has it, else one insert() per key, as our micro-benchmark's
// insert; theirs AddAll or an Add loop, as its benchmark fills that filter), the
// bits per key of each, then the lookups of one filled table per side.
template <class Ours, class Theirs>
void Dynamic(const char* ours_name, const char* their_name, const std::vector<std::uint64_t>& members,
             const std::vector<std::uint64_t>& others, int rounds, bool their_batched) {
  // Ours on the stack, as TimeTheirs holds theirs: a filter behind a pointer makes the compiler
  // reload its members after every store into the table (the table's stores may alias them).
  const auto fill_ours = [&] {
    Ours filter(amq::MicroFilterParams(members.size(), amq::MicroSizingOf<Ours>()));
    const auto start = Clock::now();
    if constexpr (requires { filter.insert_many(std::span<const std::uint64_t>(members)); }) {
      // As our micro-benchmark's insert (InsertAll in harness/cell/kernels.h): the bulk path.
      filter.insert_many(members);
    } else {
      for (std::uint64_t k : members) {
        if (!filter.insert(k)) {
          std::fprintf(stderr, "fastfilter_warm_builds: %s refused a key\n", ours_name);
          std::exit(1);
        }
      }
    }
    const double t = NanosPerKey(start, members.size());
    return std::pair{t, std::make_unique<Ours>(std::move(filter))};
  };
  for (int warm = 0; warm < 2; ++warm) {
    fill_ours();
    TimeTheirs<Theirs>(members, their_batched);
  }
  Print(ours_name, their_name, "insert",
        Alternate(rounds, [&] { return fill_ours().first; },
                  [&] { return TimeTheirs<Theirs>(members, their_batched); }));
  const auto ours = fill_ours().second;
  // Constructed as its benchmark constructs it (some of its filters cannot be moved safely).
  Theirs theirs = FilterAPI<Theirs>::ConstructFromAddCount(members.size());
  FillTheirs(theirs, members, their_batched);
  // A cuckoo table's load beside its bits per key: the two sides size their tables differently.
  char load[32] = "";
  if constexpr (requires { ours->load_factor(); }) {
    std::snprintf(load, sizeof load, " (load %.3f)", ours->load_factor());
  }
  std::printf("| %s | %s | bits per key | %.2f%s | %.2f | |\n", ours_name, their_name,
              8.0 * static_cast<double>(ours->size_in_bytes()) / static_cast<double>(members.size()), load,
              8.0 * static_cast<double>(theirs.SizeInBytes()) / static_cast<double>(members.size()));
  Lookups(ours_name, their_name, *ours, theirs, members, others, rounds);
}

}  // namespace

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 11;
  const long n = argc > 2 ? std::atol(argv[2]) : 1000000;
  if (rounds < 1 || n < 1) {
    std::fprintf(stderr, "fastfilter_warm_builds: usage: fastfilter_warm_builds [ROUNDS >= 1] [N >= 1]\n");
    return 2;
  }
  // Freed memory stays in the process, so every timed build after the first reuses mapped pages.
  mallopt(M_MMAP_THRESHOLD, 1 << 30);
  mallopt(M_TRIM_THRESHOLD, -1);
  std::vector<std::uint64_t> members(static_cast<std::size_t>(n)), others(members.size());
  amq::XorShift64Star rng(2026);
  for (auto& k : members) k = rng.Next();
  for (auto& k : others) k = rng.Next();  // 2^-64 per pair of being a member: none expected

  std::printf("n = %ld keys, %d rounds per row, ns per key: median [min-max]; ratio = ours / "
              "FastFilter's, per round\n\n",
              n, rounds);
  std::printf("| ours | FastFilter | operation | ours | FastFilter | ratio |\n|---|---|---|---|---|---|\n");
  using TheirXor8 = xorfilter::XorFilter<std::uint64_t, std::uint8_t, SimpleMixSplit>;
  using TheirXor16 = xorfilter::XorFilter<std::uint64_t, std::uint16_t, SimpleMixSplit>;
  using TheirFuse8 = xorbinaryfusefilter_lowmem::XorBinaryFuseFilter<std::uint64_t, std::uint8_t>;
  using TheirFuse16 = xorbinaryfusefilter_lowmem::XorBinaryFuseFilter<std::uint64_t, std::uint16_t>;
  using TheirFuse8x4 =
      xorbinaryfusefilter_lowmem4wise::XorBinaryFuseFilter<std::uint64_t, std::uint8_t>;
  using TheirCuckoo12 =
      cuckoofilter::CuckooFilterStable<std::uint64_t, 12, cuckoofilter::SingleTable, SimpleMixSplit>;
  Static<amq::Xor8, TheirXor8>("xor8", "Xor8", members, others, rounds);
  Static<amq::Xor16, TheirXor16>("xor16", "Xor16", members, others, rounds);
  Static<amq::BinaryFuse8, TheirFuse8>("binary_fuse8", "XorBinaryFuse8", members, others, rounds);
  Static<amq::BinaryFuse16, TheirFuse16>("binary_fuse16", "XorBinaryFuse16", members, others,
                                         rounds);
  Static<amq::BinaryFuse8x4, TheirFuse8x4>("binary_fuse8_4wise", "XorBinaryFuse8-4wise", members,
                                           others, rounds);
  // Xor+ and the Golomb-compressed set (ids 3, 4 and 20), built with AddAll.
  using TheirXorPlus8 = XorFilterPlus<std::uint64_t, std::uint8_t, SimpleMixSplit>;
  using TheirXorPlus16 = XorFilterPlus<std::uint64_t, std::uint16_t, SimpleMixSplit>;
  using TheirGcs = GcsFilter<std::uint64_t, 8, SimpleMixSplit>;
  Static<amq::XorPlus8, TheirXorPlus8>("xor_plus8", "Xor+8", members, others, rounds);
  Static<amq::XorPlus16, TheirXorPlus16>("xor_plus16", "Xor+16", members, others, rounds);
  Static<amq::Gcs, TheirGcs>("gcs", "GCS", members, others, rounds);
  // The standard Ribbon at 7 bits (id 3076, StandardRibbon64_7), ours at its r = 7; then
  // FastFilter's ids 1086 and 2086 (HomogRibbon64_8, BalancedRibbon64Pack_8).
  Static<amq::Ribbon64, StandardRibbonFilter<std::uint64_t, 7, 0>>(
      "ribbon64", "StandardRibbon64_7", members, others, rounds);
  Static<amq::HomogRibbon64, HomogRibbonFilter<std::uint64_t, 8>>(
      "homog_ribbon64", "HomogRibbon64_8", members, others, rounds);
  Static<amq::BumpedRibbon, BalancedRibbonFilter<std::uint64_t, 8, 0>>(
      "bumped_ribbon", "BalancedRibbon64Pack_8", members, others, rounds);
  // The dynamic pairs, each filled as bulk-insert-and-query fills it: VQF and
  // CountingBloom10-addAll with AddAll (ids 31, 60), the others one Add per key.
  Dynamic<amq::Vqf8, VQFilter<std::uint64_t, SimpleMixSplit>>("vqf8", "VQF", members, others, rounds,
                                                               /*their_batched=*/true);
  Dynamic<amq::BlockedBloom256, SimdBlockFilterFixed<SimpleMixSplit>>(
      "blocked_bloom256", "BlockedBloom", members, others, rounds, /*their_batched=*/false);
  Dynamic<amq::CountingBloom, CountingBloomFilter<std::uint64_t, 10, true, SimpleMixSplit>>(
      "counting_bloom", "CountingBloom10-addAll", members, others, rounds, /*their_batched=*/true);

  Dynamic<amq::BlockedBloom, SimdBlockFilterFixed64<SimpleMixSplit>>(
      "blocked_bloom", "BlockedBloom64", members, others, rounds, /*their_batched=*/false);
  Dynamic<amq::BlockedBloom, SimdBlockFilterFixed<SimpleMixSplit>>(
      "blocked_bloom", "BlockedBloom", members, others, rounds, /*their_batched=*/false);

  // Cuckoo12: one Add per key on both sides, as its benchmark fills it (id 11); then its tables
  // of a power of two buckets (ids 14-16, Cuckoo8-2^n ...), and the semi-sorted one (id 13).
  Dynamic<amq::Cuckoo<12>, TheirCuckoo12>("cuckoo12", "Cuckoo12", members, others, rounds,
                                          /*their_batched=*/false);
  using TheirCuckoo8Pow2 =
      cuckoofilter::CuckooFilter<std::uint64_t, 8, cuckoofilter::SingleTable, SimpleMixSplit>;
  using TheirCuckoo12Pow2 =
      cuckoofilter::CuckooFilter<std::uint64_t, 12, cuckoofilter::SingleTable, SimpleMixSplit>;
  using TheirCuckoo16Pow2 =
      cuckoofilter::CuckooFilter<std::uint64_t, 16, cuckoofilter::SingleTable, SimpleMixSplit>;
  using TheirSemiSort13 =
      cuckoofilter::CuckooFilterStable<std::uint64_t, 13, cuckoofilter::PackedTable, SimpleMixSplit>;
  Dynamic<amq::Cuckoo<8>, TheirCuckoo8Pow2>("cuckoo8", "Cuckoo8-2^n", members, others, rounds,
                                            /*their_batched=*/false);
  Dynamic<amq::Cuckoo<12>, TheirCuckoo12Pow2>("cuckoo12", "Cuckoo12-2^n", members, others, rounds,
                                              /*their_batched=*/false);
  Dynamic<amq::Cuckoo<16>, TheirCuckoo16Pow2>("cuckoo16", "Cuckoo16-2^n", members, others, rounds,
                                              /*their_batched=*/false);
  Dynamic<amq::CuckooSemiSort13, TheirSemiSort13>("cuckoo_semisort13", "CuckooSemiSort13", members,
                                                  others, rounds, /*their_batched=*/false);
  // Morton (id 80; Morton3_8, sized n / 0.95 + 64): one Add per key, see the header comment.
  Dynamic<amq::Morton, MortonFilter>("morton", "Morton", members, others, rounds,
                                     /*their_batched=*/false);

  // The quotient filters against its CQF (id 30), and the prefix filters (ids 35-37).
  using TheirCqf = GQFilter<std::uint64_t, 8, SimpleMixSplit>;
  Dynamic<amq::Rsqf, TheirCqf>("rsqf", "CQF", members, others, rounds, /*their_batched=*/false);
  Dynamic<amq::Cqf, TheirCqf>("cqf", "CQF", members, others, rounds, /*their_batched=*/false);
  Dynamic<amq::PrefixTc, Prefix_Filter<TC_shortcut<SimpleMixSplit>>>(
      "prefix_tc", "PF[TC]", members, others, rounds, /*their_batched=*/false);
  Dynamic<amq::PrefixCuckoo12, Prefix_Filter<TheirCuckoo12>>(
      "prefix_cuckoo12", "PF[CF-12-Flex]", members, others, rounds, /*their_batched=*/false);
  Dynamic<amq::PrefixBlockedBloom, Prefix_Filter<SimdBlockFilterFixed<SimpleMixSplit>>>(
      "prefix_blocked_bloom", "PF[BBF-Flex]", members, others, rounds, /*their_batched=*/false);
  return 0;
}
