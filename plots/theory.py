"""Each family's bits/key as a function of the FPR it targets: the curves every chart is
drawn against. The formulas are the ones in the filters' headers (and REFERENCE_NUMBERS.md §1).
"""

from __future__ import annotations

import math

import numpy as np

LN2 = math.log(2.0)


def lower_bound(eps):
    return np.log2(1.0 / np.asarray(eps, dtype=float))


def bloom(eps):
    return lower_bound(eps) / LN2


def blocked_bloom_fpr(bits_per_key: float) -> float:
    """Split-block Bloom (k = 8 in a 512-bit block): Poisson mixture over keys per block."""
    lam = 512.0 / bits_per_key
    last = int(lam + 12 * math.sqrt(lam) + 40)
    total = 0.0
    for j in range(last + 1):
        log_p = j * math.log(lam) - lam - math.lgamma(j + 1.0)
        total += math.exp(log_p) * (1.0 - (1.0 - 1.0 / 64) ** j) ** 8
    return total


def blocked_bloom(eps):
    """Bits/key a split-block Bloom filter needs for each target, by bisection."""
    out = []
    for target in np.atleast_1d(eps):
        lo, hi = 1.0, 256.0
        for _ in range(60):
            mid = (lo + hi) / 2
            lo, hi = (lo, mid) if blocked_bloom_fpr(mid) <= target else (mid, hi)
        out.append(hi)
    return np.array(out)


def cuckoo(eps, load: float = 0.95, slots_per_bucket: int = 4):
    """f = log2(1/eps) + log2(2b) fingerprint bits at the given load (continuous in eps)."""
    return (lower_bound(eps) + math.log2(2 * slots_per_bucket)) / load


def xor(eps):
    return 1.23 * lower_bound(eps)


def binary_fuse(eps, size_factor: float = 1.125):
    return size_factor * lower_bound(eps)


def quotient(eps, load: float = 0.95, metadata_bits: float = 3.0):
    return (lower_bound(eps) + metadata_bits) / load


def ribbon(eps, overhead: float = 0.05):
    """Standard Ribbon with w = 128 at 5% slot overhead (filters/ribbon.h)."""
    return (1.0 + overhead) * lower_bound(eps)


# family -> (label, bits/key as a function of eps)
CURVES = {
    "bloom": ("Bloom 1.44·log2(1/ε)", bloom),
    "blocked_bloom": ("blocked Bloom (k=8, 512-bit blocks)", blocked_bloom),
    "cuckoo": ("cuckoo (log2(1/ε)+3)/0.95", cuckoo),
    "xor": ("XOR 1.23·log2(1/ε)", xor),
    "binary_fuse": ("binary fuse 3-wise 1.125·log2(1/ε) (n = 10^6)", binary_fuse),
    "ribbon": ("Ribbon w=128 1.05·log2(1/ε)", ribbon),
    "quotient": ("RSQF (log2(1/ε)+2.125)/0.95", lambda e: quotient(e, metadata_bits=2.125)),
}
