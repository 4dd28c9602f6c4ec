// harness/kinds/testdata/instruction_probe.cc - a stand-in for amqbench in the instructions kind's
// "caught on purpose" test (commands/count_instructions_command_test.cc, issue 27): it answers
// `count-instructions bloom KEYS QUERIES SEED` as amqbench does, for the Bloom filter alone.
// CMakeLists.txt builds it twice: as is, and with AMQ_PROBE_SLOWED_LOOKUP, which puts
// slowed_lookup.h's extra work into every one-at-a-time lookup - a regression that keeps every
// answer, which only the counts (and timings) can see. Not part of amqbench.
#include <cstdint>
#include <iostream>
#include <string>

#include "filters/bloom.h"
#include "harness/cell/instruction_count.h"
#include "harness/kinds/testdata/slowed_lookup.h"

namespace {

#ifdef AMQ_PROBE_SLOWED_LOOKUP
// Four multiplies: the same answers, about ten more instructions a lookup.
using Probed = amq::testing::SlowedLookup<amq::Bloom, 4>;
#else
using Probed = amq::Bloom;
#endif

}  // namespace

int main(int argc, char** argv) {
  if (argc != 6 || std::string(argv[1]) != "count-instructions" || std::string(argv[2]) != "bloom" ||
      !amq::UnderValgrind()) {
    std::cerr << "instruction_probe: count-instructions bloom KEYS QUERIES SEED, under callgrind\n";
    return 2;
  }
  amq::InstructionRun run;
  run.keys = std::stoul(argv[3]);
  run.queries = std::stoul(argv[4]);
  run.seed = std::stoull(argv[5]);
  std::cout << amq::InstructionOutcomeJson(amq::CountInstructions<Probed>(run)) << '\n';
  return 0;
}
