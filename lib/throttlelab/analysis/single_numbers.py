"""What one number per cell can decide: thread counts compared without a noise estimate.

A published table (automaxprocs' GOMAXPROCS table) has one value per (limit,
threads) cell: there is no run-to-run noise to estimate, and assuming one
would invent the answer.  Instead, every thread count is compared with the
best one at its limit by its **break-even noise**: the largest run-to-run
coefficient of variation under which its gap to the best would still be
significant (two single runs, one-sided z-test on the log scale, Bonferroni
over the ``k - 1`` comparisons at the limit, ``alpha`` family-wise).  Then

* ``clearly worse``: the gap survives noise of ``ceiling_cv`` (default 20%,
  the run-to-run noise the project assumes for shared machines; the field
  notes saw 15-25%): no plausible noise explains it;
* ``cannot be told apart``: the gap would drown in noise of only
  ``floor_cv`` (default 5%, a quiet machine): single runs cannot separate them;
* ``undecided``: in between, it depends on noise the table does not show;
  ``replicates_needed`` runs per cell would decide it at ``ceiling_cv``
  (80% power).

The best is chosen after looking (winner's curse): the Bonferroni factor
covers the comparisons, not that choice.

Examples
--------
>>> import polars as pl
>>> cells = pl.DataFrame({"limit_label": ["2000m"] * 3, "threads": ["1", "2", "24"],
...                       "log_cost": [-10.27, -10.71, -10.01]})
>>> t = single_number_verdicts(cells)
>>> t.select("threads", "verdict").rows()
[('2', 'best'), ('1', 'undecided'), ('24', 'clearly worse')]
"""

from __future__ import annotations

import math

import polars as pl
from scipy import stats

from throttlelab.analysis.response_metric import ResponseMetric, metric_change_pct, resolve

CEILING_CV = 0.20
FLOOR_CV = 0.05
POWER = 0.80


def cv_to_sigma(cv: float) -> float:
    """Log-scale sd of a log-normal with coefficient of variation ``cv``."""
    return math.sqrt(math.log1p(cv * cv))


def sigma_to_cv(sigma: float) -> float:
    """Coefficient of variation of a log-normal with log-scale sd ``sigma``."""
    return math.sqrt(math.expm1(sigma * sigma))


def single_number_verdicts(cells: pl.DataFrame, *, alpha: float = 0.05, ceiling_cv: float = CEILING_CV,
                           floor_cv: float = FLOOR_CV) -> pl.DataFrame:
    """Per limit and thread count: gap to the best, break-even noise, verdict.

    Parameters
    ----------
    cells
        One row per (``limit_label``, ``threads``) with ``log_cost`` (log of the
        cost: larger is worse; see :mod:`throttlelab.analysis.response_metric`).
        Other columns (``limit_order``, ``runs``) are kept.
    alpha
        Family-wise error rate per limit.
    ceiling_cv, floor_cv
        The noise band (coefficients of variation, 0-1) of the verdicts.

    Returns
    -------
    polars.DataFrame
        The cells with ``best_threads``, ``cost_gap_pct`` (cost over the best's,
        %; :func:`~throttlelab.analysis.response_metric.metric_change_pct` turns it into
        the metric's change), ``breakeven_cv_pct``, ``verdict`` and ``replicates_needed``.
    """
    if not 0 < floor_cv < ceiling_cv:
        raise ValueError("need 0 < floor_cv < ceiling_cv")
    rows = []
    sig_c = cv_to_sigma(ceiling_cv)
    for _, sub in sorted(cells.partition_by("limit_label", as_dict=True).items(),
                         key=lambda kv: float(kv[1]["limit_order"][0]) if "limit_order" in kv[1].columns else 0.0):
        sub = sub.sort("log_cost")
        k = sub.height
        z = float(stats.norm.ppf(1 - alpha / max(k - 1, 1)))
        zb = float(stats.norm.ppf(POWER))
        best = sub.row(0, named=True)
        for r in sub.iter_rows(named=True):
            gap = r["log_cost"] - best["log_cost"]
            if r["threads"] == best["threads"]:
                be, verdict, need = None, "best", None
            else:
                be = sigma_to_cv(gap / (math.sqrt(2) * z)) if gap > 0 else 0.0
                if be >= ceiling_cv:
                    verdict, need = "clearly worse", None
                elif be < floor_cv:
                    verdict = "cannot be told apart"
                    need = math.ceil(2 * ((z + zb) * sig_c / gap) ** 2) if gap > 0 else None
                else:
                    verdict, need = "undecided", math.ceil(2 * ((z + zb) * sig_c / gap) ** 2)
            rows.append({**r, "best_threads": best["threads"], "cost_gap_pct": 100 * math.expm1(gap),
                         "breakeven_cv_pct": None if be is None else 100 * be, "verdict": verdict,
                         "replicates_needed": need})
    return pl.DataFrame(rows, schema_overrides={"breakeven_cv_pct": pl.Float64, "replicates_needed": pl.Int64})


def verdict_sentences(table: pl.DataFrame, metric: str | ResponseMetric, *, ceiling_cv: float = CEILING_CV,
                      floor_cv: float = FLOOR_CV) -> list[str]:
    """Plain sentences: per limit, the best, what clearly loses, what cannot be told apart, what is undecided.

    Changes are the metric's own (e.g. throughput -50%), against the best thread count.
    """
    m = resolve(metric)
    out = []
    for _, sub in table.partition_by("limit_label", as_dict=True, maintain_order=True).items():
        limit, best = sub["limit_label"][0], sub["best_threads"][0]
        by = {v: sub.filter(pl.col("verdict") == v) for v in ("clearly worse", "cannot be told apart", "undecided")}

        def names(df: pl.DataFrame) -> str:
            return ", ".join(f"{t} ({metric_change_pct(g, m):+.0f}%, break-even noise {b:.0f}%)" for t, g, b in
                             zip(df["threads"], df["cost_gap_pct"], df["breakeven_cv_pct"]))

        s = f"{limit}, {m.label} ({m.direction}): best {best} threads (one number per cell, no noise estimate)."
        if by["clearly worse"].height:
            s += f" Clearly worse even at {100 * ceiling_cv:.0f}% run-to-run noise: {names(by['clearly worse'])}."
        if by["cannot be told apart"].height:
            s += (f" Cannot be told apart from {best} (gap within {100 * floor_cv:.0f}% noise): "
                  f"{names(by['cannot be told apart'])}.")
        if by["undecided"].height:
            need = int(by["undecided"]["replicates_needed"].max())
            s += (f" Undecided (depends on noise the table does not show): {names(by['undecided'])}; "
                  f"up to {need} runs per cell would decide at {100 * ceiling_cv:.0f}% noise.")
        out.append(s)
    return out
