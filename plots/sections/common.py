"""Checks and pieces several sections share."""

from __future__ import annotations

import pandas as pd

import stats
from result_set import Check, ResultSet, verdict_cell

FPR_TOL = 0.02  # a formula's FPR against one measured 95% interval, widened 2%


def heading(results: ResultSet, experiment_id: str, level: str = "##") -> list[str]:
    """A section's or subsection's title (the suite's) and the command that made its file."""
    return [f"{level} {results.title(experiment_id)}", "", results.made_by(experiment_id), ""]


def fpr_cell(row: dict, tol: float = FPR_TOL, value: str = "fpr_theory") -> str:
    """Is the row's theory FPR inside its measured 95% interval (widened by tol)?"""
    return verdict_cell(stats.verdict_interval(row.get(value), row.get("fpr_ci_low"),
                                               row.get("fpr_ci_high"), rel_tol=tol))


def fpr_chance_check(results: ResultSet, section: str, frame: pd.DataFrame,
                     claim: str = "the FPR formulas", value: str = "fpr_theory") -> Check:
    """If the formulas are right, about 5% of 95% intervals miss them by chance: judge the count.
    Filters that share fingerprints measure the very same false positives; such identical
    measurements count once, since chance treats them as one."""
    distinct = frame.drop_duplicates([value, "fpr", "fpr_ci_low", "fpr_ci_high"])
    outside, judged = stats.count_outside(distinct[value], distinct["fpr_ci_low"], distinct["fpr_ci_high"])
    verdict, limit = stats.chance_verdict(outside, judged)
    return results.check(section, claim, f"{outside} of {judged} distinct measurements have their theory"
                         f" value outside the 95% interval; chance alone leaves up to {limit} outside", verdict,
                         "binomial, 5% per cell")


def false_negative_check(results: ResultSet, section: str, frame: pd.DataFrame,
                         column: str = "false_negatives") -> Check:
    missed = int(pd.to_numeric(frame[column], errors="coerce").fillna(0).sum()) if column in frame else None
    evidence = "not recorded" if missed is None else f"{missed:,} in {len(frame)} cells"
    return results.check(section, "no false negatives", evidence, stats.verdict(missed, 0), "exact")


def figures(results: ResultSet, experiment_id: str) -> list[str]:
    drawn = results.figures(experiment_id)
    return ["", drawn] if drawn else []


def built(frame: pd.DataFrame) -> pd.DataFrame:
    """Cells whose filter was built (static builds can fail; their metrics are empty)."""
    if "build_failed" not in frame:
        return frame
    return frame[frame["build_failed"] != True]  # noqa: E712 (NaN-safe: a missing flag is not a failure)
