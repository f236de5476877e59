"""Read monitor logs (the ``monitor_cpu.sh`` format, see :mod:`.monitor_format`).

Two stages, both vectorised (no Python code runs per line):

* the **line stage** reads the lines into per-block arrays (:class:`Blocks`)
  and a skip reason per line.  :func:`read_monitor_log` runs the fast path
  (:mod:`.monitor_fast`): blocks whose every line is well formed are read
  straight from the bytes with numpy, everything else goes, whole blocks at a
  time, through the careful line stage (:func:`.monitor_lines.line_stage`: the lines in a
  polars column, classified with string expressions, sections forward-filled,
  ``key value`` lines scattered into a (key x block) matrix).  Both give the
  same result; :func:`parse_monitor_lines` is the careful path alone;
* the **block stage** (:func:`assemble`) skips blocks with bad, duplicate or
  out-of-order timestamps or mixed cgroup versions, assigns runs, pods and
  segments, and builds the samples table.

Rules
-----
* Lines before the first block must be header lines (``=== CPU Monitoring
  Started ===``, ``Pod:``, ``Namespace:``, ``Interval:``, ``Log file:``); a new
  header later in the file starts a new run (and a new counter segment).
* In a block, each section may be missing or empty.  A block whose cpu.stat
  lacks some keys is kept with those counters null.
* A whole block is skipped (all its lines counted under the reason) when its
  timestamp cannot be parsed, equals (``duplicate timestamp``) or precedes
  (``out-of-order timestamp``) the latest earlier timestamp in the file, or when
  its cpu.stat mixes cgroup v1 and v2 keys.
* Single lines are skipped when unrecognised, badly formed, a repeated key in a
  block, or flagged by :mod:`.lines` (binary, non-UTF-8, too long, a last line
  without newline).
* A counter that goes backwards (pod restart), a new header or a change of
  cgroup version starts a new ``segment``; intervals never span segments.

Every input line is either used (data or structure: headers, section markers,
blank lines) or counted in ``IngestResult.skipped`` with its reason.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import polars as pl

from throttlelab import tables
from throttlelab.errors import InputError
from throttlelab.ingest import lines as lines_mod
from throttlelab.ingest.monitor_format import HEADER_START
from throttlelab.ingest.result import EXAMPLES_PER_REASON, IngestResult, Skip, SkipReport, excerpt

# cpu.stat keys; the index is the key's column in the (block x key) matrix.
SHARED_KEYS = ("nr_periods", "nr_throttled", "nr_bursts")
V2_KEYS = ("usage_usec", "user_usec", "system_usec", "throttled_usec", "burst_usec")
V1_KEYS = ("throttled_time", "burst_time")
STAT_KEYS = SHARED_KEYS + V2_KEYS + V1_KEYS
#: Known cpu.stat keys that are read but not kept (newer kernels, schedstats).
IGNORED_KEYS = ("core_sched.force_idle_usec", "wait_sum", "nr_burst")
_K = {k: i for i, k in enumerate(STAT_KEYS)}
_MIN = np.iinfo(np.int64).min
REASONS = (
    None,
    lines_mod.BINARY,
    lines_mod.NON_UTF8,
    lines_mod.TOO_LONG,
    lines_mod.TRUNCATED,
    "unrecognised line",
    "unknown section",
    "line in unknown section",
    "bad kubectl top row",
    "bad cpu.stat line",
    "unknown cpu.stat key",
    "repeated cpu.stat key in block",
    "bad cpu.max line",
    "extra cpu.max line",
    "bad cpuacct.usage line",
    "extra cpuacct.usage line",
    "bad timestamp",
    "duplicate timestamp",
    "out-of-order timestamp",
    "mixed cgroup v1 and v2 keys",
)
R = {r: i for i, r in enumerate(REASONS) if r}

def read_monitor_log(path: str | Path, *, strict: bool = False, tz: str = "UTC") -> IngestResult:
    """Read one monitor log into the canonical samples table.

    Parameters
    ----------
    path
        The log file.
    strict
        Raise :class:`~throttlelab.errors.InputError` at the first problem
        instead of skipping and counting it.
    tz
        Time zone of timestamps written without an offset (the shell script
        writes local time); ``"UTC"`` by default.

    Returns
    -------
    IngestResult
        ``table="samples"``; ``.intervals()`` gives the rates between samples.

    Raises
    ------
    InputError
        Missing or unreadable file; with ``strict``, any skipped line.
    """
    from throttlelab.ingest.monitor_fast import read_monitor_file

    return read_monitor_file(path, strict=strict, tz=tz)


def parse_monitor_text(text: str, *, source: str = "<text>", strict: bool = False, tz: str = "UTC") -> IngestResult:
    """:func:`read_monitor_log` on text in memory (tests, runners)."""
    from throttlelab.ingest.monitor_fast import read_monitor_bytes

    return read_monitor_bytes(text.encode("utf-8"), source, strict=strict, tz=tz)


def parse_monitor_lines(lines: lines_mod.Lines, *, strict: bool = False, tz: str = "UTC") -> IngestResult:
    """Parse already split :class:`~throttlelab.ingest.lines.Lines` (see :func:`read_monitor_log`)."""
    source = lines.path
    n = len(lines)
    if n == 0:
        return empty_result(source, strict)
    from throttlelab.ingest.monitor_lines import line_stage

    text = lines.text
    rc, blocks, headers = line_stage(lines, tz)
    if lines.binary:
        return _result(source, rc, lambda j: text[j], tables.empty("samples"), n, strict)
    return assemble(source, n, rc, blocks, headers, lambda j: text[j], strict)


def empty_result(source: str, strict: bool) -> IngestResult:
    skip = Skip(source, None, "empty file")
    if strict:
        raise InputError(source, None, "empty file")
    return IngestResult("samples", tables.empty("samples"), SkipReport({"empty file": 0}, {}, skip), 0, 0, (source,))


@dataclass
class Blocks:
    """What the line stage found in each block (one ``--- <timestamp> ---`` header
    and the lines up to the next one), as arrays indexed by block.

    Attributes
    ----------
    line
        0-based line index of the block header.
    ts, ts_ok
        Timestamp in microseconds since the epoch (UTC); ``ts_ok`` false when it
        could not be parsed.
    stat, stat_present
        (:data:`STAT_KEYS` x block) cpu.stat values and which were present.
    quota, period, max_present
        The first good cpu.max line (``max`` -> quota -1).
    acct, acct_present
        The first good cpuacct.usage line (ns).
    top_rows, top_row
        kubectl top rows (``pod``, ``container``, ``cpu`` cores, ``mem``
        bytes; one row per block, containers summed, or distinct rows shared by
        blocks) and the row of each block (-1: none); ``top_rows`` is ``None``
        when no block has one.
    """

    line: np.ndarray
    ts: np.ndarray
    ts_ok: np.ndarray
    stat: np.ndarray
    stat_present: np.ndarray
    quota: np.ndarray
    period: np.ndarray
    max_present: np.ndarray
    acct: np.ndarray
    acct_present: np.ndarray
    top_rows: pl.DataFrame | None
    top_row: np.ndarray

    def __len__(self) -> int:
        return len(self.line)

    @staticmethod
    def concat(parts: list[Blocks]) -> Blocks:
        """Blocks of several parts, ordered by ``line`` (the parts may interleave)."""
        parts = [p for p in parts if len(p)]
        if len(parts) == 1:
            return parts[0]
        if not parts:
            return Blocks.empty()
        line = np.concatenate([p.line for p in parts])
        order = None if np.all(line[1:] > line[:-1]) else np.argsort(line, kind="stable")
        arrays = {}
        for f in ("line", "ts", "ts_ok", "quota", "period", "max_present", "acct", "acct_present"):
            a = np.concatenate([getattr(p, f) for p in parts])
            arrays[f] = a if order is None else a[order]
        for f in ("stat", "stat_present"):
            a = np.concatenate([getattr(p, f) for p in parts], axis=1)
            arrays[f] = a if order is None else a[:, order]
        rows, row, offset = [], [], 0
        for p in parts:
            row.append(np.where(p.top_row >= 0, p.top_row + offset, -1))
            if p.top_rows is not None:
                rows.append(p.top_rows)
                offset += p.top_rows.height
        row = np.concatenate(row)
        return Blocks(**arrays, top_rows=pl.concat(rows) if rows else None, top_row=row if order is None else row[order])

    @staticmethod
    def empty() -> Blocks:
        z = np.zeros(0, dtype=np.int64)
        b = np.zeros(0, dtype=bool)
        nk = len(STAT_KEYS)
        return Blocks(z, z, b, np.zeros((nk, 0), np.int64), np.zeros((nk, 0), bool), z, z, b, z, b, None, z)


TOP_DTYPES = {"pod": pl.String, "container": pl.String, "cpu": pl.Float64, "mem": pl.Int64}


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
        _raise_first(source, rc, line_text)

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
    pod, container, top_cpu, top_mem = _pods_and_top(pod_names, pod_pos, blocks.top_rows, blocks.top_row[kb], run)
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
    return _result(source, rc, line_text, _to_samples(frame, source, literals), n, strict)


def _pods_and_top(pod_names: pl.Series, pod_pos: np.ndarray, rows: pl.DataFrame | None, row: np.ndarray,
                  run: np.ndarray) -> tuple[pl.Series, pl.Series, pl.Series, pl.Series]:
    """Per block: the pod (from the log header before the block, else from kubectl
    top), the container (kubectl top's, filled forward then backward within a
    run), and kubectl top's CPU and memory; each column built once."""
    n = len(row)
    if rows is None:
        rows = pl.DataFrame(schema=TOP_DTYPES)
        row = np.full(n, -1, dtype=np.int64)
    names = pl.concat([pod_names.cast(pl.String), rows["pod"]])
    if n and pod_pos[0] >= 0 and (pod_pos == pod_pos[0]).all():  # one log header for all: no arrays
        pod = pl.lit(names[int(pod_pos[0])], dtype=pl.String)
    else:
        pod = _gather(names, np.where(pod_pos >= 0, pod_pos, np.where(row >= 0, len(pod_names) + row, -1)), constant=True)
    has_container = rows["container"].is_not_null().to_numpy()
    if has_container.all():
        c = row
    else:
        c = np.where((row >= 0) & has_container[np.maximum(row, 0)], row, -1)
    container = _gather(rows["container"], _fill_within_runs(c, run), constant=True)
    cpu = _gather(rows["cpu"], row)
    mem = _gather(rows["mem"], row)
    return pod, container, cpu, mem


def _gather(s: pl.Series, idx: np.ndarray, constant: bool = False) -> pl.Series | pl.Expr:
    """``s[idx]``, null where ``idx`` is -1; with ``constant``, a literal when
    all of ``idx`` are the same (polars then keeps one value, not a column)."""
    if constant and (len(idx) == 0 or (idx == idx[0]).all()):
        return pl.lit(s[int(idx[0])] if len(idx) and idx[0] >= 0 else None, dtype=s.dtype)
    if len(s) == 0:
        return pl.Series(s.name, [None] * len(idx), dtype=s.dtype)
    missing = idx < 0
    any_missing = bool(missing.any())
    safe = np.where(missing, 0, idx) if any_missing else idx
    if s.dtype.is_numeric():  # numpy memory, which polars takes without a copy
        out = pl.Series(s.name, s.fill_null(0).to_numpy()[safe], dtype=s.dtype)
    else:
        out = s.gather(safe)
    return out.scatter(np.flatnonzero(missing), None) if any_missing else out


def _fill_within_runs(code: np.ndarray, run: np.ndarray) -> np.ndarray:
    """``code`` (-1: missing) filled forward, then backward, within each run
    (runs are contiguous): polars' ``forward_fill().backward_fill().over(run)``."""
    n = len(code)
    if n == 0 or (code >= 0).all() or (code < 0).all():
        return code
    pos = np.arange(n)
    first = np.r_[True, run[1:] != run[:-1]]
    run_start = np.maximum.accumulate(np.where(first, pos, 0))
    last = np.r_[run[1:] != run[:-1], True]
    run_end = np.minimum.accumulate(np.where(last, pos, n)[::-1])[::-1]
    fwd = np.maximum.accumulate(np.where(code >= 0, pos, -1))
    fwd = np.where(fwd >= run_start, fwd, -1)
    bwd = np.minimum.accumulate(np.where(code >= 0, pos, n)[::-1])[::-1]
    bwd = np.where(bwd <= run_end, bwd, -1)
    src = np.where(fwd >= 0, fwd, bwd)
    return np.where(src >= 0, code[np.maximum(src, 0)], -1)


def line_ranges(starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """The integers of the ranges ``[starts[i], ends[i])``, concatenated."""
    lengths = ends - starts
    total = int(lengths.sum())
    if total == 0:
        return np.zeros(0, dtype=np.int64)
    offsets = np.repeat(starts - np.concatenate([[0], np.cumsum(lengths)[:-1]]), lengths)
    return np.arange(total, dtype=np.int64) + offsets


def _result(source: str, rc: np.ndarray, line_text, samples: pl.DataFrame, n: int, strict: bool) -> IngestResult:
    if strict and rc.any():
        _raise_first(source, rc, line_text)
    skipped = _skip_report(source, rc, line_text)
    return IngestResult("samples", samples, skipped, n, int(n - np.count_nonzero(rc)), (source,))


def _raise_first(source: str, rc: np.ndarray, line_text) -> None:
    j = int(np.flatnonzero(rc)[0])
    raise InputError(source, j + 1, REASONS[rc[j]], _excerpt(line_text, j, REASONS[rc[j]]))


def _excerpt(line_text, j: int, reason: str) -> str:
    return "" if reason == lines_mod.BINARY else excerpt(line_text(j))


# --- timestamps -----------------------------------------------------------------


#: Timestamp forms tried in order on the texts still unparsed: (format, zone of naive times).
_TS_FORMATS = (
    ("%Y-%m-%d %H:%M:%S%.fZ", "UTC"),  # our writer
    ("%Y-%m-%d %H:%M:%S%.f", None),  # the shell script: local time (``tz``)
    ("%Y-%m-%dT%H:%M:%S%.fZ", "UTC"),
    ("%Y-%m-%dT%H:%M:%S%.f", None),
    ("%Y-%m-%d %H:%M:%S%.f%:z", "aware"),
    ("%Y-%m-%dT%H:%M:%S%.f%:z", "aware"),
    ("%Y-%m-%d %H:%M:%S%.f%z", "aware"),
    ("%Y-%m-%dT%H:%M:%S%.f%z", "aware"),
)


def parse_timestamps(text: pl.Series, tz: str = "UTC") -> pl.Series:
    """Block timestamps -> ``Datetime("us", "UTC")`` (null when not a timestamp).

    Accepts ``2026-02-06 14:24:00.123`` (naive, read in ``tz``), a ``Z`` suffix,
    a ``+09:00``/``+0900`` offset and a ``T`` separator; the fraction may have
    0-9 digits.  Each form is tried only on the texts still unparsed, so a
    uniform log costs one parse.
    """
    text = text.str.strip_chars()
    out = pl.Series("ts", [None] * len(text), dtype=tables.UTC_TIME)
    todo = np.arange(len(text))
    for fmt, zone in _TS_FORMATS:
        if len(todo) == 0:
            break
        sub = text.gather(todo) if len(todo) < len(text) else text
        if zone == "aware":
            parsed = sub.str.to_datetime(fmt, strict=False, time_unit="us", time_zone="UTC")
        else:
            parsed = sub.str.to_datetime(fmt, strict=False, time_unit="us")
            zone = zone or tz
            if zone == "UTC":
                parsed = parsed.dt.replace_time_zone("UTC")
            else:
                parsed = parsed.dt.replace_time_zone(zone, ambiguous="earliest", non_existent="null").dt.convert_time_zone("UTC")
        got = parsed.is_not_null().to_numpy()
        if got.all() and len(todo) == len(text):
            return parsed.alias("ts")
        out = out.scatter(todo[got], parsed.filter(pl.Series(got)))
        todo = todo[~got]
    return out


# --- assembly -----------------------------------------------------------------


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


COUNTERS = ("usage_seconds", "nr_periods", "nr_throttled", "throttled_seconds", "nr_bursts", "burst_seconds")


def segments(counters: list[pl.Series], version: np.ndarray, run: np.ndarray) -> np.ndarray:
    """:func:`assign_segments` in numpy, for the block stage: the segment of each
    sample given its cumulative counters (nulls allowed), cgroup version (0:
    unknown) and run."""
    n = len(run)
    new = np.zeros(n, dtype=bool)
    if n < 2:
        return np.zeros(n, dtype=np.int64)
    pos = np.arange(n)

    def filled(x: np.ndarray, valid: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        if valid.all():
            return x, valid
        idx = np.maximum.accumulate(np.where(valid, pos, -1))  # forward fill
        return x[np.maximum(idx, 0)], idx >= 0

    for s in counters:
        x, valid = filled(s.fill_null(0).to_numpy(), s.is_not_null().to_numpy())
        new[1:] |= (x[1:] < x[:-1]) & valid[1:] & valid[:-1]  # the counter went backwards
    v, valid = filled(version, version > 0)
    new[1:] |= (v[1:] != v[:-1]) & valid[1:] & valid[:-1]
    new[1:] |= run[1:] != run[:-1]
    return np.cumsum(new, dtype=np.int64)


def assign_segments(samples: pl.DataFrame, *, by: str | None = "run") -> pl.DataFrame:
    """Number counter segments: a new one starts at a new run (``by`` column),
    a change of cgroup version, or any cumulative counter going backwards."""
    c = pl.col
    cols = [k for k in COUNTERS if k in samples.columns]
    backwards = pl.any_horizontal(*(c(k).forward_fill().diff() < 0 for k in cols)) if cols else pl.lit(False)
    version = c("cgroup_version").forward_fill() if "cgroup_version" in samples.columns else pl.lit(0)
    new = backwards.fill_null(False) | (version != version.shift(1)).fill_null(False)
    if by and by in samples.columns:
        new = new | (c(by) != c(by).shift(1)).fill_null(False)
    out = samples.with_columns(segment=new.cast(pl.Int64).cum_sum())
    return out.drop(by) if by and by in out.columns else out


def _skip_report(source: str, rc: np.ndarray, line_text) -> SkipReport:
    if not rc.any():
        return SkipReport()
    counts = np.bincount(rc, minlength=len(REASONS))
    bad = np.flatnonzero(rc)
    out_counts, examples = {}, {}
    for code in np.flatnonzero(counts[1:]) + 1:
        reason = REASONS[code]
        out_counts[reason] = int(counts[code])
        idx = np.flatnonzero(rc == code)[:EXAMPLES_PER_REASON]
        examples[reason] = tuple(Skip(source, int(j) + 1, reason, _excerpt(line_text, int(j), reason)) for j in idx)
    j = int(bad[0])
    first = Skip(source, j + 1, REASONS[rc[j]], _excerpt(line_text, j, REASONS[rc[j]]))
    return SkipReport(out_counts, examples, first)
