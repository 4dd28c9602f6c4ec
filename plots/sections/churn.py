"""Churn: erasable filters held at their load while keys are erased and inserted."""

from __future__ import annotations

import pandas as pd

import stats
import theory
from report_format import count, pct, table, timing
from result_set import Experiment, ResultSet
from sections import common

SECTION = "churn"
FPR_TOL = 0.10  # churn FPR against theory at the churn load (no interval is recorded for it)


def present(row: dict, field: str) -> bool:
    return field in row and row[field] is not None and row[field] == row[field]  # NaN: absent


def churn_load(row: dict) -> float:
    """The load churn runs at: recorded after churn, or the full build's scaled to the resident keys."""
    if present(row, "churn_load_factor"):
        return row["churn_load_factor"]
    return row["load_factor"] * row["churn_resident"] / row["keys_inserted"]


def theory_at_churn_load(row: dict) -> float:
    """The family's FPR formula at the load churn runs at (resident keys, not the full build):
    the filter's own theory in the state churn left it in, as recorded since churn_fpr_theory
    exists; for older files, the formula evaluated here."""
    if present(row, "churn_fpr_theory"):
        return row["churn_fpr_theory"]
    load = churn_load(row)
    if row["family"] == "cuckoo":
        return float(theory.cuckoo_fpr(row["fingerprint_bits"], load, int(row["slots_per_bucket"])))
    if row["family"] == "quotient":
        return float(theory.quotient_fpr(row["remainder_bits"], load))
    # Other families: their FPR is linear in the load to first order.
    return row["fpr_theory"] * row["churn_resident"] / row["keys_inserted"]


def render(results: ResultSet) -> str | None:
    return common.each(results, SECTION, one_run)


def one_run(results: ResultSet, experiment: Experiment, frame: pd.DataFrame) -> str | None:
    if "churn_ops" not in frame:
        return None
    rows, lines = [], []
    for r in frame.to_dict("records"):
        expected = theory_at_churn_load(r)
        load = churn_load(r)
        check = results.check(SECTION, f"{r['filter']}'s FPR formula during churn",
                              f"{pct(r['churn_fpr'])} against {pct(expected)} at load {load:.3f}",
                              stats.verdict(r["churn_fpr"], expected, rel_tol=FPR_TOL),
                              stats.tolerance_text(FPR_TOL))
        # Per filter, so a source's claim about one family (the quotient filter article: deletions
        # without false negatives) is judged on that family's cells only.
        results.check(SECTION, f"deleting members leaves no false negatives: {r['filter']}",
                      f"{r['filter']}: {count(r['churn_false_negatives'])} false negatives over"
                      f" {count(r['churn_ops'])} churn steps"
                      f" ({count(r['churn_rounds'])} erases of held keys)",
                      stats.verdict(r["churn_false_negatives"], 0), "exact")
        rows.append([r["filter"], f"{r['load_factor']:.3f}", f"{load:.3f}", count(r["churn_ops"]),
                     timing(r, "churn_ns"), count(r["churn_false_negatives"]), count(r["churn_insert_failures"]),
                     pct(r["churn_fpr"]), pct(expected), check.cell])
    lines.append(common.false_negative_check(results, SECTION, frame, "churn_false_negatives").prose)
    refused = int(frame["churn_insert_failures"].sum())
    lines.append(results.check(SECTION, "no insert refused while held at the churn load",
                               f"{refused:,} refused", stats.verdict(refused, 0), "exact").prose)
    first = frame.iloc[0]
    return "\n".join([
        *common.heading(results, experiment.id),
        f"Each filter is built with n = {count(first['keys_inserted'])}, then holds"
        f" {count(first['churn_resident'])} members through {count(first['churn_rounds'])} rounds of:"
        " erase one held key, insert one member not held, and four queries (half about held keys),"
        " each checked against the exact set. The FPR formula is evaluated at the churn load.",
        "",
        table(["filter", "load after build", "churn load", "churn steps", "ns per step", "false negatives",
               "refused inserts", "FPR during churn", "theory at churn load",
               f"FPR (±{FPR_TOL:.0%})"], rows),
        "",
        *[f"- {line}" for line in lines],
    ])
