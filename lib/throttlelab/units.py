"""Numbers with units for people: one formatter per quantity, shared by tables, charts and sentences.

Every formatter takes the quantity in its stored unit (seconds, bytes, cores,
shares 0-1, percent) and returns text in the unit a reader expects: latency
in ms, memory in MiB/GiB, shares as %, no scientific notation (a value
smaller than the last shown digit is ``< 0.001``), and nouns counted right
(``1 thread``, ``2 threads``).  Charts take :data:`QUANTITIES` (the unit, the
factor from the stored unit and a d3 format) so that an axis reads like the
table beside it.

Examples
--------
>>> latency(0.00084), latency(0.0264), memory(3_145_728), percent(0.452), seconds(3.85)
('0.84 ms', '26.4 ms', '3 MiB', '45%', '3.85 s')
>>> number(8.56e-16), p_value(3e-9), count(1, "thread"), count(24, "thread")
('< 0.001', '< 0.001', '1 thread', '24 threads')
>>> cores_label("12000m"), cores_label("500m"), cores_range(["6000m", "7000m"])
('12 cores', '0.5 cores', '6-7 cores')
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

from throttlelab.core.quantities import label_cores

MISSING = "–"


@dataclass(frozen=True)
class Quantity:
    """How a quantity is shown: ``unit`` after multiplying the stored value by ``scale``; ``d3`` for chart axes."""

    unit: str
    scale: float
    d3: str


#: Quantity -> how charts and tables show it (stored unit in the comment).
QUANTITIES = {
    "latency": Quantity("ms", 1000.0, ",.3~r"),  # seconds
    "duration": Quantity("s", 1.0, ",.3~r"),  # seconds
    "memory_mib": Quantity("MiB", 1 / 2**20, ",.3~r"),  # bytes
    "memory_gib": Quantity("GiB", 1 / 2**30, ",.3~r"),  # bytes
    "share": Quantity("%", 100.0, ",.3~r"),  # 0-1
    "cores": Quantity("cores", 1.0, ",.3~r"),  # cores
}


def number(x: float | int | None, digits: int = 3, *, trim: bool = False) -> str:
    """A plain number: ``digits`` significant digits, thousands separators, never scientific notation.

    ``trim`` drops trailing zeros (``6`` rather than ``6.00``).

    >>> [number(v) for v in (70.49, 0.114146, 12345.6, 0, -2.5e-7, None, float("inf"))]
    ['70.5', '0.114', '12,346', '0', '> -0.001', '–', '∞']
    >>> number(6.0), number(6.0, trim=True), number(0.250, trim=True)
    ('6.00', '6', '0.25')
    """
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return MISSING
    if isinstance(x, bool):
        return "yes" if x else "no"
    if isinstance(x, int):
        return f"{x:,d}"
    x = float(x)
    if math.isinf(x):
        return "∞" if x > 0 else "-∞"
    if x == 0:
        return "0"
    a = abs(x)
    if a < 10 ** -digits:
        return f"< {10 ** -digits:.{digits}f}" if x > 0 else f"> -{10 ** -digits:.{digits}f}"
    if a >= 10 ** (digits - 1):
        return f"{x:,.0f}"
    decimals = max(0, digits - 1 - math.floor(math.log10(a)))
    text = f"{x:,.{decimals}f}"
    return text.rstrip("0").rstrip(".") if trim and "." in text else text


def p_value(p: float | None) -> str:
    """A p-value to three decimals, ``< 0.001`` below that."""
    if p is None or math.isnan(p):
        return MISSING
    return "< 0.001" if p < 0.001 else f"{p:.3f}"


def percent(share: float | None, digits: int = 2) -> str:
    """A share (0-1) as a percentage with up to ``digits`` significant digits: ``0.452`` -> ``45%``."""
    return pct(None if share is None else 100 * share, digits)


def pct(value: float | None, digits: int = 2, *, sign: bool = False) -> str:
    """A percentage (already x100): ``47.3`` -> ``47%``, ``0.25`` -> ``0.25%``; ``sign``: ``+48%``."""
    if value is None or math.isnan(value):
        return MISSING
    text = number(round(value) if abs(value) >= 10 ** (digits - 1) else value, digits, trim=True)
    return f"{'+' if sign and value > 0 else ''}{text}%"


def seconds(x: float | None, digits: int = 3) -> str:
    """A duration: ``3.85 s``, ``840 ms`` under a second, ``2.5 min`` from ten minutes on."""
    if x is None or math.isnan(x):
        return MISSING
    if abs(x) < 1:
        return f"{number(1000 * x, digits, trim=True)} ms"
    if abs(x) >= 600:
        return f"{number(x / 60, digits, trim=True)} min"
    return f"{number(x, digits, trim=True)} s"


def latency(x: float | None, digits: int = 3) -> str:
    """A response time in milliseconds (``x`` in seconds): ``0.0264`` -> ``26.4 ms``."""
    return MISSING if x is None or math.isnan(x) else f"{number(1000 * x, digits, trim=True)} ms"


def memory(n_bytes: float | None) -> str:
    """Bytes in KiB, MiB or GiB (binary units), three significant digits."""
    if n_bytes is None or math.isnan(n_bytes):
        return MISSING
    for unit, size in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if abs(n_bytes) >= size:
            return f"{number(n_bytes / size, trim=True)} {unit}"
    return count(int(n_bytes), "byte")


def memory_quantity(values: Iterable[float | None]) -> str:
    """``memory_gib`` or ``memory_mib``: the unit a column of byte counts reads best in."""
    v = [abs(float(x)) for x in values if x is not None and math.isfinite(float(x))]
    return "memory_gib" if v and max(v) >= 2**30 else "memory_mib"


def count(n: float | int, noun: str, plural: str | None = None) -> str:
    """``1 thread``, ``2 threads``, ``1,200 runs`` (``plural`` for irregular nouns)."""
    return f"{f'{int(n):,d}' if float(n).is_integer() else number(n, trim=True)} {noun_for(n, noun, plural)}"


def noun_for(n: float | int, noun: str, plural: str | None = None) -> str:
    """The noun for ``n`` of it: singular only for exactly one."""
    return noun if n == 1 else (plural or f"{noun}s")


def cores(x: float | None) -> str:
    """A CPU amount in cores: ``1 core``, ``0.25 cores``, ``12 cores``; ``None``/inf is ``no limit``."""
    if x is None or math.isinf(x):
        return "no limit"
    return count(x, "core")


def cores_label(label: object) -> str:
    """A limit label (``12000m``, ``unlimited``; read by :func:`~throttlelab.core.quantities.label_cores`) in cores:
    ``12 cores``, ``no limit``."""
    return cores(label_cores(label))


def cores_range(labels: Iterable[object]) -> str:
    """Consecutive limits as one range in cores: ``6-7 cores``; one limit: ``6 cores``."""
    values = [label_cores(v) for v in labels]
    finite = [v for v in values if v is not None]
    if not finite:
        return "no limit"
    lo, hi = min(finite), max(finite)
    text = cores(lo) if lo == hi else f"{number(lo, trim=True)}-{number(hi, trim=True)} cores"
    return text + (" or no limit" if len(finite) < len(values) else "")


def times(ratio: float | None) -> str:
    """A ratio as ``1.37 times`` (three significant digits)."""
    return MISSING if ratio is None or math.isnan(ratio) else f"{number(ratio, trim=True)} times"


def metric(value: float | None, name: str, unit: str = "", digits: int = 3) -> str:
    """A response metric's value (stored unit ``unit``) as text: latency in ms, times in s, rates per second.

    >>> metric(0.0264, "latency_p999_seconds", "s"), metric(3.85, "wall_seconds", "s", 2), metric(44715.07, "throughput_rps", "req/s")
    ('26.4 ms', '3.9 s', '44,715 req/s')
    """
    if value is None or math.isnan(value):
        return MISSING
    if "latency" in name:
        return latency(value, digits)
    if unit == "s":
        return seconds(value, digits)
    return f"{number(value, digits)} {unit}".strip()


def display_unit(name: str, unit: str) -> tuple[float, str]:
    """``(factor, unit)`` a chart or table shows a metric in: latency in ms (``(1000, "ms")``), else as stored.

    >>> display_unit("latency_p999_seconds", "s"), display_unit("throughput_rps", "req/s")
    ((1000.0, 'ms'), (1.0, 'req/s'))
    """
    if "latency" in name and unit == "s":
        q = QUANTITIES["latency"]
        return q.scale, q.unit
    return 1.0, unit
