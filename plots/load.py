"""One loader for every result file amqbench writes: a tidy pandas frame, one row per record.

    frame = load.load("results/space.jsonl")     # the rows
    result = load.read("results/space.jsonl")    # the rows plus header, context and completeness

Formats (results/README.md):
  * schema version 2, JSON Lines: a header line, data lines ("cell", "trial", "window", "step";
    "machine" in `amqbench machine`'s files) and, when the run finished, an "end" line. Each line is validated against a JSON Schema
    (<repo>/results/schema.json, written by `amqbench legend --json-schema`; skipped while that
    file does not exist). A truncated last line is an interrupted write: it is dropped and the
    file reads as incomplete.
  * schema version 1: one document {"schema_version": 1, "context", "complete", "records"} from
    `amqbench run` or `amqbench adapt`. Its records are renamed to version 2's vocabulary here,
    so nothing downstream sees version 1 names.
  * Google Benchmark's JSON {"context", "benchmarks"}: names "<filter>/<operation>/n:<n>" or
    "<suite>/<filter>/<operation>/n:<n>" are split into suite, filter, operation and n, and the
    ns_per_key counter (stored by Google Benchmark in seconds per key, as an inverted rate) is
    converted to ns. Files from before n was an argument name no n: theirs is the context's
    "keys" (amqbench_micro's --keys), else 10^6, the default then as now.

Nested fields are flattened with "." (workload.kind). Every driver row also gets the context's
host_name, cpu_model, git_commit, march_native and build_type, plus "source" (the file name)
and "complete".
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

REPO = Path(__file__).resolve().parent.parent
DEFAULT_SCHEMA = REPO / "results" / "schema.json"

CONTEXT_COLUMNS = ("host_name", "cpu_model", "git_commit", "march_native", "build_type")
# "machine": amqbench machine's points (the host measured, no filter; their own schema part).
DATA_RECORDS = ("cell", "trial", "window", "step", "machine")

# Google Benchmark files of a benchmark family name their benchmarks "<suite>/<filter>/<operation>";
# "overhead" is the library's own cost (harness/micro_bench/overhead_bench.cc), no filter's.
BENCHMARK_SUITES = ("quotient_family", "static", "overhead")
# Suites whose benchmarks take n (harness/cell/micro_size.h); the quotient family's axis is load.
SIZED_SUITES = ("filters", "static")
DEFAULT_MICRO_N = 1_000_000  # amqbench_micro's n without --keys

# Version 1 `amqbench adapt` records: their "experiment" field -> (kind, record).
V1_ADAPT_RECORDS = {
    "synthetic": ("adapt_synthetic", "trial"),
    "synthetic_summary": ("adapt_synthetic", "cell"),
    "trace": ("adapt_trace", "cell"),
    "trace_window": ("adapt_trace", "window"),
    "adversarial": ("adapt_adversarial", "trial"),
    "adversarial_summary": ("adapt_adversarial", "cell"),
}
V1_ADAPT_RENAMES = {"filter_bytes": "size_bytes", "keys": "keys_inserted", "queries": "negative_queries"}


class ResultFileError(ValueError):
    """A file that is not a readable result file; the message names the file (and line)."""


@dataclass
class ResultFile:
    path: Path
    format: str  # "v2", "v1" or "gbench"
    frame: pd.DataFrame
    context: dict
    complete: bool
    experiment: dict = field(default_factory=dict)  # version 2 header's experiment
    suite: dict | None = None  # version 2 header's suite (None outside a suite run)
    # The data lines as read (version 1: upgraded; Google Benchmark: one dict per benchmark
    # entry, as the file has it), unflattened and with integers kept exact: what the frame's
    # columns lose (a column with a missing value turns integers into floats).
    records: list = field(default_factory=list)


def load(path: str | Path, schema: str | Path | None = DEFAULT_SCHEMA) -> pd.DataFrame:
    """The tidy frame of one result file (see the module docstring)."""
    return read(path, schema).frame


def read(path: str | Path, schema: str | Path | None = DEFAULT_SCHEMA) -> ResultFile:
    """Read any result file; `schema` validates version 2 lines (None, or a missing file: no
    validation). Raises ResultFileError for anything that is not a result file."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise ResultFileError(f"{path}: cannot read ({error})") from error
    if not text.strip():
        raise ResultFileError(f"{path}: empty file")
    if _first_line_is_header(text):
        return _read_v2(path, text, schema)
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as error:
        raise ResultFileError(f"{path}: not valid JSON ({error.msg} at line {error.lineno},"
                              f" column {error.colno}); truncated or not a result file") from error
    if isinstance(doc, dict) and "records" in doc:
        return _read_v1(path, doc)
    if isinstance(doc, dict) and "benchmarks" in doc:
        return _read_gbench(path, doc)
    raise ResultFileError(f"{path}: neither an amqbench result file (schema version 1 or 2)"
                          " nor Google Benchmark JSON")


def _first_line_is_header(text: str) -> bool:
    first = text.lstrip().split("\n", 1)[0]
    try:
        obj = json.loads(first)
    except json.JSONDecodeError:
        return False
    return isinstance(obj, dict) and obj.get("record") == "header"


def _with_file_columns(frame: pd.DataFrame, context: dict, path: Path, complete: bool) -> pd.DataFrame:
    for column in CONTEXT_COLUMNS:
        frame[column] = context.get(column)
    frame["source"] = path.name
    frame["complete"] = complete
    return frame


# --- schema version 2 -------------------------------------------------------------------------

@functools.lru_cache(maxsize=8)
@functools.lru_cache(maxsize=8)
def _validator(schema_path: str, part: str | None = None):
    """A validator for the whole schema, or for one of its $defs (header, data, end): judged
    against the part its `record` names, a bad line's error names the field, not the oneOf."""
    import jsonschema  # only version 2 files need it

    try:
        schema = json.loads(Path(schema_path).read_text(encoding="utf-8"))
        cls = jsonschema.validators.validator_for(schema)
        cls.check_schema(schema)
    except (OSError, json.JSONDecodeError, jsonschema.SchemaError) as error:
        raise ResultFileError(f"{schema_path}: not a usable JSON Schema ({error})") from error
    if part and part in schema.get("$defs", {}):
        schema = {**schema, **schema["$defs"][part]}
        schema.pop("oneOf", None)
    return cls(schema)


def _schema_error(obj: dict, schema: str | Path | None) -> str | None:
    """The most relevant way a line breaks the schema, as "field 'x': message", or None."""
    if schema is None or not Path(schema).is_file():
        return None
    import jsonschema

    record = obj.get("record")
    part = record if record in ("header", "end", "machine") else "data" if record else None
    error = jsonschema.exceptions.best_match(_validator(str(schema), part).iter_errors(obj))
    if error is None:
        return None
    where = ".".join(str(p) for p in error.absolute_path)
    return f"field '{where}': {error.message}" if where else error.message


def _read_v2(path: Path, text: str, schema: str | Path | None) -> ResultFile:
    lines = text.split("\n")
    numbered = [(n, line) for n, line in enumerate(lines, 1) if line.strip()]
    last_number = numbered[-1][0]
    header, rows, complete = None, [], False
    for number, line in numbered:
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as error:
            if number == last_number:
                break  # a write interrupted mid-line: the run stopped here
            raise ResultFileError(f"{path} line {number}: not valid JSON ({error.msg})") from error
        if not isinstance(obj, dict):
            raise ResultFileError(f"{path} line {number}: not a JSON object")
        problem = _schema_error(obj, schema)
        if problem:
            raise ResultFileError(f"{path} line {number}: {problem}")
        record = obj.get("record")
        if header is None:
            if record != "header" or obj.get("schema_version") != 2:
                raise ResultFileError(f"{path} line {number}: field 'schema_version': expected a"
                                      " schema_version 2 header first")
            header = obj
        elif complete:
            raise ResultFileError(f"{path} line {number}: a record after the end record")
        elif record == "end":
            complete = obj.get("complete", True) is True
        elif record in DATA_RECORDS:
            rows.append(obj)
        else:
            raise ResultFileError(f"{path} line {number}: field 'record': {record!r} is not one of"
                                  f" header, {', '.join(DATA_RECORDS)}, end")
    if header is None:
        raise ResultFileError(f"{path}: the header line is truncated; no records to read")
    # Rows follow the header's cell list (the grid's order), whatever order the lines were
    # written in; lines of one cell keep their file order.
    order = {cell_id: i for i, cell_id in enumerate(header.get("cells") or [])}
    rows.sort(key=lambda row: order.get(row.get("cell_id"), len(order)))
    context = header.get("context") or {}
    frame = pd.json_normalize(rows, sep=".") if rows else pd.DataFrame(
        columns=["record", "cell_id", "seed", "kind", "experiment"])
    return ResultFile(path, "v2", _with_file_columns(frame, context, path, complete), context,
                      complete, header.get("experiment") or {}, header.get("suite"), rows)


# --- schema version 1 -------------------------------------------------------------------------

def _upgrade_v1(record: dict, experiment: str) -> dict:
    """A version 1 record in version 2's vocabulary."""
    v1_experiment = record.get("experiment")
    if v1_experiment in V1_ADAPT_RECORDS:
        kind, kind_of_record = V1_ADAPT_RECORDS[v1_experiment]
        out = {}
        for name, value in record.items():
            renamed = V1_ADAPT_RENAMES.get(name, name)
            if renamed in record and renamed != name:
                renamed = name  # never overwrite a field the record already has
            out[renamed] = value
    else:
        kind, kind_of_record, out = "filters", "cell", dict(record)
    out.update(record=kind_of_record, kind=kind, experiment=experiment, cell_id=None)
    return out


def _read_v1(path: Path, doc: dict) -> ResultFile:
    if doc.get("schema_version") != 1:
        raise ResultFileError(f"{path}: field 'schema_version': {doc.get('schema_version')!r};"
                              " a single-document result file is schema version 1")
    records = doc["records"]
    if not isinstance(records, list) or not all(isinstance(r, dict) for r in records):
        raise ResultFileError(f"{path}: field 'records': not a list of objects")
    experiment = path.stem
    rows = [_upgrade_v1(r, experiment) for r in records]
    context = doc.get("context") or {}
    complete = doc.get("complete", True) is True
    frame = pd.json_normalize(rows, sep=".") if rows else pd.DataFrame(
        columns=["record", "cell_id", "seed", "kind", "experiment"])
    return ResultFile(path, "v1", _with_file_columns(frame, context, path, complete), context, complete,
                      records=rows)


# --- Google Benchmark -------------------------------------------------------------------------

def split_benchmark_name(name: str) -> tuple[str, str, str]:
    """(suite, filter, operation) of a Google Benchmark name: "<filter>/<operation>/real_time"
    from the filters' benchmarks (suite "filters"), or "<suite>/<filter>/<operation...>" from a
    benchmark family's own file; "real_time" and "key:value" parts (n:1048576) are left out."""
    parts = [p for p in name.split("/") if p != "real_time" and ":" not in p]
    if parts[0] in BENCHMARK_SUITES:
        return parts[0], parts[1], "/".join(parts[2:])
    return "filters", parts[0], "/".join(parts[1:])


def benchmark_n(name: str) -> int | None:
    """The n a Google Benchmark name holds ("bloom/insert/n:1048576/real_time"), or None."""
    for part in name.split("/"):
        if part.startswith("n:") and part[2:].isdigit():
            return int(part[2:])
    return None


def default_n(context: dict) -> int:
    """The n of a file's benchmarks that name none: the one n of its context's "keys" (written by
    amqbench_micro since n became an argument), else 10^6."""
    keys = str((context or {}).get("keys", "")).split(",")
    return int(keys[0]) if len(keys) == 1 and keys[0].isdigit() else DEFAULT_MICRO_N


def canonical_benchmark_name(name: str, context: dict) -> str:
    """The name with its n: a sized benchmark named before n was an argument gets "n:<n>" where
    amqbench_micro puts it now (after the operation), so files from before and after match."""
    suite, _, _ = split_benchmark_name(name)
    if suite not in SIZED_SUITES or benchmark_n(name) is not None:
        return name
    parts = name.split("/")
    at = next((i for i, p in enumerate(parts) if ":" in p or p == "real_time"), len(parts))
    return "/".join(parts[:at] + [f"n:{default_n(context)}"] + parts[at:])


def cache_sizes(context: dict) -> list[tuple[str, int]]:
    """(name, bytes) of a context's data and unified caches, smallest first: amqbench's list
    ({level, type, size "48K"} from sysfs, or {level "L1d", bytes} from glibc), Google
    Benchmark's ({level, type, size in bytes}), else amqbench_micro's "amq_caches" text
    ("L1d:49152,L2:1048576"), written because Google Benchmark's list is empty where sysfs has
    none."""
    units = {"K": 2**10, "M": 2**20, "G": 2**30}
    found = {}
    for cache in (context or {}).get("caches") or []:
        if not isinstance(cache, dict) or cache.get("type") == "Instruction":
            continue
        size = cache.get("bytes", cache.get("size"))
        if isinstance(size, str) and size[:-1].isdigit() and size[-1:] in units:
            size = int(size[:-1]) * units[size[-1]]
        elif isinstance(size, str) and size.isdigit():
            size = int(size)
        level = cache.get("level")
        name = level if isinstance(level, str) else f"L{level}" + ("d" if cache.get("type") == "Data" else "")
        if isinstance(size, int) and size > 0:
            found[name] = size
    if not found:
        for item in str((context or {}).get("amq_caches", "")).split(","):
            name, _, size = item.partition(":")
            if name and size.isdigit():
                found[name] = int(size)
    return sorted(found.items(), key=lambda item: item[1])


def at_one_n(frame: pd.DataFrame, preferred: int = DEFAULT_MICRO_N) -> pd.DataFrame:
    """A Google Benchmark frame's rows at one n - `preferred` where the frame has it, else its
    largest - for tables of one n (FastFilter's is 10^6); rows without an n (the quotient
    family's) are kept."""
    if "n" not in frame or frame["n"].nunique() <= 1:
        return frame
    sizes = set(frame["n"].dropna())
    chosen = preferred if preferred in sizes else max(sizes)
    return frame[frame["n"].isna() | (frame["n"] == chosen)]


def _read_gbench(path: Path, doc: dict) -> ResultFile:
    context = doc.get("context") or {}
    rows = []
    for bench in doc["benchmarks"]:
        if not isinstance(bench, dict) or "name" not in bench:
            raise ResultFileError(f"{path}: field 'benchmarks': an entry without a name")
        if bench.get("error_occurred"):
            continue
        name = bench.get("run_name", bench["name"])
        suite, filter_name, operation = split_benchmark_name(name)
        n = benchmark_n(name)
        if n is None and suite in SIZED_SUITES:
            n = default_n(context)
        aggregate = bench.get("aggregate_name", "iteration") if bench.get("run_type") == "aggregate" \
            else "iteration"
        rows.append({
            "suite": suite,
            "filter": filter_name,
            "operation": operation,
            "n": n,
            "load": bench.get("load"),
            "aggregate": aggregate,
            "repetition": bench.get("repetition_index"),
            # Google Benchmark stores an inverted rate counter in seconds per key.
            "ns_per_key": bench["ns_per_key"] * 1e9 if "ns_per_key" in bench else None,
            "bits_per_key": bench.get("bits_per_key"),
            "real_time": bench.get("real_time"),
            "time_unit": bench.get("time_unit"),
        })
    frame = pd.DataFrame(rows, columns=["suite", "filter", "operation", "n", "load", "aggregate",
                                        "repetition", "ns_per_key", "bits_per_key", "real_time", "time_unit"])
    frame["n"] = pd.to_numeric(frame["n"], errors="coerce").astype(float)  # NaN: no n (quotient family)
    frame["host_name"] = context.get("host_name")
    frame["experiment"] = path.stem
    frame["source"] = path.name
    frame["complete"] = True
    return ResultFile(path, "gbench", frame, context, True, records=list(doc["benchmarks"]))
