// harness/cell/cache_sizes.h - this CPU's caches: the kernel's list for CPU 0 (sysfs), or, where a VM
// exposes none, glibc's sizes from CPUID. Every run's context records them (harness/run/context.cc),
// and amqbench_micro adds them to Google Benchmark's context, whose own list reads sysfs only and
// is empty on such VMs; plots mark them on charts against n.
#pragma once

#include <unistd.h>

#include <cstdint>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

namespace amq {

struct CacheSize {
  int level = 0;          // 1, 2, 3; 0 where only glibc's name is known
  std::string name;       // "L1d", "L1i", "L2", "L3"
  std::string type;       // sysfs: "Data", "Instruction", "Unified"; "" from glibc
  std::string size_text;  // sysfs's own text ("48K"); "" from glibc
  std::uint64_t bytes = 0;
  bool from_sysfs = false;
};

// "48K" -> 49152; 0 for text that is not a size.
inline std::uint64_t CacheBytes(const std::string& text) {
  std::size_t used = 0;
  std::uint64_t value = 0;
  try {
    value = std::stoull(text, &used);
  } catch (...) {
    return 0;
  }
  const std::string unit = text.substr(used);
  if (unit.empty()) return value;
  if (unit == "K") return value << 10;
  if (unit == "M") return value << 20;
  if (unit == "G") return value << 30;
  return 0;
}

inline std::vector<CacheSize> CacheSizes() {
  std::vector<CacheSize> caches;
  for (int index = 0; index < 8; ++index) {
    const std::string dir =
        "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index) + "/";
    std::ifstream level(dir + "level"), type(dir + "type"), size(dir + "size");
    if (!level || !type || !size) break;
    CacheSize c;
    std::string l;
    std::getline(level, l);
    std::getline(type, c.type);
    std::getline(size, c.size_text);
    c.level = std::stoi(l);
    c.name = "L" + l + (c.type == "Data" ? "d" : c.type == "Instruction" ? "i" : "");
    c.bytes = CacheBytes(c.size_text);
    c.from_sysfs = true;
    caches.push_back(c);
  }
  if (caches.empty()) {
    const std::pair<const char*, int> levels[] = {{"L1d", _SC_LEVEL1_DCACHE_SIZE},
                                                  {"L2", _SC_LEVEL2_CACHE_SIZE},
                                                  {"L3", _SC_LEVEL3_CACHE_SIZE}};
    for (const auto& [name, key] : levels) {
      const long bytes = sysconf(key);
      if (bytes > 0) caches.push_back({0, name, "", "", static_cast<std::uint64_t>(bytes), false});
    }
  }
  return caches;
}

// The data and unified caches as "L1d:49152,L2:1048576,..." (names and bytes): the one string
// a Google Benchmark custom context can hold.
inline std::string DataCacheText(const std::vector<CacheSize>& caches) {
  std::string text;
  for (const CacheSize& c : caches) {
    if (c.type == "Instruction" || c.bytes == 0) continue;
    if (!text.empty()) text += ',';
    text += c.name + ":" + std::to_string(c.bytes);
  }
  return text;
}

}  // namespace amq
