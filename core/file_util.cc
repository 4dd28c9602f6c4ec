#include "core/file_util.h"

#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <vector>

#include "core/errors.h"

namespace amq {

void CheckReadableFile(const std::string& path, const std::string& what) {
  struct stat info {};
  if (stat(path.c_str(), &info) != 0) {
    throw InputError("cannot open " + what + " '" + path + "': " + std::strerror(errno));
  }
  if (!S_ISREG(info.st_mode)) {
    throw InputError(what + " '" + path + "' is not a regular file");
  }
  if (access(path.c_str(), R_OK) != 0) {
    throw InputError("cannot read " + what + " '" + path + "': " + std::strerror(errno));
  }
  if (info.st_size == 0) throw InputError(what + " '" + path + "' is empty");
}

std::string FileContentHash(const std::string& path) {
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path.c_str(), "rb"),
                                                       &std::fclose);
  if (!file) throw InputError("cannot read '" + path + "': " + std::strerror(errno));
  std::unique_ptr<XXH3_state_t, XXH_errorcode (*)(XXH3_state_t*)> state(XXH3_createState(),
                                                                        &XXH3_freeState);
  XXH3_64bits_reset(state.get());
  std::vector<char> buffer(1 << 16);
  std::size_t got;
  while ((got = std::fread(buffer.data(), 1, buffer.size(), file.get())) > 0) {
    XXH3_64bits_update(state.get(), buffer.data(), got);
  }
  if (std::ferror(file.get())) throw InputError("error reading '" + path + "'");
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx",
                static_cast<unsigned long long>(XXH3_64bits_digest(state.get())));
  return hex;
}

std::string BaseName(const std::string& path) {
  const auto slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

AtomicOutput::AtomicOutput(const std::string& path)
    : path_(path), temp_(path + ".tmp." + std::to_string(getpid())) {
  out_.open(temp_, std::ios::binary | std::ios::trunc);
  if (!out_) {
    throw InputError("cannot write '" + path + "': " + std::strerror(errno));
  }
}

AtomicOutput::~AtomicOutput() {
  if (!committed_) {
    out_.close();
    std::remove(temp_.c_str());
  }
}

void AtomicOutput::Commit() {
  out_.flush();
  const bool ok = static_cast<bool>(out_);
  out_.close();
  if (!ok || out_.fail()) {
    throw InputError("error writing '" + path_ + "' (disk full?)");
  }
  if (std::rename(temp_.c_str(), path_.c_str()) != 0) {
    throw InputError("cannot rename '" + temp_ + "' to '" + path_ + "': " + std::strerror(errno));
  }
  committed_ = true;
}

}  // namespace amq
