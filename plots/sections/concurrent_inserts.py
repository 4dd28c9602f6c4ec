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
from sections import common, machine
from sections.threads import rate

SECTION = "concurrent_inserts"
KIND = "concurrent_inserts"


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


def slower_than_one_thread(cells: pd.DataFrame, top: int) -> list[str]:
    """"filter at n" for each pair whose median rate at T = top is below its T = 1 median."""
    one = cells[cells["threads"] == 1].set_index(["filter", "keys"])["inserts_per_second"]
    slower = []
    for row in cells[cells["threads"] == top].to_dict("records"):
        base = one.get((row["filter"], row["keys"]))
        if top > 1 and base is not None and float(row["inserts_per_second"]) < float(base):
            slower.append(f"{row['filter']} at n = {count(row['keys'])}")
    return slower


def handoff_sentence(results: ResultSet, cells: pd.DataFrame) -> str:
    """What moving a line between two CPUs costs here, from the machine experiment's line_handoff
    point, where the run has one."""
    h = machine.measured_handoff(results)
    if h is None:
        return ""
    fastest = 1e9 / float(pd.to_numeric(cells[cells["threads"] == 1]["inserts_per_second"]).max())
    return (f" On this host one line handed between {machine.handoff_between(h)} takes"
            f" {float(h['ns_per_handoff']):.0f} ns one way ({float(h['ns_per_handoff_min']):.0f}–"
            f"{float(h['ns_per_handoff_max']):.0f}; the machine experiment's line_handoff), against {fastest:.0f} ns"
            " per insert of the fastest filter on one thread.")


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
    if (slower := slower_than_one_thread(cells, top)):
        notes.append(f"At T = {top}, {len(slower)} of {len(rows_at(cells, top))} filter and n pairs load slower than on one"
                     f" thread ({', '.join(slower)}): every thread writes lines of the one shared filter, and a"
                     " line another core has written must move to this one before it can be written again, so"
                     " the threads wait on each other's lines; the fewer lines an insert writes and the larger the"
                     " filter (the less likely two threads want the same line soon), the better it scales."
                     + handoff_sentence(results, cells))
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
