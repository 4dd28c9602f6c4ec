#!/usr/bin/python3
"""amqbench compare BASE NEW: what changed between two runs, matched cell for cell.

    amqbench compare results/baseline build/ci-results    # a Markdown table; exit 0, 1 or 2
    amqbench compare old.jsonl new.jsonl --json           # the same for machines
    amqbench compare old/micro.json new/micro.json        # Google Benchmark JSON
    amqbench compare --update-baseline build/ci-results   # rewrite results/baseline, on purpose
    /usr/bin/python3 plots/compare.py ...                 # the same without the binary

BASE and NEW are result files or directories of them (every *.jsonl and *.json in it but
suite_run.json and schema.json), read and schema-checked by load.py. Version 2 records are
matched on (cell_id, record, trial, window, step); Google Benchmark entries on their run_name.

What a field is comes from the one field table, harness/run/schema.cc, through results/schema.json's
"x-reproducibility" (a nested field, workload.trace.packets, is what its top-level field is):
  * identity (cell_id, seed, ...) matches records and is not compared;
  * deterministic (everything without a mark: space, FPR counts, kicks, build attempts, load,
    cluster lengths, adaptations, the workload's description, ...): at the same seed, any
    difference is reported with the cell and both values and counts as worse (a change of the
    filter, to be taken into the baseline on purpose). Integers, strings and booleans must be
    equal; floats equal to a relative 1e-9 (--float-rel-tol), so a last-bit difference of a
    libm call or of FMA contraction in another build is not a changed filter. At different
    seeds only FPRs are compared, each by the 95% interval its record carries (fpr_ci_low,
    fpr_ci_high: harness/run/schema.cc says over which draws, distinct non-members for the filters
    kind, effective flows for the adaptive kinds, where a flow asked ten times is one draw): a
    difference when the two runs' intervals are disjoint (higher: worse; lower: better). No
    interval is recomputed here from query counts, whose queries may repeat. A record whose FPR
    has no interval (adapt_adversarial's, or a file from before the field) is not judged: an
    "FPR not judged" row (info, not worse) names it. FPRs no record gives an interval for
    (stream_fpr, fpr_first_query) and every other field are counted as not compared.
  * timing (the ns/ units): shown, not judged. Two stored runs are separate runs: the
    repetitions of one run (its *_samples, or Google Benchmark's repetitions) share that run's
    machine state, so a test that takes them for independent samples false-alarms (issue 27:
    one binary run three times, a U test called four timings 1.34x to 1.53x slower at
    p = 0.00018). Each timing is a row with the ratio of the medians, "separate runs, not
    judged (use amqbench ab)", or "other machine, not judged" between hosts or CPU models.
    Judging timings is amqbench ab's (plots/ab.py): two builds in alternating rounds of one
    job, paired by round. interleaved_pairs is the hook for stored runs that are the two sides
    of one such job (no stored format says so yet): there a Wilcoxon signed-rank p below
    --alpha (0.05) and a median ratio beyond --threshold (10%) is slower (worse) or faster
    (better), by ab.judge.
  * build (the instructions kind's instructions_per_op, d1_misses_per_op, ll_misses_per_op:
    callgrind's counts): compared only between records of one build (the header's compiler,
    compiler_flags, build_type and march_native, and the record's valgrind_version, the build
    fields that are strings); another build's: the ratio, "other build, not judged". Of one
    build, instruction counts are judged: more than --count-threshold (1%) above the base's is
    worse ("more"), one that far below is better ("fewer"). They are the same on every run of
    one binary and moved by at most 0.0035% between two checkouts of one commit (glibc's copy
    routines take other paths at other alignments). Simulated cache misses are shown, not
    judged: they move with the binary's memory layout, which the checkout's path changes (D1
    misses by up to 4.1%, LL by 0.55% between two checkouts of one commit): a row "misses moved,
    not judged" where they moved beyond the threshold.
  * machine (peak_rss_bytes, memory_estimate_bytes) and setting (repeats): not compared.
  The header's context (host, time, commit) is never a metric.

A cell in BASE only counts as worse (something measured before no longer is); a cell in NEW
only is listed; a deterministic field in BASE only is a change, one in NEW only is listed.

Google Benchmark files record no CPU model: their machine is the host name with "cpu_model" if
the run added one (--benchmark_context=cpu_model=...), else with the CPU count and MHz.

Exit status: 0 nothing got worse, 1 something did, 2 bad input (an unreadable, truncated,
incomplete or foreign file, a directory without result files, files that cannot be matched
(schema version 1 has no cell_id), no common cell): one line on stderr, nothing written.

--update-baseline NEW rewrites results/baseline (or --baseline DIR) from NEW, a finished run of
suites/ci.toml: version 2 files only, their timing, machine and setting fields stripped (so the
baseline does not churn from machine to machine), the old baseline compared against first (the
table says what moved), then swapped in atomically (each file written and fsynced in a sibling
directory, which is exchanged with the old one by renameat2(RENAME_EXCHANGE)).
"""

from __future__ import annotations

import argparse
import ctypes
import json
import math
import os
import shutil
import statistics
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import ab  # noqa: E402
import load  # noqa: E402
import stats  # noqa: E402

EXIT_SAME, EXIT_WORSE, EXIT_BAD_INPUT = 0, 1, 2
IDENTITY, DETERMINISTIC, SETTING, TIMING, MACHINE, BUILD = (
    "identity", "deterministic", "setting", "timing", "machine", "build")
SKIPPED_FILES = {"suite_run.json", "schema.json"}
DEFAULT_BASELINE = load.REPO / "results" / "baseline"

# Measured FPRs compared across seeds, and the fields of their record's own 95% interval. The
# C++ side decides what one independent draw is (a query, a flow); compare only reads the result.
FPR_INTERVALS = {"fpr": ("fpr_ci_low", "fpr_ci_high")}
# Verdicts, worst first.
WORSE, BETTER, INFO, SAME = "worse", "better", "info", "same"
VERDICT_RANK = {WORSE: 0, BETTER: 1, INFO: 2, SAME: 3}


class BadInput(Exception):
    """Input compare cannot judge: one line on stderr, exit status 2."""


# --- what each field is -----------------------------------------------------------------------

def field_classes(schema: Path) -> dict[str, str]:
    """Record field -> identity, deterministic, setting, timing, machine or build (results/schema.json)."""
    try:
        doc = json.loads(Path(schema).read_text(encoding="utf-8"))
        properties = doc["$defs"]["data"]["properties"]
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise BadInput(f"{schema}: cannot read the field table ({error})") from error
    return {name: spec.get("x-reproducibility", DETERMINISTIC) for name, spec in properties.items()}


def top_level(name: str) -> str:
    return name.split(".", 1)[0].split("[", 1)[0]


def flatten(value, prefix: str, classes: dict[str, str], out: dict) -> dict:
    """Nested objects as "a.b", list items as "a[i]"; timing lists (samples) stay whole."""
    if isinstance(value, dict) and (not prefix or classes.get(top_level(prefix)) != TIMING):
        for key, item in value.items():
            flatten(item, f"{prefix}.{key}" if prefix else key, classes, out)
    elif isinstance(value, list) and classes.get(top_level(prefix)) != TIMING:
        if not value:
            out[prefix] = []
        for i, item in enumerate(value):
            flatten(item, f"{prefix}[{i}]", classes, out)
    else:
        out[prefix] = value
    return out


# --- one side: records from files -------------------------------------------------------------

@dataclass
class Entry:
    """One data line of a result file, or one Google Benchmark benchmark."""
    key: tuple
    experiment: str
    cell_id: str
    record: str
    seed: object
    label: str
    machine: tuple
    source: str
    values: dict = field(default_factory=dict)  # flattened fields (result files)
    timings: dict = field(default_factory=dict)  # name -> (median, samples or None)
    build: tuple = ()  # compiler, flags, build type, -march=native (result files)


@dataclass
class Side:
    path: Path
    files: list
    formats: set
    entries: dict  # key -> [Entry]


def machine_of(result: load.ResultFile) -> tuple:
    context = result.context or {}
    host = context.get("host_name")
    if result.format == "gbench" and "cpu_model" not in context:
        return (host, f"{context.get('num_cpus')} CPUs at {context.get('mhz_per_cpu')} MHz")
    return (host, context.get("cpu_model"))


def label_of(values: dict, record: str) -> str:
    """A short description of the cell a person can recognise: filter and its parameters."""
    parts = [str(values.get("filter", "?"))]
    for name, shown in (("keys", "n="), ("capacity", "capacity="), ("target_fpr", "fpr="),
                        ("target_bits_per_key", "bits/key="), ("max_load", "max-load="),
                        ("workload.keys_from", ""), ("workload.query_dist", "queries "),
                        ("bits_per_slot", "bits="), ("as_ratio", "A/S="),
                        ("queries_per_flow", "q/flow="), ("attack", ""), ("set_size", "set=")):
        value = values.get(name)
        if value is None or (name == "capacity" and value == values.get("keys")):
            continue
        if name == "workload.query_dist" and value == "uniform":
            continue
        parts.append(f"{shown}{format_value(value)}")
    if values.get("workload.kind") == "trace":
        parts.append(f"trace {values.get('workload.file', '')}".strip())
    if record == "trial":
        parts.append(f"trial {values.get('trial')}")
    elif record == "window":
        parts.append(f"window {values.get('window')}")
    elif record == "step":
        parts.append(f"step {values.get('step')}")
    return " ".join(parts)


def build_of(result: load.ResultFile) -> tuple:
    """What a build-class count depends on besides the record's own build strings."""
    context = result.context or {}
    return tuple(context.get(k) for k in ("compiler", "compiler_flags", "build_type", "march_native"))


def entries_of_result(result: load.ResultFile, classes: dict[str, str]) -> list[Entry]:
    machine, build = machine_of(result), build_of(result)
    # An experiment whose report reads no timing (timed = false) may have run beside another
    # (suite --jobs): its timings are kept in its file but compared with nothing.
    untimed = result.experiment.get("timed") is False
    entries = []
    for record in result.records:
        values = flatten(record, "", classes, {})
        kind = record.get("record", "cell")
        key = (record.get("cell_id"), kind, record.get("trial"), record.get("window"), record.get("step"))
        timings = {}
        for name, value in record.items():
            if untimed or classes.get(name) != TIMING or name.endswith(("_min", "_max", "_samples")):
                continue
            samples = record.get(f"{name}_samples")
            timings[name] = (value, samples if isinstance(samples, list) else None)
        entries.append(Entry(key, str(record.get("experiment")), record.get("cell_id"), kind,
                             record.get("seed"), label_of(values, kind), machine,
                             result.path.name, values, timings, build))
    return entries


GBENCH_UNITS_NS = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}


def entries_of_gbench(result: load.ResultFile) -> list[Entry]:
    """One entry per benchmark: its repetitions are the samples of its time per key (the
    ns_per_key counter when it has one, else real_time), its median aggregate the median. A
    benchmark is named with its n (load.canonical_benchmark_name), so files from before n was a
    Google Benchmark argument match files from after."""
    machine = machine_of(result)
    by_name: dict[str, dict] = {}
    for bench in result.records:
        if bench.get("error_occurred"):
            continue
        name = load.canonical_benchmark_name(bench.get("run_name", bench.get("name")), result.context)
        item = by_name.setdefault(name, {"samples": [], "median": None, "metric": None})
        if "ns_per_key" in bench:
            metric, value = "ns_per_key", bench["ns_per_key"] * 1e9
        elif "real_time" in bench:
            metric = "real_time_ns"
            value = bench["real_time"] * GBENCH_UNITS_NS.get(bench.get("time_unit", "ns"), 1.0)
        else:
            continue
        item["metric"] = metric
        if bench.get("run_type") == "aggregate":
            if bench.get("aggregate_name") == "median":
                item["median"] = value
        else:
            item["samples"].append(value)
    entries = []
    for name, item in by_name.items():
        if item["metric"] is None:
            continue
        samples = item["samples"]
        median = item["median"] if item["median"] is not None else (
            statistics.median(samples) if samples else None)
        entries.append(Entry(("gbench", name), result.path.stem, name, "benchmark", None, name,
                             machine, result.path.name, {},
                             {item["metric"]: (median, samples)}))
    return entries


def result_paths(path: Path) -> list[Path]:
    if path.is_dir():
        files = sorted(p for p in path.iterdir()
                       if p.is_file() and p.suffix in (".jsonl", ".json") and p.name not in SKIPPED_FILES)
        if not files:
            raise BadInput(f"{path}: no result files (*.jsonl, *.json) in this directory")
        return files
    if not path.exists():
        raise BadInput(f"{path}: no such file or directory")
    return [path]


def read_results(path: Path, schema: Path | None, allow_incomplete: bool = False) -> list:
    """The result files at `path` (a file, or a directory of them), read and checked: files
    that can be matched (not version 1) of finished runs (unless allow_incomplete). Raises
    BadInput naming the file."""
    results = []
    for file in result_paths(path):
        try:
            result = load.read(file, schema)
        except load.ResultFileError as error:
            raise BadInput(str(error)) from error
        if result.format == "v1":
            raise BadInput(f"{file}: schema version 1 has no cell_id, so its records cannot be"
                           " matched; compare version 2 files (rerun with today's amqbench)")
        if not result.complete and not allow_incomplete:
            raise BadInput(f"{file}: incomplete (no end line: an interrupted or truncated run);"
                           " finish it with --resume, or pass --allow-incomplete")
        results.append(result)
    return results


def entries_of(results: list, classes: dict[str, str]) -> dict[tuple, list[Entry]]:
    """Every entry of the files by its key (a key two files share holds both)."""
    entries: dict[tuple, list[Entry]] = {}
    for result in results:
        found = entries_of_gbench(result) if result.format == "gbench" else entries_of_result(result, classes)
        for entry in found:
            entries.setdefault(entry.key, []).append(entry)
    return entries


def side_of(path: Path, results: list, classes: dict[str, str]) -> Side:
    """One side of a comparison from result files already read (or rebuilt, as history does)."""
    return Side(path, [r.path for r in results], {r.format for r in results}, entries_of(results, classes))


def read_side(path: Path, classes: dict[str, str], schema: Path | None,
              allow_incomplete: bool = False) -> tuple[Side, list]:
    results = read_results(path, schema, allow_incomplete)
    return side_of(path, results, classes), results


# --- the comparison ---------------------------------------------------------------------------

@dataclass
class Row:
    verdict: str  # worse, better, info, same
    what: str
    experiment: str
    cell_id: str
    label: str
    field: str = ""
    base: object = None
    new: object = None
    change: float | None = None  # relative change of a number, or a timing's ratio - 1
    note: str = ""
    p_value: float | None = None

    def magnitude(self) -> float:
        return math.inf if self.change is None or math.isnan(self.change) else abs(self.change)


@dataclass
class Settings:
    alpha: float = 0.05
    threshold: float = 0.10
    float_rel_tol: float = 1e-9
    count_threshold: float = 0.01


@dataclass
class Comparison:
    rows: list
    counts: dict
    settings: Settings
    base: Side
    new: Side
    base_results: list
    new_results: list

    @property
    def worse(self) -> list:
        return [r for r in self.rows if r.verdict == WORSE]

    @property
    def exit_status(self) -> int:
        return EXIT_WORSE if self.worse else EXIT_SAME


def is_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def same_value(a, b, rel_tol: float) -> bool:
    if is_number(a) and is_number(b):
        if isinstance(a, int) and isinstance(b, int):
            return a == b
        return a == b or abs(a - b) <= rel_tol * max(abs(a), abs(b))
    return type(a) is type(b) and a == b


def relative_change(a, b) -> float | None:
    if not (is_number(a) and is_number(b)):
        return None
    if a == 0:
        return math.inf if b != 0 else 0.0
    return (b - a) / abs(a)


def pair_up(base: list[Entry], new: list[Entry]) -> tuple[list, list, list]:
    """Entries of one key on both sides: the same experiment first, then in order."""
    pairs, base_left, new_left = [], list(base), list(new)
    for b in list(base_left):
        match = next((n for n in new_left if n.experiment == b.experiment), None)
        if match is not None:
            pairs.append((b, match))
            base_left.remove(b)
            new_left.remove(match)
    while base_left and new_left:
        pairs.append((base_left.pop(0), new_left.pop(0)))
    return pairs, base_left, new_left


def compare_sides(base: Side, new: Side, classes: dict[str, str], settings: Settings,
                  base_results=(), new_results=()) -> Comparison:
    if not base.formats & new.formats:
        raise BadInput(f"{base.path} holds {describe_formats(base.formats)} and {new.path} holds"
                       f" {describe_formats(new.formats)}: nothing to match")
    rows: list[Row] = []
    counts = {"cells_matched": 0, "records_matched": 0, "values_equal": 0,
              "values_not_compared_seeds_differ": 0, "fprs_within_intervals": 0,
              "fprs_not_judged_no_interval": 0,
              "timings_same": 0, "timings_not_judged": 0, "counts_within_threshold": 0,
              "counts_not_judged_other_build": 0, "misses_not_judged": 0, "cells_only_in_base": 0,
              "cells_only_in_new": 0}
    matched_cells = set()
    base_left, new_left = [], []
    for key in sorted(set(base.entries) | set(new.entries), key=lambda k: tuple(map(str, k))):
        pairs, b_left, n_left = pair_up(base.entries.get(key, []), new.entries.get(key, []))
        for b, n in pairs:
            matched_cells.add(b.cell_id)
            counts["records_matched"] += 1
            compare_entries(b, n, classes, settings, rows, counts)
        base_left += b_left
        new_left += n_left
    if not matched_cells:
        raise BadInput(f"{base.path} and {new.path} have no cell in common")
    # A cell on one side only is one row; a record missing from a matched cell (a trial, a
    # window) is a row of its own.
    for entries, verdict, side, word in ((base_left, WORSE, "BASE", "missing"), (new_left, INFO, "NEW", "new")):
        whole_cells = {}
        for e in entries:
            if e.cell_id in matched_cells:
                rows.append(Row(verdict, f"{word} {e.record}", e.experiment, e.cell_id, e.label,
                                note=f"in {side} only ({e.source})"))
            else:
                whole_cells.setdefault((e.experiment, e.cell_id), e)
        for (experiment, cell_id), e in sorted(whole_cells.items()):
            rows.append(Row(verdict, f"{word} cell", experiment, cell_id, e.label,
                            note=f"in {side} only ({e.source})"))
        counts[f"cells_only_in_{side.lower()}"] = len(whole_cells)
    counts["cells_matched"] = len(matched_cells)
    rows.sort(key=lambda r: (VERDICT_RANK[r.verdict], -r.magnitude(), r.experiment, r.label, r.field))
    return Comparison(rows, counts, settings, base, new, list(base_results), list(new_results))


def compare_entries(b: Entry, n: Entry, classes: dict[str, str], settings: Settings,
                    rows: list, counts: dict) -> None:
    def row(verdict, what, **kw):
        rows.append(Row(verdict, what, n.experiment, n.cell_id, n.label, **kw))

    same_seed = b.seed == n.seed
    for name in sorted(set(b.values) | set(n.values)):
        if classes.get(top_level(name), DETERMINISTIC) != DETERMINISTIC:
            continue  # build-class counts: compare_counts
        in_base, in_new = name in b.values, name in n.values
        if not same_seed:
            if name in FPR_INTERVALS and in_base and in_new:
                compare_fpr_across_seeds(b, n, name, row, counts)
            else:
                counts["values_not_compared_seeds_differ"] += 1
            continue
        if in_base and in_new:
            old, now = b.values[name], n.values[name]
            if same_value(old, now, settings.float_rel_tol):
                counts["values_equal"] += 1
            else:
                row(WORSE, "changed", field=name, base=old, new=now, change=relative_change(old, now),
                    note=f"seed {n.seed}")
        elif in_base:
            row(WORSE, "changed", field=name, base=b.values[name], new="(absent)",
                note=f"seed {n.seed}; field no longer written")
        else:
            row(INFO, "new field", field=name, base="(absent)", new=n.values[name])
    for name in sorted(set(b.timings) & set(n.timings)):
        compare_timing(b, n, name, settings, row, counts)
    compare_counts(b, n, classes, settings, row, counts)


def build_identity(entry: Entry, classes: dict[str, str]) -> tuple:
    """The header's build and the record's build-class strings (valgrind_version)."""
    strings = sorted((k, v) for k, v in entry.values.items()
                     if classes.get(top_level(k)) == BUILD and isinstance(v, str))
    return (*entry.build, *strings)


# The build-class counts that are judged; the others (simulated cache misses) are shown.
JUDGED_COUNTS = ("instructions_per_op",)


def compare_counts(b: Entry, n: Entry, classes: dict[str, str], settings: Settings, row, counts: dict) -> None:
    """Build-class counts: instructions judged within one build by a threshold, misses shown."""
    names = sorted(k for k in set(b.values) & set(n.values)
                   if classes.get(top_level(k)) == BUILD and is_number(b.values[k]) and is_number(n.values[k]))
    if not names:
        return
    same_build = build_identity(b, classes) == build_identity(n, classes)
    for name in names:
        old, now = b.values[name], n.values[name]
        change = relative_change(old, now)
        beyond = change is not None and abs(change) > settings.count_threshold
        if not same_build:
            counts["counts_not_judged_other_build"] += 1
            row(INFO, "not judged", field=name, base=old, new=now, change=change,
                note="other build, not judged (compiler, flags or valgrind differ)")
        elif top_level(name) not in JUDGED_COUNTS:
            counts["misses_not_judged"] += 1
            if beyond:
                row(INFO, "misses moved", field=name, base=old, new=now, change=change,
                    note="not judged: simulated cache misses move with the binary's memory layout")
        elif change is not None and change > settings.count_threshold:
            row(WORSE, "more", field=name, base=old, new=now, change=change,
                note=f"above the base by more than {settings.count_threshold:.0%} (one build)")
        elif change is not None and change < -settings.count_threshold:
            row(BETTER, "fewer", field=name, base=old, new=now, change=change,
                note=f"below the base by more than {settings.count_threshold:.0%} (one build)")
        else:
            counts["counts_within_threshold"] += 1


def compare_fpr_across_seeds(b: Entry, n: Entry, name: str, row, counts: dict) -> None:
    """Two FPRs at different seeds, judged by the intervals their records carry."""
    old, now = b.values[name], n.values[name]
    if stats.is_missing(old) or stats.is_missing(now):  # no negative queries: no FPR to judge
        counts["values_not_compared_seeds_differ"] += 1
        return
    (b_low, b_high), (n_low, n_high) = ([entry.values.get(f) for f in FPR_INTERVALS[name]] for entry in (b, n))
    lacking = [side for side, ends in (("BASE", (b_low, b_high)), ("NEW", (n_low, n_high)))
               if any(stats.is_missing(v) for v in ends)]
    if lacking:
        counts["fprs_not_judged_no_interval"] += 1
        row(INFO, "FPR not judged", field=name, base=old, new=now, change=relative_change(old, now),
            note=f"seeds {b.seed} vs {n.seed}: no 95% interval in the {' and '.join(lacking)} record"
                 f" ({', '.join(FPR_INTERVALS[name])}); none is recomputed from query counts")
        return
    note = (f"seeds {b.seed} vs {n.seed}: the records' 95% intervals [{format_value(b_low)}, {format_value(b_high)}]"
            f" and [{format_value(n_low)}, {format_value(n_high)}] are disjoint")
    if n_low > b_high:
        row(WORSE, "higher FPR", field=name, base=old, new=now, change=relative_change(old, now), note=note)
    elif n_high < b_low:
        row(BETTER, "lower FPR", field=name, base=old, new=now, change=relative_change(old, now), note=note)
    else:
        counts["fprs_within_intervals"] += 1


def interleaved_pairs(b: Entry, n: Entry, name: str) -> list[tuple[float, float]] | None:
    """The hook where two stored runs' timings could be judged: when BASE and NEW are the two
    sides of one interleaved A/B job, their samples paired by round, (base, new) per round;
    None when they are separate runs. No stored format says so yet - amqbench ab judges its
    rounds itself (plots/ab.py) and keeps the pairs with --out - so it is always None today. A
    format that records the job and round of each sample fills this in, and compare_timing
    then judges the pairs as amqbench ab does."""
    return None


def compare_timing(b: Entry, n: Entry, name: str, settings: Settings, row, counts: dict) -> None:
    """The ratio of the medians, judged only for the rounds of one A/B job (interleaved_pairs):
    the repetitions of one run share its machine state, so two separate runs' samples are not
    independent and a test over them false-alarms (issue 27)."""
    (b_median, _), (n_median, _) = b.timings[name], n.timings[name]
    if not (is_number(b_median) and is_number(n_median)) or b_median <= 0:
        return
    change = n_median / b_median - 1
    pairs = interleaved_pairs(b, n, name) if b.machine == n.machine else None
    if pairs is None:
        counts["timings_not_judged"] += 1
        note = ("separate runs, not judged (use amqbench ab)" if b.machine == n.machine else
                f"other machine, not judged ({machine_text(b.machine)} vs {machine_text(n.machine)})")
        row(INFO, "not judged", field=name, base=b_median, new=n_median, change=change, note=note)
        return
    judged = ab.judge(pairs, settings.alpha, settings.threshold)
    note = f"one A/B job: signed-rank p = {judged.p_value:.2g} over {judged.rounds} rounds"
    change = judged.median_ratio - 1
    if judged.verdict == ab.SLOWER:
        row(WORSE, "slower", field=name, base=b_median, new=n_median, change=change, note=note,
            p_value=judged.p_value)
    elif judged.verdict == ab.FASTER:
        row(BETTER, "faster", field=name, base=b_median, new=n_median, change=change, note=note,
            p_value=judged.p_value)
    else:
        counts["timings_same"] += 1
        row(SAME, "same", field=name, base=b_median, new=n_median, change=change, note=note,
            p_value=judged.p_value)


# --- output -----------------------------------------------------------------------------------

def describe_formats(formats: set) -> str:
    names = {"v2": "schema version 2 result files", "gbench": "Google Benchmark JSON",
             "v1": "schema version 1 result files"}
    return " and ".join(names[f] for f in sorted(formats))


def machine_text(machine: tuple) -> str:
    return ", ".join(str(m) for m in machine if m)


def format_value(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return f"{value:.6g}"
    if value is None:
        return "null"
    if isinstance(value, (list, dict)):
        text = json.dumps(value)
        return text if len(text) <= 40 else text[:37] + "..."
    return str(value)


def format_pair(a, b) -> tuple[str, str]:
    """Both values, with digits enough to tell them apart."""
    left, right = format_value(a), format_value(b)
    if left == right and (isinstance(a, float) or isinstance(b, float)):
        left, right = repr(a), repr(b)
    return left, right


def format_change(row: Row) -> str:
    if row.change is None:
        return ""
    if math.isinf(row.change):
        return "from 0"
    if row.what in ("slower", "faster", "same", "not judged"):
        return f"×{1 + row.change:.3g}"
    return f"{row.change * 100:+.3g}%"


def cell_text(side: Side, results: list) -> str:
    machines = sorted({machine_text(machine_of(r)) for r in results})
    commits = sorted({str(r.context.get("git_commit", ""))[:10] for r in results if r.context.get("git_commit")})
    where = "; ".join(machines) or "unknown machine"
    files = f"{len(results)} file" + ("s" if len(results) != 1 else "")
    return f"`{side.path}` ({files}; {where}" + (f"; commit {', '.join(commits)}" if commits else "") + ")"


def summary_line(comparison: Comparison) -> str:
    c, rows = comparison.counts, comparison.rows

    def count(verdict, what=None):
        return sum(1 for r in rows if r.verdict == verdict and (what is None or r.what == what))

    worse_parts = []
    kinds = (("changed", "deterministic values changed"), ("slower", "timings slower"),
             ("more", "instruction counts higher"),
             ("higher FPR", "FPRs higher"), ("missing cell", "cells missing from NEW"))
    for what, words in kinds:
        if count(WORSE, what):
            worse_parts.append(f"{count(WORSE, what)} {words}")
    other_missing = count(WORSE) - sum(count(WORSE, what) for what, _ in kinds)
    if other_missing:
        worse_parts.append(f"{other_missing} trial or window records missing from NEW")
    head = ("WORSE: " + ", ".join(worse_parts)) if worse_parts else "nothing got worse"
    worse_cells = len({(r.experiment, r.cell_id) for r in rows if r.verdict == WORSE})
    if worse_parts:
        head += f" (in {worse_cells} cells)"
    better = count(BETTER)
    tail = [f"{c['cells_matched']} cells matched", f"{c['values_equal']} deterministic values equal"]
    if better:
        tail.append(f"{better} better ({count(BETTER, 'faster')} faster, {count(BETTER, 'fewer')} fewer counted,"
                    f" {count(BETTER, 'lower FPR')} lower FPR)")
    if c["cells_only_in_new"]:
        tail.append(f"{c['cells_only_in_new']} cells only in NEW")
    if c["timings_same"]:
        tail.append(f"{c['timings_same']} timings the same")
    if c["timings_not_judged"]:
        tail.append(f"{c['timings_not_judged']} timings not judged")
    if c["counts_within_threshold"]:
        tail.append(f"{c['counts_within_threshold']} instruction counts within {comparison.settings.count_threshold:.0%}")
    if c["misses_not_judged"]:
        tail.append(f"{c['misses_not_judged']} miss counts shown, not judged")
    if c["counts_not_judged_other_build"]:
        tail.append(f"{c['counts_not_judged_other_build']} counts not judged (other build)")
    if c["fprs_not_judged_no_interval"]:
        tail.append(f"{c['fprs_not_judged_no_interval']} FPRs not judged (no interval in the record)")
    if c["values_not_compared_seeds_differ"]:
        tail.append(f"{c['values_not_compared_seeds_differ']} values not compared (seeds differ)")
    return f"amqbench compare: {head}; " + ", ".join(tail) + "."


def markdown(comparison: Comparison, max_rows: int) -> str:
    s, c = comparison.settings, comparison.counts
    sides = (f"BASE {cell_text(comparison.base, comparison.base_results)}, "
             f"NEW {cell_text(comparison.new, comparison.new_results)}.")
    if c["timings_not_judged"]:
        sides += (" Timings of separate runs are shown, not judged: a run's repetitions share its"
                  " machine state, so only the rounds of one A/B job can be (amqbench ab).")
    if c["timings_same"] or any(r.what in ("slower", "faster") for r in comparison.rows):
        sides += (f" Timings of one A/B job: two-sided signed-rank p < {s.alpha:g} over its rounds"
                  f" and a median ratio beyond {s.threshold * 100:g}%.")
    lines = [summary_line(comparison), "", sides, ""]
    shown = [r for r in comparison.rows if r.verdict != SAME]
    if not shown:
        return "\n".join(lines[:-1]) + "\n"
    lines += ["| verdict | what | experiment | cell | cell_id | field | BASE | NEW | change | note |",
              "|---|---|---|---|---|---|---|---|---|---|"]
    limit = len(shown) if max_rows <= 0 else max_rows
    for r in shown[:limit]:
        base, new = format_pair(r.base, r.new) if r.field else ("", "")
        cells = [r.verdict, r.what, r.experiment, r.label, r.cell_id, r.field, base, new, format_change(r), r.note]
        lines.append("| " + " | ".join(str(x).replace("|", "\\|") for x in cells) + " |")
    if len(shown) > limit:
        lines.append(f"\n... and {len(shown) - limit} more rows (--max-rows 0 shows them all; --json has every row)")
    return "\n".join(lines) + "\n"


def json_safe(value):
    if isinstance(value, float) and (math.isnan(value) or math.isinf(value)):
        return None
    return value


def as_json(comparison: Comparison) -> dict:
    def side(s: Side, results):
        return {"path": str(s.path), "files": [str(p) for p in s.files],
                "formats": sorted(s.formats),
                "machines": sorted({machine_text(machine_of(r)) for r in results}),
                "git_commits": sorted({str(r.context.get("git_commit")) for r in results if r.context.get("git_commit")})}

    return {
        "summary": summary_line(comparison),
        "exit_status": comparison.exit_status,
        "worse": len(comparison.worse),
        "better": sum(1 for r in comparison.rows if r.verdict == BETTER),
        "counts": comparison.counts,
        "settings": vars(comparison.settings),
        "base": side(comparison.base, comparison.base_results),
        "new": side(comparison.new, comparison.new_results),
        "rows": [{"verdict": r.verdict, "what": r.what, "experiment": r.experiment, "cell_id": r.cell_id,
                  "cell": r.label, "field": r.field or None, "base": json_safe(r.base), "new": json_safe(r.new),
                  "change": json_safe(r.change), "p_value": r.p_value, "note": r.note}
                 for r in comparison.rows],
    }


# --- the baseline -----------------------------------------------------------------------------

def stripped_lines(path: Path, classes: dict[str, str]) -> list[str]:
    """A finished version 2 file's lines with its timing, machine and setting fields left out (the
    header keeps its context: the build its counts were taken with)."""
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        obj = json.loads(line)
        if obj.get("record") not in ("header", "end"):
            obj = {k: v for k, v in obj.items() if classes.get(k, DETERMINISTIC) in (IDENTITY, DETERMINISTIC, BUILD)}
        out.append(json.dumps(obj, separators=(",", ":"), ensure_ascii=False))
    return out


def fsync_path(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def exchange(a: Path, b: Path) -> bool:
    """Swap two directories in one step (Linux renameat2 RENAME_EXCHANGE); False if unsupported."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        renameat2 = libc.renameat2
    except (OSError, AttributeError):
        return False
    at_fdcwd, rename_exchange = -100, 2
    return renameat2(at_fdcwd, os.fsencode(str(a)), at_fdcwd, os.fsencode(str(b)), rename_exchange) == 0


def update_baseline(new_path: Path, baseline: Path, classes: dict[str, str], schema: Path | None,
                    settings: Settings, max_rows: int, out) -> int:
    new_side, new_results = read_side(new_path, classes, schema)
    for result in new_results:
        if result.format != "v2":
            raise BadInput(f"{result.path}: the baseline holds schema version 2 result files only")
    # What moves: the table of the old baseline against the new run, for the commit message.
    if baseline.is_dir() and any(baseline.iterdir()):
        try:
            base_side, base_results = read_side(baseline, classes, schema)
            comparison = compare_sides(base_side, new_side, classes, settings, base_results, new_results)
            out.write(markdown(comparison, max_rows))
        except BadInput as error:
            out.write(f"(the old baseline is not comparable: {error})\n")
    contents = {r.path.name: "\n".join(stripped_lines(r.path, classes)) + "\n" for r in new_results}
    baseline.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{baseline.name}.new.", dir=baseline.parent))
    try:
        for name, text in contents.items():
            with open(staging / name, "w", encoding="utf-8") as handle:
                handle.write(text)
                handle.flush()
                os.fsync(handle.fileno())
        os.chmod(staging, 0o755)
        fsync_path(staging)
        if not baseline.exists():
            os.rename(staging, baseline)
        elif exchange(staging, baseline):
            shutil.rmtree(staging)  # it now holds the old baseline
        else:
            old = staging.with_name(staging.name.replace(".new.", ".old."))
            os.rename(baseline, old)
            os.rename(staging, baseline)
            shutil.rmtree(old)
        fsync_path(baseline.parent)
    finally:
        if staging.exists():
            shutil.rmtree(staging)
    out.write(f"{baseline}: {len(contents)} files written from {new_path}"
              " (timing, machine and setting fields left out)\n")
    return EXIT_SAME


# --- the command ------------------------------------------------------------------------------

class OneLineParser(argparse.ArgumentParser):
    """A usage error is one line on stderr and exit status 2, as everywhere in amqbench."""

    def error(self, message):
        self.exit(EXIT_BAD_INPUT, f"{self.prog}: {message} (--help lists the options)\n")


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = OneLineParser(
        prog=os.environ.get("AMQ_COMPARE_PROG", "compare.py"),
        description="Compare two amqbench runs (result files or directories of them, or Google "
                    "Benchmark JSON), cell by cell. Exit 0: nothing got worse; 1: something did; "
                    "2: bad input. plots/compare.py's header says every rule.")
    parser.add_argument("paths", nargs="*", metavar="BASE NEW", help="the runs to compare")
    parser.add_argument("--json", action="store_true", help="print JSON instead of the Markdown table")
    parser.add_argument("--alpha", type=float, default=0.05,
                        help="timings of one A/B job: a change needs a signed-rank p-value below this (default 0.05)")
    parser.add_argument("--threshold", type=float, default=0.10,
                        help="timings of one A/B job: and a median ratio beyond 1 + this (default 0.10)")
    parser.add_argument("--count-threshold", type=float, default=0.01,
                        help="instruction and cache-miss counts of one build: a change beyond this fraction"
                             " is worse or better (default 0.01)")
    parser.add_argument("--float-rel-tol", type=float, default=1e-9,
                        help="deterministic floats: relative difference still counted equal (default 1e-9)")
    parser.add_argument("--max-rows", type=int, default=100,
                        help="rows of the Markdown table, worst first (0: all; default 100)")
    parser.add_argument("--allow-incomplete", action="store_true",
                        help="compare files of interrupted runs too (their missing cells are listed)")
    parser.add_argument("--schema", type=Path, default=load.DEFAULT_SCHEMA,
                        help="the field table (default results/schema.json)")
    parser.add_argument("--update-baseline", metavar="NEW", type=Path,
                        help="rewrite the baseline from NEW, a finished run of suites/ci.toml")
    parser.add_argument("--baseline", type=Path, default=DEFAULT_BASELINE,
                        help="the baseline directory --update-baseline rewrites (default results/baseline)")
    args = parser.parse_args(argv)
    if args.update_baseline is None and len(args.paths) != 2:
        parser.error("give BASE and NEW (or --update-baseline NEW)")
    if args.update_baseline is not None and args.paths:
        parser.error("--update-baseline takes NEW alone")
    if not 0 < args.alpha < 1 or args.threshold < 0 or args.float_rel_tol < 0 or args.count_threshold < 0:
        parser.error("--alpha in (0, 1), --threshold >= 0, --float-rel-tol >= 0, --count-threshold >= 0")
    return args


def main(argv: list[str] | None = None, out=None) -> int:
    out = out or sys.stdout
    prog = os.environ.get("AMQ_COMPARE_PROG", "compare.py")
    try:
        args = parse_args(sys.argv[1:] if argv is None else argv)
    except SystemExit as stop:  # argparse: --help (0) or a usage error (2)
        return int(stop.code or 0)
    settings = Settings(args.alpha, args.threshold, args.float_rel_tol, args.count_threshold)
    try:
        classes = field_classes(args.schema)
        if args.update_baseline is not None:
            return update_baseline(args.update_baseline, args.baseline, classes, args.schema,
                                   settings, args.max_rows, out)
        base_side, base_results = read_side(Path(args.paths[0]), classes, args.schema, args.allow_incomplete)
        new_side, new_results = read_side(Path(args.paths[1]), classes, args.schema, args.allow_incomplete)
        comparison = compare_sides(base_side, new_side, classes, settings, base_results, new_results)
    except BadInput as error:
        print(f"{prog}: {error}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except OSError as error:
        print(f"{prog}: {error}", file=sys.stderr)
        return EXIT_BAD_INPUT
    if args.json:
        out.write(json.dumps(as_json(comparison), indent=1) + "\n")
    else:
        out.write(markdown(comparison, args.max_rows))
    return comparison.exit_status


if __name__ == "__main__":
    sys.exit(main())
