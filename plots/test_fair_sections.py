"""The verdicts issue 11 asked for (items 1, 2 and 11), computed from records: the one-percent
section's fill rule, the CQF beside FastFilter's at the same r and load, the CQF against the
Count-Min sketch, and the Quotient Filter article's locality table. Each test flips a verdict by changing a number."""

import pandas as pd
import pytest

import stats
from result_set import Experiment, ResultSet
from sections import counting, locality, one_percent, quotient


class Records:
    """Just what the sections ask of a ResultSet: its experiments (each frame's, all of one section
    and kind), frames by experiment id, titles, and checks."""

    check = ResultSet.check

    def __init__(self, frames: dict[str, list[dict]], section: str = "", kind: str = "filters"):
        self.frames = {k: pd.DataFrame(v) for k, v in frames.items()}
        self.listed = [Experiment(k, kind, k, section) for k in frames]
        self.checks = []

    def experiments(self, section=None, kind=None):
        return [e for e in self.listed if section in (None, e.section) and kind in (None, e.kind)]

    def frame(self, experiment_id, record="cell"):
        return self.frames.get(experiment_id)

    def title(self, experiment_id):
        return experiment_id

    def made_by(self, experiment_id):
        return f"made by a test ({experiment_id})"

    def figures(self, experiment_id):
        return ""

    def verdicts(self, start):
        return [c.verdict for c in self.checks if c.claim.startswith(start)]


def table_row(family, max_load, load):
    return {"filter": family, "family": family, "max_load": max_load, "load_factor": load, "build_failed": False}


def test_fill_rule_says_whether_the_table_families_share_one():
    same = pd.DataFrame([table_row("cuckoo", 0.96, 0.954), table_row("quotient", 0.96, 0.954),
                         {"filter": "bloom", "family": "bloom", "max_load": None, "load_factor": None}])
    assert one_percent.fill_rule(same).startswith("Fill rule: every table family (cuckoo, quotient) ran at the"
                                                  " same max load, 0.96")
    apart = pd.DataFrame([table_row("cuckoo", 0.96, 0.954), table_row("quotient", float("nan"), 0.477)])
    text = one_percent.fill_rule(apart)
    assert "did not share one" in text and "quotient at max load the family default" in text
    assert "0.477–0.954" in text


def cqf_row(r, load, bits, name="cqf"):
    return {"filter": name, "remainder_bits": r, "load_factor": load, "bits_per_key": bits, "fpr": 0.0019,
            "fpr_ci_low": 0.0018, "fpr_ci_high": 0.0020, "fpr_theory": 0.0019}


def test_fastfilter_cqf_is_judged_only_like_for_like():
    assert quotient.fastfilter_cqf_load() == pytest.approx(10.125 / 21.38)
    results = Records({"versus": [cqf_row(8, 0.477, 21.23), cqf_row(9, 0.954, 11.68)]})
    text = "\n".join(quotient.versus_fastfilter(results, "versus"))
    assert results.verdicts("cqf takes") == [stats.REPRODUCED]  # only the r = 8, load 0.477 row
    assert results.verdicts("cqf at the same r and load runs at") == [stats.REPRODUCED]
    assert "not like for like: a different r" in text
    assert "0.474" in text  # FastFilter's implied load is stated beside ours
    # log2(1/0.0019) = 9.0398 bits: 9.0398/21.23 = 0.426 of the bits/key, 21.23 − 9.0398 = 12.19 over.
    assert "| cqf | 8 | 0.477 | 21.23 | 0.426 | +12.19 | 0.190% [0.18, 0.20] | 0.190% |" in text
    results = Records({"versus": [cqf_row(8, 0.477, 25.0)]})  # 17% more bits at the same r and load
    quotient.versus_fastfilter(results, "versus")
    assert results.verdicts("cqf takes") == [stats.CONTRADICTED]
    results = Records({"versus": [cqf_row(8, 0.954, 10.6)]})  # r = 8 at another load: not judged
    assert "a different load" in "\n".join(quotient.versus_fastfilter(results, "versus"))
    assert results.verdicts("cqf takes") == []
    assert results.verdicts("cqf at the same r and load runs at") == []


def counting_row(name, error, exact, depth=None, over=0.0):
    row = {"multiset": "zipf:1", "filter": name, "items": 1000, "distinct": 300, "count_max": 200,
           "size_bytes": 512, "bits_per_key": 13.6, "count_error_mean": error, "count_error_max": 5,
           "count_exact_fraction": exact, "absent_error_mean": 0.01, "absent_exact_fraction": 0.99,
           "false_negatives": 0}
    if depth:
        row.update(depth=depth, count_error_bound=21.0, count_bound_exceeded_fraction=over,
                   count_bound_failure_probability=0.0183)
    return row


def test_cqf_against_count_min_verdict_follows_the_errors():
    results = Records({"zipf": [counting_row("cqf", 0.01, 0.99), counting_row("count_min", 3.0, 0.2, 4),
                                counting_row("count_min", 2.0, 0.3, 8)]}, counting.SECTION, "counting")
    text = counting.render(results)
    assert results.verdicts("the CQF's counters") == [stats.REPRODUCED]
    assert "best Count-Min, d = 8" in text
    assert results.verdicts("Count-Min Theorem 1") == [stats.REPRODUCED]
    results = Records({"zipf": [counting_row("cqf", 2.5, 0.5), counting_row("count_min", 2.0, 0.3, 8, over=0.05)]},
                      counting.SECTION, "counting")
    counting.render(results)
    assert results.verdicts("the CQF's counters") == [stats.CONTRADICTED]
    assert results.verdicts("Count-Min Theorem 1") == [stats.CONTRADICTED]


def locality_row(name, member, probes=None, fpr=None):
    return {"filter": name, "load_factor": 0.9, "bits_per_key": 10.0, "cache_lines_member_mean": member,
            "cache_lines_member_max": 3, "cache_lines_absent_mean": 1.0, "cache_lines_absent_max": 2,
            "cache_lines_member_lookups": 2000, "hash_probes": probes, "fpr": fpr}


def test_locality_is_judged_against_the_articles_table():
    results = Records({"lines": [locality_row("cuckoo", 1.9, fpr=2 ** -8), locality_row("bloom", 6.99, 7),
                                 locality_row("xor", 3.0), locality_row("quotient", 1.6)]}, locality.SECTION)
    text = locality.render(results)
    assert results.verdicts("the Quotient Filter article: a cuckoo") == [stats.REPRODUCED]
    assert results.verdicts("the Quotient Filter article: a bloom") == [stats.REPRODUCED]  # against its own k
    assert results.verdicts("the Quotient Filter article: a quotient") == [stats.CONTRADICTED]  # 0.6 lines over: beyond 2 × 0.25
    assert results.verdicts("the Quotient Filter article: a xor") == []  # not in the article's table: shown, not judged
    assert "| xor |" in text
    # Beside bits/key, the bound log2(1/ε) at the measured FPR: 2^-8 gives 8 bits, 8/10 = 0.800 of
    # the 10 bits/key spent and 2 bits over it; a row without a measured FPR has neither.
    assert "| cuckoo | 0.900 | 10.00 | 0.800 | +2.00 | 1.90 | 3 | 1.00 | 2 |" in text
    assert "| xor | 0.900 | 10.00 | – | – | 3.00 | 3 | 1.00 | 2 |" in text


def ribbon_row(name, target, bits, fpr):
    return {"filter": name, "family": "ribbon", "target_fpr": target, "bits_per_key": bits, "fpr": fpr,
            "fpr_theory": fpr, "build_failed": False}


def test_ribbon_frac_curve_meets_eps_with_fractional_bits():
    import theory
    assert theory.ribbon_frac(0.01) == pytest.approx(1.05 * 6.72)
    # A whole log2(1/ε): the standard Ribbon's r (1 + ε_w), no wide blocks.
    assert theory.ribbon_frac(2.0 ** -7) == pytest.approx(theory.ribbon(2.0 ** -7))
    assert theory.ribbon_frac(2.0 ** -7.5) == pytest.approx(1.05 * (9 - 2 ** 0.5))


def test_sweep_judges_ribbon_frac_against_ribbon_exactly():
    from sections import sweep
    rows = [ribbon_row("ribbon", 0.01, 7.35, 0.0078), ribbon_row("ribbon_frac", 0.01, 7.06, 0.0100),
            ribbon_row("ribbon", 2 ** -8, 8.40, 0.0039), ribbon_row("ribbon_frac", 2 ** -8, 8.40, 0.0039)]
    results = Records({})
    lines = sweep.ribbon_fractional(results, pd.DataFrame(rows))
    assert "ε = 0.01: 7.06 against 7.35 (-3.9%)" in lines[0]
    assert results.verdicts("ribbon_frac never") == [stats.REPRODUCED]
    # The efficiency tables read each cell's measured FPR: at ε = 0.01 ribbon spent 7.35 bits/key on
    # log2(1/0.0078) = 7 + log2(1.0016) = 7.0023 (0.953, +0.35) and ribbon_frac 7.06 on log2(100) =
    # 6.6439 (0.941, +0.42); at 2^-8 both spent 8.40 on log2(1/0.0039) = 8.0023 (0.953, +0.40). No
    # cell at 0.001: dashes.
    text = "\n".join(sweep.bound_tables(pd.DataFrame(rows), [0.01, 2 ** -8, 0.001]))
    assert "| filter: efficiency log2(1/ε)/bits | ε = 0.01 | ε = 0.00391 | ε = 0.001 |" in text
    assert "| ribbon | 0.953 | 0.953 | – |" in text and "| ribbon_frac | 0.941 | 0.953 | – |" in text
    assert "| ribbon | +0.35 | +0.40 | – |" in text and "| ribbon_frac | +0.42 | +0.40 | – |" in text
    rows[1]["bits_per_key"] = 7.40
    results = Records({})
    sweep.ribbon_fractional(results, pd.DataFrame(rows))
    assert results.verdicts("ribbon_frac never") == [stats.CONTRADICTED]


def test_one_percent_sets_ribbon_frac_beside_rocksdb_like_for_like():
    frame = pd.DataFrame([ribbon_row("ribbon", 0.01, 7.35, 0.0078), ribbon_row("ribbon_frac", 0.01, 7.06, 0.0101)])
    results = Records({})
    lines = one_percent.ribbon_fractional(results, frame)
    assert lines[0].startswith("Fractional result bits: ribbon_frac 7.06 bits/key at FPR 1.010%")
    assert "3.9% fewer bits" in lines[0]
    assert results.verdicts("RocksDB 7.8 Standard128Ribbon") == [stats.REPRODUCED]
    # An FPR far from RocksDB's 0.997% is not judged.
    frame.loc[1, "fpr"] = 0.0078
    results = Records({})
    assert "not like for like" in one_percent.ribbon_fractional(results, frame)[-1]
    assert results.checks == []
