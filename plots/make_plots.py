#!/usr/bin/python3
"""Draws the charts a suite lists for result files, as PNG beside each file.

    /usr/bin/python3 plots/make_plots.py [--suite suites/default.toml] results/space.jsonl [more ...]

A file's experiment id is its name without the extension; it gets <id>_<chart>.png for each
chart the suite lists for that experiment (none when it lists none). plots/report.py draws the
same charts for the report; this is for looking at one file.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import charts  # noqa: E402
import load  # noqa: E402
from result_set import Suite  # noqa: E402


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--suite", default=str(HERE.parent / "suites" / "default.toml"))
    parser.add_argument("files", nargs="+")
    try:
        args = parser.parse_args(argv)
    except SystemExit:
        return 2
    suite = Suite.read(args.suite)
    for name in args.files:
        path = Path(name)
        experiment = suite.experiment(path.name.split(".")[0])
        try:
            frame = load.load(path)
        except load.ResultFileError as error:
            print(f"make_plots: {error}", file=sys.stderr)
            return 2
        for chart in experiment.charts if experiment else ():
            draw = charts.CHARTS.get(chart)
            if draw is None:
                print(f"make_plots: the suite lists an unknown chart {chart!r}", file=sys.stderr)
                continue
            made = draw(frame, path.parent / f"{experiment.id}_{chart}.png", experiment.title)
            if made:
                print(made)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
