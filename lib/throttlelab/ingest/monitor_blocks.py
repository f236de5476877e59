"""The block stage of the monitor-log reader: blocks -> the canonical samples table.

:func:`assemble` skips whole blocks with a bad, duplicate or out-of-order time
or mixed cgroup versions, assigns runs (log headers) and pods, converts the
counters to seconds and builds one row per block, or, when kubectl top lists
several pods or containers, one row per listed pod/container (its ``kubectl
top`` values) plus one row for the cgroup the counters were read from (pod of
the log header, no container).  Counter segments are numbered per series
(pod, container): a new one starts at a new run, a change of cgroup version,
or any counter going backwards (a restart).
"""

from __future__ import annotations

import numpy as np
import polars as pl

from throttlelab import tables
from throttlelab.ingest.counter_segments import COUNTERS
from throttlelab.ingest.monitor_format import HEADER_START
from throttlelab.ingest.monitor_lines import STAT_KEYS, V1_KEYS, V2_KEYS, LineStage
from throttlelab.ingest.monitor_sections import nulls
from throttlelab.ingest.monitor_skips import R, ingest_result, raise_first_skip
from throttlelab.ingest.result import IngestResult

_MIN = np.iinfo(np.int64).min


def assemble(source: str, n: int, stage: LineStage, line_text, strict: bool, tz: str = "UTC") -> IngestResult:
    """Blocks of the line stage -> :class:`~.result.IngestResult` with the samples table.

    ``stage.rc`` (per line) gets the block-level reasons; ``line_text(j)`` gives
    line ``j``'s text for messages; ``tz`` is recorded when a time had no zone.
    """
    rc, blocks = stage.rc, stage.blocks
    c = pl.col
    has_v2 = pl.any_horizontal(c(k).is_not_null() for k in V2_KEYS)
    has_v1 = pl.any_horizontal(c(k).is_not_null() for k in V1_KEYS) | c("acct").is_not_null()
    flags = blocks.select(ts=c("ts").dt.epoch("us").fill_null(_MIN), ts_bad="ts_bad", untimed=c("ts").is_null() & ~c("ts_bad"),
                          mixed=has_v1 & has_v2)
    tsv, ts_bad, untimed = flags["ts"].to_numpy(), flags["ts_bad"].to_numpy(), flags["untimed"].to_numpy()
    prev_max = np.concatenate([[_MIN], np.maximum.accumulate(tsv)[:-1]]) if len(tsv) else tsv
    timed = ~ts_bad & ~untimed
    reason = np.zeros(len(tsv), dtype=np.uint8)
    reason[ts_bad] = R["bad timestamp"]
    reason[timed & (tsv == prev_max)] = R["duplicate timestamp"]
    reason[timed & (tsv < prev_max)] = R["out-of-order timestamp"]
    reason[flags["mixed"].to_numpy() & (reason == 0)] = R["mixed cgroup v1 and v2 keys"]
    line = blocks["line"].to_numpy()
    bad = np.flatnonzero(reason)
    if len(bad):
        ends = np.append(line[1:], n)
        per_line = np.zeros(n + 1, dtype=np.int64)  # block reason painted over each bad block's lines
        np.add.at(per_line, line[bad], reason[bad].astype(np.int64))
        np.add.at(per_line, ends[bad], -reason[bad].astype(np.int64))
        paint = np.cumsum(per_line[:-1]).astype(np.uint8)
        free = (rc == 0) & (paint > 0)
        rc[free] = paint[free]
    if strict and rc.any():
        raise_first_skip(source, rc, line_text)

    hdrs = stage.headers
    starts = hdrs.filter(c("t").str.starts_with(HEADER_START))["i"].to_numpy()
    pods = hdrs.filter(c("t").str.starts_with("Pod: "))
    run = np.searchsorted(starts, line, side="right")
    pod_pos = np.searchsorted(pods["i"].to_numpy(), line, side="right") - 1
    names = pods["t"].str.slice(5).str.strip_chars()
    header_pod = nulls(len(line), pl.String) if not len(names) else \
        names.gather(np.maximum(pod_pos, 0)).scatter(np.flatnonzero(pod_pos < 0), None)
    kept = blocks.with_columns(block=pl.int_range(pl.len(), dtype=pl.Int64), run=run, hpod=header_pod,
                               version=pl.when(has_v2).then(2).when(has_v1).then(1).cast(pl.Int8))
    kept = kept.filter(pl.Series(reason == 0)) if len(bad) else kept
    note = {"naive_timestamps_tz": tz} if stage.naive else {}
    return ingest_result(source, rc, line_text, _samples(kept, stage.top, source), n, strict, note)


def _samples(kept: pl.DataFrame, top: pl.DataFrame, source: str) -> pl.DataFrame:
    """The samples table of the kept blocks and their kubectl top rows."""
    return _to_samples(_rows(kept, top), source)


def _rows(kept: pl.DataFrame, top: pl.DataFrame) -> pl.DataFrame:
    """One row per block, or per kubectl top row plus the cgroup's row (see the module docstring)."""
    c = pl.col
    listed = top["block"].to_numpy()
    if not len(listed) or (np.diff(listed) > 0).all():  # at most one kubectl top row per block: gathered, not joined
        row = np.full(int(kept["block"].max() or 0) + 1 if kept.height else 0, -1, dtype=np.int64)
        row[listed[listed < len(row)]] = np.flatnonzero(listed < len(row))
        at = row[kept["block"].to_numpy()]
        rows = pl.Series(at, dtype=pl.Int64).scatter(np.flatnonzero(at < 0), None) if (at < 0).any() else pl.Series(at)
        return kept.with_columns(top.drop("block").select(pl.all().gather(rows))).with_columns(
            pod=pl.coalesce("hpod", "pod"), container=c("container").forward_fill().backward_fill().over("run"),
            order=pl.lit(0, pl.Int64))
    return _several_rows(kept, top, listed)


def _index(at: np.ndarray) -> pl.Series:
    """Row indices for a gather; -1 -> null."""
    missing = np.flatnonzero(at < 0)
    s = pl.Series(at, dtype=pl.Int64)
    return s.scatter(missing, None) if len(missing) else s


def _several_rows(kept: pl.DataFrame, top: pl.DataFrame, listed: np.ndarray) -> pl.DataFrame:
    """:func:`_rows` when some block lists several pods or containers: the rows placed by index
    arithmetic (each block's own row first, then its listed rows in kubectl top's order) and each
    column gathered once, instead of joins, a concat and a sort."""
    c = pl.col
    if (np.diff(listed) < 0).any():  # kubectl top rows come in block order; keep it so
        order = np.argsort(listed, kind="stable")
        top, listed = top[order], listed[order]
    kb = kept["block"].to_numpy()
    first = np.searchsorted(listed, kb)
    nt = np.searchsorted(listed, kb, side="right") - first
    several = nt > 1
    own = ~several | kept.select(pl.any_horizontal(c(k).is_not_null() for k in (*STAT_KEYS, "quota", "acct"))
                                 ).to_series().to_numpy()  # the block's own row (the cgroup's, when several)
    per = np.where(several, nt, 0) + own
    k = np.repeat(np.arange(len(kb), dtype=np.int64), per)  # each output row's block (row of kept)
    j = np.arange(len(k), dtype=np.int64) - np.repeat(np.cumsum(per) - per, per) - own[k]  # its listed row; -1 own
    is_own = j < 0
    single = is_own & ~several[k]
    t = np.where(is_own, np.where(single & (nt[k] == 1), first[k], -1), first[k] + j)  # its kubectl top row
    # the pod of a cgroup row: the pod its block lists, when only one
    pods = top["pod"]
    change = np.flatnonzero(pods.ne_missing(pods.shift(1)).fill_null(False).to_numpy()[1:] & (listed[1:] == listed[:-1]))
    mixed = np.zeros(len(kb), dtype=bool)
    if len(change):
        mixed = np.isin(kb, listed[1:][change])
    t_pod = np.where(is_own & ~single, np.where(mixed[k], -1, first[k]), t)
    at_own = _index(np.where(is_own, k, -1))
    block_cols = [*STAT_KEYS, "quota", "period", "acct", "version"]
    out = kept.select(pl.col("line", "ts", "run").gather(k)).with_columns(
        kept.select(pl.col(block_cols).gather(at_own)),
        hpod=kept["hpod"].gather(k),
        tpod=pods.gather(_index(t_pod)),
        container=top["container"].gather(_index(t)),
        cpu=top["cpu"].gather(_index(t)),
        mem=top["mem"].gather(_index(t)),
    )
    pod = pl.when(pl.Series(is_own)).then(pl.coalesce("hpod", "tpod")).otherwise(c("tpod"))
    out = out.with_columns(pod=pod).drop("hpod", "tpod")
    at = np.flatnonzero(single)
    if len(at):  # a block's own rows take the container of the run's other own rows
        filled = out.select(c("container", "run").gather(at)).select(c("container").forward_fill().backward_fill().over("run"))
        out = out.with_columns(out["container"].scatter(at, filled.to_series()))
    return out


def _to_samples(f: pl.DataFrame, source: str) -> pl.DataFrame:
    c = pl.col
    v = c("version")
    quota, period = c("quota"), c("period")

    def exact(col: str, scale: float) -> pl.Expr:
        # numpy true division: exact (polars multiplies by the reciprocal, which is not)
        return c(col).map_batches(lambda s: pl.Series(s.to_numpy() / scale, nan_to_null=True), return_dtype=pl.Float64)

    def seconds(v2_key: str | None, v1_key: str | None) -> pl.Expr:
        out = pl.when(v == 2).then(exact(v2_key, 1e6)) if v2_key else pl.when(pl.lit(False)).then(None)
        return out.when(v == 1).then(exact(v1_key, 1e9)) if v1_key else out

    out = f.select(
        timestamp="ts",
        source=pl.lit(source),
        line=c("line") + 1,
        pod="pod",
        container="container",
        run="run",
        cgroup_version="version",
        usage_seconds=seconds("usage_usec", "acct"),
        user_seconds=seconds("user_usec", None),
        system_seconds=seconds("system_usec", None),
        nr_periods="nr_periods",
        nr_throttled="nr_throttled",
        throttled_seconds=seconds("throttled_usec", "throttled_time"),
        nr_bursts="nr_bursts",
        burst_seconds=seconds("burst_usec", "burst_time"),
        limit_cores=pl.when((quota >= 0) & (period > 0)).then(quota / period),  # column / column: exact
        period_us=period,
        top_cpu_cores="cpu",
        top_memory_bytes="mem",
    )
    return tables.conform(number_segments(out), "samples")


def number_segments(samples: pl.DataFrame) -> pl.DataFrame:
    """Add ``segment`` (and drop ``run``): counter segments per series (pod,
    container), numbered in order of first appearance."""
    c = pl.col
    series = ["run", "pod", "container"]
    version = c("cgroup_version").forward_fill()
    new = pl.any_horizontal(*((c(k).forward_fill().diff() < 0).fill_null(False) for k in COUNTERS),
                            (version != version.shift(1)).fill_null(False))
    if samples.select(pl.max_horizontal(c(k).n_unique() for k in series)).item() <= 1:  # one series: no windows
        return samples.with_columns(segment=new.cum_sum().cast(pl.Int64)).drop("run")
    local = new.cum_sum().over(series)
    out = samples.with_row_index("_i").with_columns(_local=local).with_columns(
        segment=c("_i").min().over([*series, "_local"]).rank("dense").cast(pl.Int64) - 1)
    return out.drop("_i", "run", "_local")

