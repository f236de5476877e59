"""What every notebook calls: set up its output folder, save tables and results.

A notebook's parameters cell defines ``output_dir``; its first code cell after
the parameters calls :func:`start`; it ends with :func:`write_results`::

    from throttlelab.report import notebook as tn
    out = tn.start(output_dir)
    ...
    tn.save_table(table, "dead_zones")
    tn.write_results({"groups": [...]})

``results.json`` holds ``{"notebook": ..., "schema": 1, "results": ..., "tables": [...]}``;
the study runner adds provenance next to it.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from throttlelab.report import offline
from throttlelab.results import to_jsonable

_current: dict[str, Any] = {"out": None, "tables": [], "name": None}


def start(output_dir: str | Path, *, name: str | None = None) -> Path:
    """Create ``output_dir``, enable offline charts and return the folder as a Path."""
    out = Path(output_dir)
    out.mkdir(parents=True, exist_ok=True)
    for stale in ("results.json", "headlines.json"):  # a re-run must not add to the last one's
        (out / stale).unlink(missing_ok=True)
    _current.update(out=out, tables=[], name=name)
    offline.enable(reset=True)
    return out


def output_dir() -> Path:
    if _current["out"] is None:
        raise RuntimeError("call throttlelab.report.notebook.start(output_dir) first")
    return _current["out"]


def save_table(df: Any, name: str) -> Path:
    """Write a polars frame as ``<name>.csv`` (and ``<name>.parquet``) into the output folder.

    Nested columns (lists, structs) are JSON-encoded in the CSV only.
    """
    import polars as pl

    out = output_dir()
    if not isinstance(df, pl.DataFrame):
        df = pl.DataFrame(df)
    df.write_parquet(out / f"{name}.parquet")
    flat = df.with_columns(
        pl.col(c).map_elements(lambda v: json.dumps(to_jsonable(v)), return_dtype=pl.String)
        for c, t in df.schema.items()
        if t.is_nested()
    )
    flat.write_csv(out / f"{name}.csv")
    if name not in _current["tables"]:
        _current["tables"].append(name)
    return out / f"{name}.csv"


def write_results(results: Any, *, notebook: str | None = None) -> None:
    """Write ``results.json`` (results converted with :func:`to_jsonable`).

    Returns nothing, so that a notebook's last cell shows no output.
    """
    out = output_dir()
    doc = {
        "notebook": notebook or _current["name"],
        "schema": 1,
        "results": to_jsonable(results),
        "tables": sorted(_current["tables"]),
        "kernel_python": sys.executable,
    }
    path = out / "results.json"
    path.write_text(json.dumps(doc, indent=2, sort_keys=False, allow_nan=False) + "\n")


def headline(text: str) -> None:
    """Record a one-line headline finding for the index page (kept in headlines.json)."""
    out = output_dir()
    path = out / "headlines.json"
    items = json.loads(path.read_text()) if path.exists() else []
    items.append(str(text))
    path.write_text(json.dumps(items, indent=2) + "\n")
