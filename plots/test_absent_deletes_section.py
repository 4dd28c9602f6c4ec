"""The absent_deletes section on crafted cells: each filter's lost members with the interval on
the count, the claim's verdict per filter, and the build's invariant apart from it."""

import claims
import stats
from result_set import ResultSet
from test_build_failures_section import results as one_experiment


def cell(filter_name: str, family: str, accepted: int, lost: int, before: int = 0) -> dict:
    return {"record": "cell", "cell_id": filter_name, "experiment": "ad", "kind": "absent_deletes", "seed": 1,
            "filter": filter_name, "family": family, "keys": 1000, "target_fpr": 0.01, "max_load": None,
            "key_sets": 10, "keys_inserted": 10000, "insert_failures": 0, "load_factor": 0.95,
            "false_negatives": before, "absent_deletes": 10000, "absent_deletes_accepted": accepted,
            "false_negatives_after_absent_deletes": lost}


def results(tmp_path, cells: list[dict]) -> ResultSet:
    return one_experiment(tmp_path, cells, kind="absent_deletes", experiment="ad")


def test_lost_members_carry_an_interval_and_decide_the_survey_claim(tmp_path):
    from sections import absent_deletes

    rs = results(tmp_path, [cell("cuckoo", "cuckoo", 120, 118), cell("quotient", "quotient", 90, 90)])
    text = absent_deletes.render(rs)
    low, high = absent_deletes.count_interval(118, 10000)
    assert low < 118 < high and f"| 118 [{low:,.0f}, {high:,.0f}] |" in text
    assert [c.verdict for c in rs.checks] == [stats.REPRODUCED] * 3  # two filters, then the build invariant
    [judgement] = [j for j in claims.rows(rs) if "never inserted can" in j.claim.words]
    assert judgement.verdict == stats.REPRODUCED
    assert [c.claim for c, _ in judgement.deciding] == ["deleting keys never inserted can cause false negatives: cuckoo"]
    assert [c.claim.split(": ")[1] for c, _ in judgement.set_aside] == ["quotient"]


def test_no_member_lost_contradicts_and_a_broken_build_is_its_own_check(tmp_path):
    from sections import absent_deletes

    rs = results(tmp_path, [cell("cuckoo", "cuckoo", 0, 0, before=2)])
    absent_deletes.render(rs)
    verdicts = {c.claim: c.verdict for c in rs.checks}
    assert verdicts["deleting keys never inserted can cause false negatives: cuckoo"] == stats.CONTRADICTED
    assert verdicts["no false negatives"] == stats.CONTRADICTED
