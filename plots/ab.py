#!/usr/bin/python3
"""amqbench ab's judgement: two builds' Google Benchmark timings taken in alternating rounds of
one job, paired by round, and judged by a paired test and a minimum effect.

    amqbench ab base/amqbench_micro head/amqbench_micro --filter '^xor8/query' --keys 1000000

commands/ab_command.cc runs the binaries and this script judges what they wrote; the script is
the one place of the A/B statistics (compare.py asks `judge` too, for its hook). Two steps:

    ab.py check --a A --b B --rounds R [--alpha A] [--min-effect F] [--out FILE]
    ab.py judge --a A --b B --rounds R --dir DIR [--alpha A] [--min-effect F] [--out FILE]

check refuses settings that cannot give a verdict before any round runs (exit 2, one line on
stderr); judge reads DIR/round_<i>_A.json and DIR/round_<i>_B.json (i = 1..R, one repetition of
every selected benchmark each) and prints the Markdown table.

Why pairs: one run's repetitions share that run's machine state (frequency, the neighbours'
load, the binary's layout), so they are not independent samples and a test that treats them as
such (a U test over two stored runs) false-alarms. Round i runs A then B when i is odd, B then
A when even, so a drift during the job lands on both sides; the pair's ratio b_i / a_i cancels
what the round shared. The rounds' log-ratios are tested against zero with the Wilcoxon
signed-rank test (two-sided; exact up to 20 rounds, tied magnitudes included, by enumerating
the sign patterns; the normal approximation beyond; zeros dropped). A job judges K benchmarks
at once, so each p is adjusted by Holm's step-down (the i-th smallest of K times K - i + 1, kept
non-decreasing, at most 1): --alpha is then the chance that a job of two equal builds calls any
benchmark slower or faster, not the chance for each one (20 same-binary jobs of 5 benchmarks
each, tested one by one at 0.05, alarmed in 2). A benchmark is
  * slower when its adjusted p < --alpha (0.05) and the median of the R ratios B/A is above
    1 + --min-effect (0.05), faster when adjusted p < alpha and it is below 1 / (1 + min-effect)
    (the same distance in log terms), else the same;
  * not judged when it failed (error_occurred) in any run or is missing from one.
With R rounds the smallest two-sided p is 2 / 2^R (every ratio on one side), K times that once
adjusted: check refuses an R where that is not below alpha for the K benchmarks the binaries
list (--benchmarks), where no difference could ever be called.

Exit status: 0 nothing slower, 1 a benchmark slower (faster is reported, not failed), 2 bad
input: one line on stderr. --out FILE writes every round's pair as JSON Lines (benchmark,
round, first, a_ns, b_ns, ratio), written to a temporary file beside it and renamed.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

EXIT_SAME, EXIT_SLOWER, EXIT_BAD_INPUT = 0, 1, 2
SLOWER, FASTER, SAME, NOT_JUDGED = "slower", "faster", "same", "not judged"
VERDICT_RANK = {SLOWER: 0, FASTER: 1, NOT_JUDGED: 2, SAME: 3}
UNITS_NS = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}
MIN_ROUNDS = 5


class BadInput(Exception):
    """Input ab cannot judge: one line on stderr, exit status 2."""


# --- the statistics ---------------------------------------------------------------------------

def smallest_p(rounds: int) -> float:
    """The smallest two-sided p of the exact signed-rank test over `rounds` pairs."""
    return 2.0 / 2.0 ** rounds


@dataclass
class Judgement:
    verdict: str
    median_ratio: float
    min_ratio: float
    max_ratio: float
    p_value: float
    rounds: int


EXACT_MAX_PAIRS = 20  # 2^20 sign patterns: enumerated in a fraction of a second


def signed_rank_p(log_ratios: list[float]) -> float:
    """Two-sided Wilcoxon signed-rank p of the log-ratios against zero. Zeros are dropped (a
    round where both sides timed alike says nothing about the direction). Up to 20 pairs the
    p is exact: every one of the 2^n sign patterns of the ranks (tied magnitudes share their
    mid-rank) is enumerated and p is the share whose rank sum is at least as far from its mean
    as the observed one, which is scipy's exact test where no magnitudes tie and stays exact
    where they do (quantized timings can). Beyond 20, scipy's normal approximation."""
    import numpy as np
    from scipy.stats import rankdata, wilcoxon

    nonzero = np.array([d for d in log_ratios if d != 0.0])
    n = len(nonzero)
    if n == 0:
        return 1.0
    if n > EXACT_MAX_PAIRS:
        return float(wilcoxon(nonzero, alternative="two-sided", method="approx").pvalue)
    ranks = rankdata(np.abs(nonzero))
    mean = ranks.sum() / 2.0
    observed = abs(ranks[nonzero > 0].sum() - mean)
    patterns = (np.arange(2 ** n)[:, None] >> np.arange(n)) & 1  # row k: which ranks are positive
    sums = patterns @ ranks
    return float(np.mean(np.abs(sums - mean) >= observed - 1e-9))


def holm_adjusted(p_values: list[float]) -> list[float]:
    """Holm's step-down adjustment of K p-values, in their order: the i-th smallest (from 1)
    times K - i + 1, made non-decreasing along the sorted order, capped at 1. Rejecting where
    the adjusted p < alpha keeps the chance of any false call among the K at most alpha."""
    k = len(p_values)
    adjusted = [1.0] * k
    running = 0.0
    for rank, index in enumerate(sorted(range(k), key=lambda i: p_values[i])):
        running = max(running, min(1.0, (k - rank) * p_values[index]))
        adjusted[index] = running
    return adjusted


def paired_p(pairs: list[tuple[float, float]]) -> float:
    """The signed-rank p of one benchmark's rounds, before any adjustment."""
    return signed_rank_p([math.log(b / a) for a, b in pairs])


def judge(pairs: list[tuple[float, float]], alpha: float, min_effect: float,
          p_value: float | None = None) -> Judgement:
    """Paired timings (a_i, b_i), one per round, judged: the test and the minimum effect.
    p_value: the benchmark's p adjusted for the job's other benchmarks (default: its own)."""
    ratios = [b / a for a, b in pairs]
    median_ratio = statistics.median(ratios)
    p = paired_p(pairs) if p_value is None else p_value
    if p < alpha and median_ratio > 1.0 + min_effect:
        verdict = SLOWER
    elif p < alpha and median_ratio < 1.0 / (1.0 + min_effect):
        verdict = FASTER
    else:
        verdict = SAME
    return Judgement(verdict, median_ratio, min(ratios), max(ratios), p, len(pairs))


# --- the rounds -------------------------------------------------------------------------------

def read_run(path: Path) -> tuple[dict[str, float], dict[str, str]]:
    """One run's Google Benchmark JSON: benchmark name -> real time in ns, and the benchmarks
    that reported an error -> its message."""
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
        benchmarks = doc["benchmarks"]
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise BadInput(f"{path}: not Google Benchmark JSON ({error})") from error
    times, errors = {}, {}
    for bench in benchmarks:
        if bench.get("run_type", "iteration") != "iteration":
            continue
        name = bench.get("name")
        if bench.get("error_occurred"):
            errors[name] = str(bench.get("error_message", "error"))
        elif isinstance(bench.get("real_time"), (int, float)):
            times[name] = bench["real_time"] * UNITS_NS.get(bench.get("time_unit", "ns"), 1.0)
    return times, errors


@dataclass
class Row:
    benchmark: str
    judgement: Judgement | None = None
    a_median: float | None = None
    b_median: float | None = None
    note: str = ""

    @property
    def verdict(self) -> str:
        return self.judgement.verdict if self.judgement else NOT_JUDGED


@dataclass
class Job:
    rows: list = field(default_factory=list)
    pairs: list = field(default_factory=list)  # the --out lines

    @property
    def exit_status(self) -> int:
        return EXIT_SLOWER if any(r.verdict == SLOWER for r in self.rows) else EXIT_SAME


def first_of(round_number: int) -> str:
    """Which side round `round_number` (from 1) runs first: A in odd rounds, B in even ones."""
    return "A" if round_number % 2 == 1 else "B"


def judge_rounds(directory: Path, rounds: int, alpha: float, min_effect: float) -> Job:
    runs = {}
    for i in range(1, rounds + 1):
        for side in "AB":
            runs[(i, side)] = read_run(directory / f"round_{i}_{side}.json")
    names: dict[str, None] = {}
    for times, errors in runs.values():
        names.update(dict.fromkeys(times))
        names.update(dict.fromkeys(errors))
    if not names:
        raise BadInput("the binaries ran no benchmark (does --filter select any?)")
    job = Job()
    judged = []  # (name, pairs) of the benchmarks every run timed
    for name in names:
        missing = [(i, side) for (i, side), (times, errors) in runs.items()
                   if name not in times and name not in errors]
        failed = [f"{side} in round {i}: {errors[name]}" for (i, side), (_, errors) in runs.items()
                  if name in errors]
        if failed or missing:
            sides_missing = {side for _, side in missing}
            if failed:
                note = f"failed, {failed[0]}"
            elif len(missing) == rounds and len(sides_missing) == 1:
                note = f"{'B' if 'A' in sides_missing else 'A'} only"
            else:
                note = "missing from " + ", ".join(f"{side} in round {i}" for i, side in missing[:2])
            job.rows.append(Row(name, note=note))
            continue
        judged.append((name, [(runs[(i, "A")][0][name], runs[(i, "B")][0][name])
                              for i in range(1, rounds + 1)]))
    adjusted = holm_adjusted([paired_p(pairs) for _, pairs in judged])
    for (name, pairs), p in zip(judged, adjusted):
        judgement = judge(pairs, alpha, min_effect, p)
        job.rows.append(Row(name, judgement, statistics.median(a for a, _ in pairs),
                            statistics.median(b for _, b in pairs)))
        for i, (a, b) in enumerate(pairs, start=1):
            job.pairs.append({"benchmark": name, "round": i, "first": first_of(i),
                              "a_ns": a, "b_ns": b, "ratio": b / a})
    if not any(r.judgement for r in job.rows):
        raise BadInput("no benchmark ran in every round of both A and B: "
                       + "; ".join(f"{r.benchmark}: {r.note}" for r in job.rows[:3]))
    job.rows.sort(key=lambda r: (VERDICT_RANK[r.verdict],
                                 -abs(math.log(r.judgement.median_ratio)) if r.judgement else 0.0, r.benchmark))
    return job


# --- output -----------------------------------------------------------------------------------

def format_ns(value: float | None) -> str:
    return "" if value is None else f"{value:.4g}"


def summary_line(job: Job) -> str:
    def count(verdict):
        return sum(1 for r in job.rows if r.verdict == verdict)

    head = f"SLOWER: {count(SLOWER)} of {len(job.rows)} benchmarks" if count(SLOWER) else "nothing slower"
    parts = [f"{count(v)} {v}" for v in (FASTER, SAME, NOT_JUDGED) if count(v)]
    return f"amqbench ab: {head}" + (f"; {', '.join(parts)}" if parts else "") + "."


def markdown(job: Job, a: str, b: str, rounds: int, alpha: float, min_effect: float) -> str:
    lines = [summary_line(job), "",
             f"A `{a}`, B `{b}`: {rounds} rounds, A then B in odd rounds and B then A in even ones,"
             f" one repetition of every benchmark a run. Verdict: two-sided Wilcoxon signed-rank"
             f" test of the rounds' log(B/A), its p adjusted by Holm's step-down for the"
             f" {sum(1 for r in job.rows if r.judgement)} benchmarks judged, p < {alpha:g}, and a median ratio B/A above"
             f" {1 + min_effect:.3g} (slower) or below {1 / (1 + min_effect):.3g} (faster).", "",
             "| benchmark | A median ns/iteration | B median ns/iteration | B/A median (min–max over rounds) | p (Holm) | verdict |",
             "|---|---|---|---|---|---|"]
    for r in job.rows:
        j = r.judgement
        ratio = f"{j.median_ratio:.3f} ({j.min_ratio:.3f}–{j.max_ratio:.3f})" if j else ""
        p = f"{j.p_value:.2g}" if j else ""
        verdict = r.verdict + (f" ({r.note})" if r.note else "")
        cells = [r.benchmark, format_ns(r.a_median), format_ns(r.b_median), ratio, p, verdict]
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return "\n".join(lines) + "\n"


def write_pairs(path: Path, pairs: list[dict]) -> None:
    """Every round's pair as JSON Lines, through a temporary file in the same directory."""
    directory = path.resolve().parent
    fd, temp = tempfile.mkstemp(prefix=f".{path.name}.", dir=directory)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            for pair in pairs:
                handle.write(json.dumps(pair) + "\n")
        os.replace(temp, path)
    except BaseException:
        if os.path.exists(temp):
            os.remove(temp)
        raise


# --- the command ------------------------------------------------------------------------------

class OneLineParser(argparse.ArgumentParser):
    """A usage error is one line on stderr and exit status 2, as everywhere in amqbench."""

    def error(self, message):
        self.exit(EXIT_BAD_INPUT, f"amqbench ab: {message}\n")


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = OneLineParser(prog="ab.py", description="amqbench ab's judgement (the header says every rule)")
    parser.add_argument("step", choices=("check", "judge"))
    parser.add_argument("--a", required=True, help="binary A (shown in the table)")
    parser.add_argument("--b", required=True, help="binary B")
    parser.add_argument("--rounds", type=int, required=True)
    parser.add_argument("--dir", type=Path, help="judge: the rounds' Google Benchmark JSON files")
    parser.add_argument("--alpha", type=float, default=0.05)
    parser.add_argument("--min-effect", type=float, default=0.05)
    parser.add_argument("--out", type=Path)
    parser.add_argument("--benchmarks", type=int, default=1,
                        help="check: how many benchmarks the job will judge (Holm's K)")
    return parser.parse_args(argv)


def check(args: argparse.Namespace) -> None:
    if args.rounds < MIN_ROUNDS:
        raise BadInput(f"--rounds {args.rounds}: at least {MIN_ROUNDS} rounds are needed")
    if not 0.0 < args.alpha < 1.0:
        raise BadInput(f"--alpha {args.alpha:g}: must be in (0, 1)")
    if not (args.min_effect >= 0.0 and math.isfinite(args.min_effect)):
        raise BadInput(f"--min-effect {args.min_effect:g}: must be a fraction >= 0 (0.05 is 5%)")
    if args.benchmarks < 1:
        raise BadInput(f"--benchmarks {args.benchmarks}: at least 1")
    if args.benchmarks * smallest_p(args.rounds) >= args.alpha:
        raise BadInput(f"--rounds {args.rounds} can never reach p < {args.alpha:g} for"
                       f" {args.benchmarks} benchmark{'s' if args.benchmarks > 1 else ''} (the smallest"
                       f" two-sided p of {args.rounds} pairs is {smallest_p(args.rounds):.3g}, times"
                       f" {args.benchmarks} once adjusted): more rounds, fewer benchmarks or a larger --alpha")
    if args.out is not None:
        for binary in (args.a, args.b):
            if Path(binary).exists() and args.out.exists() and os.path.samefile(args.out, binary):
                raise BadInput(f"--out {args.out} is the binary {binary}: it would be overwritten")
        if not args.out.resolve().parent.is_dir():
            raise BadInput(f"--out {args.out}: no such directory {args.out.resolve().parent}")


def main(argv: list[str] | None = None, out=None) -> int:
    out = out or sys.stdout
    try:
        args = parse_args(sys.argv[1:] if argv is None else argv)
    except SystemExit as stop:
        return int(stop.code or 0)
    try:
        check(args)
        if args.step == "check":
            return EXIT_SAME
        if args.dir is None:
            raise BadInput("judge needs --dir")
        job = judge_rounds(args.dir, args.rounds, args.alpha, args.min_effect)
        if args.out is not None:
            write_pairs(args.out, job.pairs)
    except (BadInput, OSError) as error:
        print(f"amqbench ab: {error}", file=sys.stderr)
        return EXIT_BAD_INPUT
    out.write(markdown(job, args.a, args.b, args.rounds, args.alpha, args.min_effect))
    return job.exit_status


if __name__ == "__main__":
    sys.exit(main())
