from pathlib import Path

import pytest

from throttlelab.errors import SpecError
from throttlelab.report.study import load_study

REPO = Path(__file__).resolve().parents[2]
FIXTURE = REPO / "tests" / "fixtures" / "notebooks" / "study.yaml"


def test_fixture_study_parses():
    study = load_study(FIXTURE)
    assert study.name == "fixture"
    assert [r.name for r in study.runs] == ["good", "bad", "needs-nothing-known"]
    assert study.root == REPO
    assert study.runs[1].parameters == {"fail": True}
    assert study.runs[2].requires == ("no_such_thing",)


@pytest.mark.parametrize(
    "text, needle",
    [
        ("name: x\n", "key 'runs': must be a non-empty list"),
        ("name: x\nruns: [{name: a, notebook: nope.ipynb}]\n", "not found"),
        ("name: 'a b'\nruns: []\n", ":1: key 'name': must be a simple name"),
        ("name: x\nruns:\n  - name: a\n    notebook: nb.ipynb\n    parameter: {n: 1}\n",
         ":5: key 'runs[0].parameter': unknown key (allowed: name, notebook, parameters, requires, title)"),
        ("name: x\nrun: []\n", ":2: key 'run': unknown key (allowed: description, include, name, runs, title)"),
        ("runs: [{name: a, notebook: nb.ipynb, parameters: {output_dir: x}}]\n", "set by the runner"),
        ("runs:\n  - {name: a\n", "not valid YAML"),
    ],
)
def test_bad_study_names_file_and_key(tmp_path, text, needle):
    (tmp_path / "nb.ipynb").write_text((FIXTURE.parent / "fixture_charts.ipynb").read_text())
    path = tmp_path / "study.yaml"
    path.write_text(text)
    with pytest.raises(SpecError) as err:
        load_study(path)
    assert needle in str(err.value)
    assert str(path) in str(err.value)


def test_select_unknown_run():
    with pytest.raises(SpecError, match="no run named zzz"):
        load_study(FIXTURE).select(["zzz"])


def test_default_study_parses():
    study = load_study(REPO / "studies" / "default.yaml")
    assert study.runs, "the default study runs notebooks"


def test_study_paths_become_absolute(tmp_path):
    from throttlelab.report.study_runner import resolve_parameters

    (tmp_path / "data").mkdir()
    (tmp_path / "spec.yaml").write_text("x: 1\n")
    out = resolve_parameters(
        {"spec": "spec.yaml", "later": "data/raw/not_yet", "word": "auto", "n": 3, "empty": ""}, tmp_path
    )
    assert out["spec"] == str(tmp_path / "spec.yaml")
    assert out["later"] == str(tmp_path / "data" / "raw" / "not_yet")
    assert out["word"] == "auto" and out["n"] == 3 and out["empty"] == ""
