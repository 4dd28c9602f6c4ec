// filters/all.h - the one list of filters. The driver's registry and the typed conformance
// tests both read it. Adding a filter: write filters/<name>.h, include it, add it to the list.
// A filter that needs an optional library sits behind that library's AMQ_HAVE_* macro (set by
// CMake) around both its include and its entry, so a missing library removes the filter only.
#pragma once

#include "filters/blocked_bloom.h"
#include "filters/bloom.h"
#include "filters/cuckoo.h"
#include "harness/filter.h"

namespace amq {

using AllFilters = TypeList<Bloom, BlockedBloom, Cuckoo<0>, Cuckoo<8>, Cuckoo<12>, Cuckoo<16>>;

}  // namespace amq
