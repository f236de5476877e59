"""Read the runs table a notebook analyses: published data, a file, or a run store.

``runs_path`` (a notebook parameter) may be:

* ``""``: the bundled published ffmpeg sweep (:func:`~throttlelab.ingest.published.published.load_ffmpeg_sweep`);
* ``"published:automaxprocs"``: a bundled published runs table by its short name;
* a ``.csv`` in the published-table layout (columns ``limit``, ``threads`` and
  metrics; :mod:`throttlelab.ingest.published.published_runs`);
* a ``.parquet`` or ``.csv`` file holding a canonical runs table;
* a run-store folder ``data/raw/<experiment>/`` written by a sweep
  (:class:`throttlelab.experiment.sweeps.run_store.RunStore`), or a folder holding
  several experiments (every sub-folder with a ``runs/`` folder is read).
"""

from __future__ import annotations

from pathlib import Path

import polars as pl

from throttlelab import tables
from throttlelab.errors import InputError
from throttlelab.experiment.stores import read_store_runs


def load_runs(runs_path: str | Path = "") -> pl.DataFrame:
    """A canonical runs table from ``runs_path`` (see module doc)."""
    if not str(runs_path):
        from throttlelab.ingest.published import load_ffmpeg_sweep

        return load_ffmpeg_sweep()
    if str(runs_path).startswith("published:"):
        from throttlelab.ingest.published import published_path
        from throttlelab.ingest.published import read_published_runs

        name = str(runs_path).split(":", 1)[1]
        if name == "ffmpeg":
            return load_runs("")
        try:
            return read_published_runs(published_path(name))
        except KeyError as exc:
            raise InputError(runs_path, None, "unknown published runs table", str(exc.args[0])) from None
    path = Path(runs_path)
    if not path.exists():
        raise InputError(path, None, "runs table not found", "expected a .parquet/.csv runs table or a run-store folder")
    if path.is_dir():
        return read_store_runs(path)
    if path.suffix == ".parquet":
        df = pl.read_parquet(path)
    elif path.suffix == ".csv" and _published_layout(path):
        from throttlelab.ingest.published import read_published_runs

        return read_published_runs(path)
    elif path.suffix == ".csv":
        df = pl.read_csv(path, infer_schema_length=10000)
        if "threads" in df.columns:
            df = df.with_columns(pl.col("threads").cast(pl.String))
        if "started_at" in df.columns and df.schema["started_at"] == pl.String:
            df = df.with_columns(pl.col("started_at").str.to_datetime(time_zone="UTC", strict=False))
    else:
        raise InputError(path, None, "unknown runs table format", "use .parquet, .csv or a run-store folder")
    try:
        return tables.conform(df, "runs", strict=False)
    except ValueError as exc:
        raise InputError(path, 1, "not a runs table", str(exc)) from None
    except pl.exceptions.PolarsError as exc:
        raise InputError(path, None, "runs table has a column of the wrong type", str(exc).splitlines()[0]) from None


def _published_layout(path: Path) -> bool:
    """Whether a CSV's header has ``limit`` and ``threads`` but no ``cpu_limit_cores`` (published layout)."""
    with path.open() as fh:
        header = [h.strip() for h in fh.readline().split(",")]
    return "limit" in header and "threads" in header and "cpu_limit_cores" not in header
