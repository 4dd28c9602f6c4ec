// workloads/keys_test.cc - every key distribution gives distinct members and non-members
// disjoint from them, is deterministic by seed, refuses bad input with one clear line, and
// reaches every filter in filters/all.h with zero false negatives.
#include "workloads/keys.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <unordered_set>

#include "filters/all.h"
#include "core/errors.h"
#include "harness/cell/kernels.h"

namespace amq {
namespace {

bool Installed(const std::string& package) {
  try {
    WordListPath(package);
    return true;
  } catch (const InputError&) {
    return false;
  }
}

class TempFile {
 public:
  explicit TempFile(const std::string& contents)
      : path_(::testing::TempDir() + "amqkeys_" + std::to_string(getpid()) + "_" +
              std::to_string(counter_++)) {
    std::ofstream(path_) << contents;
  }
  ~TempFile() { std::filesystem::remove(path_); }
  const std::string& path() const { return path_; }

 private:
  static inline int counter_ = 0;
  std::string path_;
};

void ExpectDistinctAndDisjoint(const Workload& w, std::size_t n, std::size_t negatives) {
  SCOPED_TRACE(w.name);
  EXPECT_EQ(w.keys.size(), n);
  EXPECT_EQ(w.negatives.size(), negatives);
  const std::unordered_set<std::uint64_t> members(w.keys.begin(), w.keys.end());
  EXPECT_EQ(members.size(), w.keys.size()) << "duplicate members";
  const std::unordered_set<std::uint64_t> others(w.negatives.begin(), w.negatives.end());
  EXPECT_EQ(others.size(), w.negatives.size()) << "duplicate negatives";
  std::size_t overlap = 0;
  for (std::uint64_t k : w.negatives) overlap += members.count(k);
  EXPECT_EQ(overlap, 0u) << "negatives overlap members";
  EXPECT_EQ(w.parameters["kind"], w.name);
}

template <class F>
void ExpectNoFalseNegatives(const Workload& w) {
  FilterParams p;
  p.capacity = w.keys.size();
  p.target_fpr = 0.01;
  p.seed = 77;
  const auto built = Build<F>(w.keys, p);
  EXPECT_TRUE(built.failed.empty()) << F::kName << " on " << w.name;
  std::size_t missing = 0;
  for (std::uint64_t key : w.keys) missing += built.filter.contains(key) ? 0 : 1;
  EXPECT_EQ(missing, 0u) << F::kName << " on " << w.name;
}

template <class... Fs>
void ExpectNoFalseNegativesInAll(TypeList<Fs...>, const Workload& w) {
  (ExpectNoFalseNegatives<Fs>(w), ...);
}

std::vector<std::string> Kinds(const std::string& decimal_file, const std::string& string_file) {
  std::vector<std::string> kinds = {"uniform",
                                    "sequential",
                                    "strided:1",
                                    "strided:3",
                                    "strided:1024",
                                    "strided:4294967296",
                                    "file:" + decimal_file,
                                    "file:" + string_file};
  if (Installed("wamerican")) kinds.push_back("words:wamerican");
  return kinds;
}

std::string Lines(std::size_t count, bool decimal) {
  std::string out;
  for (std::size_t i = 0; i < count; ++i) {
    out += decimal ? std::to_string(i * 7919 + 13) : "host-" + std::to_string(i) + ".example";
    out += "\n";
  }
  return out;
}

TEST(Keys, EveryKindDistinctDisjointAndConformant) {
  const TempFile decimal(Lines(30000, true)), strings(Lines(30000, false));
  for (const std::string& kind : Kinds(decimal.path(), strings.path())) {
    const Workload w = MakeWorkload(kind, 10000, 20000, 5);
    ExpectDistinctAndDisjoint(w, 10000, 20000);
    ExpectNoFalseNegativesInAll(AllFilters{}, w);
  }
}

TEST(Keys, DeterministicBySeed) {
  const TempFile strings(Lines(5000, false));
  for (const std::string& kind :
       {std::string("uniform"), std::string("sequential"), "file:" + strings.path()}) {
    const Workload a = MakeWorkload(kind, 1000, 1000, 1), b = MakeWorkload(kind, 1000, 1000, 1),
                   c = MakeWorkload(kind, 1000, 1000, 2);
    EXPECT_EQ(a.keys, b.keys) << kind;
    EXPECT_EQ(a.negatives, b.negatives) << kind;
    EXPECT_NE(a.keys, c.keys) << kind;
  }
}

TEST(Keys, StructuredKindsHaveTheirShape) {
  const Workload s = MakeWorkload("sequential", 100, 50, 3);
  for (std::size_t i = 1; i < 100; ++i) EXPECT_EQ(s.keys[i], s.keys[0] + i);
  EXPECT_EQ(s.negatives[0], s.keys[0] + 100);
  const Workload t = MakeWorkload("strided:4096", 100, 50, 3);
  for (std::size_t i = 1; i < 100; ++i) EXPECT_EQ(t.keys[i] - t.keys[i - 1], 4096u);
  EXPECT_EQ(t.negatives[0] - t.keys[99], 4096u);
  EXPECT_EQ(t.parameters["stride"], 4096);
}

TEST(Keys, FileFormats) {
  const TempFile decimal("  42\n7\n\n42\n9\n"), strings("alpha\nbeta\nalpha\n7\n");
  const Workload d = MakeWorkload("file:" + decimal.path(), 2, 10, 1);
  EXPECT_EQ(d.parameters["key_format"], "decimal");
  EXPECT_EQ(d.parameters["duplicate_lines"], 1);
  EXPECT_EQ(d.parameters["distinct_keys"], 3);
  EXPECT_EQ(d.negatives.size(), 1u);  // capped at what is left
  EXPECT_EQ(d.parameters["negatives_available"], 1);
  std::unordered_set<std::uint64_t> all(d.keys.begin(), d.keys.end());
  all.insert(d.negatives.begin(), d.negatives.end());
  EXPECT_EQ(all, (std::unordered_set<std::uint64_t>{42, 7, 9}));

  const Workload s = MakeWorkload("file:" + strings.path(), 3, 0, 1);
  EXPECT_EQ(s.parameters["key_format"], "xxh3");  // one non-number makes every line a string
  EXPECT_EQ(s.parameters["distinct_keys"], 3);
}

TEST(Keys, WordLists) {
  if (!Installed("wamerican")) GTEST_SKIP() << "wamerican is not installed";
  const Workload w = MakeWorkload("words:wamerican", 20000, 1000000, 1);
  EXPECT_EQ(w.parameters["hash_collisions_dropped"], 0);
  EXPECT_GT(w.parameters["distinct_keys"].get<std::size_t>(), 50000u);
  // All the other words are the negatives, as many as there are.
  EXPECT_EQ(w.keys.size() + w.negatives.size(), w.parameters["distinct_keys"].get<std::size_t>());
  EXPECT_EQ(w.parameters["file"], "/usr/share/dict/american-english");
}

void ExpectError(const std::string& kind, std::size_t n, const std::string& fragment) {
  try {
    MakeWorkload(kind, n, 10, 1);
    ADD_FAILURE() << kind << ": no InputError";
  } catch (const InputError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find(fragment), std::string::npos) << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  }
}

TEST(Keys, BadInput) {
  ExpectError("gaussian", 10, "unknown key distribution 'gaussian'");
  ExpectError("uniform:3", 10, "unknown key distribution");
  ExpectError("strided", 10, "bad stride");
  ExpectError("strided:", 10, "bad stride");
  ExpectError("strided:0", 10, "bad stride");
  ExpectError("strided:-4", 10, "bad stride");
  ExpectError("strided:abc", 10, "bad stride");
  ExpectError("strided:99999999999999999999999", 10, "bad stride");
  ExpectError("strided:9223372036854775808", 10, "too large");
  ExpectError("words:", 10, "bad word-list package");
  ExpectError("words:no-such-wordlist-pkg", 10,
              "word list package 'no-such-wordlist-pkg' is not installed: apt-get install "
              "no-such-wordlist-pkg");
  ExpectError("words:x;rm", 10, "bad word-list package");
  ExpectError("file:", 10, "missing path");
  ExpectError("file:/no/such/file", 10, "cannot open key file '/no/such/file'");
  const TempFile empty(""), few("1\n2\n3\n");
  ExpectError("file:" + empty.path(), 10, "is empty");
  ExpectError("file:" + few.path(), 10, "has 3 distinct keys; cannot draw 10 members");
}

}  // namespace
}  // namespace amq
