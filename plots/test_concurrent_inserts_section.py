"""The concurrent_inserts section on crafted cell lines: one row per filter and n at the largest T
with its speedup over T = 1 and the runs' range, the locks' bytes and FPRs, low cpu_share said, and
the exact false-negative check, which a lost key fails."""

import json

from result_set import ResultSet, Suite


def cell(name: str, threads: int, rate: float, lost: int = 0, cpu_share: float = 0.97) -> dict:
    return {"record": "cell", "cell_id": f"{name}{threads}", "experiment": "ci", "kind": "concurrent_inserts",
            "seed": 1, "filter": name, "family": name, "keys": 1000000, "threads": threads, "lock_bytes": 4096,
            "inserts_per_second": rate, "inserts_per_second_min": rate * 0.9, "inserts_per_second_max": rate * 1.1,
            "fpr_after_concurrent_inserts": 0.0101, "fpr_theory": 0.0100, "insert_failures": 0,
            "keys_inserted": 1000000, "false_negatives": lost, "cpu_share": cpu_share}


def results(tmp_path, lines) -> ResultSet:
    suite = tmp_path / "suite.toml"
    suite.write_text('[suite]\nname = "t"\n[[experiment]]\nid = "ci"\nkind = "concurrent_inserts"\n'
                     'section = "concurrent_inserts"\nquick = {}\n')
    cells = list(dict.fromkeys(line["cell_id"] for line in lines))
    header = {"record": "header", "schema_version": 2, "experiment": {"id": "ci", "kind": "concurrent_inserts"},
              "suite": None, "context": {"command_line": "amqbench suite"}, "cells": cells}
    everything = [header, *lines, {"record": "end", "complete": True, "cells": len(cells)}]
    (tmp_path / "ci.jsonl").write_text("".join(json.dumps(line) + "\n" for line in everything))
    return ResultSet(Suite.read(suite), tmp_path, tmp_path, None)


def test_a_row_per_filter_with_its_speedup_and_range(tmp_path):
    from sections import concurrent_inserts

    text = concurrent_inserts.render(results(tmp_path, [cell("bloom", 1, 1e7), cell("bloom", 2, 1.6e7),
                                                         cell("vqf8", 1, 2e7), cell("vqf8", 2, 3.8e7, cpu_share=0.6)]))
    rows = [line for line in text.splitlines() if line.startswith("| bloom") or line.startswith("| vqf8")]
    assert rows[0].startswith("| bloom | 1,000,000 | 1e+07 (9e+06–1.1e+07) | 1.6e+07 (1.44e+07–1.76e+07) | 1.60x | 4,096 |")
    assert rows[1].split(" | ")[4] == "1.90x"
    assert "0.0101 | 0.0100" in rows[0]
    assert "1 of 4 cells' threads ran under 90%" in text
    check_line = next(line for line in text.splitlines() if "no false negatives after concurrent inserts" in line)
    assert "0 accepted keys not found" in check_line and "contradicted" not in check_line


def test_a_lost_key_fails_the_check(tmp_path):
    from sections import concurrent_inserts

    text = concurrent_inserts.render(results(tmp_path, [cell("bloom", 1, 1e7), cell("bloom", 2, 1.6e7, lost=3)]))
    assert "3 accepted keys not found" in text
    check_line = next(line for line in text.splitlines() if "no false negatives after concurrent inserts" in line)
    assert check_line.endswith("→ **contradicted**")


def test_nothing_to_show_without_records(tmp_path):
    from sections import concurrent_inserts

    suite = tmp_path / "suite.toml"
    suite.write_text('[suite]\nname = "t"\n[[experiment]]\nid = "ci"\nkind = "concurrent_inserts"\n'
                     'section = "concurrent_inserts"\nquick = {}\n')
    assert concurrent_inserts.render(ResultSet(Suite.read(suite), tmp_path, tmp_path, None)) is None


def test_slower_than_one_thread_is_said_with_the_reason(tmp_path):
    from sections import concurrent_inserts

    text = concurrent_inserts.render(results(tmp_path, [cell("bloom", 1, 2e7), cell("bloom", 2, 4e6),
                                                         cell("vqf8", 1, 2e7), cell("vqf8", 2, 3.8e7)]))
    note = next(line for line in text.splitlines() if "load slower than on one thread" in line)
    assert "1 of 2 filter and n pairs" in note and "(bloom at n = 1,000,000)" in note
    assert "line_handoff" not in note  # no machine experiment in this run
    scaled = concurrent_inserts.render(results(tmp_path, [cell("bloom", 1, 2e7), cell("bloom", 2, 3e7)]))
    assert "load slower than on one thread" not in scaled


def test_the_reason_quotes_the_machine_experiments_line_handoff(tmp_path):
    from sections import concurrent_inserts

    lines = [cell("bloom", 1, 2e7), cell("bloom", 2, 4e6)]
    results(tmp_path, lines)  # writes ci.jsonl
    handoff = {"record": "machine", "cell_id": "h", "experiment": "m", "kind": "machine", "seed": 1,
               "test": "line_handoff", "handoff_cpus": [0, 1], "ns_per_handoff": 204.2, "ns_per_handoff_min": 203.1,
               "ns_per_handoff_max": 205.4, "thread_cpus_seen": [0, 1], "pinned": True, "cpu_share": 0.99,
               "repeats": 3}
    header = {"record": "header", "schema_version": 2, "experiment": {"id": "m", "kind": "machine"}, "suite": None,
              "context": {"command_line": "amqbench suite"}, "cells": ["h"]}
    (tmp_path / "m.jsonl").write_text("".join(json.dumps(line) + "\n" for line in
                                              [header, handoff, {"record": "end", "complete": True, "cells": 1}]))
    suite = tmp_path / "suite.toml"
    suite.write_text(suite.read_text() + '[[experiment]]\nid = "m"\nkind = "machine"\nsection = "machine"\nquick = {}\n')
    text = concurrent_inserts.render(ResultSet(Suite.read(suite), tmp_path, tmp_path, None))
    note = next(line for line in text.splitlines() if "load slower than on one thread" in line)
    assert "one line handed between CPUs 0 and 1 takes 204 ns one way (203–205" in note
    assert "against 50 ns per insert of the fastest filter on one thread" in note
