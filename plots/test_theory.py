"""plots/theory.py asks `amqbench theory` for every formula: one process serves many calls, the
answers are the binary's to the last bit and keep numpy's shapes, a missing value stays NaN,
and a missing binary or a refused request is an error that says what to do."""

import json
import subprocess

import numpy as np
import pytest

import theory


def binary_answer(formula, **args):
    """The binary's answer to one request, asked directly."""
    done = subprocess.run([str(theory.binary()), "theory", "--formula", formula, "--args", json.dumps(args)],
                          capture_output=True, text=True, check=True)
    return json.loads(done.stdout)["values"]


def test_one_process_answers_every_call_and_repeats_come_from_the_cache():
    theory.cuckoo_fpr(12, 0.5)
    process = theory._SERVER.process
    theory.bloom(np.array([0.01, 0.001]))
    theory.knuth_displacement(0.75)
    assert theory._SERVER.process is process and process.poll() is None
    asked = len(theory._SERVER.answers)
    theory.cuckoo_fpr(12, 0.5)
    assert len(theory._SERVER.answers) == asked


def test_values_are_the_binarys_to_the_last_bit():
    loads = [0.1, 0.5, 0.95]
    assert theory.cuckoo_fpr(12, np.array(loads)).tolist() == \
        binary_answer("cuckoo_fpr", fingerprint_bits=12, load=loads, slots_per_bucket=4)["fpr"]
    assert theory.ribbon_frac(0.01) == binary_answer("ribbon_frac", fpr=0.01, overhead=0.05)["bits_per_key"][0]


def test_shapes_follow_numpy_broadcasting_and_nan_stays_nan():
    assert isinstance(theory.bloom(0.01), float) and np.ndim(theory.bloom(0.01)) == 0
    grid = theory.cuckoo_fpr(np.array([[8], [12]]), np.array([0.25, 0.5, 0.75]))
    assert grid.shape == (2, 3)
    assert grid[1, 2] == theory.cuckoo_fpr(12, 0.75)
    with_gap = theory.quotient_fpr(8, np.array([0.5, np.nan, 0.9]))
    assert np.isnan(with_gap[1]) and with_gap[0] == theory.quotient_fpr(8, 0.5)
    assert np.isnan(theory.knuth_displacement(np.nan))
    assert theory.knuth_displacement(np.array([])).shape == (0,)


def test_a_refused_request_raises_the_binarys_line_and_the_next_call_works():
    with pytest.raises(theory.TheoryError, match=r"cuckoo_fpr: load must be in \[0, 1\], got 1.5"):
        theory.cuckoo_fpr(8, 1.5)
    assert theory.knuth_displacement(0.5) == 0.5


def test_a_missing_binary_says_how_to_get_one(monkeypatch, tmp_path):
    monkeypatch.setenv("AMQBENCH", str(tmp_path / "amqbench"))
    server = theory._Server()
    with pytest.raises(theory.TheoryError, match=r"is not an executable file: build it .*set AMQBENCH"):
        server.ask(json.dumps({"formula": "bloom", "args": {"fpr": 0.01}}))
