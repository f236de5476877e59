"""AIC and AICc of least-squares fits: one count of parameters for every model comparison.

A least-squares fit with Gaussian errors has the log-likelihood
``-n/2 log(RSS/n)`` plus a constant, and estimates the error variance besides
the curve's ``k`` parameters: both criteria count ``k + 1`` parameters
(Burnham and Anderson, *Model Selection and Multimodel Inference*, 2002,
section 2.2).  The scaling fits
(:mod:`~throttlelab.analysis.limits.scaling`) and the response curves
(:mod:`~throttlelab.analysis.latency.response_curves`) compare their models
with these.
"""

from __future__ import annotations

import math


def aic(rss: float, n: int, n_params: int) -> float:
    """Akaike's information criterion of a least-squares fit: ``n log(RSS / n) + 2 (k + 1)``.

    Parameters
    ----------
    rss
        Residual sum of squares (a zero RSS counts as 1e-300: a perfect fit stays finite).
    n
        Points fitted.
    n_params
        The fitted curve's parameters ``k``; the error variance is counted as one more.

    Examples
    --------
    >>> round(aic(2.0, 10, 2), 4)
    -10.0944
    """
    return n * math.log(max(rss, 1e-300) / n) + 2 * (n_params + 1)


def aicc(rss: float, n: int, n_params: int) -> float | None:
    """AIC with the small-sample correction: ``AIC + 2 (k + 1) (k + 2) / (n - k - 2)``.

    ``None`` when it is undefined (``n <= k + 2``: no more points than parameters plus one).

    Examples
    --------
    >>> round(aicc(2.0, 10, 2), 4), aicc(2.0, 4, 2)
    (-6.0944, None)
    """
    value = aic(rss, n, n_params)
    spare = n - n_params - 2
    return value + 2 * (n_params + 1) * (n_params + 2) / spare if spare > 0 else None
