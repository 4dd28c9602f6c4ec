// filters/homog_ribbon.h - homogeneous Ribbon filter (P. C. Dillinger, S. Walzer, "Ribbon filter:
// practically smaller than Bloom and Xor", arXiv:2103.02515, 2021, the homogeneous variant).
//
// The standard Ribbon of filters/ribbon.h (its layout, banding, back-substitution and lookups,
// Ribbon<w, true> there) with every key's right-hand side 0 instead of an r-bit fingerprint:
//   key x is in the filter iff  XOR over t of c_t * Z[s + t]  ==  0   in all r columns.
// Z = 0 solves such a system, so it always has solutions and banding never fails (one attempt,
// build_attempts = 1, whatever the overhead, even below n slots). Back-substitution draws every
// free variable (empty slot) at random from the seed, which makes each column of Z a uniformly
// random element of the solution space {z : A z = 0} of the key rows A, independently.
//
// FPR. A non-key's row q either lies in the row space of A, and then q z = 0 for every solution
// (a false positive, whatever Z), or it does not, and then q z is a fair coin per column:
//   FPR = 2^-r + (1 - 2^-r) p,   p = Pr[q in span(A)].
// p falls steeply with the overhead eps = m / n - 1: q is in the span when its window of w slots
// lies in a stretch that the key rows already determine, which needs more keys than slots over
// that stretch. The paper's closed form for p as a function of eps was not recoverable here
// (no copy of its homogeneous-Ribbon section was at hand), so theory().fpr is the expected FPR
// of the filter as built: the build reduces a sample of HomogRibbonSpanSamples(n) random rows
// (n / 16, 4096 .. 65536, hashed from the seed) against the banded matrix before discarding it,
// and p is the share found in the span (stat span_share; under 1% of the banding work).
// Measured at w = 64, r = 8, n = 10^5 (averages of 4 seeds, 1.6e7 negatives each; /tmp scratch run
// of this code): eps 0.00: FPR 0.50; 0.02: 0.19; 0.04: 0.041; 0.06: 0.010; 0.08: 0.0048;
// 0.094: 0.003923 (2^-8 = 0.003906) - "a little above 2^-r" only from eps ~ 0.09 on.
//
// Sizing: FastFilter's HomogRibbon (fastfilter_cpp benchmarks/filterapi.h, read for the figures
// only): w = 64, m = n (1 + (4 + r/4)/w) rounded up to whole blocks of w, the overhead growing
// with r so that p stays well below 2^-r; at r = 8 that is eps = 6/64 = 0.094, 8.75 bits/key.
// --fpr eps gives r = ceil(log2(1/eps)); --bits-per-key B the largest r with
// r (1 + (4 + r/4)/w) <= B; r in 1 .. 32.
//   bits/key = r (1 + (4 + r/4)/w)   (theory; m's rounding to whole blocks adds < r w / n)
// Repeated keys and dependent rows reduce to 0 = 0 and are counted (dependent_rows), never a
// failure; n in overhead() counts only the rows kept.
#pragma once

#include "filters/ribbon.h"

namespace amq {

using HomogRibbon64 = Ribbon<64, true>;

}  // namespace amq
