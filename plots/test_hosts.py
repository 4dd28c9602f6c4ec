"""plots/hosts.py on crafted sides: fixture files with their host, build and timings changed."""

import json
from pathlib import Path

import pytest

import compare
import hosts

HERE = Path(__file__).resolve().parent
FIXTURES = HERE / "fixtures"
SPACE = FIXTURES / "v2" / "space.jsonl"
MACHINE = FIXTURES / "written" / "machine.jsonl"
SURVEY_LAB = FIXTURES / "written" / "seed_lab.jsonl"
MICRO = FIXTURES / "micro.json"
TIMINGS = {name for name, kind in compare.field_classes(hosts.load.DEFAULT_SCHEMA).items() if kind == "timing"}
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def crafted(source: Path, out: Path, scale: float = 1.0, extra_n: int | None = None, **context) -> Path:
    """A copy of a version 2 file with its context changed and every timing times `scale`;
    extra_n adds a copy of each filter cell at that n (a new cell_id), for the n chart."""
    lines = [json.loads(line) for line in source.read_text().splitlines() if line.strip()]
    header, body, end = lines[0], lines[1:-1], lines[-1]
    header["context"].update(context)
    for record in body:
        for name in TIMINGS & record.keys():
            value = record[name]
            record[name] = [v * scale for v in value] if isinstance(value, list) else \
                value * scale if isinstance(value, (int, float)) else value
    if extra_n is not None:
        copies = [dict(r, keys=extra_n, capacity=extra_n, cell_id=f"{int(r['cell_id'], 16) ^ 1:016x}")
                  for r in body if r.get("record") == "cell"]
        body += copies
        header["cells"] += [r["cell_id"] for r in copies]
        end["cells"] = len(header["cells"])
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("\n".join(json.dumps(r) for r in [header, *body, end]) + "\n")
    return out


def crafted_micro(out: Path, scale: float, **context) -> Path:
    doc = json.loads(MICRO.read_text())
    doc["context"].update(context)
    for bench in doc["benchmarks"]:
        bench["ns_per_key"] *= scale
        bench["real_time"] *= scale
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(doc))
    return out


def run(tmp_path, *labels, out_name="out"):
    out = tmp_path / out_name
    argv = [f"--label={label}" for label in labels] + ["--out", str(out)]
    return hosts.main(argv), out


def ratio_rows(markdown: str) -> list[list[str]]:
    """The data rows of the (first) ratio table: the one headed "| filter | operation |"."""
    lines = markdown.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("| filter | operation |")) + 2
    rows = []
    for line in lines[start:]:
        if not line.startswith("| "):
            break
        rows.append([c.strip() for c in line.strip("|").split("|")])
    return rows


def test_a_2x_slowdown_reads_2_in_the_ratio_table(tmp_path, capsys):
    a = crafted(SPACE, tmp_path / "a" / "space.jsonl", host_name="alpha")
    b = crafted(SPACE, tmp_path / "b" / "space.jsonl", scale=2.0, host_name="beta")
    status, out = run(tmp_path, f"A={a}", f"B={b}")
    assert status == 0
    text = (out / "hosts.md").read_text()
    assert capsys.readouterr().out == text
    rows = ratio_rows(text)
    # 3 filters, each with insert and three lookups; two cells each (fpr 1% and 0.1%).
    assert len(rows) == 12
    assert {r[0] for r in rows} == {"bloom", "blocked_bloom", "cuckoo"}
    assert {r[1] for r in rows} == {"insert_ns", "query_ns_positive", "query_ns_negative", "query_ns_mixed"}
    assert all(r[-1] == "2.00 [2.00–2.00]" and r[2] == "2" for r in rows), rows
    assert all(float(r[4]) / float(r[3]) == pytest.approx(2, rel=0.01) for r in rows)
    assert "the median ratio over 12 filter-and-operation rows (24 matched timings) is 2.00" in text
    assert "more than 10% more (above 1.10) in 12" in text


def test_google_benchmark_entries_match_on_their_name(tmp_path):
    a = crafted_micro(tmp_path / "a" / "micro.json", 1.0)
    b = crafted_micro(tmp_path / "b" / "micro.json", 0.5, executable="build-native/amqbench_micro")
    status, out = run(tmp_path, f"portable={a}", f"native={b}")
    assert status == 0
    text = (out / "hosts.md").read_text()
    rows = ratio_rows(text)
    assert [(r[0], r[1]) for r in rows] == [(f, op) for f in ("bloom", "cuckoo12")
                                            for op in ("insert", "query_absent", "query_present")]
    assert all(r[-1] == "0.50" for r in rows)
    assert "# Two builds of one machine: portable vs native" in text
    assert "| executable | `build/amqbench_micro` | `build-native/amqbench_micro` |" in text


@pytest.mark.parametrize("b_context, relation", [
    ({"compiler_flags": " -O3 -DNDEBUG -march=native", "march_native": True}, "two builds of one machine"),
    ({"host_name": "other", "cpu_model": "Intel Xeon"}, "two machines"),
    ({}, "two runs of one build"),
])
def test_the_contexts_say_builds_or_machines(tmp_path, b_context, relation):
    a = crafted(SPACE, tmp_path / "a" / "space.jsonl")
    b = crafted(SPACE, tmp_path / "b" / "space.jsonl", **b_context)
    status, out = run(tmp_path, f"A={a}", f"B={b}")
    assert status == 0
    text = (out / "hosts.md").read_text()
    assert text.startswith(f"# {relation[0].upper()}{relation[1:]}: A vs B\n")
    assert f"Told apart by their contexts: {relation} " in text
    if "host_name" in b_context:
        assert "| host | vm | other |" in text and "| CPU | AMD EPYC | Intel Xeon |" in text
    if "march_native" in b_context:
        assert "| flags | `-O3 -DNDEBUG` | `-O3 -DNDEBUG -march=native` |" in text
        assert "| -march=native | off | on |" in text


def test_machine_records_draw_the_curves(tmp_path):
    a = crafted(SPACE, tmp_path / "a" / "space.jsonl")
    b = crafted(SPACE, tmp_path / "b" / "space.jsonl", host_name="other")
    status, out = run(tmp_path, f"A={a}", f"B={b}", out_name="plain")
    assert status == 0
    assert not (out / "hosts_machine.png").exists()
    assert "No chart of the machine curves: no side has amqbench machine records." in (out / "hosts.md").read_text()

    machine_b = crafted(MACHINE, tmp_path / "b" / "machine.jsonl", scale=1.5, host_name="other")
    status, out = run(tmp_path, f"A={a}", f"A={MACHINE}", f"B={b}", f"B={machine_b}", out_name="machines")
    assert status == 0
    chart = out / "hosts_machine.png"
    assert chart.read_bytes().startswith(PNG_SIGNATURE) and chart.stat().st_size > 10_000
    text = (out / "hosts.md").read_text()
    assert "![the machine curves](hosts_machine.png)" in text
    # The machine points match, but have no filter: drawn, not divided.
    assert "6 cells in common and 44 amqbench machine points" in text
    assert {r[0] for r in ratio_rows(text)} == {"bloom", "blocked_bloom", "cuckoo"}
    assert "| latency plateaus (amqbench machine) | L1 1.16 ns to 48 KiB, L2 4.6 ns to 384 KiB, L3 190 ns |" in text


def test_charts_are_written_and_a_stale_one_removed(tmp_path):
    a = crafted(SPACE, tmp_path / "a" / "space.jsonl", extra_n=20000)
    b = crafted(SPACE, tmp_path / "b" / "space.jsonl", scale=2.0, extra_n=20000, host_name="other")
    status, out = run(tmp_path, f"A={a}", f"B={b}")
    assert status == 0
    for name in ("speed", "n"):
        data = (out / f"hosts_{name}.png").read_bytes()
        assert data.startswith(PNG_SIGNATURE) and len(data) > 10_000, name
    assert "![ns per key against n](hosts_n.png)" in (out / "hosts.md").read_text()
    assert not list(out.glob(".*.tmp"))

    # Again into the same directory, with one n only: the n chart of the first run goes.
    a = crafted(SPACE, tmp_path / "a" / "space.jsonl")
    b = crafted(SPACE, tmp_path / "b" / "space.jsonl", host_name="other")
    assert run(tmp_path, f"A={a}", f"B={b}")[0] == 0
    assert (out / "hosts_speed.png").exists() and not (out / "hosts_n.png").exists()
    assert "No chart of ns per key against n: no filter's matched cells span several n." in (out / "hosts.md").read_text()


def test_three_sides_are_each_divided_by_the_first(tmp_path):
    a = crafted(SPACE, tmp_path / "a" / "space.jsonl", host_name="h1")
    b = crafted(SPACE, tmp_path / "b" / "space.jsonl", scale=2.0, host_name="h2")
    c = crafted(SPACE, tmp_path / "c" / "space.jsonl", scale=0.5, host_name="h3")
    status, out = run(tmp_path, f"A={a}", f"B={b}", f"C={c}")
    assert status == 0
    text = (out / "hosts.md").read_text()
    assert text.startswith("# Three machines: A vs B vs C\n")
    assert "B / A: the median ratio over 12 filter-and-operation rows (24 matched timings) is 2.00" in text
    assert "C / A: the median ratio over 12 filter-and-operation rows (24 matched timings) is 0.50" in text


def bad_input(tmp_path, capsys, *labels) -> str:
    out = tmp_path / "never"
    status = hosts.main([arg for label in labels for arg in ("--label", label)] + ["--out", str(out)])
    err = capsys.readouterr().err
    assert status == 2
    assert err.count("\n") == 1 and err.startswith("hosts.py: "), err
    assert not out.exists()
    return err


def test_no_common_cell_is_bad_input(tmp_path, capsys):
    err = bad_input(tmp_path, capsys, f"A={SPACE}", f"B={SURVEY_LAB}")
    assert "sides A and B have no cell in common" in err


@pytest.mark.parametrize("content, message", [
    ("not json at all\n", "not valid JSON"),
    (None, "no file or directory of that name follows an '='"),
    ('{"schema_version": 1, "context": {}, "complete": true, "records": []}', "schema version 1 has no cell_id"),
])
def test_an_unreadable_file_is_bad_input(tmp_path, capsys, content, message):
    path = tmp_path / "b.json"
    if content is not None:
        path.write_text(content)
    assert message in bad_input(tmp_path, capsys, f"A={SPACE}", f"B={path}")


def test_an_incomplete_file_is_bad_input(tmp_path, capsys):
    b = tmp_path / "b.jsonl"
    b.write_text("".join(SPACE.read_text().splitlines(keepends=True)[:-1]))  # no end line
    assert "incomplete" in bad_input(tmp_path, capsys, f"A={SPACE}", f"B={b}")


@pytest.mark.parametrize("labels, message", [
    ((f"A={SPACE}",), "1 side given: two or more --label NAME=PATH"),
    ((f"A={SPACE}", f"A={SPACE}"), "1 side given"),
    ((f"A={SPACE}", str(SPACE)), "expected NAME=PATH"),
])
def test_labels_must_name_two_sides(tmp_path, capsys, labels, message):
    assert message in bad_input(tmp_path, capsys, *labels)


def test_a_name_may_hold_an_equals_sign(tmp_path):
    odd = tmp_path / "x=y.jsonl"
    odd.write_text(SPACE.read_text())
    assert hosts.parse_labels([f"portable={SPACE}", f"-march=native={odd}", f"-march=native={SPACE}"]) == [
        ("portable", [SPACE]), ("-march=native", [odd, SPACE])]
    status, out = run(tmp_path, f"portable={SPACE}", f"-march=native={SPACE}")
    assert status == 0 and "vs -march=native" in (out / "hosts.md").read_text()


# --- the report's section (plots/sections/hosts.py) -------------------------------------------

SECTION_SUITE = """
[suite]
name = "hosts"

[[experiment]]
id = "micro"
kind = "micro"
title = "portable micro-benchmarks"
section = "speed"
build = "portable"
charts = []

[[experiment]]
id = "micro_native"
kind = "micro"
title = "-march=native micro-benchmarks"
section = "hosts"
build = "native"
charts = []
"""


def section_results(tmp_path, native_scale: float | None):
    from result_set import ResultSet, Suite

    directory = tmp_path / "results"
    directory.mkdir()
    (directory / "micro.json").write_text(MICRO.read_text())
    if native_scale is not None:
        crafted_micro(directory / "micro_native.json", native_scale, executable="build-native/amqbench_micro")
    suite = tmp_path / "suite.toml"
    suite.write_text(SECTION_SUITE)
    return ResultSet(Suite.read(suite), directory, tmp_path, FIXTURES / "schema.json")


@pytest.mark.parametrize("scale, counts", [(0.5, "in 6, more than 10% more (above 1.10) in 0"),
                                           (2.0, "in 0, more than 10% more (above 1.10) in 6")])
def test_the_section_shows_two_builds_with_a_computed_sentence(tmp_path, scale, counts):
    from sections import hosts as section

    results = section_results(tmp_path, scale)
    text = section.render(results)
    assert text.startswith("## Two builds of one machine: portable vs -march=native\n")
    assert (f"-march=native / portable: the median ratio over 6 filter-and-operation rows (6 matched timings)"
            f" is {scale:.2f}; -march=native takes more than 10% less time (ratio below 0.90) {counts}") in text
    assert [r[-1] for r in ratio_rows(text)] == [f"{scale:.2f}"] * 6
    assert "![Two builds of one machine: portable vs -march=native: speed per filter](results/hosts_speed.png)" in text
    assert results.drawn == [tmp_path / "results" / "hosts_speed.png"]
    assert results.drawn[0].read_bytes().startswith(PNG_SIGNATURE)


def test_the_section_needs_two_micro_files(tmp_path):
    from sections import hosts as section

    results = section_results(tmp_path, None)
    assert section.render(results) is None
    assert results.drawn == []


def test_the_report_renders_the_section_the_suite_names(tmp_path):
    import report
    from result_set import Suite

    text = report.build_report(section_results(tmp_path, 0.5))
    assert "\n## Two builds of one machine: portable vs -march=native\n" in text
    default = Suite.read(HERE.parent / "suites" / "default.toml")
    assert "hosts" in default.sections()
    assert [(e.id, e.build) for e in default.experiments
            if e.kind == "micro" and len(e.keys) <= 1 and e.section in ("speed", "hosts")] == [
        ("micro", "portable"), ("micro_native", "native")]


def test_the_speed_chart_spans_each_sides_min_to_max(tmp_path):
    a = hosts.read_side("A", [SPACE], hosts.load.DEFAULT_SCHEMA, False)
    b = hosts.read_side("B", [crafted(SPACE, tmp_path / "b.jsonl", scale=3.0)], hosts.load.DEFAULT_SCHEMA, False)
    points = hosts.side_points([hosts.pair(a, b)])
    bloom = json.loads(SPACE.read_text().splitlines()[1])  # the first cell: bloom at 1%
    assert bloom["filter"] == "bloom"
    row = points[(points["key"].str.contains(bloom["cell_id"])) & (points["operation"] == "insert_ns")]
    assert sorted(zip(row["side"], row["ns_min"], row["ns_max"])) == [
        ("A", pytest.approx(bloom["insert_ns_min"]), pytest.approx(bloom["insert_ns_max"])),
        ("B", pytest.approx(3 * bloom["insert_ns_min"]), pytest.approx(3 * bloom["insert_ns_max"]))]
