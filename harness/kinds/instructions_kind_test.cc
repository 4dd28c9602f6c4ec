// The instructions kind's pieces that need no valgrind: its dump parser and its plan.
// commands/count_instructions_command_test.cc runs it end to end under callgrind.
#include "harness/kinds/instructions_kind.h"

#include <gtest/gtest.h>

#include "core/errors.h"
#include "harness/kinds/kind_test_support.h"

namespace amq {
namespace {

// The lines callgrind 3.19 writes that the parser reads, with the rest of a dump around them.
constexpr const char* kDump =
    "# callgrind format\nversion: 1\ncreator: callgrind-3.19.0\npid: 12818\ncmd:  amqbench count-instructions\n"
    "part: 2\n\ndesc: I1 cache: 32768 B, 64 B, 8-way associative\n"
    "desc: Timerange: Basic block 0 - 1\ndesc: Trigger: Client Request: query_absent\n\n"
    "positions: line\nevents: Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw\nsummary: 0\n\nfn=(1) main\n0 3 1\n"
    "\ntotals: 851998 141890 40946 6 2955 3 6 2881\n";

TEST(CallgrindDump, ReadsTheTriggerAndTotalsWithTrailingZerosLeftOff) {
  const CallgrindDump dump = ParseCallgrindDump(kDump);
  EXPECT_EQ(dump.trigger, "query_absent");
  EXPECT_EQ(dump.Event("Ir"), 851998);
  EXPECT_EQ(dump.Event("D1mr"), 2955);
  EXPECT_EQ(dump.Event("DLmr"), 2881);
  EXPECT_EQ(dump.Event("DLmw"), 0);     // left off the totals line
  EXPECT_EQ(dump.Event("absent"), 0);  // not an event of this dump
}

TEST(CallgrindDump, ADumpWithoutEventsOrTotalsIsRefused) {
  EXPECT_THROW(ParseCallgrindDump("events: Ir\nsummary: 5\n"), std::runtime_error);
  EXPECT_THROW(ParseCallgrindDump("totals: 5\n"), std::runtime_error);
  EXPECT_THROW(ParseCallgrindDump("events: Ir\ntotals: 5 6\n"), std::runtime_error);
}

TEST(InstructionsKind, OneCellPerFilterAndQueriesAtMostKeys) {
  const auto plan = kInstructionsKind.plan(
      KindInput(kInstructionsKind, {{"keys", 5000}, {"queries", 2000}}, {"bloom", "xor8", "cuckoo12"}));
  ASSERT_EQ(plan->cells().size(), 3u);
  EXPECT_EQ(plan->cells()[1].identity["filter"], "xor8");
  EXPECT_EQ(plan->cells()[1].identity["cache_model"], kCacheModel);
  EXPECT_NE(plan->cells()[0].cell_id, plan->cells()[1].cell_id);
  EXPECT_THROW(kInstructionsKind.plan(KindInput(kInstructionsKind, {{"keys", 1000}, {"queries", 2000}}, {"bloom"})),
               InputError);
}

}  // namespace
}  // namespace amq
