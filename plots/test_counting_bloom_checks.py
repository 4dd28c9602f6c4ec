"""The space section's counting Bloom checks (issue 23), computed from records: four times a Bloom
filter's bits at the same target, no counter overflow where the paper's bound allows none, and the
counters at 15 of an overloaded filter against the binomial tail. Each test flips a verdict by
changing a number."""

import pandas as pd

import stats
from sections import space
from test_fair_sections import Records


def rows(counting_bits=38.36, overflows=0, saturated=0, saturated_expected=1e-9):
    common = {"target_fpr": 0.01, "keys_inserted": 1000000, "fpr": 0.01}
    return pd.DataFrame([
        {**common, "filter": "bloom", "family": "bloom", "bits_per_key": 9.59},
        {**common, "filter": "counting_bloom", "family": "counting_bloom", "bits_per_key": counting_bits,
         "counter_overflows": overflows, "saturated_counters": saturated, "saturated_expected": saturated_expected,
         "overflow_bound": 1.3e-8, "overflow_expected": 6e-10, "counters": 9585088, "hash_probes": 7},
    ])


def verdicts(frame, start):
    records = Records({})
    space.counting_bloom_checks(records, frame)
    return records.verdicts(start)


def test_space_is_four_times_blooms():
    assert verdicts(rows(), "counting Bloom at") == [stats.REPRODUCED]
    assert verdicts(rows(counting_bits=48.0), "counting Bloom at") == [stats.CONTRADICTED]


def test_an_overflow_the_bound_does_not_allow_contradicts_it():
    assert verdicts(rows(), "counting Bloom: a 4-bit counter") == [stats.REPRODUCED]
    assert verdicts(rows(overflows=1), "counting Bloom: a 4-bit counter") == [stats.CONTRADICTED]


def test_saturated_counters_are_judged_only_where_the_tail_expects_some():
    assert verdicts(rows(), "counting Bloom: counters at 15") == []
    overloaded = rows(saturated=10100, saturated_expected=10000.0)
    assert verdicts(overloaded, "counting Bloom: counters at 15") == [stats.REPRODUCED]
    overloaded = rows(saturated=11000, saturated_expected=10000.0)
    assert verdicts(overloaded, "counting Bloom: counters at 15") == [stats.CONTRADICTED]


def test_poisson_upper_quantile():
    assert space.poisson_upper(1e-8) == 0
    assert space.poisson_upper(1.0) == 3  # Pr(X <= 2) = 0.920, Pr(X <= 3) = 0.981
