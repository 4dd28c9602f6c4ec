#!/usr/bin/python3
"""A fleet in one picture: the latest run of every host, each filter's lookups set against the
host's own random-line ceiling, and which host wins what.

    /usr/bin/python3 plots/fleet.py --out build/fleet                      # every host in results/history.sqlite
    /usr/bin/python3 plots/fleet.py --out build/fleet --suite default      # their latest runs of one suite
    /usr/bin/python3 plots/fleet.py --out build/fleet --host epyc=results --host xeon=xeon/results
    /usr/bin/python3 plots/fleet.py --out build/fleet --db results/history.sqlite --host vm=results

The hosts: the latest run of each host in the history store (history.latest_runs: latest by its
time_utc; --suite: of that suite, --quick or not), written back into files by
history.restore_run, and each --host NAME=PATH (a result directory or file, as plots/hosts.py's
--label takes; a directory's files of experiments its suite run skipped are left out, as history
record leaves them out). A --host replaces the store's run of a host of the same name. Without
--host the store is results/history.sqlite; with --host it is read only when --db is given. The
files are read and checked by load.py through compare.read_results, as hosts.py reads them.

What is set side by side, for each host, from its own files:
  1 thread   the micro-benchmark file with the filters at several n (the speed_vs_n experiment:
             Google Benchmark repetitions): keys per second (10^9 / ns per key), median and
             min–max over the repetitions, and for member and absent lookups the fraction of the
             host's random-line ceiling at the filter's size, as plots/sections/speed_vs_n.py
             computes it (the machine experiment's random_lines_default_pages, on the pages the
             filters' tables get, or random_lines where a file has only those; the locality
             experiment's traced lines per lookup). A host without them has "no ceiling".
  all cores  the threads experiment's shared filter at the host's largest T (the suite runs T up
             to its cores): member and absent lookups per second, median and min–max over the
             timed runs, against its random_lines_threads ceiling at that T. An experiment run
             with timed = false is not read: its speeds were taken beside another job.

Written to --out DIR (each file under a temporary name, then renamed; a chart of an earlier run
that this one has no data for is removed):
  fleet.md              the hosts, then for each filter, operation (member and absent lookups;
                        inserts where the file has them) and setting, at the smallest and largest
                        n at least two hosts measured: the fastest host (median keys per second
                        [min–max]) with its ratio to the runner-up, and the host closest to its
                        own ceiling with its ratio to the runner-up; "ranges overlap" where the
                        winner's min is not above the runner-up's max.
  fleet_1_thread.png    lookups per second and fraction of the own ceiling against n (log x), a
                        column per filter, a colour per host, member lookups solid, absent dashed
  fleet_all_cores.png   the same at all cores, where a host has threads records
The Markdown is printed too. With one host nothing is ranked. Exit status 0, or 2 on bad input (a
--host that is not NAME=PATH, an unreadable or foreign file, a directory without result files,
an unreadable store, no host at all): one line on stderr, nothing written.

The report's fleet section (plots/sections/fleet.py) is the same for the report's results and
the latest run of every other host in <results>/history.sqlite; it shows only with two hosts.
"""

from __future__ import annotations

import shlex
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import matplotlib  # noqa: E402

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402

import charts  # noqa: E402
import compare  # noqa: E402
import history  # noqa: E402
import hosts  # noqa: E402
import load  # noqa: E402
import report_format  # noqa: E402
from result_set import Experiment, ResultSet, Suite  # noqa: E402
from sections import common, machine, speed_vs_n, threads  # noqa: E402

EXIT_OK, EXIT_BAD_INPUT = 0, 2
ONE_THREAD, ALL_CORES = "1 thread", "all cores"
SETTINGS = {ONE_THREAD: "1_thread", ALL_CORES: "all_cores"}  # setting -> the chart's file name part
OPERATIONS = {"query_present": "member lookups", "query_absent": "absent lookups", "insert": "inserts"}
LOOKUP_STYLES = {"query_present": "-", "query_absent": "--"}
POINT_COLUMNS = ["host", "setting", "threads", "filter", "operation", "n", "ops", "ops_min", "ops_max",
                 "fraction", "fraction_min", "fraction_max"]


# --- the hosts --------------------------------------------------------------------------------

@dataclass
class Host:
    name: str
    origin: str  # where its files come from: a history run or a directory
    results: ResultSet

    def context(self, field: str):
        values = [self.results.file(e.id).context.get(field) for e in self.results.experiments()]
        return next((v for v in values if v not in (None, "")), None)


def suite_of(files: list, name: str) -> Suite:
    """A suite made from the files themselves (a history run or a directory has no suite file at
    hand): a version 2 file's header names its experiment; a Google Benchmark file is a micro
    experiment named by its file, at its context's n list."""
    experiments = []
    for result in files:
        if result.format == "v2":
            e = result.experiment
            experiment_id = e.get("id") or result.path.stem
            experiments.append(Experiment(experiment_id, e.get("kind", ""), e.get("title", experiment_id),
                                          e.get("section", experiment_id)))
        else:
            keys = str(result.context.get("keys", "")).split(",")
            experiments.append(Experiment(result.path.stem, "micro", result.path.stem, result.path.stem,
                                          keys=tuple(int(k) for k in keys if k.isdigit())))
    return Suite(name, Path(name), experiments)


def loaded_results(files: list, name: str, directory: Path, schema: Path | None) -> ResultSet:
    """A ResultSet over files already read: what the report's sections read, so their ceiling
    functions serve every host."""
    suite = suite_of(files, name)
    by_id = {e.id: result for e, result in zip(suite.experiments, files)}
    return ResultSet(suite, directory, directory, schema, _files=by_id)


def host_of_paths(name: str, paths: list[Path], schema: Path) -> Host:
    files = []
    for path in paths:
        skipped = history.skipped_files(path) if path.is_dir() else set()
        files += [r for r in compare.read_results(path, schema) if r.path.name not in skipped]
    if not files:
        raise compare.BadInput(f"--host {name}: no result files in {', '.join(map(str, paths))}")
    return Host(name, ", ".join(f"`{p}`" for p in paths), loaded_results(files, name, paths[0], schema))


def hosts_of_store(db: Path, suite: str | None, schema: Path, timeout: float, leave_out=()) -> list[Host]:
    """The latest run of every host in the store but those in leave_out, read from its files
    written back into a temporary directory."""
    found = []
    for run in history.latest_runs(db, suite, timeout):
        if run["host_name"] in leave_out:
            continue
        with tempfile.TemporaryDirectory(prefix="fleet.") as tmp:
            history.restore_run(db, run["id"], Path(tmp), timeout)
            files = compare.read_results(Path(tmp), schema)
        origin = (f"history run {run['id']} (commit `{run['git_commit'][:10]}`{' dirty' if run['git_dirty'] else ''},"
                  f" suite {run['suite_name']}{' --quick' if run['suite_quick'] else ''}, {run['time_utc']})")
        found.append(Host(run["host_name"], origin, loaded_results(files, run["host_name"], db.parent, schema)))
    return found


# --- each host's speeds -----------------------------------------------------------------------

def no_ceiling(results: ResultSet, lines_at: str = "random_lines") -> str:
    """Why a host has no ceiling fraction, or "" when it has what one needs."""
    if lines_at == "random_lines" and machine.ceilings(results).empty:
        return "no ceiling: no random_lines machine records"
    if speed_vs_n.traced_lines(results).empty:
        return "no ceiling: no traced cache lines per lookup (locality experiment)"
    return ""


def spread_of(values: pd.Series) -> tuple[float, float, float]:
    return float(values.median()), float(values.min()), float(values.max())


def one_thread_points(host: Host) -> tuple[pd.DataFrame, str]:
    """Keys per second by filter, operation and n from the host's micro file at several n, with
    the fraction of its ceiling for lookups; and what is missing, said."""
    results = host.results
    for experiment in results.experiments(kind="micro"):
        runs = charts.sized_runs(results.frame(experiment.id, record=None))
        if runs["n"].nunique() >= 2:
            break
    else:
        return pd.DataFrame(columns=POINT_COLUMNS), "no micro-benchmarks at several n"
    fractions = {(r["filter"], r["operation"], r["n"]): r["fraction"] for r in speed_vs_n.ceiling_rows(runs, results)}
    rows = []
    mine = runs[runs["operation"].isin(OPERATIONS)]
    for (name, operation, n), part in mine.groupby(["filter", "operation", "n"]):
        ns, ns_min, ns_max = spread_of(part["ns_per_key"])
        fraction = fractions.get((name, operation, n), float("nan"))
        # The ceiling is one number at the filter's size: the fraction spreads as the speed does.
        rows.append([host.name, ONE_THREAD, 1, name, operation, n, 1e9 / ns, 1e9 / ns_max, 1e9 / ns_min,
                     fraction, fraction * ns / ns_max, fraction * ns / ns_min])
    return pd.DataFrame(rows, columns=POINT_COLUMNS), "" if fractions else no_ceiling(results)


def all_cores_points(host: Host) -> tuple[pd.DataFrame, str]:
    """Member and absent lookups per second of the shared filter at the host's largest T, against
    its random-line rate at T threads."""
    results = host.results
    found = common.frames(results, results.experiments(kind="threads"))
    present = [(e, f) for e, f in found if results.file(e.id).experiment.get("timed") is not False]
    if not present:
        return pd.DataFrame(columns=POINT_COLUMNS), ("threads records only from timed = false runs" if found
                                                     else "no threads records")
    cells = pd.concat([f for _, f in present], ignore_index=True)
    cells["threads"] = pd.to_numeric(cells["threads"])
    top = int(cells["threads"].max())
    ceiling = threads.threaded_ceiling(results, top)
    traced = speed_vs_n.traced_lines(results)
    rows = []
    for cell in cells[(cells["layout"] == "shared") & (cells["threads"] == top)].to_dict("records"):
        for operation, mix in (("query_present", "member"), ("query_absent", "absent")):
            ops = float(cell[f"{mix}_ops_per_second"])
            low, high = (float(cell.get(f"{mix}_ops_per_second_{end}", ops)) for end in ("min", "max"))
            _, lines = speed_vs_n.lines_row(traced, cell["filter"]) if not traced.empty else (None, None)
            fraction = float("nan")
            if not ceiling.empty and lines is not None:
                fraction = ops * float(lines[f"cache_lines_{speed_vs_n.LOOKUPS[operation]}_mean"]) \
                    / machine.ceiling_at(ceiling, float(cell["size_bytes"]))
            rows.append([host.name, ALL_CORES, top, cell["filter"], operation, float(cell["keys"]), ops, low, high,
                         fraction, fraction * low / ops, fraction * high / ops])
    missing = ("" if rows and pd.Series([r[9] for r in rows]).notna().any()
               else f"no ceiling: no random_lines_threads at T = {top}" if ceiling.empty
               else no_ceiling(results, "random_lines_threads") or "no ceiling: no traced lines for these filters")
    return pd.DataFrame(rows, columns=POINT_COLUMNS), missing


@dataclass
class Fleet:
    hosts: list[Host]
    points: pd.DataFrame  # POINT_COLUMNS, every host and setting
    missing: dict  # (host, setting) -> what is missing, said

    @property
    def names(self) -> list[str]:
        return [h.name for h in self.hosts]


def gather(fleet_hosts: list[Host]) -> Fleet:
    parts, missing = [], {}
    for host in fleet_hosts:
        for setting, measure in ((ONE_THREAD, one_thread_points), (ALL_CORES, all_cores_points)):
            points, said = measure(host)
            parts.append(points)
            if said:
                missing[(host.name, setting)] = said
    parts = [p for p in parts if not p.empty]
    return Fleet(fleet_hosts, pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=POINT_COLUMNS),
                 missing)


# --- who wins ---------------------------------------------------------------------------------

def ranked(at: pd.DataFrame, column: str, text) -> tuple[str, str]:
    """The host with the largest median `column` and its ratio to the runner-up, as two cells."""
    at = at.dropna(subset=[column]).sort_values(column, ascending=False)
    if at.empty:
        return "–", "no host has a ceiling"
    first = at.iloc[0]
    if len(at) == 1:
        return f"{first['host']}: {text(first)}", f"only {first['host']} has a ceiling"
    second = at.iloc[1]
    overlap = " (ranges overlap)" if first[f"{column}_min"] <= second[f"{column}_max"] else ""
    return (f"{first['host']}: {text(first)}",
            f"{first[column] / second[column]:.2f}× {second['host']} ({text(second)}){overlap}")


def speed_text(row) -> str:
    return f"{row['ops']:.3g} [{row['ops_min']:.3g}–{row['ops_max']:.3g}]"


def fraction_text(row) -> str:
    return f"{100 * row['fraction']:.0f}% [{100 * row['fraction_min']:.0f}–{100 * row['fraction_max']:.0f}%]"


def winners(points: pd.DataFrame) -> pd.DataFrame:
    """A row per setting, filter, operation and n (the smallest and the largest n two or more
    hosts measured): fastest host, ratio to the runner-up, closest to its own ceiling, ratio."""
    rows = []
    order = list(OPERATIONS)
    for (setting, name, operation), part in points.groupby(["setting", "filter", "operation"], sort=False):
        shared = sorted(n for n, count in part.groupby("n")["host"].nunique().items() if count >= 2)
        for n in dict.fromkeys([shared[0], shared[-1]] if shared else []):
            at = part[part["n"] == n]
            fastest, over = ranked(at, "ops", speed_text)
            closest, closer = (ranked(at, "fraction", fraction_text) if operation in LOOKUP_STYLES
                               else ("–", "inserts read no ceiling"))
            rows.append({"setting": setting, "filter": name, "operation": operation, "n": n,
                         "winner": at.loc[at["ops"].idxmax(), "host"], "fastest": fastest, "over": over,
                         "closest": closest, "closer": closer, "order": order.index(operation)})
    frame = pd.DataFrame(rows)
    if frame.empty:
        return frame
    return frame.sort_values(["setting", "filter", "order", "n"]).reset_index(drop=True)


def winners_table(table: pd.DataFrame) -> str:
    rows = [[r.setting, r.filter, OPERATIONS[r.operation], speed_vs_n.n_label(r.n), r.fastest, r.over, r.closest,
             r.closer] for r in table.itertuples(index=False)]
    return report_format.table(["setting", "filter", "operation", "n", "fastest, keys/s median [min–max]",
                                "over the runner-up", "closest to its own ceiling", "over the runner-up"], rows)


def tally(table: pd.DataFrame, names: list[str]) -> str:
    """How many rows each host wins at the largest n, as a sentence."""
    largest = table[table["n"] == table.groupby(["setting", "filter", "operation"])["n"].transform("max")]
    counts = largest["winner"].value_counts()
    won = ", ".join(f"{name} {int(counts.get(name, 0))}" for name in names)
    return (f"Fastest at the largest n two or more hosts measured, rows won out of {len(largest)}: {won}."
            " A ratio is of medians; where the winner's slowest repeat is no faster than the runner-up's"
            " fastest the row says the ranges overlap, and the order may not hold on another run.")


# --- charts -----------------------------------------------------------------------------------

def fleet_chart(points: pd.DataFrame, names: list[str], setting: str, title: str, missing: dict) -> bytes | None:
    """Lookups per second (top) and the fraction of the host's own ceiling (bottom) against n, a
    column per filter: a colour per host, member lookups solid, absent dashed, min–max shaded."""
    mine = points[(points["setting"] == setting) & points["operation"].isin(LOOKUP_STYLES)]
    if mine.empty:
        return None
    filters = sorted(mine["filter"].unique())
    fig, axes = plt.subplots(2, len(filters), figsize=(3.2 * len(filters) + 1.5, 6.6), squeeze=False)
    for column, name in enumerate(filters):
        top, bottom = axes[0][column], axes[1][column]
        for h, host in enumerate(names):
            colour = hosts.SIDE_COLOURS[h % len(hosts.SIDE_COLOURS)]
            for operation, style in LOOKUP_STYLES.items():
                rows = mine[(mine["host"] == host) & (mine["filter"] == name) & (mine["operation"] == operation)]
                rows = rows.sort_values("n")
                if rows.empty:
                    continue
                top.plot(rows["n"], rows["ops"], style, marker=hosts.SIDE_MARKERS[h % 5], ms=3, color=colour)
                top.fill_between(rows["n"], rows["ops_min"], rows["ops_max"], color=colour, alpha=0.15)
                known = rows.dropna(subset=["fraction"])
                if not known.empty:
                    bottom.plot(known["n"], 100 * known["fraction"], style, marker=hosts.SIDE_MARKERS[h % 5], ms=3,
                                color=colour)
                    bottom.fill_between(known["n"], 100 * known["fraction_min"], 100 * known["fraction_max"],
                                        color=colour, alpha=0.15)
        top.set_title(name, fontsize=9)
        top.set_yscale("log")
        hosts.plain_log_ticks(top.yaxis)
        bottom.axhline(100, color="grey", lw=0.8, ls=":")
        bottom.set_ylim(bottom=0)
        for ax in (top, bottom):
            ax.set_xscale("log", base=2)
            ax.xaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: speed_vs_n.n_label(v)))
            ax.tick_params(labelsize=7)
            ax.grid(True, which="both", alpha=0.3)
        bottom.set_xlabel("n (keys)", fontsize=8)
    axes[0][0].set_ylabel("lookups per second", fontsize=8)
    axes[1][0].set_ylabel("% of the host's own ceiling", fontsize=8)
    handles = [Line2D([], [], color=hosts.SIDE_COLOURS[h % len(hosts.SIDE_COLOURS)], marker=hosts.SIDE_MARKERS[h % 5],
                      label=host + (f" ({missing[(host, setting)]})" if (host, setting) in missing else ""))
               for h, host in enumerate(names)]
    handles += [Line2D([], [], color="black", ls=style, label=OPERATIONS[operation])
                for operation, style in LOOKUP_STYLES.items()]
    axes[0][0].legend(handles=handles, loc="lower left", fontsize=6)
    threads_at = mine.groupby("host")["threads"].max()
    at = "" if setting == ONE_THREAD else " (" + ", ".join(f"{h} T={int(t)}" for h, t in threads_at.items()) + ")"
    return hosts.png(fig, f"{title}: {setting}{at} — median, shaded min–max")


# --- the text ---------------------------------------------------------------------------------

def hosts_table(fleet: Fleet) -> str:
    rows = []
    for host in fleet.hosts:
        cells = [host.name, str(host.context("cpu_model") or "not recorded"), str(host.context("cores") or "?")]
        for setting in SETTINGS:
            part = fleet.points[(fleet.points["host"] == host.name) & (fleet.points["setting"] == setting)]
            said = fleet.missing.get((host.name, setting), "")
            if part.empty:
                cells.append(said or "none")
                continue
            what = (f"n {speed_vs_n.n_label(part['n'].min())} to {speed_vs_n.n_label(part['n'].max())}"
                    + ("" if setting == ONE_THREAD else f", T = {int(part['threads'].max())}"))
            cells.append(what + (f"; {said}" if said else "; own ceiling"))
        rows.append([*cells, host.origin])
    return report_format.table(["host", "CPU", "cores", ONE_THREAD, ALL_CORES, "from"], rows)


def markdown(fleet: Fleet, command: str, images: dict) -> list[str]:
    """The fleet's text: the hosts, the charts (`images`: setting -> Markdown image or ""), the
    winners. Shared by fleet.md and the report's section."""
    count = len(fleet.hosts)
    lines = [f"Made by `{command}`. {count} host{'s' if count != 1 else ''} (each one's run: the last column); every"
             " speed is set against that host's own random-line ceiling (the rate of independent random"
             " cache-line reads its machine experiment measured at a working set of the filter's size, times"
             " the cache lines a lookup touches as its locality experiment traced them), so a host with a"
             " faster memory system is not credited for it.", "", hosts_table(fleet), ""]
    for setting, image in images.items():
        lines += [image if image else f"- No chart at {setting}: no host has lookups measured"
                  + (" at several n." if setting == ONE_THREAD else " on several threads."), ""]
    if count < 2:
        return lines + ["One host: nothing to rank."]
    table = winners(fleet.points)
    if table.empty:
        return lines + ["No filter was measured at one n by two hosts: nothing to rank."]
    return lines + [tally(table, fleet.names), "", winners_table(table)]


def title(fleet: Fleet) -> str:
    return "A fleet of " + ", ".join(fleet.names)


# --- the command ------------------------------------------------------------------------------

def main(argv: list[str] | None = None, out=None) -> int:
    out = out or sys.stdout
    argv = sys.argv[1:] if argv is None else argv
    parser = compare.OneLineParser(prog="fleet.py", description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True, metavar="DIR", help="directory for fleet.md and the charts")
    parser.add_argument("--db", type=Path, help="the history store (default results/history.sqlite without --host)")
    parser.add_argument("--suite", help="the store's latest run of this suite per host (default: of any suite)")
    parser.add_argument("--host", action="append", default=[], metavar="NAME=PATH",
                        help="a host's result directory or file (repeatable; a NAME given twice takes both)")
    parser.add_argument("--timeout", type=float, default=history.DEFAULT_TIMEOUT,
                        help="seconds to wait for a store another process holds (default 2)")
    parser.add_argument("--schema", type=Path, default=load.DEFAULT_SCHEMA,
                        help="JSON Schema of version 2 lines (default results/schema.json)")
    try:
        args = parser.parse_args(argv)
    except SystemExit as stop:
        return int(stop.code or 0)
    try:
        if args.out.exists() and not args.out.is_dir():
            raise compare.BadInput(f"--out {args.out}: not a directory")
        given = [host_of_paths(name, paths, args.schema)
                 for name, paths in hosts.parse_labels(args.host, "--host", least=0)]
        db = args.db if args.db is not None else None if given else history.DEFAULT_DB
        stored = [] if db is None else hosts_of_store(db, args.suite, args.schema, args.timeout,
                                                      {h.name for h in given})
        fleet_hosts = stored + given
        if not fleet_hosts:
            raise compare.BadInput(f"{db}: no run" + (f" of suite {args.suite}" if args.suite else "")
                                   + " recorded, and no --host given")
        fleet = gather(fleet_hosts)
    except (compare.BadInput, history.HistoryError, OSError) as error:
        print(f"fleet.py: {error}", file=sys.stderr)
        return EXIT_BAD_INPUT
    heading = title(fleet)
    pngs = {setting: fleet_chart(fleet.points, fleet.names, setting, heading, fleet.missing) for setting in SETTINGS}
    images = {setting: f"![{heading}: {setting}](fleet_{SETTINGS[setting]}.png)" if data else ""
              for setting, data in pngs.items()}
    text = "\n".join([f"# {heading}", "", *markdown(fleet, "/usr/bin/python3 plots/fleet.py " + shlex.join(argv),
                                                     images)]) + "\n"
    args.out.mkdir(parents=True, exist_ok=True)
    for setting, data in pngs.items():
        path = args.out / f"fleet_{SETTINGS[setting]}.png"
        if hosts.write_png(data, path) is None:
            path.unlink(missing_ok=True)  # a chart of an earlier run that this one has no data for
    hosts.write_atomic(args.out / "fleet.md", text.encode("utf-8"))
    out.write(text)
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
