"""The layering check fails on a file that includes a floor above its own."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import check_layers  # noqa: E402


def write(root: Path, name: str, text: str) -> None:
    path = root / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def test_the_tree_keeps_its_floors():
    assert check_layers.breaches(Path(__file__).resolve().parent.parent) == []


def test_an_include_running_up_is_named(tmp_path):
    write(tmp_path, "core/filter.h", '#include "core/hashing.h"\n')
    write(tmp_path, "filters/bloom.h", '#include "core/filter.h"\n#include "harness/cell/kernels.h"\n')
    write(tmp_path, "workloads/keys.cc", '#include "traces/flow.h"\n')
    problems = check_layers.breaches(tmp_path)
    assert len(problems) == 2
    assert problems[0].startswith("filters/bloom.h:2: filters/ includes harness/cell/kernels.h")
    assert problems[1].startswith("workloads/keys.cc:1: workloads/ includes traces/flow.h")


def test_tests_may_reach_up(tmp_path):
    write(tmp_path, "workloads/keys_test.cc", '#include "filters/all.h"\n')
    assert check_layers.breaches(tmp_path) == []


def test_a_test_helper_header_keeps_to_its_floor(tmp_path):
    write(tmp_path, "filters/bloom_test_support.h", '#include "harness/cell/kernels.h"\n')
    problems = check_layers.breaches(tmp_path)
    assert len(problems) == 1 and problems[0].startswith("filters/bloom_test_support.h:1:")


def test_harness_rooms_keep_their_order(tmp_path):
    write(tmp_path, "harness/cell/run_cell.h", '#include "harness/run/result_file.h"\n')
    write(tmp_path, "harness/run/runner.cc", '#include "harness/cell/registry.h"\n#include "harness/kinds/all.h"\n')
    write(tmp_path, "harness/kinds/all.h", '#include "harness/run/kind.h"\n#include "harness/suite/suite.h"\n')
    write(tmp_path, "harness/micro_bench/micro_bench.cc", '#include "harness/cell/kernels.h"\n#include "harness/run/runner.h"\n')
    write(tmp_path, "commands/main.cc", '#include "harness/suite/suite.h"\n#include "harness/micro_bench/x.h"\n')
    problems = check_layers.breaches(tmp_path)
    assert [p.split(": ")[0] for p in problems] == [
        "commands/main.cc:2",
        "harness/cell/run_cell.h:1",
        "harness/kinds/all.h:2",
        "harness/micro_bench/micro_bench.cc:2",
        "harness/run/runner.cc:2",
    ]
    assert "harness/cell/ includes harness/run/result_file.h, a floor above it" in problems[1]


def test_a_harness_file_outside_the_rooms_is_named(tmp_path):
    write(tmp_path, "harness/loose.cc", '#include "core/filter.h"\n')
    write(tmp_path, "harness/run/runner.cc", '#include "harness/loose.h"\n')
    problems = check_layers.breaches(tmp_path)
    assert len(problems) == 2
    assert problems[0].startswith("harness/loose.cc: harness/ sources live in its rooms")
    assert problems[1].startswith("harness/run/runner.cc:1: harness/run/ includes harness/loose.h")
