"""A model shared across the grid: log time = limit effect + thread effect + an interaction smooth in the limit.

Per contention level, the cells' mean log times ``mu[l, t]`` get an improper
Gaussian prior whose null space is the additive model ``a[l] + b[t]``: between
adjacent limits, the change of each thread count's time, minus the mean change
over thread counts, is ``N(0, tau^2)`` (a random walk of the interaction along
the limits).  A dead zone moves every thread count alike and costs nothing;
a sweet spot that moves with the limit costs ``tau`` per step.  The data are
the cells' run-level means with their standard errors (each run weighted by
how well the other cells predict it, :mod:`~throttlelab.experiment.sweeps.adaptive.adaptive_robust`,
using :func:`leave_cell_out`).  ``tau`` is not fixed: its posterior on a grid (flat in
``log tau``, from the restricted likelihood) is mixed over, so the data
decide how much a cell borrows from its neighbours; cells without runs are
predicted from them.  The cells' noise levels are scaled by a common factor
``kappa`` (0.4-1.6, log-normal prior with sd 0.5), mixed over in the same way
from the within-cell spread and the fit, since with single runs the noise is
mostly the prior's.  Contention levels are linked the same way: the change of
each thread count's time from no neighbour to a neighbour, minus the mean
change, is ``N(0, tau^2)`` at each limit.  Draws are multivariate Student-t
(5 degrees of freedom) for heavy tails.
"""

from __future__ import annotations

import math

import numpy as np

from throttlelab.experiment.sweeps.adaptive.adaptive_cells import Cell, CellStats, Layout

TAUS = np.exp(np.linspace(math.log(0.01), math.log(2.0), 12))
KAPPAS = np.exp(np.linspace(math.log(0.4), math.log(1.6), 5))
KAPPA_PRIOR_SD = 0.5  # log scale: the cells' own noise estimates are usually right within a factor 1.6
TAIL_DF = 5.0


def smoothness_precision(n_limits: int, n_threads: int, n_contentions: int = 1) -> np.ndarray:
    """The prior precision (times ``tau^2``) of the cells ``[C * L * T]`` (row-major as ``Layout.cells``).

    Between adjacent limits, and between each contention level and the first,
    the change of each thread count's time minus the mean change over thread
    counts is penalised; the null space is ``a[contention, limit] + b[threads]``.

    Examples
    --------
    >>> q = smoothness_precision(3, 2)
    >>> additive = np.add.outer([1.0, 2.0, 4.0], [0.0, 0.5]).ravel()
    >>> float(abs(q @ additive).max()) < 1e-12, int(np.linalg.matrix_rank(q))
    (True, 2)
    """
    t = n_threads
    center = np.eye(t) - 1.0 / t
    size = n_contentions * n_limits * t
    q = np.zeros((size, size))

    def add(i: int, j: int) -> None:
        d = np.zeros((t, size))
        d[:, i * t:(i + 1) * t] = np.eye(t)
        d[:, j * t:(j + 1) * t] -= np.eye(t)
        cd = center @ d
        q[:] += cd.T @ cd

    for ci in range(n_contentions):
        for li in range(1, n_limits):
            add(ci * n_limits + li, ci * n_limits + li - 1)
        if ci:
            for li in range(n_limits):
                add(ci * n_limits + li, li)
    return q


def initial_cells(layout: Layout) -> list[Cell]:
    """A connected half of the grid to start from: a checkerboard, plus the cells that link its parts.

    Every limit and thread count is measured and the measured cells link all
    of them, so the model can predict the rest.

    Examples
    --------
    >>> lay = Layout.of([0.0], [1.0, 2.0, 3.0], ["1", "2", "4", "8"])
    >>> [(lim, t) for _, lim, t in initial_cells(lay)]
    [(1.0, '1'), (1.0, '2'), (1.0, '4'), (2.0, '2'), (2.0, '8'), (3.0, '1'), (3.0, '4')]
    """
    n_c, n_l, n_t = layout.shape
    picked = np.zeros((n_c * n_l, n_t), bool)
    for ci in range(n_c):
        for li in range(n_l):
            picked[ci * n_l + li, [t for t in range(n_t) if (ci + li + t) % 2 == 0]] = True
    while not _connected(picked):  # link the first row's component to a thread count or a row outside it
        comp_rows, comp_threads = _component(picked)
        outside = [t for t in range(n_t) if t not in comp_threads]
        if outside:
            picked[min(comp_rows), outside[0]] = True
        else:
            r = min(r for r in range(n_c * n_l) if r not in comp_rows)
            picked[r, min(comp_threads)] = True
    flat = picked.ravel()
    return [c for c, keep in zip(layout.cells, flat) if keep]


def _component(seen: np.ndarray) -> tuple[set[int], set[int]]:
    """Rows and threads reachable from row 0 through measured cells."""
    rows, threads, todo = {0}, set(), [("r", 0)]
    while todo:
        kind, i = todo.pop()
        for j in (np.nonzero(seen[i])[0] if kind == "r" else np.nonzero(seen[:, i])[0]):
            j = int(j)
            if kind == "r" and j not in threads:
                threads.add(j)
                todo.append(("t", j))
            elif kind == "t" and j not in rows:
                rows.add(j)
                todo.append(("r", j))
    return rows, threads


def _connected(seen: np.ndarray) -> bool:
    """Whether every row (contention, limit) and thread count is linked through measured cells."""
    rows, threads = _component(seen)
    return len(rows) == seen.shape[0] and len(threads) == seen.shape[1]


def _fits(st: dict[Cell, CellStats], layout: Layout) -> tuple[list[float], list[tuple], np.ndarray] | None:
    """The posterior under each ``(kappa, tau)``: log marginal likelihoods, ``(mean, cholesky, data precision)``."""
    n_c, n_l, n_t = layout.shape
    k = n_c * n_l * n_t
    q = smoothness_precision(n_l, n_t, n_c)
    rank_q = np.linalg.matrix_rank(q)
    cells = layout.cells
    seen = np.array([cell in st for cell in cells]).reshape(n_c * n_l, n_t)
    if not _connected(seen):
        return None
    base = np.array([st[cell].used / st[cell].sd_log ** 2 if cell in st else 0.0 for cell in cells])
    y = np.array([st[cell].mean_log if cell in st else 0.0 for cell in cells])
    within = sum(st[c].ss_log / st[c].sd_log ** 2 for c in st if c in set(cells))
    within_df = sum(max(st[c].used - 1, 0) for c in st if c in set(cells))
    n_obs = int((base > 0).sum())
    logml, posts = [], []
    for kappa in KAPPAS:
        prec = base / kappa**2
        for tau in TAUS:
            p = q / tau**2 + np.diag(prec) + 1e-6 * np.eye(k)  # + a vague proper prior (sd 1000 on the log scale)
            try:
                chol = np.linalg.cholesky(p)
            except np.linalg.LinAlgError:
                continue
            m = np.linalg.solve(p, prec * y)
            quad = float((prec * (y - m) ** 2).sum() + m @ q @ m / tau**2)
            logdet_p = 2 * float(np.log(np.diag(chol)).sum())
            lk = math.log(kappa)
            logml.append(-0.5 * (quad + logdet_p) - rank_q * math.log(tau) - n_obs * lk
                         - within_df * lk - 0.5 * within / kappa**2 - 0.5 * (lk / KAPPA_PRIOR_SD) ** 2)
            posts.append((m, chol, prec))
    return logml, posts, y


def leave_cell_out(st: dict[Cell, CellStats], layout: Layout) -> tuple[np.ndarray, np.ndarray] | None:
    """Each cell's mean log time predicted from the other cells' runs only: ``(mean [cells], variance [cells])``.

    Exact for the Gaussian model at its most likely ``(kappa, tau)``: the
    cell's own data are taken back out of its marginal posterior.  A cell the
    others say nothing about gets an infinite variance.
    """
    fit = _fits(st, layout)
    if fit is None:
        return None
    logml, posts, y = fit
    m, chol, prec = posts[int(np.argmax(logml))]
    inv = np.linalg.solve(chol, np.eye(len(m)))
    var = (inv**2).sum(axis=0)  # diagonal of the posterior covariance
    others = 1 / var - prec
    ok = others > 1e-4  # less than that is only the vague prior (sd 1000): the others say nothing
    loo_var = np.where(ok, 1 / np.where(ok, others, 1.0), np.inf)
    loo_mean = np.where(ok, (m / var - prec * y) / np.where(ok, others, 1.0), m)
    return loo_mean, loo_var


def smooth_draws(st: dict[Cell, CellStats], layout: Layout, draws: int,
                 rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """``(draws [draws, cells], posterior mean [cells], posterior sd [cells])`` over ``layout.cells``.

    ``None`` when a contention level has a limit or a thread count without
    any run (nothing to borrow from).
    """
    fit = _fits(st, layout)
    if fit is None:
        return None
    logml, posts, _ = fit
    k = len(layout.cells)
    w = np.exp(np.array(logml) - max(logml))
    w /= w.sum()
    which = rng.choice(len(posts), size=draws, p=w)
    z = rng.standard_normal((draws, k))
    scale = np.sqrt(TAIL_DF / rng.chisquare(TAIL_DF, size=(draws, 1)))
    x = np.empty((draws, k))
    for i, post in enumerate(posts):
        rows = which == i
        if not rows.any():
            continue
        m, chol, _ = post
        x[rows] = m + scale[rows] * np.linalg.solve(chol.T, z[rows].T).T
    mean = sum(wi * post[0] for wi, post in zip(w, posts))
    return x, mean, x.std(axis=0)
