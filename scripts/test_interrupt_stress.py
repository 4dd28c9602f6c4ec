"""A few rounds of the interrupt stress: random signals at random times, resumed each time,
leave every planned cell recorded exactly once (the long run's figures are in the README)."""

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BINARY = ROOT / "build" / "amqbench"


@pytest.mark.skipif(not BINARY.exists(), reason="build/amqbench is not built")
def test_interrupted_and_resumed_runs_lose_and_double_nothing(tmp_path):
    result = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "interrupt_stress.py"), "--rounds", "4",
         "--seed", "5", "--max-delay", "2.5", "--binary", str(BINARY), "--work-dir", str(tmp_path)],
        capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "lost 0, doubled 0" in result.stdout
