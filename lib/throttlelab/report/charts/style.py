"""What every chart shares: theme, label order, axes, page width, legend ticks and elapsed time.

A colour-blind-safe theme, numeric order of labels, fitted and zero-centred axes, the page width, legend ticks,
and elapsed-time axes.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable

from throttlelab.core.quantities import label_cores

#: Okabe-Ito: distinguishable with every common colour-vision deficiency.
OKABE_ITO = ["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000"]
#: Diverging scheme for effects (blue = faster/better, orange = slower/worse), colour-blind safe.
DIVERGING = "blueorange"
THEME = "throttlelab"
#: Width of a single or layered chart: the page's (the ``.tl-chart`` container's) width, axes and legend included.
WIDTH = "container"
#: Plot width of each panel of a stacked (vconcat) chart, which cannot take the container's width: with the y axis
#: and a legend above, about the width of a report page's output at 1280 px.
PANEL_WIDTH = 980
#: Width of a chart drawn without a page (static PNGs, tests), in place of ``"container"``.
STATIC_WIDTH = 1000

_NUMBER = re.compile(r"^\s*([-+]?\d+(?:\.\d+)?)\s*(m|cores?|k)?\b")


def label_value(label: object) -> float:
    """The number a label stands for: ``"500m"`` -> 0.5, ``"2 cores"`` -> 2, ``"unlimited"``/``"auto"`` -> inf.

    The label's leading number and unit word are found here; what a CPU quantity means is
    :func:`~throttlelab.core.quantities.label_cores`'s.

    >>> [label_value(v) for v in ("500m", "1000m", "1.5", "2 cores", "10.0", "unlimited")]
    [0.5, 1.0, 1.5, 2.0, 10.0, inf]
    """
    if isinstance(label, (int, float)) and not isinstance(label, bool):
        return float(label)
    text = str(label)
    m = _NUMBER.match(text)
    if not m:
        return math.inf
    number, unit = m.groups()
    if unit == "k":
        return float(number) * 1000
    cores = label_cores(number + ("m" if unit == "m" else ""))  # a CPU quantity: millicores or cores
    return float(number) if cores is None else cores  # zero or a sign: a number all the same


def numeric_order(labels: Iterable[object]) -> list[str]:
    """Distinct labels in numeric order; words (``unlimited``, ``auto``) last, in that order.

    >>> numeric_order(["1000m", "500m", "unlimited", "2000m", "auto"])
    ['500m', '1000m', '2000m', 'unlimited', 'auto']
    >>> numeric_order(["10.0", "15.0", "5.0"])
    ['5.0', '10.0', '15.0']
    """
    words = {"unlimited": 0, "auto": 1}
    seen = list(dict.fromkeys(str(v) for v in labels if v is not None))
    return sorted(seen, key=lambda s: (label_value(s), words.get(s.strip().lower(), 2), s))


def fitted_domain(values: Iterable[float | None], *, log: bool = False, pad: float = 0.08) -> list[float]:
    """An axis domain that fits the data with a small margin (multiplicative on log axes).

    >>> fitted_domain([1, 20], log=True)
    [0.909091, 22.0]
    """
    v = [float(x) for x in values if x is not None and math.isfinite(float(x)) and (not log or float(x) > 0)]
    if not v:
        return [1.0, 10.0] if log else [0.0, 1.0]
    lo, hi = min(v), max(v)
    if log:
        return [round(lo / (1 + pad * 1.25), 6), round(hi * (1 + pad * 1.25), 6)]
    span = (hi - lo) or abs(hi) or 1.0
    return [lo - pad * span, hi + pad * span]


def zero_centred(values: Iterable[float | None], *, at_least: float = 1.0) -> list[float]:
    """A symmetric domain ``[-m, m]`` holding every value: effects read against zero.

    >>> zero_centred([-97, 2.3])
    [-97.0, 97.0]
    """
    v = [abs(float(x)) for x in values if x is not None and math.isfinite(float(x))]
    m = max(v + [at_least])
    return [-m, m]


def effect_domain(values: Iterable[float | None], *, floor: float = -100.0, at_least: float = 10.0,
                  pad: float = 0.08) -> list[float]:
    """A domain for %-changes: every value (interval ends included) and 0, padded so that no end touches the
    frame, and never below ``floor`` (-100%: nothing gets faster than instant).

    >>> effect_domain([-43.2, 98.5])
    [-54.5, 109.8]
    >>> effect_domain([-99.0, 20.0])
    [-100.0, 29.5]
    """
    v = [float(x) for x in values if x is not None and math.isfinite(float(x))]
    lo, hi = min(v + [0.0, -at_least / 2]), max(v + [0.0, at_least / 2])
    span = hi - lo
    return [round(max(floor, lo - pad * span), 1), round(hi + pad * span, 1)]


def _nice_step(span: float, n: int) -> float:
    raw = span / max(n, 1)
    mag = 10 ** math.floor(math.log10(raw))
    return next(m * mag for m in (1, 2, 2.5, 4, 5, 10) if m * mag >= raw)


def legend_values(values: Iterable[float | None], *, log: bool = False, n: int = 4) -> list[float]:
    """Round numbers inside the range of ``values`` for a colour legend: at least 3 when the values differ.

    On a log scale spanning more than 10x: the 1-2-5 sequence (powers of ten beyond 300x); else evenly spaced round numbers.

    >>> legend_values([22191.4, 44715.07], log=True)
    [25000.0, 30000.0, 35000.0, 40000.0]
    >>> legend_values([3.63, 70.5], log=True)
    [5.0, 10.0, 20.0, 50.0]
    >>> legend_values([-97.0, 97.0])
    [-80.0, -40.0, 0.0, 40.0, 80.0]
    """
    v = [float(x) for x in values if x is not None and math.isfinite(float(x)) and (not log or float(x) > 0)]
    if not v:
        return []
    lo, hi = min(v), max(v)
    if hi <= lo:
        return [lo]
    if log and hi / lo > 10:
        out = [m * 10.0 ** e for e in range(math.floor(math.log10(lo)), math.ceil(math.log10(hi)) + 1)
               for m in ((1,) if hi / lo > 300 else (1, 2, 5))]
        return [float(round(x, 12)) for x in out if lo <= x <= hi]
    tries = []
    for k in range(n, 3 * n):
        step = _nice_step(hi - lo, k)
        first = math.ceil(lo / step) * step
        tries.append([float(round(first + i * step, 12)) for i in range(int((hi - first) / step + 1e-9) + 1)])
        if len(tries[-1]) >= 4:
            return tries[-1]
    return next((t for t in tries if len(t) >= 3), [lo, hi])


def with_static_width(spec: dict, width: int = STATIC_WIDTH) -> dict:
    """``spec`` (a Vega-Lite dict) with ``"width": "container"`` replaced by ``width`` pixels, axes and legend
    included, for drawing without a page (vl_convert draws a container-wide chart 300 px wide)."""
    out = _replace_container(spec, width)
    if spec.get("width") == WIDTH:
        out["autosize"] = {"type": "fit-x", "contains": "padding"}
    return out


def _replace_container(spec: object, width: int) -> object:
    if isinstance(spec, dict):
        return {k: (width if k == "width" and v == WIDTH else _replace_container(v, width)) for k, v in spec.items()}
    if isinstance(spec, list):
        return [_replace_container(v, width) for v in spec]
    return spec


#: Elapsed-time units: (largest span in seconds shown in this unit, unit name, seconds per unit).
_ELAPSED_UNITS = ((600.0, "s", 1.0), (600 * 60.0, "min", 60.0), (72 * 3600.0, "h", 3600.0))


def elapsed_unit(span_seconds: float) -> tuple[str, float] | None:
    """The unit in which to show elapsed time over ``span_seconds`` (``("s", 1.0)``, ``("min", 60.0)``,
    ``("h", 3600.0)``), or ``None`` beyond three days, where a dated clock reads better.

    >>> elapsed_unit(45.0), elapsed_unit(3000.0), elapsed_unit(86400.0), elapsed_unit(30 * 86400.0)
    (('s', 1.0), ('min', 60.0), ('h', 3600.0), None)
    """
    for top, unit, per in _ELAPSED_UNITS:
        if span_seconds <= top:
            return unit, per
    return None


#: A dated clock for temporal axes in UTC: "Jan 02 03:00".
DATED_CLOCK = "%b %d %H:%M"


def utc_axis(field: str, title: str = "time (UTC)"):
    """An x encoding of a temporal field on a dated clock in UTC (not the browser's time zone)."""
    import altair as alt

    return alt.X(f"{field}:T", title=title, scale=alt.Scale(type="utc"),
                 axis=alt.Axis(format=DATED_CLOCK, labelOverlap=True))


def utc_tooltip(field: str, title: str = "time (UTC)", *, seconds: bool = True):
    """A tooltip of a temporal field as a UTC date and time (a plain temporal tooltip shows the browser's zone)."""
    import altair as alt

    unit = "utcyearmonthdatehoursminutesseconds" if seconds else "utcyearmonthdatehoursminutes"
    return alt.Tooltip(f"{field}:T", timeUnit=unit, title=title,
                       format="%Y-%m-%d %H:%M:%S" if seconds else "%Y-%m-%d %H:%M")


def theme() -> dict:
    """The altair theme: Okabe-Ito categories, blue-orange diverging, readable titles and labels."""
    return {
        "config": {
            "range": {"category": OKABE_ITO, "diverging": {"scheme": DIVERGING}},
            "title": {"fontSize": 14, "anchor": "start", "offset": 8},
            "axis": {"labelFontSize": 11, "titleFontSize": 12, "labelLimit": 220},
            "legend": {"labelFontSize": 11, "titleFontSize": 12, "labelLimit": 320},
            "view": {"stroke": "#ddd"},
        }
    }


def enable_theme() -> None:
    """Register and enable :func:`theme` in altair."""
    import altair as alt

    if THEME not in alt.theme.names():
        alt.theme.register(THEME, enable=False)(theme)
    alt.theme.enable(THEME)
