"""What a report is made from: the suite (which experiments exist, their sections and charts)
and the result files one run of it left in a directory.

Sections find their experiments through a ResultSet by the suite's `section = "..."` (never by
id: `experiments`); it loads each file once, draws a chart only when a section shows it, and
collects every verdict a section prints for the summary.
"""

from __future__ import annotations

import functools
import json
import os
import subprocess
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType

import pandas as pd

import charts
import load
import stats


@dataclass(frozen=True)
class Experiment:
    id: str
    kind: str
    title: str
    section: str
    charts: tuple[str, ...] = ()
    build: str = ""  # micro: the amqbench_micro build it ran, "portable" or "native"
    keys: tuple[int, ...] = ()  # micro: the n list it ran at (amqbench_micro --keys); () for 10^6
    timed: bool = True  # whether the report reads its timings (false: it may run beside others)
    # Every other key the suite gives it (keys, fpr, load_steps, trace, queries_per_set, ...), as
    # the suite file has them (not --quick's): what a section tells experiments of one section
    # apart by.
    params: MappingProxyType = field(default_factory=lambda: MappingProxyType({}), compare=False)

    def param_values(self, name: str) -> list:
        """A parameter's values as a list (a scalar is one value; absent: none)."""
        value = self.params.get(name)
        return [] if value is None else list(value) if isinstance(value, list) else [value]


@functools.cache
def timing_fields() -> frozenset[str]:
    """The record fields results/schema.json marks as timings (x-reproducibility "timing")."""
    doc = json.loads(load.DEFAULT_SCHEMA.read_text(encoding="utf-8"))
    return frozenset(name for name, spec in doc["$defs"]["data"]["properties"].items()
                     if spec.get("x-reproducibility") == "timing")


# An experiment's keys that are not its parameters: what it is called, where the report shows
# it, whether it may run beside others (timed = false), and --quick's and --full's overrides.
NOT_PARAMS = ("id", "kind", "title", "section", "charts", "timed", "quick", "full")


@dataclass
class Suite:
    name: str
    path: Path
    experiments: list[Experiment]

    @classmethod
    def read(cls, path: str | Path) -> "Suite":
        path = Path(path)
        with path.open("rb") as handle:
            doc = tomllib.load(handle)
        experiments = [
            Experiment(e["id"], e.get("kind", ""), e.get("title", e["id"]), e.get("section", e["id"]),
                       tuple(e.get("charts", [])), e.get("build", ""), tuple(e.get("keys", [])),
                       bool(e.get("timed", True)),
                       MappingProxyType({k: v for k, v in e.items() if k not in NOT_PARAMS}))
            for e in doc.get("experiment", [])
        ]
        return cls(doc.get("suite", {}).get("name", path.stem), path, experiments)

    def sections(self) -> list[str]:
        """Section ids in the order the suite first names them."""
        return list(dict.fromkeys(e.section for e in self.experiments))

    def experiment(self, experiment_id: str) -> Experiment | None:
        return next((e for e in self.experiments if e.id == experiment_id), None)


@dataclass
class Check:
    """One claim judged against the numbers: what was claimed, what was measured, the verdict.

    A check judged with stats.verdict may also keep its numbers (measured, expected, the
    tolerances and how it read the claim, `judged_as`), so plots/claims.py can judge it again as
    the kind of claim the source makes (a bound as a bound); and the conditions it was measured
    under (e.g. {"load": 0.954}), which claims.py compares with the source's."""

    section: str
    claim: str
    evidence: str
    tolerance: str
    verdict: str
    measured: float | None = None
    expected: float | None = None
    rel_tol: float | None = None
    abs_tol: float | None = None
    judged_as: str = ""  # stats.verdict's claim argument the section used; "" when no numbers are kept
    conditions: Mapping[str, float] = field(default_factory=dict)
    # A speed check whose result file predates a commit that can change speed: why, else "".
    stale: str = ""

    @property
    def prose(self) -> str:
        flag = f" ⚠ {self.stale}" if self.stale else ""
        return f"{self.claim}: {self.evidence} (tolerance {self.tolerance}) → **{self.verdict}**{flag}"

    @property
    def cell(self) -> str:
        return verdict_cell(self.verdict)


@dataclass
class ResultSet:
    suite: Suite
    directory: Path
    report_dir: Path
    schema: Path | None = load.DEFAULT_SCHEMA
    checks: list[Check] = field(default_factory=list)
    drawn: list[Path] = field(default_factory=list)
    errors: dict[str, str] = field(default_factory=dict)
    _files: dict[str, load.ResultFile | None] = field(default_factory=dict)
    _figures: dict[tuple[str, str], str] = field(default_factory=dict)

    # --- files ----------------------------------------------------------------------------

    def path_of(self, experiment_id: str) -> Path | None:
        """<id>.jsonl (schema version 2), else <id>.json (version 1 or Google Benchmark)."""
        for suffix in (".jsonl", ".json"):
            candidate = self.directory / f"{experiment_id}{suffix}"
            if candidate.is_file():
                return candidate
        return None

    def file(self, experiment_id: str) -> load.ResultFile | None:
        """The loaded file of an experiment, or None when it is missing or unreadable (the
        reason is kept in `errors` and the report's list of what was left out)."""
        if experiment_id not in self._files:
            path = self.path_of(experiment_id)
            result = None
            if path is not None:
                try:
                    result = load.read(path, self.schema)
                except load.ResultFileError as error:
                    self.errors[experiment_id] = str(error)
            self._files[experiment_id] = result
        return self._files[experiment_id]

    def experiments(self, section: str | None = None, kind: str | None = None) -> list[Experiment]:
        """The suite's experiments of a report section (the suite file's `section = "..."`; None:
        every section), of one kind if given, whose result file could be read, in suite order.
        Sections find their experiments here and never by id, so an experiment renamed in the
        suite file is still found; a section that gives experiments of one section different roles
        tells them apart by kind or by their parameters (Experiment.params)."""
        return [e for e in self.suite.experiments
                if (section is None or e.section == section) and (kind is None or e.kind == kind)
                and self.file(e.id) is not None]

    def frame(self, experiment_id: str, record: str | None = "cell") -> pd.DataFrame | None:
        """The experiment's rows of one record type ("cell", "trial", "window", "step"; None: all).
        Google Benchmark files have no record types: all their rows."""
        result = self.file(experiment_id)
        if result is None:
            return None
        frame = result.frame
        if result.experiment.get("timed") is False:
            # timed = false: the suite may have run it beside another (--jobs); a section that
            # reads its timings gets none, never a number taken on a shared machine.
            frame = frame.drop(columns=[c for c in frame.columns if c in timing_fields()])
        if record is None or result.format == "gbench" or "record" not in frame:
            return frame
        return frame[frame["record"] == record].reset_index(drop=True)

    def title(self, experiment_id: str) -> str:
        experiment = self.suite.experiment(experiment_id)
        return experiment.title if experiment else experiment_id

    def made_by(self, experiment_id: str) -> str:
        """How the file was made, for the line under each table."""
        result = self.file(experiment_id)
        if result is None:
            return f"no result file for `{experiment_id}`"
        command = result.context.get("command_line") or result.context.get("executable")
        parts = [f"`{command}`" if command else "(command not recorded)"]
        if result.suite:
            quick = ", --quick" if result.suite.get("quick") else ", --full" if result.suite.get("full") else ""
            parts.append(f"(suite `{result.suite.get('file', result.suite.get('name'))}`,"
                         f" experiment `{experiment_id}`{quick})")
        elif result.format == "gbench":
            parts.append(f"(Google Benchmark JSON, `{result.path.name}`)")
        if not result.complete:
            parts.append("— **incomplete: the run was interrupted**")
        return "Made by " + " ".join(parts) + "."

    @property
    def manifest(self) -> dict | None:
        """<results>/suite_run.json, written by a suite run; None when absent or unreadable."""
        path = self.directory / "suite_run.json"
        try:
            return json.loads(path.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError):
            return None

    def commit_of(self, experiment_id: str) -> tuple[str | None, bool]:
        """The commit an experiment's file was made from, and whether the tree had uncommitted
        changes: from the file's context, else (Google Benchmark files) from the suite run's
        manifest, which records the run each experiment's file comes from."""
        result = self.file(experiment_id)
        context = result.context if result is not None else {}
        if context.get("git_commit"):
            return context["git_commit"], bool(context.get("git_dirty"))
        manifest = self.manifest or {}
        entry = next((e for e in manifest.get("experiments", []) if isinstance(e, dict) and e.get("id") == experiment_id), None)
        if entry is None:
            return None, False
        run = entry["from_run"] if isinstance(entry.get("from_run"), dict) else manifest.get("context") or {}
        return run.get("git_commit"), bool(run.get("git_dirty"))

    def speed_staleness(self, experiment_id: str) -> str:
        """Why timings from this experiment's file may not be the current code's: commits since
        its own that touch SPEED_PATHS, or uncommitted changes it was made with; "" when it is
        current or git cannot tell (no repository here)."""
        commit, dirty = self.commit_of(experiment_id)
        if not commit or commit == "unknown":
            return f"stale? `{experiment_id}` records no commit"
        newer = commits_since(self.directory, commit)
        if newer is None and in_repository(self.directory):
            return f"stale? `{experiment_id}` comes from {commit[:7]}, a commit this repository does not have"
        if newer:
            shown = ", ".join(newer[:3]) + (", ..." if len(newer) > 3 else "")
            return (f"stale: `{experiment_id}` comes from {commit[:7]}; {len(newer)} later commit"
                    f"{'s' if len(newer) != 1 else ''} can change speed ({shown})")
        if dirty:
            return f"stale? `{experiment_id}` was made from uncommitted changes to {commit[:7]}"
        return ""

    # --- charts and verdicts ----------------------------------------------------------------

    def figures(self, experiment_id: str) -> str:
        """Markdown images of the charts the suite lists for an experiment, drawn on first use
        as <results>/<id>_<chart>.png and linked relative to the report."""
        experiment = self.suite.experiment(experiment_id)
        frame = self.frame(experiment_id, record=None)
        if experiment is None or frame is None:
            return ""
        images = []
        for name in experiment.charts:
            key = (experiment_id, name)
            if key not in self._figures:
                self._figures[key] = self._draw(experiment, name, frame)
            if self._figures[key]:
                images.append(self._figures[key])
        return "\n\n".join(images)

    def _draw(self, experiment: Experiment, name: str, frame: pd.DataFrame) -> str:
        draw = charts.CHARTS.get(name)
        if draw is None:
            return f"_The suite asks for a chart `{name}` that plots/charts.py does not draw._"
        return self.figure(f"{experiment.id}_{name}", f"{experiment.title}: {name}",
                           lambda out: draw(frame, out, experiment.title))

    def figure(self, stem: str, alt: str, draw) -> str:
        """A chart `draw(path)` writes as <results>/<stem>.png, as a Markdown image linked
        relative to the report; "" when draw returns None (nothing to draw)."""
        out = self.directory / f"{stem}.png"
        if draw(out) is None:
            return ""
        self.drawn.append(out)
        link = Path(os.path.relpath(out.resolve(), self.report_dir.resolve())).as_posix()
        return f"![{alt}]({link})"

    def check(self, section: str, claim: str, evidence: str, verdict: str, tolerance: str,
              speed_of: str | None = None, **numbers) -> Check:
        """Record a judged claim for the report's summary; print it with .prose or .cell. `numbers`
        are Check's optional fields (measured, expected, rel_tol, abs_tol, judged_as, conditions).
        A check of timings names the experiment they come from (`speed_of`), so a verdict taken
        from a file older than a commit that can change speed is flagged (speed_staleness)."""
        if speed_of is not None:
            numbers["stale"] = self.speed_staleness(speed_of)
        judged = Check(section, claim, evidence, tolerance, verdict, **numbers)
        self.checks.append(judged)
        return judged


# What can change a timing: the filters, the core they build on, the measuring loops, the build.
# Tests, the headers only tests include (*_test_support.h) and prose cannot. Paths from the
# repository's top, wherever the results directory is.
SPEED_PATHS = (":(top)filters", ":(top)core", ":(top)harness/cell", ":(top)harness/micro_bench",
               ":(top)CMakeLists.txt", ":(top)scripts/build.sh",
               ":(top,exclude)*_test.cc", ":(top,exclude)*_test.h", ":(top,exclude)*_test_support.h",
               ":(top,exclude)*.md")


def commits_since(repository: Path, commit: str, paths: tuple[str, ...] = SPEED_PATHS) -> list[str] | None:
    """The commits after `commit` up to HEAD that touch `paths` (newest first, short hashes), or
    None when git cannot tell (no repository, or a commit it does not have)."""
    try:
        done = subprocess.run(["git", "-C", str(repository), "log", "--format=%h", f"{commit}..HEAD", "--", *paths],
                              capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.split() if done.returncode == 0 else None


def in_repository(path: Path) -> bool:
    """Whether git sees a repository at path (so a commit it cannot find is really unknown)."""
    try:
        done = subprocess.run(["git", "-C", str(path), "rev-parse", "--git-dir"], capture_output=True,
                              text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return False
    return done.returncode == 0


def verdict_cell(verdict: str) -> str:
    """A verdict as a table cell; "reproduced" stays plain so the exceptions stand out."""
    return verdict if verdict == stats.REPRODUCED else f"**{verdict}**"
