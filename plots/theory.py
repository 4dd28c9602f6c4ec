"""The formulas measurements are set against: each family's bits/key as a function of the FPR it
reaches (the curves the charts draw), and the FPR and geometry formulas the sections check.

Nothing is computed here. Each formula is written once, in C++, in filters/theory_formulas.h,
where the filters' theory() calls it, and `amqbench theory` evaluates it (commands/
theory_command.cc); a Python copy could drift from the numbers the filters report. One
`amqbench theory --stdin` process serves every call of a Python process: a call sends one request
line, reads one answer line, and the answer is cached, so a report costs one process, not one per
point. The binary is $AMQBENCH, else build/amqbench beside the repository root; without it every
function here raises TheoryError saying so.

Arguments broadcast as numpy's do (a number beside a column of records); a function returns an
array of the broadcast shape, or a numpy scalar when every argument is a number. A NaN argument
(a value a record lacks) gives NaN there, as numpy arithmetic did, without asking the binary.
"""

from __future__ import annotations

import atexit
import json
import os
import subprocess
import threading
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent


class TheoryError(RuntimeError):
    """The binary is missing, or it refused a request (its own one-line message)."""


def binary() -> Path:
    """The amqbench binary the formulas come from: $AMQBENCH, else build/amqbench."""
    return Path(os.environ.get("AMQBENCH") or ROOT / "build" / "amqbench")


class _Server:
    """One `amqbench theory --stdin` per process (a forked child starts its own), and the answers
    it gave, by request."""

    def __init__(self):
        self.process: subprocess.Popen | None = None
        self.pid = None
        self.answers: dict[str, dict[str, list]] = {}
        self.lock = threading.Lock()

    def _start(self) -> subprocess.Popen:
        path = binary()
        if not (path.is_file() and os.access(path, os.X_OK)):
            raise TheoryError(
                f"plots/theory.py takes its formulas from `amqbench theory`, and {path} is not an"
                " executable file: build it (scripts/build.sh) or set AMQBENCH to the binary")
        self.pid = os.getpid()
        return subprocess.Popen([str(path), "theory", "--stdin"], stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    def ask(self, request: str) -> dict[str, list]:
        with self.lock:
            if request not in self.answers:
                self.answers[request] = self._exchange(request)
            return self.answers[request]

    def _exchange(self, request: str) -> dict[str, list]:
        if self.process is None or self.process.poll() is not None or self.pid != os.getpid():
            self.process = self._start()
        process = self.process
        try:
            process.stdin.write(request + "\n")
            process.stdin.flush()
            line = process.stdout.readline()
        except BrokenPipeError:
            line = ""
        if not line:  # it refused the request (one line on stderr) and ended
            message = process.stderr.read().strip()
            status = self.stop()
            raise TheoryError(message or f"{binary()} theory --stdin ended with status {status}")
        return json.loads(line)["values"]

    def stop(self) -> int | None:
        """Ends this process's server, if it has one; its exit status."""
        process, self.process = self.process, None
        if process is None or self.pid != os.getpid():
            return None
        for pipe in (process.stdin, process.stdout, process.stderr):
            try:
                pipe.close()
            except BrokenPipeError:  # stdin, after the server ended
                pass
        return process.wait()


_SERVER = _Server()
atexit.register(_SERVER.stop)


def _evaluate(formula: str, outputs: tuple[str, ...], **args) -> dict[str, np.ndarray]:
    """The named outputs of `formula` at the broadcast arguments, in their shape (a numpy scalar
    for numbers)."""
    arrays = {name: np.asarray(value, dtype=float) for name, value in args.items()}
    shape = np.broadcast_shapes(*(a.shape for a in arrays.values()))
    full = {name: np.broadcast_to(a, shape).ravel() for name, a in arrays.items()}
    missing = np.zeros(int(np.prod(shape)), dtype=bool)
    for a in full.values():
        missing |= np.isnan(a)
    values = {}
    if not missing.all():  # (all missing, or no elements: nothing to ask)
        # Numbers go as numbers (the binary broadcasts them), the rest as lists of the elements
        # not missing; a missing number has made every element missing.
        sent = {name: (float(arrays[name]) if arrays[name].ndim == 0 else a[~missing].tolist())
                for name, a in full.items()}
        values = _SERVER.ask(json.dumps({"formula": formula, "args": sent}, sort_keys=True))
    out = {}
    for name in outputs:
        column = np.full(missing.shape, np.nan)
        column[~missing] = values[name] if values else []
        out[name] = column.reshape(shape)[()]
    return out


def _one(formula: str, output: str, **args):
    return _evaluate(formula, (output,), **args)[output]


def lower_bound(eps):
    """log2(1/ε): no filter can use fewer bits per key (Carter et al.; Broder and Mitzenmacher).
    A definition more than a formula, but the C++ curves are written in it
    (LowerBoundBitsPerKey), so it is asked for like the rest and this module computes nothing."""
    return _one("lower_bound", "bits_per_key", fpr=eps)


def bloom(eps):
    """Bloom at its optimal k: log2(1/ε)/ln 2 ≈ 1.44·log2(1/ε)."""
    return _one("bloom", "bits_per_key", fpr=eps)


def blocked_bloom_fpr(bits_per_key: float) -> float:
    """Split-block Bloom (k = 8 in a 512-bit block): Poisson mixture over keys per block."""
    return _one("blocked_bloom_fpr", "fpr", bits_per_key=bits_per_key)


def blocked_bloom(eps):
    """Bits/key a split-block Bloom filter needs for each target (the FPR formula inverted), as
    an array."""
    return np.atleast_1d(_one("blocked_bloom", "bits_per_key", fpr=eps))


def blocked_bloom256(eps):
    """Bits/key Parquet's split-block Bloom filter (k = 8 in a 256-bit block of 32-bit words)
    needs for each target, as an array."""
    return np.atleast_1d(_one("blocked_bloom256", "bits_per_key", fpr=eps))


def counting_bloom(eps):
    """Counting Bloom, 4-bit counters at Bloom's optimal k: 4·log2(1/ε)/ln 2 (Fan et al. 2000)."""
    return _one("counting_bloom", "bits_per_key", fpr=eps)


def counting_bloom_overflow_bound(counters, keys, hash_probes, level: int = 16):
    """Fan et al.'s bound on Pr(some counter ≥ j): m·(e·n·k/(j·m))^j; m·(e ln 2/16)^16 at the optimal k."""
    return _one("counting_bloom_overflow_bound", "probability", counters=counters, keys=keys,
                hash_probes=hash_probes, level=level)


def counting_bloom_counters_at_least(counters, keys, hash_probes, level: int = 16):
    """Expected counters at level j or more: m·Pr(Bin(nk, 1/m) ≥ j), the tail the bound rounds up."""
    return _one("counting_bloom_counters_at_least", "counters", counters=counters, keys=keys,
                hash_probes=hash_probes, level=level)


def cuckoo(eps, load: float = 0.95, slots_per_bucket: int = 4):
    """f = log2(1/ε) + log2(2b) fingerprint bits at the given load (continuous in ε)."""
    return _one("cuckoo", "bits_per_key", fpr=eps, load=load, slots_per_bucket=slots_per_bucket)


def cuckoo_fpr(fingerprint_bits, load, slots_per_bucket: int = 4):
    """A lookup compares against the 2b slots of two buckets, of which a fraction α are full;
    fingerprint 0 marks an empty slot, so a stored fingerprint matches with 1/(2^f − 1)."""
    return _one("cuckoo_fpr", "fpr", fingerprint_bits=fingerprint_bits, load=load,
                slots_per_bucket=slots_per_bucket)


def cuckoo_lab_geometry(keys: int, eps: float, max_load: float, slots_per_bucket: int = 4):
    """The AMQ survey's sizing: f = ⌈log2(1/ε)⌉ + ⌈log2(2b)⌉ bits and the smallest power-of-two
    bucket count m with b·m ≥ n/max_load. Returns (f, m, load n/(b·m), bits/key f·b·m/n)."""
    g = _evaluate("cuckoo_lab_geometry", ("fingerprint_bits", "buckets", "load", "bits_per_key"),
                  keys=keys, fpr=eps, max_load=max_load, slots_per_bucket=slots_per_bucket)
    return int(g["fingerprint_bits"]), int(g["buckets"]), float(g["load"]), float(g["bits_per_key"])


def xor(eps):
    """XOR filter: 1.23 slots per key (+32), one fingerprint per slot."""
    return _one("xor", "bits_per_key", fpr=eps)


def binary_fuse(eps, arity: int = 3, keys: int = 10 ** 6):
    """Binary fuse: the paper's size factor at n keys slots per key (at n = 10^6 1.125 for
    3-wise, 1.075 for 4-wise), one fingerprint per slot."""
    return _one("binary_fuse", "bits_per_key", fpr=eps, keys=keys, arity=arity)


def quotient(eps, load: float = 0.95, metadata_bits: float = 3.0):
    """Quotient family: (log2(1/ε) + metadata bits per slot) / load."""
    return _one("quotient", "bits_per_key", fpr=eps, load=load, metadata_bits=metadata_bits)


def quotient_fpr(remainder_bits, load):
    """A negative lookup compares its r-bit remainder with the run of its quotient, which holds
    Poisson(α) remainders at load α: 1 − e^(−α/2^r) ≈ α·2^−r."""
    return _one("quotient_fpr", "fpr", remainder_bits=remainder_bits, load=load)


def quotient_article_bits(remainder_bits, metadata_bits, load):
    """The Quotient Filter article: a slot stores the r-bit remainder and the metadata bits; α of
    the slots are full."""
    return _one("quotient_article_bits", "bits_per_key", remainder_bits=remainder_bits,
                metadata_bits=metadata_bits, load=load)


def survey_quotient_bits(keys, remainder_bits, load):
    """The AMQ survey: counts the log2(n/load) quotient bits as stored per key, plus r and 3 metadata."""
    return _one("survey_quotient_bits", "bits_per_key", keys=keys, remainder_bits=remainder_bits,
                load=load)


def knuth_displacement(load):
    """Mean distance of a key from its home slot under linear probing: α / (2(1 − α)) (Knuth)."""
    return _one("knuth_displacement", "slots", load=load)


def knuth_displacement_finite(table_slots, keys):
    """The same mean in a circular table of `table_slots` slots holding `keys` keys, without the
    large-table limit: (Q(m, n − 1) − 1)/2 (Knuth, Theorem K). Below α/(2(1 − α)) by about
    α/(2(1 − α)^3 m)."""
    return _one("knuth_displacement_finite", "slots", table_slots=table_slots, keys=keys)


def ribbon(eps, overhead: float = 0.05):
    """Standard Ribbon with w = 128 at 5% slot overhead (filters/ribbon.h)."""
    return _one("ribbon", "bits_per_key", fpr=eps, overhead=overhead)


def ribbon_frac(eps, overhead: float = 0.05):
    """Ribbon w=128 with fractional result bits (filters/ribbon_frac.h): lo = ⌊log2(1/ε)⌋ columns,
    lo + 1 in the share q = 2 − 2^(lo+1)·ε of starts that meets ε exactly; (1 + overhead)(lo + q)."""
    return _one("ribbon_frac", "bits_per_key", fpr=eps, overhead=overhead)


def gcs(eps):
    """Golomb-compressed set (filters/gcs.h): Rice-coded gaps at the best k in buckets of 32/ε hash
    values, k + 1 + q/(1 − q) less the bucket ends' saving, q = e^(−ε·2^k), plus the index w/32 + 1/16."""
    return _one("gcs", "bits_per_key", fpr=eps)


# family -> (label, bits/key as a function of ε)
CURVES = {
    "bloom": ("Bloom 1.44·log2(1/ε)", bloom),
    "blocked_bloom": ("blocked Bloom (k=8, 512-bit blocks)", blocked_bloom),
    "cuckoo": ("cuckoo (log2(1/ε)+3)/0.95", cuckoo),
    "xor": ("XOR 1.23·log2(1/ε)", xor),
    "binary_fuse": ("binary fuse 3-wise 1.125·log2(1/ε) (n = 10^6)", binary_fuse),
    "ribbon": ("Ribbon w=128 1.05·log2(1/ε)", ribbon),
    "quotient": ("RSQF (log2(1/ε)+2.125)/0.95", lambda e: quotient(e, metadata_bits=2.125)),
    "counting_bloom": ("counting Bloom 4·1.44·log2(1/ε)", counting_bloom),
    "gcs": ("Golomb-compressed set ≈ log2(1/ε) + 1.5 + 0.5 (index)", gcs),
}

# Filters whose curve is not their family's.
FILTER_CURVES = {
    "blocked_bloom": CURVES["blocked_bloom"],
    "blocked_bloom256": ("split-block Bloom (k=8, 256-bit blocks, Parquet)", blocked_bloom256),
    "binary_fuse_4wise": ("binary fuse 4-wise 1.075·log2(1/ε) (n = 10^6)",
                          lambda e: binary_fuse(e, arity=4)),
    "ribbon_frac": ("Ribbon w=128 fractional 1.05·(lo + q)", ribbon_frac),
}

# Filters drawn beside their family's curve that the curve is not for: the sweep shows their gap
# labelled with the reason and does not judge it (no w = 64 curve is modelled here).
UNLIKE_CURVES = {
    "ribbon64": "w = 64 against the w = 128 curve (5% slot overhead); a narrower band needs more slots",
    "homog_ribbon64": "homogeneous, w = 64, sized m = n (1 + (4 + r/4)/64) as FastFilter's HomogRibbon64,"
                      " against the w = 128 standard curve",
}


def curve_for(filter_name: str, family: str):
    """(label, function) of the theory curve a filter is drawn and judged against, or None."""
    return FILTER_CURVES.get(filter_name) or CURVES.get(family)
