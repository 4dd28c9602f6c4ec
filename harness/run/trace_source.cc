// harness/run/trace_source.cc - traces to replay (see the header).
#include "harness/run/trace_source.h"

#include <filesystem>
#include <sstream>

#include "core/errors.h"
#include "core/file_util.h"
#include "traces/pcap_writer.h"

namespace amq {

Json TraceSource::Identity() const {
  if (synth) {
    return {{"synth",
             {{"packets", synth->packets},
              {"flows", synth->flows},
              {"alpha", synth->alpha},
              {"seed", synth->seed},
              {"ipv6_fraction", synth->ipv6_fraction}}},
            {"key", KeyModeName(key)}};
  }
  return {{"content_hash", Available() ? FileContentHash(path) : std::string("missing")},
          {"key", KeyModeName(key)}};
}

std::string TraceSource::Describe() const {
  if (!synth) return path;
  std::ostringstream out;
  out << "synth(packets=" << synth->packets << ", flows=" << synth->flows
      << ", alpha=" << synth->alpha << ", seed=" << synth->seed << ")";
  return out.str();
}

bool TraceSource::Available() const {
  return synth || (std::filesystem::is_regular_file(path) && std::filesystem::file_size(path) > 0);
}

void TraceSource::Materialise() const {
  if (!synth) {
    CheckReadableFile(path, "trace");
    return;
  }
  if (std::filesystem::is_regular_file(path) && std::filesystem::file_size(path) > 0) return;
  const std::filesystem::path dir = std::filesystem::path(path).parent_path();
  if (!dir.empty()) std::filesystem::create_directories(dir);
  WritePcap(path, SynthesizeTrace(*synth).records);
}

TraceSource TraceSource::FromJson(const Json& t, const std::string& cache, const std::string& label) {
  for (const auto& [key, v] : t.items()) {
    if ((key == "path" || key == "key") && v.is_string()) continue;
    if (key == "optional" && v.is_boolean()) continue;
    if (key == "synth" && v.is_object()) {
      for (const auto& [skey, sv] : v.items()) {
        const bool known = skey == "packets" || skey == "flows" || skey == "seed" || skey == "alpha";
        if (!known || !sv.is_number()) {
          throw InputError(label + ".synth." + skey + ": synth takes numbers packets, flows, seed, alpha");
        }
      }
      continue;
    }
    throw InputError(label + "." + key + ": a trace is { path = \"FILE\", optional = BOOL, key = \"5tuple\" } "
                     "or { synth = { packets, flows, seed, alpha } }");
  }
  if (!t.contains("path") && !t.contains("synth")) throw InputError(label + ": needs path or synth");
  TraceSource trace;
  if (t.contains("synth")) {
    SynthOptions o;
    const Json& s = t["synth"];
    o.packets = s.value("packets", std::uint64_t{o.packets});
    o.flows = s.value("flows", std::uint64_t{o.flows});
    o.seed = s.value("seed", std::uint64_t{o.seed});
    o.alpha = s.value("alpha", o.alpha);
    trace.synth = o;
    std::ostringstream name;
    name << "synth_" << o.packets << "_" << o.flows << "_" << o.alpha << "_" << o.seed << ".pcap";
    trace.path = (std::filesystem::path(cache) / name.str()).string();
  } else {
    trace.path = t["path"].get<std::string>();
    trace.optional = t.value("optional", false);
  }
  trace.key = ParseKeyMode(t.value("key", std::string("5tuple")));
  return trace;
}

}  // namespace amq
