// harness/run/child_process.cc - RunChild (see the header).
#include "harness/run/child_process.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>

#include "core/errors.h"
#include "harness/run/runner.h"

extern char** environ;

namespace amq {

bool ChildOutcome::Succeeded() const { return WIFEXITED(status) && WEXITSTATUS(status) == 0; }

ChildOutcome RunChild(const std::vector<std::string>& args, const std::string& capture_stdout,
                      const std::vector<std::string>* environment) {
  std::vector<std::string> words = args;
  std::vector<char*> argv;
  for (std::string& w : words) argv.push_back(w.data());
  argv.push_back(nullptr);
  std::vector<std::string> entries = environment ? *environment : std::vector<std::string>{};
  std::vector<char*> envp;
  for (std::string& e : entries) envp.push_back(e.data());
  envp.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  if (capture_stdout.empty()) {
    posix_spawn_file_actions_adddup2(&actions, STDERR_FILENO, STDOUT_FILENO);
  } else {
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, capture_stdout.c_str(),
                                     O_WRONLY | O_CREAT | O_TRUNC, 0644);
  }
  pid_t pid = 0;
  const int spawned = posix_spawn(&pid, words[0].c_str(), &actions, nullptr, argv.data(),
                                  environment ? envp.data() : environ);
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0) throw InputError("cannot run " + words[0]);
  ChildOutcome out;
  for (;;) {
    const pid_t done = waitpid(pid, &out.status, WNOHANG);
    if (done == pid || (done < 0 && errno != EINTR)) break;
    if (Interrupted() && !out.interrupted) {
      kill(pid, SIGTERM);
      out.interrupted = true;
    }
    usleep(20000);
  }
  return out;
}

}  // namespace amq
