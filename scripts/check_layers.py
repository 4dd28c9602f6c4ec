#!/usr/bin/python3
"""Fails when a source file includes a floor above its own.

    /usr/bin/python3 scripts/check_layers.py [ROOT]

The floors, bottom to top (CMakeLists.txt says what each holds):

    core/                          the contract and its helpers
    filters/ workloads/ traces/    built on core/ only, never on each other
    harness/                       the measurement, on everything below it
    commands/                      the subcommands, on everything

A file may include its own floor and the ones below. Test sources (*_test.cc, *_fuzz.cc) may
include any floor: a test drives its floor through the layers above it (key distributions
through real filters, a reader through the command that uses it). Headers keep to their floor,
test helpers too: a header in filters/ that includes harness/ makes the floors a circle for
every file that includes it.
Exit status 0 when every include keeps to its floor, 1 with one line per breach otherwise.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

# Which folders each floor's files may include.
ALLOWED = {
    "core": {"core"},
    "filters": {"core", "filters"},
    "workloads": {"core", "workloads"},
    "traces": {"core", "traces"},
    "harness": {"core", "filters", "workloads", "traces", "harness"},
    "commands": {"core", "filters", "workloads", "traces", "harness", "commands"},
}
INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.MULTILINE)
TEST_FILE = re.compile(r"(_test\.cc|_fuzz\.cc)$")


def breaches(root: Path) -> list[str]:
    found = []
    for floor, allowed in ALLOWED.items():
        for path in sorted((root / floor).glob("*")):
            if path.suffix not in (".h", ".cc") or TEST_FILE.search(path.name):
                continue
            for number, line in enumerate(path.read_text().splitlines(), 1):
                match = INCLUDE.match(line)
                if not match:
                    continue
                target = match.group(1).split("/")[0]
                if target in ALLOWED and target not in allowed:
                    found.append(
                        f"{path.relative_to(root)}:{number}: {floor}/ includes {match.group(1)}, "
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
