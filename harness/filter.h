// harness/filter.h - the filter contract: what every filter in filters/ provides.
//
// A filter is a plain class checked by concepts, not a base class: the driver instantiates
// its timed loops once per filter type, so no virtual call or option check happens per key.
//
//   Filter         every filter: a name, a family, a parameter description, contains(),
//                  size_in_bytes(), bytes() (its storage, so tests can check that one seed
//                  builds one filter), and theory() - the FPR and bits/key its own formulas
//                  predict for the geometry it actually chose and the keys it holds.
//   DynamicFilter  built key by key: constructed from FilterParams, then insert(key).
//   StaticFilter   built all at once: F::build(keys, params), which may throw BuildFailed.
//   ErasableFilter erase(key) removes one copy of a key that was inserted.
//
// Optional extras are detected with `requires`, never demanded of every filter:
//   load_factor()           table families: occupied slots / slots
//   add_stats(Stats&) const counters of the filter's own (cuckoo kicks, build attempts, ...)
#pragma once

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>

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

// The filter's own prediction for the state it is in, from the formulas in its header.
struct Theory {
  double fpr = 0.0;
  double bits_per_key = 0.0;
};

// Filter-specific counters land in the result record under these names.
using Stats = nlohmann::ordered_json;

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
concept HasLoadFactor = requires(const F& f) {
  { f.load_factor() } -> std::convertible_to<double>;
};

template <class F>
concept HasStats = requires(const F& f, Stats& s) { f.add_stats(s); };

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

}  // namespace amq
