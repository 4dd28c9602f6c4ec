"""The dynamic filters' papers, judged on each other: the headline comparisons of the vector
quotient filter paper (Pandey et al., SIGMOD 2021), the Morton filter paper (Breslow and
Jayasena, PVLDB 11(9) 2018) and the prefix filter paper (Even, Even, Morrison, PVLDB 15(7) 2022).
Each is a ratio of two of our filters measured in one run, with the spread their repetitions
allow (stats.ratio_spread), judged by stats.verdict_range against the range the paper states:

- insert, lookup and erase speed from the -march=native micro-benchmarks at n = 10^6 (the
  papers' VQF compares blocks with SIMD, which only that build compiles in, and the Morton
  filter counts its blocks' fill with popcounts, a library call in the portable build; both
  filters of a ratio inlined; erase empties a full table);
- the decline as the filter fills from the fill_step experiment (portable build), the mean ns
  per operation over the whole fill;
- space from the fill_step cells at their full load, exact byte counts.

The abstracts give no filter size for their comparisons; where a paper does (the prefix filter's
build times at n = 2^25), a measurement at another size is shown and set aside. "Similar" and
"comparable" have no figure in the sources: SIMILAR is our reading, stated in the report.
A helper of the fill_step section, not a section: its checks are fill_step's, and fill_step.render
prints their table."""

from __future__ import annotations

import math

import pandas as pd

import stats
from report_format import table
from result_set import ResultSet
from sections import speed

SECTION = "fill_step"
# Our reading of "similar" and "comparable": within a quarter either way, and partly within
# a further tenth of that (stats.verdict_range's 2·tol).
SIMILAR = (0.8, 1.25)
SIMILAR_TOL = 0.1
# A paper's single figure ("2×") or range ("1.3× to 2.5×") is met within this share of it.
FIGURE_TOL = 0.25
RANGE_TOL = 0.1
# Our reading of "minimal performance decline at high load factors": an operation at the
# filter's full load at most this many times its time at half of it.
MINIMAL_DECLINE = 1.25
NATIVE_N = "n = 10^6, -march=native micro-benchmarks"


def timing(summary: pd.DataFrame | None, filter_name: str, operation: str) -> tuple[float, float, float] | None:
    """(median, min, max) ns of a micro-benchmark, or None."""
    if summary is None or (filter_name, operation) not in summary.index:
        return None
    row = summary.loc[(filter_name, operation)]
    return (float(row["median"]), float(row["min"]), float(row["max"]))


def step_near(rows: pd.DataFrame, fill: float) -> pd.Series | None:
    """The step line closest to a fill (fill_step.at_fill's rule; that module imports this one)."""
    return None if rows.empty else rows.loc[(rows["fill"] - fill).abs().idxmin()]


def step_timing(rows: pd.DataFrame, fill: float, field: str) -> tuple[float, float, float] | None:
    """(median, min, max) ns of the step closest to a fill."""
    row = step_near(rows, fill)
    if row is None or stats.is_missing(row.get(field)):
        return None
    low, high = row.get(f"{field}_min"), row.get(f"{field}_max")
    value = float(row[field])
    return (value, float(low) if not stats.is_missing(low) else value, float(high) if not stats.is_missing(high) else value)


def ratio_text(ratio: tuple[float, float, float], share: bool = False) -> str:
    median, low, high = ratio
    if share:
        return f"{median:.2%}" if low == high else f"{median:.2%} [{low:.2%}, {high:.2%}]"
    return f"{median:.2f}× [{low:.2f}, {high:.2f}]" if low != high else f"{median:.2f}×"


def claimed_text(claimed: tuple[float, float]) -> str:
    low, high = claimed
    if low == 0:
        return f"at most {high:.2%}" if high < 0.5 else f"at most {high:g}×"
    return f"{low:g}×" if low == high else f"{low:g}× to {high:g}×"


class Judge:
    """Records one check per comparison; the rows of the section's table collect here."""

    def __init__(self, results: ResultSet, native_id: str | None):
        self.results, self.native_id, self.rows = results, native_id, []

    def ratio(self, paper: str, claim: str, what: str, ratio: tuple[float, float, float] | None,
              claimed: tuple[float, float], tol: float, measured_in: str, baseline: float | None = 1.0,
              timed_by: str | None = None, share: bool = False) -> None:
        """Judge `ratio` (median, low, high) against the claimed range; `share`: a fraction, not a ratio."""
        if ratio is None or any(math.isnan(v) for v in ratio):
            return
        verdict = stats.verdict_range(ratio[1], ratio[2], *claimed, rel_tol=tol, baseline=baseline)
        tolerance = f"±{tol:.0%} of {claimed_text(claimed)}" if tol else "exact"
        shown = ratio_text(ratio, share)
        check = self.results.check(SECTION, f"{paper}: {claim}", f"{what} {shown} ({measured_in})",
                                   verdict, tolerance, speed_of=timed_by)
        self.rows.append([paper, claim, what, claimed_text(claimed), shown, measured_in, check.cell])


def fill_rows(steps: pd.DataFrame, filter_name: str) -> pd.DataFrame:
    return steps[steps["filter"] == filter_name].sort_values("fill")


def experiment_of(*frames: pd.DataFrame) -> str | None:
    """The experiment the step lines come from, so a verdict on their timings is flagged when stale."""
    return next((str(f["experiment"].iloc[0]) for f in frames if not f.empty and "experiment" in f), None)


def cell_of(cells: pd.DataFrame, filter_name: str) -> dict | None:
    found = cells[cells["filter"] == filter_name]
    return found.iloc[0].to_dict() if not found.empty else None


def bits_at_fpr(cell: dict, fpr: float) -> tuple[float, float, float] | None:
    """The cell's bits/key moved to another FPR at a bit per halving (a fingerprint filter at its
    load pays log2(1/ε) bits a key for its fingerprints; what it pays beside them does not move):
    (at its measured FPR, at the interval's low end, at the high end)."""
    values = [cell.get(k) for k in ("bits_per_key", "fpr", "fpr_ci_low", "fpr_ci_high")]
    if any(stats.is_missing(v) or float(v) <= 0 for v in values):
        return None
    bits, measured, low, high = (float(v) for v in values)
    return tuple(bits + math.log2(f / fpr) for f in (measured, low, high))


def vqf_checks(judge: Judge, native, steps: pd.DataFrame, native_id) -> None:
    paper = "VQF paper"
    morton, vqf = timing(native, "morton", "insert"), timing(native, "vqf8", "insert")
    if morton and vqf:
        judge.ratio(paper, "2× faster for inserts compared to the Morton filter", "morton ÷ vqf8 insert ns",
                    stats.ratio_spread(morton, vqf), (2.0, 2.0), FIGURE_TOL, NATIVE_N, timed_by=native_id)
    for operation in ("query_present", "query_absent"):
        a, b = timing(native, "vqf8", operation), timing(native, "cuckoo12", operation)
        if a and b:
            judge.ratio(paper, "similar lookup performance as the cuckoo filter", f"vqf8 ÷ cuckoo12 {operation} ns",
                        stats.ratio_spread(a, b), SIMILAR, SIMILAR_TOL, NATIVE_N, baseline=None, timed_by=native_id)
    a, b = timing(native, "vqf8", "erase"), timing(native, "cuckoo12", "erase")
    if a and b:
        judge.ratio(paper, "similar deletion performance as the cuckoo filter", "vqf8 ÷ cuckoo12 erase ns",
                    stats.ratio_spread(a, b), SIMILAR, SIMILAR_TOL,
                    NATIVE_N + " (every key erased from a full filter)", baseline=None, timed_by=native_id)
    rows = fill_rows(steps, "vqf8")
    for field, name in (("step_insert_ns", "insert"), ("step_member_ns", "member lookup"),
                        ("step_absent_ns", "absent lookup")):
        full, half = step_timing(rows, 1.0, field), step_timing(rows, 0.5, field)
        if full and half:
            judge.ratio(paper, "minimal performance decline at high load factors",
                        f"vqf8 {name} ns, full ÷ half", stats.ratio_spread(full, half), (0.0, MINIMAL_DECLINE), 0.0,
                        "fill_step, portable build: " + decline_of_others(steps, field), baseline=None,
                        timed_by=experiment_of(rows))


def decline_of_others(steps: pd.DataFrame, field: str) -> str:
    """The same ratio, medians, for the filters the abstract says decline."""
    parts = []
    for name in ("quotient", "cuckoo12", "morton"):
        full, half = step_timing(fill_rows(steps, name), 1.0, field), step_timing(fill_rows(steps, name), 0.5, field)
        if full and half and half[0] > 0:
            parts.append(f"{name} {full[0] / half[0]:.2f}×")
    return "beside it " + ", ".join(parts) if parts else "no other filter to compare"


# The Morton paper's speed claims against the cuckoo filter: the micro-benchmark operation, the
# abstract's words, the range it states, and what the measurement is.
MORTON_SPEED = (
    ("query_present", "lookup throughput 1.3× to 2.5× the cuckoo filter's", (1.3, 2.5), NATIVE_N),
    ("query_absent", "lookup throughput 1.3× to 2.5× the cuckoo filter's", (1.3, 2.5), NATIVE_N),
    ("insert", "insertion throughput 0.9× to 15.5× the cuckoo filter's", (0.9, 15.5), NATIVE_N),
    ("erase", "deletion throughput 1.3× to 1.6× the cuckoo filter's", (1.3, 1.6),
     NATIVE_N + " (every key erased from a full filter)"),
)


def morton_checks(judge: Judge, native, cells: pd.DataFrame, native_id) -> None:
    paper = "Morton filter paper"
    for operation, words, claimed, measured_in in MORTON_SPEED:
        cuckoo, morton = timing(native, "cuckoo12", operation), timing(native, "morton", operation)
        if cuckoo and morton:
            judge.ratio(paper, words, f"cuckoo12 ÷ morton {operation} ns", stats.ratio_spread(cuckoo, morton),
                        claimed, RANGE_TOL, measured_in, baseline=1.0 if claimed[0] >= 1 else None,
                        timed_by=native_id)
    m, c = cell_of(cells, "morton"), cell_of(cells, "cuckoo12")
    if m and c and not stats.is_missing(c.get("fpr")) and not stats.is_missing(c.get("bits_per_key")):
        moved = bits_at_fpr(m, float(c["fpr"]))
        if moved:
            cuckoo_bits = float(c["bits_per_key"])
            ratio = (moved[0] / cuckoo_bits, min(moved[1:]) / cuckoo_bits, max(moved[1:]) / cuckoo_bits)
            judge.ratio(paper, "comparable to slightly less space than cuckoo filters for the same ε",
                        "morton ÷ cuckoo12 bits/key at cuckoo12's FPR", ratio, (SIMILAR[0], 1.0), SIMILAR_TOL,
                        f"fill_step cells when full: morton {float(m['bits_per_key']):.2f} bits/key at FPR"
                        f" {float(m['fpr']):.3%}, moved to cuckoo12's {float(c['fpr']):.3%} at a bit per halving"
                        f" (the FPRs' 95% intervals give the spread); cuckoo12 {cuckoo_bits:.2f}", baseline=None)


PREFIXES = ("prefix_tc", "prefix_cuckoo12", "prefix_blocked_bloom")


def prefix_checks(judge: Judge, native, steps: pd.DataFrame, cells: pd.DataFrame, native_id) -> None:
    paper = "prefix filter paper"
    for name in PREFIXES:
        for operation in ("query_present", "query_absent"):
            a, b = timing(native, name, operation), timing(native, "cuckoo12", operation)
            if a and b:
                judge.ratio(paper, "query throughput comparable to that of the cuckoo filter",
                            f"{name} ÷ cuckoo12 {operation} ns", stats.ratio_spread(a, b), SIMILAR, SIMILAR_TOL,
                            NATIVE_N, baseline=None, timed_by=native_id)
        for other, claimed in (("vqf8", (1.39, 1.46)), ("cuckoo12", (3.2, 3.5))):
            a, b = timing(native, other, "insert"), timing(native, name, "insert")
            if a and b:
                judge.ratio(paper, "build times faster than the VQF's and the cuckoo filter's",
                            f"{other} ÷ {name} insert ns", stats.ratio_spread(a, b), claimed, RANGE_TOL,
                            NATIVE_N + " (every key inserted into an empty filter)", timed_by=native_id)
        mine = cell_of(cells, name)
        for other in ("cuckoo12", "vqf8"):
            theirs = cell_of(cells, other)
            if mine and theirs and not stats.is_missing(theirs.get("bits_per_key")):
                value = float(mine["bits_per_key"]) / float(theirs["bits_per_key"])
                judge.ratio(paper, "space similar to state-of-the-art dynamic filters", f"{name} ÷ {other} bits/key",
                            (value, value, value), SIMILAR, SIMILAR_TOL,
                            f"fill_step cells when full: {float(mine['bits_per_key']):.2f} and"
                            f" {float(theirs['bits_per_key']):.2f} bits/key, exact", baseline=None)
    bound = 1 / math.sqrt(2 * math.pi * 25)
    for name in PREFIXES:
        full = step_near(fill_rows(steps, name), 1.0)
        if full is not None and not stats.is_missing(full.get("prefix_keys_to_spare_fraction")):
            value = float(full["prefix_keys_to_spare_fraction"])
            judge.ratio(paper, "keys forwarded to the spare at most n / sqrt(2 pi k)",
                        f"{name} share of keys sent to the spare", (value, value, value), (0.0, bound), 0.0,
                        "fill_step, the last step (n keys), bins at load 0.95, k = 25", baseline=None, share=True)


def comparisons(results: ResultSet, steps: pd.DataFrame, cells: pd.DataFrame) -> list[str]:
    """The table of the papers' comparisons, each a recorded check; [] when nothing to compare."""
    native_id = speed.of_build(results, "native")
    native = speed.summarize(results, native_id, "filters")
    judge = Judge(results, native_id)
    vqf_checks(judge, native, steps, native_id)
    morton_checks(judge, native, cells, native_id)
    prefix_checks(judge, native, steps, cells, native_id)
    if not judge.rows:
        return []
    return [
        "### The dynamic filters' papers, judged on each other",
        "",
        "Each paper's headline comparisons as ratios of our filters measured in one run: the ratio of the"
        " medians and, in brackets, the widest the repetitions allow (the slowest of one over the fastest of"
        " the other). A ratio meets the paper's figure or range when the two overlap within the tolerance;"
        " one on the paper's side of 1 but outside that is \"partly\". Inserts and lookups come from the"
        " -march=native micro-benchmarks at n = 10^6, where the VQF's SIMD block operations are compiled in;"
        " erases and the decline with the fill from the fill-step run above (portable build). The sources"
        f" give no figure for \"similar\" or \"comparable\": read as a ratio within {SIMILAR[0]:g}× to"
        f" {SIMILAR[1]:g}×; \"minimal decline\" as at most {MINIMAL_DECLINE:g}× slower when full than at half"
        " the fill. The claims table below says which of these decide a claim and which are set aside.",
        "",
        table(["paper", "the paper says", "ours", "its figure", "measured [spread]", "measured in", "verdict"],
              judge.rows),
    ]
