"""The verdict rules and intervals the report's judgements rest on."""

import math
import random

import pytest

import stats
import theory

R, P, C, N = stats.REPRODUCED, stats.PARTLY, stats.CONTRADICTED, stats.NOT_MEASURED


def test_wilson_interval():
    low, high = stats.wilson(50, 100)
    assert low == pytest.approx(0.4038, abs=1e-4) and high == pytest.approx(0.5962, abs=1e-4)
    assert stats.wilson(0, 30)[0] == 0.0
    assert all(math.isnan(x) for x in stats.wilson(1, 0))


def test_bands_hold_the_expected_value():
    low, high = stats.binomial_band(0.01, 100_000)
    assert low < 0.01 < high and high - low < 0.002
    low, high = stats.poisson_band(100)
    assert 75 < low < 100 < high < 125


@pytest.mark.parametrize("measured, expected, kwargs, verdict", [
    (10.1, 10.0, {"rel_tol": 0.02}, R),
    (10.3, 10.0, {"rel_tol": 0.02}, P),  # within 2×tol
    (10.5, 10.0, {"rel_tol": 0.02}, C),
    (10.5, 10.0, {"abs_tol": 0.5}, R),
    (3, 3, {}, R),  # no tolerance: exact
    (4, 3, {}, C),
    (12.0, 10.0, {"rel_tol": 0.02, "claim": "at_most"}, C),
    (5.0, 10.0, {"rel_tol": 0.02, "claim": "at_most"}, R),
    (9.9, 10.0, {"rel_tol": 0.02, "claim": "at_least"}, R),
    (9.0, 10.0, {"rel_tol": 0.02, "claim": "at_least"}, C),
    # "30% smaller" (baseline 0): 15% smaller is off by far, but the direction holds.
    (15.0, 30.0, {"abs_tol": 5.0, "baseline": 0.0}, P),
    (-5.0, 30.0, {"abs_tol": 5.0, "baseline": 0.0}, C),
    (None, 1.0, {"rel_tol": 0.1}, N),
    (float("nan"), 1.0, {"rel_tol": 0.1}, N),
])
def test_verdict_rules(measured, expected, kwargs, verdict):
    assert stats.verdict(measured, expected, **kwargs) == verdict


def test_verdict_interval_rules():
    assert stats.verdict_interval(0.0100, 0.0098, 0.0102) == R
    assert stats.verdict_interval(0.0104, 0.0098, 0.0102) == C
    assert stats.verdict_interval(0.0104, 0.0098, 0.0102, rel_tol=0.02) == R
    assert stats.verdict_interval(0.0106, 0.0098, 0.0102, rel_tol=0.02) == P
    assert stats.verdict_interval(0.0100, None, 0.0102) == N


def test_verdict_range_rules():
    # Overlap within tol reproduces; within 2 tol partly; a speed-up on the claim's side of 1 but short
    # of its range is partly; the other side of 1 contradicts.
    assert stats.verdict_range(1.9, 2.1, 2.0, 2.0) == R
    assert stats.verdict_range(1.6, 1.7, 2.0, 2.0, rel_tol=0.25) == R  # 0.3 short, tol 0.5
    assert stats.verdict_range(1.2, 1.3, 2.0, 2.0, rel_tol=0.25) == P  # 0.7 short, within 2 tol
    assert stats.verdict_range(1.01, 1.02, 3.2, 3.5, rel_tol=0.1, baseline=1.0) == P  # faster, not by 3.2
    assert stats.verdict_range(0.5, 0.6, 3.2, 3.5, rel_tol=0.1, baseline=1.0) == C  # slower
    assert stats.verdict_range(0.5, 0.6, 3.2, 3.5, rel_tol=0.1) == C
    # A bound written as a range from 0: only the low end of the spread must meet it.
    assert stats.verdict_range(1.1, 1.3, 0.0, 1.25) == R
    assert stats.verdict_range(1.3, 1.4, 0.0, 1.25) == C
    # tol is taken from the claimed end nearest the measurement.
    assert stats.verdict_range(17.0, 17.0, 0.9, 15.5, rel_tol=0.1) == R  # 1.5 above, tol 1.55
    assert stats.verdict_range(0.8, 0.8, 0.9, 15.5, rel_tol=0.1) == P  # 0.1 below, tol 0.09
    assert stats.verdict_range(math.nan, 1.0, 1.0, 2.0) == N


def test_ratio_spread_is_the_widest_the_repetitions_allow():
    assert stats.ratio_spread((20.0, 18.0, 24.0), (10.0, 9.0, 12.0)) == (2.0, 1.5, 24.0 / 9.0)
    assert all(math.isnan(v) for v in stats.ratio_spread((1.0, 1.0, 1.0), (0.0, 0.0, 1.0)))


def test_chance_verdict_allows_about_five_percent():
    assert stats.chance_verdict(1, 32)[0] == R
    verdict, limit = stats.chance_verdict(10, 32)
    assert verdict == C and limit < 5
    assert stats.chance_verdict(0, 0)[0] == N


def test_theory_matches_the_headers_and_the_survey():
    assert theory.bloom(0.01) == pytest.approx(9.585, abs=1e-3)
    assert theory.cuckoo(0.01) == pytest.approx((6.6439 + 3) / 0.95, abs=1e-3)
    bits = theory.blocked_bloom(0.01)[0]
    assert theory.blocked_bloom_fpr(bits) <= 0.01 < theory.blocked_bloom_fpr(bits - 0.01)
    assert theory.cuckoo_lab_geometry(30000, 0.01, 0.94, 4) == pytest.approx((10, 8192, 0.91553, 10.9227),
                                                                             abs=1e-4)
    assert theory.cuckoo_fpr(10, 0.91552734375) == pytest.approx(0.0071375, abs=1e-6)
    assert theory.knuth_displacement(0.5) == pytest.approx(0.5)


def test_mean_intervals_of_independent_draws():
    mean, (low, high), (one_low, one_high) = stats.mean_intervals([1.0, 2.0, 3.0, 4.0])
    assert mean == 2.5
    # s = 1.291, t(0.975, 3) = 3.182: the mean's half-width t·s/2, one draw's t·s·√(5/4).
    assert math.isclose(high - mean, 3.1824 * 1.2910 / 2, rel_tol=1e-3)
    assert math.isclose(one_high - mean, 3.1824 * 1.2910 * math.sqrt(1.25), rel_tol=1e-3)
    assert low < mean < high and one_low < low and high < one_high
    assert math.isnan(stats.mean_intervals([0.7])[1][0])
    assert math.isnan(stats.mean_intervals([])[0])


def test_mean_interval_is_mean_intervals_mean_part():
    assert stats.mean_interval([1.0, 2.0, 3.0, 4.0]) == (2.5, *stats.mean_intervals([1.0, 2.0, 3.0, 4.0])[1])
    assert stats.mean_interval([1.0, float("nan"), 3.0])[0] == 2.0


@pytest.mark.parametrize("a, b, verdict", [
    ([1.0, 2.0, 3.0, 4.0], [2.0, 3.1, 3.9, 5.2], R),  # a below b on every pair
    ([1.0, 2.0, 3.0, 4.0], [1.1, 1.9, 3.2, 3.9], R),  # no difference chance can tell, mean ≤ 0
    ([1.2, 2.0, 3.1, 4.0], [1.0, 2.1, 3.0, 3.9], P),  # interval holds 0, mean above it
    ([2.0, 3.1, 3.9, 5.2], [1.0, 2.0, 3.0, 4.0], C),  # a above b beyond chance
    ([1.0], [2.0], N),  # one pair: no spread
])
def test_paired_verdict(a, b, verdict):
    mean, low, high, pairs = stats.paired_difference(a, b)
    assert pairs == len(a)
    assert stats.paired_verdict(mean, low, high) == verdict


def test_verdict_slower_needs_the_spreads_apart_for_reproduced():
    assert stats.verdict_slower(5.0, 4.9, 4.0, 4.1) == stats.REPRODUCED
    assert stats.verdict_slower(4.2, 4.0, 4.0, 4.3) == stats.PARTLY
    assert stats.verdict_slower(3.9, 3.8, 4.0, 4.1) == stats.CONTRADICTED
    assert stats.verdict_slower(float("nan"), 3.8, 4.0, 4.1) == stats.NOT_MEASURED


def test_hoeffding_interval_covers_the_mean_of_bounded_values():
    # 2,000 values in [1, 4]: half-width 3 * sqrt(ln(40) / 4000) = 0.0911.
    low, high = stats.hoeffding_interval(1.85, 1, 4, 2000)
    assert (low, high) == pytest.approx((1.85 - 0.0911, 1.85 + 0.0911), abs=1e-4)
    # It covers the true mean in far more than 95% of samples (it is conservative).
    rng = random.Random(7)
    covered = 0
    for _ in range(400):
        values = [rng.choice((1, 1, 1, 2, 4)) for _ in range(200)]
        low, high = stats.hoeffding_interval(sum(values) / len(values), 1, 4, len(values))
        covered += low <= 1.8 <= high
    assert covered >= 0.95 * 400
    assert all(math.isnan(v) for v in stats.hoeffding_interval(1.0, 1, 2, 0))
