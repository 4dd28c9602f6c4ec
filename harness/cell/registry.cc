// harness/cell/registry.cc - instantiates the measurement once per filter in filters/all.h.
#include "harness/cell/registry.h"

#include "filters/all.h"
#include "harness/cell/memory_estimate.h"
#include "harness/cell/micro_size.h"

namespace amq {
namespace {

template <Filter F>
std::span<const StatSpec> StatsOf() {
  if constexpr (HasStats<F>) {
    return F::kStats;
  } else {
    return {};
  }
}

template <Filter F>
const AdaptiveTrials* AdaptiveOf() {
  if constexpr (AdaptiveFilter<F>) {
    return AdaptiveTrialsOf<F>();
  } else {
    return nullptr;
  }
}

template <Filter F>
FilterEntry EntryFor() {
  return {F::kName,          F::kFamily,       F::kParameters, DynamicFilter<F>,
          ErasableFilter<F>, IsFixedWidth<F>(), ConcurrentInsertFilter<F>, LibraryOf<F>(), StatsOf<F>(),
          &RunCell<F>,       AdaptiveOf<F>(),  &BuildOnce<F>, &MeasureBuildBytes<F>,
          MicroSizingOf<F>(), &CountInstructions<F>};
}

template <class... Fs>
std::vector<FilterEntry> Entries(TypeList<Fs...>) {
  static_assert(((DynamicFilter<Fs> || StaticFilter<Fs>) && ...),
                "every filter is built either key by key or all at once");
  return {EntryFor<Fs>()...};
}

}  // namespace

const std::vector<FilterEntry>& Registry() {
  static const std::vector<FilterEntry> entries = Entries(AllFilters{});
  return entries;
}

const FilterEntry* FindFilter(std::string_view name) {
  for (const FilterEntry& entry : Registry()) {
    if (entry.name == name) return &entry;
  }
  return nullptr;
}

}  // namespace amq
