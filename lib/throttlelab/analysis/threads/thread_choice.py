"""One CPU limit's thread counts: the best explicit count, the counts as good as it, ``auto`` against it, the count to run."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import polars as pl

from throttlelab.analysis.stats import NoiseModel
from throttlelab.analysis.limits import expected_estimate
from throttlelab.analysis.stats import posterior_best
from throttlelab.analysis.threads.thread_noise import ZERO_NOTE
from throttlelab.analysis.threads.thread_sweep import auto_against_best, limit_family, slower_than_best
from throttlelab.results import ConfidenceInterval, Estimate


@dataclass(frozen=True)
class ThreadChoice:
    """Thread counts at one limit: the best explicit count, auto against it, and the recommended count.

    Attributes
    ----------
    limit_cores, limit_label
        The limit (cores; ``null`` = unlimited) and its label.
    best_threads, best_seconds
        The fastest explicit thread count and its geometric-mean cost with its interval (none when the run-to-run
        noise is unmeasured: one number per cell).
    near_best_threads
        Explicit counts not shown slower than the best (studentised gap against the simulated largest
        pairwise gap of the limit's settings, the best re-picked in every draw; family-wise ``alpha`` over the
        whole sweep: Bonferroni across its limits).  With one number per cell: the counts that no single-number
        verdict calls clearly worse (:mod:`~throttlelab.analysis.runs.single_numbers`).
    auto_seconds
        Geometric-mean cost of the ``auto`` runs.
    auto_vs_best
        auto against the best explicit count, percent (positive = auto worse), with its interval (simultaneous
        over every limit of the sweep, so it also holds for the limit a headline picks) and its sweep-adjusted
        p-value; its ``method`` says how they were computed, or why there are none (too few to decide, exact with
        zero noise); ``null`` without both auto and explicit runs.
    recommended_threads, recommended_seconds
        The count to run (auto unless it is shown slower than the best explicit count) with its expected cost and
        interval.
    core_seconds
        Limit x expected wall time of the recommended count (what a run reserves).
    probability_best
        Explicit count -> probability that it is the best, from the limit's measured noise (``null`` with one
        number per cell: no probability is claimed from unmeasured noise).
    worse_than_best_p_values
        Explicit count -> adjusted p-value of "slower than the best" (family-wise over the whole sweep).
    noise_cv_pct, noise_df, noise_source
        This limit's run-to-run noise (percent), its degrees of freedom and where it came from (``own cells``,
        ``trend across limits``, ``pooled across limits``, ``zero``; ``unmeasured`` with no replicated cell).
    """

    limit_cores: float | None
    limit_label: str
    best_threads: str | None
    best_seconds: Estimate | None
    near_best_threads: tuple[str, ...]
    auto_seconds: float | None
    auto_vs_best: Estimate | None  # (auto / best - 1) x 100: positive = auto slower
    recommended_threads: str | None
    recommended_seconds: Estimate | None
    core_seconds: float | None
    probability_best: dict[str, float] | None = None  # explicit thread count -> probability it is the best
    worse_than_best_p_values: dict[str, float] | None = None
    noise_cv_pct: float | None = None
    noise_df: float | None = None
    noise_source: str = ""

    def confidence_interval(self) -> ConfidenceInterval | None:
        """Interval of the best explicit count's cost (``None`` without one, NaNs when exact)."""
        return None if self.best_seconds is None else self.best_seconds.confidence_interval()


def selection_adjusted(d: float, n_auto: int, n_explicit: list[int], noise: NoiseModel, level: float, *,
                       n_sim: int = 20000, seed: int = 0) -> tuple[ConfidenceInterval, float]:
    """Interval and two-sided p-value of ``auto - best explicit`` (log scale) that pay for picking the best.

    Under "auto and every explicit count are equally fast" the difference to the *fastest looking* explicit count is
    biased upwards; its studentised null distribution ``(auto* - min_k explicit*_k) / s*`` is simulated (unit
    noise, ``s*`` a chi-square draw with the noise's degrees of freedom).  The interval ``d - quantiles(D*)`` and the p-value come from the same
    draws, so they agree.
    """
    rng = np.random.default_rng(seed)
    sd = np.ones(n_sim) if not math.isfinite(noise.df) else np.sqrt(rng.chisquare(noise.df, n_sim) / noise.df)
    a = rng.standard_normal(n_sim) / math.sqrt(n_auto)
    e = rng.standard_normal((n_sim, len(n_explicit))) / np.sqrt(np.asarray(n_explicit, float))[None, :]
    tstar = (a - e.min(axis=1)) / sd  # studentised: the measured sigma's own uncertainty is in the draws
    t = d / noise.sigma
    lo_q, hi_q = np.quantile(tstar, [(1 - level) / 2, 1 - (1 - level) / 2])
    ci = ConfidenceInterval(100 * math.expm1(d - noise.sigma * hi_q), 100 * math.expm1(d - noise.sigma * lo_q))
    p = float(min(1.0, 2 * min((np.sum(tstar >= t) + 1) / (n_sim + 1), (np.sum(tstar <= t) + 1) / (n_sim + 1))))
    return ci, p


def choose_threads(cells: pl.DataFrame, noise: NoiseModel, alpha: float, level: float, *,
                   single_near_best: tuple[str, ...] | None = None, seed: int = 0, n_sim: int = 20000,
                   limits: int = 1) -> ThreadChoice:
    """The :class:`ThreadChoice` at one limit from its cells (``limit_label``, ``cpu_limit_cores``, ``limit_x``,
    ``threads``, ``explicit``, ``runs``, ``mean_log``, ``geomean_seconds``); ``noise`` is that limit's run-to-run
    noise (or the group's prior, ``assumption_based``: then no interval, test or probability is given, and
    ``single_near_best`` (the counts no single-number verdict calls clearly worse) is the near-best list; ``None``
    lists every count, since nothing is shown slower); ``limits`` the limits of the sweep its claims share a family
    with (:mod:`~throttlelab.analysis.threads.thread_sweep`)."""
    first = cells.row(0, named=True)
    limit_cores, label = first["cpu_limit_cores"], first["limit_label"]
    reserve = first["limit_x"]
    zero = not noise.assumption_based and noise.sigma == 0
    explicit = cells.filter(pl.col("explicit")).sort("mean_log")
    auto = cells.filter(pl.col("threads") == "auto")
    best = explicit.row(0, named=True) if explicit.height else None
    a = auto.row(0, named=True) if auto.height else None
    near: tuple[str, ...] = ()
    best_ci = worse_p = None
    family = None
    if not noise.assumption_based and not zero and cells.height > 1:
        settings = explicit["runs"].to_list() + ([a["runs"]] if a else [])
        family = limit_family(settings, noise.df, limits, n_sim=n_sim, seed=seed)
    if best:
        best_ci = expected_estimate(best["geomean_seconds"], best["runs"], noise, level, exact=zero)
        names = explicit["threads"].to_list()
        if noise.assumption_based:  # no test from a prior: the single-number verdicts decide what is clearly worse
            near_list = names if single_near_best is None else [t for t in names if t in single_near_best]
        elif zero:  # exact: only exact ties are as good as the best
            near_list = [t for t, v in zip(names, explicit["mean_log"]) if v <= best["mean_log"] + 1e-12]
        elif family is None:  # one setting: nothing to compare
            near_list = names
        else:
            p_w = slower_than_best(explicit["mean_log"].to_numpy(), explicit["runs"].to_numpy(), noise.sigma, family)
            worse_p = {t: float(p) for t, p in zip(names, p_w)}
            near_list = [t for t in names if worse_p[t] >= alpha]
        near = tuple(sorted(near_list, key=int))
    auto_vs_best = None
    auto_slower = False
    if best and a:
        ci = p = None
        d = a["mean_log"] - best["mean_log"]
        pct = 100 * math.expm1(d)
        if noise.assumption_based:
            method = "too few to decide: no replicated cell, run-to-run noise unmeasured (no test from a prior)"
        elif zero:
            method = "exact difference: " + ZERO_NOTE
        else:
            ci, p = auto_against_best(a["mean_log"], a["runs"], explicit["mean_log"].to_numpy(),
                                      explicit["runs"].to_numpy(), noise.sigma, family, level)
            auto_slower = p < alpha and d > 0
            method = (f"Tukey-Kramer pairwise comparisons of this limit's {explicit.height + 1} settings (the best "
                      f"re-picked in every simulated draw), Bonferroni across {limits} limit(s), interval simultaneous "
                      f"over them: auto vs the fastest of {explicit.height} explicit counts; noise of this limit "
                      f"({noise.source}, {noise.cv_pct:.1f}%, df {noise.df:.3g})")
        auto_vs_best = Estimate(pct, None if ci is None else ci.low, None if ci is None else ci.high, level, method, p,
                                int(a["runs"] + explicit["runs"].sum()), "pct", "auto against the fastest explicit count")
    prob = None
    if best and explicit.height > 1 and not noise.assumption_based:  # one number per cell: no probability claimed
        pb = posterior_best(explicit["mean_log"].to_numpy(), explicit["runs"].to_numpy(), noise.sigma, noise.df,
                            seed=seed)
        prob = {t: float(v) for t, v in zip(explicit["threads"], pb)}
    rec = None
    if best and a:
        if zero or noise.assumption_based:  # exact, or nothing measured: the faster-looking one
            rec = a if a["mean_log"] <= best["mean_log"] else best
        else:  # auto, the runtime's own choice, unless it is shown slower than the best explicit count
            rec = best if auto_slower else a
    else:
        rec = best or a
    rec_est = expected_estimate(rec["geomean_seconds"], rec["runs"], noise, level, exact=zero) if rec else None
    measured = not noise.assumption_based
    return ThreadChoice(
        limit_cores=limit_cores, limit_label=label,
        best_threads=best["threads"] if best else None, best_seconds=best_ci, near_best_threads=near,
        auto_seconds=a["geomean_seconds"] if a else None, auto_vs_best=auto_vs_best,
        recommended_threads=rec["threads"] if rec else None, recommended_seconds=rec_est,
        core_seconds=(reserve * rec["geomean_seconds"]) if (rec and reserve is not None) else None,
        probability_best=prob, worse_than_best_p_values=worse_p,
        noise_cv_pct=noise.cv_pct if measured else None, noise_df=noise.df if measured else None,
        noise_source=noise.source if measured else "unmeasured",
    )
