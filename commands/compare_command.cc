// commands/compare_command.cc - `amqbench compare BASE NEW`: what changed between two runs.
//
// The comparison lives in plots/compare.py (its header has every rule), run by Debian's
// /usr/bin/python3: it needs scipy (plots/ab.py's signed-rank test, for the rounds of one A/B
// job) and reuses plots/load.py's readers and schema check, which a C++ copy would duplicate.
// This command only execs that interpreter on that script, from the source tree this binary was
// built from (AMQ_SOURCE_DIR), with the arguments as given, so the exit status (0 same, 1 worse,
// 2 bad input) and the output are the script's own. A missing interpreter or script is bad
// input: one line, exit status 2.
// AMQ_PYTHON overrides the interpreter (the tests point it at a missing one).
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "commands/commands.h"
#include "core/errors.h"

namespace amq {

int CompareCommand(const Args& args) {
  const char* override_python = std::getenv("AMQ_PYTHON");
  const std::string python = override_python && *override_python ? override_python : "/usr/bin/python3";
  const std::string script = std::string(AMQ_SOURCE_DIR) + "/plots/compare.py";
  if (access(script.c_str(), R_OK) != 0) {
    throw InputError("compare needs " + script + " (the source tree this binary was built from): " +
                     std::strerror(errno));
  }
  std::vector<std::string> words = {python, script};
  words.insert(words.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& w : words) argv.push_back(w.data());
  argv.push_back(nullptr);
  setenv("AMQ_COMPARE_PROG", "amqbench compare", 1);
  std::cout.flush();
  std::cerr.flush();
  execv(python.c_str(), argv.data());
  throw InputError("compare needs " + python + " (Debian's python3 with python3-scipy, "
                   "python3-pandas, python3-jsonschema): " + std::strerror(errno));
}

}  // namespace amq
