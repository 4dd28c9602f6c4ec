// harness/run/result_writer.cc - JSON Lines result files (see the header).
#include "harness/run/result_writer.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/errors.h"
#include "harness/run/schema.h"

namespace amq {
namespace {

std::string DirectoryOf(const std::string& path) {
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  return parent.empty() ? "." : parent.string();
}

// fsync of the directory makes a rename durable, not just the file's bytes.
void SyncDirectory(const std::string& path) {
  const int dir = open(DirectoryOf(path).c_str(), O_RDONLY | O_DIRECTORY);
  if (dir >= 0) {
    fsync(dir);
    close(dir);
  }
}

void WriteFully(int fd, const std::string& text, const std::string& path) {
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw InputError("cannot write " + path + ": " + std::strerror(errno));
    done += static_cast<std::size_t>(n);
  }
}

std::string ReadWhole(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError("cannot read " + path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// A member of a line read back from a file, or null. The file is outside input: on a line that
// is not an object, or a member of another type than a run writes, nlohmann's value() throws a
// type_error and its const operator[] asserts (or, without asserts, reads past the end).
const Json& Member(const Json& line, const char* key) {
  static const Json kAbsent;
  if (!line.is_object()) return kAbsent;
  const auto it = line.find(key);
  return it == line.end() ? kAbsent : *it;
}

std::string RecordKind(const Json& line) {
  const Json& kind = Member(line, "record");
  return kind.is_string() ? kind.get<std::string>() : "";
}

// The same suite file (by content, wherever it was read from), quick or not, the same shard.
bool SameSuite(const Json& a, const Json& b) {
  if (a.is_null() || b.is_null()) return a.is_null() && b.is_null();
  for (const char* key : {"file_hash", "quick", "shard"}) {
    if (Member(a, key) != Member(b, key)) return false;
  }
  return true;
}

// One writer per file: a second run on the same output fails at once instead of interleaving
// its cells with the first one's (the lock goes with the descriptor, so a killed run frees it).
void LockOrFail(int fd, const std::string& path) {
  if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
    throw InputError(path + " is being written by another amqbench run");
  }
}

// Temporaries (<path>.tmp.<pid>) left by runs that were killed: removed, unless their process
// is still alive.
void RemoveStaleTemporaries(const std::string& path) {
  const std::filesystem::path target(path);
  const std::string prefix = target.filename().string() + ".tmp.";
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(DirectoryOf(path), error)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind(prefix, 0) != 0) continue;
    const std::string pid_text = name.substr(prefix.size());
    if (pid_text.empty() || pid_text.find_first_not_of("0123456789") != std::string::npos) continue;
    const long pid = std::stol(pid_text);
    if (pid == getpid() || (kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH)) {
      std::filesystem::remove(entry.path(), error);
    }
  }
}

bool SameExperiment(const Json& a, const Json& b) {
  return Member(a, "schema_version") == Member(b, "schema_version") &&
         Member(Member(a, "experiment"), "id") == Member(Member(b, "experiment"), "id") &&
         Member(Member(a, "experiment"), "kind") == Member(Member(b, "experiment"), "kind") &&
         SameSuite(Member(a, "suite"), Member(b, "suite"));
}

}  // namespace

ResultWriter ResultWriter::Create(const std::string& path, const Json& header) {
  RemoveStaleTemporaries(path);
  if (const int existing = open(path.c_str(), O_RDONLY | O_CLOEXEC); existing >= 0) {
    const bool free = flock(existing, LOCK_EX | LOCK_NB) == 0;
    close(existing);
    if (!free) throw InputError(path + " is being written by another amqbench run");
  }
  const std::string temp = path + ".tmp." + std::to_string(getpid());
  const int fd = open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) throw InputError("cannot write output file " + path + ": " + std::strerror(errno));
  try {
    WriteFully(fd, header.dump() + "\n", path);
    if (fsync(fd) != 0) throw InputError("cannot write output file " + path);
  } catch (...) {
    close(fd);
    unlink(temp.c_str());
    throw;
  }
  if (std::rename(temp.c_str(), path.c_str()) != 0) {
    close(fd);
    unlink(temp.c_str());
    throw InputError("cannot rename " + temp + " to " + path);
  }
  SyncDirectory(path);
  // The descriptor still names the file, now under its final name; appends go to it.
  try {
    LockOrFail(fd, path);
  } catch (...) {
    close(fd);
    throw;
  }
  if (lseek(fd, 0, SEEK_END) < 0) {
    close(fd);
    throw InputError("cannot write output file " + path);
  }
  return ResultWriter(path, fd);
}

ResultWriter ResultWriter::Resume(const std::string& path, const Json& header,
                                  std::set<std::string>& done, bool& complete) {
  const std::string text = ReadWhole(path);
  complete = false;
  // Keep everything up to the end of the last whole cell line; what follows is a torn tail.
  std::size_t keep = 0, position = 0;
  bool first = true;
  while (position < text.size()) {
    const std::size_t newline = text.find('\n', position);
    if (newline == std::string::npos) break;  // a line without its newline was cut short
    const std::string line = text.substr(position, newline - position);
    position = newline + 1;
    Json j;
    try {
      j = Json::parse(line);
    } catch (const Json::exception&) {  // not JSON, or a number beyond a double (1e999)
      break;
    }
    if (first) {
      if (RecordKind(j) != "header" || !SameExperiment(j, header)) {
        throw InputError(path + " holds another experiment's results (or another suite's); "
                         "not resuming into it");
      }
      first = false;
      keep = position;
      continue;
    }
    const std::string kind = RecordKind(j);
    if (kind == "cell") {
      const Json& id = Member(j, "cell_id");
      const Json& seed = Member(j, "seed");
      done.insert(DoneKey(id.is_string() ? id.get<std::string>() : "",
                          seed.is_number_unsigned() ? seed.get<std::uint64_t>() : 0));
      keep = position;
    } else if (kind == "end") {
      complete = true;
      keep = position;
    }
  }
  if (first) throw InputError(path + " is not a result file (no header line)");
  RemoveStaleTemporaries(path);
  const int fd = open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) throw InputError("cannot write output file " + path + ": " + std::strerror(errno));
  try {
    LockOrFail(fd, path);
  } catch (...) {
    close(fd);
    throw;
  }
  if (ftruncate(fd, static_cast<off_t>(keep)) != 0 || lseek(fd, 0, SEEK_END) < 0) {
    close(fd);
    throw InputError("cannot write output file " + path);
  }
  return ResultWriter(path, fd);
}

ResultWriter::ResultWriter(ResultWriter&& other) noexcept
    : path_(std::move(other.path_)), fd_(other.fd_) {
  other.fd_ = -1;
}

ResultWriter::~ResultWriter() {
  if (fd_ >= 0) close(fd_);
}

void ResultWriter::WriteAll(const std::string& text) {
  WriteFully(fd_, text, path_);
  if (fdatasync(fd_) != 0) throw InputError("cannot write output file " + path_);
}

void ResultWriter::AppendCell(const std::vector<Json>& lines) {
  std::string text;
  for (const Json& line : lines) {
    CheckRecordAgainstSchema(line);
    text += line.dump();
    text += '\n';
  }
  WriteAll(text);
}

void ResultWriter::Finish(std::size_t cells) {
  WriteAll(Json{{"record", "end"}, {"complete", true}, {"cells", cells}}.dump() + "\n");
}

std::vector<Json> ReadResultLines(const std::string& path, Json* header, bool* complete) {
  const std::string text = ReadWhole(path);
  std::vector<Json> lines;
  std::istringstream in(text);
  bool first = true;
  if (complete) *complete = false;
  for (std::string line; std::getline(in, line);) {
    if (line.empty()) continue;
    Json j;
    try {
      j = Json::parse(line);
    } catch (const Json::exception&) {  // not JSON, or a number beyond a double (1e999)
      if (in.peek() == EOF) break;  // a torn last line: the run was cut off mid-write
      throw InputError(path + ": a line is not JSON");
    }
    if (first) {
      if (RecordKind(j) != "header" || Member(j, "schema_version") != kResultSchemaVersion) {
        throw InputError(path + " is not an amqbench result file of schema version " +
                         std::to_string(kResultSchemaVersion));
      }
      if (header) *header = j;
      first = false;
      continue;
    }
    if (!j.is_object()) throw InputError(path + ": a line is not a JSON object");
    if (RecordKind(j) == "end") {
      if (complete) *complete = true;
      continue;
    }
    lines.push_back(std::move(j));
  }
  if (first) throw InputError(path + " is empty, not a result file");
  return lines;
}

bool IsCompleteResultFile(const std::string& path) {
  if (!std::filesystem::is_regular_file(path)) return false;
  try {
    std::string text = ReadWhole(path);
    while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
    if (text.rfind("{\"record\"", 0) != 0) {
      const Json doc = Json::parse(text);  // version 1: one document
      return doc.is_object() && doc.value("complete", false);
    }
    const Json last = Json::parse(text.substr(text.rfind('\n') + 1));
    return last.value("record", "") == "end" && last.value("complete", false);
  } catch (const std::exception&) {
    return false;  // unreadable or not a result file: nothing finished to protect
  }
}

void CheckReplaceable(const std::string& path, bool force) {
  if (!force && IsCompleteResultFile(path)) {
    throw InputError(path + " holds a finished run; --force replaces it (or --out another file)");
  }
}

}  // namespace amq
