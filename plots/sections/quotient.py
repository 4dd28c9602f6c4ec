"""Quotient filters (classic QF, RSQF, CQF): which space formula the measurements support, the AMQ
survey's or the Quotient Filter article's,
the RSQF/CQF beside FastFilter's CQF, a fill sweep against Knuth, and merge/resize costs.

The section's experiments are told apart by their parameters: one that builds several independent
tables (`key_sets` above 1) judges the mean displacement against its spread over them; one that
fills a table step by step (`load_steps`) is a fill sweep; one that sweeps n (several `keys`) tests
the space formulas, which differ in how bits/key grows with n; any other is set beside FastFilter's
CQF. Merge and resize
costs come from the first micro-benchmark experiment whose file times the quotient family."""

from __future__ import annotations

import pandas as pd

import reference
import stats
import theory
from report_format import count, number, pct, pct_ci, spread, table, timing
from result_set import Experiment, ResultSet
from sections import common

SECTION = "quotient"
FORMULA_TOL = 0.02  # a space formula must hold in every row within 2%
# The Quotient Filter article: "when the load factor ... is bounded away from 1 (e.g., α ≤ 0.75), ... the expected
# cluster length is O(1/(1 − α)^2) = O(1) slots (typically 2 to 6 slots)". The upper end is what
# keeps a lookup in one cache line, so that is what is judged.
ARTICLE_CLUSTER_LOAD, ARTICLE_CLUSTER_SLOTS = 0.75, 6.0
EQUAL_FPR_TOL = 0.10  # FastFilter's FPR against our interval, widened 10%, to call the FPRs equal
LOAD_MATCH = 0.02  # loads closer than this count as the same load
SAME_SPACE_TOL = 0.05  # bits/key against FastFilter's CQF at the same r and load


def worst_gap(measured: pd.Series, formula: pd.Series) -> float:
    """The largest relative gap, signed, between measured values and a formula's."""
    gaps = measured / formula - 1
    return float(gaps.loc[gaps.abs().idxmax()])


def formulas(results: ResultSet, experiment_id: str) -> list[str]:
    frame = results.frame(experiment_id)
    if frame is None or frame.empty:
        return []
    frame = frame.sort_values(["keys", "filter"]).copy()
    frame["article"] = theory.quotient_article_bits(frame["remainder_bits"], frame["metadata_bits_per_slot"],
                                                    frame["load_factor"])
    frame["survey"] = theory.survey_quotient_bits(frame["keys_inserted"], frame["remainder_bits"],
                                                    frame["load_factor"])
    rows = [[r["filter"], count(r["keys_inserted"]), count(r["quotient_bits"]), count(r["remainder_bits"]),
             number(r["metadata_bits_per_slot"], 3), f"{r['load_factor']:.3f}", f"{r['bits_per_key']:.2f}",
             f"{r['article']:.2f}", f"{r['survey']:.2f}", f"{pct(r['fpr'])} / {pct(r['fpr_theory'])}",
             common.fpr_cell(r)] for r in frame.to_dict("records")]
    gap_article = worst_gap(frame["bits_per_key"], frame["article"])
    gap_survey = worst_gap(frame["bits_per_key"], frame["survey"])
    v_article = results.check(SECTION, "the Quotient Filter article's (r + metadata)/α",
                              f"largest gap {gap_article:+.1%} over {len(frame)} rows",
                              stats.verdict(gap_article, 0.0, abs_tol=FORMULA_TOL), f"±{FORMULA_TOL:.0%} in every row")
    v_survey = results.check(SECTION, "the AMQ survey's (log2(n/α) + r + 3)/α",
                             f"largest gap {gap_survey:+.1%} over {len(frame)} rows",
                             stats.verdict(gap_survey, 0.0, abs_tol=FORMULA_TOL), f"±{FORMULA_TOL:.0%} in every row")
    if v_article.verdict == stats.REPRODUCED and v_survey.verdict != stats.REPRODUCED:
        conclusion = ("The measurements support the Quotient Filter article's formula, not the AMQ survey's."
                      " The survey counts the quotient's log2(n/α) bits as stored per key; the quotient is"
                      " the slot's address and is never stored, which is the point of quotienting.")
    elif v_survey.verdict == stats.REPRODUCED and v_article.verdict != stats.REPRODUCED:
        conclusion = "The measurements support the AMQ survey's formula, not the Quotient Filter article's."
    elif v_survey.verdict == v_article.verdict == stats.REPRODUCED:
        conclusion = "Both formulas hold within the tolerance here; these rows cannot tell them apart."
    else:
        conclusion = "Neither document's formula holds within the tolerance in every row."
    lines = [v_article.prose, v_survey.prose]
    rsqf = frame[frame["metadata_bits_per_slot"] < 3]
    if not rsqf.empty:
        claim = reference.RSQF_METADATA_BITS
        paper = theory.quotient_article_bits(rsqf["remainder_bits"], claim.value, rsqf["load_factor"])
        gap = worst_gap(rsqf["bits_per_key"], paper)
        lines.append(results.check(SECTION, f"{claim.source}: {claim.label}, so bits/key = (r + 2.125)/α",
                                   f"largest gap {gap:+.1%} over {', '.join(sorted(rsqf['filter'].unique()))}",
                                   stats.verdict(gap, 0.0, abs_tol=FORMULA_TOL), f"±{FORMULA_TOL:.0%}").prose)
    return [
        "",
        *common.heading(results, experiment_id, "###"),
        table(["filter", "n", "q", "r", "metadata bits/slot", "load", "bits/key measured",
               "Quotient Filter article: (r + meta)/α", "AMQ survey: (log2(n/α) + r + 3)/α", "FPR measured / theory",
               f"theory in CI (±{common.FPR_TOL:.0%})"], rows),
        "",
        *[f"- {line}" for line in lines],
        "",
        conclusion,
    ]


def fastfilter_cqf_load() -> float:
    """The load FastFilter's CQF runs at, implied by its bits/key: (r + 2.125) / bits per key."""
    return ((reference.FASTFILTER_CQF_REMAINDER_BITS + reference.RSQF_METADATA_BITS.value)
            / reference.FASTFILTER_CQF.bits_per_key)


def versus_fastfilter(results: ResultSet, experiment_id: str) -> list[str]:
    """Our RSQF/CQF beside FastFilter's CQF; bits/key judged only like for like (same r, same load)."""
    frame = results.frame(experiment_id)
    if frame is None or frame.empty:
        return []
    ref = reference.FASTFILTER_CQF
    ref_r = reference.FASTFILTER_CQF_REMAINDER_BITS
    ref_load = fastfilter_cqf_load()
    rows, lines = [], []
    for r in frame.sort_values(["remainder_bits", "load_factor", "filter"]).to_dict("records"):
        like = int(r["remainder_bits"]) == ref_r and abs(r["load_factor"] - ref_load) <= LOAD_MATCH
        judged = same_fpr = "not like for like"
        if like:
            same_fpr = results.check(
                SECTION, f"{r['filter']} at the same r and load runs at {ref.label}'s FPR {pct(ref.fpr)}",
                f"{pct_ci(r)}", stats.verdict_interval(ref.fpr, r["fpr_ci_low"], r["fpr_ci_high"],
                                                       rel_tol=EQUAL_FPR_TOL),
                f"our interval ±{EQUAL_FPR_TOL:.0%}").cell
            judged = results.check(
                SECTION, f"{r['filter']} takes {ref.label}'s {ref.bits_per_key:g} bits/key at the same r and load",
                f"{r['bits_per_key']:.2f} bits/key at r = {ref_r}, load {r['load_factor']:.3f} (FastFilter's"
                f" {ref_load:.3f})", stats.verdict(r["bits_per_key"], ref.bits_per_key, rel_tol=SAME_SPACE_TOL),
                stats.tolerance_text(SAME_SPACE_TOL)).cell
        rows.append([r["filter"], count(r["remainder_bits"]), f"{r['load_factor']:.3f}", f"{r['bits_per_key']:.2f}",
                     pct_ci(r), pct(r["fpr_theory"]), same_fpr, f"{r['bits_per_key'] / ref.bits_per_key:.2f}×",
                     judged])
        lines.append(f"{r['filter']} at r = {int(r['remainder_bits'])} and load {r['load_factor']:.3f} takes"
                     f" {r['bits_per_key']:.2f} bits/key at FPR {pct(r['fpr'])}; {ref.label} takes"
                     f" {ref.bits_per_key:g} at FPR {pct(ref.fpr)} and load {ref_load:.3f}"
                     + (" (like for like)." if like else " (not like for like: "
                        + ("a different r" if int(r["remainder_bits"]) != ref_r else "a different load") + ")."))
    return [
        "",
        *common.heading(results, experiment_id, "###"),
        f"{ref.label}: {ref.bits_per_key:g} bits/key at {pct(ref.fpr)} FPR ({ref.source}). Its load is not"
        f" published; (r + 2.125)/bits per key gives ({ref_r} + 2.125)/{ref.bits_per_key:g} = {ref_load:.3f}"
        f" (10^6 keys in 2^21 slots). Our loads are read from the records. Bits/key are judged only where r"
        f" is the same and the loads are within {LOAD_MATCH:g} (±{SAME_SPACE_TOL:.0%}); at another load or r"
        " the row is shown, not judged.",
        "",
        table(["filter", "r", "load", "bits/key", "FPR measured [95% CI]", "FPR theory",
               f"same FPR as FastFilter's (±{EQUAL_FPR_TOL:.0%})", "bits/key against FastFilter's CQF",
               f"same bits/key at the same r and load (±{SAME_SPACE_TOL:.0%})"], rows),
        "",
        *[f"- {line}" for line in lines],
    ]


def fill_sweep(results: ResultSet, experiment_id: str) -> list[str]:
    frame = results.frame(experiment_id)
    if frame is None or frame.empty:
        return []
    rows = []
    for r in frame.sort_values(["filter", "keys"]).to_dict("records"):
        knuth = float(theory.knuth_displacement(r["load_factor"]))
        rows.append([r["filter"], f"{r['load_factor']:.3f}", count(r["insert_failures"]), timing(r, "insert_ns"),
                     timing(r, "query_ns_positive"), timing(r, "query_ns_negative"),
                     f"{r['cluster_length_mean']:.1f} / {count(r['cluster_length_max'])}",
                     number(r.get("displacement_mean")), f"{knuth:.2f}",
                     f"{pct(r['fpr'])} / {pct(r['fpr_theory'])}"])
    growth = []
    for name, cells in frame.groupby("filter", sort=False):
        cells = cells.sort_values("load_factor")
        middle = cells.iloc[(cells["load_factor"] - 0.5).abs().argmin()]
        top = cells.iloc[-1]
        growth.append(f"{name}: insert {top['insert_ns'] / middle['insert_ns']:.1f}× and absent lookups"
                      f" {top['query_ns_negative'] / middle['query_ns_negative']:.1f}× their cost at load"
                      f" {middle['load_factor']:.2f}, at load {top['load_factor']:.2f}")
    return [
        "",
        *common.heading(results, experiment_id, "###"),
        "One table filled from empty to each load; insert ns is the mean over all keys up to that"
        " load. One table's mean displacement is shown beside Knuth's limit, not judged: at high load"
        " it spreads far from table to table, so it is judged over independent tables (below, where"
        " the suite builds them).",
        "",
        table(["filter", "load", "refused", "insert ns", "lookup ns (present)", "lookup ns (absent)",
               "cluster length mean / max", "mean displacement", "Knuth α/(2(1−α))", "FPR / theory"], rows),
        "",
        "Cost growth from half full to the top of the sweep — " + "; ".join(growth) + ".",
        "",
        *[f"- {line}" for line in cluster_check(results, frame)],
        f"- {common.fpr_chance_check(results, SECTION, frame, 'the FPR formula at every load').prose}",
        f"- {common.false_negative_check(results, SECTION, frame).prose}",
        *common.figures(results, experiment_id),
    ]


def displacement_over_tables(results: ResultSet, experiment_id: str) -> list[str]:
    """The classic QF's mean displacement over independent tables at each load, against Knuth's
    finite-table expectation for the same slots and keys (his α/(2(1−α)) is its large-table
    limit), judged by its Student-t interval over the tables; the loads whose interval misses the
    formula are counted against what chance leaves (5% each)."""
    frame = results.frame(experiment_id)
    if frame is None or frame.empty or "displacement_mean" not in frame:
        return []
    rows, check = displacement_rows(results, frame[frame["filter"] == "quotient"])
    return [
        "",
        *common.heading(results, experiment_id, "###"),
        "Each load is filled in independent tables (their own keys and hash functions). The mean"
        " displacement is judged against Knuth's expectation for a table of exactly these slots and"
        " keys, (Q(m, n − 1) − 1)/2; the large-table formula α/(2(1 − α)) is its limit, beside it.",
        "",
        table(["load", "tables", "mean displacement [95% interval]", "min–max over tables",
               "Knuth, these m and n", "Knuth's limit α/(2(1−α))", "inside the interval"], rows),
        "",
        f"- {check.prose}",
    ]


def displacement_rows(results: ResultSet, frame: pd.DataFrame):
    """displacement_over_tables' table rows and its check, from the classic QF's cell rows."""
    rows, judged = [], []
    for keys, tables in frame.groupby("keys", sort=True):
        slots = 2.0 ** int(tables["quotient_bits"].iloc[0])
        load = float(tables["load_factor"].iloc[0])
        mean, low, high = stats.mean_interval(tables["displacement_mean"])
        stored = int(tables["keys_inserted"].iloc[0]) if "keys_inserted" in tables else int(keys)
        exact = float(theory.knuth_displacement_finite(slots, stored))
        knuth_limit = float(theory.knuth_displacement(load))
        verdict = stats.verdict_interval(exact, low, high)
        judged.append((exact, low, high))
        rows.append([f"{load:.3f}", count(len(tables)), f"{mean:.3f} [{low:.3f}, {high:.3f}]",
                     f"{tables['displacement_mean'].min():.3f}–{tables['displacement_mean'].max():.3f}",
                     f"{exact:.3f}", f"{knuth_limit:.3f}", verdict])
    outside, counted = stats.count_outside(*zip(*judged)) if judged else (0, 0)
    verdict, limit = stats.chance_verdict(outside, counted)
    tables_each = int(frame.groupby("keys").size().min()) if not frame.empty else 0
    check = results.check(
        SECTION, "classic QF mean displacement over independent tables is Knuth's (α/(2(1−α)) in the limit)",
        f"{outside} of {counted} loads have Knuth's finite-table value outside the 95% interval of"
        f" {tables_each} tables' mean; chance alone leaves up to {limit} outside", verdict,
        "95% Student-t interval over tables; binomial, 5% per load")
    return rows, check


def cluster_check(results: ResultSet, frame) -> list[str]:
    """The Quotient Filter article's cluster length at loads up to 0.75, on the classic QF (linear probing's clusters)."""
    rows = frame[(frame["filter"] == "quotient") & (frame["load_factor"] <= ARTICLE_CLUSTER_LOAD + 1e-9)]
    if rows.empty:
        return []
    rows = rows.sort_values("load_factor")
    means = "; ".join(f"{r['cluster_length_mean']:.1f} at load {r['load_factor']:.2f}" for r in rows.to_dict("records"))
    return [results.check(
        SECTION, f"the Quotient Filter article: at load ≤ {ARTICLE_CLUSTER_LOAD:g} a cluster is typically 2 to 6 slots",
        f"classic QF mean cluster length {means}", stats.verdict(rows["cluster_length_mean"].max(),
                                                                  ARTICLE_CLUSTER_SLOTS, claim="at_most"),
        f"at most {ARTICLE_CLUSTER_SLOTS:g} slots, the article's upper end").prose]


def quotient_family_runs(results: ResultSet) -> tuple[str, pd.DataFrame] | None:
    """The first micro-benchmark experiment whose file times the quotient family, and those runs."""
    for experiment in results.experiments(kind="micro"):
        micro = results.frame(experiment.id)
        if micro is None or micro.empty or "suite" not in micro:
            continue
        runs = micro[(micro["aggregate"] == "iteration") & (micro["suite"] == "quotient_family")]
        if not runs.empty:
            return experiment.id, runs
    return None


def merge_and_resize(results: ResultSet) -> list[str]:
    found = quotient_family_runs(results)
    if found is None:
        return []
    experiment_id, runs = found
    summary = stats.summary(runs, ["filter", "operation"], "ns_per_key")
    ops = summary[summary["operation"].isin(["merge", "resize_double"])]
    bands = summary[summary["operation"].str.startswith("insert/")]
    parts = ["", "### Merge, resize and insert cost by load band", "", results.made_by(experiment_id), ""]
    if not ops.empty:
        parts += [
            "Merge (two filters at 45% into one at 90%) and doubling (a 90%-full filter to twice the"
            " slots, one remainder bit moved into the quotient), ns per key, median [min–max] over"
            " repetitions. Both benchmarks first check that every key of the inputs is still found.",
            "",
            table(["filter", "operation", "ns per key"],
                  [[r["filter"], r["operation"], spread(r["median"], r["min"], r["max"])]
                   for r in ops.to_dict("records")]),
            "",
        ]
    if not bands.empty:
        parts += [
            "Insert cost per load band, ns per key:",
            "",
            table(["filter", "band (% load)", "ns per key"],
                  [[r["filter"], r["operation"].split("/", 1)[1], spread(r["median"], r["min"], r["max"], 0)]
                   for r in bands.to_dict("records")]),
        ]
    return parts


def role(experiment: Experiment) -> str:
    """What an experiment of the section is for, from its parameters (the module's docstring)."""
    if max(experiment.param_values("key_sets") or [1]) > 1:
        return "tables"
    if experiment.param_values("load_steps"):
        return "fill"
    if len(experiment.param_values("keys")) > 1:
        return "space"
    return "fastfilter"


def render(results: ResultSet) -> str | None:
    parts = common.by_role(results, SECTION, role,
                           {"space": formulas, "fastfilter": versus_fastfilter, "fill": fill_sweep,
                            "tables": displacement_over_tables})
    if not parts:
        return None
    return "\n".join(["## Quotient filters: the classic QF, RSQF and CQF", "", *parts,
                      *merge_and_resize(results)])
