"""Shared test fixtures."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

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
