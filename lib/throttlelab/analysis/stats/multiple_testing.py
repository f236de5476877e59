"""Adjusted p-values for families of tests: Holm, and Westfall-Young step-down max-T.

Both control the family-wise error rate (the chance of any false claim in the
family).  :func:`holm` needs only the per-test p-values; :func:`maxt_stepdown`
uses the joint null distribution of the test statistics (simulated draws),
which is less conservative when the tests are correlated.
"""

from __future__ import annotations

import numpy as np


def holm(p_values) -> np.ndarray:
    """Holm step-down adjusted p-values (family-wise error), NaNs kept as NaN (not in the family)."""
    p = np.asarray(p_values, float)
    out = np.full_like(p, np.nan)
    ok = np.isfinite(p)
    idx = np.argsort(p[ok])
    m = idx.size
    adj = np.minimum(1.0, np.maximum.accumulate((m - np.arange(m)) * p[ok][idx]))
    res = np.empty(m)
    res[idx] = adj
    out[ok] = res
    return out


def maxt_stepdown(t_obs: np.ndarray, t_null: np.ndarray, tested: np.ndarray) -> np.ndarray:
    """Westfall-Young step-down adjusted p-values for one-sided max-T.

    Parameters
    ----------
    t_obs
        Observed statistics, one per test (large = evidence against the null).
    t_null
        Simulated statistics under the joint null, one row per draw.
    tested
        Indices of the tests in the family; the others get NaN.
    """
    out = np.full(len(t_obs), np.nan)
    order = tested[np.argsort(-t_obs[tested], kind="stable")]
    n_sim, running = t_null.shape[0], 0.0
    for k, j in enumerate(order):
        mx = t_null[:, order[k:]].max(axis=1)
        p = (np.sum(mx >= t_obs[j] - 1e-12) + 1) / (n_sim + 1)
        running = max(running, p)
        out[j] = running
    return out
