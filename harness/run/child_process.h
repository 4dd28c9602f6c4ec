// harness/run/child_process.h - running another program for a kind that measures outside its
// own process (the micro kind's Google Benchmark binary, the instructions kind's callgrind run).
#pragma once

#include <string>
#include <vector>

namespace amq {

struct ChildOutcome {
  int status = 0;            // waitpid's status word
  bool interrupted = false;  // a signal reached amqbench while the child ran, and was forwarded
  bool Succeeded() const;    // exited with status 0
};

// Runs args[0] (a path) with args, its standard output sent to our standard error (where the
// rest of a run's progress goes) unless `capture_stdout` names a file to write it to. The child
// is polled rather than waited for, so a signal sent to amqbench alone (a SIGTERM from a
// scheduler) is forwarded to it and the stop takes a moment, not the rest of the child's run.
// `environment` replaces ours when given ("NAME=value" entries). Throws InputError when the
// program cannot be started.
ChildOutcome RunChild(const std::vector<std::string>& args, const std::string& capture_stdout = "",
                      const std::vector<std::string>* environment = nullptr);

}  // namespace amq
