#!/usr/bin/python3
"""The results history: every suite run in one SQLite file, and its metrics drawn over commits.

    /usr/bin/python3 plots/history.py record results/        # a finished suite run (run_all.sh does this)
    /usr/bin/python3 plots/history.py list                   # the runs recorded, with compare's verdicts
    /usr/bin/python3 plots/history.py plot --metric bits_per_key --experiment space --out build/history
    /usr/bin/python3 plots/history.py steps [--metric query_ns_negative] [--experiment X] [--host H]

record reads the run's result files with load.py (a directory is read as compare reads one:
every *.jsonl and *.json but suite_run.json and schema.json, and but the files of experiments
its suite_run.json says were skipped, an earlier run's) and stores the run, keyed by commit,
host, time and suite, in results/history.sqlite (--db). Its schema version 2 files say the run:
they must agree on commit, host, build and suite (time_utc: the earliest of them, as a resumed
run's files may keep the first start); Google Benchmark files must come from the same host.
Recording a run already stored (same commit, host, time_utc and suite) writes nothing. When the
store holds an earlier run of the same suite (name and --quick) on the same host, the new run is
compared with the latest such one by compare.py's own functions, at compare's default settings,
and the verdict is stored with the run: regression (compare's exit status 1), the count of cells
with something worse, and compare's summary line.

plot draws one PNG per host: the metric (a record field, results/README.md; a nested one as
workload.n) of the cells of the selected experiments over the host's runs in recorded order,
one line per filter (per cell where an experiment has several cells of one filter, labelled
with its parameters as compare labels cells), and a red dashed line at each run where compare
found a regression. Trial and window lines are stored but not drawn (their cell line holds the
summary). A timing's chart also marks each step `steps` finds in a line: a dotted line in the
line's colour just before the step's first run, labelled with the step's ratio.

steps finds where a timing's level moved over one host's runs, in the spirit of asv's regression
detection, and lists each step: host, cell, metric, the first run at the new level and the
commits of the runs either side of the step (commit_before..commit_after, + for uncommitted
changes), the levels before and after (medians of the runs between steps), their ratio, the
spread it was judged against and the runs on each side. A series is one cell's timing field
(results/schema.json's timing fields; a benchmark's ns_per_key or real_time_ns) on one host, its
runs in recorded order (--suite, --experiment, --filter narrow them); a run's own spread is half
the log range of its record's min and max (history_spread; a benchmark records none). find_steps:
  1. works on log time, so a step is a ratio and noise is relative;
  2. fits levels: the piecewise-constant fit minimising the absolute deviations from each level's
     median plus a penalty per level (2 x noise x ln(runs); noise the larger of the runs' median
     own spread and the scatter of successive runs), each level at least 3 runs long, found
     exactly by dynamic programming; absolute deviations, so one wild run cannot pull a level;
  3. judges each boundary with the two levels beside it: the spread there is the largest of the
     runs' own spread (within-run), the scatter of those runs around their levels (between-run,
     from the median absolute deviation) and the series' successive-run scatter. The move must be
     at least 10% (MIN_EFFECT), at least one spread, and at least 3 standard errors of the
     difference of the two medians; at most 15% of each side's runs may sit beyond the midpoint
     between the levels (a cluster of slow runs makes a level whose runs straddle it). The weakest
     failing boundary is removed, its two levels merge, and the rest are judged again.
On seeded series without a step whose run-to-run noise is the recorded spread (test_history.py),
at most 2 of 500 show a false step; with one run in ten 1.2-1.8x slower at random, 9 of 500
30-run series do (three slow runs in a row make a 3-run level). A flagged step is a lead, not a
verdict: confirm it with `amqbench ab` of the two commits' builds on one machine.

latest_runs and restore_run (functions, no subcommand) give plots/fleet.py the latest run of each
host as result files again.

The table layout is in results/README.md, "History store"; its version is the database's
PRAGMA user_version. Every write is one transaction. Exit status 0 (steps: whether or not it
finds one), or 2 with one line on stderr and the database untouched: no result files, files of
different runs, a database that is not SQLite, damaged, of another layout version, or locked
past the busy timeout (--timeout); steps also refuses a field that is not a timing, a host with
no run, and a selection with no timing recorded.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
import sqlite3
import sys
import tempfile
import zlib
from bisect import insort
from difflib import get_close_matches
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from urllib.request import pathname2url

sys.path.insert(0, str(Path(__file__).resolve().parent))

import compare  # noqa: E402
import load  # noqa: E402

EXIT_OK, EXIT_BAD_INPUT = 0, 2
LAYOUT_VERSION = 1  # PRAGMA user_version of a history store
DEFAULT_DB = load.REPO / "results" / "history.sqlite"
DEFAULT_TIMEOUT = 2.0  # seconds a locked database is waited for

LAYOUT = """
CREATE TABLE runs (
  id INTEGER PRIMARY KEY,
  git_commit TEXT NOT NULL,
  git_dirty INTEGER,
  host_name TEXT NOT NULL,
  cpu_model TEXT,
  compiler TEXT,
  compiler_flags TEXT,
  build_type TEXT,
  march_native INTEGER,
  time_utc TEXT NOT NULL,
  suite_name TEXT NOT NULL,
  suite_file_hash TEXT,
  suite_quick INTEGER NOT NULL,
  recorded_utc TEXT NOT NULL,
  compared_with INTEGER REFERENCES runs(id),
  regression INTEGER,
  worse_cells INTEGER,
  compare_summary TEXT,
  UNIQUE (git_commit, host_name, time_utc, suite_name)
);
CREATE INDEX runs_by_suite_host ON runs(suite_name, suite_quick, host_name);
CREATE TABLE files (
  id INTEGER PRIMARY KEY,
  run_id INTEGER NOT NULL REFERENCES runs(id),
  name TEXT NOT NULL,
  format TEXT NOT NULL,
  sha256 TEXT NOT NULL,
  context TEXT NOT NULL,
  experiment TEXT,
  suite TEXT,
  records BLOB NOT NULL,
  UNIQUE (run_id, name)
);
CREATE TABLE cells (
  id INTEGER PRIMARY KEY,
  experiment TEXT NOT NULL,
  cell_id TEXT NOT NULL,
  kind TEXT,
  filter TEXT,
  label TEXT NOT NULL,
  UNIQUE (experiment, cell_id)
);
CREATE TABLE records (
  id INTEGER PRIMARY KEY,
  run_id INTEGER NOT NULL REFERENCES runs(id),
  file_id INTEGER NOT NULL REFERENCES files(id),
  cell INTEGER NOT NULL REFERENCES cells(id),
  record TEXT NOT NULL,
  number INTEGER NOT NULL,
  seed INTEGER,
  UNIQUE (run_id, cell, record, number, seed)
);
CREATE TABLE fields (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL UNIQUE
);
CREATE TABLE metrics (
  record_id INTEGER NOT NULL REFERENCES records(id),
  field INTEGER NOT NULL REFERENCES fields(id),
  value REAL NOT NULL,
  PRIMARY KEY (record_id, field)
) WITHOUT ROWID;
CREATE INDEX metrics_by_field ON metrics(field);
"""

# The run's identity and build, from the version 2 headers' context: every file must agree.
RUN_CONTEXT = ("git_commit", "git_dirty", "host_name", "cpu_model", "compiler", "compiler_flags",
               "build_type", "march_native")
RUN_SUITE = ("name", "file_hash", "quick")
# Records drawn by plot: a cell's summary line, and a Google Benchmark benchmark.
DRAWN_RECORDS = ("cell", "benchmark")
# Metrics of Google Benchmark files (compare.entries_of_gbench's names) and their units.
GBENCH_UNITS = {"ns_per_key": "ns/key", "real_time_ns": "ns"}


class HistoryError(Exception):
    """Bad input: one line on stderr, exit status 2, the database untouched."""


# --- a run, from its result files -------------------------------------------------------------

@dataclass
class Record:
    """One data line (a Google Benchmark benchmark) and its numeric metrics."""
    experiment: str
    cell_id: str
    kind: str | None
    filter: str | None
    label: str
    record: str
    number: int  # the trial or window number; 0 for other lines
    seed: int | None
    metrics: dict = field(default_factory=dict)

    def key(self) -> tuple:
        return (self.experiment, self.cell_id, self.record, self.number, self.seed)


@dataclass
class Run:
    columns: dict  # runs' columns from the headers
    results: list  # load.ResultFile, in file order
    records: dict  # file name -> [Record]
    sha256: dict  # file name -> hex digest of its bytes
    left_out: int = 0  # files of experiments the suite skipped


def records_of(result: load.ResultFile, classes: dict[str, str]) -> list[Record]:
    """The file's lines as compare reads them (compare.entries_of_*), with their numeric values:
    every number of a line, nested ones flattened as compare flattens them, but identity fields
    (cell_id, seed, trial, ...); a benchmark's median time per key."""
    out = []
    if result.format == "gbench":
        for entry in compare.entries_of_gbench(result):
            _, filter_name, _ = load.split_benchmark_name(entry.cell_id)
            metrics = {name: median for name, (median, _) in entry.timings.items() if compare.is_number(median)}
            out.append(Record(entry.experiment, entry.cell_id, "benchmark", filter_name, entry.label,
                              "benchmark", 0, None, metrics))
        return out
    # An experiment whose report reads no timing (timed = false) may have run beside another
    # (suite --jobs): its timings are not this host's speed, so they join no timing history.
    left_out = {compare.IDENTITY} | ({compare.TIMING} if result.experiment.get("timed") is False else set())
    for entry in compare.entries_of_result(result, classes):
        values = entry.values
        metrics = {name: value for name, value in values.items() if compare.is_number(value)
                   and classes.get(compare.top_level(name), compare.DETERMINISTIC) not in left_out}
        number = values.get(entry.record) if entry.record in ("trial", "window", "step") else 0
        label = entry.label if values.get("filter") else f"{values.get('test', entry.record)} {entry.cell_id}"
        out.append(Record(entry.experiment, str(entry.cell_id), values.get("kind"), values.get("filter"),
                          label, entry.record, int(number or 0), entry.seed, metrics))
    return out


def one_value(results: list, what: str, get) -> object:
    """The one value every file has for `what`, or HistoryError naming two files that differ."""
    seen = {}
    for result in results:
        seen.setdefault(json.dumps(get(result), sort_keys=True), result)
    if len(seen) > 1:
        (a, first), (b, second) = list(seen.items())[:2]
        raise HistoryError(f"files of different runs: {what} {a} in {first.path}, {b} in {second.path};"
                           " record one run at a time")
    return get(results[0])


def skipped_files(directory: Path) -> set:
    """Files of the experiments a suite run skipped, as its manifest (suite_run.json) lists them:
    a file there by that name is an earlier run's, left in place."""
    manifest = directory / "suite_run.json"
    if not manifest.is_file():
        return set()
    try:
        experiments = json.loads(manifest.read_text(encoding="utf-8"))["experiments"]
        return {e["file"] for e in experiments if e.get("skipped")}
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise HistoryError(f"{manifest}: not a suite run's manifest ({error!r})") from error


def read_run(paths: list[Path], schema: Path, classes: dict[str, str]) -> Run:
    results, left_out = [], 0
    for path in paths:
        try:
            found = compare.read_results(path, schema)
        except compare.BadInput as error:
            raise HistoryError(str(error)) from error
        skipped = skipped_files(path) if path.is_dir() else set()
        results += [r for r in found if r.path.name not in skipped]
        left_out += sum(1 for r in found if r.path.name in skipped)
    if not results:
        raise HistoryError(f"{', '.join(str(p) for p in paths)}: every result file is of an experiment"
                           " the suite skipped")
    names = {}
    for result in results:
        if result.path.name in names:
            raise HistoryError(f"two result files named {result.path.name}: {names[result.path.name]} and"
                               f" {result.path}; a run has one file per experiment")
        names[result.path.name] = result.path
    v2 = [r for r in results if r.format == "v2"]
    if not v2:
        raise HistoryError(f"{', '.join(str(p) for p in paths)}: no schema version 2 result file; the"
                           " run's commit, host and time come from their headers")
    for result in v2:
        if result.suite is None:
            raise HistoryError(f"{result.path}: not from a suite run (its header's suite is null);"
                               " history records suite runs")
    columns = {name: one_value(v2, f"context.{name}", lambda r, n=name: r.context.get(n)) for name in RUN_CONTEXT}
    suite = {name: one_value(v2, f"suite.{name}", lambda r, n=name: r.suite.get(n)) for name in RUN_SUITE}
    for result in results:
        if result.format == "gbench" and result.context.get("host_name") != columns["host_name"]:
            raise HistoryError(f"{result.path}: host {result.context.get('host_name')!r}, not the run's"
                               f" {columns['host_name']!r}")
    if not columns["git_commit"] or not columns["host_name"]:
        raise HistoryError(f"{v2[0].path}: the header's context has no git_commit or host_name")
    times = [r.context.get("time_utc") for r in v2]
    if not all(isinstance(t, str) and t for t in times):
        raise HistoryError(f"{v2[0].path}: a header's context has no time_utc")
    columns.update(time_utc=min(times), suite_name=suite["name"], suite_file_hash=suite["file_hash"],
                   suite_quick=bool(suite["quick"]))
    records, keys = {}, {}
    for result in results:
        records[result.path.name] = records_of(result, classes)
        for rec in records[result.path.name]:
            if rec.key() in keys:
                raise HistoryError(f"{result.path}: record {rec.record} {rec.number} of cell {rec.cell_id}"
                                   f" (seed {rec.seed}) is also in {keys[rec.key()]}")
            keys[rec.key()] = result.path.name
    sha256 = {r.path.name: hashlib.sha256(r.path.read_bytes()).hexdigest() for r in results}
    return Run(columns, results, records, sha256, left_out)


# --- the store --------------------------------------------------------------------------------

def describe_sqlite_error(path: Path, error: sqlite3.Error, timeout: float) -> str:
    text = str(error)
    if "locked" in text or "busy" in text:
        return f"{path}: locked by another connection (waited {timeout:g} s); try again when it is done"
    if "not a database" in text:
        return f"{path}: not an SQLite database ({text})"
    if "malformed" in text or "corrupt" in text:
        return f"{path}: damaged SQLite database ({text})"
    return f"{path}: {text}"


def open_store(path: Path, timeout: float, write: bool) -> tuple[sqlite3.Connection, bool]:
    """A connection to a history store of this layout version, and whether it is still empty.
    Reading never creates the file; a damaged, foreign or locked one is a HistoryError."""
    if path.exists() and not path.is_file():
        raise HistoryError(f"{path}: not a file")
    if not write and not path.exists():
        raise HistoryError(f"{path}: no history store here (history.py record RESULT_DIR makes one)")
    try:
        if write:
            connection = sqlite3.connect(path, timeout=timeout, isolation_level=None)
        else:
            connection = sqlite3.connect(f"file:{pathname2url(str(path.resolve()))}?mode=ro", uri=True,
                                         timeout=timeout, isolation_level=None)
    except sqlite3.Error as error:
        raise HistoryError(describe_sqlite_error(path, error, timeout)) from error
    try:
        version = connection.execute("PRAGMA user_version").fetchone()[0]
        tables = connection.execute("SELECT count(*) FROM sqlite_schema").fetchone()[0]
        if version == 0 and tables:
            raise HistoryError(f"{path}: an SQLite database but not a history store (user_version 0,"
                               f" {tables} schema objects)")
        if version not in (0, LAYOUT_VERSION):
            raise HistoryError(f"{path}: history store layout version {version}; this history.py"
                               f" reads version {LAYOUT_VERSION}")
        if tables:  # a damaged page is found now, not half-way through a write or a chart
            problems = [row[0] for row in connection.execute("PRAGMA quick_check")]
            if problems != ["ok"]:
                first = " ".join(" ".join(problems[:2]).split())
                raise HistoryError(f"{path}: damaged SQLite database (quick_check: {first})")
        connection.execute("PRAGMA foreign_keys = ON")
    except (sqlite3.Error, HistoryError) as error:
        connection.close()
        if isinstance(error, HistoryError):
            raise
        raise HistoryError(describe_sqlite_error(path, error, timeout)) from error
    return connection, version == 0


def stored_results(connection: sqlite3.Connection, run_id: int) -> list:
    """A recorded run's files as load.ResultFile again: what compare needs (records, context,
    format, name), without the frame."""
    import pandas as pd

    out = []
    for name, fmt, context, experiment, suite, records in connection.execute(
            "SELECT name, format, context, experiment, suite, records FROM files WHERE run_id = ? ORDER BY id",
            (run_id,)):
        out.append(load.ResultFile(Path(name), fmt, pd.DataFrame(), json.loads(context), True,
                                   json.loads(experiment or "{}"), json.loads(suite or "null"),
                                   json.loads(zlib.decompress(records))))
    return out



def latest_runs(db: Path, suite: str | None = None, timeout: float = DEFAULT_TIMEOUT) -> list[dict]:
    """The latest run of each host (by time_utc, then by the order recorded), of one suite if
    given (any --quick), host by host: dicts of the runs' columns id, host_name, cpu_model,
    git_commit, git_dirty, time_utc, suite_name, suite_quick. What plots/fleet.py sets side by side."""
    connection, fresh = open_store(db, timeout, write=False)
    try:
        if fresh:
            return []
        columns = ("id", "host_name", "cpu_model", "git_commit", "git_dirty", "time_utc", "suite_name", "suite_quick")
        rows = connection.execute(
            f"SELECT {', '.join(columns)} FROM runs WHERE ? IS NULL OR suite_name = ?"
            " ORDER BY host_name, time_utc DESC, id DESC", (suite, suite)).fetchall()
    except sqlite3.Error as error:
        raise HistoryError(describe_sqlite_error(db, error, timeout)) from error
    finally:
        connection.close()
    latest = {}
    for row in rows:
        latest.setdefault(row[1], dict(zip(columns, row)))
    return list(latest.values())


def restore_run(db: Path, run_id: int, directory: Path, timeout: float = DEFAULT_TIMEOUT) -> list[Path]:
    """A recorded run's files written again into `directory` under their names, as load.py reads
    them: a schema version 2 file as its header (context, experiment, suite; its cells in record
    order), its data lines and an end line; a Google Benchmark file as its context and benchmarks.
    The lines are the ones recorded, so every field the files had is there. A version 1 file is
    stored in version 2's vocabulary and cannot be written back: it is left out."""
    connection, fresh = open_store(db, timeout, write=False)
    try:
        rows = [] if fresh else connection.execute(
            "SELECT name, format, context, experiment, suite, records FROM files WHERE run_id = ? ORDER BY id",
            (run_id,)).fetchall()
    except sqlite3.Error as error:
        raise HistoryError(describe_sqlite_error(db, error, timeout)) from error
    finally:
        connection.close()
    if not rows:
        raise HistoryError(f"{db}: no files of run {run_id}")
    written = []
    for name, fmt, context, experiment, suite, records in rows:
        lines, context = json.loads(zlib.decompress(records)), json.loads(context)
        if fmt == "gbench":
            text = json.dumps({"context": context, "benchmarks": lines}) + "\n"
        elif fmt == "v2":
            cells = list(dict.fromkeys(line.get("cell_id") for line in lines if line.get("cell_id") is not None))
            header = {"record": "header", "schema_version": 2, "experiment": json.loads(experiment or "{}"),
                      "suite": json.loads(suite or "null"), "context": context, "cells": cells}
            end = {"record": "end", "complete": True, "cells": len(cells)}
            text = "".join(json.dumps(line) + "\n" for line in (header, *lines, end))
        else:
            continue
        path = directory / Path(name).name
        path.write_text(text, encoding="utf-8")
        written.append(path)
    return written

@dataclass
class Verdict:
    compared_with: int | None = None
    regression: bool | None = None
    worse_cells: int | None = None
    summary: str | None = None


def compare_with_previous(connection: sqlite3.Connection, run: Run, classes: dict[str, str]) -> Verdict:
    """compare.py's judgement of the run against the latest recorded run of its suite and host."""
    c = run.columns
    row = connection.execute(
        "SELECT id FROM runs WHERE suite_name = ? AND suite_quick = ? AND host_name = ? ORDER BY id DESC LIMIT 1",
        (c["suite_name"], int(c["suite_quick"]), c["host_name"])).fetchone()
    if row is None:
        return Verdict()
    previous = row[0]
    base_results = stored_results(connection, previous)
    base = compare.side_of(Path(f"history run {previous}"), base_results, classes)
    new = compare.side_of(Path("the new run"), run.results, classes)
    try:
        comparison = compare.compare_sides(base, new, classes, compare.Settings(), base_results, run.results)
    except compare.BadInput as error:
        return Verdict(previous, None, None, f"not compared: {error}")
    worse_cells = len({(r.experiment, r.cell_id) for r in comparison.worse})
    return Verdict(previous, comparison.exit_status == compare.EXIT_WORSE, worse_cells,
                   compare.summary_line(comparison))


def insert_run(connection: sqlite3.Connection, run: Run, verdict: Verdict) -> tuple[int, int, int]:
    """The run's rows; returns (run id, records, metrics)."""
    c = run.columns
    recorded = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    run_id = connection.execute(
        "INSERT INTO runs (git_commit, git_dirty, host_name, cpu_model, compiler, compiler_flags,"
        " build_type, march_native, time_utc, suite_name, suite_file_hash, suite_quick, recorded_utc,"
        " compared_with, regression, worse_cells, compare_summary)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (c["git_commit"], c["git_dirty"], c["host_name"], c["cpu_model"], c["compiler"],
         c["compiler_flags"], c["build_type"], c["march_native"], c["time_utc"], c["suite_name"],
         c["suite_file_hash"], int(c["suite_quick"]), recorded, verdict.compared_with,
         None if verdict.regression is None else int(verdict.regression), verdict.worse_cells,
         verdict.summary)).lastrowid
    n_records = n_metrics = 0
    cells, fields = {}, {}
    for result in run.results:
        name = result.path.name
        file_id = connection.execute(
            "INSERT INTO files (run_id, name, format, sha256, context, experiment, suite, records)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (run_id, name, result.format, run.sha256[name], json.dumps(result.context),
             json.dumps(result.experiment) if result.format == "v2" else None,
             json.dumps(result.suite) if result.format == "v2" else None,
             zlib.compress(json.dumps(result.records, separators=(",", ":")).encode()))).lastrowid
        records = run.records[name]
        # A cell's kind, filter and label come from its cell line (window lines may leave the
        # filter to it), else from its first line.
        for rec in sorted(records, key=lambda r: r.record not in DRAWN_RECORDS):
            key = (rec.experiment, rec.cell_id)
            if key not in cells:
                connection.execute("INSERT OR IGNORE INTO cells (experiment, cell_id, kind, filter, label)"
                                   " VALUES (?, ?, ?, ?, ?)", (*key, rec.kind, rec.filter, rec.label))
                cells[key] = connection.execute("SELECT id FROM cells WHERE experiment = ? AND cell_id = ?",
                                                key).fetchone()[0]
        for rec in records:
            record_id = connection.execute(
                "INSERT INTO records (run_id, file_id, cell, record, number, seed) VALUES (?, ?, ?, ?, ?, ?)",
                (run_id, file_id, cells[(rec.experiment, rec.cell_id)], rec.record, rec.number,
                 rec.seed)).lastrowid
            for name in rec.metrics.keys() - fields.keys():
                connection.execute("INSERT OR IGNORE INTO fields (name) VALUES (?)", (name,))
                fields[name] = connection.execute("SELECT id FROM fields WHERE name = ?", (name,)).fetchone()[0]
            connection.executemany("INSERT INTO metrics (record_id, field, value) VALUES (?, ?, ?)",
                                   [(record_id, fields[name], float(value)) for name, value in rec.metrics.items()
                                    if math.isfinite(value)])
            n_records += 1
            n_metrics += len(rec.metrics)
    return run_id, n_records, n_metrics


def record(paths: list[Path], db: Path, timeout: float, schema: Path, out) -> int:
    try:
        classes = compare.field_classes(schema)
    except compare.BadInput as error:
        raise HistoryError(str(error)) from error
    run = read_run(paths, schema, classes)  # every input read and checked before the store is opened
    created = not db.exists()
    try:
        return write_run(db, run, classes, timeout, out)
    except BaseException:
        # A store this call created and did not commit to is left empty: remove it.
        if created and db.is_file() and db.stat().st_size == 0:
            db.unlink()
        raise


def write_run(db: Path, run: Run, classes: dict[str, str], timeout: float, out) -> int:
    c = run.columns
    connection, fresh = open_store(db, timeout, write=True)
    try:
        connection.execute("BEGIN IMMEDIATE")
        try:
            if fresh:
                for statement in LAYOUT.split(";"):  # not executescript: it would commit first
                    if statement.strip():
                        connection.execute(statement)
                connection.execute(f"PRAGMA user_version = {LAYOUT_VERSION}")
            existing = connection.execute(
                "SELECT id FROM runs WHERE git_commit = ? AND host_name = ? AND time_utc = ? AND suite_name = ?",
                (c["git_commit"], c["host_name"], c["time_utc"], c["suite_name"])).fetchone()
            if existing is not None:
                stored = dict(connection.execute("SELECT name, sha256 FROM files WHERE run_id = ?", existing))
                connection.execute("ROLLBACK")
                if stored != run.sha256:
                    raise HistoryError(f"{db}: run {existing[0]} (commit {c['git_commit'][:10]}, host"
                                       f" {c['host_name']}, {c['time_utc']}, suite {c['suite_name']}) is"
                                       " recorded with other files; nothing written")
                out.write(f"history: run {existing[0]} is already recorded in {db}; nothing written\n")
                return EXIT_OK
            verdict = compare_with_previous(connection, run, classes)
            run_id, n_records, n_metrics = insert_run(connection, run, verdict)
            connection.execute("COMMIT")
        except BaseException:
            if connection.in_transaction:
                connection.execute("ROLLBACK")
            raise
    except sqlite3.Error as error:
        raise HistoryError(describe_sqlite_error(db, error, timeout) + "; nothing written") from error
    finally:
        connection.close()
    line = (f"history: recorded run {run_id} (commit {c['git_commit'][:10]}{' dirty' if c['git_dirty'] else ''},"
            f" host {c['host_name']}, suite {c['suite_name']}{' --quick' if c['suite_quick'] else ''},"
            f" {plural(len(run.results), 'file')}, {plural(n_records, 'record')}, {plural(n_metrics, 'metric')}) in {db}"
            + (f"; left out {plural(run.left_out, 'file')} of experiments the suite skipped" if run.left_out else ""))
    if verdict.compared_with is None:
        line += "; no earlier run of this suite on this host to compare with"
    else:
        line += f"; against run {verdict.compared_with}: {verdict.summary}"
    out.write(line + "\n")
    return EXIT_OK


def plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


# --- list -------------------------------------------------------------------------------------

def list_runs(db: Path, timeout: float, out) -> int:
    connection, fresh = open_store(db, timeout, write=False)
    try:
        rows = [] if fresh else connection.execute(
            "SELECT r.id, r.time_utc, r.git_commit, r.git_dirty, r.host_name, r.suite_name, r.suite_quick,"
            " (SELECT count(*) FROM files f WHERE f.run_id = r.id),"
            " (SELECT count(*) FROM records x WHERE x.run_id = r.id),"
            " r.compared_with, r.regression, r.worse_cells, r.compare_summary"
            " FROM runs r ORDER BY r.id").fetchall()
    except sqlite3.Error as error:
        raise HistoryError(describe_sqlite_error(db, error, timeout)) from error
    finally:
        connection.close()
    table = [("run", "time_utc", "commit", "host", "suite", "files", "records", "vs", "regression", "compare")]
    for (run_id, time_utc, commit, dirty, host, suite, quick, files, records, vs, regression, worse,
         summary) in rows:
        verdict = "-" if regression is None else f"yes ({plural(worse, 'cell')})" if regression else "no"
        table.append((str(run_id), time_utc, commit[:10] + (" dirty" if dirty else ""), host,
                      suite + (" --quick" if quick else ""), str(files), str(records),
                      "-" if vs is None else str(vs), verdict, summary or ""))
    widths = [max(len(row[i]) for row in table) for i in range(len(table[0]) - 1)]
    for row in table:
        out.write("  ".join(cell.ljust(width) for cell, width in zip(row, widths)) + "  " + row[-1] + "\n")
    return EXIT_OK


# --- steps in a series ------------------------------------------------------------------------

# A step is flagged only when its level moves by at least MIN_EFFECT (10%), by at least one
# spread (a move a single run's scatter covers is not one a chart shows), and by STEP_Z
# standard errors of the difference of the two levels (the levels are medians of the runs on
# each side, so more runs on each side call a smaller step, never one below the spread).
MIN_EFFECT = 0.10
MIN_RUNS_EACH_SIDE = 3
STEP_Z = 3.0
# The fit's price for one more level, in units of the series' noise per log of its length: the
# L1 analogue of BIC, so pure noise is rarely cut and what is cut is judged again below.
PENALTY_PER_LOG_RUN = 2.0
MAX_CROSSED_SHARE = 0.15  # of a level's runs beyond the midpoint to the next: none of 3 to 6, 1 of 7
MAD_TO_SIGMA = 1.4826  # a normal distribution's sigma over its median absolute deviation
MEDIAN_EFFICIENCY = math.sqrt(math.pi / 2)  # a median's standard error over a mean's


@dataclass(frozen=True)
class Step:
    """A flagged step: the series' level moves from `before` to `after` at the run `run` (the
    first at the new level, position `index` in the series)."""
    index: int
    run: object
    run_before: object  # the last run at the old level: its commit and run's are the two to time
    before: float  # median of the runs from the previous step (or the start) up to this one
    after: float  # median of the runs from this one up to the next step (or the end)
    ratio: float  # after / before
    spread: float  # the run-to-run spread used, relative (0.05: runs scatter by about 5%)
    runs_before: int
    runs_after: int


def median(values: list) -> float:
    ordered = sorted(values)
    half = len(ordered) // 2
    return ordered[half] if len(ordered) % 2 else (ordered[half - 1] + ordered[half]) / 2


def robust_scale(residuals: list) -> float:
    """The scatter of values around their level, as a normal sigma from the median absolute
    deviation: one wild run does not widen it."""
    return MAD_TO_SIGMA * median([abs(r) for r in residuals]) if residuals else 0.0


def segment_costs(y: list, min_runs: int) -> list:
    """cost[i][j]: the sum of |y - median| over y[i:j], for every segment of at least min_runs."""
    n = len(y)
    cost = [[math.inf] * (n + 1) for _ in range(n + 1)]
    for i in range(n):
        ordered = []
        for j in range(i, n):
            insort(ordered, y[j])
            k = len(ordered)
            if k >= min_runs:
                half = k // 2
                middle = ordered[half]
                cost[i][j + 1] = (sum(ordered[half:]) - middle * (k - half)) + (middle * half - sum(ordered[:half]))
    return cost


def l1_partition(y: list, penalty: float, min_runs: int) -> list:
    """The starts of the levels (but the first) of the piecewise-constant fit to y that minimises
    the sum of absolute deviations from each level's median plus `penalty` per level, every level
    min_runs long: an exact dynamic programme over the last level's start."""
    n = len(y)
    cost = segment_costs(y, min_runs)
    best, start = [math.inf] * (n + 1), [0] * (n + 1)
    best[0] = 0.0
    for j in range(min_runs, n + 1):
        for i in [0, *range(min_runs, j - min_runs + 1)]:
            total = best[i] + cost[i][j] + penalty
            if total < best[j]:
                best[j], start[j] = total, i
    starts, j = [], n
    while (j := start[j]) > 0:
        starts.append(j)
    return starts[::-1]


def find_steps(series: list, min_effect: float = MIN_EFFECT, min_runs: int = MIN_RUNS_EACH_SIDE,
               z: float = STEP_Z) -> list[Step]:
    """The steps in a timing's series on one host, as the header says: `series` is [(run, value,
    spread)] in recorded order, spread the run's own relative scatter (history_spread) or None;
    a value that is not a positive number is left out. The successive-run scatter is robust to
    what it measures: a step moves one difference, an outlier two, and the median absolute
    deviation ignores both."""
    points = [(run, float(value), spread) for run, value, spread in series
              if isinstance(value, (int, float)) and math.isfinite(value) and value > 0]
    n = len(points)
    if n < 2 * min_runs:
        return []
    y = [math.log(value) for _, value, _ in points]
    own = [s if s is not None and math.isfinite(s) and s >= 0 else None for _, _, s in points]
    known = [s for s in own if s is not None]
    successive = robust_scale([b - a for a, b in zip(y, y[1:])]) / math.sqrt(2)
    noise = max(successive, median(known) if known else 0.0)
    bounds = l1_partition(y, PENALTY_PER_LOG_RUN * noise * math.log(n), min_runs)
    while True:
        edges = [0, *bounds, n]
        levels = [median(y[a:b]) for a, b in zip(edges, edges[1:])]
        judged = []
        for k in range(len(bounds)):
            a, b, c = edges[k], edges[k + 1], edges[k + 2]
            residuals = [y[t] - levels[k] for t in range(a, b)] + [y[t] - levels[k + 1] for t in range(b, c)]
            beside = [s for s in own[a:c] if s is not None]
            spread = max(robust_scale(residuals), median(beside) if beside else 0.0, successive)
            move = levels[k + 1] - levels[k]
            score = abs(move) / flagged_move(spread, b - a, c - b, min_effect, z)
            # The runs must take the sides of the step: a cluster of slow runs in noise with a
            # heavy tail makes a level whose runs straddle the midpoint.
            middle = (levels[k] + levels[k + 1]) / 2
            for first, end in ((a, b), (b, c)):
                crossed = sum(1 for t in range(first, end) if (y[t] > middle) != ((t >= b) == (move > 0)))
                if crossed > MAX_CROSSED_SHARE * (end - first):
                    score = 0.0
            judged.append((score, k, spread))
        weakest = min(judged, default=None)
        if weakest is None or weakest[0] >= 1.0:
            break
        del bounds[weakest[1]]
    steps = []
    for _, k, spread in judged:
        b = edges[k + 1]
        before, after = math.exp(levels[k]), math.exp(levels[k + 1])
        steps.append(Step(b, points[b][0], points[b - 1][0], before, after, after / before, math.expm1(spread),
                          b - edges[k], edges[k + 2] - b))
    return steps


def flagged_move(spread: float, runs_before: int, runs_after: int, min_effect: float, z: float) -> float:
    """The smallest move of log level flagged between levels of these many runs at this spread."""
    standard_error = spread * MEDIAN_EFFICIENCY * math.sqrt(1 / runs_before + 1 / runs_after)
    return max(math.log1p(min_effect), spread, z * standard_error)


def history_spread(low, high) -> float | None:
    """A run's own relative scatter from the min and max of its repeats: half their log range
    (for 3 to 10 repeats about 0.85 to 1.5 standard deviations); None without both."""
    if not all(isinstance(v, (int, float)) and math.isfinite(v) and v > 0 for v in (low, high)) or high < low:
        return None
    return (math.log(high) - math.log(low)) / 2


# --- plot -------------------------------------------------------------------------------------

@dataclass
class HostChart:
    """What one host's chart draws: its runs in recorded order (those with a value of the
    metric) and one line of values per cell, None where a run has none; for a timing, each
    value's run spread (history_spread of its record's min and max) where the record has them."""
    host: str
    runs: list  # dicts: id, git_commit, git_dirty, time_utc, regression, worse_cells, compare_summary
    lines: dict  # legend label -> [value or None per run]
    spreads: dict = field(default_factory=dict)  # legend label -> [spread or None per run]

    def regression_runs(self) -> list:
        return [run["id"] for run in self.runs if run["regression"]]

    def steps(self) -> list:
        """[(label, Step)] for every line, in label order; a Step's run is its position in runs."""
        found = []
        for label, values in self.lines.items():
            spreads = self.spreads.get(label, [None] * len(values))
            series = [(i, value, spread) for i, (value, spread) in enumerate(zip(values, spreads)) if value is not None]
            found += [(label, step) for step in find_steps(series)]
        return found


def selection(metric_names: list, experiment: str | None, suite: str | None, filters: list | None) -> tuple:
    """The WHERE clause and parameters of a chart's query."""
    where = [f"f.name IN ({', '.join('?' * len(metric_names))})",
             f"x.record IN ({', '.join('?' * len(DRAWN_RECORDS))})"]
    params = [*metric_names, *DRAWN_RECORDS]
    if experiment is not None:
        where.append("c.experiment = ?")
        params.append(experiment)
    if suite is not None:
        where.append("r.suite_name = ?")
        params.append(suite)
    if filters:
        where.append(f"c.filter IN ({', '.join('?' * len(filters))})")
        params += filters
    return " AND ".join(where), params


def chart_data(connection: sqlite3.Connection, metric: str, experiment: str | None = None,
               suite: str | None = None, filters: list | None = None, with_spread: bool = False) -> list[HostChart]:
    where, params = selection([metric], experiment, suite, filters)
    rows = connection.execute(
        "SELECT r.id, r.git_commit, r.git_dirty, r.time_utc, r.host_name, r.regression, r.worse_cells,"
        " r.compare_summary, c.experiment, c.cell_id, c.label, m.value"
        " FROM fields f JOIN metrics m ON m.field = f.id JOIN records x ON x.id = m.record_id"
        " JOIN cells c ON c.id = x.cell"
        " JOIN runs r ON r.id = x.run_id"
        f" WHERE {where} ORDER BY r.id, c.experiment, c.label", params).fetchall()
    bounds = {}  # (run id, experiment, cell_id) -> {"min": value, "max": value}
    if with_spread:
        where, params = selection([f"{metric}_min", f"{metric}_max"], experiment, suite, filters)
        for run_id, exp, cell_id, name, value in connection.execute(
                "SELECT r.id, c.experiment, c.cell_id, f.name, m.value"
                " FROM fields f JOIN metrics m ON m.field = f.id JOIN records x ON x.id = m.record_id"
                " JOIN cells c ON c.id = x.cell JOIN runs r ON r.id = x.run_id"
                f" WHERE {where}", params):
            bounds.setdefault((run_id, exp, cell_id), {})[name.rsplit("_", 1)[1]] = value
    experiments = {row[8] for row in rows}
    charts = []
    for host in sorted({row[4] for row in rows}):
        mine = [row for row in rows if row[4] == host]
        runs, position = [], {}
        for row in mine:
            if row[0] not in position:
                position[row[0]] = len(runs)
                runs.append(dict(zip(("id", "git_commit", "git_dirty", "time_utc", "host_name", "regression",
                                      "worse_cells", "compare_summary"), row[:8])))
        # A line per cell, labelled as compare labels it: the filter, and its parameters where
        # they tell cells apart; the experiment too when several are drawn.
        cells = {}
        for row in mine:
            label = f"{row[8]}: {row[10]}" if len(experiments) > 1 else row[10]
            cells.setdefault((row[8], row[9]), label)
        labels = list(cells.values())
        lines = {}
        for (exp, cell_id), label in cells.items():
            if labels.count(label) > 1:
                label = f"{label} [{cell_id}]"
            lines[(exp, cell_id)] = (label, [None] * len(runs), [None] * len(runs))
        for row in mine:
            _, values, spreads = lines[(row[8], row[9])]
            values[position[row[0]]] = row[11]
            found = bounds.get((row[0], row[8], row[9]), {})
            spreads[position[row[0]]] = history_spread(found.get("min"), found.get("max"))
        ordered = sorted(lines.values())
        charts.append(HostChart(host, runs, {label: values for label, values, _ in ordered},
                                {label: spreads for label, _, spreads in ordered} if with_spread else {}))
    return charts


def timing_metrics(classes: dict[str, str]) -> set:
    """The fields whose history is judged for steps: the timings (results/schema.json's
    x-reproducibility "timing", less their _min, _max and _samples) and the benchmarks' times."""
    return {name for name, kind in classes.items()
            if kind == compare.TIMING and not name.endswith(("_min", "_max", "_samples"))} | set(GBENCH_UNITS)


def metric_unit(metric: str, schema: Path) -> str:
    if metric in GBENCH_UNITS:
        return GBENCH_UNITS[metric]
    try:
        properties = json.loads(schema.read_text(encoding="utf-8"))["$defs"]["data"]["properties"]
        return properties.get(compare.top_level(metric), {}).get("x-unit", "")
    except (OSError, ValueError, KeyError):
        return ""


def safe_name(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", text).strip("_") or "_"


def draw(chart: HostChart, metric: str, unit: str, experiment: str | None, log: bool, out: Path,
         steps: list = ()) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    import charts

    styles = charts._styles(chart.lines)
    x = list(range(len(chart.runs)))
    fig, ax = plt.subplots(figsize=(max(6.0, 2.5 + 0.7 * len(x)), 4.8))
    for label, values in chart.lines.items():
        ax.plot(x, [math.nan if v is None else v for v in values], label=label, lw=1.2, ms=5, **styles[label])
    for i, run in enumerate(chart.runs):
        if run["regression"]:
            ax.axvline(i, color="red", ls="--", lw=1)
            cells = plural(run["worse_cells"], "cell")
            last = i == len(x) - 1 and i > 0
            ax.text(i, 0.98, f"regression \n{cells} " if last else f" regression\n {cells}", color="red",
                    fontsize=8, va="top", ha="right" if last else "left", transform=ax.get_xaxis_transform())
    for label, step in steps:  # in the line's colour, at the first run of its new level
        colour = styles[label]["color"]
        ax.axvline(step.run - 0.5, color=colour, ls=":", lw=1.4)
        ax.annotate(f"step {step.ratio:.2f}x", (step.run, step.after), xytext=(4, 6), textcoords="offset points",
                    color=colour, fontsize=8, fontweight="bold")
    ticks = [f"{run['git_commit'][:7]}{'+' if run['git_dirty'] else ''}\n{run['time_utc'][:10]}" for run in chart.runs]
    ax.set_xticks(x, ticks, fontsize=8)
    for tick, run in zip(ax.get_xticklabels(), chart.runs):
        if run["regression"]:
            tick.set_color("red")
    if log:
        ax.set_yscale("log")
    ax.set_xlim(-0.5, len(x) - 0.5)
    ax.set_xlabel("runs in recorded order: commit (+ uncommitted changes) and date")
    ax.set_ylabel(f"{metric} ({unit})" if unit else metric)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    title = f"{metric}{' in ' + experiment if experiment else ''} on {chart.host}"
    out.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{out.stem}.", suffix=".png", dir=out.parent)
    os.close(fd)
    os.chmod(tmp, 0o644)  # mkstemp's 0600 would follow the chart through the rename
    try:
        fig.suptitle(title, fontsize=11)
        fig.savefig(tmp, dpi=100, bbox_inches="tight")  # tight: the legend sits outside the axes
        plt.close(fig)
        os.replace(tmp, out)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return out


def plot(db: Path, metric: str, experiment: str | None, suite: str | None, filters: list | None,
         log: bool, max_lines: int, out_dir: Path, timeout: float, schema: Path, out) -> int:
    connection, fresh = open_store(db, timeout, write=False)
    try:
        timing = metric in timing_metrics(classes_of(schema))
        charts = [] if fresh else chart_data(connection, metric, experiment, suite, filters, with_spread=timing)
        if not charts:
            known = [] if fresh else [row[0] for row in connection.execute("SELECT name FROM fields")]
            near = get_close_matches(metric, known)
            selection = "".join(f" {name} {value}" for name, value in
                                (("--experiment", experiment), ("--suite", suite)) if value)
            selection += "".join(f" --filter {name}" for name in filters or [])
            raise HistoryError(f"{db}: no recorded value of {metric!r}"
                               + (f" for{selection}" if selection else "")
                               + (f" (recorded fields like it: {', '.join(near)})" if near else ""))
        crowded = next((chart for chart in charts if len(chart.lines) > max_lines), None)
        if crowded is not None:
            having = [row[0] for row in connection.execute(
                "SELECT DISTINCT c.experiment FROM fields f JOIN metrics m ON m.field = f.id"
                " JOIN records x ON x.id = m.record_id JOIN cells c ON c.id = x.cell WHERE f.name = ?"
                " ORDER BY c.experiment", (metric,))]
            raise HistoryError(f"{len(crowded.lines)} lines on {crowded.host}'s chart of {metric}, more than"
                               f" --max-lines {max_lines}: narrow it with --experiment ({', '.join(having)})"
                               " or --filter")
    except sqlite3.Error as error:
        raise HistoryError(describe_sqlite_error(db, error, timeout)) from error
    finally:
        connection.close()
    unit = metric_unit(metric, schema)
    stem = "history_" + (f"{experiment}_" if experiment else "") + metric
    for chart in charts:
        steps = chart.steps() if timing else []
        path = draw(chart, metric, unit, experiment, log, out_dir / f"{safe_name(stem)}_{safe_name(chart.host)}.png",
                    steps)
        marked = chart.regression_runs()
        out.write(f"{path}: {plural(len(chart.lines), 'line')} over {plural(len(chart.runs), 'run')}"
                  + (f"; regressions marked at runs {', '.join(map(str, marked))}" if marked else "")
                  + (f"; steps marked: {', '.join(describe_step(chart, label, step) for label, step in steps)}"
                     if steps else "") + "\n")
    return EXIT_OK


def classes_of(schema: Path) -> dict[str, str]:
    try:
        return compare.field_classes(schema)
    except compare.BadInput as error:
        raise HistoryError(str(error)) from error


def short_commit(run: dict) -> str:
    return run["git_commit"][:7] + ("+" if run["git_dirty"] else "")


def describe_step(chart: HostChart, label: str, step: Step) -> str:
    run = chart.runs[step.run]
    return f"{label} at run {run['id']} ({step.ratio:.2f}x)"


# --- steps (the subcommand) -------------------------------------------------------------------

def list_steps(db: Path, metric: str | None, experiment: str | None, host: str | None, suite: str | None,
               filters: list | None, timeout: float, schema: Path, out) -> int:
    timings = timing_metrics(classes_of(schema))
    if metric is not None and metric not in timings:
        near = get_close_matches(metric, sorted(timings))
        raise HistoryError(f"{metric!r} is not a timing field: steps judges timings (a deterministic field is"
                           " judged exactly by compare and the CI baseline)"
                           + (f"; timing fields like it: {', '.join(near)}" if near else ""))
    connection, fresh = open_store(db, timeout, write=False)
    try:
        recorded = set() if fresh else {row[0] for row in connection.execute("SELECT name FROM fields")}
        hosts = [] if fresh else [row[0] for row in connection.execute(
            "SELECT DISTINCT host_name FROM runs ORDER BY host_name")]
        if host is not None and host not in hosts:
            raise HistoryError(f"{db}: no run of host {host!r} (hosts: {', '.join(hosts) or 'none'})")
        metrics = [metric] if metric is not None else sorted(timings & recorded)
        found, series = [], 0
        for name in metrics:
            for chart in chart_data(connection, name, experiment, suite, filters, with_spread=True):
                if host is not None and chart.host != host:
                    continue
                series += len(chart.lines)
                found += [(chart, name, label, step) for label, step in chart.steps()]
    except sqlite3.Error as error:
        raise HistoryError(describe_sqlite_error(db, error, timeout)) from error
    finally:
        connection.close()
    if not series:
        selection = "".join(f" {name} {value}" for name, value in
                            (("--metric", metric), ("--experiment", experiment), ("--host", host),
                             ("--suite", suite)) if value)
        selection += "".join(f" --filter {name}" for name in filters or [])
        raise HistoryError(f"{db}: no recorded timing" + (f" for{selection}" if selection else ""))
    table = [("host", "cell", "metric", "run", "commits", "before -> after", "ratio", "spread", "runs")]
    found.sort(key=lambda item: (item[0].host, item[0].runs[item[3].run]["id"], item[1], item[2]))
    for chart, name, label, step in found:
        last, run = chart.runs[step.run_before], chart.runs[step.run]
        table.append((chart.host, label, name, str(run["id"]), f"{short_commit(last)}..{short_commit(run)}",
                      f"{step.before:.4g} -> {step.after:.4g}", f"{step.ratio:.2f}x", f"{100 * step.spread:.1f}%",
                      f"{step.runs_before}+{step.runs_after}"))
    if found:
        widths = [max(len(row[i]) for row in table) for i in range(len(table[0]))]
        for row in table:
            out.write("  ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip() + "\n")
    out.write(f"history: {plural(len(found), 'step')} in {series} timing series"
              f" (at least {MIN_RUNS_EACH_SIDE} runs each side, a move of at least {MIN_EFFECT:.0%}, one spread"
              f" and {STEP_Z:g} standard errors)"
              + ("; confirm one with amqbench ab of the two commits' builds" if found else "") + "\n")
    return EXIT_OK


# --- the command ------------------------------------------------------------------------------

def parse_args(argv: list[str]):
    parser = compare.OneLineParser(
        prog="history.py",
        description="The results history: record suite runs in an SQLite store keyed by commit, host,"
                    " time and suite; list them; plot a metric over commits; find steps in its timings."
                    " plots/history.py's header says every rule.")
    common = compare.OneLineParser(add_help=False)
    common.add_argument("--db", type=Path, default=DEFAULT_DB, help="the history store (default results/history.sqlite)")
    common.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT,
                        help="seconds to wait for a database another process holds (default 2)")
    common.add_argument("--schema", type=Path, default=load.DEFAULT_SCHEMA,
                        help="the field table (default results/schema.json)")
    commands = parser.add_subparsers(dest="command", required=True, metavar="{record,list,plot,steps}")
    rec = commands.add_parser("record", parents=[common], help="store a finished suite run")
    rec.add_argument("paths", nargs="+", type=Path, metavar="RESULT_DIR_OR_FILE",
                     help="the run's result files, or its out-dir")
    commands.add_parser("list", parents=[common], help="the runs recorded, oldest first")
    plo = commands.add_parser("plot", parents=[common], help="a metric over commits, one PNG per host")
    plo.add_argument("--metric", required=True, help="a record field (results/README.md), e.g. bits_per_key")
    plo.add_argument("--experiment", help="only this experiment's cells")
    plo.add_argument("--suite", help="only runs of this suite")
    plo.add_argument("--filter", action="append", dest="filters", metavar="NAME", help="only this filter (repeatable)")
    plo.add_argument("--log", action="store_true", help="a logarithmic y axis")
    plo.add_argument("--max-lines", type=int, default=30,
                     help="refuse a chart with more lines than this (default 30)")
    plo.add_argument("--out", type=Path, required=True, metavar="DIR", help="where the PNGs go")
    ste = commands.add_parser("steps", parents=[common],
                              help="steps in timings over each host's runs (plots/history.py's header says how)")
    ste.add_argument("--metric", help="one timing field, e.g. query_ns_negative (default: every recorded timing)")
    ste.add_argument("--experiment", help="only this experiment's cells")
    ste.add_argument("--host", help="only this host's runs")
    ste.add_argument("--suite", help="only runs of this suite")
    ste.add_argument("--filter", action="append", dest="filters", metavar="NAME", help="only this filter (repeatable)")
    args = parser.parse_args(argv)
    if not args.timeout >= 0:
        parser.error("--timeout must be >= 0")
    return args


def main(argv: list[str] | None = None, out=None) -> int:
    out = out or sys.stdout
    try:
        args = parse_args(sys.argv[1:] if argv is None else argv)
    except SystemExit as stop:  # argparse: --help (0) or a usage error (2)
        return int(stop.code or 0)
    try:
        if args.command == "record":
            return record(args.paths, args.db, args.timeout, args.schema, out)
        if args.command == "list":
            return list_runs(args.db, args.timeout, out)
        if args.command == "steps":
            return list_steps(args.db, args.metric, args.experiment, args.host, args.suite, args.filters,
                              args.timeout, args.schema, out)
        return plot(args.db, args.metric, args.experiment, args.suite, args.filters, args.log, args.max_lines,
                    args.out, args.timeout, args.schema, out)
    except (HistoryError, OSError) as error:
        print(f"history.py: {error}", file=sys.stderr)
        return EXIT_BAD_INPUT


if __name__ == "__main__":
    sys.exit(main())
