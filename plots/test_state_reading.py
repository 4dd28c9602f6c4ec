"""The adaptive section's state-reading adversary (sections/adaptive.py, state_reading) on a real
small run (fixtures/written/adapt_state_reading.jsonl): the growth exponent, the table over n and
the verdicts the Support Optimality claims take from it."""

import math
import shutil
from pathlib import Path

import pytest

from result_set import ResultSet, Suite

HERE = Path(__file__).resolve().parent
FIXTURES = HERE / "fixtures"
STATE_READING = FIXTURES / "written" / "adapt_state_reading.jsonl"

SUITE = """
[suite]
name = "state"

[[experiment]]
id = "adapt_state_reading"
kind = "adapt_adversarial"
title = "State-reading adversary"
section = "adaptive"
charts = []
filters = { names = ["acf_cyclic", "acf_swapping", "acf_cuckooing"] }
slots_sweep = [256, 1024]
bits_per_slot = [8]
attack = ["state_reading", "state_reading_follow"]
queries_per_slot = 2
trials = 3
trial_lines = false
quick = { trials = 2 }
"""


def test_growth_exponent_is_the_log_log_slope():
    from sections.adaptive import growth_exponent

    assert growth_exponent([1024, 4096, 16384], [1023, 4095, 16383]) == pytest.approx(1.0)
    assert growth_exponent([1024, 4096], [3, 3]) == pytest.approx(0.0)
    assert growth_exponent([1024, 4096], [0, 0]) == pytest.approx(0.0)  # paid nothing: bounded
    assert math.isnan(growth_exponent([1024], [5]))


def test_cyclic_and_swapping_grow_linearly_and_cuckooing_stays_bounded_unless_followed(tmp_path):
    from sections import adaptive

    directory = tmp_path / "results"
    directory.mkdir()
    shutil.copy(STATE_READING, directory / STATE_READING.name)
    suite = tmp_path / "suite.toml"
    suite.write_text(SUITE)
    results = ResultSet(Suite.read(suite), directory, tmp_path, FIXTURES / "schema.json")
    text = adaptive.render(results)
    assert "| attack | filter | n = 256 | n = 1,024 |" in text
    verdicts = {(c.claim.split(",")[0], c.claim.split("(")[1].split(")")[0]): c.verdict for c in results.checks}
    assert verdicts[("acf_cyclic", "state_reading")] == "reproduced"
    assert verdicts[("acf_swapping", "state_reading")] == "reproduced"
    assert verdicts[("acf_cuckooing", "state_reading")] == "reproduced"  # bounded
    assert verdicts[("acf_cuckooing", "state_reading_follow")] == "reproduced"  # grows: not adaptive
    bounded = [c for c in results.checks if "stay bounded" in c.claim]
    assert [c.claim.split(",")[0] for c in bounded] == ["acf_cuckooing"]


def test_the_claims_take_the_checks():
    import claims

    [omega] = [c for c in claims.CLAIMS if c.words.startswith("Cyclic and Swapping ACFs may incur Ω(n)")]
    assert not omega.missing and omega.kind == claims.GROWTH
    assert any(m.like_for_like and "Ω(n)" in m.words for m in omega.measured_by)
