"""Kubernetes quantities (``250m``, ``1``, ``512Mi``, ``1Gi``) as polars expressions."""

from __future__ import annotations

import polars as pl

_CPU_DIVISOR = {"": 1.0, "m": 1e3, "u": 1e6, "n": 1e9}  # divide (exact), do not multiply by 1e-3
_MEM_SCALE = {
    "": 1,
    "k": 1000,
    "K": 1000,
    "M": 1000**2,
    "G": 1000**3,
    "T": 1000**4,
    "P": 1000**5,
    "E": 1000**6,
    "Ki": 1024,
    "Mi": 1024**2,
    "Gi": 1024**3,
    "Ti": 1024**4,
    "Pi": 1024**5,
    "Ei": 1024**6,
}


def _split(expr: pl.Expr, suffix_chars: str) -> tuple[pl.Expr, pl.Expr]:
    number = expr.str.strip_chars_end(suffix_chars)
    return number, expr.str.slice(number.str.len_bytes())


def _number(text: pl.Expr) -> pl.Expr:
    # digits with an optional fraction only: no signs, exponents, inf or nan (no regex: this runs per line)
    odd = text.str.contains_any(["e", "E", "n", "N", "i", "I", "+", "-", "_", " "])
    starts = text.str.head(1).is_in(list("0123456789"))
    return pl.when(~odd & starts).then(text.cast(pl.Float64, strict=False))


def cpu_cores(expr: pl.Expr) -> pl.Expr:
    """CPU quantity text (``250m``, ``1``, ``1.5``) -> cores (Float64); null when not a quantity."""
    number, suffix = _split(expr, "mun")
    return _number(number) / suffix.replace_strict(_CPU_DIVISOR, default=None, return_dtype=pl.Float64)


def memory_bytes(expr: pl.Expr) -> pl.Expr:
    """Memory quantity text (``512Mi``, ``1Gi``, ``1000``) -> bytes (Int64); null when not a quantity."""
    number, suffix = _split(expr, "kKMGTPEi")
    scale = suffix.replace_strict(_MEM_SCALE, default=None, return_dtype=pl.Float64)
    return (_number(number) * scale).round(0).cast(pl.Int64, strict=False)
