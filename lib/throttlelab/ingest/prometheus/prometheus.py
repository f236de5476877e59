"""Prometheus data (cAdvisor CPU metrics) -> samples, and rate series -> a rates table.

Inputs, any number of files, in any mix:

* ``/api/v1/query_range`` JSON (``resultType: matrix``, ``values``) and
  ``/api/v1/query`` JSON (``resultType: vector``, one ``value`` per series);
* the text exposition format (a ``curl`` of Prometheus' or the kubelet's
  ``/metrics/cadvisor``; see :mod:`.prometheus_text`), whose sample timestamps
  are milliseconds; a sample without one gets the file's latest timestamp (or
  its modification time when none has one; stated in the provenance), and a
  series repeated without timestamps is skipped (several scrapes in one file
  need timestamps).

Metrics: the catalogue's cAdvisor counters (:mod:`throttlelab.core.metrics`: usage, CFS periods, throttled
periods and throttled time), each into its samples column and, as a rate, its measure of the rates table
(``cores``, ``periods_per_second``...); and cAdvisor's quota and period gauges, into ``limit_cores``
(quota / period) and ``period_us``.

Series are identified by their whole label set (``__name__`` aside).  Files
are merged by label set and timestamp, so one query_range file per metric
gives one samples row per series and time with every column.  Series that
differ in any label (container id, image, cpu, node...) stay distinct: each
has its own ``series`` text and counter segments, and nothing is summed.  The
one normalisation: ``cpu="total"`` (cAdvisor's whole-container usage) is the
same series as the other metrics of that container without a ``cpu`` label;
the provenance says so.  A value seen twice for one series and time (two
files holding the same query) is kept once and the second is counted as
skipped.

Counter or rate: a series named by ``__name__`` is a counter (or a gauge, for
the spec metrics).  A series without a name (what ``rate()``/``irate()`` or an
aggregation returns) takes its metric from the file name and its kind from:
``kind`` if given, else ``rate``/``irate`` in the file name, else the data (a
counter never goes down except to restart near zero: values going down in any
other way are a rate).  A lone value per series cannot tell and is taken as a
counter, stated as "assumed".  Each decision and its reason is in the
provenance.  Counts are of values for JSON (``unit="values"``), of lines for
the text format (``"lines"``), ``"items"`` for a mix.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl

from throttlelab import tables
from throttlelab.core.metrics import CADVISOR_COUNTERS, COUNTER
from throttlelab.errors import InputError
from throttlelab.ingest.counter_segments import assign_segments
from throttlelab.ingest.prometheus.prometheus_series import METRICS, Series, json_series, series_key, series_kind, text_series
from throttlelab.ingest.result import EXAMPLES_PER_REASON as EXAMPLES
from throttlelab.ingest.result import IngestResult
from throttlelab.ingest.skip_counter import SkipCounter

#: samples counter column -> what its per-second rate measures (a measure of the rates table).
RATE_COLUMNS = {name: COUNTER[name].rate for name in CADVISOR_COUNTERS}
RATES_SCHEMA = {
    "timestamp": tables.UTC_TIME,
    "source": pl.String,
    "series": pl.String,
    "pod": pl.String,
    "container": pl.String,
    "measure": pl.String,
    "value": pl.Float64,
}
def _is_text(path) -> bool:
    from throttlelab.ingest.input_files import head

    return not head(path, 4096).lstrip().startswith(b"{")


def read_prometheus_parts(paths, *, strict: bool = False, kind: str | None = None) -> dict[str, IngestResult]:
    """Prometheus files -> ``{"samples": ..., "prometheus_rates": ...}`` (the parts that have rows or skips).

    ``kind``: ``"counter"`` or ``"rate"`` for every unnamed series (default:
    decided per series, see the module docstring).
    """
    if isinstance(paths, (str, Path)):
        paths = [paths]
    sources = tuple(str(p) for p in paths)
    skips = SkipCounter(", ".join(sources))
    total = 0
    series: list[Series] = []
    prov: dict[str, dict] = {}
    for p in paths:
        s = SkipCounter(str(p))
        got, t, info = (text_series if _is_text(p) else json_series)(p, s)
        if strict and s.first is not None:
            raise InputError(p, s.first.line, s.first.reason, s.first.excerpt)
        skips.merge(s)
        series.extend(got)
        total += t
        prov[str(p)] = {**info, "series": []}
    frames, kids, meta = [], {}, []  # per point only ids: label texts once per series (memory)
    for s in series:
        k, why = series_kind(s, kind)
        key = series_key(s.labels)
        column = METRICS[s.metric]
        prov[s.source]["series"].append({"series": key, "metric": s.metric, "kind": k, "decided_by": why})
        if key not in kids:
            kids[key] = len(meta)
            meta.append({"kid": len(meta), "key": key, "source": s.source,
                         "pod": s.labels.get("pod") or s.labels.get("pod_name"),
                         "container": s.labels.get("container") or s.labels.get("container_name")})
        frames.append(pl.DataFrame({"ts": s.ts, "value": s.values}, schema={"ts": pl.Int64, "value": pl.Float64})
                      .with_columns(kid=pl.lit(kids[key], pl.Int32),
                                    column=pl.lit(RATE_COLUMNS[column] if k == "rate" else column, pl.String),
                                    rate=pl.lit(k == "rate")))
    long = pl.concat(frames) if frames else pl.DataFrame(
        schema={"ts": pl.Int64, "value": pl.Float64, "kid": pl.Int32, "column": pl.String, "rate": pl.Boolean})
    meta = pl.DataFrame(meta, schema={"kid": pl.Int32, "key": pl.String, "source": pl.String, "pod": pl.String,
                                      "container": pl.String})
    first = pl.struct("kid", "column", "rate", "ts").is_first_distinct()
    dups = long.filter(~first)
    if dups.height:  # the same series and time twice (the same query in two files): kept once
        ex = dups.head(EXAMPLES).join(meta, on="kid").rows(named=True)
        skips.add_count("duplicate value (same series and time already read)", dups.height,
                        [f"{r['key']} {r['column']} @{r['ts']}" for r in ex])
        if strict:
            raise InputError(ex[0]["source"], None, "duplicate value (same series and time already read)",
                             f"{ex[0]['key']} {ex[0]['column']} @{ex[0]['ts']}")
        long = long.filter(first)
    long = long.with_columns(
        timestamp=pl.from_epoch("ts", time_unit="ms").dt.cast_time_unit("us").dt.replace_time_zone("UTC"))
    long_rows = long.filter(~pl.col("rate"))
    rate_rows = long.filter(pl.col("rate"))
    for src in {s.source for s in series if s.labels.get("cpu") == "total"}:
        prov[src]["normalised"] = 'cpu="total" is the container total: same series as its metrics without a cpu label'
    for p in prov.values():
        p["aggregation"] = "none: each label set is its own series"
    report = skips.report()
    used = total - report.total
    fmts = {p["format"] for p in prov.values()}
    unit = "values" if fmts == {"prometheus-json"} else "lines" if fmts == {"prometheus-text"} else "items"
    parts: dict[str, IngestResult] = {}
    n_rates = rate_rows.height
    if long_rows.height or not n_rates:
        parts["samples"] = IngestResult("samples", _samples(long_rows, meta), report, total - n_rates, used - n_rates,
                                        sources, unit, prov)
    if n_rates:
        frame = rate_rows.join(meta, on="kid", how="left").rename({"key": "series", "column": "measure"})
        frame = frame.select(list(RATES_SCHEMA)).sort(["source", "series", "measure", "timestamp"])
        from throttlelab.ingest.result import SkipReport

        parts["prometheus_rates"] = IngestResult("prometheus_rates", frame, SkipReport() if "samples" in parts else report,
                                                 n_rates if "samples" in parts else total, n_rates, sources, unit, prov)
    return parts


def _samples(long: pl.DataFrame, meta: pl.DataFrame) -> pl.DataFrame:
    if not long.height:
        return tables.empty("samples")
    # one row per series and time; a column missing there stays null.  ``first`` never
    # chooses between values: duplicates were removed (and counted) before.
    wide = long.pivot(on="column", index=["kid", "timestamp"], values="value", aggregate_function="first")
    for col in METRICS.values():
        if col not in wide.columns:
            wide = wide.with_columns(pl.lit(None, dtype=pl.Float64).alias(col))
    c = pl.col
    wide = wide.sort(["kid", "timestamp"]).select(
        "timestamp",
        "kid",
        line=pl.lit(0, dtype=pl.Int64),
        _run="kid",
        **{n: c(n).round(0).cast(pl.Int64) if COUNTER[n].integer else c(n) for n in CADVISOR_COUNTERS},
        limit_cores=pl.when((c("quota") > 0) & (c("period_us") > 0)).then(c("quota") / c("period_us")),
        period_us=c("period_us").round(0).cast(pl.Int64),
    )
    # the label texts joined once, after the numeric work (one copy of each per row)
    wide = assign_segments(wide, by="_run").join(meta.rename({"key": "series"}), on="kid", how="left",
                                                  maintain_order="left")
    return tables.conform(wide, "samples")


def read_prometheus(paths, *, strict: bool = False, kind: str | None = None) -> IngestResult:
    """Prometheus files -> the samples (counters and gauges, merged by label set and time).

    Rate series are in the ``prometheus_rates`` part of :func:`read_prometheus_parts`;
    when the files hold nothing but rates, that part is returned.
    """
    parts = read_prometheus_parts(paths, strict=strict, kind=kind)
    return parts.get("samples") or parts["prometheus_rates"]
