"""PromQL's ``sum by (namespace, pod, container)``, ``or on (...)`` and ``/`` done by the client on raw range series.

Prometheus evaluates an aggregation at every step of a range query, hashing each
series' labels at each step: ``sum by (namespace, pod, container) (rate(x[4m]))``
costs the server about three times ``rate(x[4m])`` alone, and ``a or on (...) b``
about five times, and both hold twice the points (``peakSamples``).  Range queries
therefore ask for the raw ``rate()`` series and these functions join them, with
PromQL's own semantics: at each step, a sum over the series present there (a series
absent at a step adds nothing; a key with no series present has no point); ``or``
takes the left side's sum where the key has one at that step, else the right's.

>>> from throttlelab.ingest.prometheus.prometheus_answers import Series
>>> a = Series({"namespace": "n", "pod": "p", "container": "c", "id": "1"}, np.array([60.0, 120.0]), np.array([1.0, 2.0]))
>>> b = Series({"namespace": "n", "pod": "p", "container": "c", "id": "2"}, np.array([120.0, 180.0]), np.array([0.5, 4.0]))
>>> {k: (t.tolist(), v.tolist()) for k, (t, v) in sum_by_key([a, b], 60.0, 60.0).items()}
{('n', 'p', 'c'): ([60.0, 120.0, 180.0], [1.0, 2.5, 4.0])}
"""

from __future__ import annotations

import numpy as np

KEY = ("namespace", "pod", "container")

#: ``key -> (times, values)``: one summed series per (namespace, pod, container), its steps in time order.
Summed = dict[tuple[str, str, str], tuple[np.ndarray, np.ndarray]]


def sum_by_key(series: list, start: float, step: float) -> Summed:
    """``sum by (namespace, pod, container)`` of range series evaluated at ``start + i * step``.

    A key with one series keeps its arrays as they came (the server's sum of one series is the series); several are
    added step by step over the steps where any is present.
    """
    groups: dict[tuple, list] = {}
    for s in series:
        groups.setdefault(tuple(s.labels.get(k, "") for k in KEY), []).append(s)
    out: Summed = {}
    for key, parts in groups.items():
        if len(parts) == 1:
            out[key] = (parts[0].times, parts[0].values)
            continue
        idx = [np.rint((p.times - start) / step).astype(np.int64) for p in parts]
        lo = min(int(i.min()) for i in idx if len(i)) if any(len(i) for i in idx) else 0
        hi = max(int(i.max()) for i in idx if len(i)) if any(len(i) for i in idx) else -1
        total = np.zeros(hi - lo + 1)
        seen = np.zeros(hi - lo + 1, bool)
        for p, i in zip(parts, idx):
            total[i - lo] += p.values
            seen[i - lo] = True
        at = np.flatnonzero(seen)
        out[key] = (start + (at + lo) * step, total[at])
    return out


def first_present(left: Summed, right: Summed, start: float, step: float) -> Summed:
    """``left or on (namespace, pod, container) right``: per key and step, the left value where it has one, else the
    right's.

    >>> l = {("n", "p", "c"): (np.array([120.0]), np.array([1.0]))}
    >>> r = {("n", "p", "c"): (np.array([60.0, 120.0]), np.array([7.0, 8.0])), ("n", "q", "c"): (np.array([60.0]), np.array([3.0]))}
    >>> {k: v[1].tolist() for k, v in first_present(l, r, 0.0, 60.0).items()}
    {('n', 'p', 'c'): [7.0, 1.0], ('n', 'q', 'c'): [3.0]}
    """
    out = dict(left)
    for key, (t, v) in right.items():
        if key not in left:
            out[key] = (t, v)
            continue
        lt, lv = left[key]
        keep = ~np.isin(np.rint((t - start) / step), np.rint((lt - start) / step))
        if keep.any():
            times = np.concatenate([lt, t[keep]])
            order = np.argsort(times, kind="stable")
            out[key] = (times[order], np.concatenate([lv, v[keep]])[order])
    return out


def ratio(numerator: Summed, denominator: Summed, start: float, step: float) -> Summed:
    """``numerator / (denominator > 0)`` per key and step (steps where both have a point and the denominator is
    positive).

    >>> n = {("n", "p", "c"): (np.array([300.0, 600.0]), np.array([1.0, 2.0]))}
    >>> d = {("n", "p", "c"): (np.array([300.0, 600.0, 900.0]), np.array([4.0, 0.0, 5.0]))}
    >>> {k: v[1].tolist() for k, v in ratio(n, d, 0.0, 300.0).items()}
    {('n', 'p', 'c'): [0.25]}
    """
    out: Summed = {}
    for key, (tn, vn) in numerator.items():
        if key not in denominator:
            continue
        td, vd = denominator[key]
        common, i, j = np.intersect1d(np.rint((tn - start) / step), np.rint((td - start) / step), return_indices=True)
        ok = vd[j] > 0
        if ok.any():
            out[key] = (tn[i][ok], vn[i][ok] / vd[j][ok])
    return out
