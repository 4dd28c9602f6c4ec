"""Replayed network traces: the filters hold half the flows, every packet is a query."""

from __future__ import annotations

import pandas as pd

from report_format import BOUND_HEADERS, bound_cells, bound_note, count, pct, pct_ci, table, timing
from result_set import ResultSet
from sections import common

SECTION = "traces"


def one_trace(results: ResultSet, experiment_id: str, frame: pd.DataFrame) -> list[str]:
    first = frame.iloc[0]
    rows = [[r["filter"], f"{r['bits_per_key']:.2f}", *bound_cells(r["bits_per_key"], r["fpr"]),
             f"{pct(r['stream_fpr'])} ({count(r['stream_false_positives'])})", pct_ci(r), pct(r["fpr_theory"]),
             common.fpr_cell(r), timing(r, "query_ns_mixed"), count(r["false_negatives"])]
            for r in frame.to_dict("records")]
    return [
        *common.heading(results, experiment_id, "###"),
        f"**{first['workload.file']}** (content hash `{first['workload.content_hash']}`):"
        f" {count(first.get('workload.trace.packets'))} packets, {count(first['workload.distinct_keys'])}"
        f" distinct 5-tuples; the filters hold the first {count(first['keys_inserted'])} seen, and all"
        f" {count(first['stream_queries'])} parsed packets are replayed as queries,"
        f" {count(first['stream_negative_queries'])} of them about flows not held.",
        "",
        table(["filter", "bits/key", *BOUND_HEADERS, "stream FPR (per packet)", "FPR over distinct flows not held [95% CI]",
               "theory", f"theory in CI (±{common.FPR_TOL:.0%})", "ns per packet query", "false neg."], rows),
        "",
    ]


def render(results: ResultSet) -> str | None:
    present = common.frames(results, results.experiments(SECTION))
    if not present:
        return None
    parts = ["## Replayed network traces", ""]
    for experiment, frame in present:
        parts += one_trace(results, experiment.id, frame)
    every = pd.concat([f for _, f in present], ignore_index=True)
    parts += [
        "The per-packet FPR weights each colliding flow by its packets (a filter answers the same"
        " for every packet of a flow); the per-flow FPR over distinct flows not held is the one"
        " theory predicts. " + bound_note("that per-flow FPR over distinct flows not held"),
        "",
        f"- {common.fpr_chance_check(results, SECTION, every, 'the FPR formulas on replayed flows').prose}",
        f"- {common.false_negative_check(results, SECTION, every).prose}",
    ]
    return "\n".join(parts)
