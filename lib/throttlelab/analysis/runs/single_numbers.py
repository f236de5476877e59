"""What one number per cell can decide: thread counts compared without a noise estimate.

A published table (automaxprocs' GOMAXPROCS table) has one value per (limit,
threads) cell: there is no run-to-run noise to estimate, and assuming one
would invent the answer.  Instead, every thread count is compared with a
reference at its limit by its **break-even noise**: the largest run-to-run
coefficient of variation under which the gap would still be significant at
family-wise ``alpha`` (one run per cell, z on the log scale):

* reference ``quota`` (default, when that cell exists): the thread count equal
  to the limit rounded up (what automaxprocs and Go 1.25 choose), fixed before
  looking; two-sided, Bonferroni over the ``k - 1`` comparisons;
* otherwise the best cell, chosen after looking: the gap must beat the range
  of ``k`` equal cells (studentized range, infinite df), which covers that choice.

Then

* ``clearly worse`` / ``clearly better``: the gap survives noise of
  ``ceiling_cv`` (default 15%, the low end of the 15-25% run-to-run noise
  measured on a shared 2-core VM without any quota, FIELD-NOTES; a production
  measurement over long windows is quieter): noise does not explain it;
* ``cannot be told apart``: the gap would drown in noise of only
  ``floor_cv`` (default 5%, a quiet machine): single runs cannot separate them;
* ``undecided``: in between, it depends on noise the table does not show;
  ``replicates_needed`` runs per cell would decide it at ``ceiling_cv``
  (80% power, same correction).

Examples
--------
>>> import polars as pl
>>> cells = pl.DataFrame({"limit_label": ["2000m"] * 3, "limit_x": [2.0] * 3, "threads": ["1", "2", "24"],
...                       "log_cost": [-10.27, -10.71, -10.01]})
>>> t = single_number_verdicts(cells)
>>> t.select("threads", "verdict").rows()
[('2', 'reference'), ('1', 'undecided'), ('24', 'clearly worse')]
"""

from __future__ import annotations

import math

import numpy as np
import polars as pl
from scipy import stats

from throttlelab.analysis.runs.response_metric import ResponseMetric, metric_change_pct, resolve

CEILING_CV = 0.15
FLOOR_CV = 0.05
POWER = 0.80


def cv_to_sigma(cv: float) -> float:
    """Log-scale sd of a log-normal with coefficient of variation ``cv``."""
    return math.sqrt(math.log1p(cv * cv))


def sigma_to_cv(sigma: float) -> float:
    """Coefficient of variation of a log-normal with log-scale sd ``sigma``."""
    return math.sqrt(math.expm1(sigma * sigma))


def critical_gap(k: int, alpha: float, reference: str) -> float:
    """The gap / sigma two single runs need for significance among ``k`` cells.

    ``quota``: two-sided z at ``alpha / (k - 1)`` times ``sqrt(2)`` (difference of
    two runs); ``best``: the ``1 - alpha`` quantile of the range of ``k`` standard
    normals (studentized range, infinite df).
    """
    if k < 2:
        return math.inf
    if reference == "best":
        return float(stats.studentized_range.ppf(1 - alpha, k, np.inf))
    return math.sqrt(2) * float(stats.norm.ppf(1 - alpha / (2 * (k - 1))))


def single_number_verdicts(cells: pl.DataFrame, *, alpha: float = 0.05, ceiling_cv: float = CEILING_CV,
                           floor_cv: float = FLOOR_CV, reference: str = "quota") -> pl.DataFrame:
    """Per limit and thread count: gap to the reference, break-even noise, verdict.

    Parameters
    ----------
    cells
        One row per (``limit_label``, ``threads``) with ``log_cost`` (log of the
        cost: larger is worse; see :mod:`throttlelab.analysis.runs.response_metric`)
        and ``limit_x`` (cores; null for unlimited).  Other columns are kept.
    alpha
        Family-wise error rate per limit.
    ceiling_cv, floor_cv
        The noise band (coefficients of variation, 0-1) of the verdicts.
    reference
        ``"quota"``: threads = the limit rounded up where that cell exists, else
        the best; ``"best"``: always the best (range-corrected).

    Returns
    -------
    polars.DataFrame
        The cells with ``reference_threads``, ``reference_kind``, ``best_threads``,
        ``cost_gap_pct`` (cost over the reference's, %, positive = worse;
        :func:`~throttlelab.analysis.runs.response_metric.metric_change_pct` turns it into
        the metric's change), ``breakeven_cv_pct``, ``verdict`` and ``replicates_needed``.
    """
    if not 0 < floor_cv < ceiling_cv:
        raise ValueError("need 0 < floor_cv < ceiling_cv")
    if reference not in ("quota", "best"):
        raise ValueError("reference must be 'quota' or 'best'")
    rows = []
    sig_c = cv_to_sigma(ceiling_cv)
    zb = float(stats.norm.ppf(POWER))
    for _, sub in sorted(cells.partition_by("limit_label", as_dict=True).items(),
                         key=lambda kv: float(kv[1]["limit_order"][0]) if "limit_order" in kv[1].columns else 0.0):
        sub = sub.sort("log_cost")
        k = sub.height
        best = sub.row(0, named=True)
        x = sub["limit_x"][0] if "limit_x" in sub.columns else None
        quota = str(math.ceil(x - 1e-9)) if x is not None and reference == "quota" else None
        kind = "quota" if quota in set(sub["threads"]) else "best"
        ref = sub.filter(pl.col("threads") == quota).row(0, named=True) if kind == "quota" else best
        crit = critical_gap(k, alpha, kind)
        for r in sub.iter_rows(named=True):
            gap = r["log_cost"] - ref["log_cost"]
            need = None
            if r["threads"] == ref["threads"]:
                be, verdict = None, "reference"
            else:
                be = sigma_to_cv(abs(gap) / crit)
                word = "worse" if gap > 0 else "better"
                if be >= ceiling_cv:
                    verdict = f"clearly {word}"
                else:
                    verdict = "cannot be told apart" if be < floor_cv else "undecided"
                    # runs per cell so that the gap is crit-significant with 80% power at the ceiling noise
                    need = math.ceil(((crit / math.sqrt(2) + zb) * sig_c * math.sqrt(2) / abs(gap)) ** 2) if gap else None
            rows.append({**r, "reference_threads": ref["threads"], "reference_kind": kind,
                         "best_threads": best["threads"], "cost_gap_pct": 100 * math.expm1(gap),
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
        limit, ref, kind = sub["limit_label"][0], sub["reference_threads"][0], sub["reference_kind"][0]
        verdicts = ("clearly worse", "clearly better", "cannot be told apart", "undecided")
        by = {v: sub.filter(pl.col("verdict") == v) for v in verdicts}

        def names(df: pl.DataFrame) -> str:
            return ", ".join(f"{t} ({metric_change_pct(g, m):+.0f}%, break-even noise {b:.0f}%)" for t, g, b in
                             zip(df["threads"], df["cost_gap_pct"], df["breakeven_cv_pct"]))

        what = "the quota" if kind == "quota" else "the best, chosen after looking"
        s = (f"{limit}, {m.label} ({m.direction}), one number per cell, against {ref} threads ({what}), "
             f"best {sub['best_threads'][0]}:")
        for v in ("clearly worse", "clearly better"):
            if by[v].height:
                s += f" {v} even if runs varied by {100 * ceiling_cv:.0f}%: {names(by[v])};"
        if by["cannot be told apart"].height:
            s += f" cannot be told apart (gap within {100 * floor_cv:.0f}% noise): {names(by['cannot be told apart'])};"
        if by["undecided"].height:
            need = int(by["undecided"]["replicates_needed"].max())
            s += (f" undecided (depends on noise the table does not show): {names(by['undecided'])}; "
                  f"{need} runs per cell would decide them at {100 * ceiling_cv:.0f}% noise;")
        out.append(s.rstrip(";:") + ".")
    return out
