// harness/kinds/testdata/slowed_lookup.h - a filter with extra work in every lookup and the same
// answers: the deliberate regression of issue 27's "caught on purpose" probes
// (instruction_probe.cc, which the instruction counts catch, and commands/testdata/ab_probe.cc,
// which amqbench ab's timings catch). Not part of amqbench.
#pragma once

#include <cstdint>

namespace amq::testing {

// contains() first runs kMultiplies dependent multiplies of the key; the empty asm keeps the
// compiler from folding the chain away, and the added term is never true.
template <class F, int kMultiplies>
struct SlowedLookup : F {
  using F::F;
  bool contains(std::uint64_t key) const {
    std::uint64_t mixed = key;
    for (int i = 0; i < kMultiplies; ++i) {
      mixed = mixed * 0x9E3779B97F4A7C15ull + std::uint64_t(i);
      asm volatile("" : "+r"(mixed));
    }
    return F::contains(key) || (mixed == 0 && key == ~key);
  }
};

}  // namespace amq::testing
