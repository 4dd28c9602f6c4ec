// filters/bumped_ribbon.h - bumped Ribbon retrieval used as a filter, "BuRR" (P. C. Dillinger,
// L. Hübschle-Schneider, P. Sanders, S. Walzer, "Fast Succinct Retrieval and Approximate
// Membership using Ribbon", SEA 2022, arXiv:2109.01892).
//
// A standard Ribbon (filters/ribbon.h) needs ~14% spare slots at w = 64 so that banding rarely
// meets an inconsistent equation, and a failure costs a whole new attempt. BuRR instead
// overloads the table (more keys than slots) and, where banding gets stuck, "bumps" keys to a
// next, much smaller layer, so every layer is built in one pass and nearly every slot holds a
// pivot. Per layer:
//   - the m = B b + w slots' starts are cut into B buckets of b = 128 starts; a key's start
//     s = ReduceRange(h, B b) lies in bucket s / b (= ReduceRange(h, B)) at offset s mod b;
//   - buckets are banded front to back (filters/ribbon.h's Banding::Insert), each bucket's keys
//     by descending offset; at the first inconsistent key, at offset o, the bucket's threshold
//     becomes the smallest t in {0, 3b/16, 3b/8, b} with t > o: the keys already inserted with
//     offset below t are undone (Banding::Clear, newest first, so no remaining pivot was reduced
//     by them) and every key of the bucket with offset < t is bumped. Keys at a bucket's low
//     offsets are the ones whose rows overlap the previous bucket's spill-over, so bumping them
//     frees most room; the 2-bit code of t per bucket is the paper's 2-bit threshold scheme;
//   - back-substitution as in standard Ribbon; keys at or above their bucket's threshold are
//     answered here: parities == r-bit fingerprint.
// Bumped keys go to the next layer, hashed anew (h' = HashKey(h, next layer's seed)), at the
// same load; after kMaxLayers layers (or once fewer than kMinLayerKeys keys remain) the rest go
// to a standard ribbon64 (with its retries) sized for them. A lookup walks the same chain: the
// first layer whose bucket threshold its offset reaches answers, else the fallback.
//
// Theory, n keys, r result bits, layers l with B_l buckets and m_l = B_l b + w slots, fallback
// m_f slots:
//   FPR      = 2^-r exactly: a non-key is answered by exactly one layer (or the fallback),
//              against an r-bit fingerprint independent of that layer's solution.
//   bits/key = (r (sum m_l + m_f) + 2 sum B_l) / n, as built (theory() reports it; the only
//              rounding in size_in_bytes() is each layer's 2 B_l threshold bits to whole bytes).
// The slot count a layer gets follows from how many keys the previous one bumped, so the
// formula is evaluated on the built layers; the paper's space claim (overhead 0.1-0.5% at
// w = 64) is judged against it in plots/claims.py.
// Load, bucket size and thresholds: each layer gets n_l / (kLoad b) buckets (rounded to nearest,
// at least 1), i.e. kLoad keys per start: overloaded on purpose. The paper's exact constants
// were not at hand, so they were chosen by measurement, total overhead bits/key / r - 1 at
// n = 10^6, r = 8, one seed (a scratch driver over this code, BuildAtLoad):
//   b = 256, {0, b/4, b/2, b}:    load 1.00: 2.31%, 1.02: 2.54%, 1.05: 3.63%
//   b = 256, {0, b/8, b/4, b}:    load 1.00: 1.35%, 1.02: 0.78%, 1.05: 0.57%
//   b = 128, {0, b/8, b/4, b}:    load 1.04: 0.30%, 1.06: 0.27%, 1.08: 0.30%, 1.10: 0.36%
//   b = 128, {0, 3b/16, 3b/8, b}: load 1.04: 0.35%, 1.06: 0.27%, 1.08: 0.24%, 1.10: 0.23%
//   b = 64,  {0, b/4, b/2, b}:    load 1.06: 0.42%, 1.08: 0.41%, 1.10: 0.40%
// Smaller buckets bump fewer needless keys (empty slots fall from 2% to under 0.1%) but pay more
// threshold bits (2/b per start); at b = 128 the thresholds are 0.0156 bits/key of the 0.24%
// (0.195% of r = 8), the empty slots 0.045%. Load 1.08 bumps 7.4% of the keys from layer 1,
// 1.10 gains 0.01% for 9.1%: 1.08 it is. The fallback takes what 4 layers leave (0 to ~200 keys
// at 10^6) at ribbon64's 14% overhead.
// Sizing: --fpr eps gives r = ceil(log2(1/eps)) (--fpr 0.00390625: r = 8); --bits-per-key B
// gives r = floor(B / (1 + kNominalOverhead)); r in 1 .. 32 (ribbon64's clamp).
// A repeated key reduces to 0 = 0 (redundant_rows) wherever it is, never a failure.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "filters/ribbon.h"

namespace amq {

namespace bumped_ribbon_detail {
inline constexpr int kWidth = 64;
inline constexpr std::uint64_t kBucketSlots = 128;
// The 2-bit threshold codes: keys of a bucket with offset < kThresholds[code] are bumped.
// Small steps first: a stuck bucket usually needs only its first few offsets cleared, and every
// offset bumped beyond that leaves slots empty (measured below kLoad).
inline constexpr std::array<std::uint32_t, 4> kThresholds = {0, 3 * kBucketSlots / 16,
                                                             3 * kBucketSlots / 8, kBucketSlots};
inline constexpr int kMaxLayers = 4;
// Fewer keys than one bucket's worth go straight to the fallback: a layer costs at least one
// bucket plus w slots.
inline constexpr std::size_t kMinLayerKeys = kBucketSlots;

inline constexpr StatSpec kLayersStat{"bumping_layers", "integer", "count",
                                      "bumped Ribbon: bumping layers built (the fallback "
                                      "standard Ribbon not counted)"};
inline constexpr StatSpec kBumpedShareStat{
    "bumped_share", "number", "ratio",
    "bumped Ribbon: share of keys bumped from the first layer (answered by a later one)"};
inline constexpr StatSpec kLayerKeysStat{
    "layer_keys", "object", "keys",
    "bumped Ribbon: keys stored per layer (1, 2, ...) and in the fallback standard Ribbon"};
inline constexpr StatSpec kThresholdBitsStat{
    "threshold_bits_per_key", "number", "bits",
    "bumped Ribbon: bucket threshold metadata (2 bits per bucket) per key"};

// One bumping layer: its hash seed and buckets, and where its solution words and threshold
// codes sit in the filter's one buffer (BumpedRibbon::storage_). `words` and `codes` hold them
// only while the filter is built.
struct Layer {
  std::uint64_t seed = 0;
  std::uint64_t buckets = 1;
  std::size_t keys = 0;               // keys answered by this layer (stored or redundant)
  std::size_t words_at = 0;           // index of its first word in the buffer
  std::size_t codes_at = 0;           // byte index of its first threshold code in the buffer
  std::vector<std::uint64_t> words;   // r column words per block of w slots, then a pad block
  std::vector<std::uint8_t> codes;    // 2-bit threshold codes, 4 buckets per byte

  std::size_t slots() const { return buckets * kBucketSlots + kWidth; }
  std::uint64_t starts() const { return buckets * kBucketSlots; }
  std::size_t code_bytes() const { return (buckets + 3) / 4; }
  std::size_t size_in_bytes(int r) const { return slots() / 8 * r + code_bytes(); }
};

// Whether a layer whose codes start at `codes` answers a key whose start there is s: its offset
// in its bucket reaches the bucket's threshold.
inline bool Answers(const std::uint8_t* codes, std::uint64_t s) {
  const std::uint64_t bucket = s / kBucketSlots;
  const int code = (codes[bucket >> 2] >> ((bucket & 3) * 2)) & 3;
  return s - bucket * kBucketSlots >= kThresholds[code];
}

// Bands `hashes` (the previous layer's hashes, or the keys) into `layer`, whose seed and
// buckets are set, and back-substitutes. Returns the keys it bumped, as this layer's hashes
// (the next layer's keys). Counts repeated keys kept here in `redundant`.
inline std::vector<std::uint64_t> BandLayer(std::span<const std::uint64_t> hashes, Layer& layer,
                                            int r, std::size_t& redundant) {
  using Banding = ribbon_detail::Banding<std::uint64_t, kWidth>;
  Banding banding;
  banding.rows.assign(layer.slots(), 0);
  banding.results.assign(layer.slots(), 0);
  static_detail::HashAndSortByBucket(hashes, layer.seed, layer.buckets, banding.offsets,
                                     banding.sorted);
  layer.codes.assign(layer.code_bytes(), 0);
  std::vector<std::uint64_t> bumped;
  // This bucket's inserted keys in insertion order: offset, and the slot written (or none).
  constexpr std::uint64_t kNoSlot = ~std::uint64_t{0};
  std::vector<std::pair<std::uint32_t, std::uint64_t>> inserted;
  const std::uint64_t starts = layer.starts();
  std::size_t begin = 0;
  for (std::uint64_t bucket = 0; bucket < layer.buckets; ++bucket) {
    // After the counting sort, offsets[bucket] is the end of the bucket's hashes.
    const std::size_t end = banding.offsets[bucket];
    const auto first = banding.sorted.begin() + static_cast<std::ptrdiff_t>(begin);
    const auto last = banding.sorted.begin() + static_cast<std::ptrdiff_t>(end);
    std::sort(first, last, std::greater<>());  // descending start = descending offset
    inserted.clear();
    std::uint32_t threshold = 0;
    int code = 0;
    for (auto it = first; it != last; ++it) {
      const std::uint64_t h = *it;
      const std::uint64_t s = ReduceRange(h, starts);
      const auto offset = static_cast<std::uint32_t>(s - bucket * kBucketSlots);
      const auto result = static_cast<std::uint32_t>(static_detail::FingerprintOf(h, r));
      const auto done = banding.Insert(s, ribbon_detail::CoefficientsOf<std::uint64_t>(h), result);
      if (done.outcome == Banding::Outcome::kInconsistent) {
        while (kThresholds[code] <= offset) ++code;
        threshold = kThresholds[code];
        break;
      }
      inserted.emplace_back(offset,
                            done.outcome == Banding::Outcome::kStored ? done.slot : kNoSlot);
    }
    // Undo, newest first, the inserted keys below the threshold: they are bumped too.
    while (!inserted.empty() && inserted.back().first < threshold) {
      if (inserted.back().second != kNoSlot) banding.Clear(inserted.back().second);
      inserted.pop_back();
    }
    for (const auto& [offset, slot] : inserted) redundant += slot == kNoSlot;
    layer.keys += inserted.size();
    layer.codes[bucket >> 2] |= static_cast<std::uint8_t>(code << ((bucket & 3) * 2));
    // The bumped keys are the bucket's tail (lowest offsets), all with offset < threshold.
    bumped.insert(bumped.end(), first + static_cast<std::ptrdiff_t>(inserted.size()), last);
    begin = end;
  }
  layer.words = ribbon_detail::BackSubstitute(banding, layer.slots(), r,
                                              ribbon_detail::AllColumns{r});
  return bumped;
}
}  // namespace bumped_ribbon_detail

class BumpedRibbon {
  using Layer = bumped_ribbon_detail::Layer;
  static constexpr int kWidth = bumped_ribbon_detail::kWidth;
  static constexpr std::uint64_t kBucketSlots = bumped_ribbon_detail::kBucketSlots;

 public:
  static constexpr int kRibbonWidth = kWidth;
  // Keys per start in every layer: the measured choice (header comment, "Load, bucket size").
  static constexpr double kLoad = 1.08;
  // The overhead --bits-per-key sizing assumes (slots and thresholds, as measured at 10^6).
  static constexpr double kNominalOverhead = 0.0025;
  static constexpr std::string_view kName = "bumped_ribbon";
  static constexpr std::string_view kFamily = "ribbon";
  // Micro-benchmarked at FastFilter's BalancedRibbon64Pack_8 (r = 8). harness/cell/micro_size.h.
  static constexpr double kMicroTargetFpr = 1.0 / 256;
  static constexpr std::string_view kParameters =
      "BuRR; w = 64; buckets of b = 128 starts, 2-bit thresholds {0, 3b/16, 3b/8, b}; each "
      "layer n_l/(1.08 b) buckets; up to 4 layers, then ribbon64; --fpr eps: "
      "r = ceil(log2(1/eps)); --bits-per-key B: r = floor(B/1.0025); r in 1..32";

  static int ResultBitsFor(const FilterParams& p) {
    const int r =
        p.bits_per_key <= 0
            ? static_cast<int>(std::ceil(std::log2(1.0 / p.fpr_or_default())))
            : static_cast<int>(std::floor(p.bits_per_key / (1 + kNominalOverhead)));
    return std::clamp(r, 1, 32);
  }

  // The buckets a layer of `keys` keys gets at `load` keys per start.
  static std::uint64_t BucketsFor(std::size_t keys, double load) {
    const double buckets = std::round(static_cast<double>(keys) / (load * kBucketSlots));
    return std::max<std::uint64_t>(1, static_cast<std::uint64_t>(buckets));
  }

  static BumpedRibbon build(std::span<const std::uint64_t> keys, const FilterParams& p) {
    return build(keys, p, StaticBuildOptions{});
  }

  // options.max_attempts bounds the fallback standard Ribbon's attempts (the layers never
  // fail); options.slots_override is not used (the layers are sized by the load).
  static BumpedRibbon build(std::span<const std::uint64_t> keys, const FilterParams& p,
                            const StaticBuildOptions& options) {
    return BuildAtLoad(keys, p, options, kLoad);
  }

  // build() at another load (keys per start, clamped to 0.5 .. 2): tests and tuning.
  static BumpedRibbon BuildAtLoad(std::span<const std::uint64_t> keys, const FilterParams& p,
                                  const StaticBuildOptions& options, double load) {
    load = std::clamp(load, 0.5, 2.0);
    BumpedRibbon f;
    f.r_ = ResultBitsFor(p);
    f.keys_ = keys.size();
    std::span<const std::uint64_t> pending = keys;
    std::vector<std::uint64_t> bumped;
    for (int l = 0; l < bumped_ribbon_detail::kMaxLayers &&
                    pending.size() >= bumped_ribbon_detail::kMinLayerKeys;
         ++l) {
      Layer layer;
      layer.seed = static_detail::AttemptSeed(p.seed, l);
      layer.buckets = BucketsFor(pending.size(), load);
      bumped = bumped_ribbon_detail::BandLayer(pending, layer, f.r_, f.redundant_);
      f.layers_.push_back(std::move(layer));
      pending = bumped;
    }
    f.keys_in_fallback_ = pending.size();
    if (!pending.empty()) {
      // The remaining keys are the last layer's hashes (or the keys, if no layer was built);
      // lookups hand the fallback the same values.
      FilterParams rest;
      rest.capacity = pending.size();
      rest.target_fpr = std::ldexp(1.0, -f.r_);  // exactly r result bits
      rest.seed = SpreadSeed(p.seed ^ 0x3c6e'f372'fe94'f82bULL);
      f.fallback_ = Ribbon64::build(pending, rest, options);
    }
    f.Pack();
    return f;
  }

  bool contains(std::uint64_t key) const {
    if (layers_.empty()) return ContainsFallback(key);
    return ContainsFrom(HashKey(key, layers_[0].seed));
  }

  // The first layer's block and threshold byte are prefetched for the next 8 keys
  // (core/batched.h); a bumped key's later layers are read on demand (a few % of lookups).
  std::size_t contains_many(std::span<const std::uint64_t> keys, std::span<std::uint8_t> out) const {
    if (layers_.empty()) {
      return PipelinedContains<8>(
          keys, out, [](std::uint64_t key) { return key; },
          [this](std::uint64_t key) { return ContainsFallback(key); });
    }
    const Layer& first = layers_[0];
    return PipelinedContains<8>(
        keys, out,
        [this, &first](std::uint64_t key) {
          const std::uint64_t h = HashKey(key, first.seed);
          const std::uint64_t s = ReduceRange(h, first.starts());
          ribbon_detail::PrefetchBlocks(Words(first) + s / kWidth * r_, r_);
          __builtin_prefetch(Codes(first) + s / kBucketSlots / 4);
          return h;
        },
        [this](std::uint64_t h) { return ContainsFrom(h); });
  }

  std::size_t size_in_bytes() const {
    std::size_t bytes = fallback_ ? fallback_->size_in_bytes() : 0;
    for (const Layer& layer : layers_) bytes += layer.size_in_bytes(r_);
    return bytes;
  }
  // The buffer: each layer's solution words (with its pad block) and threshold codes, then a
  // copy of the fallback's bytes, so that determinism checks see all of it.
  std::span<const std::uint8_t> bytes() const {
    return {reinterpret_cast<const std::uint8_t*>(storage_.data()),
            storage_.size() * sizeof(std::uint64_t)};
  }

  int result_bits() const { return r_; }
  int layers() const { return static_cast<int>(layers_.size()); }
  // Keys answered by layer l (0-based), and by the fallback.
  std::size_t layer_keys(int l) const { return layers_[l].keys; }
  std::size_t fallback_keys() const { return keys_in_fallback_; }
  std::size_t layer_slots(int l) const { return layers_[l].slots(); }
  std::uint64_t layer_buckets(int l) const { return layers_[l].buckets; }
  std::size_t fallback_slots() const { return fallback_ ? fallback_->slots() : 0; }
  std::size_t slots() const {
    std::size_t m = fallback_slots();
    for (const Layer& layer : layers_) m += layer.slots();
    return m;
  }
  std::uint64_t threshold_bits() const {
    std::uint64_t bits = 0;
    for (const Layer& layer : layers_) bits += 2 * layer.buckets;
    return bits;
  }
  // Which layer answers `key`: 0 .. layers() - 1, or layers() for the fallback (tests).
  int LayerOf(std::uint64_t key) const {
    std::uint64_t h = key;
    for (int l = 0; l < layers(); ++l) {
      h = HashKey(h, layers_[l].seed);
      if (bumped_ribbon_detail::Answers(Codes(layers_[l]), ReduceRange(h, layers_[l].starts()))) {
        return l;
      }
    }
    return layers();
  }
  int build_attempts() const { return fallback_ ? fallback_->build_attempts() : 1; }
  std::size_t redundant_rows() const {
    return redundant_ + (fallback_ ? fallback_->redundant_rows() : 0);
  }
  double overhead() const { return keys_ ? static_cast<double>(slots()) / keys_ - 1 : 0.0; }
  double bumped_share() const {
    return keys_ && !layers_.empty() ? 1.0 - static_cast<double>(layers_[0].keys) / keys_ : 0.0;
  }
  double threshold_bits_per_key() const {
    return keys_ ? static_cast<double>(threshold_bits()) / keys_ : 0.0;
  }

  // FPR 2^-r; bits/key (r m + 2 sum B_l) / n over the built layers (header comment).
  Theory theory() const {
    const double bits =
        keys_ ? (static_cast<double>(r_) * slots() + threshold_bits()) / keys_ : 0.0;
    return {FingerprintFpr(r_), bits};
  }

  static constexpr auto kStats = std::array{
      stat::kBuildAttempts,
      stat::kFingerprintBits,
      stat::kSlots,
      ribbon_detail::kOverheadStat,
      ribbon_detail::kWidthStat,
      ribbon_detail::kRedundantRowsStat,
      bumped_ribbon_detail::kLayersStat,
      bumped_ribbon_detail::kBumpedShareStat,
      bumped_ribbon_detail::kLayerKeysStat,
      bumped_ribbon_detail::kThresholdBitsStat};

  void add_stats(Stats& s) const {
    s.put("build_attempts", build_attempts());
    s.put("fingerprint_bits", r_);
    s.put("slots", slots());
    s.put("overhead", overhead());
    s.put("ribbon_width", kWidth);
    s.put("redundant_rows", redundant_rows());
    s.put("bumping_layers", layers());
    s.put("bumped_share", bumped_share());
    StatValue::Counts per_layer;
    for (int l = 0; l < layers(); ++l) per_layer.emplace_back(std::to_string(l + 1), layer_keys(l));
    per_layer.emplace_back("fallback", fallback_keys());
    s.put("layer_keys", per_layer);
    s.put("threshold_bits_per_key", threshold_bits_per_key());
  }

 private:
  // Moves the layers' words and codes, and a copy of the fallback's bytes, into one buffer.
  void Pack() {
    std::size_t words = 0;
    for (const Layer& layer : layers_) {
      words += layer.words.size() + (layer.code_bytes() + 7) / 8;
    }
    const std::size_t fallback_bytes = fallback_ ? fallback_->size_in_bytes() : 0;
    storage_.assign(words + (fallback_bytes + 7) / 8, 0);
    auto* bytes = reinterpret_cast<std::uint8_t*>(storage_.data());
    std::size_t at = 0;
    for (Layer& layer : layers_) {
      layer.words_at = at;
      std::copy(layer.words.begin(), layer.words.end(), storage_.begin() + at);
      at += layer.words.size();
      layer.codes_at = at * sizeof(std::uint64_t);
      std::copy(layer.codes.begin(), layer.codes.end(), bytes + layer.codes_at);
      at += (layer.code_bytes() + 7) / 8;
      layer.words = {};
      layer.codes = {};
    }
    if (fallback_) std::ranges::copy(fallback_->bytes(), bytes + at * sizeof(std::uint64_t));
  }

  const std::uint64_t* Words(const Layer& layer) const { return storage_.data() + layer.words_at; }
  const std::uint8_t* Codes(const Layer& layer) const {
    return reinterpret_cast<const std::uint8_t*>(storage_.data()) + layer.codes_at;
  }

  // h: the key's hash under layer 0's seed. Walks the layers until one holds the key's offset.
  bool ContainsFrom(std::uint64_t h) const {
    for (std::size_t l = 0;;) {
      const Layer& layer = layers_[l];
      const std::uint64_t s = ReduceRange(h, layer.starts());
      if (bumped_ribbon_detail::Answers(Codes(layer), s)) {
        const std::uint64_t parities = ribbon_detail::Parities<std::uint64_t, kWidth>(
            Words(layer) + s / kWidth * r_, r_, s % kWidth,
            ribbon_detail::CoefficientsOf<std::uint64_t>(h));
        return parities == static_detail::FingerprintOf(h, r_);
      }
      if (++l == layers_.size()) return ContainsFallback(h);
      h = HashKey(h, layers_[l].seed);
    }
  }

  bool ContainsFallback(std::uint64_t value) const {
    return fallback_ && fallback_->contains(value);
  }

  int r_ = 8;
  std::size_t keys_ = 0;
  std::size_t redundant_ = 0;  // repeated keys the layers found redundant
  std::size_t keys_in_fallback_ = 0;
  std::vector<Layer> layers_;
  std::vector<std::uint64_t> storage_;  // every layer's words and codes (Pack)
  std::optional<Ribbon64> fallback_;
};

}  // namespace amq
