"""Bloom, blocked Bloom, counting Bloom, cuckoo and the Golomb-compressed set at two FPR targets: space,
FPR and speed side by side; the counting Bloom filter's claims (four times the space, counter overflow);
the Golomb-compressed set's stream against the Rice code's expected length."""

from __future__ import annotations

import pandas as pd

import math

import reference
import stats
import theory
from report_format import BOUND_HEADERS, bound_cells, bound_note, count, pct_ci, table, timing
from result_set import Experiment, ResultSet
from sections import common

SECTION = "space"
BLOOM_TOL = 0.01  # Bloom's bits/key against 1.44·log2(1/ε)


def render(results: ResultSet) -> str | None:
    return common.each(results, SECTION, one_run)


def one_run(results: ResultSet, experiment: Experiment, frame: pd.DataFrame) -> str | None:
    frame = frame.sort_values(["target_fpr", "filter"], ascending=[False, True])
    rows = [
        [f"{r['target_fpr']:g}", r["filter"], f"{r['bits_per_key']:.2f}", *bound_cells(r["bits_per_key"], r["fpr"]),
         f"{r['bits_per_key_theory']:.2f}",
         f"{float(theory.bloom(r['target_fpr'])):.2f}", pct_ci(r, 4), f"{r['fpr_theory'] * 100:.4f}%",
         common.fpr_cell(r), timing(r, "insert_ns"), timing(r, "query_ns_positive"),
         timing(r, "query_ns_negative"), count(r["false_negatives"])]
        for r in frame.to_dict("records")
    ]
    lines = []
    for r in frame[frame["family"] == "bloom"].to_dict("records"):
        optimum = float(theory.bloom(r["target_fpr"]))
        lines.append(results.check(
            SECTION, f"{r['filter']} at ε = {r['target_fpr']:g} needs 1.44·log2(1/ε) bits/key",
            f"{r['bits_per_key']:.3f} against {optimum:.3f}",
            stats.verdict(r["bits_per_key"], optimum, rel_tol=BLOOM_TOL), stats.tolerance_text(BLOOM_TOL)).prose)
    lines += counting_bloom_checks(results, frame)
    lines += gcs_checks(results, frame)
    lines.append(common.fpr_chance_check(results, SECTION, frame).prose)
    lines.append(common.false_negative_check(results, SECTION, frame).prose)
    for r in frame[frame["family"] == "cuckoo"].to_dict("records"):
        slots = int(r["buckets"]) * int(r["slots_per_bucket"])
        keys = int(r["keys_inserted"])
        room = "n at the default max load" if stats.is_missing(r.get("max_load")) else f"n/{r['max_load']:g}"
        lines.append(f"The cuckoo filter at ε = {r['target_fpr']:g} holds {keys:,} keys in"
                     f" {int(r['buckets']):,} buckets of {int(r['slots_per_bucket'])} (the smallest power"
                     f" of two with room for {room}), so it runs at load {r['load_factor']:.4f}"
                     f" and spends {int(r['fingerprint_bits'])}·{slots:,}/{keys:,} = {r['bits_per_key']:.2f}"
                     " bits/key.")
    return "\n".join([
        *common.heading(results, experiment.id),
        table(["target ε", "filter", "bits/key", *BOUND_HEADERS, "family formula at the target", "Bloom optimum",
               "FPR measured [95% CI]", "FPR theory", f"theory in CI (±{common.FPR_TOL:.0%})", "insert ns",
               "query ns (present)", "query ns (absent)", "false neg."], rows),
        "",
        "The family formula is log2(1/ε)/ln 2 for Bloom, the smallest bits/key whose Poisson-mixture"
        " FPR meets ε for the split-block filters, four times Bloom's for the counting Bloom filter (4-bit"
        " counters), f/α for cuckoo at the requested max load α, and for the Golomb-compressed set the"
        " Rice code's expected bits at the best k plus its bucket index (about log2(1/ε) + 1.5 + 0.5);"
        " each before its table is rounded up (to 64-bit words, 64-byte blocks, a power of two of"
        " buckets), which the measured bits/key shows."
        f" The Bloom optimum is log2(1/ε)/ln 2 = {1 / math.log(2):.3f}·log2(1/ε).",
        bound_note("the FPR the row measured; the optimal Bloom filter's efficiency is ln 2 = 0.693"),
        "Timings are ns per key, median [min–max] over the run's repeats.",
        "",
        *[f"- {line}" for line in lines],
        *common.figures(results, experiment.id),
    ])


COUNTING_SPACE_TOL = 0.01  # counting Bloom's bits/key against 4 × Bloom's (both round to 64-bit words)


def poisson_upper(mean: float, level: float = 0.95) -> int:
    """The smallest q with Pr(Poisson(mean) <= q) >= level: the most events a rate allows."""
    q, term = 0, math.exp(-mean)
    total = term
    while total < level:
        q += 1
        term *= mean / q
        total += term
    return q


def counting_bloom_checks(results: ResultSet, frame: pd.DataFrame) -> list[str]:
    """Fan et al.'s counting Bloom filter beside the Bloom filter of the same target: four times
    the bits at the same FPR, and its 4-bit counters' overflow against the paper's bound (and the
    counters at 15 against the exact binomial tail the bound rounds up)."""
    counting = frame[frame["family"] == "counting_bloom"].to_dict("records")
    if not counting:
        return []
    lines = []
    blooms = {(r["target_fpr"], r["keys_inserted"]): r for r in frame[frame["filter"] == "bloom"].to_dict("records")}
    for r in counting:
        bloom = blooms.get((r["target_fpr"], r["keys_inserted"]))
        if bloom is None:
            continue
        ratio = r["bits_per_key"] / bloom["bits_per_key"]
        claimed = reference.COUNTING_BLOOM_SPACE_RATIO.value
        lines.append(results.check(
            SECTION, f"counting Bloom at ε = {r['target_fpr']:g} takes four times a Bloom filter's bits at the same FPR",
            f"{r['bits_per_key']:.2f} against bloom's {bloom['bits_per_key']:.2f} bits/key: {ratio:.3f}×;"
            f" FPR {r['fpr'] * 100:.3f}% against {bloom['fpr'] * 100:.3f}%",
            stats.verdict(ratio, claimed, rel_tol=COUNTING_SPACE_TOL), stats.tolerance_text(COUNTING_SPACE_TOL),
            measured=ratio, expected=claimed, rel_tol=COUNTING_SPACE_TOL, judged_as="equal").prose)
    # Overflow: counters that reached 16 (each counted at least once among the increments lost at
    # 15), over every counting Bloom filter of the run at its own n, k and m, against the rate the
    # paper's bound allows: at most its 95% Poisson quantile (0 while the bound is far below 1).
    sized = [r for r in counting if r["saturated_expected"] < 1]
    if sized:
        overflows = sum(int(r["counter_overflows"]) for r in sized)
        bound = sum(float(r["overflow_bound"]) for r in sized)
        exact = sum(float(r["overflow_expected"]) for r in sized)
        counters = sum(int(r["counters"]) for r in sized)
        allowed = poisson_upper(bound)
        lines.append(results.check(
            SECTION, "counting Bloom: a 4-bit counter overflows with probability at most m (e ln 2 / 16)^16",
            f"{overflows} increments lost at 15 over {len(sized)} filters, {counters:,} counters and"
            f" {sum(int(r['keys_inserted']) for r in sized):,} keys; the bound allows {bound:.2g} overflowing"
            f" counters (95% Poisson quantile {allowed}; at the optimal k the paper's"
            f" {reference.COUNTING_BLOOM_OVERFLOW_PER_COUNTER.value:.3g} m = "
            f"{reference.COUNTING_BLOOM_OVERFLOW_PER_COUNTER.value * counters:.2g}), the exact binomial tail"
            f" expects {exact:.2g}",
            stats.verdict(overflows, allowed, abs_tol=0, claim="at_most"), "at most the bound's 95% Poisson quantile",
            measured=overflows, expected=allowed, abs_tol=0, judged_as="at_most").prose)
    for r in counting:
        expected, measured = float(r["saturated_expected"]), int(r["saturated_counters"])
        if expected < 1:
            continue
        tol = 4 * math.sqrt(expected)
        lines.append(results.check(
            SECTION, "counting Bloom: counters at 15 follow the binomial tail m Pr(Bin(nk, 1/m) ≥ 15)",
            f"{r['filter']} with {int(r['keys_inserted']):,} keys in {int(r['counters']):,} counters"
            f" (k = {int(r['hash_probes'])}): {measured:,} counters at 15 against {expected:,.0f} expected;"
            f" {int(r['counter_overflows']):,} increments lost",
            stats.verdict(measured, expected, abs_tol=tol), f"±4 standard deviations ({tol:.0f})",
            measured=measured, expected=expected, abs_tol=tol, judged_as="equal").prose)
    return lines


GCS_CODE_SDS = 4  # the stream's bits against the Rice expectation, in its standard deviations


def gcs_checks(results: ResultSet, frame: pd.DataFrame) -> list[str]:
    """The Golomb-compressed set's Rice-coded stream against its expected length for the geometry
    built (gap rate n/U in buckets of W values), within 4 of its standard deviations, and how the
    bits/key split between stream and index."""
    lines = []
    for r in frame[frame["family"] == "gcs"].to_dict("records"):
        measured, expected = float(r["code_bits_per_key"]), float(r["code_bits_per_key_expected"])
        tol = GCS_CODE_SDS * float(r["code_bits_per_key_sd"])
        lines.append(results.check(
            SECTION, f"gcs at ε = {r['target_fpr']:g}: the Rice-coded gaps take their expected bits",
            f"{measured:.4f} bits/key against {expected:.4f} (k = {int(r['rice_bits'])}), index"
            f" {float(r['index_bits_per_key']):.4f} bits/key (w = {int(r['offset_bits'])})",
            stats.verdict(measured, expected, abs_tol=tol), f"±{GCS_CODE_SDS} standard deviations ({tol:.4f})",
            measured=measured, expected=expected, abs_tol=tol, judged_as="equal").prose)
    return lines
