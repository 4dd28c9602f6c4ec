"""Speed against n: the micro-benchmarks of one filter per family at n from 2^10 keys up, in ns
per key, with the caches of the machine that ran them (the file's context)."""

from __future__ import annotations

import math

import charts
import hosts
import load
from report_format import table
from result_set import ResultSet
from sections import common

SECTION = "speed_vs_n"
OPERATIONS = {"insert": "insert", "build": "build", "query_present": "query, present",
              "query_absent": "query, absent"}


def n_label(n: float) -> str:
    """2^k for a power of two, else the number."""
    k = math.log2(n)
    return f"2^{int(k)}" if k.is_integer() else f"{int(n):,}"


def median_table(runs) -> str:
    """A row per filter and operation, a column per n: the median ns per key."""
    sizes = sorted(runs["n"].unique())
    medians = runs.groupby(["filter", "operation", "n"])["ns_per_key"].median()
    rows = []
    for (name, operation), part in medians.groupby(level=[0, 1]):
        values = part.droplevel([0, 1])
        rows.append([name, OPERATIONS.get(operation, operation),
                     *(f"{values[n]:.3g}" if n in values.index else "–" for n in sizes)])
    order = list(OPERATIONS.values())
    rows.sort(key=lambda r: (r[0], order.index(r[1]) if r[1] in order else len(order)))
    return table(["filter", "operation", *(n_label(n) for n in sizes)], rows)


def render(results: ResultSet) -> str | None:
    experiments = [e for e in results.suite.experiments
                   if e.section == SECTION and results.file(e.id) is not None]
    if not experiments:
        return None
    parts = []
    for experiment in experiments:
        result = results.file(experiment.id)
        runs = charts.sized_runs(result.frame)
        parts += common.heading(results, experiment.id)
        if runs["n"].nunique() < 2:
            parts += ["The file holds benchmarks at one n only: nothing to draw against n.", ""]
            continue
        caches = load.cache_sizes(result.context)
        bits = charts.typical_bits_per_key(runs)
        repetitions = runs.groupby(["filter", "operation", "n"]).size().max()
        marked = charts.cache_lines(caches, bits, runs["n"].min(), runs["n"].max())
        cache_text = (", ".join(f"{name} {hosts.size_text(size)}" for name, size in caches)
                      if caches else "none recorded")
        marked_text = (", ".join(f"{name} at n ≈ {n:,.0f}" for name, _, n in marked)
                       if marked else "none within the range of n")
        parts += [
            f"ns per key, median over {repetitions} repetition{'s' if repetitions != 1 else ''}, on"
            " pre-faulted memory: a dynamic filter's table is allocated and zeroed outside the timed"
            " region, a static filter is built once untimed before its timed builds, and freed memory"
            " stays in the process. Each n uses the first n keys of the same buffers. Caches in the"
            f" file's context: {cache_text}. A filter of {bits:.1f} bits per key (the median of these"
            f" filters) fills them at: {marked_text} (the chart's dotted lines).",
            "",
            median_table(runs),
        ]
        drawn = results.figure(f"{experiment.id}_speed_vs_n", f"{experiment.title}: ns per key against n",
                               lambda out: charts.speed_vs_n(result.frame, out, experiment.title, caches))
        if drawn:
            parts += ["", drawn]
        parts.append("")
    return "\n".join(parts).rstrip("\n")
