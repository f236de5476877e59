"""CPU and memory quantities: cores, millicores and ``unlimited`` read and written one way everywhere.

A CPU quantity is a number of cores: ``0.5``, ``"1500m"`` (millicores), ``"500000u"``,
``"2000000000n"`` (micro- and nanocores, as the metrics API writes them) or a word for no limit
(``unlimited``, ``none``, ``max``: the cgroup v2 spelling), read by :func:`parse_cores` (one value),
:func:`label_cores` (a label as these functions write it, ``"1.25 cores"`` included; ``None`` for any other text)
or :func:`cores_expr` (a polars column of text).  It is written by :func:`format_millicores`
(``"1500m"``: labels and run ids; :func:`format_millicores_range` for an interval), :func:`format_cores`
(``"1.5"``), :func:`format_cpu` (how Kubernetes users write a request: ``"450m"`` below a core,
``"1.25 cores"`` above; :func:`format_cpu_range` for an interval) or, for a polars column, :func:`cores_text`.
Memory quantities (``512Mi``, ``1Gi``) are read by :func:`memory_bytes`.

polars is imported only by the functions that build polars expressions.
"""

from __future__ import annotations

import math
import re
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import polars as pl

#: Words meaning "no CPU limit" (compared after ``strip().lower()``).
UNLIMITED_WORDS = ("unlimited", "none", "max")
#: CPU suffix -> how many of it make a core (divide by it: exact, unlike multiplying by 1e-3).
CPU_DIVISOR = {"": 1.0, "m": 1e3, "u": 1e6, "n": 1e9}
_CPU_TEXT = re.compile(r"\s*(\d+(?:\.\d+)?)([mun]?)\s*")
_MEM_SCALE = {"": 1, "k": 1000, "K": 1000, "M": 1000**2, "G": 1000**3, "T": 1000**4, "P": 1000**5, "E": 1000**6,
              "Ki": 1024, "Mi": 1024**2, "Gi": 1024**3, "Ti": 1024**4, "Pi": 1024**5, "Ei": 1024**6}


def parse_cores(value: Any, *, allow_zero: bool = False) -> float | None:
    """Cores from a number, a quantity text or a word for no limit (``None``).

    Parameters
    ----------
    value
        ``0.5``, ``2``, ``"1500m"``, ``"2"``, ``"500000u"``, ``"unlimited"`` (or ``"none"``, ``"max"``,
        ``None``).
    allow_zero
        Read zero too (a CPU request of ``0``, a table cell); a limit is never zero.

    Returns
    -------
    float or None
        Cores, rounded to the nanocore (9 decimals); ``None`` for no limit.

    Raises
    ------
    ValueError
        For anything else (a sign, an exponent, another unit, a boolean) and for zero or less.

    Examples
    --------
    >>> [parse_cores(v) for v in (0.5, 2, "1500m", " 250m ", "2", "500000u", "unlimited", "MAX", None)]
    [0.5, 2.0, 1.5, 0.25, 2.0, 0.5, None, None, None]
    >>> parse_cores("1.5 cores")
    Traceback (most recent call last):
    ...
    ValueError: cannot read '1.5 cores' as CPU cores (use 0.5, '1500m' or 'unlimited')
    >>> parse_cores("0m")
    Traceback (most recent call last):
    ...
    ValueError: CPU limit must be positive, got '0m'
    >>> parse_cores("0m", allow_zero=True), parse_cores("1860m", allow_zero=True)
    (0.0, 1.86)
    """
    if value is None or (isinstance(value, str) and value.strip().lower() in UNLIMITED_WORDS):
        return None
    if isinstance(value, bool):
        raise ValueError(f"cannot read {value!r} as CPU cores")
    if isinstance(value, (int, float)):
        cores = float(value)
    elif isinstance(value, str) and (m := _CPU_TEXT.fullmatch(value)):
        cores = float(m.group(1)) / CPU_DIVISOR[m.group(2)]
    else:
        raise ValueError(f"cannot read {value!r} as CPU cores (use 0.5, '1500m' or 'unlimited')")
    if not math.isfinite(cores) or cores < 0 or (cores == 0 and not allow_zero):
        raise ValueError(f"CPU limit must be positive, got {value!r}")
    return round(cores, 9)


#: Words a label may put after a number of cores (what :func:`format_cpu` writes above one core).
_CORES_WORDS = (" cores", " core")


def label_cores(label: object) -> float | None:
    """The cores a label stands for, or ``None`` where it names no number of cores.

    A label is what :func:`format_millicores`, :func:`format_cores` and :func:`format_cpu` write, or a number:
    ``"1500m"``, ``"1.5"``, ``"1.25 cores"``; read by :func:`parse_cores`.  Unlike :func:`parse_cores` it never
    raises: ``None`` for no limit (``unlimited``, ``no limit``, infinity), for any other text and for zero or less
    written as text.  A number is taken as it is (not rounded).

    Examples
    --------
    >>> [label_cores(v) for v in ("12000m", "500m", "2", "1.25 cores", "1 core", 1.0, 0.30000000000000004)]
    [12.0, 0.5, 2.0, 1.25, 1.0, 1.0, 0.30000000000000004]
    >>> [label_cores(v) for v in ("unlimited", "no limit", "auto", "0m", float("inf"), None)]
    [None, None, None, None, None, None]
    """
    if isinstance(label, (int, float)) and not isinstance(label, bool):
        return None if math.isinf(label) else float(label)
    text = str(label).strip()
    for word in _CORES_WORDS:
        text = text.removesuffix(word)
    try:
        return parse_cores(text)
    except ValueError:
        return None


def format_millicores(cores: float | None, *, unlimited: str = "unlimited") -> str:
    """``1.5`` -> ``"1500m"`` (whole millicores); ``None`` or NaN -> ``unlimited``.

    Examples
    --------
    >>> format_millicores(1.5), format_millicores(0.25), format_millicores(None), format_millicores(None, unlimited="unl")
    ('1500m', '250m', 'unlimited', 'unl')
    """
    if cores is None or (isinstance(cores, float) and math.isnan(cores)):
        return unlimited
    return f"{round(cores * 1000):d}m"


def format_cores(cores: float | None, *, unlimited: str = "unlimited", suffix: str = "") -> str:
    """``1.5`` -> ``"1.5"`` (shortest form, ``%g``) followed by ``suffix``; ``None`` -> ``unlimited``.

    Examples
    --------
    >>> format_cores(1.5), format_cores(2.0), format_cores(None), format_cores(0.25, suffix="c")
    ('1.5', '2', 'unlimited', '0.25c')
    """
    return unlimited if cores is None else f"{cores:g}{suffix}"


def format_cpu(cores: float | None, *, unit: str = " cores", unlimited: str = "no limit") -> str:
    """Cores the way Kubernetes users write them: millicores below one core, else cores to two decimals.

    Examples
    --------
    >>> format_cpu(0.45), format_cpu(1.25), format_cpu(None)
    ('450m', '1.25 cores', 'no limit')
    >>> format_cpu(2, unit=""), format_cpu(None, unlimited="none")
    ('2.00', 'none')
    """
    if cores is None:
        return unlimited
    return f"{cores * 1000:.0f}m" if cores < 1 else f"{cores:.2f}{unit}"


def format_cpu_range(low: float | None, high: float | None) -> str:
    """An interval of cores as :func:`format_cpu` writes them; a missing high end is open above.

    Examples
    --------
    >>> format_cpu_range(0.25, 0.6), format_cpu_range(1.5, 2.0), format_cpu_range(0.51, None)
    ('250m-600m', '1.50-2.00 cores', 'at least 510m, open above')
    """
    if low is not None and high is None:
        return f"at least {format_cpu(low)}, open above"
    if low is None or high is None:
        return "no interval"
    if low >= 1 and high >= 1:
        return f"{low:.2f}-{high:.2f} cores"
    return f"{format_cpu(low)}-{format_cpu(high)}"


def format_millicores_range(low: float, high: float | None, *, open_above: str = "open") -> str:
    """An interval of cores in millicores, the unit written once; a missing high end is ``open_above``.

    Examples
    --------
    >>> format_millicores_range(0.25, 0.6), format_millicores_range(1.5, 2.25), format_millicores_range(0.51, None)
    ('250-600m', '1500-2250m', '510m-open')
    """
    if high is None:
        return f"{format_millicores(low)}-{open_above}"
    return f"{round(low * 1000):d}-{format_millicores(high)}"


def cores_text(expr: pl.Expr, *, decimals: int | None = None, suffix: str = "",
               unlimited: str = "unlimited") -> pl.Expr:
    """A polars column of cores as text (polars' float text, e.g. ``"1.0"``, after rounding to ``decimals``);
    null as ``unlimited``.

    Examples
    --------
    >>> import polars as pl
    >>> pl.select(cores_text(pl.lit(pl.Series([0.5, 1.0, None, 0.33333])), decimals=3)).to_series().to_list()
    ['0.5', '1.0', 'unlimited', '0.333']
    """
    import polars as pl

    text = (expr if decimals is None else expr.round(decimals)).cast(pl.String)
    return pl.when(expr.is_null()).then(pl.lit(unlimited)).otherwise(text + suffix if suffix else text)


def _split(expr: pl.Expr, suffix_chars: str) -> tuple[pl.Expr, pl.Expr]:
    number = expr.str.strip_chars_end(suffix_chars)
    return number, expr.str.slice(number.str.len_bytes())


def _number(text: pl.Expr) -> pl.Expr:
    import polars as pl

    # digits with an optional fraction only: no signs, exponents, inf or nan (no regex: this runs per line)
    odd = text.str.contains_any(["e", "E", "n", "N", "i", "I", "+", "-", "_", " "])
    starts = text.str.head(1).is_in(list("0123456789"))
    return pl.when(~odd & starts).then(text.cast(pl.Float64, strict=False))


def cores_expr(expr: pl.Expr, *, bare: str = "") -> pl.Expr:
    """A polars column of CPU quantity text (``250m``, ``1``, ``1.5``, ``500000u``) -> cores (Float64).

    ``bare`` is the suffix a number without one has (``"m"``: a column of millicores).  Null where
    the text is not a quantity, and for the words meaning no limit.

    Examples
    --------
    >>> import polars as pl
    >>> s = pl.Series(["250m", "1", "1.5", "500000u", "x", "-1", "unlimited", None])
    >>> pl.select(cores_expr(pl.lit(s))).to_series().to_list()
    [0.25, 1.0, 1.5, 0.5, None, None, None, None]
    >>> pl.select(cores_expr(pl.lit(pl.Series(["1500", "250m", "unlimited"])), bare="m")).to_series().to_list()
    [1.5, 0.25, None]
    """
    import polars as pl

    number, suffix = _split(expr, "mun")
    if bare:
        suffix = pl.when(suffix == "").then(pl.lit(bare)).otherwise(suffix)
    return _number(number) / suffix.replace_strict(CPU_DIVISOR, default=None, return_dtype=pl.Float64)


def memory_bytes(expr: pl.Expr) -> pl.Expr:
    """Memory quantity text (``512Mi``, ``1Gi``, ``1000``) -> bytes (Int64); null when not a quantity.

    Examples
    --------
    >>> import polars as pl
    >>> pl.select(memory_bytes(pl.lit(pl.Series(["512Mi", "1k", "x"])))).to_series().to_list()
    [536870912, 1000, None]
    """
    import polars as pl

    number, suffix = _split(expr, "kKMGTPEi")
    scale = suffix.replace_strict(_MEM_SCALE, default=None, return_dtype=pl.Float64)
    return (_number(number) * scale).round(0).cast(pl.Int64, strict=False)
