"""Google Benchmark timings of the portable and -march=native builds beside FastFilter's: the first
micro-benchmark experiment at one n of each `build`, wherever the suite puts it (the native build's
may be the hosts section's)."""

from __future__ import annotations

import pandas as pd

import load
import reference
import stats
from report_format import spread, table
from result_set import ResultSet
from sections import common
from sections.static import SPEEDUP_TOL  # the same claim, judged alike

SECTION = "speed"
LEVEL_TOL = 0.25  # FastFilter's median is the level to match: ours may be up to 25% slower
NOINLINE = "_noinline"  # the micro-benchmarks' out-of-line lookups (harness/micro_bench/micro_bench.cc)


def of_build(results: ResultSet, build: str) -> str | None:
    """The id of the first micro-benchmark experiment at one n of this build, if any."""
    return next((e.id for e in common.one_n_micro(results) if e.build == build), None)


def summarize(results: ResultSet, experiment_id: str | None, suite: str) -> pd.DataFrame | None:
    frame = results.frame(experiment_id) if experiment_id else None
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


def against_fastfilter(results: ResultSet, key, native, native_static, native_id: str | None = None) -> list[str]:
    """FastFilter's figure for (filter, operation), ours over theirs, and the verdict, judged only
    like for like: the same configuration; builds are shown warm and cold beside FastFilter's
    single pass, unjudged."""
    name, operation = key
    # FastFilter calls Contain out of line: our _noinline lookups are its like-for-like pair, and
    # the inlined ones, where both were run, are shown beside it unjudged.
    ref = reference.FASTFILTER_SPEED.get((name, operation.removesuffix(NOINLINE)))
    if ref is None:
        return ["–", "–", "–"]
    label = f"{ref.variant}: {ref.median_ns:g} / {ref.best_ns:g}"
    if ref.unlike:
        return [label, "–", f"not like for like ({ref.unlike})"]
    ours_key, summary, which = key, native, ""
    if (operation.startswith("query") and not operation.endswith(NOINLINE) and native is not None
            and (name, operation + NOINLINE) in native.index and key in native.index):
        return [label, f"{native.loc[key, 'median'] / ref.median_ns:.2f}",
                f"not judged: inlined (the {operation}{NOINLINE} row is like for like)"]
    if operation == "build":
        # FastFilter times one pass without a warm-up, but its allocator keeps pages the filters
        # run before it touched, so its figure lies between a cold and a warm build, and where
        # depends on its run order (a binary fuse build 100 ns/key alone, 44 after another filter:
        # plots/reference.py, FASTFILTER_FUSE_BUILD_ALONE and FASTFILTER_FUSE_BUILD_AFTER). Both
        # of ours are shown beside it, neither judged.
        ratios = [f"{summary.loc[k, 'median'] / ref.median_ns:.2f} {what}"
                  for k, summary, what in ((key, native, "warm"), ((name, "build_cold"), native_static, "cold"))
                  if summary is not None and k in summary.index]
        return [label, ", ".join(ratios) or "–",
                "not judged (FastFilter's pass is neither cold nor warm: see below)"]
    if summary is None or ours_key not in summary.index:
        return [label, "–", "not like for like (no -march=native build)"]
    ours = summary.loc[ours_key, "median"]
    check = results.check(SECTION, f"{name} {operation}{which} at FastFilter's {ref.variant} level ({ref.median_ns:g} ns)",
                          f"{ours:.1f} ns (-march=native median), {ours / ref.median_ns:.2f}×",
                          stats.verdict(ours, ref.median_ns, rel_tol=LEVEL_TOL, claim="at_most"),
                          f"+{LEVEL_TOL:.0%}", speed_of=native_id)
    return [label, f"{ours / ref.median_ns:.2f}{which}", check.cell]


def fuse_speedup_checks(results: ResultSet, portable: pd.DataFrame | None, portable_id: str | None = None) -> list[str]:
    """The binary fuse paper's build speed over XOR's, cold and warm (portable build). A cold build
    adds its page faults, about the same per key for both (9.84 and 9.04 bits/key), which shrinks
    the ratio: the paper's claim is about the construction, so the warm ratio is the like one."""
    claim = reference.FUSE_BUILD_SPEEDUP
    lines = []
    for op, which in (("build_warm", "warm"), ("build_cold", "cold")):
        keys = [("xor8", op), ("binary_fuse8", op)]
        if portable is None or not all(k in portable.index for k in keys):
            continue
        xor, fuse = (portable.loc[k, "median"] for k in keys)
        lines.append(results.check(
            SECTION, f"{claim.source}: {claim.label}, {which} builds",
            f"xor8 {xor:.1f} ns/key against binary_fuse8 {fuse:.1f} (portable medians): {xor / fuse:.2f}×",
            stats.verdict(xor / fuse, claim.value, rel_tol=SPEEDUP_TOL, claim="at_least", baseline=1.0),
            f"−{SPEEDUP_TOL:.0%}", speed_of=portable_id).prose)
    return lines


def fuse_arity_lookups(results: ResultSet, portable: pd.DataFrame | None, portable_id: str | None = None) -> list[str]:
    """The binary fuse paper's 4-wise (8%-of-bound) variant "at slightly slower queries", against
    the 3-wise filter of the same width in the same run (portable build): slower when its median
    is, clearly so when its fastest repetition is slower than the 3-wise filter's slowest. The
    source gives no figure for "slightly"; the ratio is shown."""
    if portable is None:
        return []
    claim = reference.FUSE_4WISE_SLOWER
    lines = []
    for bits in (8, 16):
        for op in ("query_present", "query_absent"):
            three, four = (f"binary_fuse{bits}", op), (f"binary_fuse{bits}_4wise", op)
            if three not in portable.index or four not in portable.index:
                continue
            a, b = portable.loc[three], portable.loc[four]
            lines.append(results.check(
                SECTION, f"{claim.source}: {claim.label}, {bits}-bit {op}",
                f"binary_fuse{bits}_4wise {cell(portable, four)} against binary_fuse{bits} {cell(portable, three)}"
                f" ns/key (portable, same run): {b['median'] / a['median']:.2f}×",
                stats.verdict_slower(b["median"], b["min"], a["median"], a["max"]),
                "the 4-wise min above the 3-wise max; the medians alone: partly", speed_of=portable_id).prose)
    return lines


def static_builds(results: ResultSet, portable: pd.DataFrame | None, native: pd.DataFrame | None,
                  portable_id: str | None = None) -> list[str]:
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
        " build touched (warm). FastFilter's figure is one pass per filter without a warm-up: cold"
        " in that sense, though its allocator may hold pages an earlier filter touched (a binary fuse"
        " build measured 100 ns/key alone and 44 after another filter in FastFilter's benchmark): it"
        " lies between the two, where depending on the filters its benchmark ran before, so the table"
        " above gives ours warm and cold over it and judges neither. The side-by-side run of issue 13"
        " times both benchmarks in one window.",
        "",
        table(["filter", "cold, portable", "warm, portable", "cold, -march=native", "warm, -march=native",
               "FastFilter build median / best"], rows),
        "",
        *[f"- {line}" for line in fuse_speedup_checks(results, portable, portable_id)],
    ]


# Google Benchmark's own cost per iteration (harness/micro_bench/overhead_bench.cc), and what
# counts as negligible beside one iteration of a benchmark: a hundredth, well inside the 2x these
# VMs move timings by between runs.
OVERHEAD_SUITE = "overhead"
NEGLIGIBLE_SHARE = 0.01
UNIT_NS = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}
# A build, insert or erase benchmark pauses and resumes the timers once or twice per iteration
# (twice: a cold static build, a quotient insert band; once: an erase, around the untimed fill
# of its tables); the others run a plain loop.
PAUSED_OPERATIONS = ("insert", "build", "erase")


def iteration_ns(frame: pd.DataFrame) -> pd.Series:
    """Google Benchmark's time of one iteration (real_time in its time_unit), in ns."""
    return frame["real_time"].astype(float) * frame["time_unit"].map(UNIT_NS).astype(float)


def library_overhead(results: ResultSet, touched_id: str | None, overhead_id: str | None = None) -> list[str]:
    """What Google Benchmark adds to each benchmark of `touched_id`: its cost per iteration, measured
    in `overhead_id` (default the same file), as Debian builds the library (checks on, "DEBUG").
    The whole cost bounds what the debug build adds; each benchmark's share is the slowest
    measured overhead over its fastest iteration, so "at most" holds for every repetition."""
    overhead_id = overhead_id or touched_id
    measured = results.frame(overhead_id) if overhead_id else None
    touched = results.frame(touched_id) if touched_id else None
    if measured is None or touched is None or "suite" not in measured or "real_time" not in measured:
        return []
    own = measured[(measured["suite"] == OVERHEAD_SUITE) & (measured["aggregate"] == "iteration")]
    costs = {op: iteration_ns(own[own["operation"] == op]) for op in ("empty_iteration", "pause_resume")}
    if any(c.dropna().empty for c in costs.values()):
        return []
    runs = touched[(touched["suite"] != OVERHEAD_SUITE) & (touched["aggregate"] == "iteration")].copy()
    runs = runs.dropna(subset=["real_time"])
    if runs.empty:
        return []
    runs["iteration_ns"] = iteration_ns(runs)
    # One row per benchmark (a flat frame: the quotient family's rows have no n, and NaN is no
    # usable index key).
    fastest = (runs.groupby(["suite", "filter", "operation", "n"], dropna=False)["iteration_ns"]
               .min().reset_index())
    paused = fastest["operation"].str.contains("|".join(PAUSED_OPERATIONS)).to_numpy()
    cost = [2 * costs["pause_resume"].max() if p else costs["empty_iteration"].max() for p in paused]
    fastest["share"] = cost / fastest["iteration_ns"]

    def name(row) -> str:
        text = f"{'' if row['suite'] == 'filters' else row['suite'] + '/'}{row['filter']}/{row['operation']}"
        return text + (f" at n = {int(row['n']):,}" if not pd.isna(row["n"]) else "")

    def worst(mask) -> str:
        part = fastest[mask]
        if part.empty:
            return "none"
        row = part.loc[part["share"].idxmax()]
        return f"at most {row['share']:.3%} ({name(row)}, {row['iteration_ns']:,.0f} ns an iteration)"

    share = fastest["share"]
    over = fastest[share > NEGLIGIBLE_SHARE].sort_values("share", ascending=False)
    verdict = (f"negligible: under {NEGLIGIBLE_SHARE:.0%} of every iteration" if over.empty else
               f"**not negligible** for {len(over)} benchmark{'s' if len(over) != 1 else ''} (over"
               f" {NEGLIGIBLE_SHARE:.0%}): " + ", ".join(f"{name(r)} {r['share']:.1%}" for _, r in over.head(5).iterrows())
               + (", ..." if len(over) > 5 else ""))
    empty, pause = costs["empty_iteration"], costs["pause_resume"]
    where = "" if overhead_id == touched_id else f" (measured in `{overhead_id}`)"
    return [
        f"Google Benchmark's own cost per iteration{where}, Debian's library built with its checks on"
        f" (it reports itself as DEBUG): an empty iteration {spread(empty.median(), empty.min(), empty.max(), 2)}"
        f" ns, a pause and resume of its timers {spread(pause.median(), pause.min(), pause.max())} ns"
        " (median [min–max] over the repetitions). That whole cost bounds what the debug build adds."
        f" Beside one iteration of each of {len(share)} benchmarks in `{touched_id}` (its fastest"
        " repetition; a query or merge pass pays one empty iteration, a build or insert two pauses"
        f" and resumes at most): plain loops {worst(~paused)}; builds and inserts {worst(paused)}"
        f" → {verdict}.",
    ]


def render(results: ResultSet) -> str | None:
    portable_id, native_id = of_build(results, "portable"), of_build(results, "native")
    portable, native = summarize(results, portable_id, "filters"), summarize(results, native_id, "filters")
    if portable is None and native is None:
        return None
    keys = list(dict.fromkeys([*(portable.index if portable is not None else []),
                               *(native.index if native is not None else [])]))
    native_static = summarize(results, native_id, "static")
    rows = [[name, operation, cell(portable, (name, operation)), cell(native, (name, operation)),
             *against_fastfilter(results, (name, operation), native, native_static, native_id)]
            for name, operation in sorted(keys)]
    made_by = [f"- {results.title(e)}: {results.made_by(e)}" for e in (portable_id, native_id) if e]
    verdicts = [r[-1] for r in rows if r[-1] not in ("–",) and not r[-1].startswith("not ")]
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
        " match or beat). Builds are not judged: FastFilter's one pass without a warm-up reuses"
        " pages its allocator kept from the filters before it, so it is neither our warm build"
        " (pre-faulted) nor our cold one (static/build_cold, fresh pages); the column gives ours"
        " warm and cold over it (static builds, -march=native, table below). The quotient family"
        " runs at the CQF's configuration (r = 8, load 0.477 at 10^6 keys). Rows whose"
        " FastFilter variant is another configuration (Bloom's k and bits/key, the blocked Bloom's"
        " block size) stand beside it unjudged, marked not like for like with the difference;"
        " FastFilter's benchmark has no like variant for them. These VMs are shared and timings"
        " move by up to 2× between runs: read the ratios as a level. FastFilter's benchmark calls"
        " every lookup out of line (noinline): the query_*_noinline rows, ours through the same kind"
        " of call, are the like-for-like pair and are judged; where they ran, the inlined rows beside"
        " them (the call saved, a visible share of a few-ns lookup) are shown unjudged. Of"
        f" {len(verdicts)} judged: "
        + ", ".join(f"{n} {v}" for v, n in tally.items()) + ".",
        "",
        table(["filter", "operation", "ns/key, portable", "ns/key, -march=native",
               "FastFilter (-march=native): median / best", "ours/FastFilter (medians)",
               f"at FastFilter's level (+{LEVEL_TOL:.0%})"], rows),
        *static_builds(results, summarize(results, portable_id, "static"), native_static, portable_id),
        *[f"- {line}" for line in fuse_arity_lookups(results, portable, portable_id)],
    ]
    for experiment_id in (portable_id, native_id):
        overhead = library_overhead(results, experiment_id)
        if overhead:
            parts += ["", *overhead]
    drawn = next((d for e in (portable_id, native_id) if e and (d := results.figures(e))), "")
    if drawn:
        parts += ["", drawn]
    return "\n".join(parts)
