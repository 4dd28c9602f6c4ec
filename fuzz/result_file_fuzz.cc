// fuzz/result_file_fuzz.cc - feeds a result file to everything that reads one back
// (harness/run/result_writer.cc): ReadResultLines (what merge reads shards with), each data
// line through CheckRecordAgainstSchema (harness/run/schema.cc, as merge re-checks them),
// IsCompleteResultFile (the --force guard) and ResultWriter::Resume (--resume: keeps whole
// cells, cuts a torn tail), given the header a run of the experiment the file names would pass.
// Finding: a crash, a sanitizer report, an exception other than InputError, a hang, running out
// of memory; CheckRecordAgainstSchema's std::logic_error (its answer to a field the table lacks)
// is expected; IsCompleteResultFile throwing anything is a finding (it answers, never throws).
#include <set>
#include <stdexcept>
#include <string>
#include <typeinfo>

#include "core/errors.h"
#include "fuzz/fuzz_support.h"
#include "harness/run/result_writer.h"
#include "harness/run/schema.h"

namespace {

// The header a run resuming this file would pass: always well formed, as the runner builds it,
// naming the experiment and suite the file's first line names where those have the right
// types, so Resume goes on to scan the cells instead of refusing another experiment.
amq::Json HeaderToResume(const std::uint8_t* data, std::size_t size) {
  amq::Json header = {{"record", "header"},
                      {"schema_version", amq::kResultSchemaVersion},
                      {"experiment", {{"id", "fuzz"}, {"kind", "filters"}}},
                      {"suite", nullptr},
                      {"context", amq::Json::object()},
                      {"cells", amq::Json::array()}};
  const std::string text(reinterpret_cast<const char*>(data), size);
  const amq::Json first = amq::Json::parse(text.substr(0, text.find('\n')), nullptr, false);
  if (!first.is_object()) return header;
  const auto copy = [](const amq::Json& from, amq::Json& to, const char* key, auto has_type) {
    if (from.is_object() && from.contains(key) && has_type(from[key])) to[key] = from[key];
  };
  const auto is_string = [](const amq::Json& v) { return v.is_string(); };
  if (first.contains("experiment")) {
    copy(first["experiment"], header["experiment"], "id", is_string);
    copy(first["experiment"], header["experiment"], "kind", is_string);
  }
  if (first.contains("suite") && first["suite"].is_object()) {
    header["suite"] = {{"file_hash", ""}, {"quick", false}, {"shard", nullptr}};
    copy(first["suite"], header["suite"], "file_hash", is_string);
    copy(first["suite"], header["suite"], "quick", [](const amq::Json& v) { return v.is_boolean(); });
    copy(first["suite"], header["suite"], "shard",
         [](const amq::Json& v) { return v.is_string() || v.is_null(); });
  }
  return header;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string& path = amq::fuzz::WriteInput(data, size);
  try {
    amq::Json header;
    bool complete = false;
    for (const amq::Json& line : amq::ReadResultLines(path, &header, &complete)) {
      try {
        amq::CheckRecordAgainstSchema(line);
      } catch (const std::logic_error& e) {
        // Exactly its own answer: a std::out_of_range from inside would be a finding.
        amq::fuzz::Require(typeid(e) == typeid(std::logic_error),
                           "CheckRecordAgainstSchema threw a logic_error subclass");
      }
    }
  } catch (const amq::InputError&) {
  }
  try {
    (void)amq::IsCompleteResultFile(path);
  } catch (...) {
    amq::fuzz::Require(false, "IsCompleteResultFile threw");
  }
  // Last: Resume cuts the torn tail off the file it resumes.
  try {
    std::set<std::string> done;
    bool complete = false;
    (void)amq::ResultWriter::Resume(path, HeaderToResume(data, size), done, complete);
  } catch (const amq::InputError&) {
  }
  return 0;
}
