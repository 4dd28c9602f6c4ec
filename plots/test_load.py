"""The loader against fixture files of every format (plots/fixtures/README.md)."""

import json
from pathlib import Path

import pytest

import compare
import load

FIXTURES = Path(__file__).resolve().parent / "fixtures"
SCHEMA = FIXTURES / "schema.json"
V2_SPACE = FIXTURES / "v2" / "space.jsonl"


def write_lines(path: Path, lines: list[str], end: str = "\n") -> Path:
    path.write_text("\n".join(lines) + end)
    return path


def test_v1_run_records_read_in_v2_vocabulary():
    frame = load.load(FIXTURES / "space.json")
    assert len(frame) == 6
    assert set(frame["record"]) == {"cell"} and set(frame["kind"]) == {"filters"}
    assert set(frame["experiment"]) == {"space"} and frame["cell_id"].isna().all()
    for column in ("filter", "family", "bits_per_key", "fpr", "fpr_theory", "false_negatives",
                   "workload.kind", "host_name", "git_commit", "source", "complete"):
        assert column in frame, column
    assert set(frame["filter"]) == {"bloom", "blocked_bloom", "cuckoo"}
    assert frame["complete"].all()


def test_v1_adapt_records_are_renamed(tmp_path):
    common = {"filter": "acf_cyclic", "seed": 1, "bits_per_slot": 8}
    records = [
        dict(common, experiment="synthetic", trial=0, keys=10, queries=100, filter_bytes=64, fpr=0.01),
        dict(common, experiment="synthetic_summary", trials=1, queries=100, filter_bytes=64, fpr=0.01),
        dict(common, experiment="trace", keys=10, queries=50, filter_bytes=64, fpr=0.02),
        dict(common, experiment="trace_window", window=0, queries=5, fpr=0.0),
        dict(common, experiment="adversarial_summary", queries=20, fpr=0.001),
    ]
    path = tmp_path / "adapt_mix.json"
    path.write_text(json.dumps({"schema_version": 1, "context": {"host_name": "h"}, "complete": False,
                                "records": records}))
    frame = load.load(path)
    assert list(frame["kind"]) == ["adapt_synthetic", "adapt_synthetic", "adapt_trace", "adapt_trace",
                                   "adapt_adversarial"]
    assert list(frame["record"]) == ["trial", "cell", "cell", "window", "cell"]
    assert set(frame["experiment"]) == {"adapt_mix"}
    assert list(frame["negative_queries"]) == [100, 100, 50, 5, 20]
    assert frame.loc[0, "size_bytes"] == 64 and frame.loc[0, "keys_inserted"] == 10
    for old in ("queries", "filter_bytes", "keys"):
        assert old not in frame, old
    assert not frame["complete"].any()


def test_v2_file_validates_and_reads():
    result = load.read(V2_SPACE, SCHEMA)
    assert result.format == "v2" and result.complete
    assert result.experiment["id"] == "space" and result.suite["name"] == "fixture"
    frame = result.frame
    assert len(frame) == 6
    assert frame["cell_id"].str.fullmatch("[0-9a-f]{16}").all()
    assert set(frame["host_name"]) == {"vm"} and set(frame["source"]) == {"space.jsonl"}


def test_v2_wrong_type_names_file_line_and_field(tmp_path):
    lines = V2_SPACE.read_text().splitlines()
    cell = json.loads(lines[2])
    cell["fpr"] = "abc"
    lines[2] = json.dumps(cell)
    path = write_lines(tmp_path / "x.jsonl", lines)
    with pytest.raises(load.ResultFileError) as caught:
        load.read(path, SCHEMA)
    message = str(caught.value)
    assert message.startswith(f"{path} line 3: field 'fpr': 'abc' is not of type 'number'")
    # Without a schema file the same line loads: validation is skipped, not faked.
    assert load.read(path, tmp_path / "absent_schema.json").frame.loc[1, "fpr"] == "abc"


def test_v2_truncated_last_line_is_an_interrupted_run(tmp_path):
    lines = V2_SPACE.read_text().splitlines()[:-1]  # drop the end record
    lines[-1] = lines[-1][: len(lines[-1]) // 2]  # and cut the last cell mid-write
    result = load.read(write_lines(tmp_path / "cut.jsonl", lines, end=""), SCHEMA)
    assert not result.complete
    assert len(result.frame) == 5 and not result.frame["complete"].any()


def test_v2_broken_line_before_the_last_is_an_error(tmp_path):
    lines = V2_SPACE.read_text().splitlines()
    lines[3] = lines[3][:40]
    with pytest.raises(load.ResultFileError, match=r"line 4: not valid JSON"):
        load.read(write_lines(tmp_path / "broken.jsonl", lines), SCHEMA)


def test_v2_lines_group_by_cell_id_in_any_order():
    frame = load.load(FIXTURES / "v2" / "adapt_trace_synth.jsonl", SCHEMA)
    cells, windows = frame[frame["record"] == "cell"], frame[frame["record"] == "window"]
    assert len(cells) == 2 and len(windows) == 6
    assert windows.groupby("cell_id").size().to_dict() == {c: 3 for c in cells["cell_id"]}


def test_google_benchmark_in_ns_per_key():
    frame = load.load(FIXTURES / "micro.json")
    assert set(frame["filter"]) == {"bloom", "cuckoo12"}
    assert set(frame["operation"]) == {"insert", "query_present", "query_absent"}
    # Seconds per key in the file; a filter at n = 10^6 takes between 0.1 and 10^4 ns per key.
    assert frame["ns_per_key"].between(0.1, 1e4).all()


@pytest.mark.parametrize("text, message", [
    (json.dumps({"hello": 1}), "neither an amqbench result file"),
    ("{not json", "not valid JSON"),
    ("", "empty file"),
    (json.dumps({"schema_version": 3, "records": []}), "field 'schema_version'"),
    ('{"record": "header", "schema_version": 1}\n', "schema_version 2 header"),
])
def test_foreign_or_broken_files_fail_with_one_message(tmp_path, text, message):
    path = tmp_path / "bad.json"
    path.write_text(text)
    with pytest.raises(load.ResultFileError, match=message) as caught:
        load.read(path, None)
    assert str(path) in str(caught.value)


# Files the binary itself wrote (amqbench suite suites/default.toml --quick), judged against the
# schema it generates (results/schema.json): what amqbench writes, the loader accepts, and a
# field broken in it is named.
WRITTEN = Path(__file__).resolve().parent / "fixtures" / "written"
REAL_SCHEMA = Path(__file__).resolve().parent.parent / "results" / "schema.json"


def test_the_real_schema_accepts_what_amqbench_writes():
    for name in ("seed_lab.jsonl", "adapt_adversarial.jsonl"):
        frame = load.load(WRITTEN / name, schema=REAL_SCHEMA)
        assert len(frame) > 0
        assert (frame["false_negatives"] == 0).all()


def test_the_real_schema_names_a_broken_field(tmp_path):
    lines = (WRITTEN / "seed_lab.jsonl").read_text().splitlines()
    record = json.loads(lines[1])
    record["bits_per_key"] = "eleven"
    lines[1] = json.dumps(record)
    broken = tmp_path / "broken.jsonl"
    broken.write_text("\n".join(lines) + "\n")
    with pytest.raises(load.ResultFileError, match=r"line 2: field 'bits_per_key': 'eleven' is not of type 'number'"):
        load.load(broken, schema=REAL_SCHEMA)


# --- n in Google Benchmark names (harness/cell/micro_size.h) -----------------------------------------

MICRO_N = FIXTURES / "micro_n.json"  # today's shape: bloom and xor8 at three n
MICRO = FIXTURES / "micro.json"  # written before n was an argument: names without n
SIZES = [1024, 65536, 4194304]


def test_names_split_into_filter_operation_and_n():
    assert load.split_benchmark_name("bloom/insert/n:1048576/real_time") == ("filters", "bloom", "insert")
    assert load.benchmark_n("bloom/insert/n:1048576/real_time") == 1048576
    assert load.split_benchmark_name("static/xor8/build_cold/n:1024/real_time") == ("static", "xor8", "build_cold")
    assert load.benchmark_n("quotient_family/rsqf/insert/10-25/iterations:5/real_time") is None


def test_the_loader_has_an_n_column():
    frame = load.load(MICRO_N)
    assert sorted(frame["n"].unique()) == SIZES
    runs = frame[frame["aggregate"] == "iteration"]
    assert len(runs) == 2 * 3 * 6  # two repetitions of 6 benchmarks at 3 n
    row = runs[(runs["filter"] == "xor8") & (runs["operation"] == "build") & (runs["n"] == 4194304)]
    assert list(row["ns_per_key"]) == pytest.approx([250 * 0.98, 250 * 1.02])


def test_a_file_from_before_n_was_an_argument_reads_as_10_to_the_6():
    frame = load.load(MICRO)
    assert set(frame["n"]) == {1_000_000}
    doc = json.loads(MICRO.read_text())
    assert load.default_n({**doc["context"], "keys": "4096"}) == 4096
    assert load.default_n({"keys": "1024,4096"}) == 1_000_000  # a list: its names carry n


def test_old_and_new_names_match_in_compare(tmp_path):
    old = json.loads(MICRO.read_text())
    new = json.loads(MICRO.read_text())
    for bench in new["benchmarks"]:
        for field in ("name", "run_name"):
            if field in bench:
                bench[field] = bench[field].replace("/real_time", "/n:1000000/real_time")
    (tmp_path / "old.json").write_text(json.dumps(old))
    (tmp_path / "new.json").write_text(json.dumps(new))
    keys = [set(compare.entries_of(compare.read_results(tmp_path / name, None), {}))
            for name in ("old.json", "new.json")]
    assert keys[0] == keys[1]
    assert ("gbench", "bloom/insert/n:1000000/real_time") in keys[0]
    assert load.canonical_benchmark_name("quotient_family/cqf/merge/iterations:5/real_time", {}) == \
        "quotient_family/cqf/merge/iterations:5/real_time"


def test_tables_of_one_n_keep_10_to_the_6():
    frame = load.load(MICRO_N)
    assert set(load.at_one_n(frame)["n"]) == {4194304}  # no 10^6 here: the largest
    assert set(load.at_one_n(frame, preferred=65536)["n"]) == {65536}


def test_cache_sizes_from_every_context_shape():
    gbench = json.loads(MICRO_N.read_text())["context"]
    assert load.cache_sizes(gbench) == [("L1d", 32768), ("L2", 1048576), ("L3", 4194304)]
    sysfs = {"caches": [{"level": 1, "type": "Data", "size": "48K"}, {"level": 1, "type": "Instruction", "size": "32K"},
                        {"level": 2, "type": "Unified", "size": "2M"}]}
    assert load.cache_sizes(sysfs) == [("L1d", 49152), ("L2", 2097152)]
    glibc = {"caches": [{"level": "L1d", "bytes": 49152}, {"level": "L3", "bytes": 532676608}]}
    assert load.cache_sizes(glibc) == [("L1d", 49152), ("L3", 532676608)]
    # Google Benchmark's list is empty where sysfs has none: amqbench_micro's own text stands in.
    assert load.cache_sizes({"caches": [], "amq_caches": "L1d:49152,L2:1048576"}) == [("L1d", 49152), ("L2", 1048576)]
