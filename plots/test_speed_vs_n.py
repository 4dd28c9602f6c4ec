"""The speed-against-n section and chart on a crafted Google Benchmark file at three n
(fixtures/micro_n.json); the loader's n column is tested in test_load.py."""

import json
import math
import shutil
from pathlib import Path

import matplotlib.pyplot as plt
import pytest

import charts
import load
from result_set import ResultSet, Suite

HERE = Path(__file__).resolve().parent
FIXTURES = HERE / "fixtures"
MICRO_N = FIXTURES / "micro_n.json"
MICRO = FIXTURES / "micro.json"  # written before n was an argument: names without n
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
SIZES = [1024, 65536, 4194304]  # the n of micro_n.json


def vertical_lines(ax) -> list[float]:
    return sorted(line.get_xdata()[0] for line in ax.lines
                  if len(set(line.get_xdata())) == 1 and line.get_linestyle() == ":")


def test_the_chart_draws_a_line_per_filter_and_the_caches_at_the_contexts_sizes():
    frame = load.load(MICRO_N)
    caches = load.cache_sizes(json.loads(MICRO_N.read_text())["context"])
    fig = charts.speed_vs_n_figure(frame, "t", caches)
    try:
        assert [ax.get_title() for ax in fig.axes] == ["insert or build", "query, present", "query, absent"]
        for ax in fig.axes:
            assert ax.get_xscale() == "log"
            assert sorted(line.get_label() for line in ax.lines if not line.get_label().startswith("_")) == \
                ["bloom", "xor8"]
            # bits_per_key is 10 in the file: a 10-bit-per-key filter fills each cache at 8 * size / 10.
            assert vertical_lines(ax) == pytest.approx([8 * 32768 / 10, 8 * 1048576 / 10, 8 * 4194304 / 10])
        insert = next(line for line in fig.axes[0].lines if line.get_label() == "bloom")
        assert list(insert.get_xdata()) == SIZES and list(insert.get_ydata()) == pytest.approx([20, 30, 90])
    finally:
        plt.close(fig)
    # One n: nothing to draw against n.
    assert charts.speed_vs_n_figure(load.load(MICRO), "t", caches) is None


def test_cache_lines_outside_the_range_of_n_are_left_out():
    caches = [("L1d", 32768), ("L3", 512 * 2**20)]
    assert [name for name, _, _ in charts.cache_lines(caches, 8.0, 1024, 2**20)] == ["L1d"]


SECTION_SUITE = """
[suite]
name = "n"

[[experiment]]
id = "micro_n"
kind = "micro"
title = "Speed against n"
section = "speed_vs_n"
keys = [1024, 65536, 4194304]
charts = []
"""


def section_results(tmp_path) -> ResultSet:
    """A results directory holding fixtures/micro_n.json, read with SECTION_SUITE."""
    directory = tmp_path / "results"
    directory.mkdir()
    shutil.copy(MICRO_N, directory / "micro_n.json")
    suite = tmp_path / "suite.toml"
    suite.write_text(SECTION_SUITE)
    return ResultSet(Suite.read(suite), directory, tmp_path, FIXTURES / "schema.json")


def test_the_section_tables_each_n_and_draws_the_chart(tmp_path):
    from sections import speed_vs_n

    results = section_results(tmp_path)
    directory = results.directory
    text = speed_vs_n.render(results)
    assert text.startswith("## Speed against n\n")
    assert "| filter | operation | 2^10 | 2^16 | 2^22 |" in text
    assert "| bloom | insert | 20 | 30 | 90 |" in text
    assert "| xor8 | build | 40 | 60 | 250 |" in text
    assert "median over 2 repetitions" in text
    assert "Caches in the file's context: L1d 32 KiB, L2 1 MiB, L3 4 MiB." in text
    assert "L1d at n ≈ 26,214" in text
    assert "![Speed against n: ns per key against n](results/micro_n_speed_vs_n.png)" in text
    assert results.drawn == [directory / "micro_n_speed_vs_n.png"]
    assert results.drawn[0].read_bytes().startswith(PNG_SIGNATURE)


def test_the_default_suite_has_the_experiment_full_extends_it_and_quick_stays_within_2_to_the_20():
    import tomllib

    doc = tomllib.loads((HERE.parent / "suites" / "default.toml").read_text())
    [experiment] = [e for e in doc["experiment"] if e["id"] == "micro_n"]
    assert experiment["kind"] == "micro" and experiment["section"] == "speed_vs_n"
    # The default run stops at 2^24; --full goes on to 2^26 (the 512 MiB key buffers).
    assert experiment["keys"] == [2**k for k in range(10, 25, 2)]
    assert experiment["full"]["keys"] == [2**k for k in range(10, 27, 2)]
    assert max(experiment["quick"]["keys"]) <= 2**20
    assert len(experiment["filters"]["names"]) == 7


def test_each_lookup_is_set_against_the_random_line_ceiling_at_its_filters_size(tmp_path, monkeypatch):
    import pandas as pd

    from sections import machine, speed_vs_n

    results = section_results(tmp_path)
    # Without the machine and locality experiments' files: said so, no fractions.
    assert "No fraction of the random-line ceiling" in speed_vs_n.render(results)
    # bits_per_key is 10 in the file: at n = 2^22 bloom takes 5 MiB, where this machine reads 10^8
    # random lines per second. Non-members touch 2 lines in 40 ns (5 * 10^7 lines/s, 50%); members
    # 7 lines in 60 ns (1.17 * 10^8 lines/s, 117%: more than independent random reads, as lines
    # already in cache are).
    ceiling = pd.DataFrame({"working_set_bytes": [2**20, 5 * 2**20], "lines_per_second": [4e8, 1e8]})
    traced = pd.DataFrame({"cache_lines_member_mean": [7.0, 3.0], "cache_lines_absent_mean": [2.0, 3.0]},
                          index=pd.Index(["bloom", "xor"], name="filter"))
    monkeypatch.setattr(machine, "ceilings", lambda _results: ceiling)
    monkeypatch.setattr(speed_vs_n, "traced_lines", lambda _results: traced)
    text = speed_vs_n.render(ResultSet(results.suite, results.directory, tmp_path, FIXTURES / "schema.json"))
    assert "| bloom | 7.00 / 2.00 | 5 MiB | 1e+08 | 40 ns, 50% | – | 60 ns, 117% | – |" in text, text
    # xor8 is traced as its family's filter, and says so.
    assert "| xor8 | 3.00 / 3.00 (xor) |" in text
    # By n: at 2^10 (1,280 bytes, below the smallest size measured) the ceiling is 4 * 10^8;
    # bloom's non-members take 6 ns there: 2 lines / 6 ns = 3.3 * 10^8 lines/s, 83%.
    assert "| bloom | one at a time | 83% |" in text
    # Fractions above 100% are counted and the largest named; this one (1,280 bytes) lies below the
    # smallest size measured, so no rates around it to give.
    assert "7 of 12 fractions exceed 100% (the largest: bloom query, present at n = 2^10, 219%)" in text
    assert "the measured rate falls" not in text
    # Inside the measured range: the rates either side, and how steeply they fall.
    frame = pd.DataFrame(speed_vs_n.ceiling_rows(pd.DataFrame(
        {"filter": ["xor8"], "operation": ["query_absent_batched"], "n": [2**22], "ns_per_key": [5.0],
         "bits_per_key": [4.0]}), ResultSet(results.suite, results.directory, tmp_path, FIXTURES / "schema.json")))
    [note] = [line for line in speed_vs_n.over_ceiling_note(frame) if line]
    assert note.startswith("1 of 1 fractions exceed 100% (the largest: xor8 query, absent, batched at n = 2^22, 273%)")
    assert "between 1 MiB and 5 MiB the measured rate falls from 4e+08 to 1e+08 lines/s (×4)" in note


def test_the_ceiling_between_two_measured_working_sets_is_interpolated_log_against_log():
    import pandas as pd

    from sections import machine

    ceiling = pd.DataFrame({"working_set_bytes": [2**20, 4 * 2**20], "lines_per_second": [4e8, 1e8]})
    assert machine.ceiling_at(ceiling, 2 * 2**20) == pytest.approx(2e8)
    assert machine.ceiling_at(ceiling, 2**10) == 4e8
    assert machine.ceiling_at(ceiling, 2**30) == 1e8
    assert machine.ceiling_at(pd.DataFrame(), 2**20) is None


def test_what_bounds_a_lookup_is_its_in_cache_time_against_the_time_its_lines_allow():
    import pandas as pd

    from sections import speed_vs_n

    # The ceiling allows 2 lines / 4e8 lines/s = 5 ns. A: 10 ns in cache, so at most 50%: its
    # instructions. B: 2 ns in cache (at most 100%) yet 20% at the largest n, batched: its work
    # beside its loads; D, the same one at a time: loads in flight. C: 5.5 ns at the largest n,
    # 91%: the memory system. E: a hashed line at 1e8 lines/s, so a floor of 10 + 2.5 = 12.5 ns,
    # 40% of the ceiling: the hash. F: hashed at 3.2e8, floor 3.125 + 2.5 = 5.625 ns (89%), yet
    # 20%: its work beside its loads, with the floor shown.
    def rows(name, in_cache, largest, operation="query_absent_batched", hashed=None):
        extra = {} if hashed is None else {"hashed": hashed}
        return [{"filter": name, "operation": operation, "n": n, "ns": ns, "lines": 2.0,
                 "ceiling": 4e8, "fraction": 2.0 * 1e9 / ns / 4e8, **extra}
                for n, ns in ((2**10, in_cache), (2**24, largest))]

    frame = pd.DataFrame(rows("A", 10.0, 40.0) + rows("B", 2.0, 25.0) + rows("C", 3.0, 5.5)
                         + rows("D", 2.0, 25.0, "query_absent") + rows("E", 2.0, 25.0, hashed=1e8)
                         + rows("F", 2.0, 25.0, hashed=3.2e8))
    text = "\n".join(speed_vs_n.bounds_table(frame, {("A", "query_absent_batched"): (100.0, 20000)}))
    assert "| A | query, absent, batched | 2.00 | 5 | 10 (2^10) | 50% | – | 40 ns, 12% | 100: 10 → 20 | its instructions |" in text
    assert "| B | query, absent, batched | 2.00 | 5 | 2 (2^10) | 100% | – | 25 ns, 20% | – | its work beside its loads |" in text
    assert "| C | query, absent, batched | 2.00 | 5 | 3 (2^10) | 100% | – | 5.5 ns, 91% | – | the memory system |" in text
    assert "| D | query, absent | 2.00 | 5 | 2 (2^10) | 100% | – | 25 ns, 20% | – | loads in flight |" in text
    assert "| E | query, absent, batched | 2.00 | 5 | 2 (2^10) | 100% | 12.5, 40% | 25 ns, 20% | – | the hash beside its lines |" in text
    assert "| F | query, absent, batched | 2.00 | 5 | 2 (2^10) | 100% | 5.62, 89% | 25 ns, 20% | – | its work beside its loads |" in text
    assert "callgrind counts at 20,000 keys" in text
    # One n only: nothing to set against the in-cache time.
    assert speed_vs_n.bounds_table(frame[frame["n"] == 2**24], {}) == []


def test_the_in_cache_time_is_read_at_the_largest_n_within_half_the_l2_cache():
    import pandas as pd

    from sections import speed_vs_n

    # G at 2^10 (1 KiB: the branch predictor has learnt its keys) 2 ns, at 2^16 (64 KiB) 8 ns,
    # at 2^20 (1 MiB) 9 ns, at 2^24 40 ns. With half of a 1 MiB L2 (512 KiB) the in-cache time is
    # 2^16's 8 ns: at most 5 / 8 = 62%, its instructions; at 2^10's 2 ns it would have read 100%.
    frame = pd.DataFrame([{"filter": "G", "operation": "query_present_batched", "n": n, "ns": ns, "lines": 2.0,
                           "ceiling": 4e8, "fraction": 2.0 * 1e9 / ns / 4e8, "bytes": float(n)}
                          for n, ns in ((2**10, 2.0), (2**16, 8.0), (2**20, 9.0), (2**24, 40.0))])
    text = "\n".join(speed_vs_n.bounds_table(frame, {}, in_cache_bytes=2**19))
    assert "| G | query, present, batched | 2.00 | 5 | 8 (2^16) | 62% | – | 40 ns, 12% | – | its instructions |" in text
    assert "half the L2 cache (512 KiB of the file's context)" in text
    # No L2 in the context: the smallest n, as before.
    text = "\n".join(speed_vs_n.bounds_table(frame, {}))
    assert "| G | query, present, batched | 2.00 | 5 | 2 (2^10) | 100% |" in text
    assert "at n = 2^10, every line in cache (the file's context names no L2 cache)" in text
    # Nothing fits: the smallest n.
    assert speed_vs_n.in_cache_n(frame, 100.0) == 2**10


def test_a_filters_own_table_is_its_ceiling_where_the_file_has_random_lines(tmp_path, monkeypatch):
    import pandas as pd

    from sections import machine, speed_vs_n

    results = section_results(tmp_path)
    # A file with random_lines (ns per line over the filter's own table) at n = 2^22 only: there it
    # is the ceiling; at 2^10 the machine experiment's rate stands. xor8 reads 3 lines in 12 ns
    # (2.5e8 lines/s); its own table read 3e8 random lines/s (3.33 ns a line): 83%. The machine's
    # 1e8 lines/s at that size would have made it 250%.
    # random_lines_hashed (2.5e8 hashed lines/s) gives that n's row its hashed rate.
    runs = pd.DataFrame({
        "filter": ["xor8"] * 5, "n": [2**10, 2**22, 2**22, 2**22, 2**22],
        "operation": ["query_absent_batched", "query_absent_batched", OWN := "random_lines", OWN,
                      "random_lines_hashed"],
        "ns_per_key": [2.0, 12.0, 1e9 / 3e8, 1e9 / 3e8, 4.0], "bits_per_key": [10.0] * 5})
    ceiling = pd.DataFrame({"working_set_bytes": [2**11, 5 * 2**20], "lines_per_second": [4e9, 1e8]})
    traced = pd.DataFrame({"cache_lines_member_mean": [3.0], "cache_lines_absent_mean": [3.0]},
                          index=pd.Index(["xor"], name="filter"))
    monkeypatch.setattr(machine, "ceilings", lambda _results: ceiling)
    monkeypatch.setattr(speed_vs_n, "traced_lines", lambda _results: traced)
    rows = {r["n"]: r for r in speed_vs_n.ceiling_rows(runs, results)}
    assert rows[2**22]["measured"] == "own table" and rows[2**22]["ceiling"] == pytest.approx(3e8)
    assert rows[2**22]["fraction"] == pytest.approx(2.5e8 / 3e8)
    assert rows[2**10]["measured"] == "machine" and rows[2**10]["ceiling"] == pytest.approx(4e9)
    assert rows[2**22]["hashed"] == pytest.approx(2.5e8) and math.isnan(rows[2**10]["hashed"])
    # Its floor: one hashed line (4 ns) and two more at the ceiling's 3.33 ns.
    assert speed_vs_n.hashed_floor(rows[2**22]) == pytest.approx(4.0 + 2 * 1e9 / 3e8)
    frame = pd.DataFrame(list(rows.values()))
    text = speed_vs_n.ceiling_source_text(frame)
    assert text.startswith("the ceiling is the rate of independent random line reads over the filter's own table")
    assert "from n = 2^22" in text and "below that, the machine experiment's rate" in text
    # Only own-table ceilings: no word of the machine experiment.
    assert "machine experiment" not in speed_vs_n.ceiling_source_text(frame[frame["n"] == 2**22])
    # Above 100% of its own table's rate, a lookup's lines were not independent: said so, and no
    # talk of another window or of interpolation.
    fast = frame.assign(fraction=[1.2 if m == "own table" else 0.5 for m in frame["measured"]])
    [note] = [line for line in speed_vs_n.over_ceiling_note(fast) if line]
    assert "faster than independent random reads of the same table in the same process" in note
    assert "another window" not in note
    # Without the machine experiment the own-table ceilings still give fractions.
    monkeypatch.setattr(machine, "ceilings", lambda _results: pd.DataFrame())
    assert [r["n"] for r in speed_vs_n.ceiling_rows(runs, results)] == [2**22]
    # The reads are not a lookup: the ns-per-key table leaves them out.
    assert "random_lines" not in speed_vs_n.median_table(runs)
    assert "xor8 | query, absent, batched" in speed_vs_n.median_table(runs)
