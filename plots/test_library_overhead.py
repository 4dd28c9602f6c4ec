"""Google Benchmark's own cost per iteration (harness/micro_bench/overhead_bench.cc) beside every
benchmark's iteration, on crafted Google Benchmark files: negligible when each share stays under
1%, named benchmark by benchmark when one does not, and taken from another file when the run
that is judged did not measure it."""

import json

import pytest

from result_set import ResultSet, Suite
from sections import speed

SUITE = """
[suite]
name = "o"

[[experiment]]
id = "micro"
kind = "micro"
title = "one n"
section = "speed"
charts = []

[[experiment]]
id = "micro_n"
kind = "micro"
title = "against n"
section = "speed_vs_n"
keys = [1024, 1048576]
charts = []
"""


def bench(name: str, real_time: float, unit: str, repetition: int) -> dict:
    return {"name": name, "run_name": name, "run_type": "iteration", "repetition_index": repetition,
            "iterations": 10, "real_time": real_time, "cpu_time": real_time, "time_unit": unit}


def overhead(empty_ns: list[float], pause_ns: list[float]) -> list[dict]:
    return ([bench("overhead/google_benchmark/empty_iteration", t, "ns", i) for i, t in enumerate(empty_ns)]
            + [bench("overhead/google_benchmark/pause_resume", t, "ns", i) for i, t in enumerate(pause_ns)])


def write(directory, name: str, benchmarks: list[dict]) -> None:
    (directory / name).write_text(json.dumps({"context": {"host_name": "h"}, "benchmarks": benchmarks}))


def results_with(tmp_path, files: dict[str, list[dict]]) -> ResultSet:
    directory = tmp_path / "results"
    directory.mkdir()
    for name, benchmarks in files.items():
        write(directory, name, benchmarks)
    suite = tmp_path / "suite.toml"
    suite.write_text(SUITE)
    return ResultSet(Suite.read(suite), directory, tmp_path, None)


def test_a_cost_far_below_every_iteration_is_negligible_with_the_largest_share_named(tmp_path):
    results = results_with(tmp_path, {"micro.json": [
        *overhead([0.5, 0.4, 0.6], [300, 320, 310]),
        # A query pass over 10^6 keys: 2 ms; the slowest empty iteration (0.6 ns) is 3e-7 of it.
        bench("bloom/query_absent/n:1000000/real_time", 2.0, "ms", 0),
        bench("bloom/query_absent/n:1000000/real_time", 2.5, "ms", 1),
        # A build of 10^6 keys: 40 ms; two pauses and resumes at their slowest (640 ns): 0.0016%.
        bench("bloom/insert/n:1000000/real_time", 40.0, "ms", 0),
        bench("static/xor8/build_cold/n:1000000/real_time", 80.0, "ms", 0),
        # The quotient family's benchmarks take no n: an insert band of 10^5 keys in 10 ms.
        bench("quotient_family/rsqf/insert/0-10/iterations:5/real_time", 10.0, "ms", 0),
    ]})
    [line] = speed.library_overhead(results, "micro")
    assert "an empty iteration 0.50 [0.40–0.60] ns" in line
    assert "a pause and resume of its timers 310.0 [300.0–320.0] ns" in line
    assert "each of 4 benchmarks in `micro`" in line
    assert "plain loops at most 0.000% (bloom/query_absent at n = 1,000,000, 2,000,000 ns an iteration)" in line
    # Two pauses and resumes (640 ns) over 10 ms: the largest share, on a benchmark without n.
    assert "builds and inserts at most 0.006% (quotient_family/rsqf/insert/0-10, 10,000,000 ns" in line
    assert line.endswith("→ negligible: under 1% of every iteration.")


def test_a_share_over_one_percent_is_named_and_the_cost_can_come_from_another_file(tmp_path):
    results = results_with(tmp_path, {
        "micro.json": overhead([0.5], [300]),
        # 2^10 keys inserted in 40 us: two pauses and resumes (600 ns) are 1.5% of it.
        "micro_n.json": [bench("bloom/insert/n:1024/real_time", 40.0, "us", 0),
                         bench("bloom/insert/n:1048576/real_time", 40.0, "ms", 0),
                         bench("bloom/query_present/n:1024/real_time", 2.0, "us", 0)],
    })
    assert speed.library_overhead(results, "micro_n") == [], "micro_n measured no overhead of its own"
    [line] = speed.library_overhead(results, "micro_n", "micro")
    assert "(measured in `micro`)" in line
    assert "**not negligible** for 1 benchmark (over 1%): bloom/insert at n = 1,024 1.5%" in line
    assert "plain loops at most 0.025% (bloom/query_present at n = 1,024" in line


def test_nothing_is_said_without_both_overhead_benchmarks(tmp_path):
    results = results_with(tmp_path, {"micro.json": [
        bench("overhead/google_benchmark/empty_iteration", 0.5, "ns", 0),
        bench("bloom/insert/n:1000000/real_time", 40.0, "ms", 0)]})
    assert speed.library_overhead(results, "micro") == []
    assert speed.library_overhead(results, None) == []


@pytest.mark.parametrize("unit,factor", [("ns", 1.0), ("us", 1e3), ("ms", 1e6), ("s", 1e9)])
def test_iteration_times_are_read_in_their_unit(unit, factor):
    import pandas as pd

    frame = pd.DataFrame({"real_time": [2.0], "time_unit": [unit]})
    assert speed.iteration_ns(frame).iloc[0] == pytest.approx(2.0 * factor)
