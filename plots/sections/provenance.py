"""Where the numbers come from: machines, builds, commits, the command behind every file, and
the suite's wall time per experiment when the run left a manifest (suite_run.json)."""

from __future__ import annotations

from datetime import datetime, timezone

from report_format import caches, count, table
from result_set import ResultSet


def _distinct(values: list[str]) -> list[str]:
    return list(dict.fromkeys(v for v in values if v))


def _as_utc(date: object) -> str | None:
    """Google Benchmark's "2026-12-05T05:19:17+00:00" as the driver's "2026-12-05T05:19:17Z"."""
    if not isinstance(date, str):
        return None
    try:
        moment = datetime.fromisoformat(date)
    except ValueError:
        return None
    if moment.tzinfo is None:
        return None
    return moment.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _seconds(entries: list[dict]) -> float:
    return sum(e["seconds"] for e in entries if isinstance(e.get("seconds"), (int, float)))


def _suite_runs(manifest: dict) -> str:
    """The manifest's runs: the last one's wall time, and the runs whose experiments a later
    --only run kept (each entry's from_run), with their commits."""
    suite = manifest.get("suite") if isinstance(manifest.get("suite"), dict) else {}
    quick = ", --quick" if suite.get("quick") else ""
    name = (f"`{suite['file']}` (suite {suite.get('name')}{quick})" if suite.get("file")
            else f"suite {suite.get('name', '?')}{quick}")
    entries = [e for e in manifest.get("experiments", []) if isinstance(e, dict)]
    now = [e for e in entries if not isinstance(e.get("from_run"), dict)]
    command = (manifest.get("context") or {}).get("command_line")
    text = (f"- Suite run of {name}: the last run{f' (`{command}`)' if command else ''} ran {len(now)}"
            f" experiment{'s' if len(now) != 1 else ''} in {manifest.get('wall_seconds', 0):,.0f} s wall time")
    earlier: dict[tuple, list[dict]] = {}
    for e in entries:
        if isinstance(e.get("from_run"), dict):
            run = e["from_run"]
            earlier.setdefault((run.get("git_commit"), run.get("time_utc")), []).append(e)
    for (commit, time), kept in earlier.items():
        text += (f"; {len(kept)} more {'comes' if len(kept) == 1 else 'come'} from an earlier run (commit `{str(commit)[:7]}`, {time}),"
                 f" {_seconds(kept):,.0f} s of experiment time")
    return text + (f"; {_seconds(entries):,.0f} s of experiment time in all." if earlier else ".")


# A quarter of a core for a whole timed experiment: the line above which the suite warns
# (harness/run/others_cpu.h, kQuietMachineMaxOthersCores); an idle VM shows 0.00-0.02.
QUIET_MAX_OTHERS_CORES = 0.25


def _others(entry: dict) -> float | None:
    value = entry.get("others_cpu_cores")
    return float(value) if isinstance(value, (int, float)) else None


def _quiet_machine(loaded, manifest_entries: dict) -> str | None:
    """One line on whether the timed experiments ran on a quiet machine: the CPU other processes
    used while each ran (recorded by the suite since it measures it), and which ran beside work."""
    timed = [(e.id, _others(manifest_entries.get(e.id, {}))) for e, _ in loaded if e.timed]
    measured = [(i, o) for i, o in timed if o is not None]
    if not measured:
        return None
    busy = [(i, o) for i, o in measured if o > QUIET_MAX_OTHERS_CORES]
    worst = max(measured, key=lambda p: p[1])
    if not busy:
        return (f"- Quiet machine: while each of the {len(measured)} timed experiments ran, other"
                f" processes used at most {worst[1]:.2f} cores on average (`{worst[0]}`).")
    return ("- **Not a quiet machine**: other processes used more than"
            f" {QUIET_MAX_OTHERS_CORES} cores on average while " + ", ".join(f"`{i}` ({o:.2f})" for i, o in busy)
            + " ran; their timings read slower than this machine's alone and their verdicts on speed"
            " are suspect.")


def render(results: ResultSet) -> str | None:
    loaded = [(e, results.file(e.id)) for e in results.experiments()]
    if not loaded:
        return None
    driver = [f.context for _, f in loaded if f.format != "gbench"]
    machines = _distinct([
        f"`{c.get('host_name')}`, {c.get('cpu_model')}, {c.get('cores')} cores"
        + (f", caches {caches(c)}" if c.get("caches") else "") + f"; {c.get('kernel', '?')}"
        + f"; BMI2 {'yes' if c.get('cpu_has_bmi2') else 'no'}, AVX2 {'yes' if c.get('cpu_has_avx2') else 'no'}"
        for c in driver])
    builds = _distinct([
        f"{c.get('compiler')}, `{str(c.get('compiler_flags', '')).strip()}`, {c.get('build_type')},"
        f" -march=native {'on' if c.get('march_native') else 'off'}" for c in driver])
    commits = _distinct([f"`{c.get('git_commit')}`" + (" (with uncommitted changes)" if c.get("git_dirty") else "")
                         for c in driver])
    benchmark_hosts = _distinct([f"`{f.context.get('host_name')}`, {f.context.get('num_cpus')} CPUs at"
                                 f" {f.context.get('mhz_per_cpu')} MHz (Google Benchmark library built"
                                 f" {f.context.get('library_build_type')})" for _, f in loaded if f.format == "gbench"])
    suites = _distinct([f"`{f.suite.get('file')}` (suite {f.suite.get('name')}, hash `{f.suite.get('file_hash')}`"
                        + (", --quick" if f.suite.get("quick") else "") + ")"
                        for _, f in loaded if f.suite])
    # When each file's experiment started: the driver's files stamp their header, Google
    # Benchmark's its context ("date", with an offset); the last experiment's start, not the run's
    # end, which the suite run's wall time below gives.
    times = _distinct([c.get("time_utc") for c in driver]
                      + [_as_utc(f.context.get("date")) for _, f in loaded if f.format == "gbench"])

    def line(label: str, values: list[str]) -> str:
        if len(values) <= 1:
            return f"- {label}: {values[0] if values else 'not recorded'}."
        return f"- {label} (**{len(values)} different** across the files): " + "; ".join(values) + "."

    manifest = results.manifest or {}
    seconds = {e.get("id"): e for e in manifest.get("experiments", []) if isinstance(e, dict)}
    rows = []
    for experiment, result in loaded:
        run = seconds.get(experiment.id, {})
        rows.append([experiment.id, experiment.section, f"`{result.path.name}`", result.format,
                     count(len(result.frame)), "yes" if result.complete else "**no (interrupted)**",
                     f"{run['seconds']:,.0f}" if isinstance(run.get("seconds"), (int, float)) else "–",
                     f"{_others(run):.2f}" if _others(run) is not None else "–",
                     result.context.get("command_line") or result.context.get("executable") or "–"])
    parts = [
        "## Where these numbers come from",
        "",
        line("Machine", machines),
        *([line("Google Benchmark runs", benchmark_hosts)] if benchmark_hosts else []),
        line("Build", builds),
        line("Commit", commits),
        *([line("Suite", suites)] if suites else []),
        f"- Experiments started between {min(times)} and {max(times)} (UTC)." if times else "- Run time not recorded.",
    ]
    if manifest:
        parts.append(_suite_runs(manifest))
        skipped = [f"`{e.get('id')}` ({e.get('skipped')})" for e in manifest.get("experiments", [])
                   if isinstance(e, dict) and e.get("skipped")]
        if skipped:
            parts.append("- Skipped by the run: " + ", ".join(skipped) + ".")
        quiet = _quiet_machine(loaded, seconds)
        if quiet:
            parts.append(quiet)
    parts += [
        "- Timings: median [min–max] over the repeats each command gives, ns per key; builds and"
        " inserts run on pre-faulted memory (an untimed warm-up build first; a dynamic filter's table"
        " is allocated and zeroed outside the timed loop). These VMs are shared: compare speeds as"
        " ratios within one run.",
        "",
        table(["experiment", "section", "file", "format", "rows", "complete", "seconds",
               "others' CPU (cores)", "command"],
              [[*r[:-1], f"`{r[-1]}`" if r[-1] != "–" else "–"] for r in rows]),
    ]
    return "\n".join(parts)
