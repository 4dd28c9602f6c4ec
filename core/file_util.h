// core/file_util.h - the file chores every reader and writer here shares: refusing a path that
// is not a readable, non-empty regular file with one clear message; naming a file's content by
// its hash; and writing output whole or not at all (a temporary file renamed over the target, so
// a reader never sees half a trace and an interrupted writer leaves the old file in place).
#pragma once

#include <cstdint>
#include <fstream>
#include <string>

namespace amq {

// Throws InputError unless `path` names a regular file that can be opened and is not empty.
// `what` names the file's role in the message ("trace", "key file", ...).
void CheckReadableFile(const std::string& path, const std::string& what);

// XXH3-64 of the file's bytes, as 16 lowercase hex digits. Throws InputError if unreadable.
std::string FileContentHash(const std::string& path);

std::string BaseName(const std::string& path);

// Opens path.tmp.<pid> for writing; Commit() flushes, checks for write errors and renames it
// over `path`. Destroyed without Commit() (an exception on the way), it removes the temporary.
class AtomicOutput {
 public:
  explicit AtomicOutput(const std::string& path);  // throws InputError if it cannot create it
  ~AtomicOutput();
  AtomicOutput(const AtomicOutput&) = delete;
  AtomicOutput& operator=(const AtomicOutput&) = delete;

  std::ofstream& stream() { return out_; }
  void Commit();  // throws InputError on a failed write or rename

 private:
  std::string path_;
  std::string temp_;
  std::ofstream out_;
  bool committed_ = false;
};

}  // namespace amq
