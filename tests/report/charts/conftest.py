"""Inputs of the chart tests: the published ffmpeg sweep and the thread-sweep fixture, prepared once."""

from __future__ import annotations

from pathlib import Path

import pytest

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "runs" / "thread_sweep.csv"


@pytest.fixture(scope="session")
def published_runs():
    """The published ffmpeg sweep, prepared (``limit_x`` etc.)."""
    from throttlelab.analysis.runs.prepare import prepare_runs
    from throttlelab.analysis.runs.runs_input import load_runs

    return prepare_runs(load_runs("")).runs


@pytest.fixture(scope="session")
def thread_sweep_runs():
    """tests/fixtures/runs/thread_sweep.csv, prepared."""
    from throttlelab.analysis.runs.prepare import prepare_runs
    from throttlelab.analysis.runs.runs_input import load_runs

    return prepare_runs(load_runs(FIXTURE)).runs
