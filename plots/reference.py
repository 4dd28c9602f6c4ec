"""Published and reference figures the report sets our measurements beside.

Sources (facts carried over, not results of this code):
  SEED_LAB        seed 000's hand-rolled cuckoo lab, its printed output
                  (../shared/seeds/000_*.txt; REFERENCE_NUMBERS.md §5)
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
