"""Speed against n: the micro-benchmarks of one filter per family at n from 2^10 keys up, in ns
per key, with the caches of the machine that ran them (the file's context), and each lookup's
speed as a fraction of the machine's random-line ceiling (the suite's machine experiment) for
the cache lines a lookup touches (the locality experiment's traced counts)."""

from __future__ import annotations

import math
import re
from pathlib import Path

import pandas as pd

import charts
import hosts
import load
from report_format import table
from result_set import ResultSet
from sections import common
from sections import machine
from sections import speed

SECTION = "speed_vs_n"
OPERATIONS = {"insert": "insert", "build": "build", "query_present": "query, present",
              "query_absent": "query, absent", "query_present_batched": "query, present, batched",
              "query_absent_batched": "query, absent, batched"}


# The micro operation that reads random lines of the filter's own table (amqbench_micro's
# random_lines, from n = 2^20): ns_per_key is ns per line. Not a lookup, so not in the ns-per-key
# table; where a (filter, n) has it, it is that lookup's ceiling. random_lines_hashed reads the
# same way with each line named through the filters' hash: what one hash per line costs the rate.
OWN_TABLE = "random_lines"
OWN_TABLE_HASHED = "random_lines_hashed"


def n_label(n: float) -> str:
    """2^k for a power of two, else the number."""
    k = math.log2(n)
    return f"2^{int(k)}" if k.is_integer() else f"{int(n):,}"


def median_table(runs) -> str:
    """A row per filter and operation, a column per n: the median ns per key (the random-line
    reads of a filter's own table are its ceiling, not a lookup: in the ceiling table)."""
    runs = runs[~runs["operation"].isin([OWN_TABLE, OWN_TABLE_HASHED])]
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


# The lookups a ceiling fraction is given for: member lookups touch the locality experiment's
# member lines, non-member lookups its absent lines (a Bloom filter stops at the first zero bit).
LOOKUPS = {"query_absent": "absent", "query_absent_batched": "absent",
           "query_present": "member", "query_present_batched": "member"}


def traced_lines(results: ResultSet) -> pd.DataFrame:
    """Distinct cache lines per lookup by filter (cache_lines_member_mean, cache_lines_absent_mean),
    from the first filters experiment that traced them; empty when none did."""
    for experiment in results.experiments(kind="filters"):
        frame = results.frame(experiment.id)
        if "cache_lines_member_mean" in frame:
            traced = frame.dropna(subset=["cache_lines_member_mean"])
            if not traced.empty:
                return traced.drop_duplicates("filter").set_index("filter")
    return pd.DataFrame()


def lines_row(traced: pd.DataFrame, name: str):
    """The traced row for a filter: its own, else the family's FPR-sized filter (cuckoo12 takes
    cuckoo's: the width changes the bits in a bucket, not the buckets read)."""
    for candidate in (name, re.sub(r"\d+$", "", name)):
        if candidate in traced.index:
            return candidate, traced.loc[candidate]
    return None, None


def own_table_ceilings(runs: pd.DataFrame, operation: str = OWN_TABLE) -> dict:
    """{(filter, n): lines per second}, the median over repetitions of random_lines (or
    `operation`) on the filter's own table; empty when the file has none."""
    part = runs[runs["operation"] == operation]
    return {(name, n): 1e9 / ns for (name, n), ns in part.groupby(["filter", "n"])["ns_per_key"].median().items()}


def ceiling_rows(runs: pd.DataFrame, results: ResultSet) -> list[dict]:
    """Per filter, lookup operation and n: lookups per second times the lines a lookup touches,
    over the random-line rate of the filter's own table in the same process where the file has
    it (random_lines), else the machine experiment's rate at a working set of the filter's size."""
    ceiling = machine.ceilings(results)
    own = own_table_ceilings(runs)
    hashed = own_table_ceilings(runs, OWN_TABLE_HASHED)
    traced = traced_lines(results)
    if (ceiling.empty and not own) or traced.empty or "bits_per_key" not in runs:
        return []
    medians = (runs[runs["operation"].isin(LOOKUPS)]
               .assign(bits_per_key=lambda f: pd.to_numeric(f["bits_per_key"], errors="coerce"))
               .groupby(["filter", "operation", "n"]).agg(ns=("ns_per_key", "median"), bits=("bits_per_key", "median")))
    rows = []
    pages = machine.ceiling_pages_text(ceiling)
    for (name, operation, n), r in medians.iterrows():
        source, row = lines_row(traced, name)
        if row is None or not r["bits"] > 0:
            continue
        lines = float(row[f"cache_lines_{LOOKUPS[operation]}_mean"])
        filter_bytes = r["bits"] * n / 8
        if (name, n) in own:
            rate, bracket, measured = own[(name, n)], None, "own table"
        elif not ceiling.empty:
            rate, bracket, measured = (machine.ceiling_at(ceiling, filter_bytes),
                                       machine.ceiling_bracket(ceiling, filter_bytes), "machine")
        else:
            continue
        achieved = 1e9 / r["ns"] * lines
        rows.append({"filter": name, "operation": operation, "n": n, "ns": r["ns"], "lines": lines,
                     "traced_as": source, "bytes": filter_bytes, "ceiling": rate,
                     "fraction": achieved / rate, "bracket": bracket, "pages": pages, "measured": measured,
                     "hashed": hashed.get((name, n), math.nan) if measured == "own table" else math.nan})
    return rows


def over_ceiling_note(frame: pd.DataFrame) -> list[str]:
    """A fraction above 100% says the lookup's lines came faster than the ceiling's: say how many,
    the largest, and why - against the machine experiment's buffer, another window of the run and
    how steeply the measured rate falls around the filter's size (the interpolation's uncertainty);
    against the filter's own table, that a lookup's lines are not independent random ones."""
    over = frame[frame["fraction"] > 1]
    if over.empty:
        return []
    worst = over.loc[over["fraction"].idxmax()]
    text = (f"{len(over)} of {len(frame)} fractions exceed 100% (the largest: {worst['filter']}"
            f" {OPERATIONS[worst['operation']]} at n = {n_label(worst['n'])}, {100 * worst['fraction']:.0f}%)")
    if worst.get("measured") == "own table":
        return ["", text + ": there the lookup's lines came faster than independent random reads of the same"
                " table in the same process, so they are not independent random lines: a lookup's lines may"
                " share a page (one page walk for two lines) or lie side by side. Read such a cell as \"at the"
                " memory system's limit\", not as a measurement above it."]
    text += (": there the filter read lines faster than the machine experiment's random reads did at that"
             " working set, which it measured in another window of the run")
    if isinstance(worst.get("bracket"), tuple):
        low_size, low_rate, high_size, high_rate = worst["bracket"]
        text += (f"; between {low_size / 2**20:.3g} MiB and {high_size / 2**20:.3g} MiB the measured rate falls"
                 f" from {low_rate:.3g} to {high_rate:.3g} lines/s (×{low_rate / high_rate:.2g}), as more of the set"
                 " leaves the last-level cache, so a ceiling interpolated there is uncertain by a good part of"
                 " that factor")
    return ["", text + ". Read such a cell as \"at the memory system's limit\", not as a measurement above it."]


# CI's instruction counts (the instructions kind under callgrind, results/baseline/): the same
# kernels as the micro-benchmarks, counted exactly, at 20,000 keys.
BASELINE_INSTRUCTIONS = Path("baseline") / "instructions.jsonl"
BOUND_AT = 0.8  # issue 26: batched lookups at n = 2^26 at 80% of the ceiling or more


def instructions_per_lookup(results: ResultSet) -> dict:
    """{(filter, operation): instructions per lookup} from the baseline's callgrind counts beside
    the results, with the n they were counted at; empty when the file is not there."""
    path = results.directory / BASELINE_INSTRUCTIONS
    if not path.exists():
        return {}
    counts = {}
    for record in load.read(path).records:
        for operation, value in (record.get("instructions_per_op") or {}).items():
            if operation in LOOKUPS and record.get("filter"):
                counts[(record["filter"], operation)] = (float(value), record.get("keys"))
    return counts


def hashed_floor(r) -> float:
    """The least time a lookup of r's lines can take that hashes its key once: one line read at
    the hashed rate (random_lines_hashed) and the rest at the ceiling's; NaN without the first."""
    if not r.get("hashed", math.nan) > 0:
        return math.nan
    return 1e9 / r["hashed"] + (r["lines"] - 1) * 1e9 / r["ceiling"]


def in_cache_n(part: pd.DataFrame, in_cache_bytes: float | None) -> float:
    """The n at which a lookup's rows in `part` give its in-cache time: the largest n whose table
    fits in in_cache_bytes (half the L2 cache), else the smallest n. Not simply the smallest: at
    2^10 keys, looked up again and again, the branch predictor learns the whole sequence, and a
    branchy lookup runs faster than it can on keys it has not seen (rsqf's batched member lookups
    took 19.2 ns a key at 2^10 and 32.8 at 2^16, both in L2, in the run of 527f1aa)."""
    if in_cache_bytes:
        fits = part[part["bytes"] <= in_cache_bytes]
        if not fits.empty:
            return fits["n"].max()
    return part["n"].min()


def bounds_table(frame: pd.DataFrame, instructions: dict, in_cache_bytes: float | None = None) -> list[str]:
    """What holds each lookup below the ceiling at the largest n. Its lines at the ceiling's rate
    take lines / ceiling; the same lookup in cache (in_cache_n) takes what its own instructions
    cost. When that alone exceeds the time the lines allow, no number of loads in flight brings
    it to the ceiling: its instructions bound it. Where the file has the hashed
    floor (one hash, then the lines) and that floor alone is over the time the lines allow, the
    hash beside the lines bounds it. Otherwise a lookup taken one at a time lacks loads in flight;
    a batched one already keeps its next keys' lines in flight (core/batched.h), so what holds it
    is its work beside its loads: on this machine the rate lines arrive at falls with the
    instructions beside them, as the hashed floor shows for the hash alone."""
    largest = frame["n"].max()
    ns = frame.set_index(["filter", "operation", "n"])["ns"]
    rows, references = [], set()
    for _, r in frame[frame["n"] == largest].sort_values(["filter", "operation"]).iterrows():
        reference = in_cache_n(frame[(frame["filter"] == r["filter"]) & (frame["operation"] == r["operation"])],
                               in_cache_bytes)
        if reference == largest:
            continue
        references.add(reference)
        in_cache = float(ns[(r["filter"], r["operation"], reference)])
        allowed = r["lines"] * 1e9 / r["ceiling"]
        best = min(1.0, allowed / in_cache)
        floor = hashed_floor(r)
        if r["fraction"] >= BOUND_AT:
            bound = "the memory system"
        elif best < BOUND_AT:
            bound = "its instructions"
        elif allowed / floor < BOUND_AT:
            bound = "the hash beside its lines"
        elif r["operation"].endswith("_batched"):
            bound = "its work beside its loads"
        else:
            bound = "loads in flight"
        counted = instructions.get((r["filter"], r["operation"]))
        rate = (f"{counted[0]:.0f}: {counted[0] / in_cache:.3g} → {counted[0] / allowed:.3g}" if counted else "–")
        floor_cell = f"{floor:.3g}, {100 * allowed / floor:.0f}%" if floor > 0 else "–"
        rows.append([r["filter"], OPERATIONS[r["operation"]], f"{r['lines']:.2f}", f"{allowed:.3g}",
                     f"{in_cache:.3g} ({n_label(reference)})", f"{100 * best:.0f}%", floor_cell,
                     f"{r['ns']:.3g} ns, {100 * r['fraction']:.0f}%", rate, bound])
    if not rows:
        return []
    keys = sorted({counted[1] for counted in instructions.values() if counted[1]})
    counted_at = f" at {', '.join(f'{k:,}' for k in keys)} keys" if keys else ""
    where = (f"at the largest n whose table fits in half the L2 cache ({hosts.size_text(in_cache_bytes)} of the"
             " file's context), every line in cache and more keys than the branch predictor can learn (looked"
             " up again and again, a few thousand keys' branches are learnt, and a branchy lookup runs faster"
             " there than on keys it has not seen)" if in_cache_bytes else
             f"at n = {n_label(min(references))}, every line in cache (the file's context names no L2 cache)")
    return [
        f"What bounds each lookup at n = {n_label(largest)}: its lines at the ceiling's rate take"
        " \"allowed\" ns; the same lookup " + where + ", takes what its own"
        " instructions cost. In-cache time over the allowed time caps the fraction of the ceiling it can"
        f" reach: under {100 * BOUND_AT:.0f}% its instructions bound it, and no prefetching can lift it."
        " The hashed floor is the least a lookup that hashes its key can take: one line read as the"
        " ceiling's are but named through the filters' hash (random_lines_hashed, on the same table just"
        " after), the rest at the ceiling's rate; its percentage is the fraction of the ceiling that floor"
        f" leaves. Under {100 * BOUND_AT:.0f}% the hash beside the lines bounds the lookup. Otherwise a lookup taken one at a"
        " time lacks loads in flight; a batched one already keeps its next keys' lines in flight"
        " (core/batched.h), and what holds it is its work beside its loads: here the rate lines arrive at"
        " falls with the instructions beside them, as the floor shows for one hash. Instructions per lookup"
        f" are CI's callgrind counts{counted_at} (results/baseline/instructions.jsonl), then the instructions"
        " per ns it runs in cache → the rate the ceiling would need.",
        "",
        table(["filter", "lookup", "lines", "allowed, ns", "in cache, ns (n)",
               "at most", "hashed floor, ns", f"at {n_label(largest)}", "instructions: per ns in cache → needed",
               "bound"], rows),
    ]


def ceiling_source_text(frame: pd.DataFrame) -> str:
    """Where the ceilings of these rows were measured, in words."""
    own = frame[frame["measured"] == "own table"] if "measured" in frame else frame.iloc[0:0]
    machine_rows = frame.drop(own.index)
    parts = []
    if not own.empty:
        parts.append(
            "the ceiling is the rate of independent random line reads over the filter's own table, in the same"
            " process just after its lookups (the micro-benchmark random_lines"
            f"{', from n = ' + n_label(own['n'].min()) if not machine_rows.empty else ''}: 16 streams, each line"
            " prefetched 64 lines ahead on tables of 4 MiB or more; the same pages and the same minutes as the"
            " lookups, since on a virtual machine one buffer's rate is not another's: core/random_lines.h)")
    if not machine_rows.empty:
        pages = machine_rows["pages"].iloc[0] if "pages" in machine_rows else ""
        parts.append(
            ("below that, " if parts else "the ceiling is ") + "the machine experiment's rate of independent"
            f" random line reads{' ' + pages + ',' if pages else ''} at a working set of the filter's size"
            " (interpolated between the measured sizes around it, log against log)")
        return "; ".join(parts)
    return parts[0]


def ceiling_tables(rows: list[dict], instructions: dict | None = None, in_cache_bytes: float | None = None) -> list[str]:
    frame = pd.DataFrame(rows)
    largest = frame["n"].max()
    at_largest = frame[frame["n"] == largest]
    detail = []
    for name, part in at_largest.groupby("filter"):
        first = part.iloc[0]
        cells = {r["operation"]: f"{r['ns']:.3g} ns, {100 * r['fraction']:.0f}%" for _, r in part.iterrows()}
        traced = part.set_index("operation")["lines"]
        detail.append([name, f"{traced.get('query_present', float('nan')):.2f} / {traced.get('query_absent', float('nan')):.2f}"
                       + ("" if first["traced_as"] == name else f" ({first['traced_as']})"),
                       f"{first['bytes'] / 2**20:.3g} MiB", f"{first['ceiling']:.3g}",
                       *(cells.get(op, "–") for op in LOOKUPS)])
    by_n = frame[frame["operation"].isin(["query_absent", "query_absent_batched"])]
    sizes = sorted(by_n["n"].unique())
    fractions = by_n.set_index(["filter", "operation", "n"])["fraction"]
    over_n = []
    for (name, operation), _ in by_n.groupby(["filter", "operation"]):
        over_n.append([name, "batched" if operation.endswith("batched") else "one at a time",
                       *(f"{100 * fractions[(name, operation, n)]:.0f}%" if (name, operation, n) in fractions.index
                         else "–" for n in sizes)])
    return [
        f"Against the machine's ceiling at n = {n_label(largest)}: a lookup that touches L distinct cache lines"
        " (traced per filter by the locality experiment: member / non-member means; a family's FPR-sized filter"
        " stands in for its fixed widths, named in brackets) at t ns per key reads L·10^9/t lines per second;"
        f" {ceiling_source_text(frame)}. A fraction near 100% means the lookup is bound by the memory"
        " system; far below, by its own instructions or by too few loads in flight.",
        "",
        table(["filter", "lines per lookup", "filter size", "ceiling, lines/s"]
              + [OPERATIONS[op] for op in LOOKUPS], detail),
        "",
        "Non-member lookups as a fraction of the ceiling, by n:",
        "",
        table(["filter", "lookup", *(n_label(n) for n in sizes)], over_n),
        *over_ceiling_note(frame),
        *([""] + bounds if (bounds := bounds_table(frame, instructions or {}, in_cache_bytes)) else []),
    ]


def render(results: ResultSet) -> str | None:
    experiments = results.experiments(SECTION)
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
        rows = ceiling_rows(runs, results)
        if rows:
            l2 = dict(caches).get("L2")
            parts += ["", *ceiling_tables(rows, instructions_per_lookup(results), l2 / 2 if l2 else None)]
        else:
            parts += ["", "No fraction of the random-line ceiling: it needs the suite's machine experiment and the"
                      " locality experiment's traced lines in the same results."]
        # The library's cost per iteration matters most at the smallest n: from this run when it
        # measured it, else from the portable build's one-n run.
        overhead = (speed.library_overhead(results, experiment.id)
                    or speed.library_overhead(results, experiment.id, speed.of_build(results, "portable")))
        if overhead:
            parts += ["", *overhead]
        drawn = results.figure(f"{experiment.id}_speed_vs_n", f"{experiment.title}: ns per key against n",
                               lambda out: charts.speed_vs_n(result.frame, out, experiment.title, caches))
        if drawn:
            parts += ["", drawn]
        parts.append("")
    return "\n".join(parts).rstrip("\n")
