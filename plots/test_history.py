"""history.py on runs made from the CI baseline (results/baseline/: real files of a suites/ci.toml
run), copied with another commit and time, and changed one way at a time."""

import io
import json
import random
import sqlite3
from pathlib import Path

import pytest

import compare
import history

REPO = Path(__file__).resolve().parent.parent
BASELINE = REPO / "results" / "baseline"
RUN_FILES = ("fixed.jsonl", "churn.jsonl")  # the fixed-width filters at n = 20,000; 4 churn cells


def cells_in(file: str) -> int:
    """Cell lines of a baseline file: the counts follow the baseline as filters are added."""
    return sum(1 for line in lines_of(BASELINE / file) if line.get("record") == "cell")
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def lines_of(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def make_run(root: Path, name: str, commit: str, time_utc: str, host: str = "vm", change=None) -> Path:
    """A copy of RUN_FILES as a run of `commit` at `time_utc` on `host`; change(file, lines) edits it."""
    out = root / name
    out.mkdir(parents=True)
    for file in RUN_FILES:
        lines = lines_of(BASELINE / file)
        # A run of a clean checkout of `commit`, whatever tree the baseline was written from.
        lines[0]["context"].update(git_commit=commit * 40 if len(commit) == 1 else commit,
                                   git_dirty=False, time_utc=time_utc, host_name=host)
        if change:
            change(file, lines)
        (out / file).write_text("".join(json.dumps(line) + "\n" for line in lines))
    return out


def bigger_cuckoo8(file: str, lines: list[dict]) -> None:
    """A deterministic field changed: cuckoo8's bits per key, as a changed filter would."""
    if file == "fixed.jsonl":
        cell = next(line for line in lines if line.get("filter") == "cuckoo8")
        cell["bits_per_key"] += 1.0


def cli(capsys, *argv) -> tuple[int, str, str]:
    out = io.StringIO()
    status = history.main([str(a) for a in argv], out=out)
    return status, out.getvalue(), capsys.readouterr().err


def cuckoo8_bits() -> float:
    return next(line for line in lines_of(BASELINE / "fixed.jsonl") if line.get("filter") == "cuckoo8")["bits_per_key"]


@pytest.fixture
def store(tmp_path, capsys) -> Path:
    """A store holding one run (commit a...)."""
    db = tmp_path / "history.sqlite"
    status, _, err = cli(capsys, "record", make_run(tmp_path, "a", "a", "2026-12-01T10:00:00Z"), "--db", db)
    assert status == 0, err
    return db


def test_two_runs_compared_and_the_regression_marked_on_its_hosts_chart(tmp_path, capsys):
    db = tmp_path / "history.sqlite"
    a = make_run(tmp_path, "a", "a", "2026-12-01T10:00:00Z")
    b = make_run(tmp_path, "b", "b", "2026-12-02T10:00:00Z")  # same values: nothing worse
    c = make_run(tmp_path, "c", "c", "2026-12-03T10:00:00Z", change=bigger_cuckoo8)
    other = make_run(tmp_path, "other", "a", "2026-12-01T11:00:00Z", host="other")
    outputs = []
    for run in (a, b, c, other):
        status, out, err = cli(capsys, "record", run, "--db", db)
        assert status == 0 and err == "", err
        outputs.append(out)
    assert "no earlier run of this suite on this host" in outputs[0]
    assert "against run 1: amqbench compare: nothing got worse" in outputs[1]
    assert "against run 2: amqbench compare: WORSE: 1 deterministic values changed (in 1 cells)" in outputs[2]
    assert "no earlier run of this suite on this host" in outputs[3]  # another host: no comparison

    with sqlite3.connect(db) as connection:
        runs = connection.execute("SELECT id, git_commit, host_name, compared_with, regression, worse_cells,"
                                  " compare_summary FROM runs ORDER BY id").fetchall()
    assert [(r[0], r[1][0], r[2], r[3], r[4], r[5]) for r in runs] == [
        (1, "a", "vm", None, None, None), (2, "b", "vm", 1, 0, 0), (3, "c", "vm", 2, 1, 1),
        (4, "a", "other", None, None, None)]
    # The verdict is compare's own, on files rebuilt from the store: the same line as compare on disk.
    compare_out = io.StringIO()
    assert compare.main([str(b), str(c)], out=compare_out) == 1
    assert runs[2][6] == compare_out.getvalue().splitlines()[0]

    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as connection:
        charts = {chart.host: chart for chart in history.chart_data(connection, "bits_per_key", "fixed")}
    assert sorted(charts) == ["other", "vm"]
    vm = charts["vm"]
    assert [run["git_commit"][0] for run in vm.runs] == ["a", "b", "c"]
    assert vm.regression_runs() == [3]
    assert len(vm.lines) == cells_in("fixed.jsonl")  # one line per filter of the experiment
    base = cuckoo8_bits()
    assert vm.lines["cuckoo8 n=20000"] == [base, base, base + 1.0]
    assert charts["other"].regression_runs() == [] and len(charts["other"].runs) == 1

    status, out, err = cli(capsys, "plot", "--metric", "bits_per_key", "--experiment", "fixed",
                           "--db", db, "--out", tmp_path / "charts")
    assert status == 0, err
    pngs = sorted((tmp_path / "charts").iterdir())
    assert [p.name for p in pngs] == ["history_fixed_bits_per_key_other.png", "history_fixed_bits_per_key_vm.png"]
    assert all(p.read_bytes().startswith(PNG_SIGNATURE) for p in pngs)
    assert f"history_fixed_bits_per_key_vm.png: {cells_in('fixed.jsonl')} lines over 3 runs; regressions marked at runs 3" in out

    status, out, _ = cli(capsys, "list", "--db", db)
    assert status == 0
    rows = out.splitlines()
    assert len(rows) == 5 and rows[3].split()[:3] == ["3", "2026-12-03T10:00:00Z", "c" * 10]
    assert "yes (1 cell)" in rows[3] and "  no  " in rows[2]


def test_the_stored_metrics_are_the_files_numbers(store):
    with sqlite3.connect(store) as connection:
        stored = dict(connection.execute(
            "SELECT c.filter, m.value FROM metrics m JOIN fields f ON f.id = m.field"
            " JOIN records x ON x.id = m.record_id JOIN cells c ON c.id = x.cell"
            " WHERE f.name = 'false_positives' AND c.experiment = 'fixed'"))
        fields = {row[0] for row in connection.execute("SELECT name FROM fields")}
        (version,) = connection.execute("PRAGMA user_version").fetchone()
    cells = [line for line in lines_of(BASELINE / "fixed.jsonl") if line["record"] == "cell"]
    assert stored == {cell["filter"]: cell["false_positives"] for cell in cells}
    assert version == history.LAYOUT_VERSION
    assert "kicks_histogram.0" in fields and "workload.n" in fields  # nested numbers, flattened
    assert not {"seed", "cell_id", "record"} & fields  # identity fields name records, they are not metrics


def test_recording_a_run_again_writes_nothing(tmp_path, capsys, store):
    before = store.read_bytes()
    status, out, err = cli(capsys, "record", tmp_path / "a", "--db", store)
    assert status == 0 and err == ""
    assert out == f"history: run 1 is already recorded in {store}; nothing written\n"
    assert store.read_bytes() == before
    # The same commit, host, time and suite with other contents is not the same run.
    changed = make_run(tmp_path, "a2", "a", "2026-12-01T10:00:00Z", change=bigger_cuckoo8)
    status, _, err = cli(capsys, "record", changed, "--db", store)
    assert status == 2 and err.count("\n") == 1 and "recorded with other files" in err
    assert store.read_bytes() == before


def damage(db: Path) -> None:
    """Overwrite a page in the middle of the file (not the header) with garbage."""
    data = bytearray(db.read_bytes())
    page = 4096
    middle = (len(data) // page // 2) * page
    data[middle:middle + page] = random.Random(2).randbytes(page)
    db.write_bytes(bytes(data))


def make_bad_store(kind: str, db: Path) -> None:
    if kind == "random bytes":
        db.write_bytes(random.Random(1).randbytes(8192))
    elif kind == "not sqlite":
        db.write_text('{"record":"header","schema_version":2}\n')
    elif kind == "other sqlite":  # another program's database: user_version 0, tables of its own
        db.unlink()
        with sqlite3.connect(db) as connection:
            connection.execute("CREATE TABLE t (x)")
    elif kind == "other layout version":
        with sqlite3.connect(db) as connection:
            connection.execute(f"PRAGMA user_version = {history.LAYOUT_VERSION + 1}")
    elif kind == "damaged":
        damage(db)


COMMANDS = (("record", "{run}"), ("list",), ("plot", "--metric", "bits_per_key", "--out", "{charts}"))


@pytest.mark.parametrize("kind, says", [("random bytes", "not an SQLite database"),
                                        ("not sqlite", "not an SQLite database"),
                                        ("other sqlite", "not a history store"),
                                        ("other layout version", "layout version 2; this history.py reads version 1"),
                                        ("damaged", "damaged SQLite database")])
def test_a_bad_store_is_one_line_exit_2_and_left_byte_identical(tmp_path, capsys, store, kind, says):
    make_bad_store(kind, store)
    before = store.read_bytes()
    run = make_run(tmp_path, "b", "b", "2026-12-02T10:00:00Z")
    for command in COMMANDS:
        argv = [a.format(run=run, charts=tmp_path / "charts") for a in command]
        status, out, err = cli(capsys, *argv, "--db", store)
        assert status == 2, (command, out)
        assert err.count("\n") == 1 and says in err, err
        assert store.read_bytes() == before
    assert not (tmp_path / "charts").exists()


def test_a_locked_store_is_one_line_exit_2_and_left_byte_identical(tmp_path, capsys, store):
    before = store.read_bytes()
    run = make_run(tmp_path, "b", "b", "2026-12-02T10:00:00Z")
    holder = sqlite3.connect(store, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        for command in COMMANDS:
            argv = [a.format(run=run, charts=tmp_path / "charts") for a in command]
            status, _, err = cli(capsys, *argv, "--db", store, "--timeout", "0.2")
            assert status == 2, command
            assert err.count("\n") == 1 and "locked by another connection (waited 0.2 s)" in err, err
            assert store.read_bytes() == before
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    status, out, err = cli(capsys, "record", run, "--db", store, "--timeout", "0.2")  # free again: recorded
    assert status == 0 and "recorded run 2" in out, err


@pytest.mark.parametrize("make_input, says", [
    (lambda root: root.joinpath("empty").mkdir() or root / "empty", "no result files"),
    (lambda root: root / "missing", "no such file or directory"),
])
def test_no_result_files_is_exit_2_and_no_store_is_made(tmp_path, capsys, make_input, says):
    db = tmp_path / "history.sqlite"
    status, out, err = cli(capsys, "record", make_input(tmp_path), "--db", db)
    assert status == 2 and out == ""
    assert err.count("\n") == 1 and says in err, err
    assert not db.exists()


def test_files_of_two_runs_or_an_unfinished_file_are_refused(tmp_path, capsys, store):
    before = store.read_bytes()
    a, b = tmp_path / "a", make_run(tmp_path, "b", "b", "2026-12-02T10:00:00Z")
    status, _, err = cli(capsys, "record", a / "fixed.jsonl", b / "churn.jsonl", "--db", store)
    assert status == 2 and err.count("\n") == 1 and "files of different runs: context.git_commit" in err, err
    lines = (b / "fixed.jsonl").read_text().splitlines()
    (b / "fixed.jsonl").write_text("\n".join(lines[:-1]) + "\n")  # no end line: an interrupted run
    status, _, err = cli(capsys, "record", b, "--db", store)
    assert status == 2 and err.count("\n") == 1 and "incomplete" in err, err
    assert store.read_bytes() == before


def test_plot_refuses_an_unknown_metric_and_a_crowded_chart(tmp_path, capsys, store):
    charts = tmp_path / "charts"
    status, _, err = cli(capsys, "plot", "--metric", "bits_per_kye", "--db", store, "--out", charts)
    assert status == 2 and err.count("\n") == 1
    assert "no recorded value of 'bits_per_kye'" in err and "bits_per_key" in err
    status, _, err = cli(capsys, "plot", "--metric", "bits_per_key", "--max-lines", "5", "--db", store, "--out", charts)
    assert status == 2 and err.count("\n") == 1 and f"{cells_in('fixed.jsonl') + cells_in('churn.jsonl')} lines on vm's chart" in err and "(churn, fixed)" in err
    assert not charts.exists()
    status, out, err = cli(capsys, "plot", "--metric", "bits_per_key", "--filter", "cuckoo8", "--db", store, "--out", charts)
    assert status == 0 and "history_bits_per_key_vm.png: 1 line over 1 run\n" == out.split("/")[-1], err


def test_a_write_that_fails_half_way_leaves_the_store_as_it_was(tmp_path, capsys, store, monkeypatch):
    """Every row of a run is written in one transaction: a failure after the rows are in (the disk
    full, say) rolls all of them back, and a store the failed call created is removed."""
    insert_run = history.insert_run

    def insert_then_fail(*args):
        insert_run(*args)
        raise sqlite3.OperationalError("database or disk is full")

    monkeypatch.setattr(history, "insert_run", insert_then_fail)
    before = store.read_bytes()
    run = make_run(tmp_path, "b", "b", "2026-12-02T10:00:00Z")
    status, _, err = cli(capsys, "record", run, "--db", store)
    assert status == 2 and err.count("\n") == 1 and "disk is full; nothing written" in err, err
    assert store.read_bytes() == before
    fresh = tmp_path / "fresh.sqlite"
    status, _, err = cli(capsys, "record", run, "--db", fresh)
    assert status == 2 and not fresh.exists()


def test_cells_of_one_label_are_lines_of_their_own(tmp_path, capsys):
    """Two cells compare labels alike (parameters a label leaves out) stay two lines."""
    def twin_cuckoo8(file, lines):
        if file == "fixed.jsonl":
            twin = dict(next(line for line in lines if line.get("filter") == "cuckoo8"))
            twin.update(cell_id="00000000000000aa", positive_fraction=0.25, bits_per_key=1.0)
            lines[0]["cells"].append(twin["cell_id"])
            lines.insert(-1, twin)

    db = tmp_path / "history.sqlite"
    status, _, err = cli(capsys, "record", make_run(tmp_path, "a", "a", "2026-12-01T10:00:00Z", change=twin_cuckoo8),
                         "--db", db)
    assert status == 0, err
    with sqlite3.connect(db) as connection:
        (chart,) = history.chart_data(connection, "bits_per_key", "fixed", filters=["cuckoo8"])
    cell_id = next(line for line in lines_of(BASELINE / "fixed.jsonl") if line.get("filter") == "cuckoo8")["cell_id"]
    assert chart.lines == {"cuckoo8 n=20000 [00000000000000aa]": [1.0],
                           f"cuckoo8 n=20000 [{cell_id}]": [cuckoo8_bits()]}


def test_files_of_experiments_the_suite_skipped_are_left_out(tmp_path, capsys):
    """A skipped experiment leaves an earlier run's file in the out-dir; the manifest says so."""
    run = make_run(tmp_path, "b", "b", "2026-12-02T10:00:00Z")
    stale = make_run(tmp_path, "a", "a", "2026-12-01T10:00:00Z")
    (run / "churn.jsonl").write_bytes((stale / "churn.jsonl").read_bytes())
    db = tmp_path / "history.sqlite"
    status, _, err = cli(capsys, "record", run, "--db", db)
    assert status == 2 and "files of different runs" in err
    manifest = {"experiments": [{"id": "fixed", "file": "fixed.jsonl", "skipped": None},
                                {"id": "churn", "file": "churn.jsonl", "skipped": "no trace"}]}
    (run / "suite_run.json").write_text(json.dumps(manifest))
    status, out, err = cli(capsys, "record", run, "--db", db)
    assert status == 0, err
    assert f"(commit bbbbbbbbbb, host vm, suite ci, 1 file, {cells_in('fixed.jsonl')} records" in out
    assert "left out 1 file of experiments the suite skipped" in out
    (run / "suite_run.json").write_text("{")
    status, _, err = cli(capsys, "record", run, "--db", tmp_path / "other.sqlite")
    assert status == 2 and err.count("\n") == 1 and "not a suite run's manifest" in err
