"""The machine section on a crafted summary: which reported caches the latency curve can show,
the verdict on one step per level, the note for a reported cache without a plateau, and the line
handoff's sentence."""

import json

import pandas as pd

import stats
from result_set import ResultSet, Suite

L1D = {"level": 1, "type": "Data", "bytes": 49152, "source": "sysconf"}
L1I = {"level": 1, "type": "Instruction", "bytes": 32768, "source": "sysconf"}
L2 = {"level": 2, "type": "Unified", "bytes": 1048576, "source": "sysconf"}
L3 = {"level": 3, "type": "Unified", "bytes": 512 * 2**20, "source": "sysconf"}


def latency(largest: int) -> pd.DataFrame:
    sizes = [2**k for k in range(12, largest.bit_length())]
    # Flat to 48 KiB, flat to 1 MiB, then rising all the way: no third plateau.
    ns = [1.2 if s <= 49152 else 4.3 if s <= 2**20 else 4.3 * (s / 2**20) ** 0.5 for s in sizes]
    return pd.DataFrame({"working_set_bytes": sizes, "ns_per_load": ns})


def summary(levels: list[dict]) -> pd.Series:
    return pd.Series({"levels": levels, "reported_caches": [L1D, L1I, L2, L3]})


def results(tmp_path) -> ResultSet:
    suite = tmp_path / "suite.toml"
    suite.write_text('[suite]\nname = "m"\n')
    return ResultSet(Suite.read(suite), tmp_path, tmp_path, None)


def test_a_reported_cache_the_curve_shows_no_plateau_for_makes_the_verdict_partly(tmp_path):
    from sections import machine

    found = [{"level": 1, "reported": L1D}, {"level": 2, "reported": L2}, {"level": 3, "memory": True}]
    check = machine.levels_check(results(tmp_path), summary(found), latency(2**30))
    assert check.verdict == stats.PARTLY
    assert "2 of 3 reported caches" in check.evidence and "none for L3 512 MiB" in check.evidence
    [note] = machine.missing_level_note(machine.unmatched_caches(summary(found), latency(2**30)), latency(2**30))
    assert note.startswith("- L3 512 MiB (sysconf): no plateau. A working set of 256 MiB takes 68.8 ns per load and 512 MiB 97.3 ns")


def test_caches_beyond_half_the_curve_are_not_judged_and_every_step_found_reproduces(tmp_path):
    from sections import machine

    found = [{"level": 1, "reported": L1D}, {"level": 2, "reported": L2}, {"level": 3, "memory": True}]
    # Up to 64 MiB the 512 MiB L3 cannot show a step: not held against the curve.
    assert machine.levels_check(results(tmp_path), summary(found), latency(2**26)).verdict == stats.REPRODUCED
    # No step found at all.
    check = machine.levels_check(results(tmp_path), summary([{"level": 1, "memory": True}]), latency(2**26))
    assert check.verdict == stats.CONTRADICTED
    # A curve too short for any cache.
    assert machine.levels_check(results(tmp_path), summary(found), latency(2**14)).verdict == stats.NOT_MEASURED


def test_random_lines_measured_both_ways_show_each_rate_and_the_faster():
    from sections import machine

    both = pd.DataFrame({"working_set_bytes": [2**14, 2**26], "lines_per_second": [2.2e9, 1.6e8],
                         "lines_per_second_min": [2.1e9, 1.5e8], "lines_per_second_max": [2.3e9, 1.7e8],
                         "lines_method": ["loads", "prefetch"], "loads_lines_per_second": [2.2e9, 1.2e8],
                         "prefetch_lines_per_second": [1.5e9, 1.6e8]})
    text = machine.rate_table(both, "lines_per_second", 1.0, "lines per second")
    assert "| loads alone | prefetched ahead | faster |" in text
    assert "| 64 MiB | 1.6e+08 [1.5e+08–1.7e+08] | 1.2e+08 | 1.6e+08 | prefetch |" in text
    # A file from before the prefetched method: the table as it was.
    old = both.drop(columns=["lines_method", "loads_lines_per_second", "prefetch_lines_per_second"])
    assert "faster" not in machine.rate_table(old, "lines_per_second", 1.0, "lines per second")


HANDOFF = {"record": "machine", "cell_id": "h", "experiment": "m", "kind": "machine", "seed": 1,
           "test": "line_handoff", "handoff_cpus": [0, 1], "ns_per_handoff": 210.4, "ns_per_handoff_min": 197.6,
           "ns_per_handoff_max": 224.6, "thread_cpus_seen": [0, 1], "pinned": True, "cpu_share": 0.98, "repeats": 3}


def test_the_line_handoff_is_one_sentence_with_its_cpus_and_spread():
    from sections import machine

    text = machine.handoff_text(pd.DataFrame([HANDOFF]))
    assert text.startswith("- A cache line handed between CPUs 0 and 1: 210 ns (198–225) one way, median (min–max)")
    assert "lost time slices" not in text, "every thread ran: no caveat"
    lost = machine.handoff_text(pd.DataFrame([{**HANDOFF, "cpu_share": 0.6}]))
    assert "The two threads ran 60% of the wall time" in lost
    refused = machine.handoff_text(pd.DataFrame([{**HANDOFF, "pinned": False, "ns_per_handoff": None,
                                                  "ns_per_handoff_min": None, "ns_per_handoff_max": None}]))
    assert refused == "- A cache line handed between CPUs 0 and 1: not measured (the threads could not be pinned)."
    assert machine.handoff_text(pd.DataFrame()) is None, "one CPU, or a file from before: nothing said"


def test_the_section_states_the_handoff_from_the_machine_file(tmp_path):
    from sections import machine

    suite = tmp_path / "suite.toml"
    suite.write_text('[suite]\nname = "m"\n[[experiment]]\nid = "m"\nkind = "machine"\nsection = "machine"\n'
                     'quick = {}\n')
    lines = [{"record": "header", "schema_version": 2, "experiment": {"id": "m", "kind": "machine"}, "suite": None,
              "context": {"command_line": "amqbench suite"}, "cells": ["h"]},
             HANDOFF, {"record": "end", "complete": True, "cells": 1}]
    (tmp_path / "m.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    text = machine.render(ResultSet(Suite.read(suite), tmp_path, tmp_path, None))
    assert "- A cache line handed between CPUs 0 and 1: 210 ns (198–225) one way" in text


def lines_record(test: str, size: int, rate: float, huge: bool) -> dict:
    return {"record": "machine", "cell_id": f"{test}{size}", "experiment": "m", "kind": "machine", "seed": 1,
            "test": test, "working_set_bytes": size, "lines_per_second": rate, "lines_per_second_min": rate * 0.9,
            "lines_per_second_max": rate * 1.1, "lines_method": "prefetch", "loads_lines_per_second": rate / 2,
            "prefetch_lines_per_second": rate, "repeats": 3, "huge_pages": huge,
            "huge_page_fraction": 1.0 if huge else 0.0}


def machine_results(tmp_path, records: list[dict]) -> ResultSet:
    suite = tmp_path / "suite.toml"
    suite.write_text('[suite]\nname = "m"\n[[experiment]]\nid = "m"\nkind = "machine"\nsection = "machine"\n'
                     'quick = {}\n')
    lines = [{"record": "header", "schema_version": 2, "experiment": {"id": "m", "kind": "machine"}, "suite": None,
              "context": {"command_line": "amqbench suite"}, "cells": [r["cell_id"] for r in records]},
             *records, {"record": "end", "complete": True, "cells": len(records)}]
    (tmp_path / "m.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    return ResultSet(Suite.read(suite), tmp_path, tmp_path, None)


def test_the_filters_ceiling_is_the_one_measured_on_their_pages_where_the_file_has_it(tmp_path):
    """Issue 26 item 2: a filter's table is plain memory (4 KiB pages under THP madvise), so its
    lookups are set against random lines on those pages, not on the huge-page buffer; a file from
    before the second buffer keeps the huge-page ceiling, and the prose says which it is."""
    from sections import machine

    huge = [lines_record("random_lines", 2**24, 5.0e8, True), lines_record("random_lines", 2**26, 3.0e8, True)]
    plain = [lines_record("random_lines_default_pages", 2**24, 4.5e8, False),
             lines_record("random_lines_default_pages", 2**26, 1.7e8, False)]
    both = machine_results(tmp_path, huge + plain)
    ceiling = machine.ceilings(both)
    assert list(ceiling["lines_per_second"]) == [4.5e8, 1.7e8]
    assert machine.ceiling_pages_text(ceiling) == (
        "on the pages every filter's table gets (the kernel's default, no madvise: 4 KiB pages here)")
    assert list(machine.ceilings(both, "random_lines")["lines_per_second"]) == [5.0e8, 3.0e8]
    text = machine.render(both)
    assert "Independent random cache-line reads on the buffer above (the memory system's best):" in text
    assert "| 64 MiB | 1.7e+08 [1.53e+08–1.87e+08] |" in text
    assert "the ceiling the filters' lookups are set against" in text

    (tmp_path / "old").mkdir()
    older = machine_results(tmp_path / "old", huge)
    assert list(machine.ceilings(older)["lines_per_second"]) == [5.0e8, 3.0e8]
    assert machine.ceiling_pages_text(machine.ceilings(older)) == (
        "on 2 MiB huge pages (this file has no measurement on the filters' own pages)")
    assert "Independent random cache-line reads (the ceiling):" in machine.render(older)
