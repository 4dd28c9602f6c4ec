"""The claims table takes its verdicts from the numbers, by the rules plots/claims.py states:
fixtures that move a measurement past its tolerance flip the verdict; a bound is judged as a
bound and a limit from the side a finite table may fall on; checks that are not like for like, or
ran outside the source's conditions, are shown but never decide; sizing rules count apart; and
missing data reads "not measured"."""

import json

import pandas as pd

import claims
import report
import stats
from sections import cuckoo_load, seed_lab, sweep
from test_report import SUITE, result_set, results_dir


def judged(results, words: str) -> claims.Judgement:
    [judgement] = [j for j in claims.rows(results) if j.claim.words == words]
    return judgement


CROSSOVER = "cuckoo only beats space-optimal Bloom below ... eps ~ 0.4%"
BOUND = "an upper bound on the FPR: 2b/2^f (the survey: \"FPR ~ 2b/2^f\")"
THRESHOLDS = "buckets of b = 2, 4, 8 fill to 0.897, 0.980, above 0.99"
FUSE_BUILD = "construction is more than twice as fast as XOR-filter construction"
QUOTIENT_LINE = "quotient filter lookup: 1 cache line"
BLOOM_SPACE = "space-optimal cost is 1.44 log2(1/eps) bits per key"
HOPS = "~0.73 eviction hops per insert"


def sweep_frame(cuckoo_extra_bits: float = 0.0) -> pd.DataFrame:
    """Bloom at 1.44·log2(1/ε) and cuckoo at (log2(1/ε) + 3)/0.954 bits/key, the FPRs a factor 4
    apart as the default sweep's are: the curves cross at ε ≈ 0.4%."""
    rows = []
    for x in (4, 6, 8, 10, 12):
        rows.append(dict(filter="bloom", fpr=2.0 ** -x, bits_per_key=1.4427 * x))
        rows.append(dict(filter="cuckoo", fpr=2.0 ** -x, bits_per_key=(x + 3) / 0.954 + cuckoo_extra_bits))
    return pd.DataFrame(rows)


def test_the_crossover_claim_flips_when_the_crossing_moves_past_its_tolerance(tmp_path):
    results = result_set(results_dir(tmp_path))
    sweep.crossover_checks(results, sweep_frame())
    judgement = judged(results, CROSSOVER)
    assert judgement.verdict == stats.REPRODUCED
    assert "ε = 0.40%" in judgement.ours and "±0.5 in log2(1/ε)" in judgement.tolerance
    # 1.5 more bits per key for cuckoo move the crossing to ε ≈ 0.03%: 3.8 past log2(1/0.004).
    results = result_set(results_dir(tmp_path))
    sweep.crossover_checks(results, sweep_frame(cuckoo_extra_bits=1.5))
    assert judged(results, CROSSOVER).verdict == stats.CONTRADICTED


def seed_lab_with_fpr(tmp_path, fpr: float, low: float, high: float):
    directory = results_dir(tmp_path, "seed_lab.json")
    doc = json.loads((directory / "seed_lab.json").read_text())
    doc["records"][0].update(fpr=fpr, fpr_ci_low=low, fpr_ci_high=high)
    (directory / "seed_lab.json").write_text(json.dumps(doc))
    results = result_set(directory)
    seed_lab.render(results)
    return results


def test_a_bound_measured_under_it_reproduces_and_one_measured_over_it_does_not(tmp_path):
    # 0.0071 under the paper's bound 2b/2^f = 0.0078: the section's equality reading calls it
    # contradicted; the claim, an upper bound, holds.
    results = seed_lab_with_fpr(tmp_path, 0.0071, 0.0070, 0.0073)
    [section_check] = [c for c in results.checks if "2b/2^f" in c.claim]
    assert section_check.verdict == stats.CONTRADICTED
    judgement = judged(results, BOUND)
    assert judgement.claim.kind == claims.AT_MOST
    assert judgement.verdict == stats.REPRODUCED
    assert "judged as at_most" in judgement.ours
    # 0.0095 is over the bound by more than twice its 2% tolerance.
    results = seed_lab_with_fpr(tmp_path, 0.0095, 0.0093, 0.0097)
    assert judged(results, BOUND).verdict == stats.CONTRADICTED


def seed_lab_with_hops(tmp_path, survey_rule: list[float], paper_rule: list[float]):
    """The fixture's lab cell as tables of both insertion rules, one per seed, with these hops."""
    directory = results_dir(tmp_path, "seed_lab.json")
    doc = json.loads((directory / "seed_lab.json").read_text())
    first = doc["records"][0]
    doc["records"] = [{**first, "filter": name, "seed": seed, "kicks_per_insert": hops,
                       "kicks_total": round(hops * first["keys"])}
                      for name, values in (("cuckoo", paper_rule), ("cuckoo_survey_insert", survey_rule))
                      for seed, hops in enumerate(values, start=1)]
    (directory / "seed_lab.json").write_text(json.dumps(doc))
    results = result_set(directory)
    seed_lab.render(results)
    return results


def test_the_hops_claim_is_judged_on_the_surveys_rule_with_the_papers_rule_beside_it(tmp_path):
    paper = [0.45, 0.46, 0.44, 0.455, 0.445]
    # The survey's 21,953 / 30,000 = 0.7318 inside one table's 95% prediction interval [0.706, 0.754].
    results = seed_lab_with_hops(tmp_path, [0.72, 0.73, 0.74, 0.735, 0.725], paper)
    judgement = judged(results, HOPS)
    assert judgement.verdict == stats.REPRODUCED
    assert len(judgement.deciding) == 1 and "cuckoo_survey_insert's 0.7300 over 5 tables" in judgement.ours
    [(paper_check, label)] = judgement.set_aside
    assert label.startswith("our finding, not like for like: the cuckoo filter paper's insert")
    assert paper_check.verdict == stats.REPRODUCED  # fewer hops than the survey's rule: a finding
    # Tables of the survey's rule about 0.60: the survey's one table lies far outside their spread.
    results = seed_lab_with_hops(tmp_path, [0.60, 0.61, 0.59, 0.605, 0.595], paper)
    assert judged(results, HOPS).verdict == stats.CONTRADICTED


def layout_frame(first_failure_b2: float) -> pd.DataFrame:
    """The cuckoo_load layout rows: b = 2 first fails at the given load, b = 4 at 0.97."""
    return pd.DataFrame([
        dict(filter="cuckoo12_b2", fingerprint_bits=cuckoo_load.LAYOUT_BITS, slots_per_bucket=2,
             insert_failures=1, first_failure_load=first_failure_b2, load_factor=first_failure_b2),
        dict(filter="cuckoo12", fingerprint_bits=cuckoo_load.LAYOUT_BITS, slots_per_bucket=4,
             insert_failures=1, first_failure_load=0.97, load_factor=0.97),
    ])


def test_a_limit_undershot_by_a_finite_table_is_not_contradicted_but_overshot_it_is(tmp_path):
    # b = 2 first fails at 0.80, 0.097 under its limit 0.897: as an equality that is contradicted;
    # a finite table may stop short of a limit, so the claim is only "partly".
    results = result_set(results_dir(tmp_path))
    cuckoo_load.threshold_checks(results, layout_frame(0.80))
    assert any(c.verdict == stats.CONTRADICTED for c in results.checks)
    judgement = judged(results, THRESHOLDS)
    assert judgement.claim.kind == claims.LIMIT
    assert judgement.verdict == stats.PARTLY
    # Within the tolerance under the limit: reproduced.
    results = result_set(results_dir(tmp_path))
    cuckoo_load.threshold_checks(results, layout_frame(0.89))
    assert judged(results, THRESHOLDS).verdict == stats.REPRODUCED
    # Past the limit: no finite table can, so it contradicts it.
    results = result_set(results_dir(tmp_path))
    cuckoo_load.threshold_checks(results, layout_frame(0.97))
    assert judged(results, THRESHOLDS).verdict == stats.CONTRADICTED


FUSE_CLAIM = "binary fuse paper: construction more than twice as fast as XOR's"


def test_an_unlike_check_is_shown_but_does_not_decide(tmp_path):
    results = result_set(results_dir(tmp_path))
    results.check("static", FUSE_CLAIM, "warm 2.19×", stats.REPRODUCED, "−10%")
    results.check("speed", f"{FUSE_CLAIM}, cold builds", "cold 1.20×", stats.CONTRADICTED, "−10%")
    judgement = judged(results, FUSE_BUILD)
    assert judgement.verdict == stats.REPRODUCED
    [(aside, label)] = judgement.set_aside
    assert aside.evidence == "cold 1.20×" and label.startswith("our finding, not like for like")
    # The like-for-like check still decides: a warm build under the claim contradicts it.
    results = result_set(results_dir(tmp_path))
    results.check("static", FUSE_CLAIM, "warm 1.20×", stats.CONTRADICTED, "−10%")
    results.check("speed", f"{FUSE_CLAIM}, cold builds", "cold 2.50×", stats.REPRODUCED, "−10%")
    assert judged(results, FUSE_BUILD).verdict == stats.CONTRADICTED
    # Only unlike checks: not measured, with the reason.
    results = result_set(results_dir(tmp_path))
    results.check("speed", f"{FUSE_CLAIM}, cold builds", "cold 2.50×", stats.REPRODUCED, "−10%")
    judgement = judged(results, FUSE_BUILD)
    assert judgement.verdict == stats.NOT_MEASURED and "not like for like" in judgement.ours


def test_a_check_outside_the_sources_conditions_does_not_decide(tmp_path):
    claim = "the Quotient Filter article: a quotient lookup touches 1 cache line (contiguous)"
    results = result_set(results_dir(tmp_path))
    results.check("locality", claim, "4.53 lines", stats.CONTRADICTED, "±0.25", conditions={"load": 0.954})
    judgement = judged(results, QUOTIENT_LINE)
    assert judgement.verdict == stats.NOT_MEASURED
    assert "not under the source's conditions: load 0.954 above its 0.75" in judgement.set_aside[0][1]
    results = result_set(results_dir(tmp_path))
    results.check("locality", claim, "4.53 lines", stats.CONTRADICTED, "±0.25", conditions={"load": 0.70})
    assert judged(results, QUOTIENT_LINE).verdict == stats.CONTRADICTED


def test_a_by_construction_claim_is_counted_apart_unless_it_fails(tmp_path):
    results = result_set(results_dir(tmp_path))
    results.check("space", "bloom at ε = 1%", "9.585 against 9.585", stats.REPRODUCED, "±1%")
    judgement = judged(results, BLOOM_SPACE)
    assert judgement.verdict == stats.REPRODUCED and judgement.counted_as == claims.BY_CONSTRUCTION
    counts = claims.counts(claims.rows(results))
    assert counts[claims.BY_CONSTRUCTION] == 1 and counts[stats.REPRODUCED] == 0
    # A sizing rule our filter misses is a finding, counted as its verdict.
    results = result_set(results_dir(tmp_path))
    results.check("space", "bloom at ε = 1%", "10.5 against 9.585", stats.CONTRADICTED, "±1%")
    assert judged(results, BLOOM_SPACE).counted_as == stats.CONTRADICTED
    assert claims.counts(claims.rows(results))[claims.BY_CONSTRUCTION] == 0


def test_every_claim_names_who_made_it_and_the_quoting_document_is_a_source_document():
    for claim in claims.CLAIMS:
        assert claim.made_by and claim.kind in (claims.EQUAL, claims.AT_MOST, claims.AT_LEAST, claims.LIMIT,
                                                claims.COMPARISON, claims.GROWTH)
        assert claim.quoted_in in ("", *claims.TITLES)
        assert claim.measured_by or claim.missing  # a claim nothing measures says why


def test_a_claim_without_data_is_not_measured_and_says_why(tmp_path):
    results = result_set(results_dir(tmp_path))
    report.render_sections(results)
    all_judged = claims.rows(results)
    assert {j.verdict for j in all_judged} == {stats.NOT_MEASURED}
    assert judged(results, CROSSOVER).ours == "no result: the sweep section had no data to judge it"
    assert judged(results, HOPS).ours == "no result: the seed_lab section had no data to judge it"


def test_the_claims_list_prints_kind_conditions_source_and_the_counts(tmp_path, capsys):
    directory = results_dir(tmp_path, "seed_lab.json")
    out = tmp_path / "REPORT.md"
    assert report.main(["--suite", str(SUITE), "--results", str(directory), "--out", str(out), "--claims"]) == 0
    text = capsys.readouterr().out
    assert text.count("\n  kind: ") == len(claims.CLAIMS)
    assert text.count("\n  conditions: ") == len(claims.CLAIMS)
    assert ("  kind: at_most\n  conditions: load any (the bound counts every slot full); filters b = 4, f = 10"
            " (the survey's lab)\n") in text
    assert ("  source: cuckoo filter paper (Fan et al., CoNEXT 2014), quoted in the AMQ survey" in text)
    assert "  verdict: **reproduced**" in text
    # The fixture's seed lab: the f formula is the one claim its sizing rule alone gives.
    last = text.rstrip().splitlines()[-1]
    assert last == f"Claims: {claims.counts_text(judged_all(directory))}."
    assert last.startswith("Claims: reproduced ") and "by construction 1," in last and "not measured " in last
    assert not out.exists()  # --claims prints; it does not write the report


def judged_all(directory):
    results = result_set(directory)
    report.render_sections(results)
    return claims.rows(results)


IMPROVES = "improves upon a Cyclic ACF and a Swapping ACF of the same size"


def trace_cells(cuckooing_fpr: float) -> pd.DataFrame:
    rivals = {"acf_cyclic": 0.011, "acf_cyclic_ranges": 0.0055, "acf_swapping": 0.0056}
    return pd.DataFrame([dict(filter=name, bits_per_slot=8, fpr=fpr)
                         for name, fpr in {**rivals, "acf_cuckooing": cuckooing_fpr}.items()])


def test_the_trace_replay_decides_the_comparison_with_cyclic_and_swapping_and_the_grids_do_not(tmp_path):
    from sections import adaptive
    results = result_set(results_dir(tmp_path))
    # A grid check (uniform synthetic) that contradicts the claim is set aside.
    results.check("adaptive", "acf_cuckooing at least as good as Cyclic and Swapping (x)", "adapt_grid: 10 lost",
                  stats.CONTRADICTED, "per pair")
    assert judged(results, IMPROVES).verdict == stats.NOT_MEASURED
    adaptive.beats_rivals_on_trace(results, "adapt_trace_real", trace_cells(0.0031))
    assert judged(results, IMPROVES).verdict == stats.REPRODUCED
    # Above one rival on the trace: contradicted.
    results = result_set(results_dir(tmp_path))
    adaptive.beats_rivals_on_trace(results, "adapt_trace_real", trace_cells(0.0060))
    judgement = judged(results, IMPROVES)
    assert judgement.verdict == stats.CONTRADICTED and "largest ratio 1.09 (acf_cyclic_ranges, 8 bits/slot)" in judgement.ours


DELETIONS = "a quotient filter supports dynamic deletions without false negatives"


def test_deletions_without_false_negatives_are_judged_on_the_quotient_family(tmp_path):
    results = result_set(results_dir(tmp_path))
    for name in ("quotient", "rsqf", "cqf", "cuckoo12"):
        results.check("churn", f"deleting members leaves no false negatives: {name}", "0 false negatives",
                      stats.verdict(0, 0), "exact")
    judgement = judged(results, DELETIONS)
    assert judgement.verdict == stats.REPRODUCED and len(judgement.deciding) == 3
    [(cuckoo, label)] = judgement.set_aside
    assert cuckoo.claim.endswith(": cuckoo12") and label.startswith("our finding, not like for like: a cuckoo filter")
    results.check("churn", "deleting members leaves no false negatives: rsqf", "2 false negatives",
                  stats.verdict(2, 0), "exact")
    assert judged(results, DELETIONS).verdict == stats.CONTRADICTED
