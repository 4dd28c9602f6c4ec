"""This machine, measured by the suite's machine experiment (`amqbench machine` as part of the
run): the dependent-load latency curve with the cache levels read off it beside the caches the
system reports, the rate of independent random cache-line reads (the ceiling speed_vs_n sets
each filter's lookups against), sequential read bandwidth, and the time one cache line takes to
pass between two CPUs (what two threads writing one shared filter pay per shared word)."""

from __future__ import annotations

import math
import types

import pandas as pd

import hosts
import stats
from report_format import table
from result_set import ResultSet
from sections import common

SECTION = "machine"


def machine_experiments(results: ResultSet, section: str | None = None) -> list[str]:
    """Ids of the suite's machine experiments that left a file (of one section, if given)."""
    return [e.id for e in results.experiments(section, kind="machine")]


def records(results: ResultSet, experiment_id: str, test: str) -> pd.DataFrame:
    frame = results.frame(experiment_id, record="machine")
    if frame is None or "test" not in frame:
        return pd.DataFrame()
    return frame[frame["test"] == test].reset_index(drop=True)


# The random lines on the pages a filter's table gets (the kernel's default, no madvise), the
# ceiling a filter's lookups are set against; random_lines (huge pages where the kernel offers
# them) is the memory system's best and the ceiling of files measured before the second buffer.
FILTER_PAGES_TEST = "random_lines_default_pages"


def ceilings(results: ResultSet, test: str | None = None) -> pd.DataFrame:
    """Random cache-line reads per second by working set (first machine experiment with them):
    columns test, working_set_bytes, lines_per_second, lines_per_second_min, lines_per_second_max,
    huge_pages. By default the filters' ceiling: measured on the filters' pages
    (random_lines_default_pages) where the file has them, else random_lines."""
    for wanted in ([test] if test else [FILTER_PAGES_TEST, "random_lines"]):
        for experiment_id in machine_experiments(results):
            lines = records(results, experiment_id, wanted)
            if not lines.empty:
                return lines.sort_values("working_set_bytes").reset_index(drop=True)
    return pd.DataFrame()


def ceiling_pages_text(ceiling: pd.DataFrame) -> str:
    """Which pages a ceiling was measured on, in words for the prose beside it."""
    if ceiling.empty or "test" not in ceiling:
        return ""
    huge = "huge_pages" in ceiling and bool(ceiling["huge_pages"].fillna(False).all())
    pages = "2 MiB huge pages" if huge else "4 KiB pages"
    if ceiling["test"].iloc[0] == FILTER_PAGES_TEST:
        return f"on the pages every filter's table gets (the kernel's default, no madvise: {pages} here)"
    return f"on {pages} (this file has no measurement on the filters' own pages)"


def ceiling_bracket(ceiling: pd.DataFrame, working_set: float) -> tuple | None:
    """The measured (size, rate) pairs on either side of a working set, as (low size, low rate,
    high size, high rate); None outside the measured range."""
    sizes = ceiling["working_set_bytes"].astype(float).to_list()
    rates = ceiling["lines_per_second"].astype(float).to_list()
    for i in range(len(sizes) - 1):
        if sizes[i] <= working_set <= sizes[i + 1]:
            return (sizes[i], rates[i], sizes[i + 1], rates[i + 1])
    return None


def ceiling_at(ceiling: pd.DataFrame, working_set: float) -> float | None:
    """The random-line rate a structure of `working_set` bytes can reach: interpolated between
    the two measured working sets around it (linear in log rate against log size), the nearest
    end's rate outside the measured range."""
    if ceiling.empty:
        return None
    bracket = ceiling_bracket(ceiling, working_set)
    if bracket is None:
        end = 0 if working_set < float(ceiling["working_set_bytes"].iloc[0]) else -1
        return float(ceiling["lines_per_second"].iloc[end])
    low_size, low_rate, high_size, high_rate = bracket
    if working_set in (low_size, high_size):  # a measured size: its own rate, not a rounding of it
        return low_rate if working_set == low_size else high_rate
    t = math.log(working_set / low_size) / math.log(high_size / low_size)
    return math.exp(math.log(low_rate) + t * math.log(high_rate / low_rate))


def cache_name(cache: dict) -> str:
    kind = {"Data": "d", "Instruction": "i"}.get(cache.get("type"), "")
    return f"L{cache.get('level')}{kind} {hosts.size_text(cache.get('bytes'))}"


def levels_table(levels: list[dict]) -> str:
    rows = []
    for level in levels:
        capacity = level.get("capacity_bytes")
        reported = level.get("reported")
        rows.append([str(level.get("level")), hosts.size_text(capacity) if capacity else "–",
                     f"{level.get('ns_per_load', float('nan')):.2f}",
                     cache_name(reported) if reported
                     else "none within 2×" if capacity
                     else "memory (past every cache reported)" if level.get("memory")
                     else "the largest level reached (not past every cache reported)"])
    return table(["plateau", "capacity read off the curve", "ns per load", "cache the system reports"], rows)


def visible_caches(summary: pd.Series, latency: pd.DataFrame) -> list[dict]:
    """The data caches the system reports that the curve can show a step for: at most half the
    largest working set measured."""
    largest = float(latency["working_set_bytes"].max()) if not latency.empty else 0
    return [c for c in summary.get("reported_caches") or []
            if c.get("type") != "Instruction" and c.get("bytes", 0) * 2 <= largest]


def matched_caches(summary: pd.Series) -> set:
    return {(r.get("level"), r.get("bytes")) for r in
            (level.get("reported") for level in summary.get("levels") or []) if r}


def unmatched_caches(summary: pd.Series, latency: pd.DataFrame) -> list[dict]:
    matched = matched_caches(summary)
    return [c for c in visible_caches(summary, latency) if (c.get("level"), c.get("bytes")) not in matched]


def levels_check(results: ResultSet, summary: pd.Series, latency: pd.DataFrame):
    """The issue's loose check: one step of the curve per cache level the system reports, for the
    caches the curve can show."""
    visible = visible_caches(summary, latency)
    missing = unmatched_caches(summary, latency)
    found = [c for c in visible if c not in missing]
    if not visible:
        verdict = stats.NOT_MEASURED
    elif not missing:
        verdict = stats.REPRODUCED
    elif found:
        verdict = stats.PARTLY
    else:
        verdict = stats.CONTRADICTED
    evidence = (f"{len(found)} of {len(visible)} reported caches within the curve have a plateau within 2× of"
                f" their size ({', '.join(cache_name(c) for c in found) or 'none'})")
    if missing:
        evidence += f"; none for {', '.join(cache_name(c) for c in missing)}"
    return results.check(SECTION, "the latency curve steps once per cache level the system reports", evidence,
                         verdict, "a plateau within a factor 2 of the reported size")


def missing_level_note(missing_caches: list[dict], latency: pd.DataFrame) -> list[str]:
    """For a reported cache the curve shows no plateau for: the latency at half and at its size."""
    notes = []
    curve = latency.set_index("working_set_bytes")["ns_per_load"].sort_index()
    for cache in missing_caches:
        size = cache.get("bytes", 0)
        below = curve[curve.index <= size / 2]
        at = curve[curve.index <= size]
        if below.empty or at.empty:
            continue
        notes.append(f"- {cache_name(cache)} ({cache.get('source', '?')}): no plateau. A working set of"
                     f" {hosts.size_text(int(below.index[-1]))} takes {below.iloc[-1]:.1f} ns per load and"
                     f" {hosts.size_text(int(at.index[-1]))} {at.iloc[-1]:.1f} ns: latency keeps rising inside the"
                     " size the system reports, so on this virtual machine that figure is not a cache a"
                     " lookup can count on.")
    return notes


def rate_table(frame: pd.DataFrame, column: str, scale: float, unit: str, extra=None) -> str:
    rows = []
    # Random lines measured both ways (loads alone, loads prefetched ahead): each method's
    # median beside the faster one's spread, which is the ceiling.
    methods = "lines_method" in frame and frame["lines_method"].notna().any()
    for _, r in frame.sort_values("working_set_bytes").iterrows():
        row = [hosts.size_text(int(r["working_set_bytes"])),
               f"{r[column] * scale:.3g} [{r[column + '_min'] * scale:.3g}–{r[column + '_max'] * scale:.3g}]"]
        if methods:
            row += [f"{r['loads_lines_per_second']:.3g}", f"{r['prefetch_lines_per_second']:.3g}",
                    str(r["lines_method"])]
        if extra:
            row.append(extra(r))
        rows.append(row)
    return table(["working set", f"{unit}, median [min–max]"]
                 + (["loads alone", "prefetched ahead", "faster"] if methods else [])
                 + (["ns per line"] if extra else []), rows)


def handoff_between(r) -> str:
    """"CPUs 0 and 1", or "two CPUs" where the record does not name them."""
    listed = r.get("handoff_cpus")
    cpus = [int(c) for c in listed] if isinstance(listed, (list, tuple)) else []
    return f"CPUs {cpus[0]} and {cpus[1]}" if len(cpus) == 2 else "two CPUs"


def measured_handoff(results: ResultSet):
    """The first machine experiment's line_handoff record with a figure (pinned), or None."""
    for experiment_id in machine_experiments(results):
        handoff = records(results, experiment_id, "line_handoff")
        if not handoff.empty and not stats.is_missing(handoff.iloc[0].get("ns_per_handoff")):
            return handoff.iloc[0]
    return None


def handoff_text(handoff: pd.DataFrame) -> str | None:
    """The line_handoff record as one sentence; None where the file has none (one CPU, no
    threaded points, or a file from before the measurement)."""
    if handoff.empty:
        return None
    r = handoff.iloc[0]
    between = handoff_between(r)
    if stats.is_missing(r.get("ns_per_handoff")):
        return f"- A cache line handed between {between}: not measured (the threads could not be pinned)."
    text = (f"- A cache line handed between {between}: {r['ns_per_handoff']:.0f} ns"
            f" ({r['ns_per_handoff_min']:.0f}–{r['ns_per_handoff_max']:.0f}) one way, median (min–max) over"
            " the wall time of two pinned threads writing one counter in turn. Every write to a line the other"
            " CPU wrote last pays about this, so two threads inserting into one shared filter that fits in"
            " cache can be slower together than one alone.")
    share = r.get("cpu_share")
    if not stats.is_missing(share) and share < 0.9:
        text += (f" The two threads ran {share:.0%} of the wall time: a partner lost time slices, and the"
                 " figure is high by about that much.")
    return text


def render(results: ResultSet) -> str | None:
    experiments = machine_experiments(results, SECTION)
    if not experiments:
        return None
    parts = []
    for experiment_id in experiments:
        result = results.file(experiment_id)
        latency = records(results, experiment_id, "latency")
        summary_rows = records(results, experiment_id, "cache_levels")
        parts += common.heading(results, experiment_id)
        huge = bool(summary_rows.iloc[0].get("huge_pages")) if not summary_rows.empty else False
        repeats = (result.experiment.get("params") or {}).get("repeats")
        parts += [f"Medians [min–max] over {repeats or 'the'} timed repeats per point, on a pre-faulted buffer"
                  f" {'backed by 2 MiB huge pages' if huge else 'of 4 KiB pages (large sizes include page walks)'}."
                  " Latency is a pointer chase over a random cycle of the buffer's first bytes; random lines"
                  " are 16 independent streams of random cache-line reads, the most any lookup that touches"
                  " one random line can reach at that working set: the faster of plain loads (as many in"
                  " flight as the core's window holds) and the same loads each prefetched 64 lines ahead"
                  " (as many as the miss buffers hold, as a batched lookup does) where the file has both.", ""]
        if not summary_rows.empty:
            summary = summary_rows.iloc[0]
            check = levels_check(results, summary, latency)
            parts += ["Cache levels read off the latency curve (a step: latency ×1.5 over one doubling):", "",
                      levels_table(summary.get("levels") or []), "", f"- {check.prose}"]
            parts += missing_level_note(unmatched_caches(summary, latency), latency)
            parts.append("")
        lines = records(results, experiment_id, "random_lines")
        default_pages = records(results, experiment_id, FILTER_PAGES_TEST)
        if not lines.empty:
            title = ("Independent random cache-line reads on the buffer above (the memory system's best):"
                     if not default_pages.empty else "Independent random cache-line reads (the ceiling):")
            parts += [title, "", rate_table(lines, "lines_per_second", 1.0, "lines per second",
                                            lambda r: f"{1e9 / r['lines_per_second']:.2f}"), ""]
        if not default_pages.empty:
            parts += [f"The same reads on a second buffer {ceiling_pages_text(default_pages)}: the ceiling"
                      " the filters' lookups are set against (Speed against n), since a lookup pays the page"
                      " walks its own table's pages cost, at sizes where the micro-benchmarks did not read"
                      " the filter's own table the same way (random_lines):", "",
                      rate_table(default_pages, "lines_per_second", 1.0, "lines per second",
                                 lambda r: f"{1e9 / r['lines_per_second']:.2f}"), ""]
        sequential = records(results, experiment_id, "sequential")
        if not sequential.empty:
            parts += ["Sequential reads:", "", rate_table(sequential, "bytes_per_second", 1e-9, "GB/s"), ""]
        handoff = handoff_text(records(results, experiment_id, "line_handoff"))
        if handoff:
            parts += [handoff, ""]
        side = types.SimpleNamespace(name="this machine", results=[result])
        drawn = results.figure(f"{experiment_id}_curves", results.title(experiment_id),
                               lambda out: hosts.write_png(hosts.machine_chart([side], results.title(experiment_id)), out))
        if drawn:
            parts += [drawn, ""]
    return "\n".join(parts).rstrip("\n")
