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
    write(tmp_path, "filters/bloom.h", '#include "core/filter.h"\n#include "harness/kernels.h"\n')
    write(tmp_path, "workloads/keys.cc", '#include "traces/flow.h"\n')
    problems = check_layers.breaches(tmp_path)
    assert len(problems) == 2
    assert problems[0].startswith("filters/bloom.h:2: filters/ includes harness/kernels.h")
    assert problems[1].startswith("workloads/keys.cc:1: workloads/ includes traces/flow.h")


def test_tests_may_reach_up(tmp_path):
    write(tmp_path, "workloads/keys_test.cc", '#include "filters/all.h"\n')
    assert check_layers.breaches(tmp_path) == []


def test_a_test_helper_header_keeps_to_its_floor(tmp_path):
    write(tmp_path, "filters/bloom_test_support.h", '#include "harness/kernels.h"\n')
    problems = check_layers.breaches(tmp_path)
    assert len(problems) == 1 and problems[0].startswith("filters/bloom_test_support.h:1:")
