"""Static builds that fail: for every filter whose construction can fail and retry (XOR and binary
fuse peeling, Ribbon's banded solve), the share of key sets whose first build failed, with its 95%
interval over the key sets, and the attempts a build took, against n (the build_failures kind)."""

from __future__ import annotations

import pandas as pd

import reference
import stats
from report_format import count, table
from result_set import ResultSet
from sections import common

SECTION = "build_failures"
KIND = "build_failures"
MEAN_ATTEMPTS_LIMIT = 2.0  # what a user can live with: about two attempts on average, at any n


def experiments(results: ResultSet) -> list[str]:
    """The section's experiments of this kind that have a result file."""
    return [e.id for e in results.experiments(SECTION, kind=KIND)]


def share_text(row: dict) -> str:
    return (f"{row['first_build_failure_share'] * 100:.1f}% [{row['first_build_failure_ci_low'] * 100:.1f},"
            f" {row['first_build_failure_ci_high'] * 100:.1f}]")


def summary_rows(frame: pd.DataFrame) -> list[list]:
    """One row per filter: its n range, the n where its first builds failed most often, the most
    attempts a build needed on average at any n, and the key sets it gave up on."""
    rows = []
    for name, cells in frame.groupby("filter", sort=False):
        worst = cells.loc[cells["first_build_failure_share"].idxmax()].to_dict()
        attempts = pd.to_numeric(cells["build_attempts_mean"], errors="coerce")
        most = cells.loc[attempts.idxmax()].to_dict() if attempts.notna().any() else None
        gave_up = cells[cells["builds_given_up"] > 0]
        rows.append([name, f"{count(cells['keys'].min())} – {count(cells['keys'].max())} ({len(cells)} n)",
                     count(cells["key_sets"].iloc[0]), f"{share_text(worst)} at n = {count(worst['keys'])}",
                     f"{most['build_attempts_mean']:.3f} at n = {count(most['keys'])}" if most else "–",
                     count(cells["build_attempts_max"].max()),
                     f"{count(gave_up['builds_given_up'].sum())} (n = "
                     f"{', '.join(count(n) for n in gave_up['keys'])})" if not gave_up.empty else "0"])
    return rows


# The AMQ survey's "small probability" has no figure: read as at most one first build in ten,
# judged on the lower end of each n's 95% interval, so a failure share is only held against it
# where the key sets show it clearly.
SMALL_SHARE = 0.10


def xor_retry_checks(results: ResultSet, frame: pd.DataFrame) -> list[str]:
    """The AMQ survey on XOR construction: it can fail with a small probability at the 1.23 density,
    and a retry with a new seed gets the filter."""
    xor = frame[frame["family"] == "xor"]
    if xor.empty:
        return []
    claim = reference.SURVEY_XOR_RETRY
    worst = xor.loc[xor["first_build_failure_ci_low"].idxmax()].to_dict()
    largest = xor[xor["keys"] == xor["keys"].max()].iloc[0].to_dict()
    names = ", ".join(sorted(xor["filter"].unique()))
    given_up = int(xor["builds_given_up"].sum())
    return [
        results.check(SECTION, f"{claim.source}: XOR construction can fail with a small probability at the 1.23"
                               " density", f"{names}: first builds failed {share_text(worst)} at n ="
                      f" {count(worst['keys'])} (the clearest), {share_text(largest)} at n = {count(largest['keys'])}",
                      stats.verdict(worst["first_build_failure_ci_low"], SMALL_SHARE, claim="at_most"),
                      f"at most {SMALL_SHARE:.0%} of first builds at every n (the interval's lower end)"),
        results.check(SECTION, f"{claim.source}: a failed XOR construction is retried with a new seed",
                      f"{names}: {given_up:,} of {int(xor['key_sets'].sum()):,} key-set builds left without a filter; at"
                      f" most {count(xor['build_attempts_max'].max())} attempts, {xor['build_attempts_mean'].max():.2f}"
                      " on average at the worst n", stats.verdict(given_up, 0), "exact"),
    ]


def render(results: ResultSet) -> str | None:
    present = experiments(results)
    if not present:
        return None
    frame = pd.concat([results.frame(e) for e in present], ignore_index=True)
    given_up = int(frame["builds_given_up"].sum())
    attempts = pd.to_numeric(frame["build_attempts_mean"], errors="coerce")
    worst_attempts = float(attempts.max()) if attempts.notna().any() else None
    lines = [
        common.false_negative_check(results, SECTION, frame).prose,
        results.check(SECTION, "no static build gives up (every key set gets a filter)",
                      f"{given_up:,} of {int(frame['key_sets'].sum()):,} builds gave up",
                      stats.verdict(given_up, 0), "exact").prose,
        results.check(SECTION, f"at most about {MEAN_ATTEMPTS_LIMIT:g} attempts per build on average, at every n",
                      f"largest mean {worst_attempts:.3f}" if worst_attempts is not None else "no build succeeded",
                      stats.verdict(worst_attempts, MEAN_ATTEMPTS_LIMIT, claim="at_most"), "exact").prose,
        *[check.prose for check in xor_retry_checks(results, frame)],
    ]
    return "\n".join([
        "## Static builds that fail, against n",
        "",
        *[f"- {results.title(e)}: {results.made_by(e)}" for e in present],
        "",
        "Each key set (key set i: keys and hash seed from the seed + i) is built once, untimed; a first"
        " build that fails is retried with a new seed, and a build that fails every attempt leaves no"
        " filter. The share of key sets whose first build failed carries its 95% Wilson interval over"
        " the key sets. These are the project's own targets for its sizing, not a source's claim.",
        "",
        table(["filter", "n", "key sets per n", "first build failed, most often", "mean attempts, most",
               "most attempts", "gave up"], summary_rows(frame)),
        "",
        *[f"- {line}" for line in lines],
    ])
