// filters/acf_test.cc - the adaptive cuckoo filters (filters/acf.h): no false negatives through
// any number of adaptations, filter and remote store always in agreement, fixes that stick,
// rebuilds that keep every key, and controls whose FPR is the static theory.
#include "filters/acf.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <tuple>
#include <type_traits>
#include <unordered_set>

#include "core/stats.h"
#include "filters/all.h"
#include "filters/test_params.h"
#include "harness/kinds/adapt_kind.h"
#include "workloads/uniform.h"

namespace amq {
namespace {

static_assert(DynamicFilter<Cuckoo4x1> && DynamicFilter<Cuckoo2x4> && DynamicFilter<AcfCyclic> &&
              DynamicFilter<AcfCyclicRanges> && DynamicFilter<AcfSwapping> &&
              DynamicFilter<AcfCuckooing> && DynamicFilter<AcfCuckooing2x4>);
static_assert(HasLoadFactor<AcfCyclic> && HasStats<AcfCuckooing>);

constexpr std::size_t kSlots = std::size_t{1} << 14;

AcfParams Geometry(int bits, std::uint64_t seed, int selector_bits = -1) {
  AcfParams p;
  p.slots = kSlots;
  p.bits_per_slot = bits;
  p.selector_bits = selector_bits;
  p.seed = seed;
  return p;
}

// Fills a filter to 95% of its slots with members of stream `seed`; returns the keys it took.
template <class F>
std::vector<std::uint64_t> Fill(F& filter, std::uint64_t seed, double load = 0.95) {
  const auto keys =
      UniformKeys(seed, KeyStream::kMembers, static_cast<std::size_t>(load * filter.slots()));
  std::vector<std::uint64_t> held;
  for (std::uint64_t k : keys) {
    if (filter.insert(k)) held.push_back(k);
  }
  return held;
}

template <class F>
void ExpectHoldsAll(const F& filter, const std::vector<std::uint64_t>& keys) {
  std::size_t missing = 0;
  for (std::uint64_t k : keys) missing += filter.contains(k) ? 0 : 1;
  EXPECT_EQ(missing, 0u) << "false negatives";
  EXPECT_EQ(filter.stored(), keys.size());
  EXPECT_EQ(filter.CheckConsistency(), "");
}

template <class F>
class AcfEveryKind : public ::testing::Test {};
// Every filter of the one list with the adaptive capability (filters/acf.h), as
// the adapt experiments choose them: no second list of names.
template <class F>
using KeepIfAdaptive = std::conditional_t<AdaptiveFilter<F>, std::tuple<F>, std::tuple<>>;
template <class... Fs>
auto AdaptiveTuple(TypeList<Fs...>) -> decltype(std::tuple_cat(std::declval<KeepIfAdaptive<Fs>>()...));
template <class Tuple>
struct AsTestTypes;
template <class... Ts>
struct AsTestTypes<std::tuple<Ts...>> {
  using type = ::testing::Types<Ts...>;
};
using Kinds = AsTestTypes<decltype(AdaptiveTuple(AllFilters{}))>::type;
static_assert(std::tuple_size_v<decltype(AdaptiveTuple(AllFilters{}))> == 8);
TYPED_TEST_SUITE(AcfEveryKind, Kinds, filter_tests::FilterNames);

TYPED_TEST(AcfEveryKind, FillsTo95PercentWithoutFailures) {
  TypeParam filter(Geometry(8, 1));
  const auto keys = Fill(filter, 1);
  EXPECT_EQ(filter.counters().insert_failures, 0u);
  EXPECT_NEAR(filter.load_factor(), 0.95, 0.001);
  ExpectHoldsAll(filter, keys);
}

// Many adaptive queries (each flow asked 20 times) must never lose a member, and after all of
// them every slot must still hold the fingerprint its remote key has there.
TYPED_TEST(AcfEveryKind, NoFalseNegativesThroughAdaptations) {
  for (int bits : {6, 8}) {
    TypeParam filter(Geometry(bits, 2));
    const auto keys = Fill(filter, 2);
    const auto flows = UniformKeys(2, KeyStream::kNonMembers, 20 * kSlots);
    XorShift64Star rng(2);
    std::size_t answered_absent_for_member = 0;
    for (std::size_t i = 0; i < 20 * flows.size(); ++i) {
      const auto outcome = filter.query_and_adapt(flows[rng.Next() % flows.size()]);
      ASSERT_NE(outcome.answer, AcfAnswer::kMember) << "a non-member found in the remote store";
      if (i % 4096 == 0) {  // interleave member queries: they must always be found
        const auto m = filter.query_and_adapt(keys[rng.Next() % keys.size()]);
        answered_absent_for_member += m.answer != AcfAnswer::kMember;
      }
    }
    EXPECT_EQ(answered_absent_for_member, 0u);
    if constexpr (TypeParam::kAdaptive) {
      EXPECT_GT(filter.counters().adaptations, 1000u) << bits << " bits";
    } else {
      EXPECT_EQ(filter.counters().adaptations, 0u);
    }
    ExpectHoldsAll(filter, keys);
  }
}

// What a state-reading adversary reads agrees with the query path and changes nothing: a
// non-member collides in a bucket exactly when colliding_slots names a slot of it, every member
// is found where slot_holding says, and reading leaves the bytes and the counters as they were.
TYPED_TEST(AcfEveryKind, StateReadsAgreeWithQueriesAndAdaptNothing) {
  TypeParam filter(Geometry(6, 3));
  const auto keys = Fill(filter, 3);
  const std::vector<std::uint8_t> before(filter.bytes().begin(), filter.bytes().end());
  const AcfCounters counters = filter.counters();
  const std::size_t b = TypeParam::kSlotsPerBucket;
  std::size_t collisions = 0;
  for (std::uint64_t q : UniformKeys(3, KeyStream::kNonMembers, 20000)) {
    const auto hits = filter.colliding_slots(q);
    collisions += !hits.empty();
    for (std::size_t slot : hits) EXPECT_TRUE(filter.collides_in_bucket(q, slot));
    // A slot of a bucket it does not collide in, or does not map to, never says it collides.
    const std::size_t other = (filter.candidate_slot(q, 0) / b + 1) % (filter.slots() / b) * b;
    if (std::find_if(hits.begin(), hits.end(), [&](std::size_t s) { return s / b == other / b; }) == hits.end()) {
      EXPECT_FALSE(filter.collides_in_bucket(q, other));
    }
  }
  EXPECT_GT(collisions, 100u);  // at 6 bits, some hundreds of the 20,000
  for (std::size_t i = 0; i < keys.size(); i += 97) {
    const std::size_t at = filter.slot_holding(keys[i]);
    ASSERT_NE(at, TypeParam::kNoSlot);
    EXPECT_EQ(filter.remote().key(at), keys[i]);
    EXPECT_TRUE(filter.bucket_occupied(at));
  }
  EXPECT_EQ(filter.slot_holding(UniformKey(3, KeyStream::kNonMembers, 0)), TypeParam::kNoSlot);
  EXPECT_TRUE(std::equal(before.begin(), before.end(), filter.bytes().begin()));
  EXPECT_EQ(filter.counters().false_positives, counters.false_positives);
  EXPECT_EQ(filter.counters().remote_lookups, counters.remote_lookups);
}

// Before any adaptation, contains() on fresh non-members is a static cuckoo filter: its FPR
// must be its own static theory, 1 - (1 - 1/R)^(d b alpha), at two widths.
TYPED_TEST(AcfEveryKind, StaticFprMatchesTheory) {
  for (int bits : {8, 12}) {
    TypeParam filter(Geometry(bits, 3));
    Fill(filter, 3);
    const auto negatives = UniformKeys(3, KeyStream::kNonMembers, 1000000);
    std::size_t fp = 0;
    for (std::uint64_t q : negatives) fp += filter.contains(q);
    const double theory = filter.static_fpr_theory();
    EXPECT_DOUBLE_EQ(theory, filter.theory().fpr);  // nothing adapted yet
    const Interval band = BinomialBand(negatives.size(), theory);
    EXPECT_GE(double(fp), band.low) << bits << " bits, theory " << theory;
    EXPECT_LE(double(fp), band.high) << bits << " bits, theory " << theory;
  }
}

// The controls (and, before any adaptation, every ACF without selector bits) against the
// reference formula written out independently of the class: FPR = 1 - (1 - 2^-f)^(d b alpha)
// with f the whole slot (value 0 reserved for "empty" makes the per-slot rate 1/(2^f - 1); at
// these sample sizes the two are inside the same band).
template <class F>
void ExpectStaticMatchesReference(int bits) {
  F filter(Geometry(bits, 4));
  Fill(filter, 4);
  const auto negatives = UniformKeys(4, KeyStream::kNonMembers, 2000000);
  std::size_t fp = 0;
  for (std::uint64_t q : negatives) fp += filter.contains(q);
  const double dba = filter.tables() * F::kSlotsPerBucket * filter.load_factor();  // 4 or 8
  for (double per_slot : {std::ldexp(1.0, -bits), 1.0 / (std::ldexp(1.0, bits) - 1)}) {
    const double reference = 1 - std::pow(1 - per_slot, dba);
    const Interval band = BinomialBand(negatives.size(), reference);
    EXPECT_GE(double(fp), band.low) << F::kName << " f=" << bits << " reference " << reference;
    EXPECT_LE(double(fp), band.high) << F::kName << " f=" << bits << " reference " << reference;
  }
  EXPECT_EQ(filter.fingerprint_bits(), bits);
}

TEST(AcfControls, FprMatchesReferenceFormulaAtTwoWidths) {
  for (int bits : {8, 12}) {
    ExpectStaticMatchesReference<Cuckoo4x1>(bits);
    ExpectStaticMatchesReference<Cuckoo2x4>(bits);
  }
}

// The 4-slot Cuckooing ACF fills like cuckoo_2x4 (same insert, same d b = 8 probes): its FPR
// before any query is the same formula at d b = 8, at a fixed seed.
TEST(AcfCuckooing2x4, StaticFprMatchesReferenceFormulaAtTwoWidths) {
  for (int bits : {8, 12}) ExpectStaticMatchesReference<AcfCuckooing2x4>(bits);
}

// Flows asked again and again: a control pays the same false positives on every pass (it is
// static), an ACF pays far fewer on later passes than on the first. A fix can also create
// false positives: each element it moves or refingerprints lands on a slot that the flows
// probing it (4 |A| / slots of them on average) match with probability 1/R. With |A| = slots/2
// that is ~2/R per changed slot, small for every variant (the Cuckooing ACF moves ~40
// elements per fix at 95% load: ~0.3 new false positives per fix at 8 bits).
TYPED_TEST(AcfEveryKind, RepeatedFalsePositivesFall) {
  AcfParams p = Geometry(8, 5);
  p.slots = std::size_t{1} << 16;
  TypeParam filter(p);
  const auto keys = Fill(filter, 5);
  const auto flows = UniformKeys(5, KeyStream::kNonMembers, p.slots / 2);
  std::vector<std::size_t> per_pass;
  for (int pass = 0; pass < 6; ++pass) {
    std::size_t fp = 0;
    for (std::uint64_t q : flows)
      fp += filter.query_and_adapt(q).answer == AcfAnswer::kFalsePositive;
    per_pass.push_back(fp);
  }
  ASSERT_GT(per_pass[0], 400u);
  if constexpr (TypeParam::kAdaptive) {
    EXPECT_LT(per_pass[1], per_pass[0] / 2) << TypeParam::kName;
    EXPECT_LT(per_pass[5], per_pass[0] / 4) << TypeParam::kName;
  } else {
    for (std::size_t fp : per_pass) EXPECT_EQ(fp, per_pass[0]);
  }
  for (std::size_t fp : per_pass) std::printf("%zu ", fp);
  std::printf("<- %s false positives per pass\n", std::string(TypeParam::kName).c_str());
  ExpectHoldsAll(filter, keys);
}

// Asked again right after it was fixed, a false positive recurs only with the probability the
// papers give: the fixed slot collides again with probability 1/R under its new state (new
// selector, new position, or the occupant that moved in), so the recurrence rate is about
// fixed_slots / R plus nothing else. Counted over the first 3000 false positives.
template <class F>
void ExpectFixesStick(double recurrence_probability_per_fix) {
  F filter(Geometry(8, 6));
  Fill(filter, 6);
  const auto flows = UniformKeys(6, KeyStream::kNonMembers, 400000);
  std::size_t fixed_queries = 0, recurrences = 0, fixes = 0;
  for (std::uint64_t q : flows) {
    const auto first = filter.query_and_adapt(q);
    if (first.answer != AcfAnswer::kFalsePositive) continue;
    ++fixed_queries;
    fixes += first.fixed;
    recurrences += filter.contains(q);
    if (fixed_queries == 3000) break;
  }
  ASSERT_EQ(fixed_queries, 3000u);
  const Interval band = BinomialBand(fixes, recurrence_probability_per_fix);
  EXPECT_LE(double(recurrences), band.high)
      << F::kName << ": " << recurrences << " of " << fixed_queries;
  EXPECT_GE(double(recurrences), band.low)
      << F::kName << ": " << recurrences << " of " << fixed_queries;
}

TEST(AcfFixes, CyclicRecurrenceRateIsOneOverTheNextRange) {
  ExpectFixesStick<AcfCyclic>(1.0 / 64);        // selector 1's range: 2^(8-2) codes
  ExpectFixesStick<AcfCyclicRanges>(1.0 / 32);  // selectors 1..4 own 2^(8-3) codes
}

TEST(AcfFixes, SwappingRecurrenceRateIsTwoSlotsOverTheRange) {
  // x moves within q's own bucket (q still probes it, 1/255) and the occupant y that comes
  // into x's old slot collides with probability 1/255 (times the bucket's ~95% occupancy).
  ExpectFixesStick<AcfSwapping>(1.95 / 255);
}

// x leaves q's probe set for good; only an element pushed into one of q's slots by the chain
// (4 slots with 4 x 1, 8 with 2 x 4), or a rebuild, can bring the false positive back: a few in
// 10^3 per fix. With 2 x 4, x moves into q's bucket of the other table only if q's two buckets
// are x's two (probability 1/N per fix), and each pushed element lands in one of q's buckets
// with probability about 1/N and then collides with probability 1/R.
template <class F>
class AcfCuckooingLayouts : public ::testing::Test {};
using CuckooingLayouts = ::testing::Types<AcfCuckooing, AcfCuckooing2x4>;
TYPED_TEST_SUITE(AcfCuckooingLayouts, CuckooingLayouts, filter_tests::FilterNames);

TYPED_TEST(AcfCuckooingLayouts, RecurrenceRateIsNearZero) {
  TypeParam filter(Geometry(8, 6));
  Fill(filter, 6);
  const auto flows = UniformKeys(6, KeyStream::kNonMembers, 400000);
  std::size_t fixed_queries = 0, recurrences = 0;
  for (std::uint64_t q : flows) {
    if (filter.query_and_adapt(q).answer != AcfAnswer::kFalsePositive) continue;
    ++fixed_queries;
    recurrences += filter.contains(q);
  }
  ASSERT_GT(fixed_queries, 3000u);
  EXPECT_LE(recurrences, fixed_queries / 100) << recurrences << " of " << fixed_queries;
  EXPECT_EQ(filter.CheckConsistency(), "");
}

// The Cyclic ACF's own limit: with s selector bits a slot has 2^s fingerprints, so 2^s fixes
// of the same slot bring back the first one and every false positive it had.
TEST(AcfCyclic, SelectorWrapsAroundAndTheOldFalsePositiveReturns) {
  AcfParams p = Geometry(6, 7, 1);  // 2 selectors
  p.slots = 256;
  AcfCyclic filter(p);
  Fill(filter, 7);
  const auto candidates = UniformKeys(7, KeyStream::kNonMembers, 200000);
  std::uint64_t q1 = 0;
  std::size_t slot = 0;
  std::uint64_t original = 0;
  for (std::uint64_t q : candidates) {
    const auto hits = filter.colliding_slots(q);
    if (hits.size() != 1) continue;
    q1 = q;
    slot = hits[0];
    original = filter.slot_value(slot);
    break;
  }
  ASSERT_NE(q1, 0u);
  ASSERT_EQ(filter.query_and_adapt(q1).fixed, 1);
  EXPECT_NE(filter.slot_value(slot), original);  // selector 1 now
  // Find a second non-member that collides with the same slot under selector 1, and let it
  // trigger the second fix: selector 1 + 1 = 0 mod 2.
  bool wrapped = false;
  for (std::uint64_t q : candidates) {
    const auto hits = filter.colliding_slots(q);
    if (q == q1 || hits.size() != 1 || hits[0] != slot) continue;
    ASSERT_EQ(filter.query_and_adapt(q).fixed, 1);
    wrapped = true;
    break;
  }
  ASSERT_TRUE(wrapped);
  EXPECT_EQ(filter.slot_value(slot), original);
  EXPECT_TRUE(filter.contains(q1)) << "the wrapped selector restores the old fingerprint";
  EXPECT_EQ(filter.CheckConsistency(), "");
}

// The 4-slot fix, step by step: a false positive colliding in one slot of table t sends that
// slot's element x to its bucket in the other table (into a free slot there, or evicting an
// occupant that moves on); q stops being a false positive, and x is still found.
TEST(AcfCuckooing2x4, FixMovesTheElementToItsOtherTable) {
  AcfCuckooing2x4 filter(Geometry(8, 11));
  const auto keys = Fill(filter, 11);
  const auto candidates = UniformKeys(11, KeyStream::kNonMembers, 200000);
  int checked = 0;
  for (std::uint64_t q : candidates) {
    const auto hits = filter.colliding_slots(q);
    if (hits.size() != 1) continue;
    const std::uint64_t x = filter.remote().key(hits[0]);
    const int from = static_cast<int>(hits[0] / (filter.slots() / 2));  // 2 tables, equal halves
    const std::uint64_t rebuilds = filter.counters().rebuilds;
    ASSERT_EQ(filter.query_and_adapt(q).fixed, 1);
    if (filter.counters().rebuilds != rebuilds) continue;  // new hash functions: nothing to trace
    bool in_other_table = false;
    for (int j = 0; j < AcfCuckooing2x4::kSlotsPerBucket; ++j) {
      const std::size_t slot = filter.candidate_slot(x, 1 - from, j);
      in_other_table |= filter.remote().used(slot) && filter.remote().key(slot) == x;
    }
    EXPECT_TRUE(in_other_table) << "fix " << checked;
    EXPECT_FALSE(filter.contains(q)) << "fix " << checked;
    if (++checked == 200) break;
  }
  EXPECT_EQ(checked, 200);
  EXPECT_GT(filter.counters().moves, filter.counters().adaptations) << "some fixes evicted";
  ExpectHoldsAll(filter, keys);
}

// Its table count is fixed at 2, as acf_swapping's: the suites' tables = 4 (meant for the
// 1-slot Cuckooing ACFs) leaves it at 2 x 4 beside acf_swapping.
TEST(AcfCuckooing2x4, KeepsTwoTables) {
  AcfParams p = Geometry(8, 1);
  p.tables = 4;
  EXPECT_EQ(AcfCuckooing2x4(p).tables(), 2);
  EXPECT_EQ(AcfCuckooing(p).tables(), 4);
  static_assert(!AcfCuckooing2x4::kTakesTables && AcfCuckooing::kTakesTables);
}

// A Cuckooing ACF allowed a single move per fix rebuilds whenever the next bucket is full
// (most fixes at 95% load); every rebuild must re-insert every key from the remote store.
// 10^4 flows make 135 and 290 rebuilds in the two layouts (10^5 made 1,397 and 2,794, and took
// 1 and 2 s here, 12 and 16 s under AddressSanitizer).
TYPED_TEST(AcfCuckooingLayouts, RebuildsKeepEveryKey) {
  AcfParams p = Geometry(8, 8);
  p.max_moves = 1;
  TypeParam filter(p);
  const auto keys = Fill(filter, 8);
  const auto flows = UniformKeys(8, KeyStream::kNonMembers, 10000);
  for (std::uint64_t q : flows) filter.query_and_adapt(q);
  EXPECT_GT(filter.counters().rebuilds, 10u);
  EXPECT_EQ(filter.counters().failed_fixes, 0u);
  ExpectHoldsAll(filter, keys);
}

TYPED_TEST(AcfCuckooingLayouts, DefaultChainsRarelyRebuild) {
  TypeParam filter(Geometry(8, 9));
  const auto keys = Fill(filter, 9);
  const auto flows = UniformKeys(9, KeyStream::kNonMembers, 200000);
  for (int pass = 0; pass < 3; ++pass) {
    for (std::uint64_t q : flows) filter.query_and_adapt(q);
  }
  EXPECT_GT(filter.counters().adaptations, 3000u);
  EXPECT_LE(filter.counters().rebuilds, filter.counters().adaptations / 100);
  ExpectHoldsAll(filter, keys);
}

// Past the load the layout can reach, inserts are refused, counted, and undone: the keys
// already in are all still there and nothing loops.
TYPED_TEST(AcfEveryKind, OverfullInsertsAreRefusedNotLooped) {
  AcfParams p = Geometry(10, 10);
  p.slots = 4096;
  p.max_kicks = 100;
  TypeParam filter(p);
  const auto keys = UniformKeys(10, KeyStream::kMembers, 4096);
  std::vector<std::uint64_t> held;
  for (std::uint64_t k : keys) {
    if (filter.insert(k)) held.push_back(k);
  }
  EXPECT_GT(filter.counters().insert_failures, 0u);
  EXPECT_EQ(held.size() + filter.counters().insert_failures, keys.size());
  ExpectHoldsAll(filter, held);
}

TEST(AcfParamsCheck, RejectsImpossibleGeometry) {
  AcfParams p = Geometry(8, 1);
  p.selector_bits = 7;
  EXPECT_NE(AcfCyclic::Invalid(p), "");
  p.selector_bits = 4;
  p.bits_per_slot = 6;
  EXPECT_EQ(AcfCyclic::Invalid(p), "");  // 2 fingerprint bits left
  p.bits_per_slot = 5;
  EXPECT_NE(AcfCyclic::Invalid(p), "");  // 1 left
  p.bits_per_slot = 8;
  p.selector_bits = 2;
  EXPECT_NE(AcfSwapping::Invalid(p), "");  // no selector bits in a swapping ACF
  p.selector_bits = -1;
  p.bits_per_slot = 3;
  EXPECT_NE(Cuckoo4x1::Invalid(p), "");
  p.bits_per_slot = 33;
  EXPECT_NE(AcfCuckooing::Invalid(p), "");
  EXPECT_THROW(AcfCuckooing{p}, std::invalid_argument);
}

TEST(AcfParamsCheck, SizingFromFilterParams) {
  FilterParams fp;
  fp.capacity = 1000;
  fp.target_fpr = 0.01;
  EXPECT_EQ(AcfCuckooing(fp).bits_per_slot(), 9);  // ceil(log2(4 / 0.01))
  EXPECT_EQ(Cuckoo2x4(fp).bits_per_slot(), 10);    // ceil(log2(8 / 0.01))
  EXPECT_EQ(AcfCyclic(fp).bits_per_slot(), 11);    // + 2 selector bits
  EXPECT_GE(AcfCyclic(fp).slots(), 1000 / 0.95);
  fp.target_fpr = 0;
  fp.bits_per_key = 12;
  EXPECT_EQ(Cuckoo4x1(fp).bits_per_slot(), 11);  // floor(12 * 0.95)
  fp.capacity = 0;
  EXPECT_EQ(Cuckoo4x1(fp).slots(), 4u);
}

TEST(AcfCyclicRanges, CodeSpaceSplit) {
  AcfCyclicRanges filter(Geometry(8, 1));
  // The JEA paper's split at skew 1: selector 0 owns 2^(8-1) codes, selectors 1..4 2^(8-3).
  EXPECT_NEAR(filter.fingerprint_bits(), 7.0, 1e-12);
  for (std::uint64_t v = 1; v < 256; ++v) {
    const int expected = v < 128 ? 0 : 1 + static_cast<int>((v - 128) / 32);
    ASSERT_EQ(filter.selector_of_code(v), expected) << v;
  }
  AcfCyclic plain(Geometry(8, 1));
  EXPECT_EQ(plain.fingerprint_bits(), 6);
}

// A fix moves the slot to the next of the 2^s + 1 selectors, so a slot fixed five times at
// s = 2 is back at selector 0 (a power-of-two wrap would skip selector 4).
TEST(AcfCyclicRanges, FixesCycleThroughAllFiveSelectors) {
  AcfCyclicRanges filter(Geometry(8, 3));
  ASSERT_TRUE(filter.insert(42));
  std::size_t slot = 0;
  while (filter.slot_value(slot) == 0) ++slot;
  std::vector<int> selectors{filter.selector_of_code(filter.slot_value(slot))};
  for (std::uint64_t q = 1000; selectors.size() < 11; ++q) {
    if (filter.query_and_adapt(q).answer == AcfAnswer::kFalsePositive) {
      selectors.push_back(filter.selector_of_code(filter.slot_value(slot)));
    }
  }
  EXPECT_EQ(selectors, (std::vector<int>{0, 1, 2, 3, 4, 0, 1, 2, 3, 4, 0}));
  EXPECT_TRUE(filter.contains(42));
}

}  // namespace
}  // namespace amq
