"""What every chart shares: a colour-blind-safe theme, numeric order of labels, fitted and zero-centred axes."""

from __future__ import annotations

import math
import re
from collections.abc import Iterable

#: Okabe-Ito: distinguishable with every common colour-vision deficiency.
OKABE_ITO = ["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000"]
#: Diverging scheme for effects (blue = faster/better, orange = slower/worse), colour-blind safe.
DIVERGING = "blueorange"
THEME = "throttlelab"

_NUMBER = re.compile(r"^\s*([-+]?\d+(?:\.\d+)?)\s*(m|cores?|k)?\b")


def label_value(label: object) -> float:
    """The number a label stands for: ``"500m"`` -> 0.5, ``"2 cores"`` -> 2, ``"unlimited"``/``"auto"`` -> inf.

    >>> [label_value(v) for v in ("500m", "1000m", "1.5", "2 cores", "10.0", "unlimited")]
    [0.5, 1.0, 1.5, 2.0, 10.0, inf]
    """
    if isinstance(label, (int, float)) and not isinstance(label, bool):
        return float(label)
    text = str(label)
    m = _NUMBER.match(text)
    if not m:
        return math.inf
    value = float(m.group(1))
    return value / 1000 if m.group(2) == "m" else value * 1000 if m.group(2) == "k" else value


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
