"""Checks and pieces several sections share."""

from __future__ import annotations

from collections.abc import Callable

import pandas as pd

import stats
from result_set import Check, Experiment, ResultSet, verdict_cell

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


def each(results: ResultSet, section: str,
         render_one: Callable[[ResultSet, Experiment, pd.DataFrame], str | None]) -> str | None:
    """A section that shows each of its experiments alike: render_one's text for every experiment
    the suite puts in `section` whose file has cells (given as the frame), in suite order; None
    when none has a file or shows anything."""
    texts = []
    for e in results.experiments(section):
        frame = results.frame(e.id)
        if frame is not None and not frame.empty and (text := render_one(results, e, frame)) is not None:
            texts.append(text)
    return "\n\n".join(texts) if texts else None


def by_role(results: ResultSet, section: str, role: Callable[[Experiment], str],
            shows: dict[str, Callable[[ResultSet, str], list[str]]]) -> list[str]:
    """A section whose experiments play several roles: for each role in `shows`' order, every
    experiment of the section that `role` gives it, in suite order, shown by shows[role](results,
    its id)."""
    experiments = results.experiments(section)
    return [line for wanted, show in shows.items() for e in experiments if role(e) == wanted
            for line in show(results, e.id)]


def frames(results: ResultSet, experiments: list[Experiment]) -> list[tuple[Experiment, pd.DataFrame]]:
    """The experiments' cell rows, those with any."""
    present = [(e, results.frame(e.id)) for e in experiments]
    return [(e, f) for e, f in present if f is not None and not f.empty]


def all_cells(results: ResultSet, section: str, kind: str) -> tuple[list[str], pd.DataFrame | None]:
    """The ids of the experiments of `kind` in `section` that have cells, and their cell rows in
    one frame (suite order; None when none has any). For a section that tabulates cells across
    its experiments (a suite may split one kind's cells over several, one per n or per shard)."""
    present = frames(results, results.experiments(section, kind=kind))
    if not present:
        return [], None
    return [e.id for e, _ in present], pd.concat([f for _, f in present], ignore_index=True)


def one_n_micro(results: ResultSet) -> list[Experiment]:
    """The micro-benchmark experiments at one n (no `keys` list: those are speed_vs_n's), in
    suite order, wherever the suite puts them: the builds the speed and hosts sections set side by
    side, told apart by their `build`. A micro experiment of another section than these (the
    quotient section's merge and doubling by size) is that section's own."""
    return [e for e in results.experiments(kind="micro") if len(e.keys) <= 1 and e.section in ("speed", "hosts")]
