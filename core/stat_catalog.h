// core/stat_catalog.h - statistics that more than one filter family reports, each declared
// once here. A filter lists the ones it puts in its kStats beside its own; the schema
// (harness/run/schema.h) fails its test when one name is declared twice with different words.
#pragma once

#include "core/filter.h"

namespace amq::stat {

// Geometry shared by the fingerprint families.
inline constexpr StatSpec kFingerprintBits{"fingerprint_bits", "number", "bits",
                                           "fingerprint (or result) width f stored per slot"};
inline constexpr StatSpec kSlots{"slots", "integer", "slots",
                                 "slots (fingerprints) in the table; quotient family: 2^q canonical slots"};
inline constexpr StatSpec kSlotsPerBucket{"slots_per_bucket", "integer", "slots",
                                          "cuckoo and ACF: slots per bucket b"};
inline constexpr StatSpec kKicksTotal{"kicks_total", "integer", "count",
                                      "cuckoo and ACF: evictions over all inserts", OverTrials::kSum};
inline constexpr StatSpec kHashProbes{"hash_probes", "integer", "count",
                                      "Bloom family: bits tested per lookup (k)"};
inline constexpr StatSpec kBloomBits{"bits", "integer", "bits", "Bloom: bits in the array (m)"};
inline constexpr StatSpec kFprModel{"fpr_model", "string", "",
                                    "production filters: how fpr_theory is computed"};

// Static families (XOR, binary fuse, Ribbon).
inline constexpr StatSpec kBuildAttempts{
    "build_attempts", "integer", "count",
    "static filters: construction tries, each with a new seed derived from the cell's seed"};
inline constexpr StatSpec kDuplicatesRemoved{"duplicates_removed", "integer", "keys",
                                             "XOR and binary fuse: repeated keys dropped from the input"};

// The quotient family (quotient.h, rsqf.h, cqf.h).
inline constexpr StatSpec kQuotientBits{"quotient_bits", "integer", "bits",
                                        "quotient family: q (2^q canonical slots)"};
inline constexpr StatSpec kRemainderBits{"remainder_bits", "integer", "bits",
                                         "quotient family: r, bits stored per fingerprint"};
inline constexpr StatSpec kMetadataBitsPerSlot{"metadata_bits_per_slot", "number", "bits",
                                               "quotient family: 3 (classic QF) or 2.125 (RSQF, CQF)"};
inline constexpr StatSpec kOverflowSlots{"overflow_slots", "integer", "slots",
                                         "RSQF, CQF: slots past the 2^q canonical ones that runs may spill into"};
inline constexpr StatSpec kClusters{"clusters", "integer", "count",
                                    "quotient family: maximal runs of occupied slots that start at a home slot"};
inline constexpr StatSpec kClusterLengthMean{"cluster_length_mean", "number", "slots",
                                             "quotient family: stored fingerprints / clusters"};
inline constexpr StatSpec kClusterLengthMax{"cluster_length_max", "integer", "slots",
                                            "quotient family: longest cluster"};
inline constexpr StatSpec kRuns{"runs", "integer", "count",
                                "quotient family: runs (fingerprints sharing a quotient)"};
inline constexpr StatSpec kRunLengthMean{"run_length_mean", "number", "slots",
                                         "quotient family: fingerprints per run"};
inline constexpr StatSpec kRunLengthMax{"run_length_max", "integer", "slots",
                                        "quotient family: longest run"};
inline constexpr StatSpec kStretchLengthMean{"stretch_length_mean", "number", "slots",
                                             "quotient family: mean length of maximal occupied stretches"};
inline constexpr StatSpec kStretchLengthMax{"stretch_length_max", "integer", "slots",
                                            "quotient family: longest occupied stretch"};
inline constexpr StatSpec kDisplacementMean{
    "displacement_mean", "number", "slots",
    "quotient family: mean distance from a fingerprint's home slot to its slot"};
inline constexpr StatSpec kDisplacementMeanKnuth{
    "displacement_mean_knuth", "number|null", "slots",
    "linear-probing theory for displacement_mean: alpha / (2 (1 - alpha)); null at alpha = 1"};
inline constexpr StatSpec kProbesToEmptyMean{
    "probes_to_empty_mean", "number", "slots",
    "quotient family: mean slots from a random slot to the next empty one"};
inline constexpr StatSpec kProbesToEmptyMeanKnuth{
    "probes_to_empty_mean_knuth", "number|null", "slots",
    "linear-probing theory for probes_to_empty_mean: (1 + 1/(1 - alpha)^2) / 2; null at alpha = 1"};
inline constexpr StatSpec kOffsetMax{"offset_max", "integer", "slots",
                                     "RSQF, CQF: largest block offset"};
inline constexpr StatSpec kBitsPerKeySeed002{
    "bits_per_key_seed002_formula", "number", "bits/key",
    "(r + metadata bits) / alpha, the formula of the wiki article \"Quotient Filter\""};
inline constexpr StatSpec kBitsPerKeySeed000{
    "bits_per_key_seed000_formula", "number", "bits/key",
    "(log2(n/load) + r + 3) / load with log2(n/load) = q, the formula of the AMQ survey "
    "(\"Approximate Membership Filters: Cuckoo, Quotient, XOR, Binary Fuse\")"};

// Ribbon with fractional result bits (RocksDB's Standard128Ribbon, ribbon_frac): blocks at the
// front keep one column fewer than the rest.
inline constexpr StatSpec kRibbonColumns{"ribbon_columns", "integer", "bits",
                                         "Ribbon: result bits of the wider blocks"};
inline constexpr StatSpec kRibbonBlocksWithOneColumnLess{
    "ribbon_blocks_with_one_column_less", "integer", "blocks",
    "Ribbon: blocks with one result bit fewer"};

}  // namespace amq::stat
