// filters/adversarial_test.cc - issue 12: every filter in filters/all.h against key sets built
// to hurt it (workloads/adversarial.h). For each set the filter either
//   built:   holds every key it accepted (zero false negatives) and answers uniform non-members
//            at or below the binomial upper bound around its own theory FPR (an upper bound
//            only: keys piled onto a few fingerprints or bits legitimately give a lower FPR), or
//   refused: an insert returned false or the static build threw BuildFailed with its reason -
//            and the keys it did accept are still all found.
// A crash, a hang, another exception, or a key reported inserted and then not found fails.
// The structural sets also bring their own non-members (the sequence continued, two-bit
// neighbours, the other multiples), held to the same bound.
// Where the design fixes the outcome it is asserted (Prediction below): a cuckoo filter holds
// exactly 2b copies of one (bucket, fingerprint); an adaptive cuckoo filter whose keys share a
// table-0 bucket holds at most (d-1)/d of its slots plus b; a quotient filter sized for n never
// refuses; the RSQF refuses a run pushed past its last overflow slot; a Bloom filter never
// refuses; a static filter loses at most the attempt the set was aimed at.
//
// One exception to "within the FPR bound", by design, not a bug: a BLOCKED Bloom filter
// (blocked_bloom, blocked_bloom256, RocksDB's FastLocalBloom) whose keys all land in one block saturates
// that block, and a non-member hashed there always passes: the FPR becomes ~ 1/blocks, above
// the theory that assumes keys spread over blocks. The test asserts that (so the table says
// it), and bounds the FPR by the fraction of non-empty blocks instead: a query reaching an
// empty block is always rejected.
//
// A second exception, found here: LevelDB's own hash gives keys that differ only in the top 12
// bits of their high word at most 2^12 hashes, so with the multiples of 2^52 as members the
// other multiples pass ~95% of the time (uniform non-members stay within the bound). The test
// asserts it as LevelDB's property; the wrapper measures LevelDB as it is (see Predict).
//
// The hash-targeted sets need the seed, like any attacker of a keyed hash: they model a leaked
// or published seed. Each family's fields (which hash bits are its bucket, its fingerprint) are
// listed in workloads/adversarial.h; Aim checks below confirm, on the filter itself, that a set
// hits the field it names (same quotient, same block, same table-0 bucket, ...).
//
// Each test prints its filter's outcomes, one line per set, for the closing table.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <type_traits>
#include <unordered_set>
#include <vector>

#include "core/stats.h"
#include "filters/all.h"
#include "filters/test_params.h"
#include "harness/cell/kernels.h"
#include "workloads/adversarial.h"
#include "workloads/uniform.h"

#ifdef AMQ_HAVE_ROCKSDB
namespace rocksdb {
// RocksDB's filter key hash (util/hash.h), exported by librocksdb though not in its public
// headers: the reference RocksDbKeyHash (our copy of XXPH3) is checked against.
std::uint64_t Hash64(const char* data, std::size_t n);
}  // namespace rocksdb
#endif

namespace amq {
namespace {

constexpr std::uint64_t kFilterSeed = 7;
constexpr std::size_t kTargetedKeys = 1024;
// The value the "random" targeted sets fix their bits to (the _zero and _ones sets use 0, ~0).
constexpr std::uint64_t kFieldValue = 0x7c3a95e1d24b6f08ULL;

FilterParams ParamsFor(std::size_t n) {
  FilterParams p;
  p.capacity = n;
  p.target_fpr = 0.01;
  p.seed = kFilterSeed;
  return p;
}

// ---- Which filter is which ----

template <class F> constexpr bool kIsCuckoo = false;
template <int b, int s, CuckooInsert r> constexpr bool kIsCuckoo<Cuckoo<b, s, r>> = true;
// The semi-sorted cuckoo filter has cuckoo's hash fields; only its bucket layout differs.
template <class F> constexpr bool kIsSemiSortCuckoo = false;
template <int f> constexpr bool kIsSemiSortCuckoo<CuckooSemiSort<f>> = true;
template <int f> constexpr bool kIsCuckoo<CuckooSemiSort<f>> = true;
template <class F> constexpr bool kIsXor = false;
template <int b> constexpr bool kIsXor<Xor<b>> = true;
template <int b> constexpr bool kIsXor<XorPlus<b>> = true;  // XOR's hash fields
template <class F> constexpr int kFuseArity = 0;
template <int b, int a, FuseSizing s> constexpr int kFuseArity<BinaryFuse<b, a, s>> = a;
template <class F> constexpr bool kIsFuse = kFuseArity<F> != 0;
template <class F> constexpr bool kIsRibbon = false;
template <int w, bool homogeneous> constexpr bool kIsRibbon<Ribbon<w, homogeneous>> = true;
template <class F> constexpr bool kIsHomogRibbon = false;
template <int w> constexpr bool kIsHomogRibbon<Ribbon<w, true>> = true;
template <> constexpr bool kIsRibbon<RibbonFrac> = true;
template <class F> constexpr bool kIsBumpedRibbon = std::is_same_v<F, BumpedRibbon>;
template <class F> constexpr bool kIsAcf = false;
template <AcfKind k> constexpr bool kIsAcf<AdaptiveCuckoo<k>> = true;
template <class F> constexpr bool kIsPrefix = false;
template <PrefixSpare s> constexpr bool kIsPrefix<PrefixFilter<s>> = true;
template <class F> constexpr bool kIsVqf = false;
template <int r, VqfPath path> constexpr bool kIsVqf<Vqf<r, path>> = true;
template <class F>
constexpr bool kIsQuotientFamily =
    std::is_same_v<F, QuotientFilter> || std::is_same_v<F, Rsqf> || std::is_same_v<F, Cqf>;
template <class F> constexpr bool kIsNativeStatic =
    kIsXor<F> || kIsFuse<F> || kIsRibbon<F> || kIsBumpedRibbon<F>;

template <class F>
constexpr bool IsLevelDb() {
#ifdef AMQ_HAVE_LEVELDB
  return std::is_same_v<F, LevelDbBloom>;
#else
  return false;
#endif
}
template <class F>
constexpr bool IsRocksDbBloom() {
#ifdef AMQ_HAVE_ROCKSDB
  return std::is_same_v<F, RocksDbBloom>;
#else
  return false;
#endif
}
template <class F>
constexpr bool IsRocksDbRibbon() {
#ifdef AMQ_HAVE_ROCKSDB
  return std::is_same_v<F, RocksDbRibbon>;
#else
  return false;
#endif
}
template <class F>
constexpr bool kIsBloomLike = std::is_same_v<F, Bloom> || std::is_same_v<F, BlockedBloom> ||
                              std::is_same_v<F, BlockedBloom256> ||
                              std::is_same_v<F, CountingBloom> || IsLevelDb<F>() ||
                              IsRocksDbBloom<F>();
// Blocked Bloom filters whose same-block sets overload one block (see the top of the file),
// and their block's size in bytes.
template <class F>
constexpr bool kIsBlockedBloom = std::is_same_v<F, BlockedBloom> ||
                                 std::is_same_v<F, BlockedBloom256> || IsRocksDbBloom<F>();
template <class F>
constexpr std::size_t kBlockBytes = std::is_same_v<F, BlockedBloom256> ? 32 : 64;

int CeilLog2(std::uint64_t x) { return x <= 1 ? 0 : std::bit_width(x - 1); }

// ---- The sets ----

struct KeySet {
  std::string name;
  std::vector<std::uint64_t> keys;
  std::string not_applicable;  // non-empty: why this filter gets no such set
  // Non-members of the same pattern (the sequence continued, two-bit neighbours, ...): the
  // queries a weak hash confuses with the members. Empty for the hash-targeted sets.
  std::vector<std::uint64_t> pattern_negatives;
};

// The same for every filter: no hash knowledge, just the patterns of issue 12, each with its
// own non-members besides the uniform ones.
std::vector<KeySet> StructuralSets() {
  const std::vector<std::uint64_t> flips = OneBitNeighbours(8, 21);
  std::vector<std::uint64_t> bases;
  for (std::size_t b = 0; b < flips.size(); b += 65) bases.push_back(flips[b]);
  const std::uint64_t start = SpreadSeed(22);
  const std::vector<std::uint64_t> multiples = PowerOfTwoMultiples(4096, 52);
  return {{"one_bit_flips", flips, "", TwoBitNeighbours(bases)},
          {"sequential", SequentialKeys(2048, start), "", SequentialKeys(4096, start + 2048)},
          {"zero_ones_nbrs", ZeroOnesNeighbours(), "", TwoBitNeighbours({0, ~0ULL})},
          {"pow2_multiples", {multiples.begin(), multiples.begin() + 2048}, "",
           {multiples.begin() + 2048, multiples.end()}}};
}

// The targeted sets, in this order for every filter: the index field fixed (to a random value,
// to 0, to all ones: the first and the last bucket / quotient / block), the fingerprint field
// fixed, and both fixed (again random, 0, all ones).
const std::vector<std::string> kTargetedNames = {
    "index", "index_zero", "index_ones", "fingerprint", "index_fp", "index_fp_zero",
    "index_fp_ones"};
const std::uint64_t kTargetedValues[] = {kFieldValue, 0, ~0ULL, kFieldValue,
                                         kFieldValue, 0, ~0ULL};

// A family that reads fixed fields of one hash word: the masks of its index field, its
// fingerprint field (0: none that fixed bits can reach) and both together.
struct Fields {
  Preimage preimage;
  std::uint64_t index = 0, fingerprint = 0, both = 0;
  std::string fingerprint_na, both_na;
};

std::vector<KeySet> FromFields(const Fields& f) {
  std::vector<KeySet> sets;
  for (std::size_t i = 0; i < kTargetedNames.size(); ++i) {
    const std::string& name = kTargetedNames[i];
    const bool fingerprint_only = name == "fingerprint";
    const bool both = name.starts_with("index_fp");
    const std::uint64_t mask = fingerprint_only ? f.fingerprint : both ? f.both : f.index;
    KeySet set{name, {}, "", {}};
    if (mask == 0) {
      set.not_applicable = fingerprint_only ? f.fingerprint_na : f.both_na;
    } else {
      set.keys = KeysWithFixedBits(kTargetedKeys, f.preimage, mask, kTargetedValues[i],
                                   kFilterSeed + i);
    }
    sets.push_back(std::move(set));
  }
  return sets;
}

Preimage HashKeyPreimage(std::uint64_t spread_seed) {
  return [spread_seed](std::uint64_t h) { return KeyWithHash(h, spread_seed); };
}

// Fixed bits for a ReduceRange field of `range` values: 8 bits beyond log2(range), so a set
// straddles two neighbouring values with probability <= 1/256 (and never for 0 or all ones).
std::uint64_t TopField(std::uint64_t range) { return TopBitsMask(CeilLog2(range) + 8); }

constexpr const char* kMixedFingerprint =
    "the fingerprint is the top bits of an odd multiple of the whole hash: no fixed bits pin it";

// The peeled filters' k-bit fingerprint folds the hash's low k bits with its bits 32 up
// (static_detail::FoldedFingerprintOf): fixing both fields fixes it.
template <class F>
std::uint64_t FoldedFingerprintField(const FilterParams& p) {
  const int k = F::build(UniformKeys(1, KeyStream::kMembers, kTargetedKeys), p).fingerprint_bits();
  return LowBitsMask(k) | (LowBitsMask(k) << 32);
}

// Adaptive cuckoo filters mix h = HashKey(key) again: table t's bucket is the top bits of
// MurmurMix64(h + kBucketSalt (t + 1)), the fingerprint (variant 0: every kind but a
// swapping slot at positions 1..3) the top bits of MurmurMix64(h ^ kFingerprintSalt). The salts
// are filters/acf.h's; Aim checks the bucket through candidate_slot(). Bucket and fingerprint
// come from two different mixes, so "both" is a bounded search: keys with the fingerprint word
// fixed by inversion, kept when the filter's own candidate_slot() puts them in the wanted
// table-0 bucket (about one in `buckets per table` = a few hundred tries per key).
constexpr std::uint64_t kAcfBucketSalt = 0x9e3779b97f4a7c15ULL;
constexpr std::uint64_t kAcfFingerprintSalt = 0xc2b2ae3d27d4eb4fULL;

template <class F>
std::vector<KeySet> AcfSets(const FilterParams& p, std::uint64_t spread) {
  const Preimage bucket0 = [spread](std::uint64_t w) {
    return KeyWithHash(InverseMurmurMix64(w) - kAcfBucketSalt, spread);
  };
  const Preimage fingerprint0 = [spread](std::uint64_t g) {
    return KeyWithHash(InverseMurmurMix64(g) ^ kAcfFingerprintSalt, spread);
  };
  // 32 fixed bits: more than log2 of any bucket count or code range here, plus 8.
  const std::uint64_t field = TopBitsMask(32);
  const F empty(p);
  std::vector<KeySet> sets;
  for (std::size_t i = 0; i < kTargetedNames.size(); ++i) {
    const std::string& name = kTargetedNames[i];
    const std::uint64_t value = kTargetedValues[i];
    const std::uint64_t seed = kFilterSeed + i;
    KeySet set{name, {}, "", {}};
    if (name == "fingerprint") {
      set.keys = KeysWithFixedBits(kTargetedKeys, fingerprint0, field, value, seed);
    } else if (name.starts_with("index_fp")) {
      const std::size_t wanted = empty.candidate_slot(bucket0(value), 0);
      set.keys = SearchKeys(
          kTargetedKeys, std::uint64_t{kTargetedKeys} << 16,
          [&](std::uint64_t j) { return fingerprint0(WordWithFixedBits(j, field, value, seed)); },
          [&](std::uint64_t key) { return empty.candidate_slot(key, 0) == wanted; });
    } else {
      set.keys = KeysWithFixedBits(kTargetedKeys, bucket0, field, value, seed);
    }
    sets.push_back(std::move(set));
  }
  return sets;
}

#ifdef AMQ_HAVE_LEVELDB
// LevelDB probes (h + j delta) mod m with one 32-bit hash h. Index: every key's h is the same
// mod m (first probe shared, step free). Both: every key has the same h - a full 32-bit
// collision, so every key sets the same k bits. No fingerprint.
std::size_t LevelDbBits(const FilterParams& p, std::size_t n) {
  const std::size_t bits = std::max<std::size_t>(64, n * LevelDbBloom::BitsPerKeyFor(p));
  return (bits + 7) / 8 * 8;
}

template <class F>
std::vector<KeySet> LevelDbSets(const FilterParams& p) {
  const std::uint64_t mask = SpreadSeed(kFilterSeed);
  const auto m = static_cast<std::uint32_t>(LevelDbBits(p, kTargetedKeys));
  std::vector<KeySet> sets;
  for (std::size_t i = 0; i < kTargetedNames.size(); ++i) {
    const std::string& name = kTargetedNames[i];
    KeySet set{name, {}, "", {}};
    const auto h = static_cast<std::uint32_t>(kTargetedValues[i]);
    if (name == "fingerprint") {
      set.not_applicable = "a Bloom filter has no fingerprint; its probe step is a function of "
                           "the same 32-bit hash (the index_fp sets share both)";
    } else if (name.starts_with("index_fp")) {
      set.keys = LevelDbKeysWithHashes(kTargetedKeys, mask, [h](std::size_t) { return h; },
                                       kFilterSeed + i);
    } else {
      const std::uint32_t first = name == "index" ? h % m : name == "index_zero" ? 0 : m - 1;
      set.keys = LevelDbKeysWithHashes(
          kTargetedKeys, mask,
          [first, m](std::size_t j) { return first + static_cast<std::uint32_t>(j) * m; },
          kFilterSeed + i);
    }
    sets.push_back(std::move(set));
  }
  return sets;
}
#else
template <class F>
std::vector<KeySet> LevelDbSets(const FilterParams&) { return {}; }
#endif

// RocksDB's FastLocalBloom picks the block from the low 32 bits of XXPH3 (FastRange32), and
// XXPH3 is not inverted here: a bounded search keeps uniform keys whose low word has the
// wanted top 10 bits (1 in 1024), which is one block (or two neighbours) for up to 2^10 blocks.
// Matching the in-block probes too (the high 32 bits) would take ~2^32 tries per key.
std::vector<KeySet> RocksDbBloomSets() {
  constexpr std::uint64_t mask = SpreadSeed(kFilterSeed);
  std::vector<KeySet> sets;
  for (std::size_t i = 0; i < kTargetedNames.size(); ++i) {
    const std::string& name = kTargetedNames[i];
    KeySet set{name, {}, "", {}};
    if (name == "fingerprint" || name.starts_with("index_fp")) {
      set.not_applicable = "in-block probes come from XXPH3's high 32 bits: ~2^32 tries per key";
    } else {
      const std::uint64_t wanted = kTargetedValues[i] >> 54;  // 10 bits
      set.keys = SearchKeys(
          kTargetedKeys, kTargetedKeys * 1024 * 16,
          [i](std::uint64_t j) { return UniformKey(100 + i, KeyStream::kMembers, j); },
          [wanted](std::uint64_t key) {
            return ((RocksDbKeyHash(key, mask) & 0xffffffffULL) >> 22) == wanted;
          });
    }
    sets.push_back(std::move(set));
  }
  return sets;
}

template <class F>
std::vector<KeySet> TargetedSets() {
  const FilterParams p = ParamsFor(kTargetedKeys);
  const std::uint64_t spread = SpreadSeed(kFilterSeed);
  if constexpr (std::is_same_v<F, Bloom>) {
    // "fingerprint" for a Bloom filter: the probe step b = rotl(h, 32) | 1, whose top bits are
    // h's bits 31 down. Index and step both fixed: every key probes the same k bits.
    const std::uint64_t index = TopField(Bloom(p).size_in_bytes() * 8);
    return FromFields({HashKeyPreimage(spread), index, index >> 32, index | (index >> 32), "", ""});
  } else if constexpr (std::is_same_v<F, CountingBloom>) {
    // Probe 0 is the hash's high half: its word from the top bits, its counter in the word from
    // bits 32-35; the step is the low half. Index and step both fixed: every key probes the same
    // k counters (they saturate).
    const std::uint64_t index = TopField(CountingBloom(p).size_in_bytes() / 8) | (std::uint64_t{0xf} << 32);
    return FromFields({HashKeyPreimage(spread), index, LowBitsMask(32), index | LowBitsMask(32), "", ""});
  } else if constexpr (std::is_same_v<F, BlockedBloom> || std::is_same_v<F, BlockedBloom256>) {
    const std::uint64_t index = TopField(F(p).size_in_bytes() / kBlockBytes<F>);
    return FromFields({HashKeyPreimage(spread), index, LowBitsMask(32), index | LowBitsMask(32),
                       "", ""});
  } else if constexpr (kIsCuckoo<F>) {
    const F empty(p);
    const std::uint64_t bucket = LowBitsMask(CeilLog2(empty.buckets()));
    const std::uint64_t fingerprint = TopBitsMask(empty.fingerprint_bits() + 8);
    return FromFields({HashKeyPreimage(spread), bucket, fingerprint, bucket | fingerprint, "", ""});
  } else if constexpr (kIsQuotientFamily<F>) {
    const F empty(p);
    const int q = empty.quotient_bits(), r = empty.remainder_bits();
    const std::uint64_t quotient = TopBitsMask(q), remainder = TopBitsMask(q + r) & ~quotient;
    return FromFields({HashKeyPreimage(spread), quotient, remainder, quotient | remainder, "", ""});
  } else if constexpr (kIsXor<F>) {
    const std::uint64_t p0 = TopField(F::SlotsFor(kTargetedKeys) / 3);
    // "Index": all three positions, so attempt 0 cannot peel; "both": p0 and the fingerprint
    // (all three positions and the fingerprint would leave fewer than the 10 free bits that
    // keep 1024 keys distinct).
    const std::uint64_t fingerprint = FoldedFingerprintField<F>(p);
    return FromFields({HashKeyPreimage(static_detail::AttemptSeed(kFilterSeed, 0)),
                       p0 | std::rotr(p0, 21) | std::rotr(p0, 42), fingerprint, p0 | fingerprint,
                       "", ""});
  } else if constexpr (kIsFuse<F>) {
    // As XOR's: "index" every position (h0 and the offsets), "both" h0 and the fingerprint.
    const fuse_detail::Geometry g = fuse_detail::GeometryFor(kTargetedKeys, kFuseArity<F>);
    const std::uint64_t h0 = TopField(std::uint64_t{g.segment_count} * g.segment_length);
    const std::uint64_t offset = LowBitsMask(std::countr_zero(g.segment_length));
    const std::uint64_t offsets =
        offset | (offset << 18) | (kFuseArity<F> == 4 ? offset << 32 : 0);
    const std::uint64_t fingerprint = FoldedFingerprintField<F>(p);
    return FromFields({HashKeyPreimage(static_detail::AttemptSeed(kFilterSeed, 0)), h0 | offsets,
                       fingerprint, h0 | fingerprint, "", ""});
  } else if constexpr (kIsRibbon<F>) {
    double overhead = F::kOverhead;
    if constexpr (kIsHomogRibbon<F>) overhead = F::OverheadFor(F::ResultBitsFor(p));
    const std::uint64_t start =
        TopField(F::SlotsFor(kTargetedKeys, overhead) - F::kRibbonWidth + 1);
    return FromFields({HashKeyPreimage(static_detail::AttemptSeed(kFilterSeed, 0)), start, 0, 0,
                       kMixedFingerprint,
                       "the start is the only field fixed bits reach (coefficients and result "
                       "bits are multiples of the whole hash): the index sets are that"});
  } else if constexpr (kIsBumpedRibbon<F>) {
    // The first layer's start (its top bits also give the bucket); later layers rehash.
    const std::uint64_t start =
        TopField(F::BucketsFor(kTargetedKeys, F::kLoad) * bumped_ribbon_detail::kBucketSlots);
    return FromFields({HashKeyPreimage(static_detail::AttemptSeed(kFilterSeed, 0)), start, 0, 0,
                       kMixedFingerprint,
                       "the first layer's start is the only field fixed bits reach; its bucket "
                       "overflows and bumps its keys to the next layer, hashed anew"});
  } else if constexpr (std::is_same_v<F, Gcs>) {
    // Bucket b = the top bits of h B; with 1024 keys B = 32, a power of two, so the offset in the
    // bucket, ReduceRange(h B mod 2^64, W), is the next log2(W) bits of h: the "fingerprint".
    const Gcs sized = Gcs::build(UniformKeys(1, KeyStream::kMembers, kTargetedKeys), p);
    const int bucket_bits = std::countr_zero(sized.buckets());
    EXPECT_EQ(sized.buckets(), std::uint64_t{1} << bucket_bits);
    const std::uint64_t bucket = TopField(sized.buckets());
    const std::uint64_t offset =
        TopBitsMask(bucket_bits + CeilLog2(sized.bucket_width()) + 8) & ~TopBitsMask(bucket_bits);
    return FromFields({HashKeyPreimage(static_detail::AttemptSeed(kFilterSeed, 0)), bucket, offset,
                       bucket | offset, "", ""});
  } else if constexpr (kIsPrefix<F>) {
    // Bin: the top bits (ReduceRange); fingerprint: the top bits of the low 32 (bits 31..11
    // fix it, with 8 to spare).
    const std::uint64_t bin = TopField(F(p).bins());
    const std::uint64_t fingerprint = LowBitsMask(32) & ~LowBitsMask(11);
    return FromFields({HashKeyPreimage(spread), bin, fingerprint, bin | fingerprint, "", ""});
  } else if constexpr (std::is_same_v<F, Morton>) {
    // Bucket: the top bits (ReduceRange). Fingerprint: the low 8 bits.
    const std::uint64_t bucket = TopField(Morton(p).buckets());
    return FromFields({HashKeyPreimage(spread), bucket, LowBitsMask(8), bucket | LowBitsMask(8), "", ""});
  } else if constexpr (kIsVqf<F>) {
    // First block from h's top 32 bits; tag and bucket from the low 32 (the second block is a
    // function of the first, bucket and tag): "index_fp" gives every key the same two blocks.
    const std::uint64_t block = TopField(F(p).blocks());
    return FromFields({HashKeyPreimage(spread), block, LowBitsMask(32), block | LowBitsMask(32), "", ""});
  } else if constexpr (kIsAcf<F>) {
    return AcfSets<F>(p, spread);
  } else if constexpr (IsLevelDb<F>()) {
    return LevelDbSets<F>(p);
  } else if constexpr (IsRocksDbBloom<F>()) {
    return RocksDbBloomSets();
  } else {
    static_assert(IsRocksDbRibbon<F>(), "a new filter needs its hash fields described here");
    std::vector<KeySet> sets;
    for (const std::string& name : kTargetedNames) {
      sets.push_back({name,
                      {},
                      "Standard128Ribbon re-mixes RocksDB's hash with a seed its builder picks, "
                      "and picks anew when banding fails",
                      {}});
    }
    return sets;
  }
}

// ---- What the design predicts ----

struct Prediction {
  bool never_refuses = false;                 // every key accepted, no BuildFailed
  std::optional<std::size_t> accepts_exactly;  // e.g. 2b copies of one cuckoo (bucket, fp)
  bool must_refuse = false;
  int min_attempts = 0;          // static filters: the aimed-at attempt 0 must have failed
  bool fpr_above_theory = false;  // a blocked Bloom filter with one overloaded block
  bool pattern_fpr_above_theory = false;  // LevelDB's hash on keys differing in high bits only
};

template <class F>
Prediction Predict(const std::string& set) {
  Prediction p;
  const bool targeted_index = set.starts_with("index");
  if constexpr (kIsBloomLike<F>) {
    p.never_refuses = true;
    // LevelDB's hash ends with x = (h + w) m, h = x ^ (x >> 16) on the key's high 32-bit word
    // w: a change confined to w's top 12 bits stays in x's top 12 bits, so it moves only h's
    // bits 20..31 and (through the shift) 4..15: the multiples of 2^52 have at most 2^12
    // hashes among them. With 2048 of
    // them as members, most other multiples share a member's hash and pass (~95%), while
    // uniform non-members stay within the bound. A property of LevelDB's hash on this
    // encoding, found by this test; documented, not fixed (the wrapper measures LevelDB as is).
    p.pattern_fpr_above_theory = IsLevelDb<F>() && set == "pow2_multiples";
    // The index sets put every key in one block. Not the index_fp sets: there every key
    // also sets the same 8 bits, so the block stays nearly empty.
    p.fpr_above_theory = kIsBlockedBloom<F> && targeted_index && !set.starts_with("index_fp");
  } else if constexpr (kIsNativeStatic<F>) {
    p.never_refuses = true;
    // Every index set puts all 1024 keys on one slot (XOR, fuse: a slot's 6-bit key count
    // overflows) or one start (Ribbon: 1024 equations in 128 columns): attempt 0 cannot work.
    // Homogeneous Ribbon has no failing attempt: its equations are always consistent.
    // Bumped Ribbon has none either: an overflowing bucket bumps its keys to the next layer.
    if (targeted_index && !kIsHomogRibbon<F> && !kIsBumpedRibbon<F>) p.min_attempts = 2;
  } else if constexpr (IsRocksDbRibbon<F>()) {
    p.never_refuses = true;
  } else if constexpr (std::is_same_v<F, Gcs>) {
    // All 1024 keys in one bucket take ~1024 codes of 7 bits or one value repeated: far below
    // a group's 2^14-bit offsets, so attempt 0 holds them.
    p.never_refuses = true;
  } else if constexpr (kIsCuckoo<F>) {
    // One bucket pair and one fingerprint: 4 copies in each bucket, then nowhere to go.
    if (set.starts_with("index_fp")) p.accepts_exactly = 2 * F::kSlotsPerBucket;
  } else if constexpr (std::is_same_v<F, Morton>) {
    // One bucket and one fingerprint: 3 copies in the bucket, 3 in its one alternate. One bucket
    // alone: its 3 slots and 3 in each of the 256 alternates at most, 771 < 1024.
    if (set.starts_with("index_fp")) {
      p.accepts_exactly = 6;
    } else if (targeted_index) {
      p.must_refuse = true;
    }
  } else if constexpr (std::is_same_v<F, QuotientFilter>) {
    p.never_refuses = true;  // 2^q >= n / 0.9 slots, circular: room for every key
  } else if constexpr (std::is_same_v<F, Rsqf>) {
    // A run of 1024 from the last quotient has only the overflow slots (~200) to go to; from
    // quotient 0 it fits.
    if (set == "index_ones" || set == "index_fp_ones") p.must_refuse = true;
    if (set == "index_zero" || set == "index_fp_zero") p.never_refuses = true;
  } else if constexpr (std::is_same_v<F, Cqf>) {
    // One fingerprint 1024 times is one counter: a handful of slots, wherever it sits.
    if (set.starts_with("index_fp")) p.never_refuses = true;
  } else if constexpr (kIsPrefix<F>) {
    // One bin and one fingerprint: 25 copies fill the bin, and the rest equal its maximum,
    // which the bin already answers: nothing reaches the spare. One bin alone: 25 keys stay,
    // ~1000 go to a spare sized for ~100, which a table refuses and a Bloom filter absorbs.
    if (set.starts_with("index_fp")) {
      p.never_refuses = true;
    } else if (targeted_index) {
      p.never_refuses = F::kName == "prefix_blocked_bloom";
      p.must_refuse = !p.never_refuses;
    }
  } else if constexpr (kIsAcf<F>) {
    // One shared table-0 bucket: its b slots plus the other d - 1 tables, (d - 1)/d of ~1080
    // slots, cannot hold 1024 keys (RunSet checks the exact room).
    if (targeted_index) p.must_refuse = true;
  }
  return p;
}

// ---- Running one set ----

struct Outcome {
  std::string set;
  std::string kind;  // built, refused, build_failed, n/a
  std::size_t keys = 0, refused = 0;
  int attempts = 0;
  std::size_t false_positives = 0, negatives = 0;
  double theory = 0, bound = 0;
  std::string note;
  std::size_t pattern_false_positives = 0, pattern_negatives = 0;
  double pattern_bound = 0;
};

// Uniform non-members, none of them in the set.
std::vector<std::uint64_t> NegativesFor(const std::vector<std::uint64_t>& keys, std::size_t count) {
  const std::unordered_set<std::uint64_t> members(keys.begin(), keys.end());
  std::vector<std::uint64_t> out;
  out.reserve(count);
  for (std::uint64_t i = 0; out.size() < count; ++i) {
    const std::uint64_t q = UniformKey(99, KeyStream::kNonMembers, i);
    if (!members.count(q)) out.push_back(q);
  }
  return out;
}

// How many blocks (of `block` bytes) of a blocked Bloom filter's bit array hold any set bit.
std::size_t NonEmptyBlocks(std::span<const std::uint8_t> bits, std::size_t block = 64) {
  std::size_t non_empty = 0;
  for (std::size_t b = 0; b + block <= bits.size(); b += block) {
    non_empty += std::any_of(bits.begin() + b, bits.begin() + b + block, [](auto x) { return x; });
  }
  return non_empty;
}

template <class F>
int AttemptsOf(const F& f) {
  if constexpr (requires { f.build_attempts(); }) {
    return f.build_attempts();
  } else {
    return 0;
  }
}

// Slot i of a cuckoo table: the `width`-bit field at bit i * width, little-endian
// (filters/bit_packed.h), read byte by byte from the filter's bytes().
std::uint64_t PackedSlot(std::span<const std::uint8_t> bytes, std::size_t i, int width) {
  std::uint64_t value = 0;
  for (int b = 0; b < width; ++b) {
    const std::size_t bit = i * width + b;
    value |= static_cast<std::uint64_t>((bytes[bit / 8] >> (bit % 8)) & 1) << b;
  }
  return value;
}

// The set hits the field it names, on the filter itself (where the filter lets us see it).
template <class F>
void CheckAim(const KeySet& set, const F& f) {
  const std::vector<std::uint64_t>& keys = set.keys;
  if constexpr (kIsCuckoo<F>) {
    const int width = f.fingerprint_bits();
    const std::size_t slots = f.buckets() * F::kSlotsPerBucket;
    const auto slot = [&](std::size_t i) -> std::uint64_t {
      if constexpr (kIsSemiSortCuckoo<F>) {
        return f.bucket_fingerprints(i / F::kSlotsPerBucket)[i % F::kSlotsPerBucket];
      } else {
        return PackedSlot(f.bytes(), i, width);
      }
    };
    if (set.name.starts_with("index")) {
      // Every key tries its bucket i1 first, so i1 - the low bits of the set's value - is full.
      const std::size_t index = (set.name.ends_with("zero")   ? 0
                                 : set.name.ends_with("ones") ? ~0ULL
                                                              : kFieldValue) &
                                (f.buckets() - 1);
      for (int j = 0; j < F::kSlotsPerBucket; ++j) {
        EXPECT_NE(slot(index * F::kSlotsPerBucket + j), 0u)
            << "bucket " << index << " is not full";
      }
    }
    if (set.name == "fingerprint" || set.name.starts_with("index_fp")) {
      std::unordered_set<std::uint64_t> stored;
      for (std::size_t i = 0; i < slots; ++i) {
        if (const std::uint64_t v = slot(i); v != 0) stored.insert(v);
      }
      EXPECT_EQ(stored.size(), 1u) << "fingerprints differ";
    }
  } else if constexpr (kIsQuotientFamily<F>) {
    const auto first = f.Fingerprint(keys[0]);
    for (std::uint64_t key : keys) {
      const auto fp = f.Fingerprint(key);
      if (set.name.starts_with("index")) {
        ASSERT_EQ(fp.first, first.first) << "quotient differs";
      }
      if (set.name.starts_with("index_fp") || set.name == "fingerprint") {
        ASSERT_EQ(fp.second, first.second) << "remainder differs";
      }
    }
    if (set.name == "index_zero") {
      EXPECT_EQ(first.first, 0u);
    }
    if (set.name == "index_ones") {
      EXPECT_EQ(first.first, (1ULL << f.quotient_bits()) - 1);
    }
  } else if constexpr (kIsAcf<F>) {
    if (set.name.starts_with("index")) {
      for (std::uint64_t key : keys) {
        ASSERT_EQ(f.candidate_slot(key, 0), f.candidate_slot(keys[0], 0)) << "table-0 bucket";
      }
    }
  } else if constexpr (kIsVqf<F>) {
    const auto first = f.Locate(keys[0]);
    for (std::uint64_t key : keys) {
      const auto l = f.Locate(key);
      if (set.name.starts_with("index")) {
        ASSERT_EQ(l.first, first.first) << "first block differs";
      }
      if (set.name == "fingerprint" || set.name.starts_with("index_fp")) {
        ASSERT_EQ(l.bucket, first.bucket) << "bucket differs";
        ASSERT_EQ(l.tag, first.tag) << "tag differs";
      }
    }
    if (set.name.starts_with("index_fp")) {
      // One pair of blocks (one block when the pair coincides): exactly its slots are taken.
      const double held = f.load_factor() * static_cast<double>(f.blocks()) * F::kSlots;
      EXPECT_EQ(static_cast<std::size_t>(std::lround(held)),
                (first.first == first.second ? 1u : 2u) * F::kSlots);
    }
  } else if constexpr (kIsBlockedBloom<F>) {
    if (set.name.starts_with("index")) {
      // One block, or two neighbours; RocksDB adds its two range sentinels' blocks.
      const std::size_t allowed = IsRocksDbBloom<F>() ? 4 : 2;
      EXPECT_LE(NonEmptyBlocks(f.bytes(), kBlockBytes<F>), allowed) << "keys spread over blocks";
    }
  } else if constexpr (IsLevelDb<F>()) {
#ifdef AMQ_HAVE_LEVELDB
    if (set.name.starts_with("index_fp")) {
      // One 32-bit hash for all keys: at most k bits set in the whole array.
      std::size_t set_bits = 0;
      const auto bytes = f.bytes();
      for (std::size_t i = 0; i + 1 < bytes.size(); ++i) set_bits += std::popcount(bytes[i]);
      EXPECT_LE(set_bits, static_cast<std::size_t>(f.probes())) << "hashes differ";
    }
    if (set.name.starts_with("index")) {
      EXPECT_EQ(f.bits(), LevelDbBits(ParamsFor(keys.size()), keys.size())) << "m assumed wrong";
    }
#endif
  } else {
    (void)keys;
  }
}

template <class F>
Outcome RunSet(const KeySet& set) {
  Outcome out{set.name, "n/a", set.keys.size(), 0, 0, 0, 0, 0, 0, set.not_applicable, 0, 0, 0};
  if (!set.not_applicable.empty()) return out;
  SCOPED_TRACE(std::string(F::kName) + " / " + set.name);
  const Prediction predicted = Predict<F>(set.name);
  // RocksDB's filters answer through a DB::Get each (microseconds): fewer queries keep the
  // whole test at seconds; the bound scales with the count.
  const std::size_t negatives = LibraryOf<F>() == "rocksdb" ? 20000 : 100000;
  std::optional<Built<F>> built;
  try {
    built.emplace(Build<F>(set.keys, ParamsFor(set.keys.size())));
  } catch (const BuildFailed& e) {
    out.kind = "build_failed";
    out.note = e.what();
    EXPECT_FALSE(predicted.never_refuses) << "refused a build the design always completes";
    return out;
  }
  const F& f = built->filter;
  out.refused = built->failed.size();
  out.kind = out.refused ? "refused" : "built";
  out.attempts = AttemptsOf(f);

  // Zero false negatives over every key the build accepted.
  std::vector<bool> refused(set.keys.size(), false);
  for (std::size_t i : built->failed) refused[i] = true;
  std::size_t missing = 0;
  for (std::size_t i = 0; i < set.keys.size(); ++i) {
    missing += !refused[i] && !f.contains(set.keys[i]);
  }
  EXPECT_EQ(missing, 0u) << "keys reported inserted and then not found";
  if constexpr (requires { f.Validate(); }) {
    EXPECT_EQ(f.Validate(), "");
  }
  if constexpr (requires { f.CheckConsistency(); }) {
    EXPECT_EQ(f.CheckConsistency(), "");
  }
  if constexpr (requires { f.insert_failures(); }) {
    EXPECT_EQ(f.insert_failures(), out.refused);
  }
  CheckAim(set, f);

  // What the design says.
  if (predicted.never_refuses) {
    EXPECT_EQ(out.refused, 0u) << "refused keys it must accept";
  }
  if (predicted.must_refuse) {
    EXPECT_GT(out.refused, 0u) << "accepted keys it has no room for";
  }
  if (predicted.accepts_exactly) {
    EXPECT_EQ(set.keys.size() - out.refused, *predicted.accepts_exactly);
  }
  if constexpr (kIsAcf<F>) {
    if (set.name.starts_with("index")) {
      const std::size_t room = f.slots() / f.tables() * (f.tables() - 1) + F::kSlotsPerBucket;
      EXPECT_LE(set.keys.size() - out.refused, room) << "more keys than one table-0 bucket allows";
    }
  }
  if (predicted.min_attempts) {
    EXPECT_GE(out.attempts, predicted.min_attempts) << "the set did not defeat attempt 0";
  }

  // False positives on uniform non-members.
  const std::vector<std::uint64_t> probes = NegativesFor(set.keys, negatives);
  out.negatives = probes.size();
  out.false_positives = CountContained(f, probes);
  out.theory = f.theory().fpr;
  const double fp = static_cast<double>(out.false_positives);
  const Interval band = BinomialBand(probes.size(), out.theory);
  if (predicted.fpr_above_theory) {
    // The overloaded block passes nearly every query sent to it; the empty blocks none.
    const std::size_t blocks = f.bytes().size() / kBlockBytes<F>;
    const double hot = static_cast<double>(NonEmptyBlocks(f.bytes(), kBlockBytes<F>)) / blocks;
    out.bound = BinomialBand(probes.size(), hot).high / probes.size();
    out.note = "one block overloaded (by design): FPR ~ non-empty blocks / blocks = " +
               std::to_string(hot);
    EXPECT_GT(fp, band.high) << "the same-block set no longer overloads a block";
    EXPECT_LE(fp, BinomialBand(probes.size(), hot).high);
  } else {
    out.bound = band.high / probes.size();
    EXPECT_LE(fp, band.high) << "FPR above the bound around theory " << out.theory;
  }

  // The pattern's own non-members, against the same theory.
  if (!set.pattern_negatives.empty()) {
    out.pattern_negatives = set.pattern_negatives.size();
    out.pattern_false_positives = CountContained(f, set.pattern_negatives);
    const Interval pattern_band = BinomialBand(out.pattern_negatives, out.theory);
    out.pattern_bound = pattern_band.high / out.pattern_negatives;
    const double pattern_fp = static_cast<double>(out.pattern_false_positives);
    if (predicted.pattern_fpr_above_theory) {
      EXPECT_GT(pattern_fp, pattern_band.high) << "LevelDB's hash no longer collapses this pattern";
      out.note = "pattern non-members share members' LevelDB hashes (by LevelDB's design)";
    } else {
      EXPECT_LE(pattern_fp, pattern_band.high) << "pattern non-members pass too often";
    }
  }
  return out;
}

std::string Percent(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f%%", 100 * x);
  return buf;
}

void Print(std::string_view filter, const std::vector<Outcome>& outcomes) {
  std::ostringstream s;
  for (const Outcome& o : outcomes) {
    s << "[adversarial] " << filter << " " << o.set << " (" << o.keys << " keys): " << o.kind;
    if (o.kind == "built" || o.kind == "refused") {
      if (o.refused) s << " " << o.refused << "/" << o.keys;
      if (o.attempts > 1) s << ", " << o.attempts << " attempts";
      s << ", fpr " << Percent(static_cast<double>(o.false_positives) / o.negatives) << " <= "
        << Percent(o.bound) << " (theory " << Percent(o.theory) << ", " << o.negatives
        << " negatives)";
      if (o.pattern_negatives) {
        s << ", pattern fpr "
          << Percent(static_cast<double>(o.pattern_false_positives) / o.pattern_negatives)
          << " <= " << Percent(o.pattern_bound) << " (" << o.pattern_negatives << ")";
      }
    }
    if (!o.note.empty()) s << " - " << o.note;
    s << "\n";
  }
  std::cout << s.str() << std::flush;
}

template <class F>
class Adversarial : public ::testing::Test {};

using AllTypes = Rebind<AllFilters, ::testing::Types>::type;
TYPED_TEST_SUITE(Adversarial, AllTypes, filter_tests::FilterNames);

// One test per filter, not one per kind of set: under ASan each test process costs ~0.2 s
// of start-up alone, and RunSet's trace names the set that fails.
TYPED_TEST(Adversarial, KeySetsBuiltToHurtIt) {
  std::vector<Outcome> outcomes;
  for (const KeySet& set : StructuralSets()) outcomes.push_back(RunSet<TypeParam>(set));
  for (const KeySet& set : TargetedSets<TypeParam>()) outcomes.push_back(RunSet<TypeParam>(set));
  Print(TypeParam::kName, outcomes);
}

// ---- The foreign hashes, checked against the libraries themselves ----

#ifdef AMQ_HAVE_LEVELDB
TEST(AdversarialLevelDb, SolvedCollisionsAreCollisionsInLevelDb) {
  // A filter holding one key says "present" for all keys sharing its 32-bit LevelDB hash, and
  // for a random key only with its (tiny) FPR: so our copy of LevelDB's hash is LevelDB's.
  const std::uint64_t mask = SpreadSeed(kFilterSeed);
  const auto keys = LevelDbKeysWithHashes(
      300, mask, [](std::size_t) { return 0x12345678u; }, 1);
  const auto one = LevelDbBloom::build(std::span(keys).first(1), ParamsFor(1));
  EXPECT_EQ(CountContained(one, keys), keys.size());
  EXPECT_LT(CountContained(one, UniformKeys(3, KeyStream::kNonMembers, 300)), 30u);
}
#endif

#ifdef AMQ_HAVE_ROCKSDB
TEST(AdversarialRocksDb, KeyHashIsRocksDbsHash64) {
  const std::uint64_t mask = SpreadSeed(kFilterSeed);
  for (std::uint64_t key : UniformKeys(4, KeyStream::kMembers, 1000)) {
    char encoded[9];
    rocksdb_detail::EncodeKey(key ^ mask, encoded);
    ASSERT_EQ(RocksDbKeyHash(key, mask), rocksdb::Hash64(encoded, 9)) << key;
  }
}
#endif

}  // namespace
}  // namespace amq
