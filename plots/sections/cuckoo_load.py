"""Cuckoo kicks against load in one fixed table, and where inserts start to fail: for b = 2, 4
and 8 slots per bucket (12-bit fingerprints) beside the load thresholds of two-choice cuckoo
hashing, and for 4- to 16-bit fingerprints at b = 4 beside the cuckoo filter paper. The section's
experiments play two roles, told apart by their parameters: those of fixed-width filters (no `fpr`)
fill the table, and those that size the cuckoo from `fpr` targets add the short widths. Experiments
that build several independent tables (`key_sets` above 1) give the load of the first failed insert
with its spread over tables; where the suite has them, the threshold and width verdicts are judged
on those, and the one-table experiments only show kicks and FPR against load."""

from __future__ import annotations

import numpy as np
import pandas as pd

import reference
import stats
from report_format import count, number, table, timing
from result_set import Experiment, ResultSet
from sections import common

SECTION = "cuckoo_load"
SHORT = "short_widths"  # a column marking the rows of the FPR-sized experiments (f = 4 .. 7)
# The widths the paper's "large enough" is judged over: the fixed-width filters' 8, 12 and 16.
LONG_BITS = 8
LOAD_TOL = 0.01  # the paper's "~95%" read as 0.95 ± 0.01
# The thresholds are limits as the table grows without bound, reached with unbounded kicks; a
# table of ~2^20 slots that gives up after 500 kicks fails a little before them.
THRESHOLD_TOL = 0.02
LAYOUT_BITS = 12  # the b = 2, 4, 8 layouts all hold 12-bit fingerprints
# Fingerprint widths whose first failures lie within this of each other fill the table alike (a
# practical tolerance; over independent tables the evidence prints the spread chance gives).
WIDTH_TOL = 0.01


def one_table_first_failure(rows) -> tuple[float, bool]:
    """One table's load at its first failed insert, or the highest load it reached when none
    failed (a lower bound), and whether one failed."""
    failed = rows[rows["insert_failures"] > 0]
    if failed.empty:
        return float(rows["load_factor"].max()), False
    return float(failed["first_failure_load"].min()), True


def first_failure(rows) -> tuple[float, str]:
    """The load of the first failed insert (or, when none failed, the highest load reached, a
    lower bound), and how to say it: over independent tables (rows with several seeds) their
    mean with its 95% interval and range."""
    if "seed" not in rows or rows["seed"].nunique() < 2:
        reached, failed = one_table_first_failure(rows)
        return reached, (f"first failed insert at load {reached:.4f}" if failed
                         else f"no insert failed up to load {reached:.4f}")
    per_table = [one_table_first_failure(table_rows) for _, table_rows in rows.groupby("seed")]
    loads = [load for load, _ in per_table]
    mean, low, high = stats.mean_interval(loads)
    never = sum(not failed for _, failed in per_table)
    return mean, (f"first failed insert at load {mean:.4f} [{low:.4f}, {high:.4f}] over {len(loads)} tables"
                  f" (range {min(loads):.4f}–{max(loads):.4f})"
                  + (f"; {never} never failed, counted at the load reached (a lower bound)" if never else ""))


def threshold_checks(results: ResultSet, frame) -> list[str]:
    """Per layout b: the load of its first failed insert against the threshold for b."""
    lines = []
    for b, rows in frame[frame["fingerprint_bits"] == LAYOUT_BITS].groupby("slots_per_bucket"):
        threshold = reference.CUCKOO_THRESHOLDS.get(int(b))
        if threshold is None:
            continue
        measured, evidence = first_failure(rows)
        names = ", ".join(sorted(rows["filter"].unique()))
        tol = THRESHOLD_TOL if threshold.claim == "equal" else 0.005
        # No failure at all is evidence the threshold is not below the highest load reached.
        failed = (rows["insert_failures"] > 0).any()
        claim = "equal" if failed and threshold.claim == "equal" else "at_least"
        word = "about" if threshold.claim == "equal" else "above"
        lines.append(results.check(
            SECTION, f"b = {int(b)} ({names}): inserts start to fail at load {word} {threshold.load:g}"
                     f" ({reference.CUCKOO_THRESHOLD_SOURCE})", evidence,
            stats.verdict(measured, threshold.load, abs_tol=tol, claim=claim),
            f"{'within' if claim == 'equal' else 'at least'} {threshold.load:g} ± {tol:g}",
            # The thresholds are limits for unbounded tables and kicks: plots/claims.py judges these
            # numbers again as a limit a finite table approaches from below.
            measured=measured, expected=threshold.load, abs_tol=tol, judged_as=claim).prose)
    return lines

def width_checks(results: ResultSet, frame) -> list[str]:
    """b = 4 at each fingerprint width: the paper's ~95%, and whether the width moves it.

    Partial-key cuckoo hashing moves a fingerprint from bucket i to i ^ hash(f), so from any
    bucket only the 2^f − 1 nonzero fingerprints' offsets are reachable; with too few of those
    beside the bucket count, items crowd into small groups of buckets and the table fills up
    early. The paper shows the load at b = 4 falling for short f and reaching ~95% once f is
    large enough for the table's size."""
    paper_layout = frame[frame["slots_per_bucket"] == 4]
    claim = reference.CUCKOO_LOAD
    lines, reached = [], {}
    for bits, rows in paper_layout.groupby("fingerprint_bits"):
        reached[int(bits)], evidence = first_failure(rows)
        lines.append(results.check(
            SECTION, f"{claim.label}, f = {int(bits)} ({', '.join(sorted(rows['filter'].unique()))})"
                     f" ({claim.source})", evidence,
            stats.verdict(reached[int(bits)], claim.value, abs_tol=LOAD_TOL, claim="at_least"),
            f"at least {claim.value:g} − {LOAD_TOL:g}").prose)
    long = {f: load for f, load in reached.items() if f >= LONG_BITS}
    if len(long) < 2:
        return lines
    buckets = int(paper_layout["buckets"].iloc[0])
    spread = max(long.values()) - min(long.values())
    lines.append(results.check(
        SECTION, f"{claim.source}: once f is large enough for the table, the fingerprint width no longer"
                 f" moves the load b = 4 reaches",
        f"first failures at f = {', '.join(f'{f}: {load:.4f}' for f, load in sorted(long.items()))}"
        f" in {buckets:,} buckets (log2 = {buckets.bit_length() - 1}); they differ by {spread:.4f}",
        stats.verdict(spread, 0.0, abs_tol=WIDTH_TOL), f"within {WIDTH_TOL:g} of each other").prose)
    short = {f: load for f, load in reached.items() if f < LONG_BITS}
    if not short:
        lines.append(results.check(
            SECTION, f"{claim.source}: short fingerprints lower the load b = 4 reaches",
            f"no filter here has f below {LONG_BITS} (an FPR-sized cuckoo experiment in the section adds them)",
            stats.NOT_MEASURED, "–").prose)
        return lines
    shortest = min(short)
    plateau = sorted(long.values())[len(long) // 2]
    drop = plateau - short[shortest]
    lines.append(results.check(
        SECTION, f"{claim.source}: short fingerprints lower the load b = 4 reaches",
        f"first failures at f = {', '.join(f'{f}: {load:.4f}' for f, load in sorted(short.items()))} against"
        f" {plateau:.4f} (the median at f ≥ {LONG_BITS}): f = {shortest} fails {drop:.4f} lower. From a bucket"
        f" 2^{shortest} − 1 = {2 ** shortest - 1} alternates can be reached directly, but chains of moves"
        f" combine their offsets, so the table still fills to {short[shortest]:.4f}",
        stats.REPRODUCED if drop > WIDTH_TOL else stats.CONTRADICTED,
        f"lower by more than {WIDTH_TOL:g} (what one seed moves)").prose)
    return lines


def load_free_check(results: ResultSet, frame) -> list[str]:
    """The AMQ survey reads its lab as the FPR being set by f alone; one table filled step by step shows
    whether the FPR at the lowest load lies inside the interval measured near the top."""
    rows = frame[(frame["slots_per_bucket"] == 4) & (frame["fingerprint_bits"] == LAYOUT_BITS)
                 & (frame["insert_failures"] == 0)].sort_values("load_factor")
    if len(rows) < 2:
        return []
    low, high = rows.iloc[0], rows.iloc[-1]
    claim = reference.FPR_LOAD_FREE
    return [results.check(
        SECTION, f"{claim.source}: {claim.label}",
        f"{low['filter']}: FPR {low['fpr']:.5f} at load {low['load_factor']:.2f} against {high['fpr']:.5f}"
        f" [{high['fpr_ci_low']:.5f}, {high['fpr_ci_high']:.5f}] at load {high['load_factor']:.2f}",
        stats.verdict_interval(low["fpr"], high["fpr_ci_low"], high["fpr_ci_high"], rel_tol=common.FPR_TOL),
        f"the low-load FPR inside the high-load 95% interval, ±{common.FPR_TOL:.0%}").prose]


def short_fpr_check(results: ResultSet, frame) -> list[str]:
    """The load-aware formula 1 − (1 − 1/(2^f − 1))^(2bα) puts the mean number of fingerprints in
    every bucket. Bucket fill varies, and the chance of no match is convex in the fill, so by
    Jensen's inequality the true FPR lies below the formula; the gap grows with 1/(2^f − 1) and
    shows at short widths. Judged on its own so it does not blur the chance check above."""
    if frame.empty:
        return []
    check = common.fpr_chance_check(results, SECTION, frame, claim="the FPR formula at f = 4 to 7")
    below = int((frame["fpr_ci_high"] < frame["fpr_theory"]).sum())
    above = int((frame["fpr_ci_low"] > frame["fpr_theory"]).sum())
    poisson = 1 - np.exp(-2 * frame["slots_per_bucket"] * frame["load_factor"] / (2.0 ** frame["fingerprint_bits"] - 1))
    inside = int(((frame["fpr_ci_low"] <= poisson) & (poisson <= frame["fpr_ci_high"])).sum())
    by_width = frame.assign(gap=frame["fpr"] / frame["fpr_theory"] - 1).groupby("fingerprint_bits")["gap"].mean()
    return [check.prose + f". Of the intervals that miss, {below} lie below the formula and {above} above; the"
            " measured FPR is off the formula by " + ", ".join(f"{100 * g:+.1f}% at f = {int(f)}" for f, g in by_width.items())
            + " (mean over loads): the formula puts the mean fill in every bucket, and since the chance of no"
            " match is convex in the fill, the spread of bucket fill makes the true FPR lower (Jensen's"
            " inequality), most where 1/(2^f − 1) is large. With a Poisson fill instead,"
            f" 1 − e^(−2bα/(2^f − 1)), {inside} of {len(frame)} intervals hold the value."]


# The AMQ survey's "the failure cliff is sharp, not gradual" gives no width: read as the table
# going from its first refused insert to refusing at least half of the new inserts within 0.05
# of load (5% of its slots). A gradual decline spreads that over tenths of the load.
CLIFF_SHARE = 0.5
CLIFF_SPAN = 0.05


def cliff_span(rows) -> tuple[float | None, str]:
    """For one filter's fill (cumulative rows by keys): the load from its first failed insert to
    the end of the first step in which at least CLIFF_SHARE of the inserts tried failed, and how
    to say it; None when the fill never failed or never got that far."""
    rows = rows.sort_values("keys")
    tried = rows["keys"].diff().fillna(rows["keys"])
    failed = rows["insert_failures"].diff().fillna(rows["insert_failures"])
    share = failed / tried
    name = f"{rows['filter'].iloc[0]} (f = {int(rows['fingerprint_bits'].iloc[0])})"
    if not (rows["insert_failures"] > 0).any():
        return None, f"{name}: no insert failed up to load {rows['load_factor'].max():.4f}"
    first = float(rows["first_failure_load"].min())
    past = rows[share >= CLIFF_SHARE]
    if past.empty:
        # The sweep ended first: the span is at least what it covered, evidence only once that is wide.
        least = float(rows["load_factor"].max()) - first
        return (least if least > CLIFF_SPAN else None), (f"{name}: {first:.4f} to beyond {rows['load_factor'].max():.4f}"
                                                        f" (no step with {CLIFF_SHARE:.0%} failing)")
    top = float(past["load_factor"].iloc[0])
    return top - first, f"{name}: {first:.4f} to {top:.4f} ({share[past.index[0]]:.0%} of the step failing)"


def cliff_check(results: ResultSet, frame) -> list[str]:
    """The survey's sharp failure cliff, on every b = 4 filter: the widest span from the first
    failed insert to half of a step's inserts failing."""
    paper_layout = frame[frame["slots_per_bucket"] == 4]
    spans = [cliff_span(rows) for _, rows in paper_layout.groupby(["filter", "fingerprint_bits"])]
    if not spans:
        return []
    measured = [span for span, _ in spans if span is not None]
    widest = max(measured) if measured else None
    claim = reference.SURVEY_FAILURE_CLIFF
    return [results.check(
        SECTION, f"{claim.source}: {claim.label}",
        "from the first failed insert to a step with half its inserts failing, load " + "; ".join(t for _, t in spans)
        + ("" if widest is None else f"; widest span {widest:.4f} of load"),
        stats.verdict(widest, 0.0, abs_tol=CLIFF_SPAN, claim="at_most"),
        f"first failure to {CLIFF_SHARE:.0%} of a step failing within {CLIFF_SPAN:g} of load").prose]


def sized_from_fpr(experiment: Experiment) -> bool:
    """An experiment that sizes its cuckoo filters from FPR targets (short fingerprints), not one
    of fixed-width filters."""
    return bool(experiment.param_values("fpr"))


def short_source(results: ResultSet, shorts: list[Experiment]) -> str:
    """Which experiments gave the short widths, and what made them."""
    if not shorts:
        return "no experiment of this run"
    return "; ".join(f"experiment {e.id}, made by {results.made_by(e.id)[len('Made by '):].rstrip('.')}"
                     for e in shorts)


def several_tables(experiment: Experiment) -> bool:
    """An experiment that builds independent tables (its first failures have a spread)."""
    return max(experiment.param_values("key_sets") or [1]) > 1


def marked(experiments: list) -> pd.DataFrame:
    """The experiments' rows, each marked whether it holds the short (FPR-sized) widths."""
    return pd.concat([f.assign(**{SHORT: sized_from_fpr(e)}) for e, f in experiments], ignore_index=True)


def render(results: ResultSet) -> str | None:
    experiments = common.frames(results, results.experiments(SECTION))
    spread = [(e, f) for e, f in experiments if several_tables(e)]
    tables = [(e, f) for e, f in experiments if not several_tables(e) and not sized_from_fpr(e)]
    shorts = [(e, f) for e, f in experiments if not several_tables(e) and sized_from_fpr(e)]
    if not tables:
        return None
    main = tables[0][0]
    frame = marked(tables + shorts).sort_values(["keys", "slots_per_bucket", "fingerprint_bits"], kind="stable")
    # Where the load of the first failure, judged below, comes from: the independent tables if any.
    failures = marked(spread) if spread else frame
    spread_text = ", ".join(f"{e.id}: {f['seed'].nunique()} tables" for e, f in spread)
    rows = [
        [r["filter"], str(int(r["slots_per_bucket"])), str(int(r["fingerprint_bits"])), count(r["keys"]), f"{r['load_factor']:.4f}", count(r["insert_failures"]),
         number(r.get("first_failure_load"), 4), f"{r['kicks_per_insert']:.3f}", count(r["kicks_max"]),
         timing(r, "insert_ns"), f"{r['fpr']:.5f} / {r['fpr_theory']:.5f}", common.fpr_cell(r)]
        for r in frame.to_dict("records")
    ]
    lines = [
        *width_checks(results, failures),
        *threshold_checks(results, failures),
        *load_free_check(results, frame),
        *cliff_check(results, frame),
        common.fpr_chance_check(results, SECTION, frame[~frame[SHORT]]).prose,
        *short_fpr_check(results, frame[frame[SHORT]]),
        common.false_negative_check(results, SECTION, frame).prose,
    ]
    capacity = frame["capacity"].iloc[0]
    return "\n".join([
        *common.heading(results, main.id),
        f"One table sized for {count(capacity)} keys; n sets the load. Insert ns is the mean over all"
        " keys up to that load (median [min–max] over repeats). cuckoo12 holds 12-bit fingerprints in"
        " buckets of b = 2, 4 and 8 slots; cuckoo8 and cuckoo16 share its b = 4 layout with 8- and"
        f" 16-bit fingerprints, and the FPR-sized cuckoo ({short_source(results, [e for e, _ in shorts])})"
        " with 4 to 7 bits. A fingerprint moves from bucket i to i ^ hash(f), so from any bucket only"
        " 2^f − 1 alternates can be reached: the cuckoo filter paper (Fan, Andersen, Kaminsky,"
        " Mitzenmacher, CoNEXT 2014, its section on load factor against fingerprint size) shows b = 4"
        " reaching about 95% once f is large enough for the number of buckets, and less for short"
        " fingerprints.",
        "",
        table(["filter", "b", "f", "keys", "load reached", "failed inserts", "load at first failure", "kicks/insert",
               "max kicks", "insert ns", "FPR measured / theory", f"theory in CI (±{common.FPR_TOL:.0%})"], rows),
        "",
        *([f"Where inserts start to fail is judged over independent tables filled to load 1 ({spread_text}),"
           " each with its own keys and hash functions; the table above is one more."] if spread else []),
        "",
        *[f"- {line}" for line in lines],
        *common.figures(results, main.id),
    ])
