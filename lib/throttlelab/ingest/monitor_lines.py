"""The careful line stage of the monitor-log reader (see :mod:`.monitor_log`).

The lines are a polars column (:mod:`.lines`); each is classified with string
expressions (block headers, log headers and section markers confirmed after a
first-byte lookup), sections are forward-filled, ``key value`` lines are
scattered into a (key x block) matrix, cpu.max and kubectl top lines are parsed
once per distinct line.  Every line gets a skip reason or is used.  The fast
path (:mod:`.monitor_fast`) sends here whatever it does not read itself.
"""

from __future__ import annotations

import numpy as np
import polars as pl

from throttlelab.ingest import lines as lines_mod
from throttlelab.ingest.monitor_blocks import IGNORED_KEYS, STAT_KEYS, Blocks
from throttlelab.ingest.monitor_format import SECTIONS
from throttlelab.ingest.monitor_log import parse_timestamps
from throttlelab.ingest.monitor_skips import R
from throttlelab.ingest.quantities import cpu_cores, memory_bytes

_KEY_ENUM = pl.Enum([*STAT_KEYS, *IGNORED_KEYS])
# First byte of a line -> 1 maybe a block header, 2 maybe a section marker, 3 maybe a header line.
_FIRST_BYTE_CLASS = np.zeros(256, dtype=np.uint8)
_FIRST_BYTE_CLASS[ord("-")] = 1
_FIRST_BYTE_CLASS[ord("[")] = 2
_FIRST_BYTE_CLASS[np.frombuffer(b"=PNIL", dtype=np.uint8)] = 3
# First two bytes of the header lines ("==", "Po", "Na", "In", "Lo"): not "POD ..." or "NAME ..." of kubectl top.
HEADER_PAIRS = np.zeros((256, 256), dtype=bool)
for _a, _b in ("==", "Po", "Na", "In", "Lo"):
    HEADER_PAIRS[ord(_a), ord(_b)] = True
_UNKNOWN = 255

# Skip reasons; 0 means "used".  Order = index in the per-line reason array.
HEADER_PREFIXES = ("Pod: ", "Namespace: ", "Interval: ", "Log file: ")



def line_stage(lines: lines_mod.Lines, tz: str = "UTC") -> tuple[np.ndarray, Blocks, tuple[np.ndarray, pl.Series]]:
    """The careful per-line parse of :class:`~.lines.Lines` that hold a whole log or
    whole blocks of one (each part after the first starting at a block header).

    Returns
    -------
    rc
        Per line, the index in :data:`REASONS` of why it is skipped (0: used);
        block-level reasons (timestamps, mixed versions) are left to :func:`.monitor_assemble.assemble`.
    blocks
        The blocks found (lines before the first block header are not a block).
    headers
        Line indices and texts of the log-header lines (``===``, ``Pod:``...).
    """
    n = len(lines)
    text = lines.text
    lengths = lines.lengths()
    rc = lines.problem_codes(lengths)  # codes 0-4 are shared with REASONS
    if lines.binary:
        return rc, Blocks.empty(), (np.zeros(0, np.int64), pl.Series("t", [], dtype=pl.String))
    has_problems = bool(rc.any())
    b0, b1 = lines.first_bytes(2)

    # Structure lines: candidates from their first byte (one table lookup per
    # line), confirmed with string tests on the candidates only.
    cls = _FIRST_BYTE_CLASS[b0]
    if has_problems:
        cls[rc != 0] = 0
    blk_idx = _confirm(text, (cls == 1) & (b1 == ord("-")), lambda t: t.str.starts_with("--- ") & t.str.ends_with(" ---"))
    hdr_cand = np.flatnonzero(cls == 3)
    hdr_cand = hdr_cand[HEADER_PAIRS[b0[hdr_cand], b1[hdr_cand]]]
    hdr_idx = _confirm(text, hdr_cand, lambda t: t.str.starts_with("===")
                       | pl.any_horizontal(t.str.starts_with(p) for p in HEADER_PREFIXES))
    sec_idx = np.flatnonzero(cls == 2)
    sec_code = pl.select(_section_code(pl.lit(text.gather(sec_idx)))).to_series().to_numpy()
    sec_idx, sec_code = sec_idx[sec_code > 0], sec_code[sec_code > 0]
    del cls

    # Section of every line: the code of the last marker line (block/header -> 0),
    # repeated up to the next marker.
    marker = np.full(n, -1, dtype=np.int8)
    marker[blk_idx] = 0
    marker[hdr_idx] = 0
    marker[sec_idx] = sec_code
    m_pos = np.flatnonzero(marker >= 0)
    m_code = marker[m_pos]
    code = np.zeros(n, dtype=np.int8)
    if len(m_pos):
        code[m_pos[0]:] = np.repeat(m_code, np.diff(np.append(m_pos, n)))
    nb = len(blk_idx) + 1  # block 0 = lines before the first block header
    block = np.zeros(n, dtype=np.int32)
    if len(blk_idx):
        block[blk_idx[0]:] = np.repeat(np.arange(1, nb, dtype=np.int32), np.diff(np.append(blk_idx, n)))

    # Kind of every content line: its section code, 10 outside any section;
    # 0 for markers, blank lines and lines with a file-level problem.
    kind = code.view(np.uint8).copy()
    kind[kind == 0] = 10
    kind[m_pos] = 0
    kind[lengths == 0] = 0
    if has_problems:
        kind[rc != 0] = 0
    rc[sec_idx[sec_code == 9]] = R["unknown section"]
    rc[kind == 10] = R["unrecognised line"]
    rc[kind == 9] = R["line in unknown section"]

    def section(k: int) -> tuple[np.ndarray, np.ndarray, pl.Series]:
        mask = kind == k
        idx = np.flatnonzero(mask)
        # a boolean filter is several times cheaper than a gather on a string column
        return idx, block[idx].astype(np.int64), text.filter(pl.Series(mask))

    stat, stat_present = _stat_matrix(*section(2), nb, rc)
    cpu_max = _first_per_block(*section(3), nb, rc, cpu_max_exprs, R["bad cpu.max line"], R["extra cpu.max line"])
    acct = _first_per_block(*section(4), nb, rc, _acct_expr, R["bad cpuacct.usage line"], R["extra cpuacct.usage line"])
    top_rows_, top_row = _top_per_block(*section(1), nb, rc)

    ts = parse_timestamps(text.gather(blk_idx).str.slice(4).str.head(-4), tz)
    blocks = Blocks(
        line=blk_idx.astype(np.int64),
        ts=ts.cast(pl.Int64).fill_null(0).to_numpy(),
        ts_ok=ts.is_not_null().to_numpy(),
        stat=np.ascontiguousarray(stat[1:].T),
        stat_present=np.ascontiguousarray(stat_present[1:].T),
        quota=cpu_max["quota"][1:],
        period=cpu_max["period"][1:],
        max_present=cpu_max["present"][1:],
        acct=acct["value"][1:],
        acct_present=acct["present"][1:],
        top_rows=top_rows_,
        top_row=top_row[1:],
    )
    return rc, blocks, (hdr_idx.astype(np.int64), text.gather(hdr_idx))


def _confirm(text: pl.Series, candidates: np.ndarray, test) -> np.ndarray:
    """Indices of the candidate lines (an index array, or a boolean mask for many)
    for which the expression ``test(pl.col("t"))`` holds."""
    if candidates.dtype == bool:
        idx = np.flatnonzero(candidates)
        sub_text = text.filter(pl.Series(candidates)) if len(idx) else None
    else:
        idx = candidates
        sub_text = text.gather(idx) if len(idx) else None
    if len(idx) == 0:
        return idx
    sub = pl.DataFrame({"t": sub_text}).select(test(pl.col("t")).fill_null(False)).to_series()
    return idx[sub.to_numpy()]


def _section_code(t: pl.Expr) -> pl.Expr:
    """1-4 for the known section markers (order of SECTIONS), 9 other ``[...]``, 0 not a marker."""
    expr = pl.when(pl.lit(False)).then(0)
    for k, name in enumerate(SECTIONS, start=1):
        expr = expr.when(t == f"[{name}]").then(k)
    return expr.when(t.str.ends_with("]")).then(9).otherwise(0).cast(pl.Int8)


# --- sections -----------------------------------------------------------------


def _stat_matrix(i: np.ndarray, b: np.ndarray, text: pl.Series, nb: int, rc: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """cpu.stat ``key value`` lines -> (block x key) values and presence matrices."""
    nk = len(STAT_KEYS)
    values = np.zeros((nb, nk), dtype=np.int64)
    present = np.zeros((nb, nk), dtype=bool)
    if len(i) == 0:
        return values, present
    t = pl.col("t")
    kv = pl.DataFrame({"t": text}).with_columns(pos=t.str.find(" ", literal=True)).select(
        key=t.str.head(pl.col("pos")).cast(_KEY_ENUM, strict=False).to_physical(),
        value=t.str.slice(pl.col("pos") + 1).cast(pl.Int64, strict=False),
    )
    key = kv["key"].fill_null(_UNKNOWN).to_numpy()
    val = kv["value"].fill_null(-1).to_numpy()
    good = (val >= 0) & (key < nk)
    if not good.all():
        bad = val < 0
        unknown = ~bad & (key == _UNKNOWN)
        rc[i[bad]] = R["bad cpu.stat line"]
        rc[i[unknown]] = R["unknown cpu.stat key"]
        b, key, val, i = b[good], key[good], val[good], i[good]
    flat = b * nk + key  # index into the raveled (block x key) matrices
    present.ravel()[flat] = True
    if np.count_nonzero(present) < len(flat):  # repeated keys in a block: keep the first
        first = pl.Series(flat).is_first_distinct().to_numpy()
        rc[i[~first]] = R["repeated cpu.stat key in block"]
        flat, val = flat[first], val[first]
    values.ravel()[flat] = val
    return values, present


def cpu_max_exprs(t: pl.Expr) -> dict[str, pl.Expr]:
    g = t.str.extract_groups(r"^(max|-?\d+)\s+(\d+)$")
    q = g.struct.field("1")
    return {
        "quota": pl.when(q == "max").then(-1).otherwise(q.cast(pl.Int64, strict=False)),
        "period": g.struct.field("2").cast(pl.Int64, strict=False),
    }


def _acct_expr(t: pl.Expr) -> dict[str, pl.Expr]:
    v = t.str.strip_chars().cast(pl.Int64, strict=False)
    return {"value": pl.when(v >= 0).then(v)}


def _first_per_block(i, b, text, nb, rc, expr_fn, bad_reason, extra_reason) -> dict[str, np.ndarray]:
    """Parse a one-line section; keep the first good line per block."""
    names = list(expr_fn(pl.col("t")))
    out = {k: np.zeros(nb, dtype=np.int64) for k in names}
    out["present"] = np.zeros(nb, dtype=bool)
    if len(i) == 0:
        return out
    p = _parse_distinct(text, expr_fn(pl.col("t")))
    bad = p.select(pl.any_horizontal(pl.col(k).is_null() for k in names)).to_series().to_numpy()
    rc[i[bad]] = bad_reason
    p, b, i = p.filter(pl.Series(~bad)), b[~bad], i[~bad]
    first = np.ones(len(b), dtype=bool)
    first[1:] = b[1:] != b[:-1]
    rc[i[~first]] = extra_reason
    for k in names:
        out[k][b[first]] = p[k].to_numpy()[first]
    out["present"][b[first]] = True
    return out


def _top_per_block(i, b, text, nb, rc) -> tuple[pl.DataFrame | None, np.ndarray]:
    """kubectl top rows -> per block pod, container(s), CPU cores and memory bytes
    (summed over containers): the rows, and the row of each block (-1: none)."""
    none = np.full(nb, -1, dtype=np.int64)
    if len(i) == 0:
        return None, none
    head = pl.select((pl.lit(text).str.starts_with("POD ") | pl.lit(text).str.starts_with("NAME "))).to_series().to_numpy()
    i, b = i[~head], b[~head]
    rows = top_rows(text.filter(pl.Series(~head)))
    bad = (rows["cpu"].is_null() | rows["mem"].is_null()).to_numpy()
    rc[i[bad]] = R["bad kubectl top row"]
    rows, b = rows.filter(pl.Series(~bad)), b[~bad]
    if rows.height == 0:
        return None, none
    if len(b) > 1 and np.any(b[1:] == b[:-1]):  # several containers: pod totals
        rows = rows.with_columns(block=b).group_by("block", maintain_order=True).agg(
            pl.col("pod").first(),
            # null (not "") when no row names a container, as for a single row
            pl.when(pl.col("container").is_not_null().any()).then(pl.col("container").str.join(",")),
            pl.col("cpu").sum(),
            pl.col("mem").sum(),
        )
        b = rows["block"].to_numpy()
        rows = rows.drop("block")
    none[b] = np.arange(len(b))
    return rows, none


def top_rows(text: pl.Series) -> pl.DataFrame:
    """kubectl top rows (not the column header) -> ``pod``, ``container``, ``cpu``
    (cores), ``mem`` (bytes); ``cpu``/``mem`` null when the row is bad."""
    t = pl.col("t")
    f = t.str.extract_groups(r"^(\S+) +(\S+) +(\S+)(?: +(\S+))?$")
    four = f.struct.field("4").is_not_null()
    return _parse_distinct(text, {
        "pod": f.struct.field("1"),
        "container": pl.when(four).then(f.struct.field("2")),
        "cpu": cpu_cores(pl.when(four).then(f.struct.field("3")).otherwise(f.struct.field("2"))),
        "mem": memory_bytes(pl.when(four).then(f.struct.field("4")).otherwise(f.struct.field("3"))),
    })


def _parse_distinct(text: pl.Series, exprs: dict[str, pl.Expr]) -> pl.DataFrame:
    """``select(**exprs)`` over ``pl.col("t")``, evaluated once per distinct line and
    joined back in order (kubectl top rows and cpu.max lines repeat a lot)."""
    df = pl.DataFrame({"t": text})
    parsed = df.unique().select("t", **exprs)
    return df.join(parsed, on="t", how="left", maintain_order="left", nulls_equal=True).drop("t")
