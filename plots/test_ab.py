"""amqbench ab's judgement (plots/ab.py) on crafted rounds: Google Benchmark JSON files as the
binaries write them, one per side and round. The command around it: commands/ab_command_test.cc."""

import io
import json
import random

import pytest

import ab


def write_rounds(directory, a_times, b_times, name="bloom/query_absent/n:1000/real_time", extra=None):
    """round_<i>_A.json and round_<i>_B.json with one benchmark each (times in ns), plus `extra`
    benchmarks: {(round, side): [benchmark dicts]}."""
    for i, (a, b) in enumerate(zip(a_times, b_times), start=1):
        for side, t in (("A", a), ("B", b)):
            benchmarks = [{"name": name, "run_type": "iteration", "real_time": t / 1e3, "time_unit": "us"}]
            benchmarks += (extra or {}).get((i, side), [])
            (directory / f"round_{i}_{side}.json").write_text(json.dumps({"context": {}, "benchmarks": benchmarks}))
    return directory


def run(capsys, *argv):
    out = io.StringIO()
    status = ab.main([str(a) for a in argv], out=out)
    return status, out.getvalue(), capsys.readouterr().err


def noisy(n, centre, spread, seed):
    rng = random.Random(seed)
    return [centre * (1 + rng.uniform(-spread, spread)) for _ in range(n)]


def test_every_round_slower_by_a_third_is_slower_with_the_exact_p():
    pairs = [(a, a * 1.33) for a in noisy(10, 20.0, 0.2, seed=1)]
    j = ab.judge(pairs, alpha=0.05, min_effect=0.05)
    assert j.verdict == ab.SLOWER
    assert j.p_value == pytest.approx(2 / 2 ** 10)  # every sign the same: the exact test's floor
    assert j.median_ratio == pytest.approx(1.33) and j.rounds == 10


def test_faster_is_below_one_over_one_plus_the_effect():
    assert ab.judge([(a, a / 1.2) for a in noisy(8, 20.0, 0.1, 2)], 0.05, 0.05).verdict == ab.FASTER
    # 4% faster in every round: significant, but inside the 5% effect.
    assert ab.judge([(a, a * 0.96) for a in noisy(8, 20.0, 0.1, 2)], 0.05, 0.05).verdict == ab.SAME


def test_holm_multiplies_the_ith_smallest_by_k_minus_i_plus_1_and_keeps_the_order():
    assert ab.holm_adjusted([0.01, 0.04, 0.03]) == pytest.approx([0.03, 0.06, 0.06])
    assert ab.holm_adjusted([0.5, 0.001]) == pytest.approx([0.5, 0.002])
    assert ab.holm_adjusted([0.9, 0.8]) == pytest.approx([1.0, 1.0])
    assert ab.holm_adjusted([]) == []


def test_a_job_of_many_benchmarks_adjusts_each_p_for_the_others(tmp_path, capsys):
    # One benchmark slower in 7 of 8 rounds: p = 0.016 alone, slower at 0.05; beside 4 equal
    # benchmarks its p is multiplied by 5 (0.078) and it is no longer called.
    a = noisy(8, 100.0, 0.05, seed=3)
    b = [t * (1.3 if i != 4 else 0.97) for i, t in enumerate(a)]
    alone = ab.judge(list(zip(a, b)), 0.05, 0.05)
    assert alone.verdict == ab.SLOWER and alone.p_value == pytest.approx(4 / 2 ** 8)
    extra = {}
    for i in range(1, 9):
        for side in "AB":
            extra[(i, side)] = [{"name": f"equal{k}", "run_type": "iteration", "real_time": 50.0 + k,
                                 "time_unit": "ns"} for k in range(4)]
    write_rounds(tmp_path, a, b, extra=extra)
    status, out, _ = run(capsys, "judge", "--a", "A", "--b", "B", "--rounds", 8, "--dir", tmp_path)
    assert status == 0 and "nothing slower; 5 same." in out
    assert "p adjusted by Holm's step-down for the 5 benchmarks judged" in out


def test_a_large_but_inconsistent_ratio_and_identical_times_are_the_same():
    # Half the rounds 1.5x slower, half 1.5x faster: no consistent direction.
    pairs = [(10.0, 15.0 if i % 2 else 10.0 / 1.5 * (1 + i / 100)) for i in range(10)]
    assert ab.judge(pairs, 0.05, 0.05).verdict == ab.SAME
    same = ab.judge([(10.0, 10.0)] * 8, 0.05, 0.05)
    assert same.verdict == ab.SAME and same.p_value == 1.0 and same.median_ratio == 1.0


def test_drift_shared_by_each_rounds_pair_cancels():
    # The machine slows down 3x over the job; B equals A within 1% in every round. A test over
    # the two sides' samples as independent groups would see noise; the pairs see none.
    drift = [1 + 0.2 * i for i in range(10)]
    rng = random.Random(3)
    pairs = [(20 * d, 20 * d * (1 + rng.uniform(-0.01, 0.01))) for d in drift]
    assert ab.judge(pairs, 0.05, 0.05).verdict == ab.SAME


def test_judge_reads_rounds_writes_pairs_and_exits_1_when_slower(tmp_path, capsys):
    a = noisy(8, 1000.0, 0.1, 4)
    write_rounds(tmp_path, a, [t * 2 for t in a])
    out_file = tmp_path / "pairs.jsonl"
    status, out, err = run(capsys, "judge", "--a", "base/micro", "--b", "head/micro", "--rounds", 8,
                           "--dir", tmp_path, "--out", out_file)
    assert status == 1, err
    assert out.startswith("amqbench ab: SLOWER: 1 of 1 benchmarks.")
    assert "| bloom/query_absent/n:1000/real_time | " in out and "| 2.000 (2.000–2.000) | 0.0078 | slower |" in out
    lines = [json.loads(line) for line in out_file.read_text().splitlines()]
    assert [(p["round"], p["first"]) for p in lines] == [(i, "A" if i % 2 else "B") for i in range(1, 9)]
    assert lines[0]["a_ns"] == pytest.approx(a[0]) and lines[0]["ratio"] == pytest.approx(2.0)
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".pairs.jsonl.")]  # no temp left


def test_a_benchmark_that_failed_or_is_on_one_side_is_not_judged(tmp_path, capsys):
    a = noisy(6, 1000.0, 0.05, 5)
    errored = {"name": "xor8/query_absent", "run_type": "iteration", "error_occurred": True,
               "error_message": "false negatives"}
    ok = {"name": "xor8/query_absent", "run_type": "iteration", "real_time": 5.0, "time_unit": "ns"}
    only_b = {"name": "new/query_absent", "run_type": "iteration", "real_time": 5.0, "time_unit": "ns"}
    extra = {(i, side): [errored if (i, side) == (3, "B") else ok] for i in range(1, 7) for side in "AB"}
    for i in range(1, 7):
        extra[(i, "B")].append(only_b)
    write_rounds(tmp_path, a, a, extra=extra)
    status, out, err = run(capsys, "judge", "--a", "A", "--b", "B", "--rounds", 6, "--dir", tmp_path)
    assert status == 0, err
    assert "| xor8/query_absent |  |  |  |  | not judged (failed, B in round 3: false negatives) |" in out
    assert "| new/query_absent |  |  |  |  | not judged (B only) |" in out
    assert out.startswith("amqbench ab: nothing slower; 1 same, 2 not judged.")


@pytest.mark.parametrize("argv, message", [
    (["--rounds", "4"], "--rounds 4: at least 5 rounds are needed"),
    (["--rounds", "5"], "--rounds 5 can never reach p < 0.05"),
    (["--rounds", "5", "--alpha", "0.1"], None),
    (["--rounds", "10", "--alpha", "1.5"], "--alpha 1.5: must be in (0, 1)"),
    (["--rounds", "10", "--min-effect", "-0.1"], "--min-effect -0.1: must be a fraction >= 0"),
    # 10 rounds: the smallest p is 2/1024, times 26 benchmarks once adjusted is 0.051.
    (["--rounds", "10", "--benchmarks", "25"], None),
    (["--rounds", "10", "--benchmarks", "26"], "--rounds 10 can never reach p < 0.05 for 26 benchmarks"),
    (["--rounds", "10", "--benchmarks", "0"], "--benchmarks 0: at least 1"),
])
def test_check_refuses_settings_that_cannot_give_a_verdict(capsys, argv, message):
    status, out, err = run(capsys, "check", "--a", "A", "--b", "B", *argv)
    if message is None:
        assert status == 0 and err == ""
    else:
        assert status == 2 and out == "" and err == f"amqbench ab: {err[len('amqbench ab: '):]}"
        assert message in err and err.count("\n") == 1


def test_check_refuses_an_out_that_is_a_binary(tmp_path, capsys):
    binary = tmp_path / "micro"
    binary.write_bytes(b"\x7fELF")
    status, _, err = run(capsys, "check", "--a", binary, "--b", "B", "--rounds", 10, "--out", binary)
    assert status == 2 and "it would be overwritten" in err
    assert binary.read_bytes() == b"\x7fELF"


def test_rounds_without_benchmarks_or_unreadable_are_bad_input(tmp_path, capsys):
    for i in range(1, 7):
        for side in "AB":
            (tmp_path / f"round_{i}_{side}.json").write_text(json.dumps({"benchmarks": []}))
    status, _, err = run(capsys, "judge", "--a", "A", "--b", "B", "--rounds", 6, "--dir", tmp_path)
    assert status == 2 and "ran no benchmark" in err
    (tmp_path / "round_2_B.json").write_text("{truncated")
    status, _, err = run(capsys, "judge", "--a", "A", "--b", "B", "--rounds", 6, "--dir", tmp_path)
    assert status == 2 and "round_2_B.json: not Google Benchmark JSON" in err
