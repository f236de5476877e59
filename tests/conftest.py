"""Shared test fixtures."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from hypothesis import settings

# `make test` draws the same examples every run, so CI cannot fail on a draw nobody has seen;
# `make fuzz` (HYPOTHESIS_PROFILE=fuzz) explores new ones and keeps what fails in .hypothesis/.
settings.register_profile("repeatable", derandomize=True)
settings.register_profile("fuzz", derandomize=False)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "repeatable"))

REPO = Path(__file__).resolve().parents[1]
NOTEBOOKS = REPO / "notebooks"


@pytest.fixture
def run_notebook(tmp_path):
    """Execute ``notebooks/<name>.ipynb`` with papermill; return (output_dir, results).

    ``output_dir`` is always set to a temporary folder; other parameters are
    passed through.  The kernel runs with ``notebooks/`` as its working folder,
    as in JupyterLab.
    """
    import papermill as pm

    def run(name: str, **parameters):
        out = tmp_path / name
        pm.execute_notebook(
            str(NOTEBOOKS / f"{name}.ipynb"),
            str(tmp_path / f"{name}.out.ipynb"),
            parameters={**parameters, "output_dir": str(out)},
            cwd=str(NOTEBOOKS),
            kernel_name="python3",
            progress_bar=False,
        )
        results = json.loads((out / "results.json").read_text())
        assert_answer_first(tmp_path / f"{name}.out.ipynb", out)
        return out, results

    return run


def first_output(nb: dict) -> tuple[int, dict] | None:
    """(index of the cell, the output) of the first output in an executed notebook, or None."""
    for i, cell in enumerate(nb["cells"]):
        if cell.get("outputs"):
            return i, cell["outputs"][0]
    return None


def assert_answer_first(executed: Path, out: Path) -> None:
    """The executed notebook's first output is the answer box, right under the parameters, and it holds the lead
    of ``answer.json`` (the one the index and the CLI show): what JupyterLab shows on its first screen."""
    nb = json.loads(executed.read_text())
    found = first_output(nb)
    assert found, f"{executed.name}: no output"
    i, output = found
    assert (output.get("metadata") or {}).get("throttlelab", {}).get("role") == "answer", \
        f"{executed.name}: the first output is not the answer box: {str(output)[:300]}"
    above = [c for c in nb["cells"][:i] if c["cell_type"] == "code"]
    assert all({"parameters", "injected-parameters"} & set(c["metadata"].get("tags", [])) for c in above), \
        f"{executed.name}: a code cell other than the parameters comes before the answer"
    text = "".join(output["data"]["text/markdown"])
    answer = out / "answer.json"
    if answer.exists():
        lead = json.loads(answer.read_text())["answer"]
        assert f"**Answer.** {lead}" in text, f"{executed.name}: the answer box does not show answer.json's lead"


# A real Prometheus (Debian binary) on a loopback port, serving the six right-sizing scenarios
# (starved, oversized, well-sized, bursty, no limit, restarted) backfilled by promtool; one per test session.
SCENARIO_START = 1_767_225_600.0  # 2026-01-01T00:00:00Z
SCENARIO_HOURS = 72


@pytest.fixture(scope="session")
def prometheus_scenarios(tmp_path_factory):
    """(url, specs by pod, window end) of a local Prometheus holding the scenarios."""
    from throttlelab.experiment.simulation.synthetic_containers import SCENARIO_NODES, scenario_specs
    from throttlelab.experiment.simulation.synthetic_openmetrics import backfill
    from throttlelab.ingest.prometheus.prometheus_local import LocalPrometheus, prometheus_available

    ok, why = prometheus_available()
    if not ok:
        pytest.skip(why)
    root = tmp_path_factory.mktemp("prometheus")
    specs = scenario_specs("shop")
    backfill(specs, root / "tsdb", start=SCENARIO_START, hours=SCENARIO_HOURS, nodes=SCENARIO_NODES)
    prom = LocalPrometheus(root / "tsdb").start()
    try:
        yield prom.url, {s.pod: s for s in specs}, SCENARIO_START + SCENARIO_HOURS * 3600
    finally:
        prom.stop()


# The synthetic cluster (Deployment rolled out twice, StatefulSet, DaemonSet, CronJob of 36 runs, Go service, a bare
# Pod and a one-off Job) over 72 hours at 30-s scrapes, as cAdvisor and kube-state-metrics export it: about 1 M samples.
CLUSTER_HOURS = 72


@pytest.fixture(scope="session")
def cluster_export(tmp_path_factory):
    """(path of the OpenMetrics export, the pods) of the synthetic cluster."""
    from throttlelab.experiment.simulation.cluster_openmetrics import write_cluster
    from throttlelab.experiment.simulation.synthetic_cluster import cluster

    pods = cluster(CLUSTER_HOURS, start=SCENARIO_START)
    path = tmp_path_factory.mktemp("cluster") / "cluster.om"
    write_cluster(path, pods, start=SCENARIO_START, hours=CLUSTER_HOURS, every_s=120)
    return path, pods


@pytest.fixture(scope="session")
def prometheus_cluster(cluster_export, tmp_path_factory):
    """(url, pods, window end) of a local Prometheus holding the synthetic cluster."""
    from throttlelab.ingest.prometheus.prometheus_local import LocalPrometheus, prometheus_available, run_promtool

    ok, why = prometheus_available()
    if not ok:
        pytest.skip(why)
    path, pods = cluster_export
    tsdb = tmp_path_factory.mktemp("cluster-tsdb") / "tsdb"
    run_promtool(path, tsdb)
    prom = LocalPrometheus(tsdb).start()
    try:
        yield prom.url, pods, SCENARIO_START + CLUSTER_HOURS * 3600
    finally:
        prom.stop()
