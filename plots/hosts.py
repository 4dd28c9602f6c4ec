#!/usr/bin/python3
"""Result sets of two or more machines, or builds, on the same axes, with every side's timings
as a ratio to the first side's.

    /usr/bin/python3 plots/hosts.py --label portable=results/micro.json \\
        --label native=results/micro_native.json --out build/hosts
    /usr/bin/python3 plots/hosts.py --label epyc=results --label epyc=epyc-machine.jsonl \\
        --label xeon=xeon/results --label xeon=xeon-machine.jsonl --out build/hosts

Each --label NAME=PATH adds PATH (a result file, or a directory: every *.jsonl and *.json in it
but suite_run.json and schema.json) to side NAME; the first NAME given is side A, the one the
others are divided by. A NAME may hold "=" and, written --label=NAME=PATH, start with "-"
(--label=-march=native=results/micro_native.json). Files are read and schema-checked by load.py through compare.py, so
amqbench compare's rules hold: the same files are accepted and refused, and records match as
they match there, suite cells on cell_id (with record, trial and window), Google Benchmark
entries on their name.

Sides are told apart by their files' contexts: the machine is host_name and cpu_model (a Google
Benchmark file without cpu_model: its CPU count and MHz, as compare.py has it), the build is
compiler, compiler_flags, build_type, march_native, git_commit, git_dirty and a Google Benchmark
file's executable. Sides of one machine are "two builds of one machine" ("two runs of one
build" when no build field the files record differs), sides of different machines "two
machines".

Written to --out DIR, each file under a temporary name and then renamed:
  hosts.md           the sides' contexts side by side (CPU, caches, kernel, compiler, flags,
                     -march=native, commit; the latency plateaus where `amqbench machine`
                     measured them) and, per filter and operation, the ratio side / A of the
                     timings (the ns/ fields, or Google Benchmark's ns_per_key): the median over
                     the matched cells of each cell's ratio of medians. Only timings are divided.
  hosts_speed.png    speed per filter: every side's ns per key on the same axes, a panel per
                     operation; median, with min-max over the repeats (and over the cells, where
                     a filter has several)
  hosts_n.png        ns per key against n (log x), where the matched cells hold a filter at
                     several n
  hosts_machine.png  amqbench machine's curves (latency against working set, random lines,
                     sequential reads), where a side has machine records
The Markdown is printed too. Exit status 0, or 2 on bad input (a --label that is not NAME=PATH,
fewer than two sides, an unreadable, foreign, version 1 or incomplete file, a side without a
cell in common with A): one line on stderr, nothing written.
"""

from __future__ import annotations

import io
import math
import os
import shlex
import statistics
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import matplotlib  # noqa: E402

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

import compare  # noqa: E402
import load  # noqa: E402
import report_format  # noqa: E402

EXIT_OK, EXIT_BAD_INPUT = 0, 2
THRESHOLD = 0.10  # "faster" and "slower" in the summary: a ratio beyond 1 ± this
BUILD_FIELDS = ("compiler", "compiler_flags", "build_type", "march_native", "git_commit", "git_dirty",
                "executable")
NUMBER_WORDS = {2: "two", 3: "three", 4: "four", 5: "five"}
SIDE_COLOURS = plt.get_cmap("tab10").colors
SIDE_STYLES = ("-", "--", ":", "-.")
SIDE_MARKERS = "osD^v"


# --- the sides --------------------------------------------------------------------------------

@dataclass
class Side:
    name: str
    results: list  # load.ResultFile, in the order read
    entries: dict  # compare's entries by key

    @property
    def machines(self) -> frozenset:
        return frozenset(compare.machine_of(r) for r in self.results)

    @property
    def builds(self) -> frozenset:
        return frozenset(tuple(str(r.context.get(f)) for f in BUILD_FIELDS) for r in self.results)


def side_of(name: str, results: list, classes: dict[str, str]) -> Side:
    """A side from files already read; `classes` (compare.field_classes) says which fields are
    timings."""
    return Side(name, list(results), compare.entries_of(results, classes))


def read_side(name: str, paths: list[Path], schema: Path, allow_incomplete: bool) -> Side:
    """A side from its files; compare.BadInput names the file that cannot be read."""
    results = [r for path in paths for r in compare.read_results(path, schema, allow_incomplete)]
    return side_of(name, results, compare.field_classes(schema))


def relation(sides: list[Side]) -> str:
    """What the sides are: "two builds of one machine", "two machines", ..."""
    count = NUMBER_WORDS.get(len(sides), str(len(sides)))
    machines = len({s.machines for s in sides})
    if machines == len(sides):
        return f"{count} machines"
    if machines > 1:
        return f"{count} sides on {machines} machines"
    if len({s.builds for s in sides}) == 1:
        return f"{count} runs of one build"
    return f"{count} builds of one machine"


# --- matched timings --------------------------------------------------------------------------

def describe(entry: compare.Entry, timing: str) -> dict:
    """Filter, operation, n and series (the cell's label without n) of one timing. A suite cell's
    operation is its field's name (insert_ns, query_ns_positive), a benchmark's its name's part
    (insert, query_present; static/build_cold): the two never share a row."""
    if entry.record == "benchmark":
        suite, filter_name, operation = load.split_benchmark_name(entry.cell_id)
        n = load.benchmark_n(entry.cell_id)
        return {"filter": filter_name, "operation": operation if suite == "filters" else f"{suite}/{operation}",
                "n": math.nan if n is None else n, "series": filter_name}
    values = entry.values
    keys, capacity = values.get("keys"), values.get("capacity")
    series = compare.label_of({**values, "keys": None, "capacity": None if capacity == keys else capacity},
                              entry.record)
    return {"filter": str(values.get("filter")), "operation": timing,
            "n": keys if compare.is_number(keys) else math.nan, "series": series}


def spread(entry: compare.Entry, timing: str) -> tuple[float, float, float] | None:
    """Median, min and max of a timing: the record's _min and _max, else its samples."""
    median, samples = entry.timings[timing]
    if not compare.is_number(median) or median <= 0:
        return None
    low, high = entry.values.get(f"{timing}_min"), entry.values.get(f"{timing}_max")
    if not (compare.is_number(low) and compare.is_number(high)):
        low, high = (min(samples), max(samples)) if samples else (median, median)
    return float(median), float(low), float(high)


@dataclass
class Pairing:
    """Side b against side a: the keys they share and one row per timing both measured."""
    a: Side
    b: Side
    cells: int  # filter cells and benchmarks both sides have
    machine_points: int  # amqbench machine points both have: drawn, not divided (no filter)
    points: pd.DataFrame  # filter, operation, n, series, key, a_ns, a_min, a_max, b_ns, b_min, b_max, ratio


POINT_COLUMNS = ["filter", "operation", "n", "series", "key", "a_ns", "a_min", "a_max",
                 "b_ns", "b_min", "b_max", "ratio"]


def pair(a: Side, b: Side) -> Pairing:
    common = sorted(a.entries.keys() & b.entries.keys(), key=lambda k: tuple(map(str, k)))
    if not common:
        raise compare.BadInput(f"sides {a.name} and {b.name} have no cell in common (suite cells match"
                               " on cell_id, Google Benchmark entries on their name)")
    rows, machine_points = [], 0
    for key in common:
        pairs, _, _ = compare.pair_up(a.entries[key], b.entries[key])
        if pairs and pairs[0][0].record == "machine":
            machine_points += 1
            continue
        for ea, eb in pairs:
            for timing in sorted(ea.timings.keys() & eb.timings.keys()):
                sa, sb = spread(ea, timing), spread(eb, timing)
                if sa and sb:
                    rows.append([*describe(ea, timing).values(), f"{ea.experiment}:{key}", *sa, *sb,
                                 sb[0] / sa[0]])
    return Pairing(a, b, len(common) - machine_points, machine_points, pd.DataFrame(rows, columns=POINT_COLUMNS))


def ratio_table(pairing: Pairing) -> pd.DataFrame:
    """Per filter and operation: matched cells, both sides' median ns and the median ratio."""
    grouped = pairing.points.groupby(["filter", "operation"], sort=True)
    return grouped.agg(cells=("ratio", "size"), a_ns=("a_ns", "median"), b_ns=("b_ns", "median"),
                       ratio=("ratio", "median"), ratio_min=("ratio", "min"),
                       ratio_max=("ratio", "max")).reset_index()


@dataclass
class Summary:
    rows: int
    timings: int
    median: float
    faster: int
    slower: int

    def sentence(self, a: str, b: str) -> str:
        if not self.rows:
            return f"{b} and {a} share no timing: nothing to divide."
        within = self.rows - self.faster - self.slower
        return (f"{b} / {a}: the median ratio over {self.rows} filter-and-operation rows ({self.timings}"
                f" matched timings) is {self.median:.2f}; {b} takes more than {THRESHOLD:.0%} less time"
                f" (ratio below {1 - THRESHOLD:.2f}) in {self.faster}, more than {THRESHOLD:.0%} more"
                f" (above {1 + THRESHOLD:.2f}) in {self.slower}, and is within {THRESHOLD:.0%} in {within}.")


def summarize(pairing: Pairing, table: pd.DataFrame | None = None) -> Summary:
    table = ratio_table(pairing) if table is None else table
    ratios = list(table["ratio"])
    return Summary(len(ratios), len(pairing.points), statistics.median(ratios) if ratios else math.nan,
                   sum(r < 1 - THRESHOLD for r in ratios), sum(r > 1 + THRESHOLD for r in ratios))


def ratio_markdown(pairing: Pairing, table: pd.DataFrame) -> str:
    a, b = pairing.a.name, pairing.b.name
    several = (table["cells"] > 1).any()
    header = ["filter", "operation", *(["cells"] if several else []), f"{a}, ns", f"{b}, ns", f"{b} / {a}"]
    rows = []
    for r in table.itertuples(index=False):
        ratio = f"{r.ratio:.2f}" + (f" [{r.ratio_min:.2f}–{r.ratio_max:.2f}]" if r.cells > 1 else "")
        rows.append([r.filter, r.operation, *([str(r.cells)] if several else []),
                     f"{r.a_ns:.3g}", f"{r.b_ns:.3g}", ratio])
    return report_format.table(header, rows)


# --- the contexts -----------------------------------------------------------------------------

def size_text(size) -> str:
    if not compare.is_number(size):
        return "?"
    for unit, scale in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if size >= scale:
            return f"{size / scale:g} {unit}"
    return f"{size:g} B"


def levels_text(levels) -> str:
    """Latency plateaus (amqbench machine's cache_levels, or a context's machine.levels)."""
    parts = []
    for level in levels or []:
        name = "memory" if level.get("memory") else f"L{level.get('level')}"
        upto = f" to {size_text(level['capacity_bytes'])}" if level.get("capacity_bytes") else ""
        parts.append(f"{name} {level.get('ns_per_load', math.nan):.3g} ns{upto}")
    return ", ".join(parts)


def measured_levels(result: load.ResultFile) -> str:
    for record in result.records:
        if record.get("record") == "machine" and record.get("test") == "cache_levels":
            return levels_text(record.get("levels"))
    return levels_text((result.context.get("machine") or {}).get("levels"))


def _flag(value) -> str:
    return "" if value is None else ("on" if value is True else "off" if value is False else str(value))


CONTEXT_ROWS = (
    ("host", lambda r: r.context.get("host_name")),
    ("CPU", lambda r: compare.machine_of(r)[1]),
    ("cores", lambda r: r.context.get("cores", r.context.get("num_cpus"))),
    ("caches", lambda r: report_format.caches(r.context)),
    ("latency plateaus (amqbench machine)", measured_levels),
    ("kernel", lambda r: r.context.get("kernel")),
    ("compiler", lambda r: r.context.get("compiler")),
    ("flags", lambda r: (r.context.get("compiler_flags") or "").strip() and f"`{r.context['compiler_flags'].strip()}`"),
    ("build type", lambda r: r.context.get("build_type")),
    ("-march=native", lambda r: _flag(r.context.get("march_native"))),
    ("commit", lambda r: r.context.get("git_commit") and (
        f"`{str(r.context['git_commit'])[:12]}`" + (" (dirty)" if r.context.get("git_dirty") else ""))),
    ("executable", lambda r: r.context.get("executable") and f"`{r.context['executable']}`"),
    ("started", lambda r: r.context.get("time_utc", r.context.get("date"))),
    ("files", lambda r: f"`{r.path.name}`"),
)


def context_markdown(sides: list[Side]) -> str:
    """The sides' contexts side by side; a side whose files disagree lists each value."""
    rows = []
    for label, read in CONTEXT_ROWS:
        cells = []
        for side in sides:
            values = list(dict.fromkeys(str(v) for v in (read(r) for r in side.results) if v not in (None, "")))
            cells.append("; ".join(values) if values else "not recorded")
        if label != "latency plateaus (amqbench machine)" or any(c != "not recorded" for c in cells):
            rows.append([label, *cells])
    return report_format.table(["", *(s.name for s in sides)], rows)


# --- charts -----------------------------------------------------------------------------------

def side_points(pairings: list[Pairing]) -> pd.DataFrame:
    """Every side's matched timings as one long frame (side A's once, over all pairings)."""
    parts = []
    for pairing in pairings:
        for side, prefix in ((pairing.a, "a"), (pairing.b, "b")):
            part = pairing.points[["filter", "operation", "n", "series", "key",
                                   f"{prefix}_ns", f"{prefix}_min", f"{prefix}_max"]]
            parts.append(part.set_axis(["filter", "operation", "n", "series", "key", "ns", "ns_min", "ns_max"],
                                       axis=1).assign(side=side.name))
    points = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()
    return points.drop_duplicates(["side", "key", "operation"]) if not points.empty else points


def png(fig, title: str) -> bytes:
    fig.suptitle(title, fontsize=11)
    fig.tight_layout()
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=100)
    plt.close(fig)
    return buffer.getvalue()


def plain_log_ticks(axis) -> None:
    """Log-axis labels as plain numbers, the minor ones at 2 and 5 only (they crowd otherwise)."""
    axis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: f"{v:g}"))
    axis.set_minor_formatter(matplotlib.ticker.FuncFormatter(
        lambda v, _: f"{v:g}" if v > 0 and round(v / 10 ** math.floor(math.log10(v)), 6) in (2, 5) else ""))
    axis.set_tick_params(which="both", labelsize=7)


def panel_grid(count: int, width: float, height: float):
    columns = min(4, count)
    rows = math.ceil(count / columns)
    fig, axes = plt.subplots(rows, columns, figsize=(width * columns, height * rows), squeeze=False)
    for ax in axes.flat[count:]:
        ax.set_visible(False)
    return fig, list(axes.flat[:count])


def speed_chart(points: pd.DataFrame, sides: list[str], title: str) -> bytes | None:
    """ns per key per filter, a panel per operation, each side's median with min–max bars."""
    if points.empty:
        return None
    operations = list(dict.fromkeys(points.sort_values("operation")["operation"]))
    most = max(points.groupby("operation")["filter"].nunique())
    fig, axes = panel_grid(len(operations), 4.6, 0.28 * most + 1.6)
    for ax, operation in zip(axes, operations):
        part = points[points["operation"] == operation]
        filters = sorted(part["filter"].unique())
        y = {name: i for i, name in enumerate(filters)}
        for s, side in enumerate(sides):
            rows = part[part["side"] == side].groupby("filter").agg(
                ns=("ns", "median"), low=("ns_min", "min"), high=("ns_max", "max"))
            if rows.empty:
                continue
            offset = (s - (len(sides) - 1) / 2) * 0.7 / len(sides)
            ax.errorbar(rows["ns"], [y[f] + offset for f in rows.index],
                        xerr=[rows["ns"] - rows["low"], rows["high"] - rows["ns"]], fmt=SIDE_MARKERS[s % 5],
                        ms=4, capsize=2, color=SIDE_COLOURS[s % 10], label=side)
        ax.set_yticks(range(len(filters)), filters, fontsize=7)
        ax.set_ylim(len(filters) - 0.5, -0.5)
        ax.set_xscale("log")
        plain_log_ticks(ax.xaxis)
        ax.set_xlabel("ns per key", fontsize=8)
        ax.set_title(operation, fontsize=9)
        ax.grid(True, axis="x", which="both", alpha=0.3)
    axes[0].legend(fontsize=7)
    return png(fig, title + " — median, bars min–max over repeats (and cells)")


def n_chart(points: pd.DataFrame, sides: list[str], title: str) -> bytes | None:
    """ns per key against n, a panel per operation: colour per series, line style per side."""
    if points.empty:
        return None
    measured = points.dropna(subset=["n"])
    several = measured.groupby(["operation", "series"])["n"].transform("nunique") > 1
    measured = measured[several]
    if measured.empty:
        return None
    operations = sorted(measured["operation"].unique())
    fig, axes = panel_grid(len(operations), 5.0, 4.0)
    names = sorted(measured["series"].unique())
    colours = plt.get_cmap("tab10" if len(names) <= 10 else "tab20").colors
    series_colour = {name: colours[i % len(colours)] for i, name in enumerate(names)}
    for ax, operation in zip(axes, operations):
        part = measured[measured["operation"] == operation]
        for (series, side), rows in part.groupby(["series", "side"]):
            rows = rows.groupby("n")["ns"].median()
            s = sides.index(side)
            ax.plot(rows.index, rows.values, SIDE_STYLES[s % 4], marker=SIDE_MARKERS[s % 5], ms=4,
                    color=series_colour[series], label=f"{series} ({side})")
        ax.set_xscale("log")
        ax.set_yscale("log")
        plain_log_ticks(ax.yaxis)
        ax.set_xlabel("n (keys)", fontsize=8)
        ax.set_ylabel("ns per key (median)", fontsize=8)
        ax.set_title(operation, fontsize=9)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=6)
    return png(fig, title + " — against n")


MACHINE_PANELS = (("latency", "ns_per_load", 1.0, "ns per dependent load"),
                  ("random_lines", "lines_per_second", 1.0, "random lines per second"),
                  ("sequential", "bytes_per_second", 1e-9, "sequential GB/s"))


def machine_chart(sides: list[Side], title: str) -> bytes | None:
    """amqbench machine's three curves, every side that measured them on the same axes."""
    frames = {}
    for side in sides:
        parts = [r.frame[r.frame["record"] == "machine"] for r in side.results
                 if r.format == "v2" and "test" in r.frame]
        parts = [p for p in parts if not p.empty]
        if parts:
            frames[side.name] = pd.concat(parts, ignore_index=True)
    if not frames:
        return None
    fig, axes = plt.subplots(1, 3, figsize=(15, 4.2))
    names = [s.name for s in sides]
    for ax, (test, column, scale, label) in zip(axes, MACHINE_PANELS):
        for name, frame in frames.items():
            rows = frame[frame["test"] == test]
            if rows.empty or column not in rows:
                continue
            rows = rows.groupby("working_set_bytes").agg(
                y=(column, "median"), low=(f"{column}_min", "min"), high=(f"{column}_max", "max"))
            s = names.index(name)
            ax.plot(rows.index, rows["y"] * scale, SIDE_STYLES[s % 4], marker=SIDE_MARKERS[s % 5], ms=3,
                    color=SIDE_COLOURS[s % 10], label=name)
            ax.fill_between(rows.index, rows["low"] * scale, rows["high"] * scale,
                            color=SIDE_COLOURS[s % 10], alpha=0.2)
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        plain_log_ticks(ax.yaxis)
        ax.xaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: size_text(v)))
        ax.tick_params(axis="x", labelsize=7, labelrotation=45)
        ax.set_xlabel("working set", fontsize=8)
        ax.set_ylabel(label, fontsize=8)
        ax.set_title(test, fontsize=9)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7)
    return png(fig, title + " — amqbench machine, median and min–max")


# --- writing ----------------------------------------------------------------------------------

def write_atomic(path: Path, data: bytes) -> Path:
    """data to a temporary file beside path, then renamed over it: a reader sees the old file or
    the new one, never half of one."""
    handle = tempfile.NamedTemporaryFile(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp", delete=False)
    try:
        with handle:
            handle.write(data)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(handle.name, 0o666 & ~umask)  # as open() would have made it
        os.replace(handle.name, path)
    except BaseException:
        Path(handle.name).unlink(missing_ok=True)
        raise
    return path


def write_png(data: bytes | None, path: Path) -> Path | None:
    return None if data is None else write_atomic(path, data)


@dataclass
class Comparison:
    sides: list[Side]
    pairings: list[Pairing]

    @property
    def relation(self) -> str:
        return relation(self.sides)

    @property
    def names(self) -> list[str]:
        return [s.name for s in self.sides]

    def title(self) -> str:
        return f"{self.relation[0].upper()}{self.relation[1:]}: " + " vs ".join(self.names)

    def charts(self) -> dict[str, bytes | None]:
        points = side_points(self.pairings)
        return {"speed": speed_chart(points, self.names, self.title()),
                "n": n_chart(points, self.names, self.title()),
                "machine": machine_chart(self.sides, self.title())}


def compare_sides(sides: list[Side]) -> Comparison:
    return Comparison(sides, [pair(sides[0], other) for other in sides[1:]])


CHART_CAPTIONS = {
    "speed": ("speed per filter", "no timing is in common"),
    "n": ("ns per key against n", "no filter's matched cells span several n"),
    "machine": ("the machine curves", "no side has amqbench machine records"),
}


def markdown(comparison: Comparison, command: str, charts: dict[str, bytes | None]) -> str:
    lines = [f"# {comparison.title()}", "", f"Made by `{command}`.", ""]
    for side in comparison.sides:
        formats = sorted({r.format for r in side.results})
        lines.append(f"- {side.name}: {len(side.results)} file{'s' if len(side.results) != 1 else ''}"
                     f" ({', '.join(formats)})")
    lines += ["", f"Told apart by their contexts: {comparison.relation} (the machine: host name and CPU;"
              f" the build: {', '.join(BUILD_FIELDS)}).", "", "## The sides", "",
              context_markdown(comparison.sides)]
    for pairing in comparison.pairings:
        table = ratio_table(pairing)
        a, b = pairing.a.name, pairing.b.name
        machine = (f" and {pairing.machine_points} amqbench machine points (drawn below; they have no"
                   " filter, so they are not divided)" if pairing.machine_points else "")
        lines += ["", f"## {b} / {a}", "",
                  f"{pairing.cells} cells in common{machine}. " + summarize(pairing, table).sentence(a, b)
                  + " Each row: the median over its matched cells of the cell's ratio of medians (ns per"
                  " key; Google Benchmark entries without ns_per_key: ns per iteration).", ""]
        if not table.empty:
            lines.append(ratio_markdown(pairing, table))
    lines += ["", "## Charts", ""]
    for name, (caption, missing) in CHART_CAPTIONS.items():
        lines += [f"![{caption}](hosts_{name}.png)" if charts[name] else f"- No chart of {caption}: {missing}.", ""]
    return "\n".join(lines).rstrip("\n") + "\n"


# --- the command ------------------------------------------------------------------------------

def parse_labels(values: list[str], option: str = "--label", least: int = 2) -> list[tuple[str, list[Path]]]:
    """NAME=PATH pairs by side, in the order the names first come. A NAME may hold "=" itself
    (-march=native=micro_native.json): the split is at the last "=" an existing path follows.
    `option` names the flag in messages; fewer than `least` sides is bad input (plots/fleet.py's
    --host takes one)."""
    sides: dict[str, list[Path]] = {}
    for value in values:
        splits = [i for i, c in enumerate(value) if c == "=" and 0 < i < len(value) - 1]
        if not splits:
            raise compare.BadInput(f"{option} {value!r}: expected NAME=PATH")
        at = next((i for i in reversed(splits) if Path(value[i + 1:]).exists()), None)
        if at is None:
            raise compare.BadInput(f"{option} {value!r}: no file or directory of that name follows an '='")
        sides.setdefault(value[:at], []).append(Path(value[at + 1:]))
    if len(sides) < least:
        raise compare.BadInput(f"{len(sides)} side{'s' if len(sides) != 1 else ''} given: two or more"
                               f" {option} NAME=PATH with different names are needed")
    return list(sides.items())


def main(argv: list[str] | None = None, out=None) -> int:
    out = out or sys.stdout
    argv = sys.argv[1:] if argv is None else argv
    parser = compare.OneLineParser(prog="hosts.py", description=__doc__.splitlines()[0])
    parser.add_argument("--label", action="append", default=[], metavar="NAME=PATH",
                        help="add PATH (a result file or directory) to side NAME; the first NAME is A")
    parser.add_argument("--out", type=Path, required=True, help="directory for hosts.md and the charts")
    parser.add_argument("--allow-incomplete", action="store_true", help="read files of interrupted runs too")
    parser.add_argument("--schema", type=Path, default=load.DEFAULT_SCHEMA,
                        help="JSON Schema of version 2 lines (default results/schema.json)")
    try:
        args = parser.parse_args(argv)
    except SystemExit as stop:
        return int(stop.code or 0)
    try:
        if args.out.exists() and not args.out.is_dir():
            raise compare.BadInput(f"--out {args.out}: not a directory")
        sides = [read_side(name, paths, args.schema, args.allow_incomplete)
                 for name, paths in parse_labels(args.label)]
        comparison = compare_sides(sides)
    except (compare.BadInput, OSError) as error:
        print(f"hosts.py: {error}", file=sys.stderr)
        return EXIT_BAD_INPUT
    charts = comparison.charts()
    text = markdown(comparison, "/usr/bin/python3 plots/hosts.py " + shlex.join(argv), charts)
    args.out.mkdir(parents=True, exist_ok=True)
    for name, data in charts.items():
        path = args.out / f"hosts_{name}.png"
        if write_png(data, path) is None:
            path.unlink(missing_ok=True)  # a chart of an earlier run that this one has no data for
    write_atomic(args.out / "hosts.md", text.encode("utf-8"))
    out.write(text)
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
