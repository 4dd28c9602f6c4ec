// fuzz/fuzz_support.h - what every fuzz target shares: the input as a file, and the check that
// turns a broken promise of a reader into a finding.
//
// The readers under test take a path, as the commands hand them one. The input is written to
// one memfd per process and its /proc/self/fd path is what they open: nothing touches the disk,
// a crash leaves no file behind, and parallel fuzzing jobs never share one.
#pragma once

#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace amq::fuzz {

class InputFile {
 public:
  InputFile() : fd_(memfd_create("amq_fuzz_input", MFD_CLOEXEC)) {
    if (fd_ < 0) {
      std::perror("memfd_create");
      std::abort();
    }
    path_ = "/proc/self/fd/" + std::to_string(fd_);
  }
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;

  // Replaces the file's bytes with data[0, size) and returns its path.
  const std::string& Write(const std::uint8_t* data, std::size_t size) {
    if (ftruncate(fd_, 0) != 0) {
      std::perror("ftruncate");
      std::abort();
    }
    std::size_t done = 0;
    while (done < size) {
      const ssize_t n = pwrite(fd_, data + done, size - done, static_cast<off_t>(done));
      if (n <= 0) {
        std::perror("pwrite");
        std::abort();
      }
      done += static_cast<std::size_t>(n);
    }
    return path_;
  }

 private:
  int fd_;
  std::string path_;
};

// The input file of this process (made on first use).
inline const std::string& WriteInput(const std::uint8_t* data, std::size_t size) {
  static InputFile file;
  return file.Write(data, size);
}

// A reader's documented promise that did not hold: abort, so libFuzzer saves the input.
inline void Require(bool holds, const char* promise) {
  if (!holds) {
    std::fprintf(stderr, "fuzz finding: %s\n", promise);
    std::abort();
  }
}

}  // namespace amq::fuzz
