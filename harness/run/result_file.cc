// harness/run/result_file.cc - atomic JSON output.
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "core/errors.h"
#include "harness/run/result_file.h"

namespace amq {
namespace {

std::string TempPathFor(const std::string& path) {
  return path + ".tmp." + std::to_string(getpid());
}

}  // namespace

void CheckWritable(const std::string& path) {
  if (path.empty()) throw InputError("--out needs a file name");
  const std::filesystem::path p(path);
  if (std::filesystem::is_directory(p)) throw InputError("output path is a directory: " + path);
  const std::string probe = TempPathFor(path);
  {
    std::ofstream out(probe);
    if (!out) throw InputError("cannot write output file " + path);
  }
  std::remove(probe.c_str());
}

void WriteJsonAtomically(const std::string& path, const Json& doc) {
  const std::string temp = TempPathFor(path);
  {
    std::ofstream out(temp);
    out << doc.dump(2) << '\n';
    out.flush();
    if (!out) {
      std::remove(temp.c_str());
      throw InputError("cannot write output file " + path);
    }
  }
  if (std::rename(temp.c_str(), path.c_str()) != 0) {
    std::remove(temp.c_str());
    throw InputError("cannot rename " + temp + " to " + path);
  }
}

}  // namespace amq
