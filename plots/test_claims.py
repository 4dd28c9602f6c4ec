"""The claims table takes its verdicts from the numbers: fixtures that move a measurement past its
tolerance flip the verdict, and missing data reads "not measured"."""

import json

import pandas as pd

import claims
import report
import stats
from sections import seed_lab, sweep
from test_report import SUITE, result_set, results_dir


def claim_row(results, words: str):
    [row] = [r for r in claims.rows(results) if r[0].words == words]
    return row


def sweep_frame(cuckoo_extra_bits: float = 0.0) -> pd.DataFrame:
    """Bloom at 1.44·log2(1/ε) and cuckoo at (log2(1/ε) + 3)/0.954 bits/key, the FPRs a factor 4
    apart as the default sweep's are: the curves cross at ε ≈ 0.4%."""
    rows = []
    for x in (4, 6, 8, 10, 12):
        rows.append(dict(filter="bloom", fpr=2.0 ** -x, bits_per_key=1.4427 * x))
        rows.append(dict(filter="cuckoo", fpr=2.0 ** -x, bits_per_key=(x + 3) / 0.954 + cuckoo_extra_bits))
    return pd.DataFrame(rows)


def test_the_crossover_claim_flips_when_the_crossing_moves_past_its_tolerance(tmp_path):
    words = "cuckoo only beats space-optimal Bloom below ... eps ~ 0.4%"
    results = result_set(results_dir(tmp_path))
    sweep.crossover_checks(results, sweep_frame())
    claim, verdict, ours, tolerance = claim_row(results, words)
    assert verdict == stats.REPRODUCED
    assert "ε = 0.40%" in ours and "±0.5 in log2(1/ε)" in tolerance
    # 1.5 more bits per key for cuckoo move the crossing to ε ≈ 0.03%: 3.8 past log2(1/0.004).
    results = result_set(results_dir(tmp_path))
    sweep.crossover_checks(results, sweep_frame(cuckoo_extra_bits=1.5))
    assert claim_row(results, words)[1] == stats.CONTRADICTED


def test_a_claim_takes_the_verdict_its_section_computed(tmp_path):
    directory = results_dir(tmp_path, "seed_lab.json")
    results = result_set(directory)
    seed_lab.render(results)
    # 5,000 probes: the interval is wide enough to hold the survey's 2b/2^f = 0.0078.
    assert claim_row(results, "FPR ~ 2b/2^f")[1] == stats.REPRODUCED

    doc = json.loads((directory / "seed_lab.json").read_text())
    doc["records"][0].update(fpr=0.0071, fpr_ci_low=0.0070, fpr_ci_high=0.0073)
    (directory / "seed_lab.json").write_text(json.dumps(doc))
    results = result_set(directory)
    seed_lab.render(results)
    assert claim_row(results, "FPR ~ 2b/2^f")[1] == stats.CONTRADICTED


def test_a_claim_without_data_is_not_measured_and_says_why(tmp_path):
    results = result_set(results_dir(tmp_path))
    report.render_sections(results)
    judged = claims.rows(results)
    assert {verdict for _, verdict, _, _ in judged} == {stats.NOT_MEASURED}
    assert claim_row(results, "cuckoo only beats space-optimal Bloom below ... eps ~ 0.4%")[2] == (
        "no result: the sweep section had no data to judge it")
    hops = claim_row(results, "~0.73 eviction hops per insert")
    assert hops[2].startswith("The survey's insert evicts from i1")


def test_the_claims_list_prints_one_line_per_claim(tmp_path, capsys):
    directory = results_dir(tmp_path, "seed_lab.json")
    out = tmp_path / "REPORT.md"
    assert report.main(["--suite", str(SUITE), "--results", str(directory), "--out", str(out), "--claims"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == len(claims.CLAIMS)
    assert any(line.startswith('- the AMQ survey: "FPR ~ 2b/2^f"') and "**reproduced**" in line for line in lines)
    assert not out.exists()  # --claims prints; it does not write the report
