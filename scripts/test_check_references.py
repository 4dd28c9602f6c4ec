"""The reference check names every comment or document that points at a file the repository
does not hold, and nothing else."""

import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import check_references  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
# References known to dangle and left for a reason: (file name, reference). None today.
PENDING: set[tuple[str, str]] = set()


def write(root: Path, name: str, text: str) -> None:
    path = root / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def pending(line: str) -> bool:
    where, token = line.split(": ")[:2]
    return (Path(where.rsplit(":", 1)[0]).name, token) in PENDING


def test_the_tree_names_only_its_own_files():
    assert [line for line in check_references.dangling(ROOT) if not pending(line)] == []


def test_a_missing_file_is_named_with_its_line(tmp_path):
    write(tmp_path, "core/filter.h", "#pragma once\n// The selectors (harness/filter_select.h).\n")
    write(tmp_path, "harness/suite.cc", "// reads suites\n")
    assert check_references.dangling(tmp_path) == [
        "core/filter.h:2: harness/filter_select.h: no such file or folder in the repository"]


def test_files_folders_programs_and_other_projects_paths_pass(tmp_path):
    write(tmp_path, "fuzz/make_seeds.cc", "int main() {}\n")
    write(tmp_path, "plots/sections/common.py", "")
    write(tmp_path, "README.md", "\n".join([
        "See fuzz/make_seeds.cc, the program fuzz/make_seeds, plots/sections/ and `plots/sections/common.py`.",
        "Patterns: plots/sections/<id>.py, plots/sections/{name}.py, plots/*.png, results/$id.jsonl.",
        "LevelDB's util/hash.cc, FastFilter's benchmarks/filterapi.h, /usr/bin/python3, /tmp/x.",
        "https://github.com/efficient/cuckoofilter/blob/master/README.md and github.com/x/plots/y.",
    ]) + "\n")
    assert check_references.dangling(tmp_path) == []


def test_a_path_beside_the_file_resolves_from_its_folder(tmp_path):
    write(tmp_path, "plots/sections/common.py", "")
    write(tmp_path, "plots/report.py", '"""Renders sections/common.py and sections/absent.py."""\n')
    assert check_references.dangling(tmp_path) == [
        "plots/report.py:1: sections/absent.py: no such file or folder in the repository"]


def test_leaving_the_repository_and_outside_documents_are_named(tmp_path):
    write(tmp_path, "README.md", "Run ../shared/tools/side.sh; see NOTES.md §2 and README.md.\n")
    assert check_references.dangling(tmp_path) == [
        "README.md:1: ../shared/tools/side.sh: outside the repository",
        "README.md:1: NOTES.md: no file of that name in the repository"]


def test_in_tests_only_comments_and_docstrings_are_read(tmp_path):
    write(tmp_path, "plots/sections/common.py", "")
    write(tmp_path, "plots/test_x.py", '"""Reads plots/gone.py."""\n\n'
          'def test_it(tmp_path):\n    write(tmp_path, "plots/sections/mystery.py")  # plots/also_gone.py\n')
    write(tmp_path, "filters/x_test.cc", '// filters/gone.h\nconst char* p = "filters/made_up.h";\n')
    assert check_references.dangling(tmp_path) == [
        "filters/x_test.cc:1: filters/gone.h: no such file or folder in the repository",
        "plots/test_x.py:1: plots/gone.py: no such file or folder in the repository",
        "plots/test_x.py:4: plots/also_gone.py: no such file or folder in the repository"]


def test_generated_paths_that_gitignore_keeps_pass(tmp_path):
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    write(tmp_path, ".gitignore", "/build*/\n/results/quick/\n")
    write(tmp_path, "results/README.md", "")
    write(tmp_path, "run_all.sh", "# writes results/quick/ and results/quick/space.jsonl, not results/slow/\n")
    subprocess.run(["git", "-C", str(tmp_path), "add", "."], check=True)
    assert check_references.dangling(tmp_path) == [
        "run_all.sh:1: results/slow/: no such file or folder in the repository"]
