"""Published and reference figures the report sets our measurements beside.

Sources (facts carried over, not results of this code):
  SEED_LAB        seed 000's hand-rolled cuckoo lab, its printed output
                  (../shared/seeds/000_*.txt; REFERENCE_NUMBERS.md §5)
  SEED_1PCT       seed 000's head-to-head table at 1% FPR, bits/key (REFERENCE_NUMBERS.md §5)
  PRODUCTION      RocksDB and LevelDB from Debian's packages at n = 10^6 (REFERENCE_NUMBERS.md §3)
  FASTFILTER      FastFilter's fastfilter_cpp bulk-insert-and-query at n = 10^6 on this machine
                  class, ns/key as (median, best) of 6 runs (REFERENCE_NUMBERS.md §2)
"""

SEED_LAB = {
    "fingerprint_bits": 10,
    "buckets": 8192,
    "load_factor": 0.9155,
    "bits_per_key": 10.92,
    "fpr": 0.0074,
    "fpr_theory": 0.0078,
    "kicks_total": 21953,
    "insert_failures": 0,
    "negative_queries": 30000,
}

# (our filter, operation) -> (FastFilter variant, median ns/key, best ns/key)
FASTFILTER = {
    ("bloom", "insert"): ("Bloom12 (k = 8)", 12.0, 7.6),
    ("bloom", "query_present"): ("Bloom12 (k = 8)", 14.0, 9.3),
    ("bloom", "query_absent"): ("Bloom12 (k = 8)", 24.0, 19.0),
    ("blocked_bloom", "insert"): ("BlockedBloom (256-bit, SIMD)", 4.0, 2.5),
    ("blocked_bloom", "query_present"): ("BlockedBloom (256-bit, SIMD)", 5.9, 3.7),
    ("blocked_bloom", "query_absent"): ("BlockedBloom (256-bit, SIMD)", 6.0, 3.7),
    ("cuckoo8", "insert"): ("Cuckoo8", 39.0, 33.0),
    ("cuckoo8", "query_present"): ("Cuckoo8", 8.0, 6.0),
    ("cuckoo8", "query_absent"): ("Cuckoo8", 8.9, 6.6),
    ("cuckoo12", "insert"): ("Cuckoo12", 44.0, 39.0),
    ("cuckoo12", "query_present"): ("Cuckoo12", 9.2, 7.0),
    ("cuckoo12", "query_absent"): ("Cuckoo12", 9.7, 7.1),
    ("cuckoo16", "insert"): ("Cuckoo16", 43.0, 38.0),
    ("cuckoo16", "query_present"): ("Cuckoo16", 9.4, 7.2),
    ("cuckoo16", "query_absent"): ("Cuckoo16", 9.4, 7.0),
    ("xor8", "build"): ("Xor8", 301.0, 235.0),
    ("xor8", "query_present"): ("Xor8", 6.3, 4.8),
    ("xor8", "query_absent"): ("Xor8", 6.8, 5.4),
    ("xor16", "build"): ("Xor16", 185.0, 148.0),
    ("xor16", "query_present"): ("Xor16", 8.0, 5.9),
    ("xor16", "query_absent"): ("Xor16", 10.5, 7.3),
    ("binary_fuse8", "build"): ("BinaryFuse8", 52.0, 38.0),
    ("binary_fuse8", "query_present"): ("BinaryFuse8", 8.3, 4.9),
    ("binary_fuse8", "query_absent"): ("BinaryFuse8", 8.6, 5.4),
    ("binary_fuse8_4wise", "build"): ("BinaryFuse8 4-wise", 51.0, 37.0),
    ("binary_fuse8_4wise", "query_present"): ("BinaryFuse8 4-wise", 8.3, 5.3),
    ("binary_fuse8_4wise", "query_absent"): ("BinaryFuse8 4-wise", 9.0, 5.8),
    ("binary_fuse16", "build"): ("BinaryFuse16", 53.0, 38.0),
    ("binary_fuse16", "query_present"): ("BinaryFuse16", 9.2, 6.0),
    ("binary_fuse16", "query_absent"): ("BinaryFuse16", 10.2, 7.0),
    ("ribbon", "build"): ("StandardRibbon64 (r = 7)", 60.0, 38.0),
    ("ribbon", "query_present"): ("StandardRibbon64 (r = 7)", 23.0, 14.0),
    ("ribbon", "query_absent"): ("StandardRibbon64 (r = 7)", 29.0, 22.0),
}

SEED_1PCT = {
    "bloom": ("Bloom (optimal)", 9.6),
    "cuckoo": ("Cuckoo, b = 4, 95% load", 10.5),
    "xor": ("XOR, 7-bit fingerprints", 8.6),
    "binary_fuse": ("binary fuse", 7.5),
    "ribbon": ("Ribbon (RocksDB wiki)", 7.0),
    "quotient": ("quotient, n = 10^6 at 90% load", 33.0),
}

# filter -> (configuration, bits/key, FPR)
PRODUCTION = {
    "rocksdb_bloom": ("RocksDB 7.8 FastLocalBloom, NewBloomFilterPolicy(10)", 10.0004, 0.0097),
    "rocksdb_ribbon": ("RocksDB 7.8 Standard128Ribbon, NewRibbonFilterPolicy(10, -1)", 7.102, 0.00956),
    "leveldb_bloom": ("LevelDB 1.23 NewBloomFilterPolicy(10), 10^6 keys", 10.000, 0.0130),
}

# FastFilter's bits/key and FPR for the 8-bit-fingerprint table (REFERENCE_NUMBERS.md §2)
FASTFILTER_SPACE = {
    "xor8": (9.84, 0.00389),
    "xor16": (19.68, 0.000016),
    "binary_fuse8": (9.04, 0.00393),
    "binary_fuse8_4wise": (8.62, 0.00388),
    "binary_fuse16": (18.09, 0.000018),
    "ribbon64": (7.98, 0.00784),
    "cuckoo8": (8.51, 0.02916),
    "cuckoo12": (12.77, 0.00181),
    "cuckoo16": (17.02, 0.000113),
}
