"""The dynamic filters' papers judged on crafted timings: each comparison's ratio and spread, the
verdict against the paper's figure, and the claims they decide or are set aside from."""

import math

import pandas as pd

import claims
import stats
from sections import dynamic_papers
from test_fill_step_section import lines_of, results


def native(rows: dict) -> pd.DataFrame:
    """A micro-benchmark summary as speed.summarize gives it: (filter, operation) -> median, min, max."""
    frame = pd.DataFrame([{"filter": f, "operation": op, "median": m, "min": lo, "max": hi, "runs": 5}
                          for (f, op), (m, lo, hi) in rows.items()])
    return frame.set_index(["filter", "operation"])


def check_of(rs, what: str):
    """The check whose evidence begins with what was compared."""
    return next(c for c in rs.checks if c.evidence.startswith(what + " "))


def frames(tmp_path, filters: list[str]):
    lines = [line for name in filters for line in lines_of(name, "f", 4000, 0.95, erasable=True)]
    rs = results(tmp_path, lines)
    steps = pd.DataFrame([line for line in lines if line["record"] == "step"])
    cells = pd.DataFrame([line for line in lines if line["record"] == "cell"])
    return rs, steps, cells


def test_morton_erases_are_the_native_micro_benchmarks(tmp_path):
    # The fill_step steps time erases too, in the portable build, where the Morton filter's
    # popcounts are library calls: the claim is judged on the -march=native erases only.
    rs, steps, cells = frames(tmp_path, ["cuckoo12", "morton"])
    judge = dynamic_papers.Judge(rs, None)
    dynamic_papers.morton_checks(judge, None, cells, None)
    assert not any("erase" in c.evidence for c in rs.checks)
    summary = native({("cuckoo12", "erase"): (20.0, 19.8, 20.2), ("morton", "erase"): (10.0, 9.8, 10.2)})
    dynamic_papers.morton_checks(judge, summary, cells, None)
    deletion = check_of(rs, "cuckoo12 ÷ morton erase ns")
    # 2.00× [1.94, 2.06]: past 1.6 by more than twice its 10%, but a speed-up, as claimed: partly.
    assert deletion.evidence.startswith("cuckoo12 ÷ morton erase ns 2.00× [1.94, 2.06] (n = 10^6, -march=native")
    assert deletion.verdict == stats.PARTLY


def test_vqf_inserts_against_morton_and_the_decline(tmp_path):
    rs, steps, cells = frames(tmp_path, ["vqf8", "cuckoo12", "morton"])
    judge = dynamic_papers.Judge(rs, None)
    summary = native({("vqf8", "insert"): (20.0, 19.0, 21.0), ("morton", "insert"): (40.0, 38.0, 42.0),
                      ("vqf8", "query_present"): (30.0, 29.0, 31.0), ("cuckoo12", "query_present"): (10.0, 9.5, 11.0)})
    dynamic_papers.vqf_checks(judge, summary, steps, None)
    inserts = check_of(rs, "morton ÷ vqf8 insert ns")
    assert inserts.verdict == stats.REPRODUCED and "2.00× [1.81, 2.21]" in inserts.evidence
    lookups = check_of(rs, "vqf8 ÷ cuckoo12 query_present ns")
    assert lookups.verdict == stats.CONTRADICTED  # 3× slower, outside 0.8-1.25 and its 2 tol
    # The crafted inserts double with each 25% of fill: full over half is 80 / 20 = 4x, past 1.25;
    # the spread is the slowest full sample over the fastest half one and the reverse.
    decline = check_of(rs, "vqf8 insert ns, full ÷ half")
    assert decline.verdict == stats.CONTRADICTED and decline.evidence.startswith("vqf8 insert ns, full ÷ half 4.00× [3.00, 5.33]")
    member = check_of(rs, "vqf8 member lookup ns, full ÷ half")
    assert member.verdict == stats.REPRODUCED  # 8 ns throughout
    assert "cuckoo12 4.00×" in decline.evidence and "morton 4.00×" in decline.evidence


def test_morton_space_is_moved_to_the_cuckoo_filters_fpr(tmp_path):
    rs, steps, cells = frames(tmp_path, ["cuckoo12", "morton"])
    cells.loc[cells["filter"] == "morton", ["bits_per_key", "fpr", "fpr_ci_low", "fpr_ci_high"]] = [11.0, 0.004, 0.0035, 0.0045]
    cells.loc[cells["filter"] == "cuckoo12", ["bits_per_key", "fpr"]] = [12.0, 0.002]
    judge = dynamic_papers.Judge(rs, None)
    dynamic_papers.morton_checks(judge, None, cells, None)
    space = next(c for c in rs.checks if "slightly less space" in c.claim)
    # 11 bits at 0.4% are 12 bits at 0.2%: ratio 1.0, the top of "comparable to slightly less".
    assert space.evidence.startswith("morton ÷ cuckoo12 bits/key at cuckoo12's FPR 1.00×")
    assert space.verdict == stats.REPRODUCED
    assert math.isclose(dynamic_papers.bits_at_fpr({"bits_per_key": 11.0, "fpr": 0.004, "fpr_ci_low": 0.002,
                                                     "fpr_ci_high": 0.008}, 0.002)[2], 13.0)


def test_claims_take_like_for_like_checks_and_set_the_others_aside(tmp_path):
    rs, steps, cells = frames(tmp_path, ["vqf8", "cuckoo12", "prefix_tc"])
    summary = native({("prefix_tc", "insert"): (30.0, 30.0, 30.0), ("vqf8", "insert"): (45.0, 45.0, 45.0),
                      ("cuckoo12", "insert"): (100.0, 100.0, 100.0), ("vqf8", "erase"): (18.0, 17.0, 19.0),
                      ("cuckoo12", "erase"): (20.0, 19.0, 21.0)})
    judge = dynamic_papers.Judge(rs, None)
    dynamic_papers.vqf_checks(judge, summary, steps, None)
    dynamic_papers.prefix_checks(judge, summary, steps, cells, None)
    judged = {j.claim.words: j for j in claims.rows(rs)}
    # The build ratios (1.5x and 3.33x) meet the paper's, but at n = 10^6 against its 2^25: set aside.
    build = judged["overall build times faster than those of the vector quotient filter and cuckoo filter"]
    assert build.verdict == stats.NOT_MEASURED and len(build.set_aside) == 2
    assert all(check.verdict == stats.REPRODUCED for check, _ in build.set_aside)
    # The erases are the -march=native micro-benchmarks' (full to empty):
    # 0.90× [0.81, 1.00], inside "similar" (0.8-1.25), decides the claim.
    deletion = judged["similar deletion performance as the cuckoo filter"]
    assert deletion.verdict == stats.REPRODUCED and not deletion.set_aside
    assert check_of(rs, "vqf8 ÷ cuckoo12 erase ns").evidence.startswith("vqf8 ÷ cuckoo12 erase ns 0.90× [0.81, 1.00]")
    # Space decides: the crafted cells are 8 bits/key each, a ratio of 1.
    assert judged["its space (in bits) is similar to state-of-the-art dynamic filters"].verdict == stats.REPRODUCED


def test_the_vqf_deletion_claim_waits_for_the_native_erases(tmp_path):
    # The fill_step steps time erases too (portable build), but the claim is judged only on the
    # -march=native micro-benchmarks' erases: without them no check, and the claim is not measured.
    rs, steps, cells = frames(tmp_path, ["vqf8", "cuckoo12"])
    judge = dynamic_papers.Judge(rs, None)
    dynamic_papers.vqf_checks(judge, native({("vqf8", "insert"): (20.0, 19.0, 21.0)}), steps, None)
    assert not any("erase" in c.evidence for c in rs.checks)
    judged = {j.claim.words: j for j in claims.rows(rs)}
    assert judged["similar deletion performance as the cuckoo filter"].verdict == stats.NOT_MEASURED


def test_nothing_to_compare_renders_nothing(tmp_path):
    rs, steps, cells = frames(tmp_path, ["bloom"])
    assert dynamic_papers.comparisons(rs, steps, cells) == []
