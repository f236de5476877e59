"""The experiment layer's public readers of what it stored: runs tables and latency requests.

The analysis layer reads run stores only through this module (a test enforces
it), so the store's internals (:mod:`~throttlelab.experiment.sweeps.run_store`)
can change without touching the analyses.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl

from throttlelab import tables
from throttlelab.errors import InputError
from throttlelab.experiment.sweeps.run_store import RunStore


def is_run_store(path: str | Path) -> bool:
    """Whether ``path`` is one run store (``<experiment>/runs/``) or a folder of them."""
    p = Path(path)
    return p.is_dir() and ((p / "runs").is_dir() or any((c / "runs").is_dir() for c in p.iterdir() if c.is_dir()))


def read_store_runs(path: str | Path) -> pl.DataFrame:
    """The runs of one run store, or of every run store in a folder, as one runs table.

    Raises
    ------
    InputError
        When the folder holds no run store, or no runs.
    """
    path = Path(path)
    stores = [path] if (path / "runs").is_dir() else sorted(p for p in path.iterdir() if (p / "runs").is_dir())
    if not stores:
        raise InputError(path, None, "no run store here", "expected <experiment>/runs/*.json")
    frames = [f for f in (RunStore(p).read_runs() for p in stores) if f.height]
    if not frames:
        raise InputError(path, None, "run store holds no runs")
    return pl.concat(frames, how="diagonal_relaxed")


def read_latency_store(directory: str | Path) -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame]:
    """(runs, requests, stage_timings) of a latency experiment folder (canonical tables)."""
    directory = Path(directory)
    runs = RunStore(directory).read_runs()
    out = []
    for name in ("requests", "stage_timings"):
        files = sorted((directory / name).glob("*.parquet"))
        out.append(tables.conform(pl.concat([pl.read_parquet(f) for f in files], how="diagonal_relaxed"), name)
                   if files else tables.empty(name))
    return runs, out[0], out[1]
