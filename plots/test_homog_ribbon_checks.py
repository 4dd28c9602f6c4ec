"""The sweep section's homogeneous Ribbon checks (issue 23), computed from records: the FPR's 95%
interval reaches 2^-r, and holds the predicted 2^-r + (1 - 2^-r) p. Each test flips a verdict by
changing a number."""

import pandas as pd

import stats
from sections import sweep
from test_fair_sections import Records


def rows(fpr=0.00388, low=0.00376, high=0.00401, theory=0.00390625):
    return pd.DataFrame([
        {"filter": "homog_ribbon64", "family": "ribbon", "target_fpr": 0.00390625, "fingerprint_bits": 8,
         "fpr": fpr, "fpr_ci_low": low, "fpr_ci_high": high, "fpr_theory": theory, "span_share": 0.0},
    ])


def verdicts(frame, words):
    records = Records({})
    sweep.homog_ribbon_checks(records, frame)
    return [c.verdict for c in records.checks if words in c.claim]


def test_fpr_at_or_above_two_to_minus_r_holds():
    assert verdicts(rows(), "a little above 2^-r") == [stats.REPRODUCED]
    # well above 2^-r is still "at least"
    assert verdicts(rows(fpr=0.02, low=0.019, high=0.021, theory=0.02), "a little above 2^-r") == [stats.REPRODUCED]


def test_fpr_surely_below_two_to_minus_r_contradicts():
    assert verdicts(rows(fpr=0.0030, low=0.0029, high=0.0031), "a little above 2^-r") == [stats.CONTRADICTED]


def test_the_prediction_must_sit_in_the_interval():
    assert verdicts(rows(), "span share's excess") == [stats.REPRODUCED]
    assert verdicts(rows(theory=0.0050), "span share's excess") == [stats.CONTRADICTED]


def test_other_filters_are_not_checked():
    frame = rows()
    frame["filter"] = "ribbon64"
    assert verdicts(frame, "") == []
