#!/usr/bin/python3
"""Fails when a source file includes a floor above its own.

    /usr/bin/python3 scripts/check_layers.py [ROOT]

The floors, bottom to top (CMakeLists.txt says what each holds):

    core/                          the contract and its helpers
    filters/ workloads/ traces/    built on core/ only, never on each other
    harness/                       the measurement, on everything below it, in rooms by job:
      harness/cell/                  one measured cell: kernels, registry, counters, memory
      harness/micro_bench/           the amqbench_micro program (on cell/ only; nothing includes it)
      harness/run/                   running and writing: runner, writer, schema, context, kinds' declarations
      harness/machine/               the machine's own measurement
      harness/kinds/                 the experiment kinds, one file each, and their list
      harness/suite/                 suite files, read through the kinds' declarations
    commands/                      the subcommands, on everything

A file may include its own floor and the ones below. Test sources (*_test.cc, *_fuzz.cc) may
include any floor: a test drives its floor through the layers above it (key distributions
through real filters, a reader through the command that uses it). Headers keep to their floor,
test helpers too: a header in filters/ that includes harness/ makes the floors a circle for
every file that includes it. Every harness source lives in one of its rooms.
Exit status 0 when every include keeps to its floor, 1 with one line per breach otherwise.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

BELOW_HARNESS = {"core", "filters", "workloads", "traces"}
# Which floors each floor's files may include.
ALLOWED = {
    "core": {"core"},
    "filters": {"core", "filters"},
    "workloads": {"core", "workloads"},
    "traces": {"core", "traces"},
    "harness/cell": BELOW_HARNESS | {"harness/cell"},
    "harness/micro_bench": BELOW_HARNESS | {"harness/cell", "harness/micro_bench"},
    "harness/run": BELOW_HARNESS | {"harness/cell", "harness/run"},
    "harness/machine": BELOW_HARNESS | {"harness/cell", "harness/run", "harness/machine"},
    "harness/kinds": BELOW_HARNESS | {"harness/cell", "harness/run", "harness/machine", "harness/kinds"},
    "harness/suite": BELOW_HARNESS
    | {"harness/cell", "harness/run", "harness/machine", "harness/kinds", "harness/suite"},
}
ALLOWED["commands"] = set(ALLOWED) - {"harness/micro_bench"} | {"commands"}
INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.MULTILINE)
TEST_FILE = re.compile(r"(_test\.cc|_fuzz\.cc)$")


def floor_of(path: str) -> str | None:
    """The floor a path ("harness/run/runner.h") belongs to: its longest floor prefix."""
    parts = path.split("/")
    for depth in (2, 1):
        name = "/".join(parts[:depth])
        if len(parts) > depth and name in ALLOWED:
            return name
    return None


def breaches(root: Path) -> list[str]:
    found = []
    tops = sorted({floor.split("/")[0] for floor in ALLOWED})
    for path in sorted(p for top in tops for p in (root / top).rglob("*")):
        if path.suffix not in (".h", ".cc") or TEST_FILE.search(path.name):
            continue
        relative = path.relative_to(root).as_posix()
        floor = floor_of(relative)
        if floor is None:
            if relative.startswith("harness/"):
                found.append(f"{relative}: harness/ sources live in its rooms "
                             f"({', '.join(f for f in ALLOWED if f.startswith('harness/'))})")
            continue
        allowed = ALLOWED[floor]
        for number, line in enumerate(path.read_text().splitlines(), 1):
            match = INCLUDE.match(line)
            if not match:
                continue
            target = floor_of(match.group(1))
            if target is None and match.group(1).startswith("harness/"):
                target = "harness"  # a file directly in harness/: no room, so never allowed
            if target is not None and target not in allowed:
                found.append(
                    f"{relative}:{number}: {floor}/ includes {match.group(1)}, "
                    f"a floor above it (allowed: {', '.join(sorted(allowed))})"
                )
    return found


def main(argv: list[str]) -> int:
    root = Path(argv[1] if len(argv) > 1 else Path(__file__).resolve().parent.parent)
    problems = breaches(root)
    for line in problems:
        print(line, file=sys.stderr)
    if not problems:
        print(f"layering: every include in {', '.join(ALLOWED)} keeps to its floor")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
