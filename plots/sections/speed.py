"""Google Benchmark timings of the portable and -march=native builds beside FastFilter's."""

from __future__ import annotations

import pandas as pd

import load
import reference
import stats
from report_format import spread, table
from result_set import ResultSet

SECTION = "speed"
PORTABLE, NATIVE = "micro", "micro_native"
LEVEL_TOL = 0.25  # FastFilter's median is the level to match: ours may be up to 25% slower


def summarize(results: ResultSet, experiment_id: str, suite: str) -> pd.DataFrame | None:
    frame = results.frame(experiment_id)
    if frame is None or frame.empty or "suite" not in frame:
        return None
    runs = frame[(frame["aggregate"] == "iteration") & (frame["suite"] == suite)].dropna(subset=["ns_per_key"])
    runs = load.at_one_n(runs)  # FastFilter's table is at n = 10^6
    if runs.empty:
        return None
    return stats.summary(runs, ["filter", "operation"], "ns_per_key").set_index(["filter", "operation"])


def cell(summary: pd.DataFrame | None, key) -> str:
    if summary is None or key not in summary.index:
        return "–"
    r = summary.loc[key]
    return spread(r["median"], r["min"], r["max"])


def against_fastfilter(results: ResultSet, key, portable, native) -> list[str]:
    ref = reference.FASTFILTER_SPEED.get(key)
    if ref is None:
        return ["–", "–", "–"]
    if native is None or key not in native.index:
        return [f"{ref.variant}: {ref.median_ns:g} / {ref.best_ns:g}", "–",
                "not like for like (no -march=native build)"]
    ours = native.loc[key, "median"]
    check = results.check(SECTION, f"{key[0]} {key[1]} at FastFilter's {ref.variant} level ({ref.median_ns:g} ns)",
                          f"{ours:.1f} ns (-march=native median), {ours / ref.median_ns:.2f}×",
                          stats.verdict(ours, ref.median_ns, rel_tol=LEVEL_TOL, claim="at_most"),
                          f"+{LEVEL_TOL:.0%}")
    return [f"{ref.variant}: {ref.median_ns:g} / {ref.best_ns:g}", f"{ours / ref.median_ns:.2f}", check.cell]


def static_builds(portable: pd.DataFrame | None, native: pd.DataFrame | None) -> list[str]:
    """Cold and warm builds of the static filters: FastFilter times one cold pass."""
    if portable is None and native is None:
        return []
    keys = list(dict.fromkeys([*(portable.index if portable is not None else []),
                               *(native.index if native is not None else [])]))
    names = list(dict.fromkeys(name for name, _ in keys))
    rows = []
    for name in names:
        ref = reference.FASTFILTER_SPEED.get((name, "build"))
        rows.append([name] + [cell(summary, (name, op)) for summary in (portable, native)
                              for op in ("build_cold", "build_warm")]
                    + [f"{ref.median_ns:g} / {ref.best_ns:g}" if ref else "–"])
    return [
        "",
        "Static filters built on fresh memory (cold: page faults included) and on memory a previous"
        " build touched (warm). FastFilter's figure is one pass per filter without a warm-up, so it"
        " sits between the two depending on its allocator's state (REFERENCE_NUMBERS.md §2).",
        "",
        table(["filter", "cold, portable", "warm, portable", "cold, -march=native", "warm, -march=native",
               "FastFilter build median / best"], rows),
    ]


def render(results: ResultSet) -> str | None:
    portable, native = summarize(results, PORTABLE, "filters"), summarize(results, NATIVE, "filters")
    if portable is None and native is None:
        return None
    keys = list(dict.fromkeys([*(portable.index if portable is not None else []),
                               *(native.index if native is not None else [])]))
    rows = [[name, operation, cell(portable, (name, operation)), cell(native, (name, operation)),
             *against_fastfilter(results, (name, operation), portable, native)]
            for name, operation in sorted(keys)]
    made_by = [f"- {results.title(e)}: {results.made_by(e)}" for e in (PORTABLE, NATIVE) if results.file(e)]
    verdicts = [r[-1] for r in rows if r[-1] not in ("–",) and not r[-1].startswith("not like")]
    tally = {v: sum(1 for x in verdicts if x.strip("*") == v) for v in
             (stats.REPRODUCED, stats.PARTLY, stats.CONTRADICTED)}
    parts = [
        "## Speed (Google Benchmark)",
        "",
        *made_by,
        "",
        "ns per key, median [min–max] over the repetitions, memory pre-faulted. FastFilter's figures"
        f" were measured with -march=native, so they are judged against our -march=native build: the"
        f" verdict says whether our median is within +{LEVEL_TOL:.0%} of FastFilter's (their level to"
        " match or beat). These VMs are shared and timings move by up to 2× between runs: read the"
        f" ratios as a level. Of {len(verdicts)} judged: "
        + ", ".join(f"{n} {v}" for v, n in tally.items()) + ".",
        "",
        table(["filter", "operation", "ns/key, portable", "ns/key, -march=native",
               "FastFilter (-march=native): median / best", "ours/FastFilter (medians)",
               f"at FastFilter's level (+{LEVEL_TOL:.0%})"], rows),
        *static_builds(summarize(results, PORTABLE, "static"), summarize(results, NATIVE, "static")),
    ]
    drawn = results.figures(PORTABLE) or results.figures(NATIVE)
    if drawn:
        parts += ["", drawn]
    return "\n".join(parts)
