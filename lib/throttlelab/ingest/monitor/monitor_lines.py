"""The line stage of the monitor-log reader: lines -> blocks, sections and parsed values.

The lines come classified by string expressions (:mod:`.monitor_facts`: block
headers, log headers, section markers, ``key value`` splits); the section of
every line is its last marker's (a forward fill), blocks are a cumulative sum
of header flags, and each section's lines are parsed (:mod:`.monitor_sections`):
``key value`` cpu.stat lines become a (block x key) table, cpu.max and
cpuacct.usage lines one value per block, kubectl top rows one row per pod or
container.  Every line gets a skip reason (:mod:`.monitor_skips`) or is used.

Two layouts are read:

* **framed** (``monitor_cpu.sh``): ``--- <time> ---`` block headers and
  ``[kubectl top]``, ``[cgroup cpu.stat]``, ``[cgroup cpu.max]``,
  ``[cgroup cpuacct.usage]`` sections;
* **bare** (no block header and no section marker in the file): a series of
  ``date`` lines, ``kubectl top pod`` tables (``NAME``/``POD`` column header)
  and ``cat cpu.stat`` / ``cat cpu.max`` outputs, as a ``while`` loop in a shell
  writes them.  A block starts at each ``date`` line; without any, at each
  kubectl top column header, else where the file's first cpu.stat key comes
  again (each ``cat cpu.stat`` prints its keys in the same order).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import polars as pl

from throttlelab.core.cpu_stat import STAT_KEYS
from throttlelab.ingest.monitor.monitor_line_frame import NO_KEY, UNKNOWN_SECTION, LineFrame
from throttlelab.ingest.monitor.monitor_skips import R
from throttlelab.ingest.monitor.monitor_timestamps import parse_timestamps
from throttlelab.ingest.monitor.monitor_sections import acct, cpu_max, first_per_block, nulls, stat_table, top_frame, top_rows

TOP, STAT, MAX, ACCT, UNKNOWN, OUTSIDE = 1, 2, 3, 4, UNKNOWN_SECTION, 10


@dataclass
class LineStage:
    """What the line stage found.

    Attributes
    ----------
    rc
        Per line, the skip reason code (:data:`.monitor_skips.REASONS`; 0 = used).
    blocks
        One row per block: ``line`` (0-based, its first line), ``ts`` (UTC; null
        when the block has no time), ``ts_bad`` (a time that could not be
        read), the cpu.stat keys (null when absent), ``quota``/``period``
        (cpu.max; quota -1 = no limit), ``acct`` (cpuacct.usage ns).
    top
        One row per kubectl top row: ``block``, ``pod``, ``container``, ``cpu``
        (cores), ``mem`` (bytes).
    headers
        Line indices and texts of the log-header lines (``===``, ``Pod:``...).
    naive
        How many block times had no zone (read in the stated ``tz``).
    """

    rc: np.ndarray
    blocks: pl.DataFrame
    top: pl.DataFrame
    headers: pl.DataFrame
    naive: int = 0


def line_stage(lf: LineFrame, tz: str = "UTC", framed: bool = False) -> LineStage:
    """Classify and parse every line of a :class:`~.monitor_line_frame.LineFrame` (see the module docstring);
    ``framed``: the lines are part of a framed log (a bare-looking part is not read as bare)."""
    n = len(lf)
    rc = lf.problem_codes()  # codes 0-4 are shared with REASONS
    if lf.binary or n == 0:
        return LineStage(rc, _blocks_frame(np.zeros(0, np.int64), None, {}, {}), top_frame(None), _headers(None))
    ok = rc == 0
    f = lf.frame
    hdr = lf.flag("hdr") & ok
    marker = np.where(ok, f["marker"].to_numpy(), 0)
    loghdr = lf.flag("loghdr") & ok & ~hdr
    blank = lf.flag("blank")
    bare = not framed and not hdr.any() and not (marker[(marker > 0) & (marker < UNKNOWN)]).any()
    if bare:
        starts, sec_at, ts_text = _bare_structure(f.with_columns(t=lf.dense_text()), ok & ~blank & ~loghdr)
        structure = loghdr | (sec_at == 0) | (sec_at == TOP)  # date lines and kubectl top column headers
        sec_at[loghdr] = 0
    else:
        starts = np.flatnonzero(hdr)
        ts_text = lf.texts_of(starts).str.slice(4).str.head(-4) if len(starts) else None
        sec_at = np.full(n, -1, dtype=np.int8)
        sec_at[hdr | loghdr] = 0
        sec_at[marker > 0] = marker[marker > 0]
        structure = hdr | loghdr | (marker > 0)
        rc[marker == UNKNOWN] = R["unknown section"]

    # Section of every line (its last marker's), block of every line (0: before the first).
    pos = np.flatnonzero(sec_at >= 0)
    sec = np.zeros(n, dtype=np.int8)
    if len(pos):
        sec[pos[0]:] = np.repeat(sec_at[pos], np.diff(np.append(pos, n)))
    block = np.zeros(n, dtype=np.int32)
    if len(starts):
        block[starts[0]:] = np.repeat(np.arange(1, len(starts) + 1, dtype=np.int32), np.diff(np.append(starts, n)))
    kind = np.where(sec == 0, OUTSIDE, sec).astype(np.int8)
    del sec
    kind[~ok | blank | structure] = 0
    kind[(block == 0) & (kind > 0) & (kind < UNKNOWN)] = OUTSIDE  # section lines before the first block
    rc[kind == OUTSIDE] = R["unrecognised line"]
    rc[kind == UNKNOWN] = R["line in unknown section"]

    def section(k: int) -> tuple[np.ndarray, np.ndarray, pl.Series]:
        mask = kind == k
        at = np.flatnonzero(mask)
        return at, block[at].astype(np.int64), lf.texts_of(at)

    nb = len(starts) + 1  # block 0 = lines before the first block
    del pos, sec_at, structure, hdr, marker, blank
    stat = stat_table(kind, block, f, nb, rc)
    one = {**first_per_block(*section(MAX), nb, rc, cpu_max, "cpu.max"),
           **first_per_block(*section(ACCT), nb, rc, acct, "cpuacct.usage")}
    at_top, b_top, t_top = section(TOP)
    top = top_rows(at_top, b_top, t_top, rc)
    ts, naive = parse_timestamps(ts_text, tz) if ts_text is not None else (None, 0)
    blocks = _blocks_frame(starts, ts, stat, one)
    head_idx = np.flatnonzero(loghdr)
    return LineStage(rc, blocks, top, _headers(pl.DataFrame({"i": head_idx, "t": lf.texts_of(head_idx)})), naive)


def _bare_structure(f: pl.DataFrame, ok: np.ndarray) -> tuple[np.ndarray, np.ndarray, pl.Series | None]:
    """Bare layout: block starts, the section each line opens (-1: none; 0 a
    date line), and the time texts of the blocks (None: no date lines)."""
    t = pl.col("t")
    g = f.select(
        top=((t.str.starts_with("NAME ") | t.str.starts_with("POD ")) & t.str.contains("CPU(cores)", literal=True)),
        max=t.str.contains(r"^(?:max|-?\d+) \d+$"),
        stat=t.is_null() | t.str.contains(r"^[a-z][a-z0-9_.]* \S+$"),  # good key value lines have no text
        first=pl.coalesce(pl.when(pl.col("key") != NO_KEY).then(pl.col("key").cast(pl.String)),
                          t.str.split(" ").list.first()),
    ).with_columns(pl.all().exclude("first").fill_null(False))
    text = f["t"]
    is_top = g["top"].to_numpy() & ok
    is_max = g["max"].to_numpy() & ok
    is_stat = g["stat"].to_numpy() & ok & ~is_max
    cand_idx = np.flatnonzero(ok & ~is_top & ~is_stat & ~is_max)
    ts, _ = parse_timestamps(text.gather(cand_idx), "UTC")
    dates = cand_idx[ts.is_not_null().to_numpy()]
    sec_at = np.full(len(f), -1, dtype=np.int8)
    sec_at[is_stat], sec_at[is_max], sec_at[is_top], sec_at[dates] = STAT, MAX, TOP, 0
    if len(dates):
        return dates, sec_at, text.gather(dates)
    if is_top.any():
        return np.flatnonzero(is_top), sec_at, None
    stat_idx = np.flatnonzero(is_stat)
    if not len(stat_idx):
        return stat_idx, sec_at, None
    first = g["first"].gather(stat_idx)
    return stat_idx[(first == first[0]).fill_null(False).to_numpy()], sec_at, None


def _headers(frame: pl.DataFrame | None) -> pl.DataFrame:
    """The log-header lines; their texts copied (a gathered text keeps the buffers of all the file's texts)."""
    if frame is None:
        return pl.DataFrame(schema={"i": pl.Int64, "t": pl.String})
    return frame.select(pl.col("i").cast(pl.Int64), pl.concat_str(pl.col("t"), pl.lit("")))


def _blocks_frame(starts, ts, stat, one) -> pl.DataFrame:
    nb = len(starts)
    cols = {"line": pl.Series(starts, dtype=pl.Int64)}
    if ts is None:
        cols["ts"] = nulls(nb, pl.Datetime("us", "UTC"))
        cols["ts_bad"] = pl.repeat(False, nb, eager=True)
    else:
        cols["ts"] = ts
        cols["ts_bad"] = ts.is_null()
    for k in STAT_KEYS:
        cols[k] = stat[k] if k in stat else nulls(nb, pl.Int64)
    for k in ("quota", "period", "acct"):
        cols[k] = one[k] if k in one else nulls(nb, pl.Int64)
    return pl.DataFrame(cols)
