"""The block stage of the monitor-log reader: blocks -> samples table + skip report.

:func:`assemble` skips blocks with a bad, duplicate or out-of-order timestamp
or mixed cgroup versions, assigns runs, pods (:mod:`.monitor_pods`) and counter
segments (:mod:`.counter_segments`), converts the counters to seconds and builds
the canonical samples table; the skips are counted by :mod:`.monitor_skips`.
"""

from __future__ import annotations

import numpy as np
import polars as pl

from throttlelab import tables
from throttlelab.ingest.counter_segments import segments
from throttlelab.ingest.monitor_blocks import STAT_KEYS, V1_KEYS, V2_KEYS, Blocks
from throttlelab.ingest.monitor_format import HEADER_START
from throttlelab.ingest.monitor_pods import pods_and_top
from throttlelab.ingest.monitor_skips import R, ingest_result, raise_first_skip
from throttlelab.ingest.result import IngestResult

_K = {k: i for i, k in enumerate(STAT_KEYS)}
_MIN = np.iinfo(np.int64).min


def assemble(source: str, n: int, rc: np.ndarray, blocks: Blocks, headers: tuple[np.ndarray, pl.Series],
             line_text, strict: bool) -> IngestResult:
    """The block stage: skip blocks with a bad, duplicate or out-of-order timestamp
    or mixed cgroup versions, assign runs and pods, and build the samples table.

    ``rc`` (per line, modified) comes from the line stage; ``line_text(j)`` gives
    line ``j``'s text for messages.
    """
    nb = len(blocks)
    # Blocks: timestamps, ordering, cgroup version.
    block_reason = np.zeros(nb, dtype=np.uint8)
    ts_ok = blocks.ts_ok
    tsv = np.where(ts_ok, blocks.ts, _MIN)
    prev_max = np.concatenate([[_MIN], np.maximum.accumulate(tsv)[:-1]]) if nb else tsv
    block_reason[~ts_ok] = R["bad timestamp"]
    block_reason[ts_ok & (tsv == prev_max)] = R["duplicate timestamp"]
    block_reason[ts_ok & (tsv < prev_max)] = R["out-of-order timestamp"]
    stat_present = blocks.stat_present
    has_v2 = stat_present[[_K[k] for k in V2_KEYS]].any(axis=0)
    has_v1 = stat_present[[_K[k] for k in V1_KEYS]].any(axis=0) | blocks.acct_present
    mixed = has_v1 & has_v2
    block_reason[mixed & (block_reason == 0)] = R["mixed cgroup v1 and v2 keys"]
    bad_blocks = np.flatnonzero(block_reason)
    if len(bad_blocks):
        ends = np.append(blocks.line[1:], n)
        idx = line_ranges(blocks.line[bad_blocks], ends[bad_blocks])
        br = np.repeat(block_reason[bad_blocks], ends[bad_blocks] - blocks.line[bad_blocks])
        free = rc[idx] == 0
        rc[idx[free]] = br[free]
    if strict and rc.any():
        raise_first_skip(source, rc, line_text)

    # Runs (headers) and pods per block.
    t = pl.col("t")
    hdrs = pl.DataFrame({"i": headers[0], "t": headers[1]})
    starts = hdrs.filter(t.str.starts_with(HEADER_START))["i"].to_numpy()
    pods = hdrs.filter(t.str.starts_with("Pod: "))
    keep = block_reason == 0
    all_kept = bool(keep.all())
    kb = slice(0, nb) if all_kept else np.flatnonzero(keep)  # plain slices instead of fancy indexing
    line_i = blocks.line[kb]
    run = np.searchsorted(starts, line_i, side="right")
    pod_pos = np.searchsorted(pods["i"].to_numpy(), line_i, side="right") - 1
    pod_names = pods["t"].str.slice(5).str.strip_chars()
    pod, container, top_cpu, top_mem = pods_and_top(pod_names, pod_pos, blocks.top_rows, blocks.top_row[kb], run)
    literals = {k: v for k, v in (("pod", pod), ("container", container)) if isinstance(v, pl.Expr)}

    n_kept = int(keep.sum())
    version = np.where(has_v2, 2, np.where(has_v1, 1, 0))[kb]
    stat = blocks.stat
    S = {k: (stat[_K[k], kb], stat_present[_K[k], kb]) for k in STAT_KEYS}

    def col(name: str, dtype=pl.Int64) -> pl.Series:
        v, p = S[name]
        s = pl.Series(name, v, dtype=pl.Int64)
        return (s if p.all() else s.scatter(np.flatnonzero(~p), None)).cast(dtype)

    acct_v, acct_p = blocks.acct[kb], blocks.acct_present[kb]

    def seconds(v2_key: str | None, v1_key: str | None) -> pl.Series:
        # numpy true division: exact, unlike a multiply by the reciprocal
        out = np.zeros(n_kept, dtype=np.float64)
        have = np.zeros(n_kept, dtype=bool)
        sources = [(v2_key, 2, 1e6), (v1_key, 1, 1e9)]
        for key, ver, scale in sources:
            if key is None:
                continue
            v, p = (acct_v, acct_p) if key == "acct" else S[key]
            m = p & (version == ver)
            if m.all():  # the usual case: one version, no gaps
                return pl.Series(np.divide(v, scale, dtype=np.float64))
            out[m] = v[m] / scale
            have |= m
        return pl.Series(out) if have.all() else pl.Series(out).scatter(np.flatnonzero(~have), None)

    ts = pl.Series("ts", blocks.ts[kb], dtype=pl.Int64).cast(pl.Datetime("us")).dt.replace_time_zone("UTC")
    counters = {
        "usage_seconds": seconds("usage_usec", "acct"),
        "nr_periods": col("nr_periods"),
        "nr_throttled": col("nr_throttled"),
        "throttled_seconds": seconds("throttled_usec", "throttled_time"),
        "nr_bursts": col("nr_bursts"),
        "burst_seconds": seconds("burst_usec", "burst_time"),
    }
    segment = segments(list(counters.values()), version, run)
    frame = pl.DataFrame(
        {
            "timestamp": ts,
            "line": line_i + 1,
            "run": run,
            **{k: v for k, v in (("pod", pod), ("container", container)) if k not in literals},
            "version": pl.Series(version, dtype=pl.Int8),
            **counters,
            "user_seconds": seconds("user_usec", None),
            "system_seconds": seconds("system_usec", None),
            "segment": segment,
            "quota": blocks.quota[kb],
            "period": blocks.period[kb],
            "max_present": blocks.max_present[kb],
            "top_cpu": top_cpu,
            "top_mem": top_mem,
        },
        strict=False,
    )
    return ingest_result(source, rc, line_text, _to_samples(frame, source, literals), n, strict)


def line_ranges(starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """The integers of the ranges ``[starts[i], ends[i])``, concatenated."""
    lengths = ends - starts
    total = int(lengths.sum())
    if total == 0:
        return np.zeros(0, dtype=np.int64)
    offsets = np.repeat(starts - np.concatenate([[0], np.cumsum(lengths)[:-1]]), lengths)
    return np.arange(total, dtype=np.int64) + offsets


def _to_samples(f: pl.DataFrame, source: str, literals: dict[str, pl.Expr]) -> pl.DataFrame:
    c = pl.col
    v = c("version")
    quota, period = c("quota"), c("period")
    has_max = c("max_present")
    out = f.select(
        "timestamp",
        source=pl.lit(source),
        line="line",
        pod=literals.get("pod", "pod"),
        container=literals.get("container", "container"),
        run="run",
        cgroup_version=pl.when(v > 0).then(v),
        usage_seconds="usage_seconds",
        user_seconds="user_seconds",
        system_seconds="system_seconds",
        nr_periods="nr_periods",
        nr_throttled="nr_throttled",
        throttled_seconds="throttled_seconds",
        nr_bursts="nr_bursts",
        burst_seconds="burst_seconds",
        limit_cores=pl.when(has_max & (quota >= 0) & (period > 0)).then(quota / period),
        period_us=pl.when(has_max).then(period),
        top_cpu_cores="top_cpu",
        top_memory_bytes="top_mem",
        segment="segment",
    )
    return tables.conform(out, "samples")
