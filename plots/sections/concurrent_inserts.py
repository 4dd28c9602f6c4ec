"""Inserts on T threads into one filter at once (the concurrent_inserts kind): each filter's
concurrent insert mode (atomic bit-sets for the Bloom family, per-block locks for the VQF, region
locks for the RSQF, lock striping for the cuckoo filter), inserts per second at one thread and at
the experiment's largest T, the speedup, the locks' bytes, the FPR after the concurrent load beside
its theory, and the exact check that every accepted key is found after the threads are joined."""

from __future__ import annotations

import pandas as pd

import stats
from report_format import count, table
from result_set import ResultSet
from sections import common

SECTION = "concurrent_inserts"
KIND = "concurrent_inserts"


def rate(value) -> str:
    return "–" if stats.is_missing(value) else f"{float(value):.3g}"


def spread(row: dict) -> str:
    """The median with the timed runs' range, as the other timing tables give it."""
    return f"{rate(row['inserts_per_second'])} ({rate(row['inserts_per_second_min'])}–{rate(row['inserts_per_second_max'])})"


def rows_at(cells: pd.DataFrame, top: int) -> list:
    one = cells[cells["threads"] == 1]
    rows = []
    for row in cells[cells["threads"] == top].sort_values(["keys", "filter"], kind="stable").to_dict("records"):
        base = one[(one["filter"] == row["filter"]) & (one["keys"] == row["keys"])]
        if base.empty:
            continue
        base = base.iloc[0].to_dict()
        at_one, at_top = float(base["inserts_per_second"]), float(row["inserts_per_second"])
        rows.append([row["filter"], count(row["keys"]), spread(base), spread(row),
                     f"{at_top / at_one:.2f}x" if at_one > 0 else "–", count(row["lock_bytes"]),
                     f"{float(row['fpr_after_concurrent_inserts']):.4f}", f"{float(row['fpr_theory']):.4f}",
                     count(row["insert_failures"]), f"{float(row['cpu_share']):.2f}"])
    return rows


def render(results: ResultSet) -> str | None:
    present, cells = common.all_cells(results, SECTION, KIND)
    if cells is None:
        return None
    cells["threads"] = pd.to_numeric(cells["threads"])
    top = int(cells["threads"].max())
    missed = int(pd.to_numeric(cells["false_negatives"]).sum())
    inserted = int(pd.to_numeric(cells["keys_inserted"]).sum())
    check = results.check(SECTION, "no false negatives after concurrent inserts",
                          f"{missed:,} accepted keys not found, over {len(cells)} cells' last runs holding"
                          f" {inserted:,} keys (every run is checked, warm-up included)", stats.verdict(missed, 0),
                          "exact")
    notes = []
    low = cells[pd.to_numeric(cells["cpu_share"]) < 0.9]
    if not low.empty:
        notes.append(f"{len(low)} of {len(cells)} cells' threads ran under 90% of the wall time (cpu_share: other"
                     " processes took time slices, or T exceeds the CPUs): their rates are low by about that much.")
    header = ["filter", "n", "inserts/s, T=1 (min–max)", f"T={top} (min–max)", "speedup", "lock bytes",
              f"FPR after T={top}", "FPR theory", "refused", "cpu share"]
    rows = rows_at(cells, top)
    parts = ["## Inserts on several threads", "",
             *[f"- {results.title(e)}: {results.made_by(e)}" for e in present], "",
             "T pinned threads start at one barrier and load one fresh filter, sized for n keys, through its"
             " concurrent insert mode (core/concurrent_insert.h), thread t inserting its n / T keys; the time is"
             " from the barrier to the last thread's end. Median of the timed loads, with their range; the speedup"
             " divides by the same mode on one thread (its atomics and locks included, so it is the mode against"
             " itself, not against the sequential insert the speed tables time). After every load, each key whose"
             " insert was accepted is looked up.", ""]
    if rows:
        parts += [table(header, rows), ""]
    parts += [f"- {check.prose}", *[f"- {note}" for note in notes]]
    return "\n".join(parts)
