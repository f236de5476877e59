"""Order and choice by a floating-point score that never depend on its last bits: near-ties go by a fixed order."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import TypeVar

T = TypeVar("T")

#: Scores closer than this (absolute, or relative to their size) are a tie. Fits that coincide differ in their last
#: few bits with the CPU and the BLAS thread count (about 1e-13 relative); a real difference is far larger.
ABS_TOL = 1e-9
REL_TOL = 1e-9


def tie_order(scores: Sequence[float], *, rel_tol: float = REL_TOL, abs_tol: float = ABS_TOL) -> list[int]:
    """Indices of ``scores`` from the lowest, where near-tied scores keep their position in ``scores``.

    Near-ties are chained: consecutive sorted scores closer than :data:`REL_TOL` (or :data:`ABS_TOL`) form one group,
    ordered by position. A perturbation of a few ulps never changes the result. NaN comes last, by position.

    Examples
    --------
    >>> tie_order([3.0, 1.0 + 2e-16, 1.0, 2.0])
    [1, 2, 3, 0]
    >>> tie_order([1.0, 1.0 - 2e-16, float("nan"), 0.5])
    [3, 0, 1, 2]
    """
    finite = sorted((i for i, s in enumerate(scores) if not math.isnan(s)), key=lambda i: (scores[i], i))
    groups: list[list[int]] = []
    for i in finite:
        if groups and math.isclose(scores[groups[-1][-1]], scores[i], rel_tol=rel_tol, abs_tol=abs_tol):
            groups[-1].append(i)
        else:
            groups.append([i])
    out = [i for g in groups for i in sorted(g)]
    return out + [i for i, s in enumerate(scores) if math.isnan(s)]


def order_by_score(items: Sequence[T], score: Callable[[T], float], *, reverse: bool = False,
                   rel_tol: float = REL_TOL, abs_tol: float = ABS_TOL) -> list[T]:
    """``items`` sorted by ``score`` (lowest first, or highest with ``reverse``); near-ties keep the items' order.

    >>> order_by_score(["usl", "quota", "amdahl"], {"usl": 1.0, "quota": 1.0 - 1e-15, "amdahl": 0.5}.get)
    ['amdahl', 'usl', 'quota']
    >>> order_by_score(["a", "b", "c"], {"a": 1.0, "b": 3.0, "c": 3.0 + 1e-13}.get, reverse=True)
    ['b', 'c', 'a']
    """
    values = [float(score(x)) for x in items]
    idx = tie_order([-v for v in values] if reverse else values, rel_tol=rel_tol, abs_tol=abs_tol)
    return [items[i] for i in idx]


def best_by_score(items: Sequence[T], score: Callable[[T], float], *, highest: bool = False) -> T:
    """The item of lowest (or ``highest``) score; of near-tied ones, the first in ``items``.

    >>> best_by_score(["six", "four"], {"six": 2.0, "four": 2.0 + 1e-14}.get)
    'six'
    """
    if not items:
        raise ValueError("no items to choose from")
    return order_by_score(items, score, reverse=highest)[0]


def argbest(values: Sequence[float], *, highest: bool = False) -> int:
    """Index of the lowest (or ``highest``) value; of near-tied ones, the first: :func:`numpy.argmin` without the
    dependence on last bits.

    >>> argbest([2.0, 1.0 + 1e-15, 1.0])
    1
    """
    vals = [float(v) for v in values]
    return tie_order([-v for v in vals] if highest else vals)[0]
