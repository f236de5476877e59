"""Prepare a canonical runs table for analysis: filter, count what was left out, order limits.

Every analysis of runs starts here.  :func:`prepare_runs` keeps the runs that
can be analysed (not warm-up, ``status == "ok"``, a positive ``wall_seconds``)
and counts the others by reason, so that nothing is silently lost.

Unlimited runs
--------------
``cpu_limit_cores`` is null for a run without a CPU limit.  Ordering only
needs to know that "unlimited" is larger than every limit, so it always gets
``limit_order = +inf`` and stays in tables, charts and dead-zone tests (as the
right-most point).  Fits need a number: ``limit_x`` is the machine's core count
when it is known (an unlimited container can use at most every core of its
host) and null otherwise, in which case unlimited runs are left out of fits
but kept everywhere else.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Iterator

import polars as pl

from throttlelab.analysis.runs.response_metric import RESPONSE_METRICS, ResponseMetric, resolve

#: Columns that define a group of runs compared across CPU limits.
GROUP_KEYS: tuple[str, ...] = ("workload", "threads", "contention")

_NODE_CORES = re.compile(r"(\d+)\s*(?:hardware\s+)?(?:threads|cores|cpus|vcpus)\b", re.IGNORECASE)


@dataclass(frozen=True)
class PreparedRuns:
    """Runs ready for analysis and an account of the runs left out.

    Attributes
    ----------
    runs
        Kept runs with extra columns ``limit_label`` ("1500m" or "unlimited"),
        ``limit_order`` (cores, +inf for unlimited), ``limit_x`` (cores used in
        fits; the machine's cores for unlimited, null if unknown),
        ``metric_value`` (the response metric as measured) and ``log_wall``
        (``sign x log(metric)``: grows when things get worse).  For a metric
        other than ``wall_seconds``, ``wall_seconds`` holds its *cost*
        (``exp(log_wall)``: the value, or ``1 / value`` when higher is
        better; see :mod:`throttlelab.analysis.runs.response_metric`), so every
        analysis downstream reads "slower" as "worse".
    excluded
        One row per exclusion reason: ``reason``, ``runs``.
    machine_cores
        Core count used to place unlimited runs, or None when unknown.
    """

    runs: pl.DataFrame
    excluded: pl.DataFrame
    machine_cores: float | None
    metric: ResponseMetric = RESPONSE_METRICS["wall_seconds"]

    @property
    def n_excluded(self) -> int:
        return int(self.excluded["runs"].sum()) if self.excluded.height else 0

    def summary(self) -> dict:
        """Counts for ``results.json``: runs kept, excluded and why."""
        return {
            "runs_analysed": self.runs.height,
            "runs_excluded": self.n_excluded,
            "excluded_by_reason": {r["reason"]: r["runs"] for r in self.excluded.iter_rows(named=True)},
            "machine_cores": self.machine_cores,
            "metric": {"name": self.metric.name, "unit": self.metric.unit, "direction": self.metric.direction},
            "unlimited_position": (
                f"unlimited placed at {self.machine_cores:g} cores (machine size) in fits"
                if self.machine_cores
                else "unlimited kept in tables, charts and dead-zone tests (right-most), left out of fits"
            ),
        }


def limit_label(cores: float | None) -> str:
    """``1.5 -> "1500m"``, ``None -> "unlimited"``."""
    if cores is None or (isinstance(cores, float) and math.isnan(cores)):
        return "unlimited"
    return f"{round(cores * 1000):d}m"


def infer_machine_cores(runs: pl.DataFrame) -> float | None:
    """Core count read from the ``node`` column (e.g. "i7-12700F (20 threads)"), if all runs agree."""
    if "node" not in runs.columns:
        return None
    found = {float(m.group(1)) for n in runs["node"].drop_nulls().unique() if (m := _NODE_CORES.search(n))}
    return found.pop() if len(found) == 1 else None


def prepare_runs(runs: pl.DataFrame, *, machine_cores: float | None = None,
                 metric: str | ResponseMetric | None = "wall_seconds") -> PreparedRuns:
    """Keep analysable runs, count the rest, and add limit ordering columns.

    Parameters
    ----------
    runs
        A canonical runs table (:data:`throttlelab.tables.RUNS`).
    machine_cores
        Cores of the host, used as the position of unlimited runs in fits.
        ``None`` or 0: inferred from ``node`` when possible, else unknown.
    metric
        The response metric analysed (a :data:`throttlelab.tables.RESPONSE_METRICS`
        name); runs without a positive value of it are left out and counted.

    Returns
    -------
    PreparedRuns
    """
    m = resolve(metric)
    if not machine_cores:
        machine_cores = infer_machine_cores(runs)
    df = runs
    if m.name not in df.columns:
        df = df.with_columns(pl.lit(None, pl.Float64).alias(m.name))
    for col, default in (("warmup", False), ("status", "ok"), ("contention", 0.0), ("threads", "auto")):
        if col not in df.columns:
            df = df.with_columns(pl.lit(default).alias(col))
    reason = (
        pl.when(pl.col("warmup").fill_null(False))
        .then(pl.lit("warm-up run"))
        .when(pl.col("status").fill_null("missing") != "ok")
        .then(pl.format("status {}", pl.col("status").fill_null("missing")))
        .when(pl.col(m.name).is_null() | ~(pl.col(m.name) > 0) | ~pl.col(m.name).cast(pl.Float64).is_finite())
        .then(pl.lit(f"no positive {m.name}"))
        .otherwise(None)
    )
    df = df.with_columns(reason.alias("_reason"))
    excluded = (
        df.filter(pl.col("_reason").is_not_null())
        .group_by("_reason")
        .agg(pl.len().cast(pl.Int64).alias("runs"))
        .rename({"_reason": "reason"})
        .sort("reason")
    )
    kept = df.filter(pl.col("_reason").is_null()).drop("_reason")
    limit = pl.col("cpu_limit_cores")
    log_cost = m.sign * pl.col(m.name).cast(pl.Float64).log()
    kept = kept.with_columns(pl.col(m.name).cast(pl.Float64).alias("metric_value"), log_cost.alias("log_wall"),
                             pl.lit(m.name).alias("metric"))
    if m.name != "wall_seconds":
        kept = kept.with_columns(pl.col("log_wall").exp().alias("wall_seconds"))
    kept = kept.with_columns(
        pl.col("threads").cast(pl.String).fill_null("auto"),
        pl.col("contention").fill_null(0.0),
        limit.map_elements(limit_label, return_dtype=pl.String, skip_nulls=False).alias("limit_label"),
        limit.fill_null(math.inf).alias("limit_order"),
        (limit.fill_null(machine_cores) if machine_cores else limit).cast(pl.Float64).alias("limit_x"),
    )
    return PreparedRuns(runs=kept, excluded=excluded, machine_cores=float(machine_cores) if machine_cores else None,
                        metric=m)


def iter_groups(runs: pl.DataFrame, keys: tuple[str, ...] = GROUP_KEYS) -> Iterator[tuple[dict, pl.DataFrame]]:
    """Yield ``(group, frame)`` per group of ``keys``, in a stable order."""
    keys = tuple(k for k in keys if k in runs.columns)
    if not keys:
        yield {}, runs
        return
    for key, frame in sorted(runs.partition_by(list(keys), as_dict=True).items(), key=lambda kv: tuple(map(str, kv[0]))):
        yield dict(zip(keys, key)), frame.sort("limit_order")


def group_label(group: dict) -> str:
    """Readable group name, e.g. ``ffmpeg, threads=auto, contention=0``."""
    parts = [str(group.get("workload", ""))] if "workload" in group else []
    parts += [f"{k}={group[k]:g}" if isinstance(group[k], float) else f"{k}={group[k]}" for k in group if k != "workload"]
    return ", ".join(parts)


def limit_summary(runs: pl.DataFrame, keys: tuple[str, ...] = GROUP_KEYS) -> pl.DataFrame:
    """Per group and limit: runs, geometric-mean / median / min / max wall time, spread, core-seconds.

    ``reserved_core_seconds`` is limit x geometric-mean wall time (what the
    limit reserves for the run; null for unlimited without a machine size);
    ``cpu_core_seconds`` is the mean CPU time when runs recorded it.
    """
    keys = [k for k in keys if k in runs.columns]
    out = (
        runs.group_by([*keys, "limit_label", "limit_order", "limit_x", "cpu_limit_cores"])
        .agg(
            pl.len().alias("runs"),
            pl.col("log_wall").mean().exp().alias("geomean_seconds"),
            pl.col("wall_seconds").median().alias("median_seconds"),
            pl.col("wall_seconds").min().alias("min_seconds"),
            pl.col("wall_seconds").max().alias("max_seconds"),
            pl.col("log_wall").std().alias("sd_log"),
            pl.col("cpu_seconds").mean().alias("cpu_core_seconds"),
        )
        .with_columns((pl.col("limit_x") * pl.col("geomean_seconds")).alias("reserved_core_seconds"))
        .sort([*keys, "limit_order"])
    )
    return out
