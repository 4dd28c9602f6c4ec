// filters/all.h - the one list of filters. The driver's registry and the typed conformance
// tests both read it. Adding a filter: write filters/<name>.h, include it, add it to the list.
// A filter that needs an optional library sits behind that library's AMQ_HAVE_* macro (set by
// CMake) around both its include and its entry, so a missing library removes the filter only.
#pragma once

#include "filters/acf.h"
#include "filters/binary_fuse.h"
#include "filters/blocked_bloom.h"
#include "filters/blocked_bloom256.h"
#include "filters/bloom.h"
#include "filters/bumped_ribbon.h"
#include "filters/counting_bloom.h"
#include "filters/cqf.h"
#include "filters/cuckoo.h"
#include "filters/cuckoo_semisort.h"
#include "filters/gcs.h"
#include "filters/homog_ribbon.h"
#ifdef AMQ_HAVE_LEVELDB
#include "filters/leveldb_bloom.h"
#endif
#include "filters/morton.h"
#include "filters/prefix.h"
#include "filters/quotient.h"
#include "filters/ribbon.h"
#include "filters/ribbon_frac.h"
#ifdef AMQ_HAVE_ROCKSDB
#include "filters/rocksdb_filters.h"
#endif
#include "filters/rsqf.h"
#include "filters/vqf.h"
#include "filters/xor.h"
#include "filters/xor_plus.h"
#include "core/concurrent_insert.h"
#include "core/filter.h"

namespace amq {

using AllFilters = TypeList<Bloom, BlockedBloom, BlockedBloom256, CountingBloom,
                            Cuckoo<0>, Cuckoo<8>, Cuckoo<12>, Cuckoo<16>,
                            Cuckoo<12, 2>, Cuckoo<12, 8>, Cuckoo<0, 4, CuckooInsert::kSurvey>,
                            CuckooSemiSort13,
                            Xor8, Xor16, Xor<0>, XorPlus8, XorPlus16,
                            BinaryFuse8, BinaryFuse16, BinaryFuse<0, 3>, BinaryFuse8x4,
                            BinaryFuse16x4, BinaryFuse<0, 4>, BinaryFuse8Paper, Ribbon128, Ribbon64,
                            RibbonFrac, HomogRibbon64, BumpedRibbon, Gcs,
                            QuotientFilter, Rsqf, Cqf,
                            Morton,
                            Cuckoo4x1, Cuckoo2x4, AcfCyclic, AcfCyclicRanges, AcfSwapping,
                            AcfCuckooing, AcfCuckooingFirstFree, AcfCuckooing2x4,
                            PrefixTc, PrefixCuckoo12, PrefixBlockedBloom, Vqf8, Vqf16
#ifdef AMQ_HAVE_LEVELDB
                            ,
                            LevelDbBloom
#endif
#ifdef AMQ_HAVE_ROCKSDB
                            ,
                            RocksDbBloom, RocksDbRibbon
#endif
                            >;

// The filters with a concurrent insert mode (core/concurrent_insert.h): what the
// concurrent_inserts kind measures and the threaded tests check.
template <class F>
struct HasConcurrentInsert : std::bool_constant<ConcurrentInsertFilter<F>> {};
using ConcurrentInsertFilters = KeepIf<HasConcurrentInsert, AllFilters>::type;

}  // namespace amq
