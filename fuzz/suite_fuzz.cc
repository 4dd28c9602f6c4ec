// fuzz/suite_fuzz.cc - feeds a suite file to LoadSuite (harness/suite/suite.cc): the TOML parse, every
// key's type and range, filter selectors and groups, and each experiment's plan, as `amqbench
// suite FILE --list` reads it; a file that loads is loaded again with --quick's changes applied,
// and its experiments listed (cells, costs, skip reasons) as --list prints them. No experiment
// is prepared or run.
// Finding: a crash, a sanitizer report, an exception other than InputError, a hang, running out
// of memory, or a loaded suite that breaks harness/suite/suite.h's promises: a name, distinct
// experiment ids, and a plan for each experiment whose cells have 16-hex-digit ids and costs
// that can be summed into an ETA.
#include <set>
#include <string>

#include "core/errors.h"
#include "fuzz/fuzz_support.h"
#include "harness/suite/suite.h"

namespace {

void ListAndCheck(const amq::Suite& suite) {
  using amq::fuzz::Require;
  Require(!suite.name.empty(), "a suite without a name loaded");
  std::set<std::string> ids;
  for (const amq::SuiteExperiment& e : suite.experiments) {
    Require(ids.insert(e.id).second, "two experiments share an id");
    Require(e.plan != nullptr, "an experiment without a plan");
    for (const amq::CellPlan& c : e.plan->cells()) {
      Require(c.cell_id.size() == 16 &&
                  c.cell_id.find_first_not_of("0123456789abcdef") == std::string::npos,
              "a cell id that is not 16 hex digits");
      Require(c.cost >= 0, "a cell of negative cost");
    }
    (void)e.plan->SkipReason();
    (void)e.output_name();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string& path = amq::fuzz::WriteInput(data, size);
  for (const bool quick : {false, true}) {
    amq::SuiteOptions options;
    options.quick = quick;
    try {
      ListAndCheck(amq::LoadSuite(path, options));
    } catch (const amq::InputError&) {
      return 0;
    }
  }
  return 0;
}
