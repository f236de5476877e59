"""The answer of a right-sizing report in plain words: which containers to change and how, then how sure.

The lead names the action first (raise, lower, set or remove a limit; keep), at most 40 words, and marks a raise
that is a first round (throttled in most periods, so demand above the limit was never observed: the raise lets the
next window see it, and a second run is tight); the
"Rests on" line says what it was computed from (containers, window, source, target, intervals).
"""

from __future__ import annotations

from collections.abc import Sequence

from throttlelab.analysis.rightsizing import Rightsizing, Settings

#: Most words in a lead (whitespace-separated).
MAX_WORDS = 40
#: Actions in the order a reader acts on them: (decision, phrase naming containers, phrase counting them).
_ACTIONS = (
    ("raise limit", "raise the CPU limit of {who}", "raise {n} CPU limit{s}"),
    ("set limit", "set a limit on {who}", "set {n} limit{s}"),
    ("lower limit", "lower the limit of {who}", "lower {n}"),
    ("no limit (policy)", "remove the limit of {who}", "remove {n}"),
)
_KEEP = ("keep", "keep (policy)")


def recommend_answer(recs: Sequence[Rightsizing], settings: Settings, *, source: str) -> tuple[str, str]:
    """``(lead, rests_on)`` for the right-sizing of ``recs``, read from ``source`` (a URL or a file).

    >>> recommend_answer([], Settings(), source="http://127.0.0.1:9090")[0]
    'No container to size: the source holds no CPU series for the namespace and selector given.'
    """
    if not recs:
        return ("No container to size: the source holds no CPU series for the namespace and selector given.",
                f"nothing read from {describe_source(source)}")
    for named in (2, 1, 0):
        lead = _lead(recs, named, settings.level)
        if len(lead.split()) <= MAX_WORDS:
            break
    hours = max(r.hours_observed for r in recs)
    steps = sorted({r.step_s for r in recs})
    step = f"{steps[0]:g}-s steps" if len(steps) == 1 else f"{steps[0]:g}-{steps[-1]:g}-s steps"
    n = len(recs)
    rests = (f"{n} container{'s' if n != 1 else ''}, up to {hours:,.0f} h of usage and throttling at {step} "
             f"({describe_source(source)}); throttling target {settings.throttle_target:.0%} of CFS periods; "
             f"{settings.level:.0%} block-bootstrap intervals")
    return lead, rests


def describe_source(source: str) -> str:
    """Where the data came from, in words: a URL as given, the bundled sample, or a saved export's file name.

    >>> describe_source("/x/data/published/samples/shop_namespace.om.gz"), describe_source("/tmp/prod.om")
    ('the bundled sample namespace', 'the export prod.om')
    """
    if "://" in source:
        return source
    name = source.replace("\\", "/").rsplit("/", 1)[-1]
    return "the bundled sample namespace" if name == "shop_namespace.om.gz" else f"the export {name}"


def _lead(recs: Sequence[Rightsizing], named: int, level: float) -> str:
    """The lead naming at most ``named`` containers per action (the most throttled first; 0: counts only)."""
    parts = []
    for decision, naming, counting in _ACTIONS:
        group = sorted((r for r in recs if r.decision == decision), key=lambda r: -(r.throttled_ratio or 0.0))
        if group and named:
            parts.append(naming.format(who=_who(group, named)))
        elif group:
            parts.append(counting.format(n=len(group), s="s" if len(group) != 1 else "") + _first_round_count(group))
    keep = sum(r.decision in _KEEP for r in recs)
    if keep:
        parts.append(f"keep {'the other ' if parts else ''}{keep}" if parts else f"keep all {_count(keep)} as they are"
                     if keep > 1 else "keep it as it is")
    little = sum(r.decision == "too little data" for r in recs)
    if little:
        parts.append(f"{_count(little)} had too little data to size")
    text = "; ".join(parts)
    return f"{text[0].upper()}{text[1:]}. How sure: each number has a {level:.0%} interval."


def _who(group: list[Rightsizing], named: int) -> str:
    """``"a (throttled in 84% of periods) and b (11%)"``, ``"a, b and 3 more"``; first rounds are marked."""
    shown = []
    for r in group[:named]:
        throttled = r.decision == "raise limit" and r.throttled_ratio
        notes = [] if not throttled else [f"throttled in {r.throttled_ratio:.0%} of periods" if not shown
                                          else f"{r.throttled_ratio:.0%}"]
        if r.demand_censored:
            notes.append(_first_round(r))
        shown.append(f"{r.pod}/{r.container}" + (f" ({'; '.join(notes)})" if notes else ""))
    rest = group[len(shown):]
    if rest:
        return ", ".join(shown) + f" and {len(rest)} more{_first_round_count(rest)}"
    return " and ".join(shown)


def _first_round(r: Rightsizing) -> str:
    """What a raise over censored demand is, in the lead's few words: a first round, to be run again once the raised
    limit has let a window see the demand (the table's note says so in full).

    >>> from types import SimpleNamespace as S
    >>> _first_round(S(current_limit_cores=0.5, recommended_limit_cores=2.0, decision="raise limit"))
    'rerun in 6h'
    """
    return "rerun in 6h"


def _first_round_count(group: Sequence[Rightsizing]) -> str:
    """``" (1 to rerun in 6h)"`` when some of ``group`` are first rounds over censored demand, else ``""``."""
    n = sum(bool(r.demand_censored) for r in group)
    return f" ({n} to rerun in 6h)" if n else ""


def _count(n: int) -> str:
    return f"{n} container{'s' if n != 1 else ''}"
