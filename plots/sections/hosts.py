"""Two builds (or machines) side by side: the suite's micro-benchmark experiments through
plots/hosts.py, the first one dividing the others.

The sides are every experiment of kind "micro" at one n (no `keys` list: those are the speed_vs_n
section's) whose file exists, in suite order (the default suite: micro, the portable build, then
micro_native, the -march=native one), named by the build the suite gives them. Whether they are builds of one machine or different machines is read from
their files' contexts, not assumed.
"""

from __future__ import annotations

import compare
import hosts
import load
from result_set import ResultSet
from sections import common

SECTION = "hosts"
BUILD_NAMES = {"portable": "portable", "native": "-march=native"}


def extremes(pairing: hosts.Pairing, table) -> str:
    """The rows furthest from 1 each way, as a sentence."""
    if table.empty:
        return ""
    low, high = table.loc[table["ratio"].idxmin()], table.loc[table["ratio"].idxmax()]
    b = pairing.b.name
    return (f" The largest gain of {b} is {low['filter']} {low['operation']} ({low['ratio']:.2f}), the"
            f" largest loss {high['filter']} {high['operation']} ({high['ratio']:.2f}).")


def render(results: ResultSet) -> str | None:
    experiments = common.one_n_micro(results)
    if len(experiments) < 2:
        return None
    classes = compare.field_classes(load.DEFAULT_SCHEMA)
    sides = [hosts.side_of(BUILD_NAMES.get(e.build, e.id), [results.file(e.id)], classes) for e in experiments]
    made_by = [f"- {side.name}: {results.title(e.id)}. {results.made_by(e.id)}" for side, e in zip(sides, experiments)]
    try:
        comparison = hosts.compare_sides(sides)
    except compare.BadInput as error:
        return "\n".join([f"## {hosts.relation(sides).capitalize()}", "", *made_by, "", f"Not compared: {error}."])
    parts = [f"## {comparison.title()}", "", *made_by, "",
             f"Told apart by their files' contexts: {comparison.relation}. The files record:", "",
             hosts.context_markdown(comparison.sides)]
    for pairing in comparison.pairings:
        table = hosts.ratio_table(pairing)
        a, b = pairing.a.name, pairing.b.name
        parts += ["", hosts.summarize(pairing, table).sentence(a, b) + extremes(pairing, table)
                  + f" Ratios are of medians over the repetitions, ns per key; {pairing.cells} benchmarks in"
                  f" common. The same with the chart against n and the machine curves where the files"
                  f" have them: `/usr/bin/python3 plots/hosts.py --label={a}={pairing.a.results[0].path}"
                  f" --label={b}={pairing.b.results[0].path} --out DIR`.", ""]
        if not table.empty:
            parts.append(hosts.ratio_markdown(pairing, table))
    points = hosts.side_points(comparison.pairings)
    drawn = results.figure("hosts_speed", f"{comparison.title()}: speed per filter",
                           lambda out: hosts.write_png(hosts.speed_chart(points, comparison.names,
                                                                          comparison.title()), out))
    if drawn:
        parts += ["", drawn]
    return "\n".join(parts)
