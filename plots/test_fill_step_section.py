"""The fill_step section on crafted step and cell lines: one row and one line per filter (its
fullest cell when it ran twice), the chart drawn, the invariants judged over every step, and the
helpers that read a fill's timings."""

import json

import pandas as pd

import charts
import stats
from result_set import ResultSet, Suite

OPS = ("step_insert_ns", "step_member_ns", "step_absent_ns", "step_erase_ns", "step_reinsert_ns")


def lines_of(filter_name: str, family: str, n: int, load_full: float | None, erasable: bool,
             lost_at: int | None = None, erase_miss_at: int | None = None) -> list[dict]:
    """Four steps of 25% and the cell line; inserts slow down with the fill (10, 20, 40, 80 ns)."""
    cell_id = f"{filter_name}{n}"
    common = {"cell_id": cell_id, "experiment": "fs", "kind": "fill_step", "seed": 1, "filter": filter_name,
              "family": family, "dynamic": True, "erasable": erasable, "capacity": n, "step_share": 0.25,
              "target_fpr": 0.01, "max_load": None, "queries": n // 4, "repeats": 3}
    out = []
    for step in range(1, 5):
        r = {"record": "step", **common, "step": step, "keys": n * step // 4, "fill": step / 4,
             "keys_inserted": n * step // 4, "step_insert_failures": 0, "insert_failures": 0,
             "erase_misses": int(step == erase_miss_at), "reinsert_failures": 0,
             "false_negatives": int(step == lost_at), "false_positives": 10, "negative_queries": 1000,
             "fpr": 0.01, "fpr_ci_low": 0.0054, "fpr_ci_high": 0.0183, "fpr_theory": 0.01, "size_bytes": n}
        for field in OPS:
            if not erasable and field in ("step_erase_ns", "step_reinsert_ns"):
                r[field] = None
                continue
            value = 10.0 * 2 ** (step - 1) if field == "step_insert_ns" else 8.0
            r.update({field: value, f"{field}_min": value * 0.9, f"{field}_max": value * 1.2,
                      f"{field}_samples": [value * 0.9, value, value * 1.2]})
        if load_full is not None:
            r["load_factor"] = load_full * step / 4
        out.append(r)
    cell = {"record": "cell", **common, "fill_steps": 4, "keys": n, "keys_inserted": n, "insert_failures": 0,
            "erase_misses": int(erase_miss_at is not None), "reinsert_failures": 0,
            "false_negatives": int(lost_at is not None), "false_positives": 10, "negative_queries": 1000,
            "fpr": 0.01, "fpr_ci_low": 0.0054, "fpr_ci_high": 0.0183, "fpr_theory": 0.01, "size_bytes": n,
            "bits_per_key": 8.0, "bits_per_key_theory": 8.0}
    if load_full is not None:
        cell["load_factor"] = load_full
    return out + [cell]


def results(tmp_path, lines: list[dict]) -> ResultSet:
    suite = tmp_path / "suite.toml"
    suite.write_text('[suite]\nname = "t"\n[[experiment]]\nid = "fs"\nkind = "fill_step"\n'
                     'section = "fill_step"\nquick = {}\n')
    cells = list(dict.fromkeys(line["cell_id"] for line in lines))
    header = {"record": "header", "schema_version": 2, "experiment": {"id": "fs", "kind": "fill_step"},
              "suite": None, "context": {"command_line": "amqbench suite"}, "cells": cells}
    everything = [header, *lines, {"record": "end", "complete": True, "cells": len(cells)}]
    (tmp_path / "fs.jsonl").write_text("".join(json.dumps(line) + "\n" for line in everything))
    return ResultSet(Suite.read(suite), tmp_path, tmp_path, None)


def test_one_row_per_filter_its_fullest_cell_and_the_chart(tmp_path):
    from sections import fill_step

    rs = results(tmp_path, [*lines_of("cuckoo12", "cuckoo", 4000, 0.95, True),
                            *lines_of("bloom", "bloom", 4000, None, False),
                            *lines_of("quotient", "quotient", 4000, 0.475, True),
                            *lines_of("quotient", "quotient", 3600, 0.9, True)])
    text = fill_step.render(rs)
    rows = [line for line in text.splitlines() if line.startswith("| ") and not line.startswith("| filter")]
    assert [row.split(" | ")[0] for row in rows] == ["| bloom", "| cuckoo12", "| quotient"]
    [quotient] = [row for row in rows if row.startswith("| quotient")]
    assert "| 3,600 | 0.900 |" in quotient, "the cell that fills its table, not the one at half load"
    [cuckoo] = [row for row in rows if row.startswith("| cuckoo12")]
    # 5% / 50% / 90% / 100% read the nearest steps (25%, 50%, 100%, 100%); full vs half: 80 / 20.
    assert "| 10 / 20 / 80 / 80 |" in cuckoo and "| 4.0x |" in cuckoo
    [bloom] = [row for row in rows if row.startswith("| bloom")]
    assert "| – / – / – / – |" in bloom, "an insert-only filter has no erase column"
    assert (tmp_path / "fill_step.png").is_file() and "fill_step.png" in text
    assert [c.verdict for c in rs.checks] == [stats.REPRODUCED] * 3


def test_a_key_lost_at_any_step_or_a_refused_erase_is_contradicted(tmp_path):
    from sections import fill_step

    rs = results(tmp_path, [*lines_of("cuckoo12", "cuckoo", 4000, 0.95, True, lost_at=3, erase_miss_at=2)])
    fill_step.render(rs)
    verdicts = {c.claim: c.verdict for c in rs.checks}
    assert verdicts["no false negatives"] == stats.CONTRADICTED
    assert verdicts["an erase of a held key always finds it, at every fill"] == stats.CONTRADICTED


def test_fills_are_read_at_the_nearest_step():
    from sections import fill_step

    rows = pd.DataFrame([{"fill": f / 20, "step_insert_ns": float(f)} for f in range(1, 21)])
    assert fill_step.at_fill(rows, 0.5)["step_insert_ns"] == 10.0
    assert fill_step.slowdown(rows, "step_insert_ns") == 2.0
    assert fill_step.slowdown(rows, "step_erase_ns") is None
    assert fill_step.at_fill(rows.iloc[0:0], 0.5) is None


def test_the_chart_needs_step_lines(tmp_path):
    assert charts.fill_step(pd.DataFrame({"record": ["cell"], "filter": ["bloom"]}), tmp_path / "x.png", "t") is None
    steps = pd.DataFrame(lines_of("bloom", "bloom", 400, None, False)[:-1])
    assert charts.fill_step(steps, tmp_path / "bloom.png", "t") == tmp_path / "bloom.png"
