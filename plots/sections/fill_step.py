"""Dynamic filters filled in steps (the fill_step kind): each filter sized for n keys is filled in
steps of 5% of n, and within each step its inserts, lookups of held keys, lookups of fresh
non-members and (erasable filters) erases and re-inserts are timed, as the vector quotient filter
paper (Pandey et al., SIGMOD 2021) and the prefix filter paper (Even, Even, Morrison, PVLDB 2022)
draw throughput against load. Every held key is looked up at every step (no false negative may
appear at any fill), and the FPR is measured at each fill against the filter's own formula there.

A filter may run in several cells (the classic quotient filter at its own 0.9 maximum as well as
at the 0.95 the others share): the chart and table show each filter's fullest cell, the one whose
table ends at the highest load (for filters without a load factor, the largest n)."""

from __future__ import annotations

import pandas as pd

import charts
import stats
from report_format import count, number, pct, pct_ci, table
from result_set import ResultSet
from sections import common, dynamic_papers

SECTION = "fill_step"
KIND = "fill_step"
# The fills the table reports each operation at: early, half, near the top, and full.
TABLE_FILLS = (0.05, 0.5, 0.9, 1.0)


def frames(results: ResultSet) -> tuple[pd.DataFrame, pd.DataFrame] | None:
    """(step lines, cell lines) of every fill_step experiment of the section, or None."""
    present = [e.id for e in results.experiments(SECTION, kind=KIND)]
    if not present:
        return None
    steps = pd.concat([results.frame(e, record="step") for e in present], ignore_index=True)
    cells = pd.concat([results.frame(e) for e in present], ignore_index=True)
    if steps.empty or cells.empty:
        return None
    return steps, cells


def fullest_cells(cells: pd.DataFrame) -> pd.DataFrame:
    """One cell per filter: the one that ends at the highest load (the largest n without one)."""
    ranked = cells.assign(_load=pd.to_numeric(cells.get("load_factor"), errors="coerce").fillna(-1.0)
                          if "load_factor" in cells else -1.0)
    ranked = ranked.sort_values(["_load", "capacity"], ascending=False, kind="stable")
    return ranked.drop_duplicates("filter").drop(columns="_load").sort_values("filter", kind="stable")


def at_fill(rows: pd.DataFrame, fill: float) -> dict | None:
    """The step line closest to a fill (share of n), or None."""
    if rows.empty:
        return None
    return rows.loc[(rows["fill"] - fill).abs().idxmin()].to_dict()


def slowdown(rows: pd.DataFrame, field: str, low: float = 0.5, high: float = 1.0) -> float | None:
    """How many times slower `field` is at fill `high` than at fill `low` (None when unmeasured)."""
    a, b = at_fill(rows, low), at_fill(rows, high)
    if a is None or b is None or stats.is_missing(a.get(field)) or stats.is_missing(b.get(field)):
        return None
    return float(b[field]) / float(a[field]) if float(a[field]) > 0 else None


def ns_at(rows: pd.DataFrame, field: str) -> str:
    """The operation's ns at each of TABLE_FILLS, "a / b / c / d"."""
    values = []
    for fill in TABLE_FILLS:
        row = at_fill(rows, fill)
        values.append("–" if row is None or stats.is_missing(row.get(field)) else f"{float(row[field]):.0f}")
    return " / ".join(values)


def summary_rows(steps: pd.DataFrame, cells: pd.DataFrame) -> list[list]:
    rows = []
    for cell in fullest_cells(cells).to_dict("records"):
        mine = steps[steps["cell_id"] == cell["cell_id"]].sort_values("fill")
        full = at_fill(mine, 1.0) or {}
        insert_slowdown = slowdown(mine, "step_insert_ns")
        rows.append([
            cell["filter"], count(cell["capacity"]),
            number(cell["load_factor"], 3) if not stats.is_missing(cell.get("load_factor")) else "–",
            ns_at(mine, "step_insert_ns"), ns_at(mine, "step_member_ns"), ns_at(mine, "step_absent_ns"),
            ns_at(mine, "step_erase_ns"), ns_at(mine, "step_reinsert_ns"),
            f"{insert_slowdown:.1f}x" if insert_slowdown else "–",
            pct_ci(full), pct(full.get("fpr_theory")),
            count(cell["insert_failures"]), count(cell.get("reinsert_failures", 0)),
        ])
    return rows


def render(results: ResultSet) -> str | None:
    found = frames(results)
    if found is None:
        return None
    steps, cells = found
    present = [e.id for e in results.experiments(SECTION, kind=KIND)]
    shown = fullest_cells(cells)
    shown_steps = steps[steps["cell_id"].isin(shown["cell_id"])]
    erase_misses = int(pd.to_numeric(steps.get("erase_misses"), errors="coerce").fillna(0).sum()) \
        if "erase_misses" in steps else None
    missed = int(pd.to_numeric(steps["false_negatives"], errors="coerce").fillna(0).sum()) \
        if "false_negatives" in steps else None
    lines = [
        results.check(SECTION, "no false negatives",
                      "not recorded" if missed is None else f"{missed:,} in {len(steps)} steps (every held key at every"
                      " step, and each timed fill's sampled lookups)", stats.verdict(missed, 0), "exact").prose,
        results.check(SECTION, "an erase of a held key always finds it, at every fill",
                      "not recorded" if erase_misses is None else f"{erase_misses:,} refused in {len(steps)} steps",
                      stats.verdict(erase_misses, 0), "exact").prose,
        common.fpr_chance_check(results, SECTION, steps, claim="the FPR formulas at every fill").prose,
    ]
    chart = results.figure("fill_step", "ns per operation against the fill",
                           lambda out: charts.fill_step(shown_steps, out, "Dynamic filters filled in steps: ns per"
                                                        " operation against the fill"))
    share = steps["step_share"].iloc[0] if "step_share" in steps else 0.05
    return "\n".join([
        "## Dynamic filters filled in steps",
        "",
        *[f"- {results.title(e)}: {results.made_by(e)}" for e in present],
        "",
        f"Each filter is sized for n keys and filled in steps of {share:.0%} of n up to n (for the table"
        " families, their maximum load when n fills the table exactly). Within each step: the step's"
        " inserts, lookups of held keys (sampled with replacement), lookups of fresh non-members, and for"
        " erasable filters erases of distinct held keys then their re-insertion, which puts the load back"
        " where the step planned it. One untimed warm-up fill checks every held key at every step; the"
        " timings are the median of the timed fills (the band on the chart: fastest to slowest). Columns"
        " give ns per operation at 5% / 50% / 90% / 100% of n. The static filters (XOR, binary fuse, Ribbon,"
        " the Golomb-compressed set, the production libraries' filters) are built from the whole key set at"
        " once: they have no fill to step through, and are not here.",
        "",
        table(["filter", "n", "load when full", "insert ns", "member lookup ns", "absent lookup ns", "erase ns",
               "re-insert ns", "insert, full vs half", "FPR when full [95%]", "FPR theory", "refused inserts",
               "refused re-inserts"], summary_rows(steps, cells)),
        "",
        *([chart, ""] if chart else []),
        *[f"- {line}" for line in lines],
        "",
        *dynamic_papers.comparisons(results, shown_steps, shown),
    ])
