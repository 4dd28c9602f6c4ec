"""Key distributions (uniform, sequential, strided, words) and query popularity (uniform, Zipf)."""

from __future__ import annotations

import pandas as pd

from report_format import count, pct, table
from result_set import Experiment, ResultSet
from sections import common

SECTION = "workloads"


def render(results: ResultSet) -> str | None:
    return common.each(results, SECTION, one_run)


def one_run(results: ResultSet, experiment: Experiment, frame: pd.DataFrame) -> str | None:
    if "workload.kind" not in frame:
        return None
    frame = frame.assign(key_dist=frame["workload.kind"], query_dist=frame["workload.queries.dist"])
    kinds = list(dict.fromkeys(frame["key_dist"]))
    dists = list(dict.fromkeys(frame["query_dist"]))
    filters = list(dict.fromkeys(frame["filter"]))
    # FPR over distinct non-members does not depend on the query stream: judge it once per key set.
    first_dist = frame[frame["query_dist"] == dists[0]]
    fpr_rows = []
    for name in filters:
        cells = first_dist[first_dist["filter"] == name].set_index("key_dist")
        row = [name, pct(cells["fpr_theory"].iloc[0]) if not cells.empty else "–"]
        for kind in kinds:
            if kind not in cells.index:
                row.append("–")
                continue
            r = cells.loc[kind]
            outside = "" if common.fpr_cell(r) == "reproduced" else " ⚠"
            row.append(f"{pct(r['fpr'])} [{r['fpr_ci_low'] * 100:.2f}, {r['fpr_ci_high'] * 100:.2f}]{outside}")
        fpr_rows.append(row)
    stream_rows = []
    base_kind = kinds[0]
    for name in filters:
        row = [name]
        for dist in dists:
            r = frame[(frame["filter"] == name) & (frame["key_dist"] == base_kind) & (frame["query_dist"] == dist)]
            row.append("–" if r.empty else f"{r['query_ns_mixed'].iloc[0]:.1f} ns, stream FPR"
                       f" {pct(r['stream_fpr'].iloc[0])}")
        stream_rows.append(row)
    stream_members = frame.get("workload.queries.positive_fraction", frame["positive_fraction"]).iloc[0]
    lines = [common.fpr_chance_check(results, SECTION, first_dist, "the FPR formulas on every key distribution").prose,
             common.false_negative_check(results, SECTION, frame).prose]
    return "\n".join([
        *common.heading(results, experiment.id),
        f"FPR over distinct non-members at n = {count(frame['keys'].iloc[0])}, per key distribution,"
        " with its 95% interval (⚠: the theory value, widened 2%, lies outside it). Sequential and"
        " strided keys are what a weak hash would betray; word keys are real strings.",
        "",
        table(["filter", "theory"] + kinds, fpr_rows),
        "",
        *[f"- {line}" for line in lines],
        "",
        f"The query stream ({stream_members:.0%} members) under each popularity,"
        f" {base_kind} keys: ns per query (one pass) and the FPR that stream's users see (repeated"
        " non-members count each time).",
        "",
        table(["filter"] + [f"query dist {d}" for d in dists], stream_rows),
    ])
