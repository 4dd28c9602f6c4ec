"""Lookups on T threads (the threads kind): one filter shared by T pinned threads, and one filter of
n / T keys per thread (a sharded store), each thread looking up its own slice of a stream of
members, of non-members and of a mix. A table per layout: lookups per second at one thread and at
the experiment's largest T, the speedup, and the lookups' cache lines per second as a fraction of
the machine's random-line rate at T threads (the machine experiment's random_lines_threads points,
at a working set of the filters' bytes), for the lines a lookup touches as the locality experiment
traced them."""

from __future__ import annotations

import pandas as pd

import stats
from report_format import count, table
from result_set import ResultSet
from sections import common, machine, speed_vs_n

SECTION = "threads"
KIND = "threads"
LAYOUTS = {"shared": "One filter shared by every thread", "per_thread": "One filter of n / T keys per thread"}


def threaded_ceiling(results: ResultSet, threads: int) -> pd.DataFrame:
    """The machine's random-line rate at `threads` threads by working set (the first machine
    experiment that measured it), or an empty frame."""
    for experiment_id in machine.machine_experiments(results):
        lines = machine.records(results, experiment_id, "random_lines_threads")
        if not lines.empty and "threads" in lines:
            mine = lines[pd.to_numeric(lines["threads"], errors="coerce") == threads]
            if not mine.empty:
                return mine.sort_values("working_set_bytes").reset_index(drop=True)
    return pd.DataFrame()


def rate(value) -> str:
    return "–" if stats.is_missing(value) else f"{float(value):.3g}"


def ceiling_fraction(row: dict, ceiling: pd.DataFrame, traced: pd.DataFrame) -> str:
    """Member lookups' cache lines per second over the T-thread ceiling at the cell's bytes."""
    if ceiling.empty:
        return "no T-thread ceiling"
    _, lines = speed_vs_n.lines_row(traced, row["filter"]) if not traced.empty else (None, None)
    if lines is None:
        return "lines not traced"
    limit = machine.ceiling_at(ceiling, float(row["size_bytes"]))
    return f"{float(row['member_ops_per_second']) * float(lines['cache_lines_member_mean']) / limit:.2f}"


def layout_rows(cells: pd.DataFrame, layout: str, top: int, ceiling: pd.DataFrame, traced: pd.DataFrame) -> list:
    one = cells[(cells["layout"] == "shared") & (cells["threads"] == 1)]
    mine = cells[(cells["layout"] == layout) & (cells["threads"] == top)]
    rows = []
    for row in mine.sort_values(["keys", "filter"], kind="stable").to_dict("records"):
        base = one[(one["filter"] == row["filter"]) & (one["keys"] == row["keys"])]
        if base.empty:
            continue
        base = base.iloc[0]
        cells_of = []
        for mix in ("member", "absent", "mixed"):
            at_one, at_top = float(base[f"{mix}_ops_per_second"]), float(row[f"{mix}_ops_per_second"])
            cells_of += [rate(at_one), rate(at_top)] if mix != "mixed" else []
            cells_of.append(f"{at_top / at_one:.2f}x" if at_one > 0 else "–")
        rows.append([row["filter"], count(row["keys"]), *cells_of, ceiling_fraction(row, ceiling, traced),
                     f"{float(row['cpu_share']):.2f}"])
    return rows


def render(results: ResultSet) -> str | None:
    present, cells = common.all_cells(results, SECTION, KIND)
    if cells is None:
        return None
    cells["threads"] = pd.to_numeric(cells["threads"])
    top = int(cells["threads"].max())
    ceiling = threaded_ceiling(results, top)
    traced = speed_vs_n.traced_lines(results)
    missed = int(pd.to_numeric(cells["false_negatives"]).sum())
    queries = int(pd.to_numeric(cells["member_lookups"]).sum())
    check = results.check(SECTION, "no false negatives on any thread",
                          f"{missed:,} of {queries:,} member lookups over {len(cells)} cells (every run, warm-up"
                          " included)", stats.verdict(missed, 0), "exact")
    notes = []
    if ceiling.empty:
        notes.append(f"The machine's random-line rate at {top} threads is missing (no machine experiment with"
                     f" random_lines_threads at T = {top} in these results): no ceiling fraction.")
    if traced.empty:
        notes.append("The lines a lookup touches are missing (no locality experiment traced them): no ceiling"
                     " fraction.")
    low = cells[pd.to_numeric(cells["cpu_share"]) < 0.9]
    if not low.empty:
        notes.append(f"{len(low)} of {len(cells)} cells' threads ran under 90% of the wall time (cpu_share: other"
                     " processes took time slices, or T exceeds the CPUs): their rates are low by about that much.")
    header = ["filter", "n", "member lookups/s, T=1", f"T={top}", "speedup", "absent lookups/s, T=1", f"T={top}",
              "speedup", "mixed speedup", f"member lines/s over the {top}-thread ceiling", "cpu share"]
    parts = ["## Lookups on several threads", "",
             *[f"- {results.title(e)}: {results.made_by(e)}" for e in present], "",
             f"T pinned threads (one per physical core first; the CPUs each ran on are in the records) start at"
             f" one barrier; the time is from the barrier to the last thread's end, and lookups per second count"
             f" every thread's. Median of the timed runs; the speedup divides by the shared layout's T = 1 (one"
             f" filter of n keys on one thread). The ceiling fraction is the member lookups' cache lines per"
             f" second (lookups/s times the locality experiment's traced lines per member lookup) over the"
             f" machine's random-line rate on {top} threads at a working set of the filters' bytes.", ""]
    for layout, title in LAYOUTS.items():
        rows = layout_rows(cells, layout, top, ceiling, traced)
        if rows:
            parts += [f"### {title}", "", table(header, rows), ""]
    parts += [f"- {check.prose}", *[f"- {note}" for note in notes]]
    return "\n".join(parts)
