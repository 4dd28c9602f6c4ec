// filters/rocksdb_filters.h - RocksDB's own SST filters, measured (not re-implemented)
// through its public API (Debian's librocksdb-dev 7.8.3):
//   rocksdb_bloom   NewBloomFilterPolicy(B): FastLocalBloom, a cache-local Bloom filter
//                   (P. C. Dillinger, RocksDB wiki "RocksDB Bloom Filter"; blocked Bloom:
//                   F. Putze, P. Sanders, J. Singler, WEA 2007).
//   rocksdb_ribbon  NewRibbonFilterPolicy(B, -1): Standard128Ribbon (P. C. Dillinger,
//                   S. Walzer, "Ribbon filter: practically smaller than Bloom and Xor",
//                   arXiv:2103.02515, 2021). bloom_before_level = -1 so every level is Ribbon.
//
// Route. RocksDB's filter builder and reader classes are only forward-declared in the
// installed headers, so the filter is reached the way RocksDB itself uses it:
//   1. rocksdb::SstFileWriter writes one SST (BlockBasedTable, format_version 5, whole-key
//      filtering) holding every key, in a private mkdtemp directory under /tmp.
//   2. A DB opened in that directory ingests the file (IngestExternalFile).
//   3. contains(key) is DB::Get (read_tier = kBlockCacheTier, so a positive is not followed by
//      a data block read) under PerfLevel::kEnableCount: the SST filter answered
//      "absent" iff perf_context.bloom_sst_miss_count grew, "present" iff bloom_sst_hit_count
//      grew. Exactly one of them must grow per query; anything else (the filter was skipped)
//      throws, so no answer is ever invented by the wrapper.
// A query is therefore a whole DB::Get (microseconds; and Debian's build keeps assertions on):
// these two filters measure space and FPR only, never speed.
//
// Keys. A 64-bit key k becomes the 9-byte user key 0x01 || big-endian(k XOR SpreadSeed(seed)):
// a bijection, so distinct keys stay distinct and FilterParams.seed reaches RocksDB's
// unseeded XXH3-based hash. Two sentinel keys "\x00" and "\x02" bracket every encoded key, so
// each query lies inside the file's key range and Get always reaches the filter (outside the
// range RocksDB answers "absent" without it). The sentinels are in the filter too: it holds
// n + 2 entries (the theory below uses n + 2; bits/key divides by the caller's n). n = 0 thus
// needs no special case: the filter holds the two sentinels only.
//
// Storage. bytes() is the filter block itself, cut out of the SST by its public on-disk format
// (RocksDB wiki "Rocksdb-BlockBasedTable-Format"): the 53-byte footer (checksum type, metaindex
// and index BlockHandles padded to 40 bytes, format version, magic) -> the metaindex block
// (prefix-compressed entries, restart array) -> the "fullfilter.*" entry's BlockHandle. The
// rest of the file carries random session ids, the filter block does not: the same keys and
// seed give the same bytes. size_in_bytes() = TableProperties::filter_size (checked equal to
// the block's length), metadata trailer included.
//
// Filter layouts (read back from the block's 5-byte metadata trailer to compute theory):
//   FastLocalBloom  m = ceil(N B_milli / 512000) 64-byte blocks, then [-1, 0, k, 0, 0].
//                   A key's 64-bit hash: its low 32 bits pick the block (FastRange32), its
//                   high 32 bits h give k bit positions in the 512-bit block: the top 9 bits
//                   of h, h*0x9e3779b9, h*0x9e3779b9^2, ... k is RocksDB's ChooseNumProbes of
//                   the millibits/key (6 at 8.3 < B <= 10.07, 7 up to 11.72, ...).
//   Ribbon          S 16-byte segments over b blocks of 128 slots, then [-2, seed, b (3 bytes)].
//                   RocksDB sizes the filter for the FPR of a B-bits/key FastLocalBloom, and
//                   its r result bits (columns) need not be whole: with u = ceil(S / b), the
//                   first u b - S blocks have u - 1 columns and the others u.
//                   For tiny sets (< 1024 slots) RocksDB falls back to FastLocalBloom when that
//                   is smaller; the trailer says which one was built, and theory follows it.
//
// Theory, N = n + 2 entries:
//   FastLocalBloom  FPR = sum_j Binomial(j; N, 1/m) E[(X_kj / 512)^k], X_t the number of
//                   distinct bits t uniform probes set in a 512-bit block (occupancy law). A
//                   query's block holds j keys; probes are modelled uniform and independent.
//                   Why not (1 - (1 - 1/512)^(k j))^k: in a block this small the fill X
//                   varies, and E[X^k] > E[X]^k: at B = 10, n = 10^6 that formula gives 0.957%,
//                   this model 0.966%, a simulation with independent probes 0.965% and one
//                   with RocksDB's golden-ratio probe sequence 0.969% (unmodelled, +0.3%), as
//                   is the 32-bit in-block hash (adds < N / (m 2^32)).
//   Ribbon          a start s is uniform over the (b - 1) 128 + 1 starts; a query whose start
//                   block has c columns matches a non-key with probability 2^-c:
//                   FPR = L 2^-(u-1) + (1 - L) 2^-u,  L = 128 (u b - S) / ((b - 1) 128 + 1).
//   bits/key        the policies' documented size at the target, per caller key, with N = n + 2
//                   entries and the 40-bit trailer: FastLocalBloom (B N + 40) / n (B bits per
//                   entry); Ribbon (0.7 B N + 40) / n, filter_policy.h's "saves about 30% space
//                   compared to Bloom" ("10 ... only using about 7 bits per key"), a rule of
//                   thumb that RocksDB 7.8 meets to about 2% near B = 10 (7.10 measured at
//                   n = 10^6) and overstates as B grows (by 3% at B = 14.35, 7% at B = 20):
//                   Ribbon's size follows log2 of the Bloom FPR at B, which grows slower than B.
//                   The trailer says which one was built, and theory follows it. Rounding up to
//                   64-byte blocks (Bloom) or whole 16-byte segments of 128 slots (Ribbon) is
//                   the allocation's, which the measured 8 size_in_bytes() / n shows.
// Sizing: --bits-per-key B as given (RocksDB rounds to millibits); --fpr eps: B = 1.44
// log2(1/eps) (the Bloom-equivalent bits, 9.57 at 1%); neither: B = 10.
#pragma once

#include <rocksdb/db.h>
#include <rocksdb/filter_policy.h>
#include <rocksdb/options.h>
#include <rocksdb/perf_context.h>
#include <rocksdb/perf_level.h>
#include <rocksdb/sst_file_writer.h>
#include <rocksdb/table.h>
#include <rocksdb/table_properties.h>
#include <rocksdb/version.h>
#include <stdlib.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "filters/theory_formulas.h"
#include "core/filter.h"
#include "core/stat_catalog.h"
#include "core/hashing.h"

namespace amq {
namespace rocksdb_detail {

enum class Policy { kBloom, kRibbon };

// The 9-byte user key of a (seed-masked) 64-bit key: big-endian, so byte order is numeric
// order and a sorted copy of the masked keys is the order SstFileWriter demands.
inline void EncodeKey(std::uint64_t masked, char out[9]) {
  out[0] = 0x01;
  for (int i = 0; i < 8; ++i) out[1 + i] = static_cast<char>(masked >> (56 - 8 * i));
}

// --- The public block-based table format, just enough to find the filter block. ---

inline std::uint64_t DecodeFixed(const std::string& s, std::size_t at, int bytes) {
  std::uint64_t v = 0;
  for (int i = bytes; i-- > 0;) v = (v << 8) | static_cast<std::uint8_t>(s.at(at + i));
  return v;
}

// A LEB128 varint (RocksDB's Varint32/64) at `pos`, advancing it.
inline std::uint64_t DecodeVarint(const std::string& s, std::size_t& pos) {
  std::uint64_t v = 0;
  for (int shift = 0; shift <= 63; shift += 7) {
    const auto byte = static_cast<std::uint8_t>(s.at(pos++));
    v |= static_cast<std::uint64_t>(byte & 0x7f) << shift;
    if ((byte & 0x80) == 0) return v;
  }
  throw std::runtime_error("rocksdb sst: malformed varint");
}

struct BlockHandle {
  std::uint64_t offset = 0;
  std::uint64_t size = 0;
};

inline BlockHandle DecodeHandle(const std::string& s, std::size_t& pos) {
  BlockHandle h;
  h.offset = DecodeVarint(s, pos);
  h.size = DecodeVarint(s, pos);
  return h;
}

inline std::string ReadRange(std::ifstream& in, std::uint64_t offset, std::uint64_t size) {
  std::string out(size, '\0');
  in.seekg(static_cast<std::streamoff>(offset));
  in.read(out.data(), static_cast<std::streamsize>(size));
  if (!in) throw std::runtime_error("rocksdb sst: short read");
  return out;
}

// The contents of the SST's full filter block (without the 5-byte block trailer of
// compression type and checksum, which the handle's size excludes).
inline std::vector<std::uint8_t> ReadFilterBlock(const std::string& path) {
  constexpr std::uint64_t kFooterSize = 1 + 40 + 4 + 8;  // format_version 1..5
  constexpr std::uint64_t kBlockBasedTableMagic = 0x88e241b785f4cff7ULL;
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) throw std::runtime_error("rocksdb sst: cannot open " + path);
  const auto file_size = static_cast<std::uint64_t>(in.tellg());
  if (file_size < kFooterSize) throw std::runtime_error("rocksdb sst: file too short");
  const std::string footer = ReadRange(in, file_size - kFooterSize, kFooterSize);
  if (DecodeFixed(footer, 45, 8) != kBlockBasedTableMagic || DecodeFixed(footer, 41, 4) != 5) {
    throw std::runtime_error("rocksdb sst: not a format_version 5 block-based table");
  }
  std::size_t pos = 1;  // after the checksum type byte
  const BlockHandle metaindex_handle = DecodeHandle(footer, pos);
  const std::string meta = ReadRange(in, metaindex_handle.offset, metaindex_handle.size);

  // Entries: varint shared, varint non_shared, varint value_length, key delta, value; then
  // fixed32 restart offsets and a fixed32 restart count (whose top bit would flag a hash
  // index, never set on a metaindex block).
  if (meta.size() < 4) throw std::runtime_error("rocksdb sst: metaindex too short");
  const std::uint64_t restarts = DecodeFixed(meta, meta.size() - 4, 4) & 0x7fffffffULL;
  if (4 * (restarts + 1) > meta.size()) throw std::runtime_error("rocksdb sst: bad metaindex");
  const std::size_t entries_end = meta.size() - 4 * (restarts + 1);
  std::string key;
  for (pos = 0; pos < entries_end;) {
    const std::uint64_t shared = DecodeVarint(meta, pos);
    const std::uint64_t non_shared = DecodeVarint(meta, pos);
    const std::uint64_t value_length = DecodeVarint(meta, pos);
    if (shared > key.size() || pos + non_shared + value_length > entries_end) {
      throw std::runtime_error("rocksdb sst: bad metaindex entry");
    }
    key.resize(shared);
    key.append(meta, pos, non_shared);
    pos += non_shared;
    std::size_t value_pos = pos;
    pos += value_length;
    if (key.starts_with("fullfilter.")) {
      const BlockHandle filter = DecodeHandle(meta, value_pos);
      const std::string block = ReadRange(in, filter.offset, filter.size);
      return {block.begin(), block.end()};
    }
  }
  throw std::runtime_error("rocksdb sst: no full filter block in the metaindex");
}

// A private directory under /tmp, removed with everything in it when the last filter copy
// sharing it goes; the DB is closed first.
struct Store {
  std::string dir;
  std::unique_ptr<rocksdb::DB> db;

  Store() {
    std::string pattern = (std::filesystem::temp_directory_path() / "amq_rocksdb_XXXXXX");
    if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("rocksdb: mkdtemp failed");
    dir = pattern;
  }
  Store(const Store&) = delete;
  Store& operator=(const Store&) = delete;
  ~Store() {
    if (db) db->Close().PermitUncheckedError();
    db.reset();
    std::error_code ignored;
    std::filesystem::remove_all(dir, ignored);
  }
};

// The cache-local Bloom model above: a Binomial(N, 1/m) mixture over the block's load j; a
// block hit by t = k j uniform probes has X set bits with the occupancy distribution (built
// up probe by probe), and a query's k probes all land on set bits with E[(X / 512)^k].
inline double LocalBloomFpr(double entries, double blocks, int k) {
  if (entries <= 0 || blocks <= 0 || k <= 0) return 0.0;
  constexpr int kBits = 512;
  const double p = 1.0 / blocks;
  const double mean = entries * p;
  const double sd = std::sqrt(entries * p * (1 - p));
  const double last = std::min(entries, std::floor(mean + 12 * sd + 40));
  std::vector<double> occupancy(kBits + 1, 0.0), next(kBits + 1);
  occupancy[0] = 1.0;
  double fpr = 0;
  for (double j = 0; j <= last; ++j) {
    double log_pmf = std::lgamma(entries + 1) - std::lgamma(j + 1) - std::lgamma(entries - j + 1) +
                     j * std::log(p);
    if (entries - j > 0) log_pmf += (entries - j) * std::log1p(-p);
    double all_set = 0;
    for (int x = 1; x <= kBits; ++x) {
      all_set += occupancy[x] * std::pow(static_cast<double>(x) / kBits, k);
    }
    fpr += std::exp(log_pmf) * all_set;
    for (int probe = 0; probe < k; ++probe) {  // the next key's k probes
      next[0] = 0.0;                           // after a probe at least one bit is set
      for (int x = 1; x <= kBits; ++x) {
        next[x] = occupancy[x] * x / kBits + occupancy[x - 1] * (kBits - x + 1) / kBits;
      }
      occupancy.swap(next);
    }
  }
  return fpr;
}

}  // namespace rocksdb_detail

template <rocksdb_detail::Policy kPolicy>
class RocksDbFilter {
  using Policy = rocksdb_detail::Policy;

 public:
  static constexpr std::string_view kName =
      kPolicy == Policy::kBloom ? "rocksdb_bloom" : "rocksdb_ribbon";
  static constexpr std::string_view kLibrary = "rocksdb";
  static constexpr std::string_view kFamily = kPolicy == Policy::kBloom ? "bloom" : "ribbon";
  static constexpr std::string_view kParameters =
      kPolicy == Policy::kBloom
          ? "RocksDB 7.8 NewBloomFilterPolicy(B) (FastLocalBloom) in a real SST queried by "
            "DB::Get: space and FPR only, queries cost microseconds; --bits-per-key B; --fpr "
            "eps: B = 1.44*log2(1/eps); default B = 10; k by RocksDB's rule (6 at B = 10)"
          : "RocksDB 7.8 NewRibbonFilterPolicy(B, -1) (Standard128Ribbon) in a real SST "
            "queried by DB::Get: space and FPR only, queries cost microseconds; B is the "
            "Bloom-equivalent bits/key: --bits-per-key B; --fpr eps: B = 1.44*log2(1/eps); "
            "default B = 10";

  static double BitsPerKeyFor(const FilterParams& p) {
    if (p.bits_per_key > 0) return p.bits_per_key;
    if (p.target_fpr > 0) return 1.44 * std::log2(1.0 / p.target_fpr);
    return 10.0;
  }

  // filter_policy.h: "if you pass in 10 for bloom_equivalent_bits_per_key, you'll get the same
  // 0.95% FP rate as Bloom filter but only using about 7 bits per key".
  static constexpr double kRibbonBitsPerBloomBit = 0.7;
  // The filter block's metadata trailer, after the bits: [-1, 0, k, 0, 0] or [-2, seed, b].
  static constexpr std::size_t kTrailerBytes = 5;

  static RocksDbFilter build(std::span<const std::uint64_t> keys, const FilterParams& p) {
    return build(keys, p, BitsPerKeyFor(p));
  }

  // The bits/key given to RocksDB's policy directly instead of BitsPerKeyFor(p): the tests' way
  // to mis-size a filter on purpose. theory() still follows p.
  static RocksDbFilter build(std::span<const std::uint64_t> keys, const FilterParams& p,
                             double policy_bits_per_key) {
    RocksDbFilter f;
    f.target_bits_per_key_ = BitsPerKeyFor(p);
    f.bits_per_key_ = policy_bits_per_key;
    // Below half a bit per key RocksDB's policies build no filter at all (it rounds the
    // millibits to zero), so there is nothing to measure: a build that fails, not a crash.
    if (f.bits_per_key_ < 0.5) {
      throw BuildFailed(std::string(kName) + ": RocksDB builds no filter below 0.5 bits/key (asked " +
                        std::to_string(f.bits_per_key_) + ")");
    }
    f.keys_ = keys.size();
    f.mask_ = SpreadSeed(p.seed);
    f.store_ = std::make_shared<rocksdb_detail::Store>();

    rocksdb::BlockBasedTableOptions table;
    table.filter_policy.reset(kPolicy == Policy::kBloom
                                  ? rocksdb::NewBloomFilterPolicy(f.bits_per_key_)
                                  : rocksdb::NewRibbonFilterPolicy(f.bits_per_key_, -1));
    table.whole_key_filtering = true;
    table.format_version = 5;                     // the footer layout ReadFilterBlock parses
    table.optimize_filters_for_memory = false;    // sizes exactly as the formulas, no malloc fit
    table.cache_index_and_filter_blocks = false;  // the table reader keeps the filter
    rocksdb::Options options;
    options.table_factory.reset(rocksdb::NewBlockBasedTableFactory(table));
    options.compression = rocksdb::kNoCompression;
    options.create_if_missing = true;
    options.disable_auto_compactions = true;
    options.max_open_files = -1;  // the one table stays open, its filter in memory
    options.stats_dump_period_sec = 0;
    options.stats_persist_period_sec = 0;
    options.info_log_level = rocksdb::InfoLogLevel::WARN_LEVEL;

    // SstFileWriter needs strictly increasing keys: sort the masked keys (dropping duplicates,
    // which the contract excludes anyway) between the two sentinels.
    std::vector<std::uint64_t> masked(keys.begin(), keys.end());
    for (std::uint64_t& k : masked) k ^= f.mask_;
    std::sort(masked.begin(), masked.end());
    masked.erase(std::unique(masked.begin(), masked.end()), masked.end());

    const std::string sst = f.store_->dir + "/filter.sst";
    rocksdb::SstFileWriter writer(rocksdb::EnvOptions(), options);
    Check(writer.Open(sst), "SstFileWriter::Open");
    Check(writer.Put(rocksdb::Slice("\x00", 1), rocksdb::Slice()), "SstFileWriter::Put");
    char encoded[9];
    for (std::uint64_t k : masked) {
      rocksdb_detail::EncodeKey(k, encoded);
      Check(writer.Put(rocksdb::Slice(encoded, 9), rocksdb::Slice()), "SstFileWriter::Put");
    }
    Check(writer.Put(rocksdb::Slice("\x02", 1), rocksdb::Slice()), "SstFileWriter::Put");
    Check(writer.Finish(), "SstFileWriter::Finish");
    f.entries_ = masked.size() + 2;
    f.filter_ =
        std::make_shared<const std::vector<std::uint8_t>>(rocksdb_detail::ReadFilterBlock(sst));

    rocksdb::DB* db = nullptr;
    Check(rocksdb::DB::Open(options, f.store_->dir + "/db", &db), "DB::Open");
    f.store_->db.reset(db);
    rocksdb::IngestExternalFileOptions ingest;
    ingest.move_files = true;
    Check(db->IngestExternalFile({sst}, ingest), "DB::IngestExternalFile");

    rocksdb::TablePropertiesCollection tables;
    Check(db->GetPropertiesOfAllTables(&tables), "DB::GetPropertiesOfAllTables");
    if (tables.size() != 1 || tables.begin()->second->filter_size != f.filter_->size()) {
      throw BuildFailed(std::string(kName) + ": the parsed filter block is not the SST's filter");
    }
    f.policy_name_ = tables.begin()->second->filter_policy_name;
    f.Describe();
    return f;
  }

  bool contains(std::uint64_t key) const {
    char encoded[9];
    rocksdb_detail::EncodeKey(key ^ mask_, encoded);
    const rocksdb::PerfLevel previous = rocksdb::GetPerfLevel();
    rocksdb::SetPerfLevel(rocksdb::PerfLevel::kEnableCount);
    rocksdb::PerfContext* perf = rocksdb::get_perf_context();
    const std::uint64_t hits = perf->bloom_sst_hit_count, misses = perf->bloom_sst_miss_count;
    rocksdb::PinnableSlice value;
    // kBlockCacheTier: after a "present" filter answer Get may not read the data block from
    // the file (it returns Incomplete instead), which halves the cost of a positive; the
    // filter is consulted the same way, from the table reader that holds it.
    rocksdb::ReadOptions read;
    read.read_tier = rocksdb::kBlockCacheTier;
    const rocksdb::Status s = store_->db->Get(read, store_->db->DefaultColumnFamily(),
                                              rocksdb::Slice(encoded, 9), &value);
    const std::uint64_t hit = perf->bloom_sst_hit_count - hits;
    const std::uint64_t miss = perf->bloom_sst_miss_count - misses;
    rocksdb::SetPerfLevel(previous);
    if (!s.ok() && !s.IsNotFound() && !s.IsIncomplete())
      throw std::runtime_error("rocksdb Get: " + s.ToString());
    if (hit + miss != 1) throw std::logic_error("rocksdb Get did not consult the SST filter once");
    return hit == 1;
  }

  std::size_t size_in_bytes() const { return filter_->size(); }
  std::span<const std::uint8_t> bytes() const { return {filter_->data(), filter_->size()}; }

  Theory theory() const {
    const double per_entry = built_as_ == "standard128_ribbon"
                                 ? kRibbonBitsPerBloomBit * target_bits_per_key_
                                 : target_bits_per_key_;
    return {model_fpr_, keys_ ? PolicyBitsPerKey(per_entry, static_cast<double>(entries_),
                                                 8.0 * kTrailerBytes, static_cast<double>(keys_))
                              : 0.0};
  }

  // What the metadata trailer says RocksDB built: "fast_local_bloom", "standard128_ribbon",
  // or "empty" (a 0-byte always-false filter, never seen here: the sentinels are entries).
  std::string_view built_as() const { return built_as_; }
  const std::string& directory() const { return store_->dir; }
  int probes() const { return probes_; }
  std::size_t ribbon_blocks() const { return ribbon_blocks_; }
  int ribbon_upper_columns() const { return upper_columns_; }
  std::size_t ribbon_lower_blocks() const { return lower_blocks_; }

  // The statistics add_stats reports (core/filter.h).
  static constexpr StatSpec kStats[] = {
      {"rocksdb_version", "string", "", "RocksDB: library version"},
      {"filter_policy", "string", "", "RocksDB: the policy call"},
      {"filter_policy_name", "string", "", "RocksDB: the policy's own name"},
      {"bits_per_key_equivalent", "number", "bits/key", "RocksDB: bits/key given to the policy"},
      {"built_as", "string", "", "RocksDB: what it built (Ribbon falls back to Bloom for tiny sets)"},
      {"filter_entries", "integer", "keys", "RocksDB: keys in the filter, n plus two range sentinels"},
      stat::kHashProbes,
      {"blocks_512bit", "integer", "blocks", "RocksDB FastLocalBloom: 64-byte blocks"},
      {"ribbon_blocks", "integer", "blocks", "RocksDB Ribbon: 128-slot blocks"},
      stat::kRibbonColumns,
      stat::kRibbonBlocksWithOneColumnLess,
      {"ribbon_seed", "integer", "", "RocksDB Ribbon: the seed RocksDB's builder settled on"},
      stat::kFprModel,
      {"speed_note", "string", "", "why a filter's timings do not mean what they say"}};

  void add_stats(Stats& s) const {
    s.put("rocksdb_version", std::to_string(ROCKSDB_MAJOR) + "." + std::to_string(ROCKSDB_MINOR) +
                           "." + std::to_string(ROCKSDB_PATCH));
    s.put("filter_policy", std::string(kPolicy == Policy::kBloom ? "NewBloomFilterPolicy("
                                                               : "NewRibbonFilterPolicy(") +
                         std::to_string(bits_per_key_) +
                         (kPolicy == Policy::kBloom ? ")" : ", -1)"));
    s.put("filter_policy_name", policy_name_);
    s.put("bits_per_key_equivalent", bits_per_key_);
    s.put("built_as", built_as_);
    s.put("filter_entries", entries_);  // n + the 2 sentinel keys
    if (built_as_ == "fast_local_bloom") {
      s.put("hash_probes", probes_);
      s.put("blocks_512bit", (size_in_bytes() - kTrailerBytes) / 64);
    } else if (built_as_ == "standard128_ribbon") {
      s.put("ribbon_blocks", ribbon_blocks_);
      s.put("ribbon_columns", upper_columns_);
      s.put("ribbon_blocks_with_one_column_less", lower_blocks_);
      s.put("ribbon_seed", ribbon_seed_);
    }
    s.put("fpr_model", built_as_ == "standard128_ribbon"
            ? "2^-columns mixed over start blocks"
            : "Binomial(N = n + 2) mixture over 512-bit blocks of E[(set bits / 512)^k]");
    s.put("speed_note", "each query is a DB::Get: only space and FPR are meaningful");
  }

 private:
  static void Check(const rocksdb::Status& s, const char* what) {
    if (!s.ok()) throw BuildFailed(std::string(kName) + ": " + what + ": " + s.ToString());
  }

  // Reads the metadata trailer and computes the model FPR for the filter actually built.
  void Describe() {
    const std::vector<std::uint8_t>& b = *filter_;
    if (b.empty()) {
      built_as_ = "empty";
      model_fpr_ = 0.0;
      return;
    }
    if (b.size() < kTrailerBytes) {
      throw BuildFailed(std::string(kName) + ": filter shorter than its trailer");
    }
    const std::size_t len = b.size() - kTrailerBytes;
    const auto marker = static_cast<std::int8_t>(b[len]);
    if (marker == -1 && b[len + 1] == 0 && len % 64 == 0 && len > 0) {
      built_as_ = "fast_local_bloom";
      probes_ = b[len + 2];
      model_fpr_ = rocksdb_detail::LocalBloomFpr(static_cast<double>(entries_),
                                                 static_cast<double>(len / 64), probes_);
    } else if (marker == -2 && len % 16 == 0) {
      built_as_ = "standard128_ribbon";
      ribbon_seed_ = b[len + 1];
      ribbon_blocks_ =
          b[len + 2] | (std::size_t{b[len + 3]} << 8) | (std::size_t{b[len + 4]} << 16);
      const std::size_t segments = len / 16;
      if (ribbon_blocks_ < 2 || segments < ribbon_blocks_) {
        throw BuildFailed(std::string(kName) + ": unexpected Ribbon geometry");
      }
      upper_columns_ = static_cast<int>((segments + ribbon_blocks_ - 1) / ribbon_blocks_);
      lower_blocks_ = upper_columns_ * ribbon_blocks_ - segments;
      const double starts = static_cast<double>(ribbon_blocks_ - 1) * 128 + 1;
      const double lower = std::min(1.0, 128.0 * static_cast<double>(lower_blocks_) / starts);
      model_fpr_ = lower * std::ldexp(1.0, -(upper_columns_ - 1)) +
                   (1 - lower) * std::ldexp(1.0, -upper_columns_);
    } else {
      throw BuildFailed(std::string(kName) + ": unexpected filter metadata");
    }
  }

  std::shared_ptr<rocksdb_detail::Store> store_;
  std::shared_ptr<const std::vector<std::uint8_t>> filter_;
  std::string policy_name_;
  std::string built_as_;
  double bits_per_key_ = 10;         // given to the policy
  double target_bits_per_key_ = 10;  // asked for: what theory() sizes by
  double model_fpr_ = 0;
  std::uint64_t mask_ = 0;
  std::size_t keys_ = 0;
  std::size_t entries_ = 0;
  int probes_ = 0;
  std::size_t ribbon_blocks_ = 0;
  int upper_columns_ = 0;
  std::size_t lower_blocks_ = 0;
  int ribbon_seed_ = 0;
};

using RocksDbBloom = RocksDbFilter<rocksdb_detail::Policy::kBloom>;
using RocksDbRibbon = RocksDbFilter<rocksdb_detail::Policy::kRibbon>;

}  // namespace amq
