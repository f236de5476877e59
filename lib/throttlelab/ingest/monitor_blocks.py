"""What the monitor-log line stage finds in each block, as arrays (:class:`Blocks`).

The one interface between the line stages (the careful one,
:func:`.monitor_lines.line_stage`, and the fast scan, :mod:`.monitor_fast`) and
the block stage (:func:`.monitor_assemble.assemble`), with the cpu.stat keys
that index its (key x block) matrix.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import polars as pl

# cpu.stat keys; the index is the key's column in the (block x key) matrix.
SHARED_KEYS = ("nr_periods", "nr_throttled", "nr_bursts")
V2_KEYS = ("usage_usec", "user_usec", "system_usec", "throttled_usec", "burst_usec")
V1_KEYS = ("throttled_time", "burst_time")
STAT_KEYS = SHARED_KEYS + V2_KEYS + V1_KEYS
#: Known cpu.stat keys that are read but not kept (newer kernels, schedstats).
IGNORED_KEYS = ("core_sched.force_idle_usec", "wait_sum", "nr_burst")


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
