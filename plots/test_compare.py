"""amqbench compare on crafted pairs: real result files (plots/fixtures/written/) and Google
Benchmark JSON, copied and changed one way at a time."""

import io
import json
import random
import statistics
from pathlib import Path

import pytest

import compare

FIXTURES = Path(__file__).resolve().parent / "fixtures"
SURVEY_LAB = FIXTURES / "written" / "seed_lab.jsonl"  # the AMQ survey's cuckoo lab: one filters cell
ADVERSARIAL = FIXTURES / "written" / "adapt_adversarial.jsonl"  # adapt cells with trial lines
# One adapt_synthetic cell and its two trials: FPR intervals over effective flows, not queries.
SYNTHETIC = FIXTURES / "written" / "adapt_synthetic.jsonl"


def lines_of(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def write(path: Path, lines: list[dict]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def run(capsys, *argv: str) -> tuple[int, str, str]:
    out = io.StringIO()
    status = compare.main([str(a) for a in argv], out=out)
    return status, out.getvalue(), capsys.readouterr().err


def cell_of(lines: list[dict]) -> dict:
    return next(line for line in lines if line["record"] == "cell")


def with_samples(lines: list[dict], samples: list[float], name: str = "insert_ns") -> list[dict]:
    """The cell's timing `name` replaced by these repeats (median, min, max and samples)."""
    lines = json.loads(json.dumps(lines))
    cell = cell_of(lines)
    cell.update({name: statistics.median(samples), f"{name}_min": min(samples),
                 f"{name}_max": max(samples), f"{name}_samples": samples, "repeats": len(samples)})
    return lines


def noisy(n: int, centre: float, spread: float, seed: int) -> list[float]:
    rng = random.Random(seed)
    return [centre * (1 + rng.uniform(-spread, spread)) for _ in range(n)]


def test_identical_files_and_directories_exit_0(tmp_path, capsys):
    for base, new in ((SURVEY_LAB, SURVEY_LAB), (FIXTURES / "written", FIXTURES / "written")):
        status, out, err = run(capsys, base, new)
        assert status == 0, err
        assert out.splitlines()[0].startswith("amqbench compare: nothing got worse;")
        assert err == ""


def test_one_deterministic_field_changed_exits_1_naming_the_cell(tmp_path, capsys):
    lines = lines_of(SURVEY_LAB)
    cell = cell_of(lines)
    cell["size_bytes"] += 64
    new = write(tmp_path / "new" / "seed_lab.jsonl", lines)
    status, out, _ = run(capsys, SURVEY_LAB, new)
    assert status == 1
    assert "WORSE: 1 deterministic values changed" in out.splitlines()[0]
    row = next(line for line in out.splitlines() if "| size_bytes |" in line)
    assert cell["cell_id"] in row and "| changed |" in row and "cuckoo" in row
    base_size = cell_of(lines_of(SURVEY_LAB))["size_bytes"]
    assert f"| {base_size} | {base_size + 64} |" in row


def test_a_nested_or_removed_field_is_a_change_and_a_new_one_is_listed(tmp_path, capsys):
    lines = lines_of(SURVEY_LAB)
    cell = cell_of(lines)
    cell["workload"]["keys_from"] = "sequential"
    del cell["kicks_total"]
    cell["hash_probes"] = 3  # a field of the schema this cell did not carry
    new = write(tmp_path / "seed_lab.jsonl", lines)
    status, out, _ = run(capsys, SURVEY_LAB, new, "--json")
    assert status == 1
    rows = {row["field"]: row for row in json.loads(out)["rows"]}
    assert rows["workload.keys_from"]["new"] == "sequential"
    assert rows["kicks_total"]["new"] == "(absent)" and rows["kicks_total"]["verdict"] == "worse"
    assert rows["hash_probes"]["what"] == "new field" and rows["hash_probes"]["verdict"] == "info"
    # Without the field table nothing can be classified: bad input.
    status, _, err = run(capsys, SURVEY_LAB, new, "--schema", tmp_path / "no_schema.json")
    assert status == 2 and "no_schema.json" in err


def test_timings_memory_and_settings_are_not_deterministic(tmp_path, capsys):
    # Both sides carry every such field (the fixture predates the memory fields), NEW with
    # other values: a field compared as deterministic would make this exit 1.
    base_lines = lines_of(SURVEY_LAB)
    base_cell = cell_of(base_lines)
    base_cell.setdefault("peak_rss_bytes", 50_000_000)
    base_cell.setdefault("memory_estimate_bytes", 40_000_000)
    base = write(tmp_path / "base" / "seed_lab.jsonl", base_lines)
    lines = lines_of(base)
    cell = cell_of(lines)
    for name in ("insert_ns", "query_ns_negative_max", "peak_rss_bytes", "memory_estimate_bytes"):
        assert name in cell, name
        cell[name] *= 2
    cell["repeats"] = 9
    lines[0]["context"]["time_utc"] = "2030-01-01T00:00:00Z"
    new = write(tmp_path / "seed_lab.jsonl", lines)
    status, out, _ = run(capsys, base, new)
    assert status == 0, out
    classes = compare.field_classes(compare.load.DEFAULT_SCHEMA)
    assert classes["query_ns_mixed_samples"] == "timing" and classes["peak_rss_bytes"] == "machine"
    assert classes["repeats"] == "setting" and classes["cell_id"] == "identity"
    assert classes["bits_per_key"] == "deterministic"


def test_a_slowdown_between_two_stored_runs_is_shown_not_judged(tmp_path, capsys):
    # 30% slower over 10 repeats a side, on one host: two separate runs, whose repeats share each
    # run's machine state, so the ratio is shown and nothing fails (issue 27).
    base_samples = noisy(10, 20.0, 0.02, seed=1)
    base = write(tmp_path / "base.jsonl", with_samples(lines_of(SURVEY_LAB), base_samples))
    new = write(tmp_path / "new.jsonl", with_samples(lines_of(SURVEY_LAB), [s * 1.3 for s in base_samples]))
    status, out, _ = run(capsys, base, new, "--json")
    assert status == 0
    doc = json.loads(out)
    row = next(r for r in doc["rows"] if r["field"] == "insert_ns")
    assert row["verdict"] == "info" and row["what"] == "not judged" and row["p_value"] is None
    assert row["note"] == "separate runs, not judged (use amqbench ab)"
    assert row["change"] == pytest.approx(0.3)
    assert doc["counts"]["timings_not_judged"] >= 1 and doc["counts"]["timings_same"] == 0
    status, out, _ = run(capsys, new, base)
    assert status == 0 and "| info | not judged |" in out and "faster" not in out
    assert "Timings of separate runs are shown, not judged" in out


@pytest.mark.parametrize("factor, status, verdict, what", [
    (1.3, 1, "worse", "slower"), (1 / 1.3, 0, "better", "faster"), (1.02, 0, "same", "same")])
def test_the_rounds_of_one_ab_job_are_judged_through_the_hook(tmp_path, capsys, monkeypatch,
                                                              factor, status, verdict, what):
    # interleaved_pairs is where stored runs of one A/B job would be paired: given pairs, compare
    # judges them as amqbench ab does (plots/ab.py).
    base_samples = noisy(10, 20.0, 0.02, seed=1)
    base = write(tmp_path / "base.jsonl", with_samples(lines_of(SURVEY_LAB), base_samples))
    new = write(tmp_path / "new.jsonl", with_samples(lines_of(SURVEY_LAB), [s * factor for s in base_samples]))
    monkeypatch.setattr(compare, "interleaved_pairs",
                        lambda b, n, name: list(zip(b.timings[name][1], n.timings[name][1]))
                        if b.timings[name][1] else None)
    got, out, _ = run(capsys, base, new, "--json")
    assert got == status
    row = next(r for r in json.loads(out)["rows"] if r["field"] == "insert_ns")
    assert (row["verdict"], row["what"]) == (verdict, what)
    assert row["change"] == pytest.approx(factor - 1)
    assert row["note"].startswith("one A/B job: signed-rank p = ") and row["note"].endswith("over 10 rounds")


def test_the_same_slowdown_from_another_host_is_not_judged(tmp_path, capsys):
    base_samples = noisy(10, 20.0, 0.02, seed=1)
    base = write(tmp_path / "base.jsonl", with_samples(lines_of(SURVEY_LAB), base_samples))
    lines = with_samples(lines_of(SURVEY_LAB), [s * 1.3 for s in base_samples])
    lines[0]["context"]["host_name"] = "elsewhere"
    new = write(tmp_path / "new.jsonl", lines)
    status, out, _ = run(capsys, base, new)
    assert status == 0
    row = next(line for line in out.splitlines() if "| insert_ns |" in line)
    assert "other machine, not judged" in row and "×1.3" in row
    # Another CPU model on a host of the same name is another machine too.
    lines[0]["context"]["host_name"] = lines_of(SURVEY_LAB)[0]["context"]["host_name"]
    lines[0]["context"]["cpu_model"] = "Another CPU"
    status, out, _ = run(capsys, base, write(new, lines))
    assert status == 0 and "other machine, not judged" in out


def gbench(host: str, slowdown: float, seed: int) -> dict:
    """Google Benchmark JSON with --benchmark_repetitions=10: every repetition, then aggregates."""
    benchmarks = []
    for name, centre, factor in (("bloom/query_absent/real_time", 10.0, slowdown),
                                 ("cuckoo12/insert/real_time", 30.0, 1.0)):
        times = [t * factor for t in noisy(10, centre, 0.02, seed)]
        for i, t in enumerate(times):
            benchmarks.append({"name": name, "run_name": name, "run_type": "iteration",
                               "repetitions": 10, "repetition_index": i, "real_time": t * 1000,
                               "time_unit": "ns", "ns_per_key": t * 1e-9})
        for aggregate, value in (("mean", statistics.mean(times)), ("median", statistics.median(times))):
            benchmarks.append({"name": f"{name}_{aggregate}", "run_name": name, "run_type": "aggregate",
                               "aggregate_name": aggregate, "real_time": value * 1000, "time_unit": "ns",
                               "ns_per_key": value * 1e-9})
    return {"context": {"host_name": host, "num_cpus": 2, "mhz_per_cpu": 2096}, "benchmarks": benchmarks}


def test_google_benchmark_pairs(tmp_path, capsys):
    base = tmp_path / "base.json"
    base.write_text(json.dumps(gbench("vm", 1.0, seed=1)))
    slow = tmp_path / "slow.json"
    slow.write_text(json.dumps(gbench("vm", 1.3, seed=1)))
    status, out, _ = run(capsys, base, slow, "--json")
    assert status == 0
    rows = {r["cell_id"]: r for r in json.loads(out)["rows"]}
    # Names from before n was a benchmark argument are matched under their n (10^6 by default).
    slower = rows["bloom/query_absent/n:1000000/real_time"]
    assert slower["what"] == "not judged" and slower["note"] == "separate runs, not judged (use amqbench ab)"
    assert slower["change"] == pytest.approx(0.3)
    assert rows["cuckoo12/insert/n:1000000/real_time"]["change"] == pytest.approx(0.0)
    elsewhere = tmp_path / "elsewhere.json"
    elsewhere.write_text(json.dumps(gbench("other-host", 1.3, seed=1)))
    status, out, _ = run(capsys, base, elsewhere)
    assert status == 0 and "other machine, not judged" in out


def test_disjoint_cells_are_listed(tmp_path, capsys):
    lines = lines_of(ADVERSARIAL)
    header = lines[0]
    cells = [line for line in lines if line["record"] == "cell"]
    dropped, renamed = cells[0]["cell_id"], cells[1]["cell_id"]
    new_lines = []
    for line in lines:
        if line.get("cell_id") == dropped:
            continue
        if line.get("cell_id") == renamed:
            line = dict(line, cell_id="00000000deadbeef")
        new_lines.append(line)
    header["cells"] = [c if c != renamed else "00000000deadbeef" for c in header["cells"] if c != dropped]
    new = write(tmp_path / "adapt_adversarial.jsonl", new_lines)
    status, out, _ = run(capsys, ADVERSARIAL, new)
    assert status == 1, "a cell gone from NEW is worse"
    missing = [line for line in out.splitlines() if "| missing cell |" in line]
    added = [line for line in out.splitlines() if "| new cell |" in line]
    assert {dropped, renamed} == {next(c for c in (dropped, renamed) if c in line) for line in missing}
    assert len(added) == 1 and "00000000deadbeef" in added[0]
    assert "2 cells missing from NEW" in out.splitlines()[0] and "1 cells only in NEW" in out.splitlines()[0]
    # Cells of NEW only are listed without failing.
    fewer = write(tmp_path / "fewer" / "adapt_adversarial.jsonl",
                  [line for line in lines_of(ADVERSARIAL) if line.get("cell_id") != dropped])
    status, out, _ = run(capsys, fewer, ADVERSARIAL)
    assert status == 0
    assert [dropped] == [line.split(" | ")[4] for line in out.splitlines() if "| new cell |" in line]
    # No cell in common: bad input.
    other = [dict(line, cell_id="ffffffffffffffff") if line["record"] not in ("header", "end") else line
             for line in lines_of(SURVEY_LAB)]
    status, _, err = run(capsys, SURVEY_LAB, write(tmp_path / "other.jsonl", other))
    assert status == 2 and "no cell in common" in err


def test_a_trial_missing_from_a_matched_cell_is_its_own_row(tmp_path, capsys):
    lines = lines_of(ADVERSARIAL)
    trial = next(i for i, line in enumerate(lines) if line["record"] == "trial")
    gone = lines.pop(trial)
    status, out, _ = run(capsys, ADVERSARIAL, write(tmp_path / "a.jsonl", lines))
    assert status == 1
    row = next(line for line in out.splitlines() if "| missing trial |" in line)
    assert gone["cell_id"] in row and f"trial {gone['trial']}" in row


def test_fpr_at_another_seed_differs_only_when_the_intervals_do(tmp_path, capsys):
    lines = lines_of(SURVEY_LAB)
    cell = cell_of(lines)
    negatives, fps = cell["negative_queries"], cell["false_positives"]
    for line in lines[1:-1]:
        line["seed"] += 1
    cell["size_bytes"] += 8  # not compared across seeds

    def with_fps(count: int) -> Path:
        low, high = compare.stats.wilson(count, negatives)
        cell.update(false_positives=count, fpr=count / negatives, fpr_ci_low=low, fpr_ci_high=high)
        return write(tmp_path / f"fps{count}.jsonl", lines)

    status, out, _ = run(capsys, SURVEY_LAB, with_fps(fps + 5), "--json")
    assert status == 0, out
    assert json.loads(out)["counts"]["values_not_compared_seeds_differ"] > 10
    status, out, _ = run(capsys, SURVEY_LAB, with_fps(fps * 2))
    assert status == 1 and "| higher FPR |" in out and "disjoint" in out
    status, out, _ = run(capsys, SURVEY_LAB, with_fps(fps // 2))
    assert status == 0 and "| lower FPR |" in out


def test_an_adaptive_fpr_is_judged_by_its_interval_over_flows_not_over_queries(tmp_path, capsys):
    lines = lines_of(SYNTHETIC)
    cell = cell_of(lines)
    queries, flows = cell["negative_queries"], cell["effective_flows"]
    assert flows < queries / 10, "a flow is asked about ten times: far fewer draws than queries"
    for line in lines[1:-1]:
        line["seed"] += 1

    def with_fpr(fpr: float) -> Path:
        """NEW's cell at this FPR, its interval as the C++ side computes it: over effective flows."""
        low, high = compare.stats.wilson(fpr * flows, flows)
        cell.update(false_positives=round(fpr * queries), fpr=fpr, fpr_ci_low=low, fpr_ci_high=high)
        return write(tmp_path / f"fpr{fpr}.jsonl", lines)

    base = cell_of(lines_of(SYNTHETIC))
    # 25% higher: Wilson over the queries would call it (its intervals are disjoint), but over
    # the flows the two intervals overlap: the same FPR, as far as these draws can tell.
    higher = base["fpr"] * 1.25
    assert compare.stats.wilson(round(higher * queries), queries)[0] > compare.stats.wilson(
        base["false_positives"], queries)[1]
    status, out, _ = run(capsys, SYNTHETIC, with_fpr(higher), "--json")
    assert status == 0, out
    report = json.loads(out)
    assert report["counts"]["fprs_within_intervals"] == 3  # the cell and its two trials
    assert not [r for r in report["rows"] if r["field"] == "fpr"]
    # Three times higher: the flow intervals are disjoint too.
    status, out, _ = run(capsys, SYNTHETIC, with_fpr(base["fpr"] * 3))
    assert status == 1 and "| higher FPR |" in out and "the records' 95% intervals" in out
    row = next(line for line in out.splitlines() if "| higher FPR |" in line)
    assert f"[{compare.format_value(base['fpr_ci_low'])}, {compare.format_value(base['fpr_ci_high'])}]" in row


def test_an_fpr_without_an_interval_in_its_record_is_listed_not_judged(tmp_path, capsys):
    lines = lines_of(SYNTHETIC)
    for line in lines[1:-1]:
        line["seed"] += 1
    cell = cell_of(lines)
    cell.update(fpr=cell["fpr"] * 3, false_positives=cell["false_positives"] * 3)
    del cell["fpr_ci_low"], cell["fpr_ci_high"]
    status, out, _ = run(capsys, SYNTHETIC, write(tmp_path / "new.jsonl", lines))
    assert status == 0, out
    assert "1 FPRs not judged (no interval in the record)" in out.splitlines()[0]
    row = next(line for line in out.splitlines() if "| FPR not judged |" in line)
    assert "| info |" in row and "| fpr |" in row and "no 95% interval in the NEW record" in row
    assert "none is recomputed from query counts" in row
    # adapt_adversarial's records carry none at all: every FPR of theirs is listed, none judged.
    lines = lines_of(ADVERSARIAL)
    for line in lines[1:-1]:
        line["seed"] += 1
    status, out, _ = run(capsys, ADVERSARIAL, write(tmp_path / "adversarial.jsonl", lines), "--json")
    report = json.loads(out)
    fprs = sum(1 for line in lines[1:-1] if "fpr" in line)
    assert status == 0 and report["counts"]["fprs_not_judged_no_interval"] == fprs > 0
    assert report["counts"]["fprs_within_intervals"] == 0


@pytest.mark.parametrize("case", ["missing", "empty_dir", "not_json", "truncated_gbench", "foreign",
                                  "v1", "incomplete", "bad_utf8", "bad_field"])
def test_bad_input_is_one_line_and_exit_2(tmp_path, capsys, case):
    bad = tmp_path / "bad.json"
    if case == "missing":
        bad = tmp_path / "absent.jsonl"
    elif case == "empty_dir":
        bad = tmp_path / "empty"
        bad.mkdir()
        (bad / "suite_run.json").write_text("{}")
    elif case == "not_json":
        bad.write_text("this is not json\n")
    elif case == "truncated_gbench":
        bad.write_text(json.dumps(gbench("vm", 1.0, 1))[:500])
    elif case == "foreign":
        bad.write_text(json.dumps({"hello": "world"}))
    elif case == "v1":
        bad = FIXTURES / "space.json"
    elif case == "incomplete":
        bad = write(tmp_path / "bad.jsonl", lines_of(SURVEY_LAB)[:-1])
    elif case == "bad_utf8":
        bad.write_bytes(b"\xff\xfe\x00garbage")
    elif case == "bad_field":
        lines = lines_of(SURVEY_LAB)
        cell_of(lines)["fpr"] = "high"
        bad = write(tmp_path / "bad.jsonl", lines)
    for argv in ((SURVEY_LAB, bad), (bad, SURVEY_LAB)):
        status, out, err = run(capsys, *argv)
        assert status == 2, (case, out)
        assert out == "" and len(err.strip().splitlines()) == 1, err
        assert str(bad) in err or bad.name in err


def test_usage_errors_exit_2_and_help_exits_0(capsys):
    assert run(capsys, SURVEY_LAB)[0] == 2
    status, _, err = run(capsys, SURVEY_LAB, SURVEY_LAB, "--alpha", "2")
    assert status == 2 and len(err.strip().splitlines()) == 1
    with pytest.raises(SystemExit) as stop:
        compare.parse_args(["--help"])
    assert stop.value.code == 0


def test_markdown_is_worst_first_and_capped(tmp_path, capsys):
    lines = lines_of(ADVERSARIAL)
    for line in lines[1:-1]:
        if line["record"] == "trial" and line["adaptations"] >= 10:
            line["adaptations"] += 1  # under +10% each
    next(line for line in lines if line["record"] == "cell" and line["false_positives"] > 0)[
        "false_positives"] *= 3  # +200%: the worst
    new = write(tmp_path / "a.jsonl", lines)
    status, out, _ = run(capsys, ADVERSARIAL, new, "--max-rows", "5")
    assert status == 1
    table = [line for line in out.splitlines() if line.startswith("| worse")]
    assert len(table) == 5 and "false_positives" in table[0]
    assert "more rows (--max-rows 0 shows them all" in out


def test_update_baseline_strips_measurements_and_replaces_atomically(tmp_path, capsys):
    run_dir = tmp_path / "ci"
    write(run_dir / "seed_lab.jsonl", with_samples(lines_of(SURVEY_LAB), noisy(5, 20, 0.1, 1)))
    write(run_dir / "adapt_adversarial.jsonl", lines_of(ADVERSARIAL))
    (run_dir / "suite_run.json").write_text("{}")
    baseline = tmp_path / "results" / "baseline"
    status, out, err = run(capsys, "--update-baseline", run_dir, "--baseline", baseline)
    assert status == 0, err
    assert sorted(p.name for p in baseline.iterdir()) == ["adapt_adversarial.jsonl", "seed_lab.jsonl"]
    cell = cell_of(lines_of(baseline / "seed_lab.jsonl"))
    assert "insert_ns" not in cell and "insert_ns_samples" not in cell and "repeats" not in cell
    assert "peak_rss_bytes" not in cell and cell["size_bytes"] > 0
    assert [p.name for p in baseline.parent.iterdir()] == ["baseline"], "no staging left behind"
    assert run(capsys, baseline, run_dir)[0] == 0
    # A changed run: the update prints what moved, then takes it.
    lines = lines_of(run_dir / "seed_lab.jsonl")
    cell_of(lines)["size_bytes"] += 1
    write(run_dir / "seed_lab.jsonl", lines)
    assert run(capsys, baseline, run_dir)[0] == 1
    status, out, _ = run(capsys, "--update-baseline", run_dir, "--baseline", baseline)
    assert status == 0 and "| size_bytes |" in out
    assert run(capsys, baseline, run_dir)[0] == 0
    # Bad input: nothing overwritten.
    before = {p.name: p.read_bytes() for p in baseline.iterdir()}
    write(run_dir / "seed_lab.jsonl", lines[:-1])  # interrupted
    status, _, err = run(capsys, "--update-baseline", run_dir, "--baseline", baseline)
    assert status == 2 and "incomplete" in err
    (run_dir / "micro.json").write_text(json.dumps(gbench("vm", 1.0, 1)))
    write(run_dir / "seed_lab.jsonl", lines)
    status, _, err = run(capsys, "--update-baseline", run_dir, "--baseline", baseline)
    assert status == 2 and "schema version 2 result files only" in err
    assert {p.name: p.read_bytes() for p in baseline.iterdir()} == before
    assert [p.name for p in baseline.parent.iterdir()] == ["baseline"]


def test_a_baseline_of_another_schema_version_is_refused(tmp_path, capsys):
    baseline = tmp_path / "baseline"
    baseline.mkdir()
    (baseline / "space.json").write_text((FIXTURES / "space.json").read_text())
    status, _, err = run(capsys, baseline, SURVEY_LAB)
    assert status == 2 and "schema version 1" in err


def test_the_committed_baseline_is_finished_stripped_and_matches_the_ci_suite():
    baseline = compare.DEFAULT_BASELINE
    classes = compare.field_classes(compare.load.DEFAULT_SCHEMA)
    files = sorted(p.name for p in baseline.iterdir())
    suite = (compare.load.REPO / "suites" / "ci.toml").read_text()
    ids = [line.split('"')[1] for line in suite.splitlines() if line.startswith("id = ")]
    assert files == sorted(f"{i}.jsonl" for i in ids), "one file per experiment of suites/ci.toml"
    for name in files:
        result = compare.load.read(baseline / name)
        assert result.format == "v2" and result.complete, name
        assert result.suite["file"] == "suites/ci.toml" and not result.suite["quick"], name
        for record in result.records:
            measured = [k for k in record if classes.get(k) in ("timing", "machine", "setting")]
            assert not measured, (name, measured)


def test_result_files_and_google_benchmark_json_cannot_be_matched(tmp_path, capsys):
    bench = tmp_path / "micro.json"
    bench.write_text(json.dumps(gbench("vm", 1.0, 1)))
    status, out, err = run(capsys, SURVEY_LAB, bench)
    assert status == 2 and out == ""
    assert "schema version 2 result files" in err and "Google Benchmark JSON" in err
    assert len(err.strip().splitlines()) == 1


# The instructions kind's callgrind counts (a small real run: bloom, xor8, cuckoo12 and rsqf at
# n = 20,000): judged within one build by --count-threshold, never across builds.
INSTRUCTIONS = FIXTURES / "written" / "instructions.jsonl"


def with_count(lines: list[dict], factor: float, filter_name: str = "bloom", op: str = "query_absent") -> list[dict]:
    lines = json.loads(json.dumps(lines))
    cell = next(line for line in lines if line.get("filter") == filter_name)
    cell["instructions_per_op"][op] *= factor
    return lines


def test_the_same_counts_exit_0_and_are_counted_within_the_threshold(capsys):
    status, out, err = run(capsys, INSTRUCTIONS, INSTRUCTIONS)
    assert status == 0, err
    assert "instruction counts within 1%" in out.splitlines()[0]


def test_two_percent_more_instructions_in_one_build_is_worse(tmp_path, capsys):
    new = write(tmp_path / "new" / "instructions.jsonl", with_count(lines_of(INSTRUCTIONS), 1.02))
    status, out, _ = run(capsys, INSTRUCTIONS, new)
    assert status == 1
    assert "1 instruction counts higher" in out.splitlines()[0]
    row = next(line for line in out.splitlines() if "instructions_per_op.query_absent" in line)
    assert "| more |" in row and "bloom" in row
    # Half a percent is within the default threshold; a threshold of 0.1% catches it.
    small = write(tmp_path / "small" / "instructions.jsonl", with_count(lines_of(INSTRUCTIONS), 1.005))
    assert run(capsys, INSTRUCTIONS, small)[0] == 0
    assert run(capsys, INSTRUCTIONS, small, "--count-threshold", "0.001")[0] == 1


def test_fewer_instructions_are_better_not_worse(tmp_path, capsys):
    new = write(tmp_path / "new" / "instructions.jsonl", with_count(lines_of(INSTRUCTIONS), 0.5))
    status, out, _ = run(capsys, INSTRUCTIONS, new)
    assert status == 0
    assert "| fewer |" in out


@pytest.mark.parametrize("where, change", [("context", ("compiler_flags", " -O2 -DNDEBUG")),
                                            ("context", ("march_native", True)),
                                            ("cell", ("valgrind_version", "valgrind-3.22.0"))])
def test_counts_of_another_build_are_not_judged(tmp_path, capsys, where, change):
    lines = with_count(lines_of(INSTRUCTIONS), 1.5)
    key, value = change
    for line in lines:
        if where == "context" and line["record"] == "header":
            line["context"][key] = value
        if where == "cell" and line["record"] == "cell":
            line[key] = value
    new = write(tmp_path / "new" / "instructions.jsonl", lines)
    status, out, _ = run(capsys, INSTRUCTIONS, new)
    assert status == 0
    row = next(line for line in out.splitlines() if "instructions_per_op.query_absent" in line and "bloom" in line)
    assert "other build, not judged" in row


def test_update_baseline_keeps_the_counts_and_their_build(tmp_path, capsys):
    baseline = tmp_path / "baseline"
    write(baseline / "instructions.jsonl", lines_of(INSTRUCTIONS))
    new_dir = tmp_path / "new"
    write(new_dir / "instructions.jsonl", with_count(lines_of(INSTRUCTIONS), 1.1))
    status, _, err = run(capsys, "--update-baseline", new_dir, "--baseline", baseline)
    assert status == 0, err
    kept = lines_of(baseline / "instructions.jsonl")
    assert kept[0]["context"]["compiler"] and "valgrind_version" in kept[1]
    assert kept[1]["instructions_per_op"] == cell_of(lines_of(new_dir / "instructions.jsonl"))["instructions_per_op"]


def test_cache_misses_that_moved_are_shown_not_judged(tmp_path, capsys):
    lines = json.loads(json.dumps(lines_of(INSTRUCTIONS)))
    cell = next(line for line in lines if line.get("filter") == "cuckoo12")
    cell["d1_misses_per_op"]["query_absent"] *= 1.04  # as far as a checkout at another path moved one
    new = write(tmp_path / "new" / "instructions.jsonl", lines)
    status, out, _ = run(capsys, INSTRUCTIONS, new)
    assert status == 0
    row = next(line for line in out.splitlines() if "d1_misses_per_op.query_absent" in line)
    assert "| misses moved |" in row and "not judged" in row
