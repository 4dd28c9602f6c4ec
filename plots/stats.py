"""The statistics the report judges claims with: intervals, chance bands, summaries and verdicts.

Every judgement in REPORT.md is one of four words, computed here from the numbers:
"reproduced", "partly", "contradicted" or "not measured". The rules are in `verdict` and
`verdict_interval`; the report prints the tolerance beside every verdict.
"""

from __future__ import annotations

import math

import pandas as pd
from scipy import stats as scipy_stats

REPRODUCED = "reproduced"
PARTLY = "partly"
CONTRADICTED = "contradicted"
NOT_MEASURED = "not measured"

Z95 = 1.959963984540054

# verdict's one-sided limits -> +1 where a finite measurement falls below the limit, −1 above.
LIMIT_SIDES = {"limit_below": 1.0, "limit_above": -1.0}


def is_missing(value) -> bool:
    if value is None or value is pd.NA:
        return True
    try:
        return math.isnan(float(value))
    except (TypeError, ValueError):
        return False


def wilson(successes: float, trials: float, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval of a rate (95% by default); (nan, nan) without trials."""
    if is_missing(successes) or is_missing(trials) or trials <= 0:
        return (math.nan, math.nan)
    p = successes / trials
    denom = 1.0 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denom
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def binomial_band(p: float, trials: int, confidence: float = 0.95) -> tuple[float, float]:
    """Where a rate measured over `trials` independent tries lands with probability `confidence`
    when the true rate is p (exact binomial quantiles, as rates)."""
    low, high = scipy_stats.binom.interval(confidence, int(trials), p)
    return (low / trials, high / trials)


def poisson_band(expected: float, confidence: float = 0.95) -> tuple[int, int]:
    """Where a count of rare events lands with probability `confidence` when `expected` are due."""
    low, high = scipy_stats.poisson.interval(confidence, expected)
    return (int(low), int(high))


def summary(frame: pd.DataFrame, by: list[str], column: str) -> pd.DataFrame:
    """Median, min and max of `column` over the rows of each group, and how many rows."""
    grouped = frame.groupby(by, sort=False)[column]
    return grouped.agg(median="median", min="min", max="max", runs="count").reset_index()


def tolerance(expected: float, rel_tol: float | None, abs_tol: float | None) -> float:
    return max((rel_tol or 0.0) * abs(expected), abs_tol or 0.0)


def tolerance_text(rel_tol: float | None = None, abs_tol: float | None = None) -> str:
    """The tolerance as the report prints it beside a verdict."""
    parts = []
    if rel_tol:
        parts.append(f"±{rel_tol * 100:g}%")
    if abs_tol:
        parts.append(f"±{abs_tol:g}")
    return " or ".join(parts) if parts else "exact"


def verdict(measured, expected, rel_tol: float | None = None, abs_tol: float | None = None,
            claim: str = "equal", baseline: float | None = None) -> str:
    """Judge a measured number against the number a claim predicts.

    tol = max(rel_tol·|expected|, abs_tol) (a missing one counts as 0; both missing: exact).
      claim "equal":    |measured − expected| ≤ tol      -> reproduced;  ≤ 2·tol -> partly
      claim "at_most":  measured ≤ expected + tol        -> reproduced;  ≤ expected + 2·tol -> partly
      claim "at_least": measured ≥ expected − tol        -> reproduced;  ≥ expected − 2·tol -> partly
      claim "limit_below": a limit a finite measurement approaches from below (e.g. the load
                        threshold of cuckoo hashing, stated for unbounded tables and kicks):
                        measured within tol of it -> reproduced; lower than that -> partly (a
                        finite table may stop short: the limit holds, its approach is not shown);
                        above it, as "at_most" (only overshooting contradicts a limit).
      claim "limit_above": the mirror image, for a limit approached from above.
    Otherwise, when a baseline is given, the claim also states a direction (expected lies on one
    side of the baseline, e.g. "30% smaller than Bloom" has baseline 0% saving): if the
    measurement lies on that same side, the direction holds -> partly. Anything else ->
    contradicted. A missing measured or expected value -> not measured.
    """
    if is_missing(measured) or is_missing(expected):
        return NOT_MEASURED
    measured, expected = float(measured), float(expected)
    tol = tolerance(expected, rel_tol, abs_tol)
    if claim == "equal":
        miss = abs(measured - expected)
    elif claim == "at_most":
        miss = max(0.0, measured - expected)
    elif claim == "at_least":
        miss = max(0.0, expected - measured)
    elif claim in LIMIT_SIDES:
        # The side a finite measurement may fall on, and how far it fell on the other one.
        allowed = (expected - measured) * LIMIT_SIDES[claim]
        if allowed > tol:
            return PARTLY
        miss = max(0.0, -allowed)
    else:
        raise ValueError(f"unknown claim {claim!r}")
    if miss <= tol:
        return REPRODUCED
    if miss <= 2 * tol:
        return PARTLY
    if baseline is not None and not is_missing(baseline):
        side = (expected > baseline) - (expected < baseline)
        if side != 0 and (measured > baseline) - (measured < baseline) == side:
            return PARTLY
    return CONTRADICTED


def verdict_interval(value, low, high, rel_tol: float | None = None,
                     abs_tol: float | None = None) -> str:
    """Judge a predicted value (a theory, or another measurement) against a measured interval.

    tol = max(rel_tol·|value|, abs_tol) (both missing: 0).
      value inside [low − tol, high + tol]     -> reproduced  (tol = 0: inside the interval)
      value inside [low − 2·tol, high + 2·tol] -> partly
      otherwise                                -> contradicted
    A missing value or interval end -> not measured.
    """
    if is_missing(value) or is_missing(low) or is_missing(high):
        return NOT_MEASURED
    value, low, high = float(value), float(low), float(high)
    tol = tolerance(value, rel_tol, abs_tol)
    miss = max(0.0, low - value, value - high)
    if miss <= tol:
        return REPRODUCED
    if miss <= 2 * tol:
        return PARTLY
    return CONTRADICTED


def verdict_range(low, high, claimed_low, claimed_high, rel_tol: float | None = None,
                  baseline: float | None = None) -> str:
    """Judge a measured interval [low, high] (a ratio over its repetitions' spread, say) against
    the range a source claims, [claimed_low, claimed_high] (equal ends for one figure).

    tol = rel_tol × the claimed end nearest the measurement (missing: 0).
      the intervals overlap, within tol        -> reproduced
      they overlap within 2·tol                -> partly
      otherwise, when the claim states a direction from a baseline (a speed-up claimed above
      1, say) and the whole measured interval lies on that side of it -> partly
      otherwise                                -> contradicted
    Any end missing -> not measured.
    """
    if any(is_missing(v) for v in (low, high, claimed_low, claimed_high)):
        return NOT_MEASURED
    low, high, claimed_low, claimed_high = float(low), float(high), float(claimed_low), float(claimed_high)
    nearest = claimed_low if high < claimed_low else claimed_high
    tol = (rel_tol or 0.0) * abs(nearest)
    miss = max(0.0, claimed_low - high, low - claimed_high)
    if miss <= tol:
        return REPRODUCED
    if miss <= 2 * tol:
        return PARTLY
    if baseline is not None and not is_missing(baseline):
        if claimed_low > baseline and low > baseline or claimed_high < baseline and high < baseline:
            return PARTLY
    return CONTRADICTED


def ratio_spread(numerator: tuple[float, float, float], denominator: tuple[float, float, float]) -> tuple[float, float, float]:
    """a / b from two timings, each (median, min, max) over its repetitions: the ratio of the
    medians and the widest the repetitions allow, (min_a / max_b, max_a / min_b)."""
    (a, a_low, a_high), (b, b_low, b_high) = numerator, denominator
    if any(is_missing(v) or float(v) <= 0 for v in (b, b_low, b_high)):
        return (math.nan, math.nan, math.nan)
    return (a / b, a_low / b_high, a_high / b_low)


def chance_verdict(outside: int, cells: int, rate: float = 0.05,
                   confidence: float = 0.95) -> tuple[str, int]:
    """Judge how many of `cells` independent 95% intervals miss their theory value.

    If the theory holds, the count is Binomial(cells, rate). Returns (verdict, limit) with limit
    the upper end of that count's `confidence` band:
      outside ≤ limit -> reproduced; ≤ 2·limit -> partly; more -> contradicted; no cells -> not measured.
    """
    if cells <= 0:
        return NOT_MEASURED, 0
    limit = int(scipy_stats.binom.ppf(confidence, cells, rate))
    if outside <= limit:
        return REPRODUCED, limit
    if outside <= 2 * limit:
        return PARTLY, limit
    return CONTRADICTED, limit


def count_outside(values, lows, highs) -> tuple[int, int]:
    """How many values miss their interval, and how many could be judged (none missing)."""
    judged = [verdict_interval(v, lo, hi) for v, lo, hi in zip(values, lows, highs)]
    return (sum(v == CONTRADICTED for v in judged), sum(v != NOT_MEASURED for v in judged))


def mean_intervals(values, confidence: float = 0.95) -> tuple[float, tuple[float, float], tuple[float, float]]:
    """The mean of independent draws (one per table, say), the Student-t interval of that mean,
    and the prediction interval of one more draw: where one further table of the same kind lands
    with probability `confidence`, mean ± t·s·√(1 + 1/k). A single published run is judged against
    the second, its mean against the first. Fewer than two draws: nan intervals."""
    draws = [float(v) for v in values if not is_missing(v)]
    k = len(draws)
    if k == 0:
        return (math.nan, (math.nan, math.nan), (math.nan, math.nan))
    mean = sum(draws) / k
    if k < 2:
        return (mean, (math.nan, math.nan), (math.nan, math.nan))
    s = math.sqrt(sum((d - mean) ** 2 for d in draws) / (k - 1))
    t = float(scipy_stats.t.ppf(0.5 + confidence / 2, k - 1))
    half_mean, half_one = t * s / math.sqrt(k), t * s * math.sqrt(1 + 1 / k)
    return (mean, (mean - half_mean, mean + half_mean), (mean - half_one, mean + half_one))


def mean_interval(values, confidence: float = 0.95) -> tuple[float, float, float]:
    """The mean of independent measurements (tables, trials) and its Student-t interval, as
    mean_intervals gives them; with fewer than two values the interval is (nan, nan)."""
    mean, (low, high), _ = mean_intervals(values, confidence)
    return (mean, low, high)


def hoeffding_interval(mean: float, smallest: float, largest: float, n: int,
                       confidence: float = 0.95) -> tuple[float, float]:
    """An interval for the mean of n independent values that all lie in [smallest, largest], from
    Hoeffding's inequality: it assumes nothing of their distribution (the lines one lookup
    touches are a few small integers with a long tail), so it is wider than a normal interval."""
    if n <= 0 or is_missing(mean):
        return (math.nan, math.nan)
    half = (largest - smallest) * math.sqrt(math.log(2 / (1 - confidence)) / (2 * n))
    return (mean - half, mean + half)


def paired_difference(a, b, confidence: float = 0.95) -> tuple[float, float, float, int]:
    """Paired differences a_i − b_i (two filters on the same streams, trial by trial): their mean,
    its Student-t interval and how many pairs. A pair with either side missing is dropped."""
    pairs = [(float(x), float(y)) for x, y in zip(a, b) if not is_missing(x) and not is_missing(y)]
    mean, low, high = mean_interval([x - y for x, y in pairs], confidence)
    return (mean, low, high, len(pairs))


def paired_verdict(mean: float, low: float, high: float) -> str:
    """A claim that a is at most b, judged from the paired differences a − b (mean and interval):
    contradicted when the whole interval lies above 0 (a is worse on these streams beyond
    chance); partly when it holds 0 but the mean is above it (not worse beyond chance, yet not
    as good on average); reproduced otherwise (a at most b, or no difference chance can tell)."""
    if is_missing(mean) or is_missing(low) or is_missing(high):
        return NOT_MEASURED
    if low > 0:
        return CONTRADICTED
    if mean > 0:
        return PARTLY
    return REPRODUCED


def verdict_slower(slow_median, slow_min, fast_median, fast_max) -> str:
    """Judge a claim that one timing is slower than another, each a median over repeats with its
    min and max: reproduced when even the slower's fastest repeat is slower than the faster's
    slowest; partly when only the medians are in that order; otherwise contradicted."""
    if any(is_missing(v) for v in (slow_median, slow_min, fast_median, fast_max)):
        return NOT_MEASURED
    if slow_min > fast_max:
        return REPRODUCED
    return PARTLY if slow_median > fast_median else CONTRADICTED
