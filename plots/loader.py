"""One loader for every result file amqbench writes.

`load(path)` returns a tidy pandas DataFrame, one row per record:
  * the driver's files (`amqbench run`, `amqbench adapt`): {"schema_version", "context",
    "records": [...]}; nested record fields are flattened with "." (workload.kind), and the
    context's host, CPU, commit and march_native are added to every row;
  * Google Benchmark's JSON (`amqbench_micro --benchmark_out=...`): {"context", "benchmarks"};
    names "filter/operation" are split into `filter` and `operation`, and `ns_per_key` is kept.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

# Benchmark files of a family name their benchmarks "<suite>/<filter>/<operation>".
SUITES = ("quotient_family", "static")

CONTEXT_COLUMNS = ("host_name", "cpu_model", "git_commit", "march_native", "build_type")


class ResultFileError(ValueError):
    """A file that is not a result file amqbench wrote."""


def load(path: str | Path) -> pd.DataFrame:
    path = Path(path)
    try:
        doc = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as error:
        raise ResultFileError(f"{path}: not readable JSON ({error})") from error
    if isinstance(doc, dict) and "records" in doc:
        return _driver_frame(doc, path)
    if isinstance(doc, dict) and "benchmarks" in doc:
        return _gbench_frame(doc, path)
    raise ResultFileError(f"{path}: neither an amqbench result nor Google Benchmark JSON")


def context(path: str | Path) -> dict:
    return json.loads(Path(path).read_text()).get("context", {})


def _driver_frame(doc: dict, path: Path) -> pd.DataFrame:
    frame = pd.json_normalize(doc["records"], sep=".")
    ctx = doc.get("context", {})
    for column in CONTEXT_COLUMNS:
        frame[column] = ctx.get(column)
    frame["source"] = path.name
    frame["complete"] = doc.get("complete", True)
    return frame


def _gbench_frame(doc: dict, path: Path) -> pd.DataFrame:
    rows = []
    for bench in doc["benchmarks"]:
        if bench.get("error_occurred"):
            continue
        name = bench.get("run_name", bench["name"])
        # "<filter>/<operation>/real_time" from harness/micro_bench.cc, or
        # "<suite>/<filter>/<operation...>" from a family's own benchmark file.
        parts = [p for p in name.split("/") if p != "real_time" and ":" not in p]
        if parts[0] in SUITES:
            suite, filter_name, operation = parts[0], parts[1], "/".join(parts[2:])
        else:
            suite, filter_name, operation = "filters", parts[0], "/".join(parts[1:])
        rows.append(
            {
                "suite": suite,
                "filter": filter_name,
                "operation": operation,
                "load": bench.get("load"),
                "aggregate": bench.get("aggregate_name", "iteration")
                if bench.get("run_type") == "aggregate"
                else "iteration",
                "repetition": bench.get("repetition_index"),
                # Google Benchmark stores an inverted rate counter in seconds per key.
                "ns_per_key": bench["ns_per_key"] * 1e9 if "ns_per_key" in bench else None,
                "real_time": bench.get("real_time"),
                "time_unit": bench.get("time_unit"),
            }
        )
    frame = pd.DataFrame(rows)
    ctx = doc.get("context", {})
    frame["host_name"] = ctx.get("host_name")
    frame["source"] = path.name
    return frame


def speed_summary(micro: pd.DataFrame, suite: str = "filters") -> pd.DataFrame:
    """Median, min and max ns/key of each (filter, operation) of one suite over the repetitions."""
    runs = micro[micro["aggregate"] == "iteration"]
    if "suite" in runs:
        runs = runs[runs["suite"] == suite]
    grouped = runs.groupby(["filter", "operation"])["ns_per_key"]
    return grouped.agg(median="median", min="min", max="max", runs="count").reset_index()
