"""The block stage of the monitor-log reader: blocks -> the canonical samples table.

:func:`kept_blocks` skips whole blocks with a bad, duplicate or out-of-order time
or mixed cgroup versions and assigns runs (log headers) and pods;
:func:`take_samples` converts the counters to seconds and builds one row per
block, or, when kubectl top lists several pods or containers, one row per
listed pod/container (its ``kubectl top`` values) plus one row for the cgroup
the counters were read from (pod of the log header, no container).  Counter segments are numbered per series
(pod, container): a new one starts at a new run, a change of cgroup version,
or any counter going backwards (a restart).
"""

from __future__ import annotations

import numpy as np
import polars as pl

from throttlelab import tables
from throttlelab.core.cpu_stat import STAT_KEYS, V1_KEYS, V1_USAGE_FILE, V2_KEYS
from throttlelab.core.metrics import CPU_COUNTERS, CpuCounter
from throttlelab.ingest.counter_segments import COUNTERS
from throttlelab.ingest.monitor.monitor_format import HEADER_START
from throttlelab.ingest.monitor.monitor_lines import LineStage
from throttlelab.ingest.monitor.monitor_sections import nulls
from throttlelab.ingest.monitor.monitor_skips import R, skip_report
from throttlelab.ingest.result import SkipReport

_MIN = np.iinfo(np.int64).min


def kept_blocks(source: str, n: int, stage: LineStage, line_text, strict: bool,
                tz: str = "UTC") -> tuple[pl.DataFrame, SkipReport, dict[str, str]]:
    """The blocks kept (with their run and the log header's pod), the skip report (the first skip raised with
    ``strict``) and the notes of the source's provenance; ``stage.rc`` (per line) gets the block-level reasons,
    ``line_text(j)`` gives line ``j``'s text for messages, ``tz`` is recorded when a time had no zone.  The
    samples are built from the kept blocks by :func:`take_samples`, in a second step, so that a caller can
    let the lines go first."""
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
    skipped = skip_report(source, rc, line_text, strict)

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
    return kept, skipped, {"naive_timestamps_tz": tz} if stage.naive else {}


def take_samples(frames: list[pl.DataFrame], source: str) -> pl.DataFrame:
    """The samples table of ``frames`` (the kept blocks and the kubectl top rows), which it empties: when the
    caller holds the two frames nowhere else, their memory goes as soon as the rows are gathered from them (on a
    day of 3 M rows, about 250 MB less at the peak)."""
    kept, top = frames
    listed = top["block"].to_numpy()
    if not len(listed) or (np.diff(listed) > 0).all():  # at most one kubectl top row per block
        frames.clear()
        return _to_samples(_rows(kept, top, listed), source)
    del kept, top
    return _several_samples(frames, listed, source)


def _rows(kept: pl.DataFrame, top: pl.DataFrame, listed: np.ndarray) -> pl.DataFrame:
    """One row per block, when each lists at most one pod or container (its kubectl top row gathered, not joined)."""
    c = pl.col
    row = np.full(int(kept["block"].max() or 0) + 1 if kept.height else 0, -1, dtype=np.int64)
    row[listed[listed < len(row)]] = np.flatnonzero(listed < len(row))
    at = row[kept["block"].to_numpy()]
    rows = pl.Series(at, dtype=pl.Int64).scatter(np.flatnonzero(at < 0), None) if (at < 0).any() else pl.Series(at)
    return kept.with_columns(top.drop("block").rechunk().select(pl.all().gather(rows))).with_columns(
        pod=pl.coalesce("hpod", "pod"), container=c("container").forward_fill().backward_fill().over("run"))


def _take(frame: pl.DataFrame, at: np.ndarray, valid: np.ndarray | None = None) -> pl.DataFrame:
    """Rows ``at`` of ``frame``; null where not ``valid`` (a gather of plain indices: one with null indices is
    slower).  From a frame much shorter than ``at`` (the blocks' cgroup values, for every row), one gather from the
    frame with a row of nulls appended, the rows not ``valid`` pointing at it (on a day of 3.1 M rows, 0.14 s
    against 0.19 s for a gather and a mask); else a gather and a mask (appending would copy the frame)."""
    if not frame.height:
        return frame.clear(len(at))
    if valid is None or valid.all():
        return frame[at]
    if 2 * frame.height <= len(at):
        padded = pl.concat([frame, frame.clear(1)], rechunk=True)
        return padded[np.where(valid, at, np.asarray(frame.height, dtype=at.dtype))]
    out = frame[np.maximum(at, 0)]
    keep = pl.Series(valid)
    return out.select(pl.when(keep).then(pl.col(name)).alias(name) for name in out.columns)


def _several_samples(frames: list[pl.DataFrame], listed: np.ndarray, source: str) -> pl.DataFrame:
    """The samples when some block lists several pods or containers: rows placed by index arithmetic
    (each block's own row first, then its listed rows in kubectl top's order), the cgroup's values
    computed once per block and gathered, counter segments started at the blocks' own rows.  ``frames``
    (the kept blocks and the kubectl top rows) is emptied, so they go once gathered."""
    c = pl.col
    kept, top = frames
    frames.clear()
    if (np.diff(listed) < 0).any():  # kubectl top rows come in block order; keep it so
        order = np.argsort(listed, kind="stable")
        top, listed = top[order], listed[order]
    # indices as int32: polars gathers with them twice as fast as with int64 (no conversion)
    kb = kept["block"].to_numpy()
    first = np.searchsorted(listed, kb).astype(np.int32)
    nt = np.searchsorted(listed, kb, side="right").astype(np.int32) - first
    several = nt > 1
    own = ~several | kept.select(pl.any_horizontal(c(k).is_not_null() for k in (*STAT_KEYS, "quota", "acct"))
                                 ).to_series().to_numpy()  # the block's own row (the cgroup's, when several)
    per = np.where(several, nt, 0) + own
    k = np.repeat(np.arange(len(kb), dtype=np.int32), per)  # each output row's block (row of kept)
    j = np.arange(len(k), dtype=np.int32) - np.repeat(np.cumsum(per, dtype=np.int32) - per, per) - own[k]  # -1: own
    is_own = j < 0
    single = is_own & ~several[k]
    t = np.where(is_own, np.where(single & (nt[k] == 1), first[k], np.int32(-1)), first[k] + j)  # its kubectl top row
    # the pod of a cgroup row: the pod its block lists, when only one
    pods = top["pod"]
    change = np.flatnonzero(pods.ne_missing(pods.shift(1)).fill_null(False).to_numpy()[1:] & (listed[1:] == listed[:-1]))
    several_pods = np.zeros(int(max(kb.max(initial=-1), listed.max(initial=-1))) + 1, dtype=bool)
    several_pods[listed[1:][change]] = True
    mixed = several_pods[kb]  # blocks listing several pods (a lookup: np.isin took 0.1 s on a day)
    t_pod = np.where(is_own & ~single, np.where(mixed[k], np.int32(-1), first[k]), t)

    # the pod of each row, from the rows of kubectl top and then the log headers' pods: a cgroup row takes its
    # log header's pod, else the one pod its block lists
    hpod = kept["hpod"].is_not_null().to_numpy()
    at_pod = np.where(is_own, np.where(hpod[k], np.int32(len(listed)) + k, t_pod), t)
    # a block listing at most one pod or container has that container, else the nearest such block's of its run
    # (before it, else after it; as in _rows)
    at_container = np.where(is_own, np.int32(-1), t)
    at = np.flatnonzero(single)
    if len(at):
        named = np.where(t[at] >= 0, t[at], 0)
        named = np.where((t[at] >= 0) & top["container"].gather(named).is_not_null().to_numpy(), t[at], -1)
        carried = pl.DataFrame({"i": named, "run": kept["run"].to_numpy()[k[at]]}).select(
            pl.when(c("i") >= 0).then("i").forward_fill().backward_fill().over("run").fill_null(-1))
        at_container[at] = carried.to_series().to_numpy()
    del single, at, t_pod, hpod, j, nt, first

    # The series of every row (run, pod, container) and its counter segments, from codes of the texts the rows
    # are gathered from, before the rows are: the samples' columns then need no temporaries of their own (on a
    # day of 3.1 M rows, the peak was 100-150 MB higher when the series were found from the rows' texts).
    sid = _codes_series_ids(kept["run"].to_numpy()[k], _text_codes(pl.concat([pods, kept["hpod"]]), at_pod),
                            _text_codes(top["container"], at_container))
    nk = kept.height
    # the cgroup's values per block, with a row of nulls after them that the rows without their own values point
    # at.  Every frame is gathered from in one piece: the blocks and kubectl top rows come in a chunk per part of
    # the line stage, and a gather from 9 chunks took 0.2 s against 0.05 s (a day's values, 3.1 M rows).
    src = kept.select(*_VALUE_COLUMNS)
    values = pl.concat([src, src.clear(1)], rechunk=False).select(**_cgroup_values()).rechunk()
    del src
    # Segments start where a series' counters go back: only at own rows, as the listed rows have none (a series'
    # counters are carried over them), so the starts are found among the blocks' values, series by series (a
    # block without an own row has no values: a series of its own, -1, where nothing starts).
    block_sid = np.full(len(own), -1, dtype=np.int64)
    block_sid[own] = sid[is_own]
    starts = np.zeros(len(is_own), dtype=bool)
    starts[is_own] = _series_starts(values.head(nk), block_sid)[own]
    segment = segment_ids(sid, starts)
    del block_sid, starts, sid
    rows = [
        kept.select(timestamp="ts", line=c("line") + 1).rechunk()[k],
        _take(pl.concat([pods, kept["hpod"]], rechunk=True).to_frame("pod"), at_pod, at_pod >= 0),
        _take(top.select("container").rechunk(), at_container, at_container >= 0),
        _take(top.select(top_cpu_cores="cpu", top_memory_bytes="mem").rechunk(), t, t >= 0),
    ]
    del at_pod, at_container, t, kept, top, pods  # their memory is reused by the largest gather, the values'
    rows.append(values[np.where(is_own, k, np.int32(nk))])
    del k, values
    rows = pl.concat(rows, how="horizontal").with_columns(source=pl.lit(source), segment=pl.Series(segment))
    return tables.conform(rows, "samples")


#: The blocks' columns the cgroup's values are computed from (:func:`_cgroup_values`).
_VALUE_COLUMNS = ("version", *STAT_KEYS, "quota", "period", "acct")


def _text_codes(texts: pl.Series, at: np.ndarray) -> np.ndarray:
    """Per index of ``at`` into ``texts``, a code of the text there: equal texts, equal codes; 0 for a null text or
    an index < 0 (no text), the others from 1."""
    codes = np.zeros(len(texts) + 1, dtype=np.int32)  # the last: no text; int32, as the rows' indices are
    codes[:-1] = (texts.cast(pl.Categorical).to_physical().cast(pl.Int32) + 1).fill_null(0).to_numpy()
    return codes[np.where(at >= 0, at, np.int32(len(texts)))]


def _codes_series_ids(run: np.ndarray, pod: np.ndarray, container: np.ndarray) -> np.ndarray:
    """An integer per row, equal for rows of the same series, from the codes of its run (>= 0), pod and
    container (:func:`_text_codes`)."""
    if not len(run):
        return np.zeros(0, dtype=np.int64)
    span_p, span_q = int(pod.max()) + 1, int(container.max()) + 1
    if (int(run.max()) + 1) * span_p * span_q < 2**62:  # in place: one array of the rows' length, not five
        out = run.astype(np.int64)
        out *= span_p
        out += pod
        out *= span_q
        out += container
        return out
    codes = pl.DataFrame({"r": run, "p": pod, "q": container})
    return codes.select(pl.struct("r", "p", "q").rank("dense")).to_series().to_numpy().astype(np.int64)


def _cgroup_values() -> dict[str, pl.Expr]:
    """The samples' columns of the cgroup (cpu.stat, cpu.max, cpuacct.usage), from a block's columns."""
    c = pl.col
    v = c("version")
    quota, period = c("quota"), c("period")

    def exact(col: str, scale: float) -> pl.Expr:
        # numpy true division: exact (polars multiplies by the reciprocal, which is not)
        return c(col).map_batches(lambda s: pl.Series(s.to_numpy() / scale, nan_to_null=True), return_dtype=pl.Float64)

    def value(k: CpuCounter) -> pl.Expr | str:
        """A counter in its unit, from the column of the block's cgroup version (v1's usage: ``acct``)."""
        if k.integer:
            return k.v2_key  # a count: the same key in both versions
        v1_key = "acct" if k.v1_key == V1_USAGE_FILE else k.v1_key
        out = pl.when(v == 2).then(exact(k.v2_key, k.v2_scale))
        return out.when(v == 1).then(exact(v1_key, k.v1_scale)) if v1_key else out

    return dict(
        cgroup_version="version",
        **{k.name: value(k) for k in CPU_COUNTERS},
        limit_cores=pl.when((quota >= 0) & (period > 0)).then(quota / period),  # column / column: exact
        period_us=period,
    )


def _to_samples(f: pl.DataFrame, source: str) -> pl.DataFrame:
    c = pl.col
    out = f.select(
        timestamp="ts",
        source=pl.lit(source),
        line=c("line") + 1,
        pod="pod",
        container="container",
        run="run",
        **_cgroup_values(),
        top_cpu_cores="cpu",
        top_memory_bytes="mem",
    )
    return tables.conform(number_segments(out), "samples")


def _starts() -> pl.Expr:
    """Whether a sample starts a counter segment, within its series: a counter goes back, or the cgroup version
    changes (each compared with the last sample that has one)."""
    c = pl.col
    version = c("cgroup_version").forward_fill()
    return pl.any_horizontal(*((c(k).forward_fill().diff() < 0).fill_null(False) for k in COUNTERS),
                             (version != version.shift(1)).fill_null(False))


def _series_starts(samples: pl.DataFrame, sid: np.ndarray) -> np.ndarray:
    """:func:`_starts` of each sample within its series (``sid``, from :func:`_series_ids`)."""
    if not len(sid) or sid.min() == sid.max():
        return samples.select(_starts()).to_series().to_numpy()
    return samples.with_columns(_sid=sid).select(_starts().over("_sid")).to_series().to_numpy()


def number_segments(samples: pl.DataFrame, starts: np.ndarray | None = None,
                    sid: np.ndarray | None = None) -> pl.DataFrame:
    """Add ``segment`` (and drop ``run``): counter segments per series (run, pod,
    container), numbered in order of first appearance.  ``starts`` (of
    :func:`_series_starts`) and ``sid`` (of :func:`_series_ids`): when the
    caller has them.

    A segment begins at the first sample of its series and at each sample
    that starts one; every sample belongs to the last beginning at or before
    it in its series, and since a segment's first sample is its beginning,
    numbering the beginnings in file order numbers the segments in order of
    first appearance."""
    sid = _series_ids(samples) if sid is None else sid
    new = _series_starts(samples, sid) if starts is None else starts
    return samples.with_columns(segment=pl.Series(segment_ids(sid, new), dtype=pl.Int64)).drop("run")


def segment_ids(sid: np.ndarray, new: np.ndarray) -> np.ndarray:
    """The segment of each sample (see :func:`number_segments`) from its series (``sid``) and whether it starts
    a segment (``new``).

    >>> segment_ids(np.array([5, 7, 5, 7, 5]), np.array([False, False, True, False, False])).tolist()
    [0, 1, 2, 1, 2]
    """
    if not len(sid) or sid.min() == sid.max():  # one series: no windows
        return np.cumsum(new, dtype=np.int64)
    begins = new | pl.Series(sid).is_first_distinct().to_numpy()
    ids = pl.DataFrame({"sid": sid, "b": begins}).with_row_index("i")
    last = ids.select(pl.when("b").then("i").forward_fill().over("sid")).to_series().to_numpy()
    del ids
    return (np.cumsum(begins, dtype=np.int64) - 1)[last]


def _series_ids(samples: pl.DataFrame) -> np.ndarray:
    """An integer per sample, equal for samples of the same series (run, pod, container)."""
    c = pl.col
    if not samples.height:
        return np.zeros(0, dtype=np.int64)
    codes = samples.select(  # null -> 0, the others from 1
        run=c("run").cast(pl.Int64).fill_null(-1) + 1,
        pod=(c("pod").cast(pl.Categorical).to_physical().cast(pl.UInt32) + 1).fill_null(0),
        container=(c("container").cast(pl.Categorical).to_physical().cast(pl.UInt32) + 1).fill_null(0),
    )
    low, high = codes.min().row(0), codes.max().row(0)
    span_p, span_q = high[1] + 1, high[2] + 1
    if low[0] >= 0 and (high[0] + 1) * span_p * span_q < 2**62:
        return codes.select((c("run") * span_p + c("pod").cast(pl.Int64)) * span_q + c("container").cast(pl.Int64)
                            ).to_series().to_numpy()
    return samples.select(pl.struct("run", "pod", "container").rank("dense")).to_series().to_numpy().astype(np.int64)
