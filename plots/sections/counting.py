"""The quotient filter article's counting claim: the CQF's in-run counters against a Count-Min sketch of the same
bytes, on Zipf multisets and a trace's per-flow packet counts."""

from __future__ import annotations

import math

import pandas as pd

import reference
import stats
from report_format import count, pct, table
from result_set import ResultSet
from sections import common

SECTION = "counting"
EXPERIMENTS = ("counting", "counting_real")
BEAT_TOL = 0.05  # the CQF's mean error may exceed the best Count-Min's by 5% and still "beat" it


def structure(row: dict) -> str:
    return "cqf" if row["filter"] == "cqf" else f"count_min, d = {int(row['depth'])}"


def verdicts(results: ResultSet, frame) -> list[str]:
    """Per multiset: the CQF's mean absolute error against the best Count-Min depth's."""
    claim = reference.CQF_BEATS_COUNT_MIN
    lines = []
    for name, cells in frame.groupby("multiset", sort=False):
        cqf = cells[cells["filter"] == "cqf"]
        cms = cells[cells["filter"] == "count_min"]
        if cqf.empty or cms.empty:
            continue
        cqf, best = cqf.iloc[0], cms.loc[cms["count_error_mean"].idxmin()]
        ratio = (cqf["count_error_mean"] / best["count_error_mean"] if best["count_error_mean"] > 0
                 else (0.0 if cqf["count_error_mean"] == 0 else math.inf))
        lines.append(results.check(
            SECTION, f"{claim.label} ({claim.source}), on {name}",
            f"mean absolute error {cqf['count_error_mean']:.4g} (CQF) against {best['count_error_mean']:.4g}"
            f" (best Count-Min, d = {int(best['depth'])}), ratio {ratio:.3g}; counted exactly"
            f" {pct(cqf['count_exact_fraction'])} against {pct(best['count_exact_fraction'])}, in"
            f" {count(cqf['size_bytes'])} bytes",
            stats.verdict(ratio, claim.value, abs_tol=BEAT_TOL, claim="at_most"),
            f"CQF's mean error at most the best Count-Min's, +{BEAT_TOL:.0%}").prose)
    return lines


def bound_check(results: ResultSet, frame) -> str | None:
    """Cormode and Muthukrishnan's Theorem 1 in every Count-Min row: share over e N / w <= e^-d."""
    cms = frame[frame["filter"] == "count_min"]
    if cms.empty:
        return None
    worst = (cms["count_bound_exceeded_fraction"] - cms["count_bound_failure_probability"]).max()
    return results.check(
        SECTION, "Count-Min Theorem 1 (Cormode and Muthukrishnan 2005): a key's excess is above e N / w"
        " with probability at most e^-d",
        f"share of keys above the bound minus e^-d: largest {worst:+.4f} over {len(cms)} rows",
        stats.verdict(worst, 0.0, abs_tol=0.0, claim="at_most"), "exact, in every row").prose


def render(results: ResultSet) -> str | None:
    present = [e for e in EXPERIMENTS if results.frame(e) is not None and not results.frame(e).empty]
    if not present:
        return None
    frame = pd.concat([results.frame(e) for e in present], ignore_index=True)
    rows = []
    for r in frame.to_dict("records"):
        cms = r["filter"] == "count_min"
        rows.append([r["multiset"], structure(r), count(r["items"]), count(r["distinct"]), count(r["count_max"]),
                     count(r["size_bytes"]), f"{r['bits_per_key']:.2f}", f"{r['count_error_mean']:.4g}",
                     count(r["count_error_max"]), pct(r["count_exact_fraction"]),
                     f"{r['absent_error_mean']:.4g}", pct(r["absent_exact_fraction"]),
                     f"{r['count_error_bound']:.3g} / {pct(r['count_bound_exceeded_fraction'])}"
                     f" (e^-d = {pct(r['count_bound_failure_probability'])})" if cms else "–"])
    lines = [common.false_negative_check(results, SECTION, frame).prose, *verdicts(results, frame)]
    bound = bound_check(results, frame)
    if bound:
        lines.append(bound)
    return "\n".join([
        "## Counting: the CQF against the Count-Min sketch",
        "",
        *[f"- {results.title(e)}: {results.made_by(e)}" for e in present],
        "",
        "Each multiset is counted in a CQF (r from the FPR target, grown until every insert fits) and in"
        " Count-Min sketches of d rows given the CQF's exact bytes (w = bytes / 4d 32-bit counters a row)."
        " Errors are over every distinct key of the multiset against its exact count; absent keys were never"
        " inserted (truth 0). Bits/key are per distinct key. Neither structure may count below the truth.",
        "",
        table(["multiset", "structure", "items N", "distinct", "largest count", "bytes", "bits/key",
               "mean |error|", "max |error|", "exact", "absent: mean count", "absent: counted 0",
               "Count-Min bound e N/w / share above it"], rows),
        "",
        *[f"- {line}" for line in lines],
    ])
