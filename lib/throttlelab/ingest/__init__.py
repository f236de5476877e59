"""Ingest layer: input formats -> canonical polars tables (see :mod:`throttlelab.tables`).

Readers (each returns an :class:`~throttlelab.ingest.result.IngestResult`: the
rows, a per-reason :class:`~throttlelab.ingest.result.SkipReport`, and line
counts with ``lines_used + skipped.total == lines_total``), one package per
kind of input, each with a face (its ``__init__``) listing its public names:

============================== ======================================================= =========================
input                          reader                                                  table
============================== ======================================================= =========================
monitor log (or bare           :func:`.monitor.read_monitor_log`                       samples
``date``/``kubectl top``/
``cat cpu.stat`` loops)
cgroup directory               :func:`.cgroup.read_cgroup_dir`                         samples (1 row)
Prometheus JSON / text format  :func:`.prometheus.read_prometheus_parts`               samples, prometheus_rates
Prometheus server or export    :func:`.prometheus.read_source`                         per-container CPU series
k6 ``--out json``              :func:`.k6.read_k6_json` (lazy, chunked)                requests
k6 ``--out csv``               :func:`.k6.read_k6_csv`                                 requests
k6 with stage timings          :func:`.k6.read_k6_with_stages`                         requests, stage_timings
k6 summary / ``handleSummary`` :func:`.k6.read_k6_summary`                             k6_summary
``time`` (bash, zsh, GNU, BSD) :func:`.time_output.read_time_output`                   timings
published write-ups' tables    :mod:`.published` (``load_*``, ``read_published_runs``) runs and published tables
============================== ======================================================= =========================

Every reader opens its file with :func:`.input_files.open_input` (gzip, zstd
and xz told by magic bytes).  Each result carries its ``provenance``: how each
source was read (formats and choices made from the data).
:func:`.detect.read_any` picks the reader from the content; the monitor-log
*writer* used by the experiment runners is :mod:`.monitor.monitor_format`;
:mod:`.intervals` derives the intervals table from samples.

This package's face is light: ``throttlelab --help`` imports the ingest
command, and with it this package, so it imports :mod:`.detect` (standard
library only) and loads :class:`IngestResult` and :class:`SkipReport` on
first use; never polars or numpy.

The samples table
-----------------
One row per monitor block (sample) and listed pod/container, cumulative counters in one unit each:
``usage_seconds`` (v2 ``usage_usec`` / 1e6; v1 ``cpuacct.usage`` / 1e9),
``user_seconds``/``system_seconds`` (v2 only), ``nr_periods``, ``nr_throttled``,
``throttled_seconds`` (v2 ``throttled_usec`` / 1e6; v1 ``throttled_time`` / 1e9),
``nr_bursts``, ``burst_seconds``; ``limit_cores`` = quota / period (null when
unlimited: ``max`` or ``-1``) and ``period_us``; ``top_cpu_cores`` and
``top_memory_bytes`` from ``kubectl top`` (one row per pod or container listed;
with several, the counters are on a row of their own: see :mod:`.monitor.monitor_containers`).  Conversions are exact IEEE
divisions.  ``line`` is the block header's line (0 for Prometheus, which has no
lines).  ``pod`` comes from the log header (``Pod:``), else from ``kubectl top``.
``segment`` numbers counter segments within a source, per pod and container: a
new one starts at a new log header, a change of cgroup version, or any counter
going backwards.  Times without a zone are read in the stated ``tz``
(``IngestResult.provenance``; ``throttlelab ingest --tz``, recorded in the parquet metadata).

The intervals table
-------------------
Rates between consecutive samples of one source and segment (never across a
reset): ``throttled_ratio`` = Δnr_throttled / Δnr_periods, throttled seconds
per second, ``effective_cores`` = Δusage / Δt, the limit and ``kubectl top``
values at the interval end, ``usage_share_of_limit``.  Two columns were added
to the canonical definition by this layer: ``nr_periods_delta`` and
``nr_throttled_delta`` (so sums over many intervals give exact ratios; see
:func:`.intervals.summary_by_limit`).

Bad input is never a traceback: unreadable files raise
:class:`~throttlelab.errors.InputError` naming the file (and line); in lenient
mode (the default) every unusable line is counted under its reason, and with
``strict=True`` the first one raises.
"""

from throttlelab.ingest.detect import FORMATS, detect_format, read_any

__all__ = [
    'FORMATS', 'IngestResult', 'SkipReport', 'detect_format', 'read_any'
]


def __getattr__(name: str):
    """The result types, loaded on first use (their dataclasses, inspect and typing would add 21 modules to
    ``--help``)."""
    if name in ("IngestResult", "SkipReport"):
        from throttlelab.ingest.result import IngestResult, SkipReport

        return {"IngestResult": IngestResult, "SkipReport": SkipReport}[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
