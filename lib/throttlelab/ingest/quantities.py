"""Kubernetes quantities (``250m``, ``1``, ``512Mi``, ``1Gi``) as polars expressions."""

from __future__ import annotations

import polars as pl

_CPU_SCALE = {"": 1.0, "m": 1e-3, "u": 1e-6, "n": 1e-9}
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
CPU_PATTERN = r"^(\d+(?:\.\d+)?)([mun]?)$"
MEMORY_PATTERN = r"^(\d+(?:\.\d+)?)(Ki|Mi|Gi|Ti|Pi|Ei|[kKMGTPE])?$"


def cpu_cores(expr: pl.Expr) -> pl.Expr:
    """CPU quantity text -> cores (Float64); null when not a quantity."""
    g = expr.str.extract_groups(CPU_PATTERN)
    num = g.struct.field("1").cast(pl.Float64, strict=False)
    scale = g.struct.field("2").replace_strict(_CPU_SCALE, default=None, return_dtype=pl.Float64)
    return num * scale


def memory_bytes(expr: pl.Expr) -> pl.Expr:
    """Memory quantity text -> bytes (Int64, rounded); null when not a quantity."""
    g = expr.str.extract_groups(MEMORY_PATTERN)
    num = g.struct.field("1").cast(pl.Float64, strict=False)
    scale = g.struct.field("2").fill_null("").replace_strict(_MEM_SCALE, default=None, return_dtype=pl.Float64)
    return (num * scale).round(0).cast(pl.Int64, strict=False)
