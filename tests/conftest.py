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
        return out, results

    return run


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
