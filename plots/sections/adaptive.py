"""Adaptive cuckoo filters against same-space static controls: the A/S grid, trace replays and
repeated (adversarial) queries."""

from __future__ import annotations

import pandas as pd

import reference
import stats
from report_format import count, pct, table
from result_set import ResultSet
from sections import common

SECTION = "adaptive"
GRID = "adapt_grid"
TRACES = ("adapt_trace_real", "adapt_trace_synth")
ADVERSARIAL = "adapt_adversarial"
CONTROL_TOL = 0.05  # a static control's FPR against its theory, at the largest A/S (most flows)
ACF_TOL = 0.10  # false positives paid against those the attacked set started with
SEVERITY = {stats.REPRODUCED: 0, stats.NOT_MEASURED: 1, stats.PARTLY: 2, stats.CONTRADICTED: 3}


def controls(cells: pd.DataFrame) -> set[str]:
    """Filters that never adapted: the static controls."""
    adaptations = cells.groupby("filter")["adaptations"].sum()
    return set(adaptations[adaptations == 0].index)


def grid(results: ResultSet) -> list[str]:
    cells = results.frame(GRID)
    if cells is None or cells.empty:
        return []
    ratios = sorted(cells["as_ratio"].unique())
    parts = [
        *common.heading(results, GRID, "###"),
        f"S fills {cells['load_factor'].median():.1%} of {count(cells['slots'].iloc[0])} slots; A holds"
        " |A|/|S| × |S| non-member flows, each asked `queries_per_flow` times on average"
        f" ({cells['popularity'].iloc[0] if 'popularity' in cells else 'uniform'} popularity)."
        " Every filter has the same slots and bits"
        " per slot. FPR is the mean over trials (min–max in the chart); the static theory is"
        " 1 − (1 − 2^−f)^(d·b·α).",
    ]
    for (bits, qpf), panel in cells.groupby(["bits_per_slot", "queries_per_flow"]):
        rows = []
        for name, per in panel.groupby("filter", sort=False):
            per = per.set_index("as_ratio")
            rows.append([name, pct(per["fpr_theory_static"].iloc[0])]
                        + [pct(per.loc[a, "fpr"]) if a in per.index else "–" for a in ratios]
                        + [f"{per['adaptations'].sum() / per['negative_queries'].sum():.4f}",
                           f"{per['remote_lookups'].sum() / per['negative_queries'].sum():.3f}"])
        parts += ["", f"**{int(bits)} bits per slot, {qpf:g} queries per flow**", "",
                  table(["filter", "static theory"] + [f"A/S = {a:g}" for a in ratios]
                        + ["adaptations per query", "remote lookups per query"], rows)]
    lines = []
    widest = cells[cells["as_ratio"] == max(ratios)]
    for name in sorted(controls(cells)):
        mine = widest[widest["filter"] == name]
        gaps = mine["fpr"] / mine["fpr_theory_static"] - 1
        worst = float(gaps.loc[gaps.abs().idxmax()])
        lines.append(results.check(SECTION, f"static control {name} follows its FPR formula",
                                   f"largest gap {worst:+.1%} at A/S = {max(ratios):g}",
                                   stats.verdict(worst, 0.0, abs_tol=CONTROL_TOL), f"±{CONTROL_TOL:.0%}").prose)
    lines.append(common.false_negative_check(results, SECTION, cells).prose)
    parts += ["", *[f"- {line}" for line in lines], *common.figures(results, GRID)]
    return parts


def trace_replay(results: ResultSet, experiment_id: str) -> list[str]:
    cells = results.frame(experiment_id)
    if cells is None or cells.empty:
        return []
    rows = [[r["filter"], count(r["bits_per_slot"]), f"{r['as_ratio']:.2f}", f"{r['queries_per_flow']:.1f}",
             pct(r["fpr"]), pct(r["fpr_theory_static"]), f"{r['fpr'] / r['fpr_theory_static']:.2f}",
             count(r["adaptations"]), count(r["false_negatives"])] for r in cells.to_dict("records")]
    return [
        "",
        *common.heading(results, experiment_id, "###"),
        "Distinct flows inserted in order until the load is reached, then every packet queried.",
        "",
        table(["filter", "bits/slot", "A/S", "queries/flow", "FPR", "static theory", "FPR / theory",
               "adaptations", "false neg."], rows),
        "",
        f"- {common.false_negative_check(results, SECTION, cells).prose}",
        *common.figures(results, experiment_id),
    ]


def adversarial(results: ResultSet) -> list[str]:
    cells = results.frame(ADVERSARIAL)
    if cells is None or cells.empty:
        return []
    claim = reference.ACF_ONE_FALSE_POSITIVE
    static = controls(cells)
    sizes = sorted(cells["set_size"].unique())
    worst: dict[str, tuple[str, str]] = {}
    rows = []
    for (attack, name, bits), group in cells.groupby(["attack", "filter", "bits_per_slot"], sort=False):
        per = group.set_index("set_size")
        row = [attack, name, count(bits)]
        for size in sizes:
            if size not in per.index:
                row.append("–")
                continue
            paid, initial = per.loc[size, "false_positives"], per.loc[size, "set_initially_false_positive"]
            text = f"{count(paid)} / {count(per.loc[size, 'false_positives_static'])}"
            if name not in static:
                verdict = stats.verdict(paid, initial, rel_tol=ACF_TOL, claim="at_most")
                evidence = (f"{count(paid)} paid for {count(initial)} initially false"
                            f" ({attack}, {int(bits)} bits, set of {int(size)})")
                if name not in worst or SEVERITY[verdict] > SEVERITY[worst[name][0]]:
                    worst[name] = (verdict, evidence)
                text += "" if verdict == stats.REPRODUCED else " ⚠"
            row.append(text)
        rows.append(row)
    lines = [results.check(SECTION, f"{name}: {claim.label} ({claim.source})", f"worst cell {evidence}",
                           verdict, f"+{ACF_TOL:.0%}").prose for name, (verdict, evidence) in worst.items()]
    return [
        "",
        *common.heading(results, ADVERSARIAL, "###"),
        "A set of non-members asked again and again: `known_fps` are non-members that start as false"
        " positives, `random_set` are random non-members. Each cell: false positives the filter paid /"
        " what the same filter pays with adaptation off, summed over trials (⚠: more than the claim"
        " below allows).",
        "",
        table(["attack", "filter", "bits/slot"] + [f"set of {int(k)}" for k in sizes], rows),
        "",
        *[f"- {line}" for line in lines],
    ]


def render(results: ResultSet) -> str | None:
    parts = grid(results)
    for experiment_id in TRACES:
        parts += trace_replay(results, experiment_id)
    parts += adversarial(results)
    if not parts:
        return None
    return "\n".join(["## Adaptive cuckoo filters", "", *parts])
