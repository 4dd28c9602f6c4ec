// core/filter.h - the filter contract: what every filter in filters/ provides.
//
// A filter is a plain class checked by concepts, not a base class: the driver instantiates
// its timed loops once per filter type, so no virtual call or option check happens per key.
//
//   Filter         every filter: a name, a family, a parameter description, contains(),
//                  size_in_bytes(), bytes() (its storage, so tests can check that one seed
//                  builds one filter), and theory() - what its own formulas predict (see
//                  Theory below).
//   DynamicFilter  built key by key: constructed from FilterParams, then insert(key).
//   StaticFilter   built all at once: F::build(keys, params), which may throw BuildFailed.
//   ErasableFilter erase(key) removes one copy of a key that was inserted.
//
// Optional extras are detected with `requires`, never demanded of every filter:
//   load_factor()           table families: occupied slots / slots
//   add_stats(Stats&) const counters of the filter's own (cuckoo kicks, build attempts, ...),
//                           each one declared in the filter's kStats (name, type, unit, meaning)
//                           or, when several families share it, in core/stat_catalog.h
//   contains_many(keys, out) const
//                           batched lookups (BatchedFilter): out[i] = contains(keys[i]), and
//                           the number of ones returned. A filter provides it where batching
//                           pays: hash a group of keys, prefetch every cache line the group
//                           will read, then probe, so the group's misses overlap.
//   insert_many(keys)       bulk inserts (BulkInsertFilter) for filters whose insert cannot
//                           fail and whose state does not depend on the order of inserts
//                           (Bloom filters: bits ORed in): the same bytes as insert() key by
//                           key, with the cache lines of keys ahead prefetched. Returns the
//                           number of keys inserted, keys.size().
//
// Statistics come back as plain name/value data: filters never see the output format, and the
// result writer (harness/) serialises them and checks every name against the schema.
#pragma once

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <optional>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

namespace amq {

// What the user asked for. A family sizes itself from target_fpr or bits_per_key (at most
// one is set; neither set means the family's default, 1% FPR). Fixed-width variants such as
// cuckoo12 ignore both for their fingerprint width and still report their own theory.
struct FilterParams {
  std::size_t capacity = 0;   // keys the filter will hold
  double target_fpr = 0.0;    // 0 = not given
  double bits_per_key = 0.0;  // 0 = not given
  double max_load = 0.0;      // table families: fill limit; 0 = the family's default
  std::uint64_t seed = 0;     // every hash function and random choice derives from it
  int max_kicks = 500;        // cuckoo family: evictions before an insert gives up

  double fpr_or_default() const { return target_fpr > 0 ? target_fpr : 0.01; }
};

// The filter's own prediction, from the formulas in its header.
//   fpr           for the geometry it actually chose and the keys it holds.
//   bits_per_key  the family's space formula at the target it was asked for: the capacity
//                 (static filters: the keys given), the FPR or fingerprint width, the max load.
//                 Never read back from what was allocated, and without the rounding of a table
//                 to a power of two or whole blocks, so the measured bits/key shows that
//                 rounding - and a sizing bug - instead of copying it. A static filter
//                 built from no keys reports 0 (no keys, no bits per key), as the measurement.
struct Theory {
  double fpr = 0.0;
  double bits_per_key = 0.0;
};

// How one trial's value of a field combines into its cell's summary, where a kind runs several
// trials per cell (the adapt_* kinds): the first trial's value (geometry, the same in every
// trial), the mean, the mean with the lowest and highest (_min, _max), the sum (counts), true
// only if true in every trial, or not carried into the summary (a trial's own detail).
enum class OverTrials { kNone, kFirst, kMean, kMeanRange, kSum, kAll };

// One statistic a filter reports, declared once: its name in the result record, its type as
// the result schema states it ("integer", "number", "string", "boolean", "object"; "|null"
// when it may be null), its unit, what it means, and how it combines over trials.
struct StatSpec {
  std::string_view name;
  std::string_view type;
  std::string_view unit;
  std::string_view meaning;
  OverTrials over_trials = OverTrials::kFirst;
};

// A statistic's value: what a result record can hold, without the output format.
struct StatValue {
  using Counts = std::vector<std::pair<std::string, std::uint64_t>>;  // labelled counts
  std::variant<std::monostate, bool, std::int64_t, std::uint64_t, double, std::string, Counts>
      value;
};

// The statistics one filter reported, in the order it put them.
class Stats {
 public:
  template <class T>
  void put(std::string_view name, const T& value) {
    items_.emplace_back(name, Convert(value));
  }
  const std::vector<std::pair<std::string_view, StatValue>>& items() const { return items_; }

 private:
  template <class T>
  static StatValue Convert(const T& v) {
    if constexpr (std::is_same_v<T, bool>) {
      return {v};
    } else if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) {
      return {static_cast<std::int64_t>(v)};
    } else if constexpr (std::is_integral_v<T>) {
      return {static_cast<std::uint64_t>(v)};
    } else if constexpr (std::is_floating_point_v<T>) {
      return {static_cast<double>(v)};
    } else if constexpr (std::is_same_v<T, StatValue::Counts>) {
      return {v};
    } else if constexpr (std::is_same_v<T, std::nullptr_t>) {
      return {};
    } else if constexpr (requires { v.has_value(); *v; }) {
      return v.has_value() ? Convert(*v) : StatValue{};
    } else {
      return {std::string(v)};
    }
  }

  std::vector<std::pair<std::string_view, StatValue>> items_;
};

// Thrown by a static filter whose construction cannot succeed (after its bounded retries).
struct BuildFailed : std::runtime_error {
  using std::runtime_error::runtime_error;
};

template <class F>
concept Filter = requires(const F& f, std::uint64_t key) {
  { F::kName } -> std::convertible_to<std::string_view>;        // e.g. "cuckoo12"
  { F::kFamily } -> std::convertible_to<std::string_view>;      // e.g. "cuckoo"
  { F::kParameters } -> std::convertible_to<std::string_view>;  // how it reads FilterParams
  { f.contains(key) } -> std::same_as<bool>;
  { f.size_in_bytes() } -> std::convertible_to<std::size_t>;
  { f.bytes() } -> std::convertible_to<std::span<const std::uint8_t>>;
  { f.theory() } -> std::same_as<Theory>;
};

template <class F>
concept DynamicFilter = Filter<F> && std::constructible_from<F, const FilterParams&> &&
                        requires(F& f, std::uint64_t key) {
                          { f.insert(key) } -> std::same_as<bool>;  // false: did not fit
                        };

template <class F>
concept StaticFilter =
    Filter<F> && requires(std::span<const std::uint64_t> keys, const FilterParams& p) {
      { F::build(keys, p) } -> std::same_as<F>;  // keys are distinct
    };

template <class F>
concept ErasableFilter = Filter<F> && requires(F& f, std::uint64_t key) {
  { f.erase(key) } -> std::same_as<bool>;  // false: no copy found
};

template <class F>
concept BatchedFilter =
    Filter<F> && requires(const F& f, std::span<const std::uint64_t> keys, std::span<std::uint8_t> out) {
      { f.contains_many(keys, out) } -> std::same_as<std::size_t>;  // out.size() == keys.size()
    };

template <class F>
concept BulkInsertFilter = DynamicFilter<F> && requires(F& f, std::span<const std::uint64_t> keys) {
  { f.insert_many(keys) } -> std::same_as<std::size_t>;
};

template <class F>
concept HasLoadFactor = requires(const F& f) {
  { f.load_factor() } -> std::convertible_to<double>;
};

// A filter that reports statistics declares them: F::kStats lists a StatSpec per name it puts.
template <class F>
concept HasStats = requires(const F& f, Stats& s) {
  f.add_stats(s);
  { std::span<const StatSpec>(F::kStats) };
};

// The optional traits a suite file selects filters by (its selector keys `fixed_width` and
// `library`; README.md, "The suite"):
//   kFixedWidth  true when the fingerprint width is part of the type (cuckoo12, xor8), so
//                --fpr does not change the filter
//   kLibrary     the production library a filter wraps ("leveldb", "rocksdb")
template <class F>
constexpr bool IsFixedWidth() {
  if constexpr (requires { F::kFixedWidth; }) {
    return F::kFixedWidth;
  } else {
    return false;
  }
}
template <class F>
constexpr std::string_view LibraryOf() {
  if constexpr (requires { F::kLibrary; }) {
    return F::kLibrary;
  } else {
    return {};
  }
}

// A compile-time list of filter types; filters/all.h declares the one list of them all.
template <class... Fs>
struct TypeList {
  static constexpr std::size_t size = sizeof...(Fs);
};

template <class List, template <class...> class Target>
struct Rebind;
template <class... Fs, template <class...> class Target>
struct Rebind<TypeList<Fs...>, Target> {
  using type = Target<Fs...>;
};

// The types of List for which Keep<F>::value is true, in List's order: a capability's filters
// taken from the one list (filters/all.h), never listed twice.
template <class... Lists>
struct ConcatTypeLists {
  using type = TypeList<>;
};
template <class... A>
struct ConcatTypeLists<TypeList<A...>> {
  using type = TypeList<A...>;
};
template <class... A, class... B, class... Rest>
struct ConcatTypeLists<TypeList<A...>, TypeList<B...>, Rest...> {
  using type = typename ConcatTypeLists<TypeList<A..., B...>, Rest...>::type;
};
template <template <class> class Keep, class List>
struct KeepIf;
template <template <class> class Keep, class... Fs>
struct KeepIf<Keep, TypeList<Fs...>> {
  using type = typename ConcatTypeLists<std::conditional_t<Keep<Fs>::value, TypeList<Fs>, TypeList<>>...>::type;
};

}  // namespace amq
