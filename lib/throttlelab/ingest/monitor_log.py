"""Read monitor logs (the ``monitor_cpu.sh`` format, see :mod:`.monitor_format`).

The parser is vectorised: the file is split into a polars column of lines
(:mod:`.lines`), each line is classified with string expressions, block ids and
sections are forward-filled, and the ``key value`` lines are scattered into a
(block x key) matrix with numpy.  No Python code runs per line.

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

from pathlib import Path

import numpy as np
import polars as pl

from throttlelab import tables
from throttlelab.errors import InputError
from throttlelab.ingest import lines as lines_mod
from throttlelab.ingest.monitor_format import HEADER_START, SECTIONS
from throttlelab.ingest.quantities import cpu_cores, memory_bytes
from throttlelab.ingest.result import EXAMPLES_PER_REASON, IngestResult, Skip, SkipReport, excerpt

# cpu.stat keys; the index is the key's column in the (block x key) matrix.
SHARED_KEYS = ("nr_periods", "nr_throttled", "nr_bursts")
V2_KEYS = ("usage_usec", "user_usec", "system_usec", "throttled_usec", "burst_usec")
V1_KEYS = ("throttled_time", "burst_time")
STAT_KEYS = SHARED_KEYS + V2_KEYS + V1_KEYS
#: Known cpu.stat keys that are read but not kept (newer kernels, schedstats).
IGNORED_KEYS = ("core_sched.force_idle_usec", "wait_sum", "nr_burst")
_K = {k: i for i, k in enumerate(STAT_KEYS)}
_IGNORED = 254
_MIN = np.iinfo(np.int64).min
_UNKNOWN = 255

# Skip reasons; 0 means "used".  Order = index in the per-line reason array.
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

_HEADER_PREFIXES = ("Pod: ", "Namespace: ", "Interval: ", "Log file: ")


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
    return parse_monitor_lines(lines_mod.read_lines(path), strict=strict, tz=tz)


def parse_monitor_text(text: str, *, source: str = "<text>", strict: bool = False, tz: str = "UTC") -> IngestResult:
    """:func:`read_monitor_log` on text in memory (tests, runners)."""
    return parse_monitor_lines(lines_mod.split_lines(text.encode("utf-8"), source), strict=strict, tz=tz)


def parse_monitor_lines(lines: lines_mod.Lines, *, strict: bool = False, tz: str = "UTC") -> IngestResult:
    """Parse already split :class:`~throttlelab.ingest.lines.Lines` (see :func:`read_monitor_log`)."""
    source = lines.path
    n = len(lines)
    if n == 0:
        skip = Skip(source, None, "empty file")
        if strict:
            raise InputError(source, None, "empty file")
        return IngestResult("samples", tables.empty("samples"), SkipReport({"empty file": 0}, {}, skip), 0, 0, (source,))

    t = pl.col("t")
    df = pl.DataFrame({"t": lines.text}).with_row_index("i").with_columns(prob=lines.problems())
    ok = pl.col("prob").is_null() & t.is_not_null()
    df = df.with_columns(
        blk=(ok & t.str.starts_with("--- ") & t.str.ends_with(" ---")),
        sec=(ok & t.str.starts_with("[") & t.str.ends_with("]")),
        hdr=(ok & (t.str.starts_with("===") | pl.any_horizontal(t.str.starts_with(p) for p in _HEADER_PREFIXES))),
    )
    sec_code = pl.when(pl.col("prob").is_not_null()).then(None).when(pl.col("blk") | pl.col("hdr")).then(0)
    for k, name in enumerate(SECTIONS, start=1):
        sec_code = sec_code.when(t == f"[{name}]").then(k)
    sec_code = sec_code.when(pl.col("sec")).then(9).otherwise(None)
    df = df.with_columns(
        code=sec_code.cast(pl.Int8).forward_fill().fill_null(0),
        block=pl.col("blk").cast(pl.Int32).cum_sum(),
    )
    content = ok & ~pl.col("blk") & ~pl.col("sec") & ~pl.col("hdr")
    reason0 = (
        pl.when(pl.col("prob").is_not_null())
        .then(pl.col("prob").replace_strict(R, default=R["unrecognised line"], return_dtype=pl.UInt8))
        .when(pl.col("sec") & (pl.col("code") == 9))
        .then(R["unknown section"])
        .when(content & (pl.col("code") == 0))
        .then(R["unrecognised line"])
        .when(content & (pl.col("code") == 9))
        .then(R["line in unknown section"])
        .otherwise(0)
        .cast(pl.UInt8)
    )
    df = df.with_columns(reason=reason0, content=content & pl.col("code").is_between(1, 4))
    rc = df["reason"].to_numpy().copy()
    nb = int(df["block"][-1]) + 1  # block 0 = lines before the first block header

    parts = df.filter(pl.col("content") | pl.col("blk") | (pl.col("hdr") & t.str.starts_with("Pod: "))
                      | (pl.col("hdr") & t.str.starts_with(HEADER_START))).select("i", "t", "block", "code", "blk", "hdr")
    by_code = {int(k[0]): g for k, g in parts.filter(~pl.col("blk") & ~pl.col("hdr")).partition_by("code", as_dict=True).items()}

    stat, stat_present = _stat_matrix(by_code.get(2), nb, rc)
    cpu_max = _first_per_block(by_code.get(3), nb, rc, _cpu_max_expr, R["bad cpu.max line"], R["extra cpu.max line"])
    acct = _first_per_block(by_code.get(4), nb, rc, _acct_expr, R["bad cpuacct.usage line"], R["extra cpuacct.usage line"])
    top = _top_per_block(by_code.get(1), nb, rc)

    # Blocks: timestamps, ordering, cgroup version.
    blocks = parts.filter("blk").select(
        "i", "block", ts=_parse_timestamp(t.str.slice(4, t.str.len_chars() - 8), tz)
    )
    b_idx = blocks["block"].to_numpy()
    block_reason = np.zeros(nb, dtype=np.uint8)
    ts_null = blocks["ts"].is_null().to_numpy()
    ts_ok = ~ts_null
    tsv = blocks["ts"].cast(pl.Int64).fill_null(_MIN).to_numpy()
    prev_max = np.concatenate([[_MIN], np.maximum.accumulate(tsv)[:-1]])
    block_reason[b_idx[ts_null]] = R["bad timestamp"]
    dup = ts_ok & (tsv == prev_max)
    ooo = ts_ok & (tsv < prev_max)
    block_reason[b_idx[dup]] = R["duplicate timestamp"]
    block_reason[b_idx[ooo]] = R["out-of-order timestamp"]
    has_v2 = stat_present[:, [_K[k] for k in V2_KEYS]].any(axis=1)
    has_v1 = stat_present[:, [_K[k] for k in V1_KEYS]].any(axis=1) | acct["present"]
    mixed = has_v1 & has_v2
    mixed[0] = False
    block_reason[mixed & (block_reason == 0)] = R["mixed cgroup v1 and v2 keys"]
    block_reason[0] = 0
    blk_of_line = df["block"].to_numpy()
    rc = np.where((rc == 0) & (block_reason[blk_of_line] != 0), block_reason[blk_of_line], rc)

    skipped = _skip_report(source, rc, df["t"])
    if strict and skipped.first is not None:
        f = skipped.first
        raise InputError(source, f.line, f.reason, f.excerpt)

    # Runs (headers) and pod names per block.
    hdrs = parts.filter("hdr")
    starts = hdrs.filter(t.str.starts_with(HEADER_START))["i"].to_numpy()
    pods = hdrs.filter(t.str.starts_with("Pod: "))
    keep = block_reason[b_idx] == 0
    kb = b_idx[keep]
    line_i = blocks["i"].to_numpy()[keep]
    run = np.searchsorted(starts, line_i, side="right")
    pod_pos = np.searchsorted(pods["i"].to_numpy(), line_i, side="right") - 1
    pod_names = pods["t"].str.slice(5).str.strip_chars()
    header_pod = pl.Series([None], dtype=pl.String).extend(pod_names).gather(pod_pos + 1)

    version = np.where(has_v2, 2, np.where(has_v1, 1, 0))[kb]
    S = {k: (stat[kb, _K[k]], stat_present[kb, _K[k]]) for k in STAT_KEYS}

    def col(name: str, dtype=pl.Int64) -> pl.Series:
        v, p = S[name]
        return pl.Series(name, v, dtype=pl.Int64).scatter(np.flatnonzero(~p), None).cast(dtype)

    acct_s = pl.Series(acct["value"][kb]).scatter(np.flatnonzero(~acct["present"][kb]), None)
    frame = pl.DataFrame(
        {
            "timestamp": blocks["ts"].filter(pl.Series(keep)),
            "line": line_i + 1,
            "run": run,
            "header_pod": header_pod,
            "version": pl.Series(version, dtype=pl.Int8),
            "usage_usec": col("usage_usec"),
            "user_usec": col("user_usec"),
            "system_usec": col("system_usec"),
            "nr_periods": col("nr_periods"),
            "nr_throttled": col("nr_throttled"),
            "throttled_usec": col("throttled_usec"),
            "throttled_time": col("throttled_time"),
            "nr_bursts": col("nr_bursts"),
            "burst_usec": col("burst_usec"),
            "burst_time": col("burst_time"),
            "acct_ns": acct_s,
            "quota": cpu_max["quota"][kb],
            "period": cpu_max["period"][kb],
            "max_present": cpu_max["present"][kb],
            "top_pod": _take(top["pod"], kb),
            "top_container": _take(top["container"], kb),
            "top_cpu": _take(top["cpu"], kb),
            "top_mem": _take(top["mem"], kb),
        },
        strict=False,
    )
    samples = _to_samples(frame, source)
    lines_used = int((rc == 0).sum())
    return IngestResult("samples", samples, skipped, n, lines_used, (source,))


# --- sections -----------------------------------------------------------------


def _stat_matrix(g: pl.DataFrame | None, nb: int, rc: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    nk = len(STAT_KEYS)
    values = np.zeros((nb, nk), dtype=np.int64)
    present = np.zeros((nb, nk), dtype=bool)
    if g is None or g.height == 0:
        return values, present
    kv = g.select(
        "i",
        "block",
        parts=pl.col("t").str.split_exact(" ", 1),
    ).unnest("parts")
    mapping = {**_K, **{k: _IGNORED for k in IGNORED_KEYS}}
    kv = kv.select(
        "i",
        "block",
        key=pl.col("field_0").replace_strict(mapping, default=_UNKNOWN, return_dtype=pl.UInt8),
        value=pl.col("field_1").cast(pl.Int64, strict=False),
        word=pl.col("field_0").str.contains(r"^[A-Za-z0-9_.]+$"),
    )
    i = kv["i"].to_numpy()
    b = kv["block"].to_numpy()
    key = kv["key"].to_numpy()
    val = kv["value"].to_numpy()
    bad = kv["value"].is_null().to_numpy() | (np.nan_to_num(val) < 0) | ~kv["word"].fill_null(False).to_numpy()
    unknown = ~bad & (key == _UNKNOWN)
    rc[i[bad]] = R["bad cpu.stat line"]
    rc[i[unknown]] = R["unknown cpu.stat key"]
    good = ~bad & (key < nk)
    b, key, val, i = b[good], key[good].astype(np.int64), val[good].astype(np.int64), i[good]
    flat = b.astype(np.int64) * nk + key
    counts = np.bincount(flat, minlength=nb * nk)
    if counts.max(initial=0) > 1:  # repeated keys in a block: keep the first
        first = pl.Series(flat).is_first_distinct().to_numpy()
        rc[i[~first]] = R["repeated cpu.stat key in block"]
        b, key, val = b[first], key[first], val[first]
    values[b, key] = val
    present[b, key] = True
    return values, present


def _cpu_max_expr(t: pl.Expr) -> dict[str, pl.Expr]:
    g = t.str.extract_groups(r"^(max|-?\d+)\s+(\d+)$")
    q = g.struct.field("1")
    return {
        "quota": pl.when(q == "max").then(-1).otherwise(q.cast(pl.Int64, strict=False)),
        "period": g.struct.field("2").cast(pl.Int64, strict=False),
    }


def _acct_expr(t: pl.Expr) -> dict[str, pl.Expr]:
    v = t.str.strip_chars().cast(pl.Int64, strict=False)
    return {"value": pl.when(v >= 0).then(v)}


def _first_per_block(g, nb, rc, expr_fn, bad_reason, extra_reason) -> dict[str, np.ndarray]:
    """Parse a one-line section; keep the first good line per block."""
    names = list(expr_fn(pl.col("t")))
    out = {k: np.zeros(nb, dtype=np.int64) for k in names}
    out["present"] = np.zeros(nb, dtype=bool)
    if g is None or g.height == 0:
        return out
    p = g.select("i", "block", **expr_fn(pl.col("t")))
    bad = pl.any_horizontal(pl.col(k).is_null() for k in names)
    bad_np = p.select(bad).to_series().to_numpy()
    i = p["i"].to_numpy()
    rc[i[bad_np]] = bad_reason
    p = p.filter(~bad)
    b = p["block"].to_numpy()
    first = np.ones(len(b), dtype=bool)
    first[1:] = b[1:] != b[:-1]
    rc[p["i"].to_numpy()[~first]] = extra_reason
    for k in names:
        out[k][b[first]] = p[k].to_numpy()[first]
    out["present"][b[first]] = True
    return out


def _top_per_block(g, nb, rc) -> dict[str, pl.Series | None]:
    """kubectl top rows -> per block pod, container(s), CPU cores and memory bytes (summed)."""
    empty = {"pod": None, "container": None, "cpu": None, "mem": None}
    if g is None or g.height == 0:
        return empty
    t = pl.col("t")
    is_head = t.str.starts_with("POD ") | t.str.starts_with("NAME ")
    rows = g.filter(~is_head).select(
        "i",
        "block",
        f=t.str.extract_groups(r"^(\S+)\s+(\S+)\s+(\S+)(?:\s+(\S+))?$"),
    ).unnest("f")
    four = pl.col("4").is_not_null()
    rows = rows.select(
        "i",
        "block",
        pod=pl.col("1"),
        container=pl.when(four).then(pl.col("2")),
        cpu=cpu_cores(pl.when(four).then(pl.col("3")).otherwise(pl.col("2"))),
        mem=memory_bytes(pl.when(four).then(pl.col("4")).otherwise(pl.col("3"))),
    )
    bad = pl.col("cpu").is_null() | pl.col("mem").is_null()
    rc[rows.filter(bad)["i"].to_numpy()] = R["bad kubectl top row"]
    rows = rows.filter(~bad)
    if rows.height == 0:
        return empty
    b = rows["block"].to_numpy()
    if len(b) > 1 and np.any(b[1:] == b[:-1]):  # several containers: pod totals
        rows = rows.group_by("block", maintain_order=True).agg(
            pl.col("pod").first(),
            pl.col("container").str.join(","),
            pl.col("cpu").sum(),
            pl.col("mem").sum(),
        )
        b = rows["block"].to_numpy()
    idx = np.full(nb, -1, dtype=np.int64)
    idx[b] = np.arange(len(b))
    out = {}
    for k in ("pod", "container", "cpu", "mem"):
        s = rows[k]
        out[k] = s.gather(np.where(idx < 0, 0, idx)).scatter(np.flatnonzero(idx < 0), None)
    return out


def _take(s: pl.Series | None, idx: np.ndarray) -> pl.Series | None:
    return None if s is None else s.gather(idx)


# --- timestamps -----------------------------------------------------------------


def _parse_timestamp(text: pl.Expr, tz: str) -> pl.Expr:
    """``2026-02-06 14:24:00.123`` (naive, in ``tz``), ``...Z``, ``...+09:00``, ``T`` separator -> UTC."""
    norm = text.str.strip_chars().str.replace("T", " ", literal=True, n=1)
    norm = pl.when(norm.str.ends_with("Z")).then(norm.str.head(-1) + "+00:00").otherwise(norm)
    aware = norm.str.to_datetime("%Y-%m-%d %H:%M:%S%.f%:z", strict=False, time_unit="us", time_zone="UTC")
    aware2 = norm.str.to_datetime("%Y-%m-%d %H:%M:%S%.f%z", strict=False, time_unit="us", time_zone="UTC")
    naive = (
        norm.str.to_datetime("%Y-%m-%d %H:%M:%S%.f", strict=False, time_unit="us")
        .dt.replace_time_zone(tz, ambiguous="earliest", non_existent="null")
        .dt.convert_time_zone("UTC")
    )
    return pl.coalesce(aware, aware2, naive)


# --- assembly -----------------------------------------------------------------


def _to_samples(f: pl.DataFrame, source: str) -> pl.DataFrame:
    c = pl.col
    v = c("version")
    quota, period = c("quota"), c("period")
    has_max = c("max_present")
    for name in ("top_pod", "top_container", "top_cpu", "top_mem"):
        if name not in f.columns or f[name].dtype == pl.Null:
            f = f.with_columns(pl.lit(None, dtype=pl.Float64 if name in ("top_cpu",) else pl.Int64 if name == "top_mem" else pl.String).alias(name))
    out = f.select(
        "timestamp",
        source=pl.lit(source),
        line="line",
        pod=pl.coalesce(c("header_pod"), c("top_pod")),
        container=c("top_container").forward_fill().backward_fill().over("run"),
        run="run",
        cgroup_version=pl.when(v > 0).then(v),
        usage_seconds=pl.when(v == 2).then(c("usage_usec") / 1e6).when(v == 1).then(c("acct_ns") / 1e9),
        user_seconds=c("user_usec") / 1e6,
        system_seconds=c("system_usec") / 1e6,
        nr_periods="nr_periods",
        nr_throttled="nr_throttled",
        throttled_seconds=pl.when(v == 2).then(c("throttled_usec") / 1e6).when(v == 1).then(c("throttled_time") / 1e9),
        nr_bursts="nr_bursts",
        burst_seconds=pl.when(v == 2).then(c("burst_usec") / 1e6).when(v == 1).then(c("burst_time") / 1e9),
        limit_cores=pl.when(has_max & (quota >= 0) & (period > 0)).then(quota / period),
        period_us=pl.when(has_max).then(period),
        top_cpu_cores="top_cpu",
        top_memory_bytes="top_mem",
    )
    return tables.conform(assign_segments(out), "samples")


COUNTERS = ("usage_seconds", "nr_periods", "nr_throttled", "throttled_seconds", "nr_bursts", "burst_seconds")


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


def _skip_report(source: str, rc: np.ndarray, text: pl.Series) -> SkipReport:
    counts = np.bincount(rc, minlength=len(REASONS))
    bad = np.flatnonzero(rc)
    if len(bad) == 0:
        return SkipReport()
    out_counts, examples = {}, {}
    for code in np.flatnonzero(counts[1:]) + 1:
        reason = REASONS[code]
        out_counts[reason] = int(counts[code])
        idx = np.flatnonzero(rc == code)[:EXAMPLES_PER_REASON]
        examples[reason] = tuple(Skip(source, int(j) + 1, reason, excerpt(text[int(j)])) for j in idx)
    j = int(bad[0])
    first = Skip(source, j + 1, REASONS[rc[j]], excerpt(text[j]))
    return SkipReport(out_counts, examples, first)
