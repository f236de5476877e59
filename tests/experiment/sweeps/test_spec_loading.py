"""Tests of throttlelab.experiment.sweeps.spec_loading: reading specs, errors naming file and key, overrides."""

from __future__ import annotations

from pathlib import Path

import pytest

from throttlelab.errors import SpecError
from throttlelab.experiment.sweeps.plan import Contention
from throttlelab.experiment.sweeps.spec_loading import load_spec, spec_from, spec_from_mapping

from .sweep_specs import BASE

REPO = Path(__file__).resolve().parents[3]


def write(tmp_path: Path, text: str) -> Path:
    p = tmp_path / "spec.yaml"
    p.write_text(text)
    return p


def test_example_specs_load():
    for path in [REPO / "studies" / "local_sweep.yaml", *sorted((REPO / "studies" / "sweeps").glob("*.yaml"))]:
        spec = load_spec(path)
        assert spec.plan(), path
        assert spec.data_root.is_absolute()


def test_load_spec_fields(tmp_path):
    path = write(tmp_path, """
name: ff
backend: kubernetes
kubernetes: {namespace: lab, node_selector: {pool: a}}
workload: {kind: ffmpeg, duration: 3, preset: fast}
limits: {from: 0.25, to: 1, step: 0.25}
threads: [1, 2, auto]
replicates: 3
warmup: 2
cooldown_s: 1.5
seed: 7
timeout_s: 30
period_us: 50000
burst_us: 20000
sampling_interval_s: 0.1
contention: [0, {share: 0.5, workers: 2}]
data_root: raw
""")
    spec = load_spec(path)
    assert spec.backend == "kubernetes"
    assert spec.backend_options == {"namespace": "lab", "node_selector": {"pool": "a"}}
    assert spec.workload.kind == "ffmpeg" and spec.workload.option("duration") == 3
    assert spec.limits == (0.25, 0.5, 0.75, 1.0)
    assert spec.threads == ("1", "2", "auto")
    assert spec.contention == (Contention(), Contention(0.5, 2))
    assert spec.period_us == 50000 and spec.burst_us == 20000 and spec.sampling_interval_s == 0.1
    # relative data_root: against the project root above the file, else the file's folder
    assert spec.data_root == tmp_path / "raw"
    assert load_spec(path, data_root=tmp_path / "x").data_root == tmp_path / "x"
    plan = spec.plan()
    assert len(plan) == 2 + 4 * 3 * 2 * 3
    assert plan[0].backend_options["namespace"] == "lab"
    assert plan[0].quota_us == round(plan[0].limit_cores * 50000) if plan[0].limit_cores else True


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("workload: burner\n", "'name'"),
        ("name: a\nlimits: [0.5, 15OOm]\n", "'limits[1]'"),
        ("name: a\nthreads: [0]\n", "'threads[0]'"),
        ("name: a\nbackend: docker\n", "'backend'"),
        ("name: a\nworkload: {kind: ffmpeg, command: x}\n", "'workload.command'"),
        ("name: a\nworkload: {kind: command}\n", "'workload.command'"),
        ("name: a\nworkload: {kind: command, command: 'x {cores}'}\n", "'workload.command'"),
        ("name: a\nsampling_interval_s: 0.01\n", "'sampling_interval_s'"),
        ("name: a\nreplicates: 0\n", "'replicates'"),
        ("name: a\ncontention: [{share: 2}]\n", "'contention[0]'"),
        ("name: a\nlimts: [1]\n", "'limts'"),
        ("name: a\nperiod_us: 2000000\n", "'period_us'"),
        ("name: a\nkubernetes: 3\nbackend: kubernetes\n", "'kubernetes'"),
    ],
)
def test_spec_errors_name_file_and_key(tmp_path, text, key):
    path = write(tmp_path, text)
    with pytest.raises(SpecError) as info:
        load_spec(path)
    assert str(path) in str(info.value) and key in str(info.value)


def test_bad_yaml_names_line(tmp_path):
    path = write(tmp_path, "name: a\nlimits: [1, 2\n")
    with pytest.raises(SpecError, match=rf"{path}:\d+: not valid YAML"):
        load_spec(path)


def test_missing_file(tmp_path):
    with pytest.raises(SpecError, match="nope.yaml: file not found"):
        load_spec(tmp_path / "nope.yaml")


def test_errors_name_the_line_and_the_allowed_keys(tmp_path):
    path = write(tmp_path, "name: a\nlimits: [1]\nreplicate: 3\n")
    with pytest.raises(SpecError, match=rf"{path}:3: key 'replicate': unknown key \(did you mean 'replicates'\? allowed: ") as info:
        load_spec(path)
    assert "\n" not in str(info.value)
    path = write(tmp_path, "name: a\nlimits:\n  - 1\n  - lots\n")
    with pytest.raises(SpecError, match=rf"{path}:4: key 'limits\[1\]': cannot read 'lots' as CPU cores"):
        load_spec(path)
    path = write(tmp_path, "name: a\norder: shuffled\n")
    with pytest.raises(SpecError, match=rf"{path}:2: key 'order': Input should be 'random' or 'sequential', got 'shuffled'"):
        load_spec(path)


def test_spec_from_overrides_and_roundtrip(tmp_path):
    spec = spec_from_mapping(BASE)
    again = spec_from_mapping(spec.to_mapping())
    assert again == spec
    small = spec_from(spec, limits=[1], replicates=None)
    assert small.limits == (1.0,) and small.replicates == 2
    path = write(tmp_path, "name: z\nlimits: [1]\n")
    assert spec_from(path, threads=[2]).threads == ("2",)
    assert spec_from({"name": "q"}).name == "q"


def test_an_overridden_spec_keeps_the_lines_of_its_file(tmp_path):
    """Overrides (a notebook's parameters) rebuild the spec: a problem in a key from the file still names its
    line, one in an overridden key says it was overridden."""
    path = write(tmp_path, "name: o\ndesign: adaptive\nadaptive: {budget: 4}\nlimits: [1, 2]\nthreads: [1]\n")
    with pytest.raises(SpecError) as err:
        spec_from(path, threads=[1, 2, 4])
    assert str(err.value) == (f"{path}:3: key 'adaptive.budget': must be at least the number of cells (6): "
                              "the initial design runs every cell once")
    with pytest.raises(SpecError) as err:
        spec_from(load_spec(path), limits=[1, "x"])
    assert str(err.value).startswith(f"{path} (overridden): key 'limits[1]': cannot read 'x' as CPU cores")
    spec = spec_from(path, replicates=3)
    assert spec.replicates == 3 and spec.source == path and spec.source_lines[("limits",)] == 4
    assert spec.source_lines[("replicates",)] == f"{path} (overridden)"
