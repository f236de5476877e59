from pathlib import Path

import pytest

from throttlelab.errors import SpecError
from throttlelab.report.study.study_file import load_study

REPO = Path(__file__).resolve().parents[3]
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
         ":5: key 'runs[0].parameter': unknown key (did you mean 'parameters'? allowed: name, notebook, parameters, requires, section, title)"),
        ("name: x\nrun: []\n", ":2: key 'run': unknown key (did you mean 'runs'? allowed: description, include, name, runs, section, title)"),
        ("runs: [{name: a, notebook: nb.ipynb, parameters: {output_dir: x}}]\n", "set by the runner"),
        ("runs:\n  - {name: a\n", "not valid YAML"),
        ("section: mine\nruns: [{name: a, notebook: nb.ipynb}]\n", ":1: key 'section'"),
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


def test_every_run_has_its_index_section():
    """The published write-ups and the bundled sample are examples; local and Kubernetes sweeps the reader's runs;
    a live Prometheus the reader's cluster."""
    default = {r.name: r.section for r in load_study(REPO / "studies" / "default.yaml").runs}
    published = {r.name for r in load_study(REPO / "studies" / "published.yaml").runs}
    assert {default[n] for n in published} == {"examples"} and default["recommend"] == "examples"
    assert {s for n, s in default.items() if n.startswith("local-")} == {"runs"}
    for name in ("node", "services", "latency", "latency_node"):
        assert {r.section for r in load_study(REPO / "studies" / f"{name}.yaml").runs} == {"runs"}, name
    [cluster] = load_study(REPO / "studies" / "cluster.yaml").runs
    assert cluster.section == "cluster" and cluster.requires == ("prometheus",)
    assert cluster.parameters == {"namespace": ""}, "every namespace of the reader's cluster"


def test_a_run_section_wins_over_its_study_and_survives_command_line_parameters(tmp_path):
    from throttlelab.report.study.study_file import with_parameters

    (tmp_path / "nb.ipynb").write_text((FIXTURE.parent / "fixture_charts.ipynb").read_text())
    (tmp_path / "s.yaml").write_text("section: cluster\nruns:\n  - {name: a, notebook: nb.ipynb}\n"
                                     "  - {name: b, notebook: nb.ipynb, section: examples}\n")
    study = load_study(tmp_path / "s.yaml")
    assert [r.section for r in study.runs] == ["cluster", "examples"]
    assert [r.section for r in with_parameters(study, {"fail": True}).runs] == ["cluster", "examples"]


def test_study_paths_become_absolute(tmp_path):
    from throttlelab.report.study.study_runner import resolve_parameters

    (tmp_path / "data").mkdir()
    (tmp_path / "spec.yaml").write_text("x: 1\n")
    out = resolve_parameters(
        {"spec": "spec.yaml", "later": "data/raw/not_yet", "word": "auto", "n": 3, "empty": ""}, tmp_path
    )
    assert out["spec"] == str(tmp_path / "spec.yaml")
    assert out["later"] == str(tmp_path / "data" / "raw" / "not_yet")
    assert out["word"] == "auto" and out["n"] == 3 and out["empty"] == ""


def _study(tmp_path, text):
    (tmp_path / "nb.ipynb").write_text((FIXTURE.parent / "fixture_charts.ipynb").read_text())
    path = tmp_path / "study.yaml"
    path.write_text(text)
    return path


def test_unknown_study_key_names_file_line_and_suggests(tmp_path):
    path = _study(tmp_path, "name: x\ntitel: oops\nruns: [{name: a, notebook: nb.ipynb}]\n")
    with pytest.raises(SpecError) as err:
        load_study(path)
    assert str(err.value).startswith(f"{path}:2: key 'titel': unknown key")
    assert "did you mean 'title'" in str(err.value)


def test_unknown_run_key_names_its_line(tmp_path):
    path = _study(tmp_path, "name: x\nruns:\n  - name: a\n    notebook: nb.ipynb\n    paramters: {fail: true}\n")
    with pytest.raises(SpecError) as err:
        load_study(path)
    assert str(err.value).startswith(f"{path}:5: key 'runs[0].paramters': unknown key (did you mean 'parameters'?")


def test_unknown_notebook_parameter_lists_the_notebooks_parameters(tmp_path):
    from throttlelab.report.study.study_file import notebook_parameters

    path = _study(tmp_path, "name: x\nruns:\n  - name: a\n    notebook: nb.ipynb\n    parameters:\n      fail: true\n"
                            "      fial: 1\n")
    with pytest.raises(SpecError) as err:
        load_study(path)
    msg = str(err.value)
    assert msg.startswith(f"{path}:7: key 'runs[0].parameters.fial': nb.ipynb has no parameter 'fial'")
    assert "did you mean 'fail'" in msg
    for name in notebook_parameters(tmp_path / "nb.ipynb"):
        if name != "output_dir":
            assert f"{name}=" in msg


def test_command_line_parameter_is_checked_against_every_run():
    from throttlelab.report.study.study_file import with_parameters

    study = load_study(FIXTURE)
    assert with_parameters(study, {"fail": False}).runs[1].parameters == {"fail": False}
    with pytest.raises(SpecError, match=r"command line: -p no_such .*has no parameter 'no_such'; its parameters: "):
        with_parameters(study, {"no_such": 1})


@pytest.mark.parametrize("command", ["check", "index"])
def test_commands_on_a_missing_folder_exit_non_zero_with_one_line(command, tmp_path, capsys):
    from throttlelab.cli import main

    missing = tmp_path / "nope"
    assert main([command, str(missing)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and str(missing) in err and "not found" in err
    assert not missing.exists(), "a missing folder is not created"
    empty = tmp_path / "empty"
    empty.mkdir()
    assert main([command, str(empty)]) == 2
    assert str(empty) in capsys.readouterr().err


def test_run_with_unknown_parameter_on_the_command_line_is_an_error(capsys):
    from throttlelab.cli import main

    assert main(["run", str(FIXTURE), "-p", "nope", "1"]) == 2
    assert "has no parameter 'nope'" in capsys.readouterr().err
