"""Bits per key against FPR over a sweep of targets: every family against its theory curve."""

from __future__ import annotations

import numpy as np

import stats
import theory
from report_format import pct, table
from result_set import ResultSet
from sections import common

SECTION = "sweep"
EXPERIMENT = "sweep"
CURVE_TOL = 0.03  # measured bits/key against the family's curve at the FPR its formula gives


def curve_gap(row: dict) -> float:
    """Measured bits/key over the theory curve's bits/key at the cell's theory FPR, minus 1."""
    curve = theory.curve_for(row["filter"], row["family"])
    if curve is None or not 0 < row["fpr_theory"] < 1:
        return float("nan")
    return row["bits_per_key"] / float(np.atleast_1d(curve[1](row["fpr_theory"]))[0]) - 1


def ribbon_fractional(results: ResultSet, built) -> list[str]:
    """ribbon_frac against ribbon at each target both ran: equal at a whole log2(1/ε), fewer bits
    between (filters/ribbon_frac.h); judged on the largest ratio over the sweep, exactly."""
    pairs = built[built["filter"].isin(["ribbon", "ribbon_frac"])].pivot_table(
        index="target_fpr", columns="filter", values=["bits_per_key", "fpr"])
    if pairs.empty or "ribbon_frac" not in pairs["bits_per_key"] or "ribbon" not in pairs["bits_per_key"]:
        return []
    pairs = pairs.dropna().sort_index(ascending=False)
    if pairs.empty:
        return []
    bits, fpr = pairs["bits_per_key"], pairs["fpr"]
    ratio = bits["ribbon_frac"] / bits["ribbon"]
    worst = ratio.idxmax()
    listed = "; ".join(f"ε = {t:g}: {bits.loc[t, 'ribbon_frac']:.2f} against {bits.loc[t, 'ribbon']:.2f}"
                       f" ({100 * (ratio[t] - 1):+.1f}%), FPR {pct(fpr.loc[t, 'ribbon_frac'])} against"
                       f" {pct(fpr.loc[t, 'ribbon'])}" for t in pairs.index)
    return [f"ribbon_frac against ribbon, bits/key at each target: {listed}.",
            results.check(SECTION, "ribbon_frac never takes more bits/key than ribbon at the same ε",
                          f"largest ratio {ratio[worst]:.4f} (at ε = {worst:g})",
                          stats.verdict(ratio[worst], 1.0, claim="at_most"), "exact").prose]


def render(results: ResultSet) -> str | None:
    frame = results.frame(EXPERIMENT)
    if frame is None or frame.empty:
        return None
    built = common.built(frame).copy()
    built["gap"] = [curve_gap(r) for r in built.to_dict("records")]
    targets = sorted(built["target_fpr"].unique(), reverse=True)
    rows = []
    for name, cells in built.groupby("filter", sort=False):
        by_target = cells.set_index("target_fpr")
        worst = cells.loc[cells["gap"].abs().idxmax()] if cells["gap"].notna().any() else None
        label = theory.curve_for(name, cells["family"].iloc[0])
        if worst is None:
            verdict_text = "no curve"
        else:
            verdict_text = results.check(
                SECTION, f"{name} follows {label[0]}",
                f"largest gap {worst['gap'] * 100:+.1f}% (at ε = {worst['target_fpr']:g})",
                stats.verdict(worst["gap"], 0.0, abs_tol=CURVE_TOL), f"±{CURVE_TOL:.0%}").cell
        rows.append([name] + [f"{by_target.loc[t, 'bits_per_key']:.2f}" if t in by_target.index else "–"
                              for t in targets] + [verdict_text])
    lines = [common.fpr_chance_check(results, SECTION, built).prose,
             common.false_negative_check(results, SECTION, built).prose]
    lines += ribbon_fractional(results, built)
    return "\n".join([
        *common.heading(results, EXPERIMENT),
        "Bits/key measured at each target ε. Each filter is judged against its family's theory curve"
        " (the curves in the chart) evaluated at the FPR its own formula gives for the geometry it"
        f" built; the verdict is on the largest gap over the sweep (±{CURVE_TOL:.0%}).",
        "",
        table(["filter"] + [f"ε = {t:.3g}" for t in targets] + ["against the curve"], rows),
        "",
        *[f"- {line}" for line in lines],
        *common.figures(results, EXPERIMENT),
    ])
