"""Markdown pieces the sections share: tables, numbers, percentages and timings."""

from __future__ import annotations

import math
import numbers

from stats import is_missing

DASH = "–"


def number(value, digits: int = 2) -> str:
    """A number as the report prints it: thousands separators, small values without noise."""
    if is_missing(value):
        return DASH
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, numbers.Integral) or (float(value).is_integer() and abs(value) >= 1000):
        return f"{int(value):,}"
    value = float(value)
    if value != 0 and abs(value) < 0.01:
        return f"{value:.{digits}e}" if abs(value) < 1e-4 else f"{value:.{digits + 3}f}".rstrip("0")
    return f"{value:,.{digits}f}"


def count(value) -> str:
    return DASH if is_missing(value) else f"{int(round(float(value))):,}"


def pct(rate, digits: int = 3) -> str:
    """A rate (0.0123) as a percentage ("1.230%")."""
    return DASH if is_missing(rate) else f"{float(rate) * 100:.{digits}f}%"


def pct_ci(row, digits: int = 3, prefix: str = "fpr") -> str:
    """Measured rate with its 95% interval, from <prefix>, <prefix>_ci_low, <prefix>_ci_high."""
    rate, low, high = row.get(prefix), row.get(prefix + "_ci_low"), row.get(prefix + "_ci_high")
    if is_missing(rate):
        return DASH
    if is_missing(low) or is_missing(high):
        return pct(rate, digits)
    ci = max(digits - 1, 2)
    return f"{rate * 100:.{digits}f}% [{low * 100:.{ci}f}, {high * 100:.{ci}f}]"


def timing(row, name: str, digits: int = 1) -> str:
    """ns timing "median [min–max]" from <name>, <name>_min, <name>_max."""
    median, low, high = row.get(name), row.get(name + "_min"), row.get(name + "_max")
    if is_missing(median):
        return DASH
    if is_missing(low) or is_missing(high):
        return f"{median:.{digits}f}"
    return f"{median:.{digits}f} [{low:.{digits}f}–{high:.{digits}f}]"


def spread(median, low, high, digits: int = 1) -> str:
    if is_missing(median):
        return DASH
    return f"{median:.{digits}f} [{low:.{digits}f}–{high:.{digits}f}]"


def table(header: list[str], rows: list[list]) -> str:
    def cell(value):
        return value if isinstance(value, str) else number(value)

    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(cell(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def log2(value: float) -> float:
    return math.log2(value) if value and value > 0 else math.nan


def flag(value) -> bool:
    """A boolean column that may hold NaN (field absent from the record) as False."""
    return not is_missing(value) and bool(value)


def caches(context: dict) -> str:
    """A run context's cache list ("L1d 49,152 B, L2 ..."): amqbench's {level, bytes} or Google
    Benchmark's {level, size}."""
    described = []
    for cache in context.get("caches") or []:
        size = cache.get("bytes", cache.get("size"))
        described.append(f"{cache.get('level', '?')} {size:,} B" if isinstance(size, int)
                         else f"{cache.get('level', '?')} {size}")
    return ", ".join(described)


BOUND_HEADERS = ["efficiency log2(1/ε)/bits", "bits over log2(1/ε)"]


def bound_cells(bits_per_key, fpr) -> list[str]:
    """Space against the information-theoretic bound of log2(1/ε) bits/key at the FPR ε given: the
    efficiency log2(1/ε) ÷ bits/key ("0.692") and the bits over the bound, bits/key − log2(1/ε)
    ("+2.96"), the two cells BOUND_HEADERS name. Both "–" where ε is missing, 0 (no false positive
    seen: no finite bound) or at least 1, or bits/key is missing or not positive."""
    if is_missing(bits_per_key) or is_missing(fpr) or not 0 < float(fpr) < 1 or not float(bits_per_key) > 0:
        return [DASH, DASH]
    bits, bound = float(bits_per_key), math.log2(1 / float(fpr))
    return [f"{bound / bits:.3f}", f"{bits - bound:+.2f}"]


def bound_note(fpr: str = "the FPR the row measured") -> str:
    """The sentence a section gives once to explain bound_cells' columns, naming the FPR used as ε."""
    return ("Efficiency is log2(1/ε) ÷ bits/key, the share of the space that the information-theoretic"
            " bound log2(1/ε) would need (1 at the bound), and bits over log2(1/ε) is bits/key − log2(1/ε),"
            f" both \"–\" where ε is 0 or not recorded; here ε is {fpr}.")
