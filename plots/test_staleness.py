"""A speed verdict from a result file older than a commit that can change speed is flagged;
commits to tests, prose or the report do not count."""

import json
import subprocess
from pathlib import Path

from result_set import ResultSet, Suite


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True).stdout.strip()


def commit_file(repo: Path, path: str, text: str) -> str:
    (repo / path).parent.mkdir(parents=True, exist_ok=True)
    (repo / path).write_text(text)
    git(repo, "add", path)
    git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", f"change {path}")
    return git(repo, "rev-parse", "HEAD")


def results_in(repo: Path, commit: str, dirty: bool = False) -> ResultSet:
    results = repo / "results"
    results.mkdir(exist_ok=True)
    header = {"record": "header", "schema_version": 2, "experiment": "static", "suite": None,
              "context": {"git_commit": commit, "git_dirty": dirty}, "cells": ["a"]}
    cell = {"record": "cell", "cell_id": "a", "seed": 1, "kind": "filters", "experiment": "static", "filter": "xor8"}
    end = {"record": "end", "complete": True, "cells": 1}
    (results / "static.jsonl").write_text("".join(json.dumps(r) + "\n" for r in (header, cell, end)))
    suite = repo / "suite.toml"
    suite.write_text('[[experiment]]\nid = "static"\nkind = "filters"\nsection = "static"\n')
    return ResultSet(Suite.read(suite), results, repo, schema=None)


def test_a_speed_check_from_before_a_filter_change_is_flagged(tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    made = commit_file(repo, "filters/xor.h", "v1")
    assert results_in(repo, made).speed_staleness("static") == ""
    commit_file(repo, "filters/xor_test.cc", "a test")
    commit_file(repo, "filters/xor_test_support.h", "the tests' helpers")  # included by tests alone
    commit_file(repo, "README.md", "prose")
    assert results_in(repo, made).speed_staleness("static") == ""
    changed = commit_file(repo, "filters/xor.h", "v2")
    results = results_in(repo, made)
    stale = results.speed_staleness("static")
    assert stale.startswith(f"stale: `static` comes from {made[:7]}; 1 later commit can change speed")
    assert changed[:7] in stale
    check = results.check("static", "a speed claim", "2.1×", "reproduced", "−10%", speed_of="static")
    assert check.stale == stale and check.prose.endswith(f"⚠ {stale}")
    assert results.check("static", "a space claim", "9.84", "reproduced", "exact").stale == ""


def test_uncommitted_changes_and_unknown_commits_are_flagged(tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    made = commit_file(repo, "core/hashing.h", "v1")
    assert "uncommitted changes" in results_in(repo, made, dirty=True).speed_staleness("static")
    assert "records no commit" in results_in(repo, "").speed_staleness("static")
    gone = "0123456789abcdef0123456789abcdef01234567"
    assert "a commit this repository does not have" in results_in(repo, gone).speed_staleness("static")
