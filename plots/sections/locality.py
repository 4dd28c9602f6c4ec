"""The Quotient Filter article's memory locality per lookup (Bloom k random lines, QF and RSQF one line, cuckoo two)
beside the distinct cache lines each family's lookups touched, traced from the addresses read."""

from __future__ import annotations

import pandas as pd

import reference
import stats
from report_format import BOUND_HEADERS, bound_cells, bound_note, count, number, table
from result_set import Experiment, ResultSet
from sections import common

SECTION = "locality"
LINES_TOL = 0.25  # lines: a lookup straddling a line boundary may add one now and then
QUOTIENT_FAMILY = ("quotient", "rsqf", "cqf")


def fast_rejection_check(results: ResultSet, row: dict) -> str | None:
    """The Quotient Filter article's fast rejection: a non-member whose quotient is unoccupied is
    answered from one read. A uniform non-member's quotient is unoccupied with probability
    1 − runs / slots (a run per occupied quotient), so at least that share of the traced absent
    lookups must touch a single line; judged on the upper end of the share's 95% interval."""
    if row["filter"] not in QUOTIENT_FAMILY:
        return None
    one_line, traced = row.get("cache_lines_absent_one_line"), row.get("cache_lines_absent_lookups")
    runs, slots = row.get("runs"), row.get("slots")
    if any(stats.is_missing(v) for v in (one_line, traced, runs, slots)) or not traced or not slots:
        return None
    unoccupied = 1 - float(runs) / float(slots)
    low, high = stats.wilson(float(one_line), float(traced))
    claim = reference.ARTICLE_FAST_REJECTION
    return results.check(
        SECTION, f"{claim.source}: {claim.label}",
        f"{row['filter']} at load {number(row.get('load_factor'), 3)}: {count(one_line)} of {count(traced)} absent"
        f" lookups touched one line ({one_line / traced:.1%} [{low:.1%}, {high:.1%}]); unoccupied quotients"
        f" {unoccupied:.1%} (1 − runs/slots)",
        stats.verdict(high, unoccupied, claim="at_least"),
        "one-line share (95% interval's upper end) at least the unoccupied share",
        measured=one_line / traced, expected=unoccupied, judged_as="at_least").prose


def article_lines(row: dict) -> float | None:
    """The article's lines per lookup for this row's filter (Bloom: its own k), or None."""
    said = reference.QUOTIENT_ARTICLE_LOCALITY.get(row["filter"])
    if said is None:
        return None
    if said.lines is None:
        return row.get("hash_probes")
    return said.lines


def member_lines_interval(row) -> tuple[float, float]:
    """The 95% interval of the mean lines per member lookup over the traced lookups (each touches
    between 1 line and the most any traced lookup touched): what the verdicts are judged on."""
    mean = float(row["cache_lines_member_mean"])
    return stats.hoeffding_interval(mean, 1.0, max(float(row["cache_lines_member_max"]), mean),
                                    int(row["cache_lines_member_lookups"]))


def member_lines_text(row) -> str:
    low, high = member_lines_interval(row)
    return (f"{row['cache_lines_member_mean']:.2f} [{low:.2f}, {high:.2f}] lines per member lookup over"
            f" {count(row['cache_lines_member_lookups'])} (at most {count(row['cache_lines_member_max'])})")


def render(results: ResultSet) -> str | None:
    shown = common.each(results, SECTION, one_run)
    if shown is None:
        return None
    # The survey's reads per lookup, from the runs that traced XOR or binary fuse (else the first
    # run, which says they were not traced).
    runs = common.frames(results, results.experiments(SECTION))
    static = [(e, f) for e, f in runs if f["filter"].isin(list(reference.SURVEY_READS)).any()] or runs[:1]
    reads = [f"- {line}" for e, f in static for line in survey_reads(results, e, f)]
    return "\n".join(["## Memory locality per lookup", "", shown, *(["", *reads] if reads else [])])


def one_run(results: ResultSet, experiment: Experiment, frame: pd.DataFrame) -> str | None:
    frame = frame[frame["cache_lines_member_lookups"] > 0] if "cache_lines_member_lookups" in frame else frame.iloc[0:0]
    if frame.empty:
        return "\n".join([*common.heading(results, experiment.id, "###"),
                          "No lookup was traced (tracing needs x86-64 Linux without AddressSanitizer)."])
    rows = []
    # One load per filter: fewest lines first; a filter at several loads: its loads in order.
    order = ["filter", "load_factor"] if frame["filter"].duplicated().any() else ["cache_lines_member_mean", "filter"]
    for r in frame.sort_values(order).to_dict("records"):
        said = reference.QUOTIENT_ARTICLE_LOCALITY.get(r["filter"])
        expected = article_lines(r)
        judged = "–"
        if expected is not None and not stats.is_missing(expected):
            judged = results.check(
                SECTION, f"the Quotient Filter article: a {r['filter']} lookup touches {said.words}",
                f"{member_lines_text(r)}, {r['cache_lines_absent_mean']:.2f} per absent one, load"
                f" {number(r.get('load_factor'), 3)}",
                stats.verdict_interval(expected, *member_lines_interval(r), abs_tol=LINES_TOL),
                f"±{LINES_TOL:g} lines around the 95% interval of the member lookups' mean",
                # the load it ran at: the article states the quotient filter's one line for α ≤ 0.75
                conditions={} if stats.is_missing(r.get("load_factor")) else {"load": float(r["load_factor"])}).cell
        rows.append([r["filter"], number(r.get("load_factor"), 3), f"{r['bits_per_key']:.2f}",
                     *bound_cells(r["bits_per_key"], r.get("fpr")),
                     f"{r['cache_lines_member_mean']:.2f}", count(r["cache_lines_member_max"]),
                     f"{r['cache_lines_absent_mean']:.2f}", count(r["cache_lines_absent_max"]),
                     said.words if said else "–", "–" if expected is None else f"{expected:g}", judged])
    traced = int(frame["cache_lines_member_lookups"].max())
    rejections = [line for line in (fast_rejection_check(results, r) for r in frame.to_dict("records")) if line]
    return "\n".join([
        *common.heading(results, experiment.id, "###"),
        f"Distinct 64-byte lines of the filter's storage that each of the first {count(traced)} member and"
        " non-member lookups read, traced from the addresses the lookup itself reads (harness/cell/line_tracer.h:"
        " page protection and single-stepping, no timing). An access that straddles two lines counts once."
        f" The Quotient Filter article's table is beside each row; verdicts are on member lookups: the article's"
        f" figure within ±{LINES_TOL:g} lines of the 95% interval of their mean (Hoeffding's, for values between 1"
        " and the most lines a traced lookup touched: no assumption on how the counts are distributed).",
        bound_note(),
        "",
        table(["filter", "load", "bits/key", *BOUND_HEADERS, "lines per member lookup (mean)", "max", "lines per absent lookup"
               " (mean)", "max", "the article says", "article's lines", f"against the article (±{LINES_TOL:g})"], rows),
        *(["", *[f"- {line}" for line in rejections]] if rejections else []),
    ])


def survey_reads(results: ResultSet, experiment: Experiment, frame: pd.DataFrame) -> list[str]:
    """The AMQ survey's head-to-head reads per lookup (XOR 3, binary fuse 3 or 4) against the lines
    a member lookup touched; a filter the run did not trace is said so, not measured. Two reads in
    one line count once, so lines can only fall below reads."""
    traced = frame[frame["cache_lines_member_lookups"] > 0] if "cache_lines_member_lookups" in frame else frame.iloc[0:0]
    lines = []
    for name, said in reference.SURVEY_READS.items():
        rows = traced[traced["filter"] == name]
        claim = f"{said.source}: {said.label}"
        if rows.empty:
            lines.append(results.check(
                SECTION, claim, f"{name} is not in the locality run ({experiment.id} traced"
                f" {', '.join(sorted(traced['filter'].unique())) or 'nothing'})", stats.NOT_MEASURED, "–").prose)
            continue
        r = rows.iloc[0]
        lines.append(results.check(
            SECTION, claim, f"{name}: {member_lines_text(r)}, {r['cache_lines_absent_mean']:.3f} per absent one",
            stats.verdict_interval(said.value, *member_lines_interval(r), abs_tol=LINES_TOL),
            f"±{LINES_TOL:g} lines around the 95% interval of the mean").prose)
    return lines
