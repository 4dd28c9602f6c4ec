// harness/run/result_writer.h - result files (schema version 2) are JSON Lines: a header line
// (the experiment, the suite, the context and the ids of every cell it plans), one line per
// record, and an end line once every planned cell is written.
//
// Safe by construction:
//   - a new file is created whole with its header in a temporary file, fsync'd and renamed
//     over the target, so an existing file is replaced atomically or not at all;
//   - each finished cell's lines (its trials or windows, then its cell line) go out in one
//     write() followed by fdatasync, so the cost of saving does not grow with the grid and a
//     crash loses at most the cell that was running;
//   - resuming reads the file back, keeps every cell whose cell line is whole, cuts off a torn
//     tail (the lines of a cell that did not finish), and appends after it.
#pragma once

#include <cstddef>
#include <set>
#include <string>
#include <vector>

#include "harness/run/result_file.h"

namespace amq {

class ResultWriter {
 public:
  // A new file at `path` holding `header`; replaces any file there. Throws InputError.
  static ResultWriter Create(const std::string& path, const Json& header);

  // Reopens a file a run of the same experiment started. `header` must match the file's on
  // schema_version, experiment and suite (else InputError: a different experiment is not
  // resumed into). Cells already recorded, as "cell_id:seed", are added to `done`; whether the
  // file was finished is returned in `complete`.
  static ResultWriter Resume(const std::string& path, const Json& header, std::set<std::string>& done,
                             bool& complete);

  ResultWriter(ResultWriter&& other) noexcept;
  ResultWriter& operator=(ResultWriter&&) = delete;
  ~ResultWriter();

  // One cell: its lines, the cell line last. Each line is checked against the schema first.
  void AppendCell(const std::vector<Json>& lines);
  // The end line: the run finished every cell it planned.
  void Finish(std::size_t cells);

 private:
  ResultWriter(std::string path, int fd) : path_(std::move(path)), fd_(fd) {}
  void WriteAll(const std::string& text);

  std::string path_;
  int fd_ = -1;
};

// The data lines of a result file (header and end dropped); a torn last line is ignored.
// Throws InputError for a file that is not a version-2 result file.
std::vector<Json> ReadResultLines(const std::string& path, Json* header = nullptr,
                                  bool* complete = nullptr);

// Whether `path` holds a finished result file (a version-2 file with its end line, or a
// version-1 document marked complete): such a file is replaced only when asked to (--force).
bool IsCompleteResultFile(const std::string& path);

// Refuses (InputError) to replace a finished result file unless `force`.
void CheckReplaceable(const std::string& path, bool force);

// The key a resumed run matches cells on.
inline std::string DoneKey(const std::string& cell_id, std::uint64_t seed) {
  return cell_id + ":" + std::to_string(seed);
}

}  // namespace amq
