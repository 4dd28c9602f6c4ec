"""history.py on runs made from the CI baseline (results/baseline/: real files of a suites/ci.toml
run), copied with another commit and time, and changed one way at a time."""

import io
import math
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


def test_an_untimed_experiments_timings_join_no_history(tmp_path):
    """timed = false: the suite may run it beside another (--jobs), so its timings are not kept;
    its deterministic numbers are."""
    def timed(file: str, lines: list[dict]) -> None:  # the baseline keeps no timings: give its cells some
        for line in lines[1:]:
            if line.get("record") == "cell":
                line.update(insert_ns=20.0, insert_ns_samples=[19.0, 20.0, 22.0], query_ns_negative=5.0)

    def untimed(file: str, lines: list[dict]) -> None:
        timed(file, lines)
        lines[0]["experiment"]["timed"] = False
    classes = history.classes_of(history.load.DEFAULT_SCHEMA)
    timed_run, untimed_run = make_run(tmp_path, "t", "a", "2026-12-01T10:00:00Z", change=timed), \
        make_run(tmp_path, "u", "a", "2026-12-01T10:00:00Z", change=untimed)
    kept = {name for record in history.records_of(history.load.read(timed_run / "fixed.jsonl"), classes)
            for name in record.metrics}
    left = {name for record in history.records_of(history.load.read(untimed_run / "fixed.jsonl"), classes)
            for name in record.metrics}
    assert "query_ns_negative" in kept and "query_ns_negative_samples" not in left
    assert not {name for name in left if classes.get(compare.top_level(name)) == compare.TIMING}
    assert "false_positives" in left and left == {name for name in kept
                                                  if classes.get(compare.top_level(name)) != compare.TIMING}
    # Nor are they compared (compare, amqbench ab, the hosts section).
    assert all(not entry.timings for entry in compare.entries_of_result(
        history.load.read(untimed_run / "fixed.jsonl"), classes))
    assert any(entry.timings for entry in compare.entries_of_result(
        history.load.read(timed_run / "fixed.jsonl"), classes))


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


# --- steps in timings -------------------------------------------------------------------------

def noisy_series(seed: int, n: int, sigma: float, repeats: int = 5, levels=((0, 1.0),), outliers=()) -> list:
    """n runs of a timing whose run-to-run noise is the spread its repeats record: each run has a
    machine state of its own (a shift shared by its repeats) and each repeat its own noise, both
    lognormal with sigma; the run's value is its repeats' median, its spread history_spread of
    their min and max. levels: (first run, factor) from where the level is multiplied."""
    rng = random.Random(seed)
    series = []
    for run in range(n):
        level = 100.0 * [factor for start, factor in levels if run >= start][-1]
        shift = rng.gauss(0, sigma)
        repeats_ns = sorted(level * math.exp(shift + rng.gauss(0, sigma)) for _ in range(repeats))
        value = repeats_ns[repeats // 2] * (1.8 if run in outliers else 1.0)
        series.append((run, value, history.history_spread(repeats_ns[0], repeats_ns[-1])))
    return series


def test_a_clean_step_is_found_at_the_run_it_starts():
    for seed in range(20):
        series = noisy_series(seed, 20, 0.02, levels=((0, 1.0), (10, 1.4)))
        (step,) = history.find_steps(series)
        assert step.index == step.run == 10 and (step.runs_before, step.runs_after) == (10, 10)
        assert 1.3 < step.ratio < 1.5 and abs(step.ratio - step.after / step.before) < 1e-12
        assert 90 < step.before < 110 and 0.01 < step.spread < 0.06
    (step,) = history.find_steps([(f"run {i}", 8.0 if i < 5 else 6.0, None) for i in range(11)])  # faster: down
    assert step.run == "run 5" and (step.before, step.after, step.ratio) == pytest.approx((8.0, 6.0, 0.75))


@pytest.mark.parametrize("n, sigma, repeats", [(8, 0.05, 5), (20, 0.02, 5), (20, 0.05, 5), (20, 0.1, 5),
                                               (40, 0.05, 5), (40, 0.05, 1)])
def test_noise_of_the_recorded_spread_makes_next_to_no_steps(n, sigma, repeats):
    """500 seeded series without a step: at most 1% show one (measured: 2 of 500 at n = 20 and
    sigma 5% or 10%, none in the others; repeats = 1 records no spread of its own)."""
    flagged = [seed for seed in range(500) if history.find_steps(noisy_series(seed, n, sigma, repeats))]
    assert len(flagged) <= 5, flagged


def test_a_heavy_tail_of_slow_runs_makes_few_steps():
    """Shared machines: one run in ten 1.2x to 1.8x slower at random. A single slow run, or two in a
    row, is never a level; three in a row is (measured: 9 of 500 30-run series)."""
    def slow_runs(seed):
        rng = random.Random(seed)
        return [(run, 100 * math.exp(rng.gauss(0, 0.03)) * (rng.uniform(1.2, 1.8) if rng.random() < 0.1 else 1.0),
                 0.03) for run in range(30)]
    flagged = [seed for seed in range(500) if history.find_steps(slow_runs(seed))]
    assert len(flagged) <= 15, flagged


@pytest.mark.parametrize("where", [0, 1, 9, 18, 19])
def test_a_single_outlier_run_is_not_a_step(where):
    for seed in range(20):
        assert history.find_steps(noisy_series(seed, 20, 0.02, outliers=(where,))) == []
    flat = [(i, 50.0 * (3 if i == where else 1), 0.01) for i in range(20)]
    assert history.find_steps(flat) == []


def test_two_steps_are_both_found():
    for seed in range(20):
        up_then_down = noisy_series(seed, 24, 0.02, levels=((0, 1.0), (8, 1.5), (16, 1.0)))
        steps = history.find_steps(up_then_down)
        assert [s.index for s in steps] == [8, 16]
        assert [s.ratio for s in steps] == [pytest.approx(1.5, rel=0.06), pytest.approx(1 / 1.5, rel=0.06)]
        up_twice = noisy_series(seed, 24, 0.02, levels=((0, 1.0), (8, 1.3), (16, 1.7)))
        steps = history.find_steps(up_twice)
        assert [s.index for s in steps] == [8, 16] and steps[0].after == steps[1].before


def test_a_step_smaller_than_the_spread_or_the_minimum_effect_is_not_flagged():
    for seed in range(20):
        # 12% up, 40 runs on each side, the runs scattering by 15%: inside what a run's spread covers.
        assert history.find_steps(noisy_series(seed, 80, 0.15, levels=((0, 1.0), (40, 1.12)))) == []
    # 5% up with no noise at all: real, but below the minimum effect (10%).
    assert history.find_steps([(i, 100.0 if i < 10 else 105.0, 0.001) for i in range(20)]) == []
    assert len(history.find_steps([(i, 100.0 if i < 10 else 111.0, 0.001) for i in range(20)])) == 1
    # Recorded repeats that scatter by 30% hide a 1.25x step the values alone would show.
    wide = [(i, 100.0 if i < 10 else 125.0, 0.3) for i in range(20)]
    assert history.find_steps(wide) == [] and len(history.find_steps([(r, v, None) for r, v, _ in wide])) == 1


def test_a_step_needs_three_runs_on_each_side():
    assert history.find_steps([(i, 100.0 if i < 8 else 150.0, 0.01) for i in range(10)]) == []
    assert [s.index for s in history.find_steps([(i, 100.0 if i < 7 else 150.0, 0.01) for i in range(10)])] == [7]
    assert history.find_steps([(i, 100.0 if i < 3 else 150.0, 0.01) for i in range(5)]) == []
    assert history.find_steps([]) == [] and history.find_steps([(0, 1.0, None)]) == []
    # A run without a value (None, 0, NaN) is left out of the series, not read as a level.
    gappy = [(i, (100.0 if i < 6 else 150.0) if i % 4 else None, 0.01) for i in range(16)]
    (step,) = history.find_steps(gappy + [(16, 0.0, 0.01), (17, math.nan, None)])
    assert (step.run, step.run_before, step.index, step.runs_before, step.runs_after) == (6, 5, 4, 4, 8)


def test_history_spread_is_half_the_log_range_of_the_repeats():
    assert history.history_spread(90.0, 110.0) == pytest.approx((math.log(110) - math.log(90)) / 2)
    assert history.history_spread(5.0, 5.0) == 0.0
    assert history.history_spread(None, 5.0) is None and history.history_spread(6.0, 5.0) is None
    assert history.history_spread(0.0, 5.0) is None


def timing_of(levels: dict, spread: float = 0.02):
    """A change giving fixed.jsonl's cells a negative-lookup time: levels[filter] ns, 10 ns for the
    others, with min and max `spread` either side."""
    def change(file, lines):
        if file == "fixed.jsonl":
            for line in lines:
                if line.get("record") == "cell":
                    ns = levels.get(line["filter"], 10.0)
                    line.update(query_ns_negative=ns, query_ns_negative_min=ns * (1 - spread),
                                query_ns_negative_max=ns * (1 + spread))
    return change


@pytest.fixture
def timed_store(tmp_path, capsys) -> Path:
    """Eight runs on host vm: cuckoo8's negative lookups 20 ns in the first four, 30 ns from the
    fifth (commit e...) on; every other filter 10 ns throughout. Two runs on host other, flat."""
    db = tmp_path / "history.sqlite"
    wobble = [1.0, 1.01, 0.99, 1.0, 1.01, 0.995, 1.0, 1.005]
    for i, commit in enumerate("abcdefgh"):
        ns = (20.0 if i < 4 else 30.0) * wobble[i]
        run = make_run(tmp_path, commit, commit, f"2026-12-0{i + 1}T10:00:00Z", change=timing_of({"cuckoo8": ns}))
        status, _, err = cli(capsys, "record", run, "--db", db)
        assert status == 0, err
    for i, commit in enumerate("ab"):
        run = make_run(tmp_path, f"other{commit}", commit, f"2026-12-0{i + 1}T11:00:00Z", host="other",
                       change=timing_of({}))
        assert cli(capsys, "record", run, "--db", db)[0] == 0
    return db


def test_steps_lists_the_flagged_step_with_its_run_commit_levels_and_spread(timed_store, capsys):
    status, out, err = cli(capsys, "steps", "--db", timed_store)
    assert status == 0 and err == "", err
    header, row, summary = out.splitlines()
    assert header.split() == ["host", "cell", "metric", "run", "commits", "before", "->", "after", "ratio",
                              "spread", "runs"]
    assert row.split() == ["vm", "cuckoo8", "n=20000", "query_ns_negative", "5", "ddddddd..eeeeeee", "20", "->", "30.07",
                           "1.50x", "2.0%", "4+4"]
    assert summary.startswith("history: 1 step in ") and "confirm one with amqbench ab" in summary
    status, out, err = cli(capsys, "steps", "--metric", "query_ns_negative", "--experiment", "fixed",
                           "--host", "other", "--db", timed_store)
    assert status == 0 and err == "" and out.startswith("history: 0 steps in ") and "ab" not in out
    status, out, _ = cli(capsys, "steps", "--filter", "cuckoo8", "--host", "vm", "--db", timed_store)
    assert status == 0 and "history: 1 step in 1 timing series" in out


@pytest.mark.parametrize("argv, says", [
    (("--metric", "bits_per_key"), "'bits_per_key' is not a timing field"),
    (("--metric", "query_ns_negativ"), "timing fields like it: query_ns_negative"),
    (("--host", "nowhere"), "no run of host 'nowhere' (hosts: other, vm)"),
    (("--metric", "insert_ns"), "no recorded timing for --metric insert_ns"),
    (("--experiment", "churn"), "no recorded timing for --experiment churn"),
])
def test_steps_refuses_bad_input_in_one_line(timed_store, capsys, argv, says):
    status, out, err = cli(capsys, "steps", *argv, "--db", timed_store)
    assert status == 2 and out == "" and err.count("\n") == 1 and says in err, err


def test_steps_on_no_store_or_an_empty_one_is_exit_2(tmp_path, capsys, store):
    status, _, err = cli(capsys, "steps", "--db", tmp_path / "missing.sqlite")
    assert status == 2 and "no history store here" in err
    status, _, err = cli(capsys, "steps", "--db", store)  # the baseline's runs keep no timings
    assert status == 2 and err.count("\n") == 1 and "no recorded timing" in err


def test_plot_marks_the_step_on_its_hosts_chart(timed_store, tmp_path, capsys):
    charts = tmp_path / "charts"
    status, out, err = cli(capsys, "plot", "--metric", "query_ns_negative", "--filter", "cuckoo8",
                           "--filter", "xor8", "--db", timed_store, "--out", charts)
    assert status == 0, err
    lines = sorted(out.splitlines())
    assert lines[0].endswith("history_query_ns_negative_other.png: 2 lines over 2 runs")
    assert lines[1].endswith("history_query_ns_negative_vm.png: 2 lines over 8 runs;"
                             " steps marked: cuckoo8 n=20000 at run 5 (1.50x)")
    assert (charts / "history_query_ns_negative_vm.png").read_bytes().startswith(PNG_SIGNATURE)
    with sqlite3.connect(timed_store) as connection:
        (vm,) = [c for c in history.chart_data(connection, "query_ns_negative", "fixed", filters=["cuckoo8"],
                                               with_spread=True) if c.host == "vm"]
    assert vm.spreads["cuckoo8 n=20000"] == [pytest.approx(math.log(1.02 / 0.98) / 2)] * 8
    ((label, step),) = vm.steps()
    assert label == "cuckoo8 n=20000" and vm.runs[step.run]["git_commit"][0] == "e"
    # A deterministic metric's chart is not searched for steps.
    status, out, err = cli(capsys, "plot", "--metric", "bits_per_key", "--filter", "cuckoo8", "--db", timed_store,
                           "--out", charts)
    assert status == 0 and "steps marked" not in out, err
