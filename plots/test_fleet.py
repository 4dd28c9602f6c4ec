"""fleet.py and the report's fleet section on hosts made from this machine's real results
(results/micro_n.json, machine.jsonl, locality.jsonl) with the host renamed and the timings
scaled, so the winners are known: host B twice as fast as A with a ceiling four times A's, so B
is fastest (2.00x) and A closest to its own ceiling (2.00x)."""

import io
import json
import sqlite3
from pathlib import Path

import pytest

import fleet
import history
import load
from result_set import ResultSet, Suite

REPO = Path(__file__).resolve().parent.parent
RESULTS = REPO / "results"
FIXTURES = REPO / "plots" / "fixtures"
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def lines_of(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def largest_n_label() -> str:
    """The committed run's largest n as the report writes it (2^26 when it was run with --full)."""
    sizes = [int(b["run_name"].split("/n:")[1].split("/")[0])
             for b in json.loads((RESULTS / "micro_n.json").read_text())["benchmarks"] if "/n:" in b.get("run_name", "")]
    return f"2^{max(sizes).bit_length() - 1}"


def make_host(root: Path, host: str, speed: float = 1.0, ceiling: float = 1.0, time_utc: str = "2026-12-02T16:02:20Z",
              threads: list | None = None, top: int = 2, untimed: bool = False) -> Path:
    """A copy of the real run's speed-against-n files as host `host`: ns per key divided by `speed`,
    the random-line rates times `ceiling`; `threads` adds a threads file of [(filter, member/s,
    absent/s)] at T = 1 and `top`, and the machine's random_lines_threads at `top` (1e8 x ceiling)."""
    out = root / host
    out.mkdir(parents=True)
    micro = json.loads((RESULTS / "micro_n.json").read_text())
    micro["context"]["host_name"] = host
    for bench in micro["benchmarks"]:
        # random_lines is the host's ceiling on each filter's own table (from n = 2^20): it scales
        # with `ceiling`, as the machine file's random lines do, not with `speed`.
        own_table = "/random_lines/" in bench["name"]
        for name in ("ns_per_key", "real_time", "cpu_time"):
            if name in bench:
                bench[name] /= ceiling if own_table else speed
        if own_table and "lines_per_second" in bench:
            bench["lines_per_second"] *= ceiling
    (out / "micro_n.json").write_text(json.dumps(micro))
    context = {"host_name": host, "cpu_model": f"cpu of {host}", "time_utc": time_utc}
    # One run's context in both files: results/ may hold them from two runs (a partial rerun
    # keeps the other files), and the history records one run at a time.
    run_header = lines_of(RESULTS / "locality.jsonl")[0]
    run_context = run_header["context"]
    for name in ("machine.jsonl", "locality.jsonl"):
        # The machine file is a fixture, results/machine.jsonl as of 4d3585a (no threaded points:
        # results/machine.jsonl is rerun on its own, and its threaded points would stand beside
        # the ones added here); both headers take locality.jsonl's context and suite, so the
        # history records the copies as one run.
        lines = lines_of(FIXTURES / "fleet_machine.jsonl" if name == "machine.jsonl" else RESULTS / name)
        lines[0]["context"] = {**run_context, **context}
        lines[0]["suite"] = run_header.get("suite")
        for line in lines:
            for field in ("lines_per_second", "lines_per_second_min", "lines_per_second_max"):
                if line.get("test") == "random_lines" and field in line:
                    line[field] *= ceiling
        if name == "machine.jsonl" and threads:
            for size in (1 << 18, 1 << 26):
                lines.insert(-1, {"record": "machine", "cell_id": f"t{size}", "experiment": "machine",
                                  "kind": "machine", "seed": 1, "test": "random_lines_threads", "threads": top,
                                  "working_set_bytes": size, "lines_per_second": 1e8 * ceiling})
        (out / name).write_text("".join(json.dumps(line) + "\n" for line in lines))
    if threads:
        cells = []
        for name, member, absent in threads:
            for t in (1, top):
                cells.append({"record": "cell", "cell_id": f"{name}{t}", "experiment": "threads", "kind": "threads",
                              "seed": 1, "filter": name, "keys": 1000000, "layout": "shared", "threads": t,
                              "size_bytes": 1 << 20, "member_ops_per_second": member * t / top,
                              "member_ops_per_second_min": 0.9 * member * t / top,
                              "member_ops_per_second_max": 1.1 * member * t / top,
                              "absent_ops_per_second": absent * t / top, "mixed_ops_per_second": member,
                              "member_lookups": 1000, "false_negatives": 0, "cpu_share": 1.0})
        header = {"record": "header", "schema_version": 2,
                  "experiment": {"id": "threads", "kind": "threads", "timed": not untimed},
                  "suite": None, "context": context, "cells": [c["cell_id"] for c in cells]}
        end = {"record": "end", "complete": True, "cells": len(cells)}
        (out / "threads.jsonl").write_text("".join(json.dumps(x) + "\n" for x in (header, *cells, end)))
    return out


def cli(capsys, *argv) -> tuple[int, str, str]:
    out = io.StringIO()
    status = fleet.main([str(a) for a in argv], out=out)
    return status, out.getvalue(), capsys.readouterr().err


def winner_rows(markdown: str) -> list[list[str]]:
    rows = [[c.strip() for c in line.strip("|").split("|")] for line in markdown.splitlines()
            if line.startswith(("| 1 thread |", "| all cores |"))]
    return rows


@pytest.fixture(scope="module")
def two_hosts(tmp_path_factory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("fleet")
    return make_host(root, "A"), make_host(root, "B", speed=2.0, ceiling=4.0, time_utc="2026-12-03T10:00:00Z")


def check_winners(text: str) -> None:
    rows = winner_rows(text)
    lookups = [r for r in rows if r[2] in ("member lookups", "absent lookups")]
    inserts = [r for r in rows if r[2] == "inserts"]
    assert len(lookups) == 2 * 2 * 7, "7 filters' two lookups, at the smallest and largest n"
    assert {r[3] for r in rows} == {"2^10", largest_n_label()}
    for setting, name, operation, n, fastest, over, closest, closer in lookups:
        assert fastest.startswith("B: ") and over.startswith("2.00× A ("), (name, operation, n)
        assert closest.startswith("A: ") and closer.startswith("2.00× B ("), (name, operation, n)
    assert len(inserts) == 2 * 4 and all(r[4].startswith("B: ") and r[7] == "inserts read no ceiling" for r in inserts)
    assert "rows won out of 18: A 0, B 18" in text


def test_two_hosts_from_directories_rank_by_speed_and_by_their_own_ceiling(tmp_path, capsys, two_hosts):
    a, b = two_hosts
    out = tmp_path / "out"
    status, text, err = cli(capsys, "--out", out, "--host", f"A={a}", "--host", f"B={b}")
    assert status == 0, err
    check_winners(text)
    assert (out / "fleet.md").read_text() == text
    assert (out / "fleet_1_thread.png").read_bytes().startswith(PNG_SIGNATURE)
    assert not (out / "fleet_all_cores.png").exists(), "neither host has threads records"
    assert f"| A | cpu of A | 2 | n 2^10 to {largest_n_label()}; own ceiling | no threads records |" in text


def test_a_host_without_machine_records_has_no_ceiling(tmp_path, capsys, two_hosts):
    a, _ = two_hosts
    bare = make_host(tmp_path, "C", speed=3.0)
    (bare / "machine.jsonl").unlink()
    # Nor the micro-benchmarks' random lines on each filter's own table (from n = 2^20).
    micro = json.loads((bare / "micro_n.json").read_text())
    micro["benchmarks"] = [b for b in micro["benchmarks"] if "/random_lines/" not in b["name"]]
    (bare / "micro_n.json").write_text(json.dumps(micro))
    status, text, err = cli(capsys, "--out", tmp_path / "out", "--host", f"A={a}", "--host", f"C={bare}")
    assert status == 0, err
    assert "no ceiling: no random_lines machine records" in text
    member = [r for r in winner_rows(text) if r[2] == "member lookups"]
    assert member and all(r[4].startswith("C: ") and r[6].startswith("A: ") and r[7] == "only A has a ceiling"
                          for r in member)


def record(db: Path, run: Path) -> None:
    assert history.main(["record", str(run), "--db", str(db)], out=io.StringIO()) == 0


def test_the_latest_run_of_each_host_comes_from_the_store(tmp_path, capsys, two_hosts):
    a, b = two_hosts
    db = tmp_path / "history.sqlite"
    older_b = make_host(tmp_path / "old", "B", speed=0.5, ceiling=4.0, time_utc="2026-12-01T09:00:00Z")
    for run in (a, older_b, b):
        record(db, run)
    latest = history.latest_runs(db)
    assert [(r["host_name"], r["time_utc"]) for r in latest] == [("A", "2026-12-02T16:02:20Z"),
                                                                  ("B", "2026-12-03T10:00:00Z")]
    assert history.latest_runs(db, suite="no such suite") == []
    status, text, err = cli(capsys, "--out", tmp_path / "out", "--db", db)
    assert status == 0, err
    check_winners(text)
    assert "history run 3 (commit" in text


def test_a_restored_run_reads_as_the_files_did(tmp_path, two_hosts):
    a, _ = two_hosts
    db = tmp_path / "history.sqlite"
    record(db, a)
    (tmp_path / "restored").mkdir()
    written = history.restore_run(db, 1, tmp_path / "restored")
    assert sorted(p.name for p in written) == ["locality.jsonl", "machine.jsonl", "micro_n.json"]
    for path in written:
        again, original = load.read(path), load.read(a / path.name)
        assert again.records == original.records and again.context == original.context
        assert again.experiment == original.experiment and again.complete
    with pytest.raises(history.HistoryError, match="no files of run 9"):
        history.restore_run(db, 9, tmp_path / "restored")


def test_all_cores_ranks_each_hosts_largest_t_against_its_threaded_ceiling(tmp_path):
    # A: T = 2, ceiling 1e8 lines/s; B: T = 4, 3x A's lookups against a 6x ceiling.
    a = make_host(tmp_path, "A", threads=[("bloom", 1e7, 2e7), ("xor8", 4e7, 4e7)], top=2)
    b = make_host(tmp_path, "B", ceiling=6.0, threads=[("bloom", 3e7, 6e7), ("xor8", 12e7, 12e7)], top=4)
    found = fleet.gather([fleet.host_of_paths("A", [a], None), fleet.host_of_paths("B", [b], None)])
    cores = found.points[found.points["setting"] == fleet.ALL_CORES]
    assert sorted(cores.groupby("host")["threads"].max().items()) == [("A", 2), ("B", 4)]
    bloom = cores[(cores["filter"] == "bloom") & (cores["operation"] == "query_present")].set_index("host")
    # The lines bloom's traced member lookups touch, from the run make_host copied (about 7): a
    # fraction of 1e7 x lines / 1e8 on A, and 3e7 x lines / 6e8 on B.
    lines = next(r["cache_lines_member_mean"] for r in lines_of(RESULTS / "locality.jsonl") if r.get("filter") == "bloom")
    assert bloom.loc["A", "fraction"] == pytest.approx(lines / 10) and bloom.loc["B", "fraction"] == pytest.approx(lines / 20)
    rows = fleet.winners(cores)
    assert list(rows["winner"]) == ["B"] * 4
    assert all(c.startswith("A: ") for c in rows["closest"]) and all(o.startswith("3.00× A") for o in rows["over"])
    assert fleet.fleet_chart(found.points, found.names, fleet.ALL_CORES, "t", found.missing).startswith(PNG_SIGNATURE)


def test_untimed_threads_records_are_not_read(tmp_path):
    a = make_host(tmp_path, "A", threads=[("bloom", 1e7, 2e7)], untimed=True)
    found = fleet.gather([fleet.host_of_paths("A", [a], None)])
    assert (found.points["setting"] == fleet.ALL_CORES).sum() == 0
    assert found.missing[("A", fleet.ALL_CORES)] == "threads records only from timed = false runs"


@pytest.mark.parametrize("argv, says", [
    (["--host", "nonsense"], "--host 'nonsense': expected NAME=PATH"),
    (["--host", "A=/no/such/dir"], "no file or directory of that name"),
    (["--host", "A={garbage}"], "not valid JSON"),
    (["--host", "A={empty}"], "no result files"),
    (["--db", "{garbage}/bad.jsonl"], "not an SQLite database"),
    (["--db", "{tmp}/none.sqlite"], "no history store here"),
])
def test_bad_input_is_one_line_exit_2_and_nothing_written(tmp_path, capsys, argv, says):
    garbage, empty = tmp_path / "garbage", tmp_path / "empty"
    garbage.mkdir()
    empty.mkdir()
    (garbage / "bad.jsonl").write_text("{not json\n")
    argv = [a.format(garbage=garbage, empty=empty, tmp=tmp_path) for a in argv]
    status, text, err = cli(capsys, "--out", tmp_path / "out", *argv)
    assert status == 2 and text == ""
    assert err.count("\n") == 1 and err.startswith("fleet.py: ") and says in err, err
    assert not (tmp_path / "out").exists()


SUITE = """
[suite]
name = "default"

[[experiment]]
id = "machine"
kind = "machine"
section = "machine"

[[experiment]]
id = "locality"
kind = "filters"
section = "locality"
timed = false

[[experiment]]
id = "micro_n"
kind = "micro"
section = "speed_vs_n"
keys = [1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216]
"""


def report_results(tmp_path, directory: Path) -> ResultSet:
    suite = tmp_path / "suite.toml"
    suite.write_text(SUITE)
    return ResultSet(Suite.read(suite), directory, tmp_path, load.DEFAULT_SCHEMA)


def test_the_report_section_sets_this_run_beside_the_stores_other_hosts(tmp_path, two_hosts):
    from sections import fleet as section

    a, b = two_hosts
    here = make_host(tmp_path, "A")
    assert section.render(report_results(tmp_path, here)) is None, "no store: one host"
    db = here / "history.sqlite"
    record(db, a)
    assert section.render(report_results(tmp_path, here)) is None, "the store holds this host only"
    record(db, b)
    results = report_results(tmp_path, here)
    text = section.render(results)
    assert text.startswith("## A fleet of A, B")
    check_winners(text)
    assert "this report's results (`A/`)" in text and "history run 2" in text
    assert [p.name for p in results.drawn] == ["fleet_1_thread.png"]


def test_a_damaged_store_is_said_in_the_section(tmp_path):
    from sections import fleet as section

    here = make_host(tmp_path, "A")
    (here / "history.sqlite").write_bytes(b"not a database at all" * 100)
    text = section.render(report_results(tmp_path, here))
    assert "Not shown:" in text and "not an SQLite database" in text
    with pytest.raises(sqlite3.DatabaseError):
        sqlite3.connect(here / "history.sqlite").execute("SELECT 1 FROM runs").fetchall()
