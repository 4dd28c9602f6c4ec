"""Cuckoo kicks against load in one fixed table, and where inserts start to fail, for b = 2, 4
and 8 slots per bucket beside the load thresholds of two-choice cuckoo hashing."""

from __future__ import annotations

import reference
import stats
from report_format import count, number, table, timing
from result_set import ResultSet
from sections import common

SECTION = "cuckoo_load"
EXPERIMENT = "cuckoo_load"
LOAD_TOL = 0.01  # the paper's "~95%" read as 0.95 ± 0.01
# The thresholds are limits as the table grows without bound, reached with unbounded kicks; a
# table of ~2^20 slots that gives up after 500 kicks fails a little before them.
THRESHOLD_TOL = 0.02


def threshold_checks(results: ResultSet, frame) -> list[str]:
    """Per layout b: the load of its first failed insert against the threshold for b."""
    lines = []
    for b, rows in frame.groupby("slots_per_bucket"):
        threshold = reference.CUCKOO_THRESHOLDS.get(int(b))
        if threshold is None:
            continue
        failed = rows[rows["insert_failures"] > 0]
        if failed.empty:
            reached, evidence = None, f"no insert failed up to load {rows['load_factor'].max():.4f}"
        else:
            reached = float(failed["first_failure_load"].min())
            evidence = f"first failed insert at load {reached:.4f}"
        names = ", ".join(sorted(rows["filter"].unique()))
        tol = THRESHOLD_TOL if threshold.claim == "equal" else 0.005
        # No failure at all is evidence the threshold is not below the highest load reached.
        measured = reached if reached is not None else float(rows["load_factor"].max())
        claim = "equal" if reached is not None and threshold.claim == "equal" else "at_least"
        word = "about" if threshold.claim == "equal" else "above"
        lines.append(results.check(
            SECTION, f"b = {int(b)} ({names}): inserts start to fail at load {word} {threshold.load:g}"
                     f" ({reference.CUCKOO_THRESHOLD_SOURCE})", evidence,
            stats.verdict(measured, threshold.load, abs_tol=tol, claim=claim),
            f"{'within' if claim == 'equal' else 'at least'} {threshold.load:g} ± {tol:g}").prose)
    return lines

def render(results: ResultSet) -> str | None:
    frame = results.frame(EXPERIMENT)
    if frame is None or frame.empty:
        return None
    frame = frame.sort_values("keys")
    rows = [
        [r["filter"], str(int(r["slots_per_bucket"])), count(r["keys"]), f"{r['load_factor']:.4f}", count(r["insert_failures"]),
         number(r.get("first_failure_load"), 4), f"{r['kicks_per_insert']:.3f}", count(r["kicks_max"]),
         timing(r, "insert_ns"), f"{r['fpr']:.5f} / {r['fpr_theory']:.5f}", common.fpr_cell(r)]
        for r in frame.to_dict("records")
    ]
    paper_layout = frame[frame["slots_per_bucket"] == 4]
    failed = paper_layout[paper_layout["insert_failures"] > 0]
    claim = reference.CUCKOO_LOAD
    if failed.empty:
        reached = float(paper_layout["load_factor"].max())
        evidence = f"no insert failed up to load {reached:.4f}"
    else:
        reached = float(failed["first_failure_load"].min())
        evidence = f"first failed insert at load {reached:.4f}"
    lines = [
        results.check(SECTION, f"{claim.label} ({claim.source})", evidence,
                      stats.verdict(reached, claim.value, abs_tol=LOAD_TOL, claim="at_least"),
                      f"at least {claim.value:g} − {LOAD_TOL:g}").prose,
        *threshold_checks(results, frame),
        common.fpr_chance_check(results, SECTION, frame).prose,
        common.false_negative_check(results, SECTION, frame).prose,
    ]
    capacity = frame["capacity"].iloc[0]
    return "\n".join([
        *common.heading(results, EXPERIMENT),
        f"One table sized for {count(capacity)} keys; n sets the load. Insert ns is the mean over all"
        " keys up to that load (median [min–max] over repeats).",
        "",
        table(["filter", "b", "keys", "load reached", "failed inserts", "load at first failure", "kicks/insert",
               "max kicks", "insert ns", "FPR measured / theory", f"theory in CI (±{common.FPR_TOL:.0%})"], rows),
        "",
        *[f"- {line}" for line in lines],
        *common.figures(results, EXPERIMENT),
    ])
