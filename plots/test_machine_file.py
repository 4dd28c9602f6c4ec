"""`amqbench machine`'s result file (plots/fixtures/written/machine.jsonl, written by
`amqbench machine --quick`) against the schema the binary generates: its "machine" lines load,
and the schema holds them to their own fields."""

import json
from pathlib import Path

import pytest

import load

WRITTEN = Path(__file__).resolve().parent / "fixtures" / "written" / "machine.jsonl"
REAL_SCHEMA = Path(__file__).resolve().parent.parent / "results" / "schema.json"


def test_machine_lines_load():
    result = load.read(WRITTEN, schema=REAL_SCHEMA)
    assert result.complete
    assert result.experiment == {"id": "machine", "kind": "machine"}
    frame = result.frame
    assert set(frame["record"]) == {"machine"}
    assert set(frame["test"]) == {"latency", "random_lines", "sequential", "cache_levels"}
    latency = frame[frame["test"] == "latency"]
    assert latency["working_set_bytes"].min() == 4096
    assert (latency["ns_per_load"] > 0).all()
    assert (frame[frame["test"] == "random_lines"]["lines_per_second"] > 0).all()
    assert (frame[frame["test"] == "sequential"]["bytes_per_second"] > 0).all()


def _broken(tmp_path, change):
    lines = WRITTEN.read_text().splitlines()
    record = json.loads(lines[1])
    change(record)
    lines[1] = json.dumps(record)
    path = tmp_path / "broken.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.mark.parametrize("change, message", [
    (lambda r: r.pop("test"), r"line 2: 'test' is a required property"),
    (lambda r: r.update(ns_per_load="fast"), r"line 2: field 'ns_per_load': 'fast' is not of type 'number'"),
    # A filter's field has no place on a machine line, nor is a machine line a cell.
    (lambda r: r.update(bits_per_key=9.6), r"line 2: Additional properties are not allowed"),
])
def test_the_schema_holds_machine_lines_to_their_fields(tmp_path, change, message):
    with pytest.raises(load.ResultFileError, match=message):
        load.load(_broken(tmp_path, change), schema=REAL_SCHEMA)


def test_a_machine_line_is_not_a_cell(tmp_path):
    path = _broken(tmp_path, lambda r: r.update(record="cell"))
    with pytest.raises(load.ResultFileError, match=r"line 2: .*'filter' is a required property"):
        load.load(path, schema=REAL_SCHEMA)
