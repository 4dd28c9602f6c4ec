"""Fixed-width static filters, fixed-width cuckoo and production filters, beside FastFilter's and
the production libraries' own figures and the XOR, binary fuse and Ribbon papers' claims."""

from __future__ import annotations

import pandas as pd

import math

import reference
import stats
from report_format import BOUND_HEADERS, bound_cells, bound_note, count, flag, number, pct, pct_ci, table, timing
from result_set import Experiment, ResultSet
from sections import common

SECTION = "static"
REF_BITS_TOL = 0.01  # bits/key against a reference measured on the same n
REF_FPR_TOL = 0.05  # a reference's FPR against our 95% interval, widened 5%
OVERHEAD_TOL = 0.5  # percentage points on "within 13%" and "within 8%"
SPEEDUP_TOL = 0.10  # build-time ratios on a shared VM
RIBBON_TOL = 1.5  # percentage points on the survey's "~5%" over the bound


def reference_cells(results: ResultSet, row: dict) -> list[str]:
    """Reference bits/key and FPR for the row's filter, and verdicts against them."""
    ref = reference.SPACE.get(row["filter"])
    if ref is None or flag(row.get("build_failed")):
        return ["–", "–", "–", "–"]
    if ref.target_fpr is not None and not math.isclose(row.get("target_fpr") or 0.0, ref.target_fpr, rel_tol=1e-9):
        return ["–", "–", "–", "–"]  # sized for another FPR than the reference: not like for like
    bits = row["bits_per_key"]
    note = ""
    if ref.load is not None and not stats.is_missing(row.get("load_factor")):
        # Same fingerprint width at the reference's load: bits/key scales with 1/load.
        bits = bits * row["load_factor"] / ref.load
        note = f" (ours {bits:.2f} at its load {ref.load:g})"
    at_load = f" at load {ref.load:g}" if ref.load else ""
    bits_check = results.check(SECTION, f"{ref.label} bits/key {ref.bits_per_key:g}",
                               f"{row['filter']} {bits:.3f}{at_load}",
                               stats.verdict(bits, ref.bits_per_key, rel_tol=REF_BITS_TOL),
                               stats.tolerance_text(REF_BITS_TOL))
    fpr_verdict = stats.verdict_interval(ref.fpr, row["fpr_ci_low"], row["fpr_ci_high"], rel_tol=REF_FPR_TOL)
    fpr_check = results.check(SECTION, f"{ref.label} FPR {pct(ref.fpr, 4)}",
                              f"{row['filter']} {pct_ci(row, 4)}", fpr_verdict,
                              f"our interval ±{REF_FPR_TOL:.0%}")
    return [f"{ref.bits_per_key:g}{note}; {ref.label}", bits_check.cell, pct(ref.fpr, 4), fpr_check.cell]


def paper_claims(results: ResultSet, frame, experiment_id: str | None = None) -> list[str]:
    by_name = frame.set_index("filter")
    lines = []
    for name, claim in (("xor8", reference.XOR8_BITS), ("xor_plus8", reference.XOR_PLUS8_BITS)):
        if name not in by_name.index or flag(by_name.loc[name].get("build_failed")):
            continue
        bits = by_name.loc[name, "bits_per_key"]
        lines.append(results.check(SECTION, f"{claim.source}: {claim.label} {claim.value:g}", f"{bits:.3f}",
                                   stats.verdict(bits, claim.value, rel_tol=REF_BITS_TOL),
                                   stats.tolerance_text(REF_BITS_TOL)).prose)
    for name, row in by_name.iterrows():
        if row["family"] != "binary_fuse" or flag(row.get("build_failed")):
            continue
        claim = reference.FUSE4_OVERHEAD_PCT if "4wise" in name else reference.FUSE3_OVERHEAD_PCT
        lines.append(results.check(SECTION, f"{claim.source}: {claim.label}",
                                   f"{name} {row['space_overhead_pct']:.1f}% over log2(1/ε)",
                                   stats.verdict(row["space_overhead_pct"], claim.value, abs_tol=OVERHEAD_TOL,
                                                 claim="at_most"), f"+{OVERHEAD_TOL:g} points").prose)
    if {"xor8", "binary_fuse8"} <= set(by_name.index):
        claim = reference.FUSE_BUILD_SPEEDUP
        ratio = by_name.loc["xor8", "build_ns"] / by_name.loc["binary_fuse8", "build_ns"]
        lines.append(results.check(SECTION, f"{claim.source}: {claim.label}",
                                   f"xor8 {by_name.loc['xor8', 'build_ns']:.1f} ns/key against binary_fuse8"
                                   f" {by_name.loc['binary_fuse8', 'build_ns']:.1f}: {ratio:.2f}×",
                                   stats.verdict(ratio, claim.value, rel_tol=SPEEDUP_TOL, claim="at_least",
                                                 baseline=1.0), f"−{SPEEDUP_TOL:.0%}", speed_of=experiment_id).prose)
    if {"cuckoo12", "cuckoo_semisort13"} <= set(by_name.index):
        lines.append(semisort_bit_check(results, by_name.loc["cuckoo12"], by_name.loc["cuckoo_semisort13"]).prose)
    if "rocksdb_ribbon" in by_name.index and not flag(by_name.loc["rocksdb_ribbon"].get("build_failed")):
        claim = reference.RIBBON_OVERHEAD_SURVEY_PCT
        overhead = by_name.loc["rocksdb_ribbon", "space_overhead_pct"]
        lines.append(results.check(SECTION, f"{claim.source}: {claim.label}", f"rocksdb_ribbon {overhead:.1f}%",
                                   stats.verdict(overhead, claim.value, abs_tol=RIBBON_TOL),
                                   f"±{RIBBON_TOL:g} points").prose)
    return lines


def semisort_bit_check(results: ResultSet, cuckoo12, semisort13):
    """The paper's one bit per item: cuckoo_semisort13 keeps 13-bit fingerprints in cuckoo12's 12 bits
    a slot, so in the same table (same n, same load) the bits a slot saves are log2 of the FPR ratio,
    judged by the interval the two FPRs' 95% intervals give it (their opposite ends: wider than 95%)."""
    claim = reference.SEMISORT_BIT_SAVED
    saved = math.log2(cuckoo12["fpr"] / semisort13["fpr"])
    low = math.log2(cuckoo12["fpr_ci_low"] / semisort13["fpr_ci_high"])
    high = math.log2(cuckoo12["fpr_ci_high"] / semisort13["fpr_ci_low"])
    evidence = (f"log2(FPR cuckoo12 / FPR cuckoo_semisort13) = {saved:.3f} bits [{low:.3f}, {high:.3f}] at"
                f" {cuckoo12['bits_per_key']:.3f} against {semisort13['bits_per_key']:.3f} bits/key")
    return results.check(SECTION, f"{claim.source}: {claim.label}", evidence,
                         stats.verdict_interval(claim.value, low, high, abs_tol=0.0),
                         "inside the interval from the two 95% intervals; same table, same keys")


SPACE_HEADER = ["filter", "bits/key", *BOUND_HEADERS, "FPR measured [95% CI]", "FPR theory",
                f"theory in CI (±{common.FPR_TOL:.0%})", "log2(1/FPR theory)", "efficiency at FPR theory",
                "over the bound at FPR theory", "reference bits/key", f"bits/key (±{REF_BITS_TOL:.0%})",
                "reference FPR", f"reference FPR in CI (±{REF_FPR_TOL:.0%})"]


def render(results: ResultSet) -> str | None:
    return common.each(results, SECTION, one_run)


def one_run(results: ResultSet, experiment: Experiment, frame: pd.DataFrame) -> str | None:
    space_rows, speed_rows, notes = [], [], []
    for r in frame.to_dict("records"):
        if flag(r.get("build_failed")):
            space_rows.append([r["filter"], "build failed", *["–"] * (len(SPACE_HEADER) - 2)])
            speed_rows.append([r["filter"], "build failed", "–", "–", "–", "–"])
            continue
        lower = math.log2(1 / r["fpr_theory"]) if 0 < r["fpr_theory"] < 1 else math.nan
        efficiency, over = bound_cells(r["bits_per_key"], r["fpr_theory"])  # the theory FPR the papers use
        space_rows.append([r["filter"], f"{r['bits_per_key']:.3f}", *bound_cells(r["bits_per_key"], r["fpr"]),
                           pct_ci(r, 4), pct(r["fpr_theory"], 4), common.fpr_cell(r), number(lower), efficiency,
                           f"{over} ({r['space_overhead_pct']:+.1f}%)", *reference_cells(results, r)])
        build = "build_ns" if not stats.is_missing(r.get("build_ns")) else "insert_ns"
        speed_rows.append([r["filter"], number(r.get("build_attempts")),
                           f"{timing(r, build)} ({build.split('_')[0]})", timing(r, "query_ns_positive"),
                           timing(r, "query_ns_negative"), count(r["false_negatives"])])
        for field in ("fpr_model", "speed_note"):
            if isinstance(r.get(field), str):
                notes.append(f"{r['filter']} {field.replace('_', ' ')}: {r[field]}.")
    built = common.built(frame)
    lines = paper_claims(results, built, experiment.id)
    lines += [common.fpr_chance_check(results, SECTION, built).prose,
              common.false_negative_check(results, SECTION, built).prose]
    return "\n".join([
        *common.heading(results, experiment.id),
        table(SPACE_HEADER, space_rows),
        "",
        bound_note("the measured FPR in the first pair of columns and the filter's own theory FPR in the"
                   " second, whose over the bound also gives bits/key ÷ log2(1/ε) − 1 in percent, as the"
                   " papers' overheads below are judged"),
        "A cuckoo"
        " reference ran at another load; its bits/key is compared with ours scaled to that load"
        " (same fingerprints, bits/key ∝ 1/load).",
        "",
        table(["filter", "build attempts", "build or insert ns", "query ns (present)", "query ns (absent)",
               "false neg."], speed_rows),
        "",
        *[f"- {line}" for line in lines],
        *([""] + [f"- {note}" for note in notes] if notes else []),
    ])
