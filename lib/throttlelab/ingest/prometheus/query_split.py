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
