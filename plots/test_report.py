"""Sections, charts and the report end to end, on fixture results (plots/fixtures/README.md)."""

import importlib
import json
import shutil
from pathlib import Path

import pytest

import make_plots
import report
import stats
from result_set import ResultSet, Suite

HERE = Path(__file__).resolve().parent
FIXTURES = HERE / "fixtures"
SCHEMA = FIXTURES / "schema.json"
SUITE = FIXTURES / "suite.toml"
# Every module of sections/ renders a section but the helpers: common (shared by all) and
# dynamic_papers (the fill_step section's comparisons, rendered inside it).
SECTION_MODULES = sorted(p.stem for p in (HERE / "sections").glob("*.py")
                         if p.stem not in ("__init__", "common", "dynamic_papers"))


def results_dir(tmp_path: Path, *names: str) -> Path:
    """A results directory holding the named fixture files (v2 files from fixtures/v2)."""
    out = tmp_path / "results"
    out.mkdir(exist_ok=True)
    for name in names:
        source = FIXTURES / "v2" / name if name.endswith(".jsonl") else FIXTURES / name
        shutil.copy(source, out / name)
    return out


def result_set(directory: Path) -> ResultSet:
    return ResultSet(Suite.read(SUITE), directory, directory.parent, SCHEMA)


def verdict_of(results: ResultSet, claim_start: str) -> str:
    [check] = [c for c in results.checks if c.claim.startswith(claim_start)]
    return check.verdict


@pytest.mark.parametrize("section", SECTION_MODULES)
def test_a_section_without_its_files_renders_nothing(tmp_path, section):
    results = result_set(results_dir(tmp_path))
    assert importlib.import_module(f"sections.{section}").render(results) is None
    assert results.drawn == []


def test_seed_lab_verdict_follows_the_numbers(tmp_path):
    from sections import seed_lab

    directory = results_dir(tmp_path, "seed_lab.json")
    results = result_set(directory)
    text = seed_lab.render(results)
    # 5,000 probes: the interval is wide enough to hold the survey's 2b/2^f = 0.0078.
    assert verdict_of(results, "the AMQ survey's theory 2b/2^f") == stats.REPRODUCED
    assert "| buckets m | 8,192 |" in text

    doc = json.loads((directory / "seed_lab.json").read_text())
    doc["records"][0].update(fpr=0.0071, fpr_ci_low=0.0070, fpr_ci_high=0.0073)  # 10^6 probes' width
    (directory / "seed_lab.json").write_text(json.dumps(doc))
    results = result_set(directory)
    seed_lab.render(results)
    assert verdict_of(results, "the AMQ survey's theory 2b/2^f") == stats.CONTRADICTED
    assert verdict_of(results, "load-aware theory") == stats.REPRODUCED


def test_support_optimality_verdicts_follow_the_numbers(tmp_path):
    from sections import adaptive

    directory = results_dir(tmp_path, "adapt_support.jsonl")
    results = result_set(directory)
    text = adaptive.render(results)
    assert "static, n = 1,000" in text
    assert verdict_of(results, "cuckoo_4x1: a static filter incurs εn") == stats.REPRODUCED
    assert verdict_of(results, "acf_cuckooing, |Q| = 1: the Cuckooing ACF") == stats.REPRODUCED

    # An ACF that pays on every tenth query grows like n, not like log^4 n; a static replay whose
    # interval sits far below εn (14.8 at n = 1,000) does not pay εn.
    path = directory / "adapt_support.jsonl"
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    for line in lines:
        if line.get("queries_per_set") == 1000 and line["filter"] == "acf_cuckooing":
            line["false_positives_mean"] = 100.0
        if line.get("queries_per_set") == 1000 and line["filter"] == "cuckoo_4x1":
            line.update(false_positives_static_mean_ci_low=0.5, false_positives_static_mean_ci_high=1.0)
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    results = result_set(directory)
    adaptive.render(results)
    assert verdict_of(results, "cuckoo_4x1: a static filter incurs εn") == stats.CONTRADICTED
    assert verdict_of(results, "acf_cuckooing, |Q| = 1: the Cuckooing ACF") == stats.CONTRADICTED


def test_cuckooing_against_a_rival_is_judged_from_the_intervals():
    from sections.adaptive import rival_verdict

    mine = {"fpr": 0.010, "fpr_ci_low": 0.008, "fpr_ci_high": 0.012}
    assert rival_verdict(mine, {"fpr": 0.011, "fpr_ci_low": 0.009, "fpr_ci_high": 0.013}) == stats.REPRODUCED
    assert rival_verdict(mine, {"fpr": 0.009, "fpr_ci_low": 0.007, "fpr_ci_high": 0.011}) == stats.PARTLY
    assert rival_verdict(mine, {"fpr": 0.005, "fpr_ci_low": 0.004, "fpr_ci_high": 0.006}) == stats.CONTRADICTED
    assert rival_verdict(mine, {"fpr": None, "fpr_ci_low": None, "fpr_ci_high": None}) == stats.NOT_MEASURED


def test_premise_gap_names_where_each_cuckooing_layout_departs_from_support_optimality():
    import pandas as pd
    from sections.adaptive import premise_gap

    cells = pd.DataFrame({"filter": ["acf_cuckooing", "acf_cuckooing_2x4", "acf_cuckooing_2x4"],
                          "tables": [4, 2, 2], "slots_per_bucket": [1, 4, 4],
                          "load_factor": [0.95, 0.45, 0.45]})
    assert premise_gap(cells, "acf_cuckooing").endswith("differs in k = 4 tables, load 0.95.")
    assert premise_gap(cells, "acf_cuckooing_2x4").endswith("differs in b = 4 slots per bucket.")
    at_premise = cells.assign(tables=2, slots_per_bucket=1)
    assert premise_gap(at_premise, "acf_cuckooing_2x4").endswith(
        "Support Optimality's premise (k = 2, b = 1, load bounded away from 1/2).")


def test_quotient_conclusion_follows_the_numbers(tmp_path):
    from sections import quotient

    directory = results_dir(tmp_path, "quotient_space.json")
    text = quotient.render(result_set(directory))
    assert "The measurements support the Quotient Filter article's formula, not the AMQ survey's." in text

    doc = json.loads((directory / "quotient_space.json").read_text())
    doc["records"][0]["bits_per_key"] *= 1.10  # one row 10% off the article's formula
    (directory / "quotient_space.json").write_text(json.dumps(doc))
    results = result_set(directory)
    text = quotient.render(results)
    assert verdict_of(results, "the Quotient Filter article's") == stats.CONTRADICTED
    assert "support the Quotient Filter article" not in text
    assert "Neither document's formula holds" in text


@pytest.mark.parametrize("old, new, section, fixture", [
    ("adapt_support", "repeated_stream", "adaptive", "adapt_support.jsonl"),
    ("quotient_space", "qf_bits_by_n", "quotient", "quotient_space.json"),
    ("seed_lab", "cuckoo_lab", "seed_lab", "seed_lab.json"),
    ("micro", "bench_portable", "speed", "micro.json"),
])
def test_a_section_finds_an_experiment_renamed_in_the_suite_file(tmp_path, old, new, section, fixture):
    """The suite file alone says which experiments a section shows (their `section`, and where a
    section gives them roles, their kind and parameters): an experiment renamed there, its file
    with it, renders as before, under its new id."""
    module = importlib.import_module(f"sections.{section}")
    (tmp_path / "before").mkdir()
    before = module.render(result_set(results_dir(tmp_path / "before", fixture)))
    assert before is not None
    renamed = tmp_path / "renamed"
    renamed.mkdir()
    directory = results_dir(renamed, fixture)
    (directory / fixture).rename(directory / fixture.replace(old, new))
    suite = renamed / "suite.toml"
    suite.write_text(SUITE.read_text().replace(f'id = "{old}"', f'id = "{new}"'))
    after = module.render(ResultSet(Suite.read(suite), directory, renamed, SCHEMA))
    assert after is not None and after.replace(new, old) == before


def test_sections_tell_the_default_suites_experiments_apart_by_what_they_are():
    from sections import adaptive, cuckoo_load, quotient

    default = Suite.read(HERE.parent / "suites" / "default.toml")

    def roles(section, role):
        return {e.id: role(e) for e in default.experiments if e.section == section}

    assert roles("quotient", quotient.role) == {
        "quotient_space": "space", "quotient_load": "fill", "quotient_tables": "tables",
        "quotient_vs_fastfilter": "fastfilter", "quotient_merge_sizes": "micro"}
    assert roles("adaptive", adaptive.role) == {
        "adapt_grid": "adapt_synthetic", "adapt_grid_s1": "adapt_synthetic", "adapt_grid_premise": "adapt_synthetic",
        "adapt_trace_real": "adapt_trace", "adapt_trace_synth": "adapt_trace",
        "adapt_adversarial": "adapt_adversarial", "adapt_support": "support", "adapt_support_premise": "support",
        "adapt_state_reading": "state_reading"}
    assert roles("cuckoo_load", cuckoo_load.sized_from_fpr) == {
        "cuckoo_load": False, "cuckoo_load_short": True, "cuckoo_load_tables": False, "cuckoo_load_short_tables": True}
    assert roles("cuckoo_load", cuckoo_load.several_tables) == {
        "cuckoo_load": False, "cuckoo_load_short": False, "cuckoo_load_tables": True, "cuckoo_load_short_tables": True}


def test_report_end_to_end_draws_only_the_charts_it_shows(tmp_path):
    directory = results_dir(tmp_path, "seed_lab.json", "space.jsonl", "quotient_space.json",
                            "adapt_trace_synth.jsonl", "micro.json", "suite_run.json")
    out = tmp_path / "REPORT.md"
    assert report.main(["--suite", str(SUITE), "--results", str(directory), "--out", str(out),
                        "--schema", str(SCHEMA)]) == 0
    text = out.read_text()
    for heading in ("## Where these numbers come from", "## Claims checked", "## The AMQ survey's cuckoo lab",
                    "## Bloom, blocked Bloom and cuckoo at 1% and 0.1%", "## Quotient filters",
                    "## Adaptive cuckoo filters", "## Speed (Google Benchmark)", "## Left out"):
        assert heading in text, heading
    assert text.index("## The AMQ survey's") < text.index("## Bloom") < text.index("## Quotient") \
        < text.index("## Adaptive") < text.index("## Speed")
    # Tables say what made them: the v2 file's suite run, the v1 file's command line.
    assert ("Made by `amqbench suite plots/fixtures/suite.toml --quick` (suite `plots/fixtures/suite.toml`,"
            " experiment `space`, --quick).") in text
    assert "Made by `amqbench run --filter cuckoo --keys 30000" in text
    # Only charts of shown experiments: nothing for cuckoo_load (no file) or the unrendered section.
    drawn = sorted(p.name for p in directory.glob("*.png"))
    assert drawn == ["adapt_trace_synth_adapt_windows.png", "micro_speed.png", "space_space.png"]
    assert "](results/space_space.png)" in text
    assert "`cuckoo_load`" in text and "skipped by the run: fixture: deliberately missing" in text
    assert "section `mystery`: no plots/sections/mystery.py" in text
    # From the run's manifest: the last run (--only micro) and the run it kept the others from.
    assert ("- Suite run of `plots/fixtures/suite.toml` (suite fixture, --quick): the last run"
            " (`amqbench suite plots/fixtures/suite.toml --quick --only micro`) ran 1 experiment in 2 s"
            " wall time; 5 more come from an earlier run (commit `0000000`, 2026-01-01T00:00:00Z),"
            " 10 s of experiment time; 12 s of experiment time in all.") in text
    assert "| space | space | `space.jsonl` | v2 | 6 | yes | 4 |" in text


def test_image_links_are_relative_to_the_report(tmp_path):
    directory = results_dir(tmp_path, "space.jsonl")
    out = directory / "REPORT.md"
    assert report.main(["--suite", str(SUITE), "--results", str(directory), "--out", str(out),
                        "--schema", str(SCHEMA)]) == 0
    assert "](space_space.png)" in out.read_text()


def test_make_plots_draws_the_suites_charts_for_one_file(tmp_path, capsys):
    directory = results_dir(tmp_path, "space.jsonl", "seed_lab.json")
    assert make_plots.main(["--suite", str(SUITE), str(directory / "space.jsonl"),
                            str(directory / "seed_lab.json")]) == 0
    assert sorted(p.name for p in directory.glob("*.png")) == ["space_space.png"]
    bad = tmp_path / "bad.json"
    bad.write_text("[]")
    assert make_plots.main(["--suite", str(SUITE), str(bad)]) == 2


def test_churn_theory_is_the_recorded_one_when_present():
    """Since churn_fpr_theory is recorded, the churn section uses the filter's own formula in
    the state churn left it in; older files fall back to the formula evaluated at the scaled load."""
    from sections import churn
    old = {"family": "bloom", "fpr_theory": 0.01, "load_factor": 0.8, "churn_resident": 900,
           "keys_inserted": 1000}
    assert churn.theory_at_churn_load(old) == pytest.approx(0.009)
    assert churn.churn_load(old) == pytest.approx(0.72)
    new = dict(old, churn_fpr_theory=0.0042, churn_load_factor=0.7)
    assert churn.theory_at_churn_load(new) == 0.0042
    assert churn.churn_load(new) == 0.7
    assert churn.theory_at_churn_load(dict(old, churn_fpr_theory=float("nan"))) == pytest.approx(0.009)


def test_cuckoo_threshold_verdicts_follow_the_first_failures(tmp_path):
    """Each layout's first failed insert is judged against its own threshold: b = 2 failing at
    0.89 matches 0.897; b = 4 failing at 0.93 is more than twice the 0.02 tolerance short of
    0.980; b = 8 with no failure up to 0.999 meets "above 0.99"."""
    import pandas as pd
    from sections import cuckoo_load

    frame = pd.DataFrame([
        dict(filter="cuckoo12_b2", slots_per_bucket=2, load_factor=0.88, insert_failures=0, first_failure_load=None),
        dict(filter="cuckoo12_b2", slots_per_bucket=2, load_factor=0.90, insert_failures=3, first_failure_load=0.89),
        dict(filter="cuckoo12", slots_per_bucket=4, load_factor=0.95, insert_failures=9, first_failure_load=0.93),
        dict(filter="cuckoo12_b8", slots_per_bucket=8, load_factor=0.999, insert_failures=0, first_failure_load=None),
    ]).assign(fingerprint_bits=12)
    results = result_set(results_dir(tmp_path))
    lines = cuckoo_load.threshold_checks(results, frame)
    assert len(lines) == 3
    assert verdict_of(results, "b = 2") == stats.REPRODUCED
    assert verdict_of(results, "b = 4") == stats.CONTRADICTED
    assert verdict_of(results, "b = 8") == stats.REPRODUCED
    frame.loc[3, ["insert_failures", "first_failure_load"]] = [2, 0.975]
    results = result_set(results_dir(tmp_path))
    cuckoo_load.threshold_checks(results, frame)
    assert verdict_of(results, "b = 8") == stats.CONTRADICTED


def test_fingerprint_width_verdict_follows_the_first_failures(tmp_path):
    """At b = 4, first failures within 0.01 of each other across widths reproduce "the width no
    longer moves the load"; an 8-bit table failing at 0.90 contradicts it and misses ~95%."""
    import pandas as pd
    from sections import cuckoo_load

    frame = pd.DataFrame([
        dict(filter=f"cuckoo{f}", slots_per_bucket=4, fingerprint_bits=f, buckets=262144, load_factor=0.97,
             insert_failures=5, first_failure_load=load)
        for f, load in ((8, 0.962), (12, 0.964), (16, 0.961))
    ])
    results = result_set(results_dir(tmp_path))
    cuckoo_load.width_checks(results, frame)
    width = ('cuckoo filter paper (Fan, Andersen, Kaminsky, Mitzenmacher, "Cuckoo Filter: Practically Better'
             ' Than Bloom", CoNEXT 2014): once f')
    assert verdict_of(results, width) == stats.REPRODUCED
    assert verdict_of(results, "b = 4 reaches ~95% load, f = 8") == stats.REPRODUCED
    frame.loc[0, "first_failure_load"] = 0.90
    results = result_set(results_dir(tmp_path))
    cuckoo_load.width_checks(results, frame)
    assert verdict_of(results, width) == stats.CONTRADICTED
    assert verdict_of(results, "b = 4 reaches ~95% load, f = 8") == stats.CONTRADICTED


def test_short_fingerprints_are_judged_against_the_long_widths_median(tmp_path):
    """f = 4 failing 0.015 below the f >= 8 median reproduces "short fingerprints lower the load";
    failing within 0.01 of it contradicts it; without short widths it is not measured."""
    import pandas as pd
    from sections import cuckoo_load

    def frame(short_load):
        widths = ((8, 0.962), (12, 0.964), (16, 0.961)) + (((4, short_load),) if short_load else ())
        return pd.DataFrame([
            dict(filter=f"cuckoo{f}", slots_per_bucket=4, fingerprint_bits=f, buckets=262144, load_factor=0.97,
                 insert_failures=5, first_failure_load=load) for f, load in widths])

    short = ('cuckoo filter paper (Fan, Andersen, Kaminsky, Mitzenmacher, "Cuckoo Filter: Practically Better'
             ' Than Bloom", CoNEXT 2014): short')
    for load, expected in ((0.947, stats.REPRODUCED), (0.958, stats.CONTRADICTED), (None, stats.NOT_MEASURED)):
        results = result_set(results_dir(tmp_path))
        cuckoo_load.width_checks(results, frame(load))
        assert verdict_of(results, short) == expected, load


def test_displacement_is_judged_against_its_spread_over_tables(tmp_path):
    """Ten tables scattered around Knuth's finite-table value hold it at every load; the same
    tables shifted 30% up miss it at every load, which chance cannot explain."""
    import pandas as pd
    import theory
    from sections import quotient

    slots, rows = 2 ** 12, []
    for load in (0.5, 0.9, 0.99):
        keys = round(load * slots)
        exact = float(theory.knuth_displacement_finite(slots, keys))
        for table, wobble in enumerate((-0.04, -0.03, -0.02, -0.01, 0.0, 0.0, 0.01, 0.02, 0.03, 0.04)):
            rows.append(dict(filter="quotient", keys=keys, keys_inserted=keys, quotient_bits=12,
                             load_factor=keys / slots, table=table, displacement_mean=exact * (1 + wobble)))
    frame = pd.DataFrame(rows)
    results = result_set(results_dir(tmp_path))
    table_rows, check = quotient.displacement_rows(results, frame)
    assert len(table_rows) == 3 and check.verdict == stats.REPRODUCED
    shifted = frame.assign(displacement_mean=frame["displacement_mean"] * 1.3)
    assert quotient.displacement_rows(results, shifted)[1].verdict == stats.CONTRADICTED


def test_cuckooing_against_a_rival_is_judged_trial_by_trial():
    """The same streams, trial by trial: a Cuckooing ACF below its rival in every trial holds the
    claim even where the rival's mean is close; one above it in every trial contradicts it."""
    import pandas as pd
    from sections.adaptive import paired_rival

    mine = [0.010, 0.012, 0.009, 0.011, 0.010]
    trials = pd.DataFrame(
        [dict(trial=t, filter="acf_cuckooing", fpr=f) for t, f in enumerate(mine)]
        + [dict(trial=t, filter="acf_cyclic", fpr=f + 0.001) for t, f in enumerate(mine)]
        + [dict(trial=t, filter="acf_swapping", fpr=f - 0.002) for t, f in enumerate(mine)])
    assert paired_rival(trials, "acf_cuckooing", "acf_cyclic")[0] == stats.REPRODUCED
    assert paired_rival(trials, "acf_cuckooing", "acf_swapping")[0] == stats.CONTRADICTED
    assert paired_rival(trials, "acf_cuckooing", "acf_cyclic_ranges")[0] == stats.NOT_MEASURED


def test_first_failure_over_tables_gives_its_spread():
    import pandas as pd
    from sections import cuckoo_load

    rows = pd.DataFrame([dict(seed=seed, load_factor=1.0, insert_failures=5, first_failure_load=load)
                         for seed, load in ((2, 0.962), (3, 0.964), (4, 0.963))]
                        + [dict(seed=5, load_factor=0.97, insert_failures=0, first_failure_load=None)])
    mean, text = cuckoo_load.first_failure(rows)
    assert mean == pytest.approx((0.962 + 0.964 + 0.963 + 0.97) / 4)
    assert "over 4 tables" in text and "range 0.9620–0.9700" in text
    assert "1 never failed, counted at the load reached (a lower bound)" in text
    one = rows[rows["seed"] == 2]
    assert cuckoo_load.first_failure(one) == (0.962, "first failed insert at load 0.9620")


def test_provenance_says_whether_the_timed_experiments_ran_on_a_quiet_machine(tmp_path):
    from sections import provenance

    directory = results_dir(tmp_path, "space.jsonl", "micro.json", "suite_run.json")
    manifest = json.loads((directory / "suite_run.json").read_text())
    for entry in manifest["experiments"]:
        entry["others_cpu_cores"] = {"space": 0.012, "micro": 0.01}.get(entry["id"], 0.0)
    (directory / "suite_run.json").write_text(json.dumps(manifest))
    text = provenance.render(result_set(directory))
    assert ("- Quiet machine: while each of the 2 timed experiments ran, other processes used at most"
            " 0.01 cores on average (`space`).") in text
    assert "| space | space | `space.jsonl` | v2 | 6 | yes | 4 | 0.01 |" in text
    # When the experiments started: the driver file's header and Google Benchmark's own date,
    # which is earlier here (its "+00:00" read as UTC).
    assert "- Experiments started between 2026-11-30T13:28:03Z and 2026-11-30T13:31:56Z (UTC)." in text

    for entry in manifest["experiments"]:
        entry["others_cpu_cores"] = {"space": 0.012, "micro": 0.8}.get(entry["id"], 0.0)
    (directory / "suite_run.json").write_text(json.dumps(manifest))
    text = provenance.render(result_set(directory))
    assert "- **Not a quiet machine**: other processes used more than 0.25 cores on average while `micro` (0.80) ran" in text
    assert "Quiet machine:" not in text

    # A manifest from before the suite measured it: no line, a dash in the column.
    for entry in manifest["experiments"]:
        del entry["others_cpu_cores"]
    (directory / "suite_run.json").write_text(json.dumps(manifest))
    text = provenance.render(result_set(directory))
    assert "quiet machine" not in text.lower()
    assert "| space | space | `space.jsonl` | v2 | 6 | yes | 4 | – |" in text
