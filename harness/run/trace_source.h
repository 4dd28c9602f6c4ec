// harness/run/trace_source.h - a trace an experiment replays: a capture file, or a synthetic
// trace made from its options once and kept in the cache. Experiments name a trace by content
// (its hash, or the synthetic options), never by path, so a cell's identity survives a move.
#pragma once

#include <optional>
#include <string>

#include "core/json.h"
#include "traces/flow.h"
#include "traces/synth.h"

namespace amq {

// A trace to replay: a file, or a synthetic trace made (once, cached) from its options.
struct TraceSource {
  std::string path;                  // the file, or where the synthetic trace is cached
  std::optional<SynthOptions> synth;
  bool optional = false;             // a missing file skips the experiment instead of failing it
  KeyMode key = KeyMode::kFiveTuple;

  Json Identity() const;             // synthetic options, or the file's content hash
  std::string Describe() const;
  // Makes the synthetic trace if it is not cached yet; throws InputError for a missing file.
  void Materialise() const;
  bool Available() const;

  // From a parameter of type kTrace (harness/run/kind.h), checked first: a synthetic trace is
  // cached under `cache`. Throws InputError naming `label` for a malformed table.
  static TraceSource FromJson(const Json& trace, const std::string& cache, const std::string& label);
};

}  // namespace amq
