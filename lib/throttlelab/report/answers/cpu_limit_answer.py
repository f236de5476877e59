"""The answer of the CPU-limit report (notebook 03): the limit to give, the limits to avoid, how sure.

Built from the result objects of :func:`throttlelab.analysis.limits.cpu_limits.analyse_cpu_limits` (their fields,
not their sentences), so a change of a procedure flows through to the words.
"""

from __future__ import annotations

from typing import Any

from throttlelab import units
from throttlelab.analysis.runs import ResponseMetric, metric_change_ci, metric_change_pct, metric_ci, \
    metric_value
from throttlelab.report.answers.answer_text import Answer, group_name, how_sure, runs_per, source_name


def cpu_limit_answer(groups: list[Any], prepared: Any, *, runs_path: str = "", alpha: float = 0.05,
                     threshold_pct: float = 5.0, active: Any = None) -> Answer:
    """The answer for the first group of ``groups``, with headlines for the first two and the active-time fit.

    Parameters
    ----------
    groups
        :class:`~throttlelab.analysis.limits.cpu_limits.GroupAnalysis` objects.
    prepared
        The :class:`~throttlelab.analysis.runs.prepare.PreparedRuns` they were computed from (runs analysed, metric).
    runs_path
        The notebook's ``runs_path`` parameter (its last part names the input; empty: the published ffmpeg sweep).
    alpha, threshold_pct
        The dead-zone tests' family-wise error rate and practical threshold (for the method).
    active
        :class:`~throttlelab.analysis.limits.cpu_limit_results.ActiveTimeResults`, or ``None``.
    """
    m = prepared.metric
    n_runs = prepared.summary()["runs_analysed"]
    source = source_name(runs_path, "published ffmpeg sweep")
    heads = [h for g in groups[:2] for h in group_headlines(g, m)]
    if active is not None:
        heads.append(active_time_headline(active))
    if not groups:
        return Answer("Too few runs to decide: the input holds no usable run.", "How sure: not yet clear.",
                      rests_on=f"{units.count(n_runs, 'run')} ({source})", headlines=tuple(heads))
    g = groups[0]
    r, primary = g.recommendation, g.primary_dead_zones
    name = group_name(g.group, among=[x.group for x in groups])
    value = _value(r.expected_seconds.value, m)
    limit = units.cores_label(r.limit_label)
    action = (f"Run {name} without a CPU limit ({value})." if r.limit_cores is None
              else f"Give {name} {limit} ({value})." if " " not in name else f"Give {limit} to {name} ({value}).")
    if getattr(r, "undecided", ""):  # no comparison of limits: no recommendation
        action = undecided_action(name, r.undecided, r.limit_range)
    zone = primary.zones[0] if primary.zones else None
    if zone is not None:
        action += (f" Avoid {units.cores_range(zone.limits_labels)}: up to {_worse(zone.slowdown.value, m)} than at "
                   f"{units.cores_label(zone.baseline_label)}.")
    per_limit = g.summary["runs"].to_list() if "runs" in g.summary.columns else []
    required = [f"{units.count(n_runs, 'run')}" + (f", {runs_per(per_limit)}" if per_limit else "")]
    optional = []
    slower = "slower" if m.name == "wall_seconds" else "worse"
    if zone is not None and zone.slowdown.low is None:
        optional.append("the slowdown is exact (identical repeats)")
    elif zone is not None:
        zci = metric_change_ci(zone.slowdown.confidence_interval(), m)
        optional.append(f"the slowdown is clear (95% interval {units.pct(zci.low, sign=True)} to "
                        f"{units.pct(zci.high, sign=True)})")
    elif not primary.decidable:
        optional.append(f"whether some limit is {slower} than a lower one is not yet clear")
    else:
        optional.append(f"no limit is clearly {slower} than a lower one")
    if r.expected_seconds.low is None:
        optional.append("the run times are exact (identical repeats)")
    elif r.limit_range and len(set(r.limit_range)) > 1:
        lo, hi = (units.cores_label(x) for x in r.limit_range)
        optional.append(f"the best limit is not yet clear ({lo} to {hi})")
    elif r.limit_range:
        optional.append(f"{units.cores_label(r.limit_label)} is clearly the best limit")
    ci = metric_ci(r.confidence_interval(), m)
    if ci is not None:
        optional.append(f"95% interval {_shown(ci.low, m)} to {_shown(ci.high, m)}")
    block = " (experiment as a block)" if primary.block else ""
    method = (f"**Dead zones{block}:** each CPU limit against the best lower limit, the run as the unit; "
              f"{primary.procedure or primary.correction}; family-wise error rate {alpha:g}, practical threshold "
              f"{threshold_pct:g}%. **Recommended limit:** {r.reason}"
              + (f"; {r.uncertainty_note}" if r.uncertainty_note else "") + ". **Scaling fits:** Amdahl, the "
              "Universal Scalability Law and a CFS quota model, parameter intervals by profile likelihood.")
    groups_words = (f" in {units.count(len(groups), 'group')}; the answer covers {name}, 1 of {len(groups)}"
                    if len(groups) > 1 else f" of {group_name(g.group)}")
    return Answer(action, how_sure(required, optional, action=action),
                  rests_on=f"{units.count(n_runs, 'run')}{groups_words}"
                           + (f", {runs_per(per_limit)}" if per_limit else "") + f" ({source})",
                  method=method, terms=("dead zone", "max-T", "Holm", "knee", "simulated repeats"),
                  headlines=tuple(heads))


def undecided_action(name: str, reason: str, limit_range: tuple[str, ...] | None = None) -> str:
    """The lead when the runs cannot recommend a limit: why in plain words, and what would decide it.

    Examples
    --------
    >>> undecided_action("ffmpeg", "one limit measured (2000m): nothing to compare it with; ...")
    'Not yet clear which limit to give ffmpeg: only 2 cores was measured. Runs at two or more limits, 3 runs each, would decide it.'
    """
    if reason.startswith("one limit measured"):
        only = reason.split("(", 1)[1].split(")", 1)[0] if "(" in reason else "one limit"
        return (f"Not yet clear which limit to give {name}: only {units.cores_label(only)} was measured. "
                "Runs at two or more limits, 3 runs each, would decide it.")
    if reason.startswith("one run per limit"):
        return f"Not yet clear which limit to give {name}: one run per limit. 3 runs per limit would decide it."
    span = (f" of {units.cores_label(limit_range[0])} to {units.cores_label(limit_range[-1])}" if limit_range else "")
    return (f"Not yet clear which limit to give {name}: the runs single out none{span}. "
            "More runs per limit would decide it.")


def group_headlines(g: Any, m: ResponseMetric) -> list[str]:
    """One line for the group's first dead zone (or why none can be decided) and one for its recommended limit."""
    out = []
    primary = g.primary_dead_zones
    block = " (experiment as a block)" if primary is g.dead_zones_block else ""
    for z in primary.zones[:1]:
        where = f"{g.label}: dead zone {', '.join(z.limits_labels)}"
        if z.slowdown.low is None:
            out.append(f"{where}: {m.label} {units.pct(metric_change_pct(z.slowdown.value, m), sign=True)} "
                       f"against {z.baseline_label} (exact: zero run-to-run noise, a deterministic metric; no test "
                       f"needed){block}")
        else:
            zci = metric_change_ci(z.slowdown.confidence_interval(), m)
            out.append(f"{where}: {m.label} up to {units.pct(metric_change_pct(z.slowdown.value, m), sign=True)} "
                       f"against {z.baseline_label} (simultaneous 95% bounds {units.pct(zci.low, sign=True)} to "
                       f"{units.pct(zci.high, sign=True)}, adjusted p = {units.p_value(z.slowdown.p_value)}){block}")
    if not primary.decidable:
        out.append(f"{g.label}: dead zones {primary.reason}")
    r = g.recommendation
    sure = ""
    if r.probability_knee:
        sure = (f"; recommended in {units.percent(r.probability_knee.get(r.limit_label, 0))} of simulated repeats, "
                "95% range " + " to ".join(dict.fromkeys(r.limit_range or ())))
    if getattr(r, "undecided", ""):
        out.append(f"{g.label}: too few to decide which limit to give: {r.undecided}")
    elif r.expected_seconds.low is None:
        out.append(f"{g.label}: give {r.limit_label}: {m.label} {_value(r.expected_seconds.value, m, bare=True)} "
                   "(exact: zero run-to-run noise, a deterministic metric)")
    else:
        ci = metric_ci(r.confidence_interval(), m)
        cost = (f", {units.number(r.core_seconds)} core-seconds per run"
                if r.core_seconds and m.name == "wall_seconds" else "")
        out.append(f"{g.label}: give {r.limit_label}: {m.label} {_value(r.expected_seconds.value, m, bare=True)} "
                   f"(95% CI {_shown(ci.low, m)} to {_shown(ci.high, m)}){cost}{sure}")
    return out


def active_time_headline(active: Any) -> str:
    """The Go write-up's active-time fit in one line."""
    sf = active.slowdown_factor
    return (f"Go endpoint: CPU time / wall time = {units.number(active.fit.parameters['slope'].value, 2)} x limit "
            f"share; at {units.number(1000 * active.smallest_limit_share)}m a request takes {units.times(sf.value)} "
            f"(95% CI {units.number(sf.low, 2)}-{units.number(sf.high, 2)}) its CPU time")


def _value(cost: float | None, m: ResponseMetric, *, bare: bool = False) -> str:
    """The metric's value of ``cost`` for a sentence: ``3.9 s per run``, ``26 ms p99.9 latency``."""
    v = metric_value(cost, m)
    text = units.metric(v, m.name, m.unit, 2)
    if bare:
        return text
    return f"{text} per run" if m.name in ("wall_seconds", "cpu_seconds") else f"{m.label} {text}"


def _shown(value: float | None, m: ResponseMetric) -> str:
    """A value already in the metric's unit (an interval's end from ``metric_ci``) for a sentence."""
    return units.metric(value, m.name, m.unit, 2)


def _worse(slowdown_pct: float, m: ResponseMetric) -> str:
    """A slowdown (cost change, %) as the metric's change in words: ``48% slower``, ``20% lower throughput``."""
    change = metric_change_pct(slowdown_pct, m)
    if m.name == "wall_seconds":
        return f"{units.pct(abs(change))} {'slower' if change > 0 else 'faster'}"
    return f"{units.pct(abs(change))} {'higher' if change > 0 else 'lower'} {m.label}"
