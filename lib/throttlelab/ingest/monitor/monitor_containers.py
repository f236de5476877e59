"""The samples of blocks whose kubectl top lists several pods or containers: one row each, and one for the cgroup.

Each listed pod/container gets a row of its ``kubectl top`` values, and the
cgroup the counters were read from a row of its own (the pod of the log header,
or the one pod the block lists; no container).  The rows are placed by index
arithmetic, the cgroup's values computed once per block and gathered, and the
counter segments started at the blocks' own rows.
"""

from __future__ import annotations

import numpy as np
import polars as pl

from throttlelab import tables
from throttlelab.core.cpu_stat import STAT_KEYS
from throttlelab.ingest.monitor.monitor_counters import VALUE_COLUMNS, cgroup_values, segment_ids, series_starts


def several_samples(frames: list[pl.DataFrame], listed: np.ndarray, source: str) -> pl.DataFrame:
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
    # (before it, else after it; as in monitor_blocks._rows)
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
    src = kept.select(*VALUE_COLUMNS)
    values = pl.concat([src, src.clear(1)], rechunk=False).select(**cgroup_values()).rechunk()
    del src
    # Segments start where a series' counters go back: only at own rows, as the listed rows have none (a series'
    # counters are carried over them), so the starts are found among the blocks' values, series by series (a
    # block without an own row has no values: a series of its own, -1, where nothing starts).
    block_sid = np.full(len(own), -1, dtype=np.int64)
    block_sid[own] = sid[is_own]
    starts = np.zeros(len(is_own), dtype=bool)
    starts[is_own] = series_starts(values.head(nk), block_sid)[own]
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
