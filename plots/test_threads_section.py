"""The threads section on crafted cell lines: a table per layout (speedup over the shared T = 1),
the ceiling fraction from the machine's threaded random-line rate and the traced lines, what is
missing said, and the false-negative check."""

import json

import stats
from result_set import ResultSet, Suite


def cell(name: str, layout: str, threads: int, member: float, absent: float, lost: int = 0) -> dict:
    return {"record": "cell", "cell_id": f"{name}{layout}{threads}", "experiment": "th", "kind": "threads", "seed": 1,
            "filter": name, "family": name, "keys": 1000000, "layout": layout, "threads": threads,
            "size_bytes": 1 << 20, "member_ops_per_second": member, "absent_ops_per_second": absent,
            "mixed_ops_per_second": (member + absent) / 2, "member_lookups": 1000, "members_found": 1000 - lost,
            "false_negatives": lost, "cpu_share": 0.95}


def write(path, experiment: str, kind: str, lines: list[dict]) -> None:
    cells = list(dict.fromkeys(line["cell_id"] for line in lines))
    header = {"record": "header", "schema_version": 2, "experiment": {"id": experiment, "kind": kind},
              "suite": None, "context": {"command_line": "amqbench suite"}, "cells": cells}
    everything = [header, *lines, {"record": "end", "complete": True, "cells": len(cells)}]
    (path / f"{experiment}.jsonl").write_text("".join(json.dumps(line) + "\n" for line in everything))


def results(tmp_path, lines, machine: bool) -> ResultSet:
    suite = tmp_path / "suite.toml"
    text = '[suite]\nname = "t"\n[[experiment]]\nid = "th"\nkind = "threads"\nsection = "threads"\nquick = {}\n'
    if machine:
        text += '[[experiment]]\nid = "m"\nkind = "machine"\nsection = "machine"\nquick = {}\n'
        text += '[[experiment]]\nid = "loc"\nkind = "filters"\nsection = "locality"\nquick = {}\n'
        points = [{"record": "machine", "cell_id": f"r{size}", "experiment": "m", "kind": "machine", "seed": 1,
                   "test": "random_lines_threads", "threads": 2, "working_set_bytes": size,
                   "lines_per_second": 1e8} for size in (1 << 18, 1 << 22)]
        write(tmp_path, "m", "machine", points)
        write(tmp_path, "loc", "filters", [{"record": "cell", "cell_id": "b", "experiment": "loc", "kind": "filters",
                                            "seed": 1, "filter": "bloom", "cache_lines_member_mean": 5.0,
                                            "cache_lines_absent_mean": 1.5}])
    suite.write_text(text)
    write(tmp_path, "th", "threads", lines)
    return ResultSet(Suite.read(suite), tmp_path, tmp_path, None)


LINES = [cell("bloom", "shared", 1, 1e7, 2e7), cell("bloom", "shared", 2, 1.8e7, 3e7),
         cell("bloom", "per_thread", 2, 1.9e7, 3.6e7), cell("xor8", "shared", 1, 4e7, 4e7),
         cell("xor8", "shared", 2, 8e7, 6e7), cell("xor8", "per_thread", 2, 7e7, 7e7)]


def test_a_table_per_layout_with_speedups_and_the_ceiling(tmp_path):
    from sections import threads

    rs = results(tmp_path, LINES, machine=True)
    text = threads.render(rs)
    assert "### One filter shared by every thread" in text and "### One filter of n / T keys per thread" in text
    rows = [line for line in text.splitlines() if line.startswith("| bloom") or line.startswith("| xor8")]
    assert len(rows) == 4
    # bloom shared: 1.8e7 / 1e7 = 1.80x; 1.8e7 lookups x 5 lines over 1e8 lines/s = 0.90.
    assert rows[0].startswith("| bloom | 1,000,000 | 1e+07 | 1.8e+07 | 1.80x | 2e+07 | 3e+07 | 1.50x |")
    assert "| 0.90 |" in rows[0]
    assert "| lines not traced |" in rows[1], "xor8 was not traced"
    assert [c.verdict for c in rs.checks] == [stats.REPRODUCED]


def test_missing_ceiling_and_a_lost_key_are_said(tmp_path):
    from sections import threads

    rs = results(tmp_path, LINES[:-1] + [cell("xor8", "per_thread", 2, 7e7, 7e7, lost=1)], machine=False)
    text = threads.render(rs)
    assert "random-line rate at 2 threads is missing" in text and "no ceiling fraction" in text
    assert "| no T-thread ceiling |" in text
    assert [c.verdict for c in rs.checks] != [stats.REPRODUCED]
