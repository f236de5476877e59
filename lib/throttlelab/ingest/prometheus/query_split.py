r"""Range queries split by namespace and by time, so that none loads more than a set number of samples.

Prometheus holds every point a range query evaluates (series x steps; ``stats=all``
reports it as ``peakSamples``) and refuses a query above ``--query.max-samples``
(50 M by default).  A whole large cluster in one query would come near it, and
load the server for as long.  The namespaces are packed, in name order, into
groups whose series x steps stay under :data:`QUERY_POINTS`; a namespace too
large for the budget on its own has its window cut into pieces of fewer steps.
Each (namespace, pod, container) lies in one group, so the groups' answers join
without overlap, and the time pieces are joined by
:meth:`~throttlelab.ingest.prometheus.prometheus_api.PrometheusAPI.query_range`.

>>> query_groups({"a": 10, "b": 20, "c": 5000}, 1000, budget=100_000)
[(('a', 'b'), 1000), (('c',), 20)]
>>> print(namespace_matcher(("shop", "web.x")))
namespace=~"shop|web\\.x"
"""

from __future__ import annotations

from throttlelab.ingest.prometheus.prometheus_api import MAX_POINTS, PrometheusAPI

#: Points (series x steps) one range query may evaluate: 4% of Prometheus' default ``--query.max-samples``.
QUERY_POINTS = 2_000_000


def query_groups(counts: dict[str, int], steps: int, *, budget: int | None = None) -> list[tuple[tuple[str, ...], int]]:
    """Pack namespaces into query groups.

    Parameters
    ----------
    counts
        Series per namespace (over the window).
    steps
        Steps of the whole window.
    budget
        Points per query (default :data:`QUERY_POINTS`).

    Returns
    -------
    list of (namespaces, steps per piece)
        Groups in name order; the second field is the most steps one query of that group may cover.
    """
    budget = budget or QUERY_POINTS
    groups: list[tuple[list[str], int]] = []
    cur: list[str] = []
    n = 0
    for ns in sorted(counts):
        c = max(1, int(counts[ns]))
        if cur and (n + c) * steps > budget:
            groups.append((cur, n))
            cur, n = [], 0
        cur.append(ns)
        n += c
    if cur:
        groups.append((cur, n))
    return [(tuple(g), int(min(steps, MAX_POINTS, max(1, budget // k)))) for g, k in groups]


def namespace_matcher(namespaces: tuple[str, ...]) -> str:
    """A PromQL matcher for these namespaces (DNS labels: only ``.`` needs escaping; Prometheus anchors it)."""
    if len(namespaces) == 1 and "." not in namespaces[0]:
        return f'namespace="{namespaces[0]}"'
    return 'namespace=~"' + "|".join(n.replace(".", "\\\\.") for n in namespaces) + '"'


def split_range(api: PrometheusAPI, template: str, groups, start: float, end: float, step: float, promql: list[str],
                pool=None) -> list:
    """Run ``template`` (a query with ``{ns}`` where the namespace matcher goes, e.g. ``x{{a="b",{ns}}}``) for each
    group (``None``: one query without a namespace matcher) and return the answers' series together."""
    def one(group):
        nss, pts = group
        q = template.replace("{ns}", namespace_matcher(nss) if nss else "").replace(",}", "}")
        return q, api.query_range(q, start, end, step, max_points=pts)

    out = []
    for q, result in (pool.map if pool else map)(one, groups or [(None, MAX_POINTS)]):
        promql.append(q)
        out += result
    return out


def time_batches(spans: dict, start: float, end: float, step: float, *, pad: float = 0.0, budget: int | None = None,
                 most: int = 500) -> list[tuple[set, float, float]]:
    """Pack short-lived pods into range queries by time: ``spans`` maps each pod to the (first, last) time it was
    seen (``None``: not seen, so its whole window), widened by ``pad`` seconds each side (seen at a coarser step, a
    pod may have lived up to about two of those steps beyond); pods in time order share a query while its pods x
    steps stay under ``budget`` (default :data:`QUERY_POINTS`) and it holds at most ``most`` pods.  Each query's
    window starts on the grid ``start + k * step`` (its first point one step later) and ends on it.

    Returns
    -------
    list of (pods, window start, window end)

    >>> spans = {("n", "a"): (3600.0, 3900.0), ("n", "b"): (4000.0, 4300.0), ("n", "c"): None}
    >>> [(sorted(p for _, p in pods), t0, t1) for pods, t0, t1 in time_batches(spans, 0.0, 86400.0, 60.0, pad=600)]
    [(['a', 'b'], 2940.0, 4920.0), (['c'], 0.0, 86400.0)]
    """
    budget = budget or QUERY_POINTS
    seen = sorted((s for s in spans.items() if s[1] is not None), key=lambda kv: kv[1][0])
    out: list[tuple[set, float, float]] = []
    pods: set = set()
    t0 = t1 = 0.0
    for pod, (first, last) in seen:
        lo = start + max(0, (first - pad - start) // step - 1) * step  # a step before: rate() at its first point
        hi = min(end, start + -(-(last + pad - start) // step) * step)
        if pods and (len(pods) >= most or (len(pods) + 1) * ((max(t1, hi) - t0) / step + 1) > budget):
            out.append((pods, t0, t1))
            pods = set()
        t0, t1 = (lo, hi) if not pods else (min(t0, lo), max(t1, hi))
        pods.add(pod)
    if pods:
        out.append((pods, t0, t1))
    unseen = {p for p, s in spans.items() if s is None}
    per = max(1, min(most, budget // max(1, int((end - start) // step) + 1)))
    ordered = sorted(unseen)
    out += [(set(ordered[i:i + per]), start, end) for i in range(0, len(ordered), per)]
    return out

