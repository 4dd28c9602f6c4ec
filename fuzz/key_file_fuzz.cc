// fuzz/key_file_fuzz.cc - feeds a key file to MakeWorkload("file:PATH") (workloads/keys.cc),
// what `--keys-from file:PATH` and a suite's keys_from read: lines trimmed, decimal keys when
// every line is one, else XXH3 of each line; duplicates and colliding strings dropped; members
// and non-members drawn by seed. The last four input bytes choose n, the non-members asked for
// and the seed; the rest is the file.
// Finding: a crash, a sanitizer report, an exception other than InputError, a hang, running out
// of memory, or a workload that breaks workloads/keys.h's promise: n distinct members, at most
// the requested number of distinct non-members, none of them a member.
#include <fuzzer/FuzzedDataProvider.h>

#include <unordered_set>
#include <vector>

#include "core/errors.h"
#include "fuzz/fuzz_support.h"
#include "workloads/keys.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using amq::fuzz::Require;
  FuzzedDataProvider input(data, size);
  // Small counts: the interesting cases are files with fewer keys than asked for, not big draws.
  const auto n = input.ConsumeIntegralInRange<std::size_t>(1, 48);
  const auto negatives = input.ConsumeIntegralInRange<std::size_t>(0, 48);
  const auto seed = input.ConsumeIntegral<std::uint16_t>();
  const std::vector<std::uint8_t> file = input.ConsumeRemainingBytes<std::uint8_t>();
  const std::string& path = amq::fuzz::WriteInput(file.data(), file.size());
  amq::Workload w;
  try {
    w = amq::MakeWorkload("file:" + path, n, negatives, seed);
  } catch (const amq::InputError&) {
    return 0;
  }
  Require(w.keys.size() == n, "not n members");
  Require(w.negatives.size() <= negatives, "more non-members than asked for");
  const std::unordered_set<std::uint64_t> members(w.keys.begin(), w.keys.end());
  Require(members.size() == w.keys.size(), "members are not distinct");
  std::unordered_set<std::uint64_t> others;
  for (std::uint64_t k : w.negatives) {
    Require(!members.count(k), "a non-member is a member");
    Require(others.insert(k).second, "non-members are not distinct");
  }
  const std::string format = w.parameters.value("key_format", "");
  Require(format == "decimal" || format == "xxh3", "key_format is neither decimal nor xxh3");
  return 0;
}
