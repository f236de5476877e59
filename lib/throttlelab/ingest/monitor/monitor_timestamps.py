"""Timestamps of monitor logs and ``date`` lines -> UTC times (polars expressions, no per-line Python).

Accepted forms (each tried only on the texts the earlier ones left unparsed, so
a uniform log costs one parse):

* ``2026-02-06 14:24:00.123`` (the script's ``date '+%F %T.%3N'``), 0-9
  fraction digits, ``T`` or space between date and time, a comma instead of
  the decimal point (ISO 8601 allows both);
* macOS ``date``, which has no ``%N`` and leaves ``3N`` or ``N`` in the text
  (``2026-02-06 14:24:00.3N``): read to the second, which is all it holds;
* a zone: ``Z``, an offset (``+09:00``, ``+0900``, ``+09``) or a name from
  :data:`ZONE_OFFSETS` (``UTC``, ``KST``, ``JST``...); ambiguous names (``IST``,
  ``CST``) are not guessed;
* ``date``'s default output, ``Fri Feb  6 14:24:00 KST 2026``;
* Unix time from ``date +%s`` or ``date +%s.%N`` (10 integer digits).

Times without a zone are read in ``tz`` (an IANA name; the caller states it,
``throttlelab ingest --tz``): the result says whether any was naive.
"""

from __future__ import annotations

import polars as pl

from throttlelab import tables

#: Zone names ``date`` prints, as fixed offsets (names meaning several zones are left out).
ZONE_OFFSETS = {
    "UTC": "+00:00", "GMT": "+00:00", "Z": "+00:00", "KST": "+09:00", "JST": "+09:00", "HKT": "+08:00",
    "SGT": "+08:00", "AWST": "+08:00", "AEST": "+10:00", "AEDT": "+11:00", "NZST": "+12:00", "NZDT": "+13:00",
    "CET": "+01:00", "CEST": "+02:00", "EET": "+02:00", "EEST": "+03:00", "WET": "+00:00", "WEST": "+01:00",
    "MSK": "+03:00", "EST": "-05:00", "EDT": "-04:00", "CDT": "-05:00", "MST": "-07:00", "MDT": "-06:00",
    "PST": "-08:00", "PDT": "-07:00", "AKST": "-09:00", "AKDT": "-08:00", "HST": "-10:00",
}
_MONTHS = {m: f"{k:02d}" for k, m in enumerate(
    ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"), start=1)}

_ISO = r"(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}:\d{2})(?:[.,](\d{1,9}|3?N))?"
#: ISO-like text: date, time, fraction, then a zone (``Z``, offset or name) or nothing.
_ISO_RE = rf"^{_ISO} ?(Z|[+-]\d{{2}}(?::?\d{{2}})?|[A-Z]{{2,5}})?$"
#: ``date``'s default (C locale) output: ``Fri Feb  6 14:24:00 KST 2026``.
_DATE_RE = r"^[A-Z][a-z]{2} ([A-Z][a-z]{2}) +(\d{1,2}) (\d{2}:\d{2}:\d{2}) ([A-Z]{2,5}|[+-]\d{4}) (\d{4})$"
_EPOCH_RE = r"^(\d{10})(?:\.(\d{1,9}))?$"


def parse_timestamps(text: pl.Series, tz: str = "UTC") -> tuple[pl.Series, int]:
    """Timestamp texts -> ``Datetime("us", "UTC")`` (null when not a timestamp) and
    how many of them had no zone (read in ``tz``).

    >>> ts, naive = parse_timestamps(pl.Series(["2026-02-06 14:24:00.123", "2026-02-06T05:24:00,5+00:00",
    ...                                         "2026-02-06 14:24:01.3N", "Fri Feb  6 14:24:02 KST 2026", "x"]), "Asia/Seoul")
    >>> [str(t) for t in ts], naive
    (['2026-02-06 05:24:00.123000+00:00', '2026-02-06 05:24:00.500000+00:00', '2026-02-06 05:24:01+00:00', '2026-02-06 05:24:02+00:00', 'None'], 2)
    """
    text = text.str.strip_chars()
    # The common case, one parse: the script's naive form (or our writer's Z form) throughout; its
    # ``%3N`` first, as polars reads a fixed-width ``.%3f`` fast (five times faster than ``%.f``).
    forms = (("%Y-%m-%d %H:%M:%S.%3f", True), ("%Y-%m-%d %H:%M:%S%.f", True), ("%Y-%m-%d %H:%M:%S%.fZ", False))
    for fmt, naive in forms:
        fast = text.str.to_datetime(fmt, strict=False, time_unit="us", cache=False)  # times are all distinct
        if fast.null_count() == 0 and len(text):
            return _localise(fast, tz if naive else "UTC"), len(text) if naive else 0
    frame = pl.DataFrame({"t": text}).with_row_index("i")
    iso = _iso_forms(frame, tz)
    return iso["ts"], int(iso["naive"].sum())


def _iso_forms(frame: pl.DataFrame, tz: str) -> pl.DataFrame:
    t = pl.col("t")
    g = t.str.extract_groups(_ISO_RE)
    d = t.str.extract_groups(_DATE_RE)
    e = t.str.extract_groups(_EPOCH_RE)
    frac = g.struct.field("3")
    frac = pl.when(frac.str.ends_with("N")).then(None).otherwise(frac)  # macOS date: no %N
    zone = pl.coalesce(g.struct.field("4"), d.struct.field("4"))
    parts = frame.select(
        "i",
        date=pl.coalesce(g.struct.field("1"),
                         pl.concat_str(d.struct.field("5"), d.struct.field("1").replace_strict(_MONTHS, default=None),
                                       d.struct.field("2").str.zfill(2), separator="-")),
        time=pl.coalesce(g.struct.field("2"), d.struct.field("3")),
        frac=frac,
        offset=pl.when(zone.is_null()).then(None).when(zone.str.contains(r"^[+-]")).then(_offset(zone)).otherwise(
            zone.replace_strict(ZONE_OFFSETS, default="?")),
        epoch_s=e.struct.field("1").cast(pl.Int64),
        epoch_frac=e.struct.field("2"),
    )
    c = pl.col
    text = pl.concat_str(c("date"), pl.lit(" "), c("time"), pl.lit("."), c("frac").fill_null("0"))
    naive = c("offset").is_null() & c("date").is_not_null()
    aware = pl.concat_str(text, c("offset")).str.to_datetime("%Y-%m-%d %H:%M:%S%.f%:z", strict=False, time_unit="us",
                                                               time_zone="UTC")
    epoch = (c("epoch_s") * 1_000_000 + c("epoch_frac").str.pad_end(6, "0").str.head(6).cast(pl.Int64).fill_null(0))
    out = parts.with_columns(
        local=text.str.to_datetime("%Y-%m-%d %H:%M:%S%.f", strict=False, time_unit="us"),
        aware=aware,
        epoch=epoch.cast(pl.Datetime("us")).dt.replace_time_zone("UTC"),
        naive=naive,
    )
    local = _localise(out["local"], tz)
    ts = pl.select(pl.when(out["naive"]).then(local).otherwise(pl.coalesce(out["aware"], out["epoch"]))).to_series()
    return pl.DataFrame({"ts": ts.cast(tables.UTC_TIME).alias("ts"), "naive": out["naive"] & ts.is_not_null()})


def _offset(zone: pl.Expr) -> pl.Expr:
    """``+0900``/``+09``/``+09:00`` -> ``+09:00``."""
    digits = zone.str.replace(":", "", literal=True)
    return pl.concat_str(digits.str.head(3), pl.lit(":"), digits.str.slice(3).str.pad_end(2, "0"))


def _localise(naive: pl.Series, tz: str) -> pl.Series:
    """Naive times read in ``tz`` -> UTC (a time that does not exist there: null)."""
    if tz == "UTC":
        return naive.dt.replace_time_zone("UTC").alias("ts")
    return naive.dt.replace_time_zone(tz, ambiguous="earliest", non_existent="null").dt.convert_time_zone("UTC").alias("ts")


def local_zone() -> str:
    """This machine's IANA zone name (``TZ``, else ``/etc/localtime``), ``UTC`` when unknown."""
    import os
    from pathlib import Path

    name = os.environ.get("TZ", "").lstrip(":")
    if not name:
        try:
            target = str(Path("/etc/localtime").resolve())
            name = target.split("zoneinfo/", 1)[1] if "zoneinfo/" in target else ""
        except OSError:
            name = ""
    return name or "UTC"
