"""The answer of the thread-count report (notebook 04): the thread count to set, what the others lose, how sure.

Built from the fields of the thread-count analyses, the single-number verdicts and the thread advice
(:mod:`throttlelab.analysis.threads.thread_counts`, :mod:`~throttlelab.analysis.runs.single_numbers`,
:mod:`~throttlelab.analysis.threads.thread_advice`), so a change of a procedure flows through to the words.
"""

from __future__ import annotations

from typing import Any

import polars as pl

from throttlelab.core.ordering import best_by_score
from throttlelab import units
from throttlelab.analysis.runs import ResponseMetric, metric_change_ci, metric_change_pct, resolve
from throttlelab.analysis.runs import verdict_sentences
from throttlelab.analysis.threads import advice_sentences
from throttlelab.report.answers.answer_text import Answer, change_words, group_name, how_sure, join_words, runs_per, \
    source_name, thread_knob, threads_words


def per_limit_lines(analyses: list[Any], single: list[Any], verdicts: pl.DataFrame, advice: pl.DataFrame,
                    m: ResponseMetric, *, ceiling_cv: float, floor_cv: float) -> list[str]:
    """Per limit: the thread advice, what single numbers decide, and the best count where there is no advice."""
    out = advice_sentences(advice)
    for a in single:
        out += [f"{a.label}: {s}" for s in verdict_sentences(verdicts.filter(pl.col("group") == a.label), m,
                                                             ceiling_cv=ceiling_cv, floor_cv=floor_cv)]
    for a in analyses:
        if a not in single and a.has_explicit_threads and not advice.height:
            out += [f"{a.label}, {c.limit_label}: best {threads_words(c.best_threads)}"
                    + (f" ({', '.join(t for t in c.near_best_threads if t != c.best_threads)} not significantly worse)"
                       if len(c.near_best_threads) > 1 else "") for c in a.limits if c.best_threads]
    return out


def thread_count_answer(analyses: list[Any], single: list[Any], verdicts: pl.DataFrame, advice: pl.DataFrame,
                        prepared: Any, *, runs_path: str = "", alpha: float = 0.05, ceiling_cv: float = 0.15,
                        floor_cv: float = 0.05) -> Answer:
    """The answer for the first group, with the headlines the notebook records.

    ``single`` are the analyses with one run per cell (judged by ``verdicts``); ``advice`` is the thread-advice
    table.
    """
    m = prepared.metric
    n_runs = prepared.summary()["runs_analysed"]
    source = source_name(runs_path, "published ffmpeg sweep")
    heads = _headlines(analyses, single, verdicts, advice, m, ceiling_cv=ceiling_cv, floor_cv=floor_cv)
    rests = f"{units.count(n_runs, 'run')} ({source}); {m.label} ({m.unit}, {m.direction})"
    first = analyses[0] if analyses else None
    if first is None:
        return Answer("Too few runs to decide: the input holds no usable run.", "How sure: not yet clear.",
                      rests_on=f"0 runs ({source})", headlines=tuple(heads))
    name = group_name(first.group, among=[a.group for a in analyses])
    method = f"Thread counts at each CPU limit, the run as the unit; significance level {alpha:g}."
    if any(a.has_explicit_threads and a not in single for a in analyses):
        method += f" **Repeated runs:** {first.method or next(a.method for a in analyses if a not in single)}."
    if single:
        method += (f" **One run per setting:** each count against the one equal to the limit (the quota), by its "
                   f"break-even noise; clear when the gap survives {units.pct(100 * ceiling_cv)} run-to-run noise, "
                   f"too close to call within {units.pct(100 * floor_cv)}; more runs each would decide the rest.")
    if not advice.is_empty():
        method += (" **Thread advice:** automatic threads and the host's core count against the count to use, per "
                   "metric: the change with its 95% interval and p-value from the runs (t-test on the log scale), or "
                   "the one-run verdict.")
    terms = ("break-even noise",) * bool(single) + ("Holm", "Bonferroni")
    if not first.has_explicit_threads:
        action = (f"Too few to decide: every {first.group.get('workload', '')} run used automatic threads, so no "
                  "thread count can be compared.")
        sure = how_sure(["not yet clear"], ["1, 2, 4 and 8 threads at each limit, 3 runs each, would decide it"],
                        action=action)
        return Answer(action, sure, rests_on=f"{units.count(n_runs, 'run')}, all with automatic threads ({source})",
                      method=method, terms=terms, headlines=tuple(heads))
    if first in single:
        action, sure = _single_lead(first, verdicts.filter(pl.col("group") == first.label), advice, m, name)
    else:
        action, sure = _runs_lead(first, advice, m, name, n_runs)
    return Answer(action, sure, rests_on=rests, method=method, terms=terms, headlines=tuple(heads))


def _single_lead(a: Any, table: pl.DataFrame, advice: pl.DataFrame, m: ResponseMetric, name: str) -> tuple[str, str]:
    """One number per cell: keep the reference (the quota) unless a count is clearly better; what clearly loses."""
    table = table.filter(pl.col("limit_label") == table["limit_label"][0]) if table.height else table
    ref = table.filter(pl.col("verdict") == "reference").row(0, named=True) if table.height else None
    if ref is None:
        return f"Too few to decide for {name}: no reference thread count was measured.", "How sure: not yet clear."
    better = table.filter(pl.col("verdict").str.starts_with("clearly better")).sort(
        "change_pct", descending=m.higher_is_better)  # the largest gain first, in the metric's own direction
    use = better.row(0, named=True) if better.height else ref
    knob = thread_knob(a.group.get("workload"))
    what = ", the quota" if use is ref and ref["reference_kind"] == "quota" else ""
    where = f"At {units.cores_label(ref['limit_label'])}, s" if a.limits and len(a.limits) > 1 else "S"
    action = (f"{where}et GOMAXPROCS to {use['threads']}{what}." if knob == "GOMAXPROCS"
              else f"{where}et {name} to {threads_words(use['threads'])}{what}.")
    rows = advice.filter(pl.col("group") == a.label, pl.col("limit") == ref["limit_label"],
                         pl.col("use_threads") == use["threads"]) if advice.height else advice
    host = rows.filter(pl.col("compared").str.starts_with("host")) if rows.height else rows
    worse = [r for r in host.iter_rows(named=True) if _clear(r["verdict"]) and _is_worse(r)]
    if worse:
        action += (f" With all {host['compared_threads'][0]} host cores, "
                   + join_words([f"{resolve(r['metric']).label} {change_words(r['change_pct'])}" for r in worse]) + ".")
    else:
        lose = table.filter(pl.col("verdict").str.starts_with("clearly worse")).sort(
            "change_pct", descending=m.higher_is_better)  # the smallest loss first
        if lose.height:
            changes = lose["change_pct"].to_list()  # the metric's own change (single_number_verdicts)
            size = (change_words(changes[0]) if len(changes) == 1 else
                    f"{'rose' if changes[0] > 0 else 'fell'} {units.pct(min(map(abs, changes)))} to "
                    f"{units.pct(max(map(abs, changes)))}")
            action += f" With {join_words(lose['threads'].to_list(), 'or')} threads, {m.label} {size}."
    close = table.filter(pl.col("verdict").str.starts_with("cannot"))
    open_ = table.filter(pl.col("verdict") != "reference", ~pl.col("verdict").str.starts_with("clearly"),
                         ~pl.col("verdict").str.starts_with("cannot"))
    need = open_["replicates_needed"].drop_nulls().max() if open_.height else None
    runs = int(table["runs"].max()) if "runs" in table.columns and table.height else 1
    required = [f"{units.count(runs, 'run')} per setting" if runs > 1 else "one run per setting"]
    optional: list = []
    if open_.height:
        gaps = f"{_counts(open_)} {'are' if open_.height > 1 else 'is'} not yet clear"
        optional.append((f"{gaps} ({need} runs each would decide)" if need else gaps, gaps))
    if close.height:
        optional.append(f"{_counts(close)} too close to call")
    return action, how_sure(required, optional or ["every gap is clear"], action=action)


def _counts(table: pl.DataFrame) -> str:
    """The thread counts of ``table`` in numeric order, in words: ``1 and 8 threads``."""
    ts = sorted(table["threads"].to_list(), key=lambda t: (not t.isdigit(), int(t) if t.isdigit() else 0, t))
    return f"{join_words(ts)} {'thread' if ts == ['1'] else 'threads'}"


def _worst_auto(a: Any) -> Any:
    """The limit where auto threads cost most against the best count (of near-ties, the lowest limit); None if none."""
    cands = [c for c in a.limits if c.auto_vs_best is not None]
    return best_by_score(cands, lambda c: c.auto_vs_best.value, highest=True) if cands else None


def _cheapest(a: Any) -> Any:
    """The limit of fewest core-seconds per run (of near-ties, the lowest limit); None if none measured."""
    cands = [c for c in a.limits if c.core_seconds is not None]
    return best_by_score(cands, lambda c: c.core_seconds) if cands else None


def _runs_lead(a: Any, advice: pl.DataFrame, m: ResponseMetric, name: str, n_runs: int) -> tuple[str, str]:
    """Replicated runs: the cheapest limit's thread count (wall time) or the advice (other metrics), and auto's cost."""
    per_cell = a.cells["runs"].to_list() if "runs" in a.cells.columns else []
    required = [units.count(n_runs, "run") + (f", {runs_per(per_cell, 'setting')}" if per_cell else "")]
    worst = _worst_auto(a)
    cheap = _cheapest(a)
    if m.name == "wall_seconds" and cheap is not None:
        action = (f"Run {name} with {threads_words(cheap.recommended_threads)} at {units.cores_label(cheap.limit_label)}"
                  f" ({units.seconds(cheap.recommended_seconds.value, 2)} and "
                  f"{units.number(cheap.core_seconds, 2)} core-seconds per run).")
    elif advice.height and (rows := advice.filter(pl.col("group") == a.label)).height:
        r0 = rows.row(0, named=True)
        knob = thread_knob(a.group.get("workload"))
        action = (f"Set GOMAXPROCS to {r0['use_threads']} at {units.cores_label(r0['limit'])}."
                  if knob == "GOMAXPROCS" else
                  f"Run {name} with {threads_words(r0['use_threads'])} at {units.cores_label(r0['limit'])}.")
    else:
        best = next((c for c in a.limits if c.best_threads), None)
        action = (f"Run {name} with {threads_words(best.best_threads)} at {units.cores_label(best.limit_label)}."
                  if best else f"Too few to decide for {name}.")
    optional = []
    if worst is not None and worst.auto_vs_best is not None:
        change = metric_change_pct(worst.auto_vs_best.value, m)
        what = (f"were {units.pct(abs(change))} {'slower' if change > 0 else 'faster'}" if m.name == "wall_seconds"
                else f"had {units.pct(abs(change))} {'higher' if change > 0 else 'lower'} {m.label}")
        action += (f" At {units.cores_label(worst.limit_label)}, automatic threads {what} than "
                   f"{threads_words(worst.best_threads)}.")
        ci = metric_change_ci(worst.auto_vs_best.confidence_interval(), m) if worst.auto_vs_best.low is not None \
            else None
        if ci is None:
            optional.append("that gap is exact (identical repeats)" if a.noise.sigma == 0 and not a.noise.assumption_based
                            else "that gap is not yet clear")
        else:
            gap = f"that gap is {'clear' if ci.low > 0 or ci.high < 0 else 'not yet clear'}"
            optional.append((f"{gap} (95% interval {units.pct(ci.low, sign=True)} to {units.pct(ci.high, sign=True)})",
                             gap))
    return action, how_sure(required, optional, action=action)


def _headlines(analyses, single, verdicts, advice, m, *, ceiling_cv, floor_cv) -> list[str]:
    out = list(advice_sentences(advice)[:3])
    for a in single[:1]:
        out += [f"{a.label}: {s}" for s in verdict_sentences(verdicts.filter(pl.col("group") == a.label), m,
                                                             ceiling_cv=ceiling_cv, floor_cv=floor_cv)[:2]]
    for a in analyses[:2]:
        if a in single:
            continue
        if not a.has_explicit_threads:
            out.append(f"{a.label}: only `auto` thread counts in the data — no thread-count comparison possible")
            continue
        worst = _worst_auto(a)
        if worst is not None and worst.auto_vs_best.low is not None:
            prob = (worst.probability_best or {}).get(worst.best_threads)
            ci = metric_change_ci(worst.auto_vs_best.confidence_interval(), m)
            out.append(f"{a.label}: at {worst.limit_label}, auto {m.label} "
                       f"{units.pct(metric_change_pct(worst.auto_vs_best.value, m), sign=True)} (95% CI "
                       f"{units.pct(ci.low, sign=True)} to {units.pct(ci.high, sign=True)}, simultaneous over the "
                       f"{units.count(a.family_limits, 'limit')}; adjusted p = "
                       f"{units.p_value(worst.auto_vs_best.p_value)}) vs {threads_words(worst.best_threads)}"
                       + ("" if worst.auto_vs_best.p_value < a.alpha else ": no difference shown")
                       + (f" (best in {units.percent(prob)} of run bootstraps)" if prob is not None else ""))
        elif worst is not None:
            how = ("exact: zero run-to-run noise, a deterministic metric" if a.noise.sigma == 0
                   and not a.noise.assumption_based else worst.auto_vs_best.method)
            out.append(f"{a.label}: at {worst.limit_label}, auto {m.label} "
                       f"{units.pct(metric_change_pct(worst.auto_vs_best.value, m), sign=True)} vs "
                       f"{threads_words(worst.best_threads)} ({how})")
        cheapest = _cheapest(a)
        if cheapest is not None and m.name == "wall_seconds":
            out.append(f"{a.label}: cheapest per run: {cheapest.limit_label} with "
                       f"{threads_words(cheapest.recommended_threads)}, "
                       f"{units.seconds(cheapest.recommended_seconds.value)}, "
                       f"{units.number(cheapest.core_seconds)} core-seconds")
    return out


def _clear(verdict: str | None) -> bool:
    v = str(verdict or "")
    return "clearly" in v or v.split(" ")[0] in ("worse", "better")


def _is_worse(row: dict) -> bool:
    """Is the compared count worse in this row's metric (its change against the direction)?"""
    higher_is_better = resolve(row["metric"]).higher_is_better
    return (row["change_pct"] < 0) if higher_is_better else (row["change_pct"] > 0)
