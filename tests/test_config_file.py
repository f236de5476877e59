"""Tests of throttlelab.config_file: YAML with key lines, pydantic validation as one SpecError line."""

from __future__ import annotations

import pytest
from pydantic import Field

from throttlelab.config_file import (ConfigModel, SimpleName, dotted, load_config, read_yaml, reference_markdown,
                                     validate, where)
from throttlelab.errors import SpecError


class Run(ConfigModel):
    """One run of the example study."""

    name: SimpleName
    repeats: int = Field(3, description="how many times")


class Study(ConfigModel):
    """The example study file."""

    title: str
    runs: list[Run] = Field(default_factory=list, description="the runs")


def write(tmp_path, text):
    path = tmp_path / "study.yaml"
    path.write_text(text)
    return path


def test_read_yaml_gives_the_line_of_every_key(tmp_path):
    path = write(tmp_path, "title: x\nruns:\n  - name: a\n  - name: b\n    repeats: 5\n")
    doc, lines = read_yaml(path)
    assert doc["runs"][1]["repeats"] == 5
    assert lines[("title",)] == 1
    assert lines[("runs", 1)] == 4
    assert lines[("runs", 1, "repeats")] == 5


def test_missing_file_and_bad_yaml_are_one_line_errors(tmp_path):
    with pytest.raises(SpecError, match=r"nope\.yaml: file not found"):
        read_yaml(tmp_path / "nope.yaml")
    path = write(tmp_path, "title: x\nruns: [a, b\n")
    with pytest.raises(SpecError, match=r"study\.yaml:\d+: not valid YAML"):
        read_yaml(path)


def test_dotted_and_where():
    assert dotted(("runs", 0, "name")) == "runs[0].name"
    lines = {("runs",): 2, ("runs", 0): 3}
    assert where("s.yaml", lines, ("runs", 0, "name")) == "s.yaml:3"  # nearest enclosing key with a line
    assert where("s.yaml", {}, ("runs",)) == "s.yaml"
    assert where(None, None, ()) == "<config>"


def test_unknown_key_names_file_line_and_allowed_keys(tmp_path):
    path = write(tmp_path, "title: x\nruns:\n  - name: a\n    repeat: 5\n")
    with pytest.raises(SpecError) as err:
        load_config(path, Study)
    assert str(err.value) == f"{path}:4: key 'runs[0].repeat': unknown key (did you mean 'repeats'? allowed: name, repeats)"


def test_missing_and_bad_values(tmp_path):
    with pytest.raises(SpecError, match=r"key 'title': required"):
        load_config(write(tmp_path, "runs: []\n"), Study)
    with pytest.raises(SpecError, match=r":3: key 'runs\[0\]\.name': must be a simple name"):
        load_config(write(tmp_path, "title: x\nruns:\n  - name: a/b\n"), Study)
    with pytest.raises(SpecError, match=r"expected a mapping of keys \(title, runs\), got empty"):
        validate(Study, None, source="s.yaml")


def test_valid_file_gives_a_frozen_model(tmp_path):
    study, _ = load_config(write(tmp_path, "title: x\nruns:\n  - name: a-1\n"), Study)
    assert study.runs[0].name == "a-1" and study.runs[0].repeats == 3
    with pytest.raises(Exception):
        study.title = "y"


def test_reference_markdown_lists_nested_models():
    md = reference_markdown(Study)
    assert "#### `Study`" in md and "#### `Run`" in md
    assert "| `repeats` | int | `3` | how many times |" in md
    assert "| `title` | str | required |" in md
