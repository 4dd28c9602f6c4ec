"""An experiment marked timed = false may have run beside another (amqbench suite --jobs): a
section reading it through a ResultSet gets its counts and never its timings."""

import json
from pathlib import Path

from result_set import ResultSet, Suite, timing_fields

BASELINE = Path(__file__).resolve().parent.parent / "results" / "baseline" / "fixed.jsonl"
with_timings = {"insert_ns": 20.0, "insert_ns_min": 19.0, "insert_ns_max": 22.0, "insert_ns_samples": [19.0, 20.0, 22.0],
                "query_ns_negative": 5.0}


def results_with(tmp_path: Path, timed: bool | None) -> ResultSet:
    lines = [json.loads(line) for line in BASELINE.read_text().splitlines() if line.strip()]
    for line in lines:  # the baseline keeps no timings: give each cell some, as a run records them
        if line.get("record") == "cell":
            line.update(with_timings)
    if timed is not None:
        lines[0]["experiment"]["timed"] = timed
    results = tmp_path / "results"
    results.mkdir(parents=True)
    (results / "fixed.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    suite = tmp_path / "suite.toml"
    suite.write_text('[[experiment]]\nid = "fixed"\nkind = "filters"\nsection = "static"\n'
                     + ("" if timed is None else f"timed = {str(timed).lower()}\n"))
    return ResultSet(Suite.read(suite), results, tmp_path, schema=None)


def test_an_untimed_experiments_frame_has_no_timings(tmp_path):
    assert {"insert_ns", "query_ns_negative_samples", "step_insert_ns"} <= timing_fields()
    untimed = results_with(tmp_path / "u", False).frame("fixed")
    assert not set(untimed.columns) & timing_fields()
    for timed in (True, None):  # said, or the default
        frame = results_with(tmp_path / str(timed), timed).frame("fixed")
        assert {"insert_ns", "query_ns_negative"} <= set(frame.columns)
        assert set(frame.columns) - timing_fields() == set(untimed.columns)
        assert frame["false_positives"].tolist() == untimed["false_positives"].tolist()
    # The suite's own `timed` key is not a parameter sections tell experiments apart by.
    assert "timed" not in results_with(tmp_path / "p", False).suite.experiment("fixed").params
