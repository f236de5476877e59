"""Canonical tables shared by every layer.

Every layer speaks these tables: ingest produces them, the experiment backends
append to them, analysis reads them and reports show them.  Each table is a
``dict`` of column name -> polars dtype, in column order, plus a one-line
description of each column (unit included).  :func:`conform` casts a frame to a
table, adding missing nullable columns and ordering columns; :func:`validate`
checks a frame without changing it.

Tables
------
runs
    One row per experiment run (a sweep point x replicate).
samples
    Monitor time series: one row per monitor block (timestamp) and container,
    cumulative counters in one unit each (seconds for times, counts for periods).
intervals
    Rates between consecutive samples of the same series and segment.
requests
    One row per request sent by a load generator (or read from k6 output).
stage_timings
    One row per request and pipeline stage (per-stage timings of a response).
"""

from __future__ import annotations

from dataclasses import dataclass

import polars as pl

UTC_TIME = pl.Datetime("us", "UTC")


@dataclass(frozen=True)
class Column:
    """One column of a canonical table."""

    name: str
    dtype: pl.DataType
    doc: str
    nullable: bool = True


def _table(*cols: Column) -> tuple[Column, ...]:
    return cols


RUNS = _table(
    Column("experiment", pl.String, "experiment name (a folder under data/raw/)", False),
    Column("run_id", pl.String, "unique id of the run within its experiment", False),
    Column("backend", pl.String, "local, kubernetes, or published", False),
    Column("workload", pl.String, "workload name (ffmpeg, burner, go, command, service ...)", False),
    Column("cpu_limit_cores", pl.Float64, "CPU limit in cores; null = unlimited"),
    Column("cpu_period_us", pl.Int64, "CFS period in microseconds"),
    Column("threads", pl.String, "thread count: 'auto' or an integer, as text"),
    Column("contention", pl.Float64, "noisy-neighbour CPU share of the node (0-1); 0 when none"),
    Column("load", pl.Float64, "offered load: VUs or requests/s; null if none"),
    Column("replicate", pl.Int64, "replicate number, 0-based"),
    Column("started_at", UTC_TIME, "start of the run (UTC)"),
    Column("wall_seconds", pl.Float64, "wall-clock duration of the workload (s)"),
    Column("cpu_seconds", pl.Float64, "CPU time used by the run's cgroup (s)"),
    Column("nr_periods", pl.Int64, "CFS periods elapsed during the run"),
    Column("nr_throttled", pl.Int64, "CFS periods in which the run was throttled"),
    Column("throttled_seconds", pl.Float64, "total throttled time (s, summed over CPUs)"),
    Column("exit_code", pl.Int64, "workload exit code; null if it never exited"),
    Column("status", pl.String, "ok, failed or timeout", False),
    Column("error", pl.String, "error message when status is not ok"),
    # Extensions beyond the minimal set.
    Column("warmup", pl.Boolean, "warm-up run: recorded, not analysed"),
    Column("user_seconds", pl.Float64, "user CPU time of the workload (s)"),
    Column("system_seconds", pl.Float64, "system CPU time of the workload (s)"),
    Column("node", pl.String, "node (host or Kubernetes node) the run ran on"),
    Column("monitor_log", pl.String, "path of the run's monitor log, relative to the run store"),
    # Extensions (services, issue 18): response metrics of a load-driven run (see RESPONSE_METRICS).
    Column("throughput_rps", pl.Float64, "answered requests per second in the measurement window (closed loop: saturation)"),
    Column("items_per_second", pl.Float64, "work items per second of wall time (local ffmpeg: frames; go: work units)"),
    Column("latency_p50_seconds", pl.Float64, "median response time (s; open loop at `load` requests/s)"),
    Column("latency_p90_seconds", pl.Float64, "90th percentile response time (s)"),
    Column("latency_p99_seconds", pl.Float64, "99th percentile response time (s)"),
    Column("latency_p999_seconds", pl.Float64, "99.9th percentile response time (s)"),
    Column("requests_ok", pl.Int64, "requests answered with 2xx in the measurement window(s)"),
    Column("requests_failed", pl.Int64, "requests not answered ok (error, timeout, refused, dropped); their latency counts as the timeout"),
    Column("threads_effective", pl.Int64, "thread count the workload reported using (e.g. the GOMAXPROCS `auto` chose)"),
    Column("chosen_because", pl.String, "adaptive sweeps: why this run was chosen, in run order; null in a full grid"),
)

SAMPLES = _table(
    Column("timestamp", UTC_TIME, "sample time (UTC); null when the input has none (bare `cat cpu.stat` snapshots without `date` lines)"),
    Column("source", pl.String, "input file the sample came from", False),
    Column("line", pl.Int64, "1-based line of the sample's block header in the source", False),
    Column("pod", pl.String, "pod name (or local run id)"),
    Column("container", pl.String, "container name"),
    Column("series", pl.String, "Prometheus: the series' whole label set (k=v,... sorted); null for other inputs"),
    Column("segment", pl.Int64, "counter segment: increments when a counter goes backwards (restart)"),
    Column("cgroup_version", pl.Int8, "1 or 2; null if no cgroup section"),
    Column("usage_seconds", pl.Float64, "cumulative CPU usage (s)"),
    Column("user_seconds", pl.Float64, "cumulative user CPU (s)"),
    Column("system_seconds", pl.Float64, "cumulative system CPU (s)"),
    Column("nr_periods", pl.Int64, "cumulative CFS periods"),
    Column("nr_throttled", pl.Int64, "cumulative throttled periods"),
    Column("throttled_seconds", pl.Float64, "cumulative throttled time (s)"),
    Column("nr_bursts", pl.Int64, "cumulative burst periods"),
    Column("burst_seconds", pl.Float64, "cumulative burst time (s)"),
    Column("limit_cores", pl.Float64, "CPU limit in cores (quota / period); null = unlimited"),
    Column("period_us", pl.Int64, "CFS period (us)"),
    Column("top_cpu_cores", pl.Float64, "kubectl top CPU (cores)"),
    Column("top_memory_bytes", pl.Int64, "kubectl top memory (bytes)"),
)

INTERVALS = _table(
    Column("source", pl.String, "input file", False),
    Column("pod", pl.String, "pod name"),
    Column("container", pl.String, "container name"),
    Column("segment", pl.Int64, "counter segment"),
    Column("start", UTC_TIME, "interval start (UTC); null when the samples have no time"),
    Column("end", UTC_TIME, "interval end (UTC); null when the samples have no time"),
    Column("seconds", pl.Float64, "interval length (s); null when the samples have no time"),
    Column("nr_periods_delta", pl.Int64, "CFS periods elapsed in the interval (delta nr_periods)"),
    Column("nr_throttled_delta", pl.Int64, "throttled periods in the interval (delta nr_throttled)"),
    Column("throttled_ratio", pl.Float64, "delta nr_throttled / delta nr_periods; null if no period elapsed"),
    Column("throttled_seconds_per_second", pl.Float64, "delta throttled time / interval"),
    Column("effective_cores", pl.Float64, "delta usage / interval (cores)"),
    Column("limit_cores", pl.Float64, "limit at the interval end (cores); null = unlimited"),
    Column("usage_share_of_limit", pl.Float64, "effective_cores / limit_cores"),
    Column("top_cpu_cores", pl.Float64, "kubectl top CPU at the interval end (cores)"),
    Column("top_memory_bytes", pl.Int64, "kubectl top memory at the interval end (bytes)"),
)

REQUESTS = _table(
    Column("experiment", pl.String, "experiment name", False),
    Column("run_id", pl.String, "run the request belongs to", False),
    Column("config", pl.String, "configuration label (e.g. 'semaphore=4,workers=8')"),
    Column("endpoint", pl.String, "endpoint or scenario name"),
    Column("contention", pl.Float64, "noisy-neighbour CPU share (0-1)"),
    Column("load", pl.Float64, "offered load: requests/s (open loop) or VUs (closed loop)"),
    Column("request_id", pl.Int64, "sequence number within the run", False),
    Column("started_at", UTC_TIME, "time the request was sent (UTC)"),
    Column("latency_seconds", pl.Float64, "response time (s); null when no response"),
    Column("status", pl.String, "ok, error, timeout, refused, or dropped (open loop: not sent, in-flight cap reached)", False),
    Column("http_status", pl.Int64, "HTTP status code; null when no response"),
    Column("error", pl.String, "error text when status is not ok"),
    # Extensions (latency issue): where the rows come from a throttlelab load generator.
    Column("send_lag_seconds", pl.Float64, "open loop: actual send time minus scheduled arrival (s)"),
    Column("vu", pl.Int64, "closed loop: virtual user that sent the request"),
    Column("neighbour_workers", pl.Int64, "busy workers of the noisy neighbour (its CPU share is `contention`)"),
)

STAGE_TIMINGS = _table(
    Column("experiment", pl.String, "experiment name", False),
    Column("run_id", pl.String, "run the request belongs to", False),
    Column("config", pl.String, "configuration label"),
    Column("load", pl.Float64, "offered load"),
    Column("request_id", pl.Int64, "request sequence number", False),
    Column("stage", pl.String, "pipeline stage name ('total' for the whole request)", False),
    Column("seconds", pl.Float64, "time spent in the stage (s)"),
    # Extension (latency issue): part of `seconds` spent waiting (semaphore, worker pool queue).
    Column("wait_seconds", pl.Float64, "part of the stage time spent waiting for a worker or semaphore (s)"),
)



@dataclass(frozen=True)
class ResponseMetric:
    """A runs column an analysis can take as its response, with its unit and direction.

    Attributes
    ----------
    name
        The runs column, e.g. ``"throughput_rps"``.
    label
        Words for titles and sentences, e.g. ``"throughput"``.
    unit
        Unit of the column's values, e.g. ``"req/s"``.
    higher_is_better
        ``True`` for throughput-like metrics, ``False`` for times and latencies.
    """

    name: str
    label: str
    unit: str
    higher_is_better: bool

    @property
    def direction(self) -> str:
        """``"higher is better"`` or ``"lower is better"``."""
        return "higher is better" if self.higher_is_better else "lower is better"

    @property
    def sign(self) -> int:
        """+1 when lower is better, -1 when higher is better: ``sign * log(value)`` grows when things get worse."""
        return -1 if self.higher_is_better else 1


#: Every response metric, by runs column name.
RESPONSE_METRICS: dict[str, ResponseMetric] = {m.name: m for m in (
    ResponseMetric("wall_seconds", "wall time", "s", False),
    ResponseMetric("cpu_seconds", "CPU time", "s", False),
    ResponseMetric("throughput_rps", "throughput", "req/s", True),
    ResponseMetric("items_per_second", "items per second", "items/s", True),
    ResponseMetric("latency_p50_seconds", "p50 latency", "s", False),
    ResponseMetric("latency_p90_seconds", "p90 latency", "s", False),
    ResponseMetric("latency_p99_seconds", "p99 latency", "s", False),
    ResponseMetric("latency_p999_seconds", "p99.9 latency", "s", False),
)}


def response_metric(name: str) -> ResponseMetric:
    """The :class:`ResponseMetric` of a runs column; ``KeyError`` naming the known ones otherwise."""
    try:
        return RESPONSE_METRICS[name]
    except KeyError:
        raise KeyError(f"unknown response metric {name!r}; known: {', '.join(RESPONSE_METRICS)}") from None


TABLES: dict[str, tuple[Column, ...]] = {
    "runs": RUNS,
    "samples": SAMPLES,
    "intervals": INTERVALS,
    "requests": REQUESTS,
    "stage_timings": STAGE_TIMINGS,
}


def schema(table: str) -> dict[str, pl.DataType]:
    """Column name -> dtype of a canonical table, in order."""
    return {c.name: c.dtype for c in _columns(table)}


def empty(table: str) -> pl.DataFrame:
    """An empty frame with the table's schema."""
    return pl.DataFrame(schema=schema(table))


def conform(df: pl.DataFrame, table: str, *, strict: bool = True) -> pl.DataFrame:
    """Cast ``df`` to a canonical table.

    Missing nullable columns are added as nulls, columns are ordered as the
    table defines them; extra columns are kept after them unless ``strict``.

    Raises
    ------
    ValueError
        If a non-nullable column is missing.
    """
    cols = _columns(table)
    missing = [c.name for c in cols if c.name not in df.columns and not c.nullable]
    if missing:
        raise ValueError(f"{table}: missing required column(s) {', '.join(missing)}")
    exprs = [
        (pl.col(c.name) if c.name in df.columns else pl.lit(None)).cast(c.dtype).alias(c.name)
        for c in cols
    ]
    extra = [] if strict else [n for n in df.columns if n not in {c.name for c in cols}]
    return df.select(*exprs, *extra)


def validate(df: pl.DataFrame, table: str) -> list[str]:
    """Problems that keep ``df`` from being the canonical ``table`` (empty if none)."""
    problems = []
    for c in _columns(table):
        if c.name not in df.columns:
            problems.append(f"missing column {c.name}")
        elif df.schema[c.name] != c.dtype:
            problems.append(f"column {c.name} is {df.schema[c.name]}, expected {c.dtype}")
        elif not c.nullable and df[c.name].null_count():
            problems.append(f"column {c.name} has nulls")
    return problems


def describe(table: str) -> str:
    """Markdown table documenting ``table`` (used by the docs reference page and reports)."""
    rows = [f"| `{c.name}` | {c.dtype} | {c.doc} |" for c in _columns(table)]
    return "\n".join(["| column | type | meaning |", "|---|---|---|", *rows])


def _columns(table: str) -> tuple[Column, ...]:
    try:
        return TABLES[table]
    except KeyError:
        raise KeyError(f"unknown table {table!r}; known: {', '.join(TABLES)}") from None
