"""Bloom, blocked Bloom and cuckoo at two FPR targets: space, FPR and speed side by side."""

from __future__ import annotations

import pandas as pd

import math

import stats
import theory
from report_format import count, pct_ci, table, timing
from result_set import Experiment, ResultSet
from sections import common

SECTION = "space"
BLOOM_TOL = 0.01  # Bloom's bits/key against 1.44·log2(1/ε)


def render(results: ResultSet) -> str | None:
    return common.each(results, SECTION, one_run)


def one_run(results: ResultSet, experiment: Experiment, frame: pd.DataFrame) -> str | None:
    frame = frame.sort_values(["target_fpr", "filter"], ascending=[False, True])
    rows = [
        [f"{r['target_fpr']:g}", r["filter"], f"{r['bits_per_key']:.2f}", f"{r['bits_per_key_theory']:.2f}",
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
        table(["target ε", "filter", "bits/key", "family formula at the target", "Bloom optimum",
               "FPR measured [95% CI]", "FPR theory", f"theory in CI (±{common.FPR_TOL:.0%})", "insert ns",
               "query ns (present)", "query ns (absent)", "false neg."], rows),
        "",
        "The family formula is log2(1/ε)/ln 2 for Bloom, the smallest bits/key whose Poisson-mixture"
        " FPR meets ε for the split-block filter, and f/α for cuckoo at the requested max load α;"
        " each before its table is rounded up (to 64-bit words, 64-byte blocks, a power of two of"
        " buckets), which the measured bits/key shows."
        f" The Bloom optimum is log2(1/ε)/ln 2 = {1 / math.log(2):.3f}·log2(1/ε).",
        "Timings are ns per key, median [min–max] over the run's repeats.",
        "",
        *[f"- {line}" for line in lines],
        *common.figures(results, experiment.id),
    ])
