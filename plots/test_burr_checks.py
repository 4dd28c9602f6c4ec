"""The sweep section's BuRR check (issue 23): bits/key ÷ r − 1 inside the paper's 0.1-0.5%, from
records. Each test flips the verdict by changing a number."""

import pandas as pd

import stats
from sections import sweep
from test_fair_sections import Records


def rows(bits_per_key=8.0192, r=8):
    return pd.DataFrame([
        {"filter": "bumped_ribbon", "family": "ribbon", "target_fpr": 2.0 ** -r, "fingerprint_bits": r,
         "bits_per_key": bits_per_key},
    ])


def verdicts(frame):
    records = Records({})
    sweep.burr_overhead_checks(records, frame)
    return [c.verdict for c in records.checks if "BuRR's space overhead" in c.claim]


def test_overhead_in_the_range_reproduces():
    assert verdicts(rows()) == [stats.REPRODUCED]  # 0.24%, as measured at 10^6
    assert verdicts(rows(bits_per_key=7 * 1.004, r=7)) == [stats.REPRODUCED]


def test_overhead_outside_the_range_contradicts():
    assert verdicts(rows(bits_per_key=8 * 1.02)) == [stats.CONTRADICTED]  # 2%
    assert verdicts(rows(bits_per_key=8 * 1.0002)) == [stats.CONTRADICTED]  # 0.02%, below the range


def test_other_filters_are_not_checked():
    frame = rows()
    frame["filter"] = "ribbon64"
    assert verdicts(frame) == []
