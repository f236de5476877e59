"""Parsers of the monitor log's section lines: the cpu.stat (block x key) table, one-line sections, kubectl top rows.

Each takes the lines of one section kind (their 0-based indices, blocks and
texts, from :func:`.monitor_lines.line_stage`), sets the skip reason of the
lines it cannot use in ``rc`` (:data:`.monitor_skips.REASONS`) and returns
per-block columns (null where a block has no value) or per-row frames.
"""

from __future__ import annotations

import numpy as np
import polars as pl

from throttlelab.core.cpu_stat import STAT_KEYS
from throttlelab.ingest.monitor.monitor_line_frame import NO_KEY
from throttlelab.ingest.monitor.monitor_skips import R
from throttlelab.core.quantities import cores_expr, memory_bytes

STAT = 2  # the cpu.stat section's code in the line stage's ``kind``
_TOP_ROW = r"^(\S+) +(\S+) +(\S+)(?: +(\S+))?$"


def stat_table(kind: np.ndarray, block: np.ndarray, f: pl.DataFrame, nb: int, rc: np.ndarray,
                chunk: int = 1 << 21) -> dict[str, pl.Series]:
    """cpu.stat ``key value`` lines (``kind == STAT``; of blocks ``block``; key index and value
    in ``f``) -> per block, a column per key (null when absent); in chunks of lines, to keep memory low."""
    nk = len(STAT_KEYS)
    values = np.zeros((nb, nk), dtype=np.int64)
    present = np.zeros((nb, nk), dtype=bool)
    for lo in range(0, len(kind), chunk):
        at = np.flatnonzero(kind[lo:lo + chunk] == STAT)
        if not len(at):
            continue
        ii = lo + at
        bb = block[ii].astype(np.int64)
        # the columns have no nulls: numpy reads a chunk of them (a view when it is one piece)
        key, val = f["key"].slice(lo, chunk).to_numpy()[at], f["val"].slice(lo, chunk).to_numpy()[at]
        good = (val >= 0) & (key < nk)
        if not good.all():
            bad = val < 0
            rc[ii[bad]] = R["bad cpu.stat line"]
            rc[ii[~bad & (key == NO_KEY)]] = R["unknown cpu.stat key"]
            bb, key, val, ii = bb[good], key[good], val[good], ii[good]
        flat = bb * nk + key
        repeated = present.ravel()[flat] | repeats(flat)  # keep the first
        if repeated.any():
            rc[ii[repeated]] = R["repeated cpu.stat key in block"]
            flat, val = flat[~repeated], val[~repeated]
        present.ravel()[flat] = True
        values.ravel()[flat] = val
    return {k: nullable(values[1:, j], present[1:, j]) for j, k in enumerate(STAT_KEYS)}


def repeats(flat: np.ndarray) -> np.ndarray:
    """Per element, whether an equal one comes before it.

    >>> repeats(np.array([7, 3, 7, 1, 3, 7])).tolist()
    [False, False, True, False, True, True]
    """
    out = np.zeros(len(flat), dtype=bool)
    if not len(flat):
        return out
    lo = int(flat.min())
    counts = np.bincount(flat - lo)
    if counts.max() <= 1:  # the usual case: every key once per block
        return out
    twice = np.flatnonzero(counts[flat - lo] > 1)  # a stable sort of just the elements that repeat
    order = twice[np.argsort(flat[twice], kind="stable")]
    ordered = flat[order]
    out[order[1:][ordered[1:] == ordered[:-1]]] = True
    return out


def cpu_max(t: pl.Series, most: int = 16) -> pl.DataFrame:
    """cpu.max lines -> ``quota`` (-1: ``max``), ``period`` (null: not a cpu.max line); each text parsed once.

    A limit changes seldom: when the texts come in runs of equal texts (at most one run per ``most`` texts), each
    run's first text is parsed and spread over the run (on the multi-container bench day, 0.23 -> 0.06 s CPU for
    its 0.86 M lines in 16 parts); else each distinct text, spread back by its code in an Enum of them.

    >>> cpu_max(pl.Series(["max 100000"] * 3 + ["50000 100000", None, "x"])).rows()
    [(-1, 100000), (-1, 100000), (-1, 100000), (50000, 100000), (None, None), (None, None)]
    >>> cpu_max(pl.Series(["max 100000", "50000 100000", "max 100000"])).rows()
    [(-1, 100000), (50000, 100000), (-1, 100000)]
    """
    if len(t) < 2:
        return _cpu_max_of(t)
    head = t.ne_missing(t.shift(1)).to_numpy()
    head[0] = True
    at = np.flatnonzero(head)
    if len(at) * most <= len(t):
        return _cpu_max_of(t.gather(at))[np.cumsum(head) - 1]
    distinct = t.unique().drop_nulls()
    return _cpu_max_of(distinct)[t.cast(pl.Enum(distinct)).to_physical()]


def _cpu_max_of(t: pl.Series) -> pl.DataFrame:
    c = pl.col
    groups = pl.DataFrame({"t": t}).select(c("t").str.extract_groups(r"^(max|-?\d+)\s+(\d+)$").alias("g")).unnest("g")
    return groups.select(quota=pl.when(c("1") == "max").then(-1).otherwise(c("1").cast(pl.Int64, strict=False)),
                         period=c("2").cast(pl.Int64, strict=False))


def acct(t: pl.Series) -> pl.DataFrame:
    v = t.str.strip_chars().cast(pl.Int64, strict=False)
    return pl.select(acct=pl.when(v >= 0).then(v))


def first_per_block(i, b, text, nb, rc, parse, name) -> dict[str, pl.Series]:
    """Parse a one-line section; keep the first good line per block (the others: skipped)."""
    p = parse(text)
    names = p.columns
    out = {k: np.zeros(nb, dtype=np.int64) for k in names}
    present = np.zeros(nb, dtype=bool)
    if len(i):
        bad = p.select(pl.any_horizontal(pl.col(k).is_null() for k in names)).to_series().to_numpy()
        rc[i[bad]] = R[f"bad {name} line"]
        p, b, i = p.filter(pl.Series(~bad)), b[~bad], i[~bad]
        first = np.ones(len(b), dtype=bool)
        first[1:] = b[1:] != b[:-1]
        rc[i[~first]] = R[f"extra {name} line"]
        for k in names:
            out[k][b[first]] = p[k].to_numpy()[first]
        present[b[first]] = True
    return {k: nullable(v[1:], present[1:]) for k, v in out.items()}


def top_rows(i: np.ndarray, b: np.ndarray, text: pl.Series, rc: np.ndarray) -> pl.DataFrame:
    """kubectl top rows (not the column header) -> one row per pod or container."""
    head = (text.str.starts_with("POD ") | text.str.starts_with("NAME ")).fill_null(False).to_numpy()
    if head.any():
        i, b, text = i[~head], b[~head], text.filter(pl.Series(~head))
    if not len(i):
        return top_frame(None)
    rows = _top_fields(text, b)
    rows = rows.select("block", pod=_compact(rows["pod"]), container=_compact(rows["container"]),
                       cpu=_each_distinct(rows["cpu_q"], cores_expr), mem=_each_distinct(rows["mem_q"], memory_bytes))
    bad = (rows["cpu"].is_null() | rows["mem"].is_null()).to_numpy()
    rc[i[bad]] = R["bad kubectl top row"]
    rows, i = rows.filter(pl.Series(~bad)), i[~bad]
    blocks = rows["block"].to_numpy()
    if len(blocks) > 1 and not (np.diff(blocks) > 0).all():  # some block has several rows: one per pod/container
        again = repeated_rows(rows)
        rc[i[again]] = R["repeated kubectl top row in block"]
        rows = rows.filter(pl.Series(~again))
    return top_frame(rows.with_columns(pl.col("block") - 1))


def _top_fields(text: pl.Series, b: np.ndarray) -> pl.DataFrame:
    """``block``, ``pod``, ``container``, ``cpu_q``, ``mem_q`` of kubectl top rows (null: not a row), read by
    :data:`_TOP_ROW`."""
    c = pl.col
    fields = pl.DataFrame({"t": text, "block": b}).select("block", c("t").str.extract_groups(_TOP_ROW).alias("f"))
    fields = fields.unnest("f")
    four = c("4").is_not_null()
    return fields.select(
        "block",
        pod="1",
        container=pl.when(four).then(c("2")),
        cpu_q=pl.when(four).then(c("3")).otherwise(c("2")),
        mem_q=pl.when(four).then(c("4")).otherwise(c("3")),
    )


def _compact(texts: pl.Series, most: int = 16) -> pl.Series:
    """``texts`` with their bytes in a buffer of their own when they come in runs of equal texts (at most one run
    per ``most`` texts: kubectl top lists the same pods block after block), else unchanged.  A text column cut
    from the rows keeps all the rows' bytes alive (on a day of 2.3 M kubectl top rows, 51 MB for the pods),
    and the samples gathered from it too.

    >>> s = _compact(pl.Series(["pod-a"] * 20 + [None] * 20 + ["pod-b"] * 20))
    >>> s.to_list() == ["pod-a"] * 20 + [None] * 20 + ["pod-b"] * 20
    True
    """
    if len(texts) < 2:
        return texts
    head = texts.ne_missing(texts.shift(1)).to_numpy()
    head[0] = True
    at = np.flatnonzero(head)
    if len(at) * most > len(texts):
        return texts
    runs = pl.Series(texts.name, texts.gather(at).to_list(), dtype=pl.String)
    return runs.gather(np.cumsum(head) - 1)


def _each_distinct(text: pl.Series, parse) -> pl.Series:
    """``parse`` (a function of an expression) of each distinct text once, spread back by the texts'
    codes (quantities repeat; null stays null).  The codes are those of a Categorical with categories of
    its own, numbered from 0 in order of first appearance: one pass over the texts, where the distinct
    texts and then an Enum of them took two (on the multi-container bench day, the kubectl top rows'
    CPU and memory in 16 parts: 0.18 -> 0.13 and 0.105 -> 0.076 s CPU, medians of 7).

    >>> _each_distinct(pl.Series(["250m", None, "1", "250m"]), cores_expr).to_list()
    [0.25, None, 1.0, 0.25]
    """
    categories = pl.Categories.random()  # its own, never shared with another column; freed with ``cat``
    cat = text.cast(pl.Categorical(categories))
    distinct = categories.to_series()  # in code order; read while ``cat`` holds the categories
    codes = cat.to_physical()
    if len(distinct) <= (codes.max() if codes.len() > codes.null_count() else -1):  # pragma: no cover (a check)
        distinct = text.unique().drop_nulls()  # two passes: the distinct texts, then their codes in an Enum
        codes = text.cast(pl.Enum(distinct)).to_physical()
    return pl.select(parse(pl.lit(distinct))).to_series().gather(codes)


def repeated_rows(rows: pl.DataFrame, most: int = 8) -> np.ndarray:
    """Per kubectl top row (``block`` in order, ``pod``, ``container``), whether its block lists the same pod and
    container before it.  A block's rows are adjacent, so each row is compared with the rows up to the block's
    length before it (with at most ``most`` rows a block; else every row's key is hashed).

    >>> rows = pl.DataFrame({"block": [1, 1, 1, 2, 2], "pod": ["p"] * 5, "container": ["a", "b", "a", "a", None]})
    >>> repeated_rows(rows).tolist()
    [False, False, True, False, False]
    """
    c = pl.col
    block = rows["block"].to_numpy()
    edges = np.concatenate([[0], np.flatnonzero(np.diff(block)) + 1, [len(block)]])
    longest = int(np.diff(edges).max()) if len(block) else 0
    if longest < 2:
        return np.zeros(len(block), dtype=bool)
    if longest > most:
        return ~rows.select(pl.struct("block", "pod", "container").is_first_distinct()).to_series().to_numpy()
    same = ((c("block") == c("block").shift(d)) & c("pod").eq_missing(c("pod").shift(d))
            & c("container").eq_missing(c("container").shift(d)) for d in range(1, longest))
    return rows.select(pl.any_horizontal(same).fill_null(False)).to_series().to_numpy()


def top_frame(rows: pl.DataFrame | None) -> pl.DataFrame:
    schema = {"block": pl.Int64, "pod": pl.String, "container": pl.String, "cpu": pl.Float64, "mem": pl.Int64}
    return pl.DataFrame(schema=schema) if rows is None else rows.cast(schema)


def nulls(n: int, dtype: pl.DataType) -> pl.Series:
    """A column of ``n`` nulls."""
    return pl.repeat(None, n, dtype=dtype, eager=True)


def nullable(values: np.ndarray, present: np.ndarray) -> pl.Series:
    if not present.any():
        return nulls(len(values), pl.Int64)
    s = pl.Series(values, dtype=pl.Int64)
    return s if present.all() else s.scatter(np.flatnonzero(~present), None)
