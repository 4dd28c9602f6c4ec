"""Tests of the loader, the charts and the report against small fixture files that
amqbench and amqbench_micro wrote (plots/fixtures/)."""

import json
import shutil
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import loader  # noqa: E402
import make_plots  # noqa: E402
import report  # noqa: E402
import theory  # noqa: E402

FIXTURES = HERE / "fixtures"


def test_loader_reads_driver_records_with_context():
    frame = loader.load(FIXTURES / "space.json")
    assert len(frame) == 6
    for column in ("filter", "family", "bits_per_key", "fpr", "fpr_theory", "false_negatives",
                   "workload.kind", "host_name", "git_commit"):
        assert column in frame, column
    assert (frame["false_negatives"] == 0).all()
    assert set(frame["filter"]) == {"bloom", "blocked_bloom", "cuckoo"}


def test_loader_reads_google_benchmark_in_ns_per_key():
    frame = loader.load(FIXTURES / "micro.json")
    assert set(frame["filter"]) == {"bloom", "cuckoo12"}
    assert set(frame["operation"]) == {"insert", "query_present", "query_absent"}
    # Seconds per key in the file; a filter at n = 10^6 takes between 0.1 and 10^4 ns per key.
    assert frame["ns_per_key"].between(0.1, 1e4).all()
    summary = loader.speed_summary(frame)
    assert (summary["min"] <= summary["median"]).all()
    assert (summary["median"] <= summary["max"]).all()


def test_loader_rejects_other_json(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"hello": 1}))
    with pytest.raises(loader.ResultFileError):
        loader.load(bad)
    broken = tmp_path / "broken.json"
    broken.write_text("{not json")
    with pytest.raises(loader.ResultFileError):
        loader.load(broken)


def test_charts_are_written_beside_the_json(tmp_path):
    copy = tmp_path / "space.json"
    shutil.copy(FIXTURES / "space.json", copy)
    made = make_plots.charts_for(copy)
    names = {p.name for p in made}
    assert {"space_space.png", "space_fpr.png", "space_kicks.png"} <= names
    for path in made:
        assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_make_plots_exit_code_on_bad_input(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("[]")
    assert make_plots.main([str(bad)]) == 2
    assert make_plots.main([]) == 2


def test_report_sets_measurements_beside_the_seed(tmp_path):
    results = tmp_path / "results"
    results.mkdir()
    for name in ("space.json", "seed_lab.json", "micro.json"):
        shutil.copy(FIXTURES / name, results / name)
    out = tmp_path / "REPORT.md"
    assert report.main(["--results", str(results), "--out", str(out)]) == 0
    text = out.read_text()
    assert "## Seed 000's cuckoo lab, reproduced" in text
    assert "| buckets m | 8,192 | 8,192 |" in text
    assert "## Bloom, blocked Bloom and cuckoo at 1% and 0.1%" in text
    assert "## Speed at n = 10^6" in text
    assert "Cuckoo12: 44 / 39" in text  # the reference beside our cuckoo12 insert
    assert "cuckoo_load" in text  # named among the sections without result files


def test_theory_curves_match_the_headers():
    assert theory.bloom(0.01) == pytest.approx(9.585, abs=1e-3)
    assert theory.cuckoo(0.01) == pytest.approx((6.6439 + 3) / 0.95, abs=1e-3)
    bits = theory.blocked_bloom(0.01)[0]
    assert theory.blocked_bloom_fpr(bits) <= 0.01 < theory.blocked_bloom_fpr(bits - 0.01)
