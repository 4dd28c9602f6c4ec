// harness/kinds/all.cc - the list of harness/kinds/all.h, for the floors below that name it
// (harness/run/kind.h's Kinds(): the schema takes every kind's fields from it).
#include "harness/kinds/all.h"

namespace amq {

std::span<const KindSpec* const> Kinds() { return kAllKinds; }

}  // namespace amq
