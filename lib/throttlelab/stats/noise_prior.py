"""The run-to-run noise assumed before any is measured, and how a coefficient of variation becomes a log-scale sd.

Run times are compared on the log scale, where run-to-run noise on a shared
machine is roughly one standard deviation ``sigma`` for every limit (a constant
coefficient of variation).  Before any run is replicated nothing measures it:
then every procedure assumes :data:`PRIOR_CV`, 20 %, the middle of the 15-25 %
run-to-run noise measured on shared machines (FIELD-NOTES).  The analysis marks
what rests on it ``assumption_based`` and states no interval from it; the
adaptive design shrinks its pooled noise towards it (weighing it as two
replicated cells) until runs measure the noise.

A coefficient of variation ``cv`` is a lognormal's ``sigma`` of
``sqrt(log(1 + cv^2))``; :func:`log_sd` is that conversion, :func:`cv_of_log_sd`
its inverse.
"""

from __future__ import annotations

import math

#: The run-to-run coefficient of variation assumed when nothing is replicated (20 %).
PRIOR_CV = 0.20


def log_sd(cv: float) -> float:
    """The log-scale standard deviation of a lognormal whose coefficient of variation is ``cv``.

    Examples
    --------
    >>> round(log_sd(PRIOR_CV), 4)
    0.198
    >>> log_sd(0.0)
    0.0
    """
    return math.sqrt(math.log1p(cv**2))


def cv_of_log_sd(sigma: float) -> float:
    """The coefficient of variation of a lognormal whose log-scale standard deviation is ``sigma``.

    Examples
    --------
    >>> round(cv_of_log_sd(log_sd(0.35)), 12)
    0.35
    """
    return math.sqrt(math.expm1(sigma**2))
