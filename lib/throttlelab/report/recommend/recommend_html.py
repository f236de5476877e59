"""``throttlelab recommend --format html``: one self-contained page, decisions first, then each container's charts."""

from __future__ import annotations

import datetime as dt
import html

from throttlelab.analysis.rightsizing import (advice_sentences, decision_table, label, marks_frame, method_lines,
                                              throttled_ratio_frame, usage_distribution_frame)
from throttlelab.report.html.offline import chart_html

CSP = ("default-src 'none'; script-src 'unsafe-inline' 'unsafe-eval'; style-src 'unsafe-inline'; "
       "img-src data: blob:; font-src data:")
STYLE = ("body{font-family:system-ui,sans-serif;margin:1.5em;max-width:1200px}table{border-collapse:collapse;"
         "font-size:13px}td,th{border:1px solid #ddd;padding:3px 6px;text-align:left}th{background:#f3f3f3}"
         ".why{color:#333;max-width:900px}h2{margin-top:1.6em}")


def _iso(t: float) -> str:
    return dt.datetime.fromtimestamp(t, dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")


def table_html(table) -> str:
    """A polars frame as a plain HTML table (strings escaped; no dtype row, no quotes)."""
    e = html.escape
    rows = ["<table class='tl-table'><tr>" + "".join(f"<th>{e(c)}</th>" for c in table.columns) + "</tr>"]
    rows += ["<tr>" + "".join(f"<td>{e(str(v))}</td>" for v in row) + "</tr>" for row in table.iter_rows()]
    return "".join(rows) + "</table>"


def recommend_html(run) -> str:
    """The report page of a :class:`~throttlelab.analysis.rightsizing.rightsizing_run.RightsizingRun` (every string escaped;
    charts drawn offline by the embedded vega bundle)."""
    from throttlelab.report.charts import throttled_ratio_chart, usage_distribution_chart  # altair: when a page is drawn

    e = html.escape
    recs, fetched, settings, source = run.recommendations, run.fetched, run.settings, run.source
    table = decision_table(recs)
    counts: dict[str, int] = {}
    for r in recs:
        counts[r.decision] = counts.get(r.decision, 0) + 1
    head = ", ".join(f"{v} {k}" for k, v in sorted(counts.items()))
    parts = [
        "<!DOCTYPE html><html><head><meta charset='utf-8'>",
        f"<meta http-equiv='Content-Security-Policy' content=\"{CSP}\">",
        f"<title>throttlelab recommend: {e(source)}</title><style>{STYLE}</style></head><body>",
        "<h1>CPU requests and limits: throttling-aware recommendation</h1>",
        f"<p><b>{len(recs)} workload containers: {e(head)}.</b> Source {e(source)} ({e(run.how)}), {_iso(fetched.start)} to "
        f"{_iso(fetched.end)}: {e(run.window_text())}; limit = smallest keeping the predicted throttled-period ratio at or under "
        f"{settings.throttle_target:.0%} (policy: {e(settings.limit_policy)}); intervals: 90% block bootstrap.</p>",
        *(f"<p>{e(n)}</p>" for n in run.notes),
        table_html(table),
    ]
    parts.append("<p>How to read the charts: the bars are the share of time the container used (blue) and wanted "
                 "(usage + throttled time, orange) each CPU level; dashed rules are the current request and limit, "
                 "solid ones the recommended. A limit left of the orange bars throttles. The line below is the share "
                 "of CFS periods throttled per 30 minutes against the target (red dashed).</p>")
    by_key = {w.key: w for w in fetched.workloads}
    first = True
    for r in recs:
        c = by_key.get((r.namespace, r.workload_kind, r.workload, r.container))
        name = label(r)
        pods = f"{r.pods} pod{'s' if r.pods != 1 else ''} (newest {r.pod}), {r.pod_hours:,.1f} pod-hours"
        parts.append(f"<h2>{e(name)}: {e(r.decision)}</h2><p class='why'>{e(pods)}. {e(r.reason)}</p>")
        parts += [f"<p class='why advice'><b>{e(s)}</b></p>" for s in advice_sentences(r)]
        if c is None:
            continue
        dist = usage_distribution_chart(usage_distribution_frame(c), marks_frame(r), title=f"{name}: usage distribution")
        parts.append(chart_html(dist.to_dict(), with_bundle=first, title=f"{name} usage distribution"))
        first = False
        ratio = throttled_ratio_frame(c)
        if ratio.height:
            ch = throttled_ratio_chart(ratio, target=settings.throttle_target, title=f"{name}: throttled ratio")
            parts.append(chart_html(ch.to_dict(), with_bundle=False, title=f"{name} throttled ratio"))
    parts.append("<h2>Method: runtime threads and autoscalers</h2>")
    parts += [f"<p class='why'>{e(line)}</p>" for line in method_lines()]
    parts.append("</body></html>")
    return "\n".join(parts)
