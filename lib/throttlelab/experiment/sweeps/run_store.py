"""Append-only store of an experiment's runs under ``<data_root>/<experiment>/``.

Layout::

    <data_root>/<experiment>/
        spec.yaml                  the spec of the latest sweep (provenance)
        runs/<run_id>.json         one runs-table row per finished run
        runs/<run_id>~2.json       a later attempt of the same run (retry of a failure)
        monitor/<run_id>.log       the run's monitor log (ingest format)
        monitor/<run_id>.out       the workload's stdout and stderr (local backend)

Each row is written to a temporary file, flushed to disk and then *linked*
into place (``os.link`` fails instead of overwriting), so a row is either
complete or absent, and no row is ever rewritten: a sweep killed at any point
(even with SIGKILL) leaves whole rows only.  :meth:`RunStore.read_runs`
concatenates them into the canonical runs table.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import os
import re
from pathlib import Path
from typing import Any

import polars as pl

from throttlelab import tables
from throttlelab.errors import InputError

_ROW = re.compile(r"^(?P<run_id>[^~]+?)(?:~(?P<attempt>\d+))?\.json$")


class RunStore:
    """The run store of one experiment.

    Parameters
    ----------
    directory
        ``<data_root>/<experiment>``; created on first write.
    """

    def __init__(self, directory: str | Path):
        self.directory = Path(directory)
        self.runs_dir = self.directory / "runs"
        self.monitor_dir = self.directory / "monitor"

    def __repr__(self) -> str:
        return f"RunStore({str(self.directory)!r})"

    # -- paths -----------------------------------------------------------
    def monitor_path(self, run_id: str) -> Path:
        """Where the run's monitor log goes (the folder is created)."""
        self.monitor_dir.mkdir(parents=True, exist_ok=True)
        return self.monitor_dir / f"{run_id}.log"

    def relative(self, path: str | Path) -> str:
        """``path`` relative to the store (as recorded in the ``monitor_log`` column)."""
        try:
            return str(Path(path).resolve().relative_to(self.directory.resolve()))
        except ValueError:
            return str(path)

    # -- writing ---------------------------------------------------------
    def append(self, row: dict[str, Any]) -> Path:
        """Add one finished run's row atomically; return the file written.

        A second row for the same ``run_id`` (a retried failure) becomes attempt
        ``~2``, ``~3``...: nothing is overwritten.

        Raises
        ------
        ValueError
            If the row lacks ``run_id``, ``experiment`` or ``status``.
        """
        for key in ("run_id", "experiment", "status"):
            if not row.get(key):
                raise ValueError(f"a runs row needs {key!r}: {row!r}")
        self.runs_dir.mkdir(parents=True, exist_ok=True)
        run_id = row["run_id"]
        tmp = self.runs_dir / f".tmp-{run_id}-{os.getpid()}"
        data = json.dumps(_jsonable_row(row), sort_keys=True).encode() + b"\n"
        with open(tmp, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        try:
            attempt = 1
            while True:
                target = self.runs_dir / (f"{run_id}.json" if attempt == 1 else f"{run_id}~{attempt}.json")
                try:
                    os.link(tmp, target)
                    break
                except FileExistsError:
                    attempt += 1
            _fsync_dir(self.runs_dir)
        finally:
            with contextlib.suppress(FileNotFoundError):
                tmp.unlink()
        return target

    def write_spec(self, text: str) -> Path:
        """Record the sweep's spec (YAML text) next to the runs, atomically."""
        self.directory.mkdir(parents=True, exist_ok=True)
        path = self.directory / "spec.yaml"
        tmp = self.directory / f".tmp-spec-{os.getpid()}"
        tmp.write_text(text)
        os.replace(tmp, path)
        return path

    def remove_temporaries(self) -> list[Path]:
        """Delete ``.tmp-*`` files left by a killed writer of this store (not ours)."""
        removed = []
        for d in (self.directory, self.runs_dir):
            if not d.is_dir():
                continue
            for p in d.glob(".tmp-*"):
                pid = p.name.rsplit("-", 1)[-1]
                if pid.isdigit() and pid_alive(int(pid)):
                    continue
                with contextlib.suppress(FileNotFoundError):
                    p.unlink()
                    removed.append(p)
        return removed

    # -- reading ---------------------------------------------------------
    def row_files(self) -> list[Path]:
        """The row files, sorted by run id then attempt."""
        if not self.runs_dir.is_dir():
            return []
        files = [p for p in self.runs_dir.iterdir() if _ROW.match(p.name)]
        return sorted(files, key=lambda p: (_ROW.match(p.name)["run_id"], int(_ROW.match(p.name)["attempt"] or 1)))

    def completed_run_ids(self, *, include_failed: bool = True) -> set[str]:
        """Run ids that have a row (any status; only ``ok`` ones if not ``include_failed``)."""
        if include_failed:
            return {_ROW.match(p.name)["run_id"] for p in self.row_files()}
        df = self.read_runs()
        return set(df.filter(pl.col("status") == "ok")["run_id"].to_list())

    def read_runs(self, *, all_attempts: bool = False) -> pl.DataFrame:
        """The experiment's canonical runs table.

        Parameters
        ----------
        all_attempts
            Keep every attempt of a retried run (column ``attempt`` tells them
            apart) instead of only the latest.

        Raises
        ------
        InputError
            Naming the row file that cannot be read.
        """
        rows = []
        for path in self.row_files():
            try:
                row = json.loads(path.read_text())
            except (OSError, json.JSONDecodeError) as exc:
                raise InputError(path, None, "unreadable run row", str(exc)) from None
            if not isinstance(row, dict):
                raise InputError(path, 1, "a run row must be a JSON object")
            row["attempt"] = int(_ROW.match(path.name)["attempt"] or 1)
            rows.append(row)
        if not rows:
            out = tables.empty("runs")
            return out.with_columns(pl.lit(None, pl.Int64).alias("attempt")) if all_attempts else out
        names = [c.name for c in tables.RUNS]
        frame = pl.DataFrame(
            [{k: r.get(k) for k in [*names, "attempt"]} for r in rows],
            schema={**{k: (pl.String if k == "started_at" else v) for k, v in tables.schema("runs").items()},
                    "attempt": pl.Int64},
            strict=False,
        )
        frame = frame.with_columns(
            pl.col("started_at").str.to_datetime(time_zone="UTC", time_unit="us", strict=False)
        )
        if not all_attempts:
            frame = frame.sort("run_id", "attempt").unique("run_id", keep="last", maintain_order=True)
        frame = frame.sort("started_at", "run_id", nulls_last=True)
        out = tables.conform(frame, "runs")
        return out.with_columns(frame["attempt"]) if all_attempts else out


def _jsonable_row(row: dict[str, Any]) -> dict[str, Any]:
    out = {}
    for k, v in row.items():
        if isinstance(v, dt.datetime):
            if v.tzinfo is None:
                v = v.replace(tzinfo=dt.timezone.utc)
            v = v.astimezone(dt.timezone.utc).isoformat()
        elif isinstance(v, Path):
            v = str(v)
        elif isinstance(v, float) and v != v:
            v = None
        out[k] = v
    return out


def _fsync_dir(path: Path) -> None:
    with contextlib.suppress(OSError):
        fd = os.open(path, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def pid_alive(pid: int) -> bool:
    """Whether process ``pid`` exists (one we may not signal counts as alive)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
