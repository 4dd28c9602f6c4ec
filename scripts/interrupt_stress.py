#!/usr/bin/python3
"""Interrupts a suite run again and again, resumes it each time, and counts what was lost.

Each round starts `amqbench suite` (with --resume after the first), waits a random time, and
sends a random signal: SIGINT, SIGTERM and SIGHUP must stop the run within about a second with
128 + the signal; SIGKILL may cut a cell anywhere, even mid-write. A last --resume finishes the
suite. Then every planned cell (from the result files' headers) must be recorded exactly once:
a cell missing is lost, a cell twice is doubled. Both must be 0.

    scripts/interrupt_stress.py [--rounds 30] [--seed 1] [--binary build/amqbench]

Prints a table of signals sent, stop times and the census; exits 1 if a cell was lost or
doubled, or a stop took longer than --max-stop seconds, or a status was wrong.
"""

import argparse
import json
import random
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# Cells of one to a few seconds each: long enough that most signals land inside a cell (where
# the watchdog abandons it), short enough that many land between cells too.
SUITE = """[suite]
name = "interrupt_stress"
seed = 11

[[experiment]]
id = "tables"
kind = "filters"
filters = { names = ["bloom", "cuckoo12", "rsqf"] }
keys = [1000000, 2000000]
fpr = [0.01]
queries = 500000
repeats = 3
quick = {}

[[experiment]]
id = "static"
kind = "filters"
filters = { names = ["xor8", "binary_fuse8", "ribbon"] }
keys = [2000000]
queries = 500000
repeats = 3
quick = {}
"""

SIGNALS = [signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGKILL]


def census(out_dir: Path):
    """(planned, recorded Counter of (file, cell_id, seed)) over the result files."""
    planned = set()
    recorded = Counter()
    for path in sorted(out_dir.glob("*.jsonl")):
        lines = path.read_text().splitlines()
        for number, text in enumerate(lines):
            try:
                line = json.loads(text)
            except json.JSONDecodeError:
                # Only a torn last line is allowed (a SIGKILL mid-write; resume cuts it off).
                if number != len(lines) - 1:
                    raise
                continue
            if line.get("record") == "header":
                planned.update((path.name, cell) for cell in line["cells"])
            elif line.get("record") == "cell":
                recorded[(path.name, line["cell_id"])] += 1
    return planned, recorded


def run(args) -> int:
    rng = random.Random(args.seed)
    # A directory of the caller's (a test's temporary one), or a new one kept for inspection.
    work = Path(args.work_dir) if args.work_dir else Path(tempfile.mkdtemp(prefix="amq_interrupt_"))
    work.mkdir(parents=True, exist_ok=True)
    suite = work / "stress.toml"
    suite.write_text(SUITE)
    out = work / "out"
    sent = Counter()
    stops = []
    problems = []
    finished_early = 0
    for round_number in range(args.rounds):
        command = [args.binary, "suite", str(suite), "--out-dir", str(out)]
        if round_number > 0:
            command.append("--resume")
        process = subprocess.Popen(command, stderr=subprocess.PIPE, text=True)
        time.sleep(rng.uniform(0.2, args.max_delay))
        chosen = rng.choice(SIGNALS)
        if process.poll() is not None:
            finished_early += 1
            process.communicate()
            break
        process.send_signal(chosen)
        signalled = time.monotonic()
        _, err = process.communicate()
        stop = time.monotonic() - signalled
        sent[chosen.name] += 1
        status = process.returncode
        if chosen == signal.SIGKILL:
            if status not in (-signal.SIGKILL, 0):
                problems.append(f"round {round_number}: SIGKILL gave status {status}")
            continue
        stops.append(stop)
        expected = 128 + int(chosen)
        if status not in (expected, 0):
            problems.append(f"round {round_number}: {chosen.name} gave status {status}, not {expected}: {err.strip()[-300:]}")
        if stop > args.max_stop:
            problems.append(f"round {round_number}: {chosen.name} took {stop:.2f} s to stop")
    final = subprocess.run([args.binary, "suite", str(suite), "--out-dir", str(out), "--resume"],
                           stderr=subprocess.PIPE, text=True)
    if final.returncode != 0:
        problems.append(f"the last --resume exited {final.returncode}: {final.stderr.strip()[-300:]}")
    planned, recorded = census(out)
    lost = sorted(cell for cell in planned if recorded[cell] == 0)
    doubled = sorted(cell for cell, count in recorded.items() if count > 1)
    strays = sorted(cell for cell in recorded if cell not in planned)

    print(f"interrupt stress: {args.rounds} rounds, seed {args.seed}, results in {out}")
    print("| signal | sent |")
    print("|---|---|")
    for name in ("SIGINT", "SIGTERM", "SIGHUP", "SIGKILL"):
        print(f"| {name} | {sent[name]} |")
    if stops:
        ordered = sorted(stops)
        print(f"stop time after SIGINT/SIGTERM/SIGHUP: median {ordered[len(ordered) // 2]:.2f} s, "
              f"max {ordered[-1]:.2f} s over {len(stops)} signals")
    print(f"cells planned {len(planned)}, recorded {sum(recorded.values())}, "
          f"lost {len(lost)}, doubled {len(doubled)}, not planned {len(strays)}"
          + (f"; the run finished before round {args.rounds}" if finished_early else ""))
    for cell in lost:
        problems.append(f"lost: {cell}")
    for cell in doubled:
        problems.append(f"doubled: {cell}")
    for cell in strays:
        problems.append(f"recorded but not planned: {cell}")
    for problem in problems:
        print("PROBLEM: " + problem, file=sys.stderr)
    return 1 if problems else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--binary", default=str(ROOT / "build" / "amqbench"))
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--max-delay", type=float, default=4.0, help="longest wait before a signal, s")
    parser.add_argument("--max-stop", type=float, default=5.0,
                        help="longest a stop may take, s (about 1 s expected; a loaded machine is slower)")
    parser.add_argument("--work-dir", help="where the suite and its results go (default: a new "
                        "directory under the system's temporary one, kept)")
    args = parser.parse_args()
    if not Path(args.binary).exists():
        print(f"interrupt_stress: no binary {args.binary} (build first)", file=sys.stderr)
        return 2
    return run(args)


if __name__ == "__main__":
    sys.exit(main())
