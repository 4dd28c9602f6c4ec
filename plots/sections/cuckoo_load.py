"""Cuckoo kicks against load in one fixed table, and where inserts start to fail."""

from __future__ import annotations

import reference
import stats
from report_format import count, number, table, timing
from result_set import ResultSet
from sections import common

SECTION = "cuckoo_load"
EXPERIMENT = "cuckoo_load"
LOAD_TOL = 0.01  # the paper's "~95%" read as 0.95 ± 0.01


def render(results: ResultSet) -> str | None:
    frame = results.frame(EXPERIMENT)
    if frame is None or frame.empty:
        return None
    frame = frame.sort_values("keys")
    rows = [
        [r["filter"], count(r["keys"]), f"{r['load_factor']:.4f}", count(r["insert_failures"]),
         number(r.get("first_failure_load"), 4), f"{r['kicks_per_insert']:.3f}", count(r["kicks_max"]),
         timing(r, "insert_ns"), f"{r['fpr']:.5f} / {r['fpr_theory']:.5f}", common.fpr_cell(r)]
        for r in frame.to_dict("records")
    ]
    failed = frame[frame["insert_failures"] > 0]
    claim = reference.CUCKOO_LOAD
    if failed.empty:
        reached = float(frame["load_factor"].max())
        evidence = f"no insert failed up to load {reached:.4f}"
    else:
        reached = float(failed["first_failure_load"].min())
        evidence = f"first failed insert at load {reached:.4f}"
    lines = [
        results.check(SECTION, f"{claim.label} ({claim.source})", evidence,
                      stats.verdict(reached, claim.value, abs_tol=LOAD_TOL, claim="at_least"),
                      f"at least {claim.value:g} − {LOAD_TOL:g}").prose,
        common.fpr_chance_check(results, SECTION, frame).prose,
        common.false_negative_check(results, SECTION, frame).prose,
    ]
    capacity = frame["capacity"].iloc[0]
    return "\n".join([
        *common.heading(results, EXPERIMENT),
        f"One table sized for {count(capacity)} keys; n sets the load. Insert ns is the mean over all"
        " keys up to that load (median [min–max] over repeats).",
        "",
        table(["filter", "keys", "load reached", "failed inserts", "load at first failure", "kicks/insert",
               "max kicks", "insert ns", "FPR measured / theory", f"theory in CI (±{common.FPR_TOL:.0%})"], rows),
        "",
        *[f"- {line}" for line in lines],
        *common.figures(results, EXPERIMENT),
    ])
