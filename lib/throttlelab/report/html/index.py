"""``reports/index.html``: the reader's own results first, then the examples, each with its answer lead.

"Your cluster" and "Your runs" come first, then "Examples"; every report with its status, answer lead, what it
rests on and its findings.
"""

from __future__ import annotations

import datetime as dt
import html
import json
from pathlib import Path
from typing import Any

from throttlelab.report.html.html_export import inline

STYLE = """
body { font-family: system-ui, sans-serif; margin: 2em auto; padding: 0 1.5em; max-width: 60em; color: #222; }
h1 { margin-bottom: .2em; } h2 { margin-top: 1.5em; border-bottom: 1px solid #ddd; }
table { border-collapse: collapse; width: 100%; } td, th { padding: .4em .6em; border-bottom: 1px solid #eee; text-align: left; vertical-align: top; }
.ok { color: #1b6e20; } .failed { color: #b00020; font-weight: bold; } .skipped { color: #8a6d00; }
.empty { color: #444; } h2 + p.muted { margin-top: -.4em; }
ul { margin: 0; padding-left: 1.2em; } .muted { color: #666; font-size: .9em; }
.answer-lead { margin: 0 0 .3em 0; } .answer-basis { color: #444; font-size: .9em; margin: .3em 0 0 0; }
td.report { width: 30%; } details { margin-top: .3em; color: #333; } summary { cursor: pointer; color: #555; font-size: .9em; }
"""


def read_runs(reports_dir: Path) -> dict[str, list[dict[str, Any]]]:
    """``{study: [run.json documents]}`` found under ``reports_dir``."""
    studies: dict[str, list[dict[str, Any]]] = {}
    for path in sorted(reports_dir.glob("*/*/run.json")):
        try:
            doc = json.loads(path.read_text())
        except (OSError, ValueError):
            doc = {"name": path.parent.name, "status": "failed", "error": "unreadable run.json", "headlines": []}
        doc["_href"] = f"{path.parent.parent.name}/{path.parent.name}/"
        studies.setdefault(path.parent.parent.name, []).append(doc)
    for runs in studies.values():
        runs.sort(key=lambda d: (d.get("position") or 0, str(d.get("name"))))
    return studies


#: The index's sections, in its order: what a reader's own cluster and runs say, then the examples (a study's
#: ``section:``).
SECTIONS = {
    "cluster": "Your cluster",
    "runs": "Your runs",
    "examples": "Examples",
}
#: What each section holds, under its heading; and what it says when it has no report.
SECTION_INTROS = {
    "cluster": "CPU requests and limits for the containers your Prometheus sees, sized from their throttling.",
    "runs": "Sweeps measured on this machine or on your Kubernetes nodes.",
    "examples": "Published write-ups reproduced from their own numbers, and a sample namespace bundled with "
                "throttlelab.",
}
SECTION_EMPTY = {
    "cluster": "Nothing from your cluster yet. To right-size what your Prometheus sees: "
               "<code>throttlelab run studies/cluster.yaml -p prometheus_url http://HOST:9090</code>",
    "runs": "No runs of your own yet. To measure on this machine: <code>throttlelab run studies/default.yaml</code> "
            "(it sweeps where it can write a CPU cgroup) or <code>throttlelab sweep studies/local_sweep.yaml</code>",
    "examples": "No examples: run <code>make report</code>.",
}


def by_section(studies: dict[str, list[dict[str, Any]]]) -> dict[str, list[dict[str, Any]]]:
    """Every run under its index section (:data:`SECTIONS`, in that order), keeping the
    studies' order and each study's run order; a run.json without a section is one of the reader's runs."""
    out: dict[str, list[dict[str, Any]]] = {s: [] for s in SECTIONS}
    for study, runs in studies.items():
        for r in runs:
            section = r.get("section") if r.get("section") in SECTIONS else "runs"
            out[section].append({**r, "_study": study})
    return out


def render_index(studies: dict[str, list[dict[str, Any]]]) -> str:
    """The index page: "Your cluster", "Your runs", then "Examples"; each row a report with its answer lead."""
    e = html.escape
    parts = [
        "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>",
        "<meta http-equiv='Content-Security-Policy' content=\"default-src 'none'; style-src 'unsafe-inline'\">",
        f"<title>throttlelab reports</title><style>{STYLE}</style></head><body>",
        "<h1>throttlelab reports</h1>",
        f"<p class='muted'>Generated {e(dt.datetime.now(dt.timezone.utc).strftime('%Y-%m-%d %H:%M UTC'))}. "
        "Each report is a self-contained HTML page (charts draw with no network).</p>",
    ]
    if not studies:
        parts.append("<p>No reports yet: run <code>make report</code>.</p>")
    for section, runs in by_section(studies).items() if studies else ():
        parts.append(f"<h2 id='{section}'>{e(SECTIONS[section])}</h2><p class='muted'>{e(SECTION_INTROS[section])}</p>")
        shown = [r for r in runs if r.get("status") != "skipped"]
        skipped = [r for r in runs if r.get("status") == "skipped"]
        if not shown:
            parts.append(f"<p class='empty'>{SECTION_EMPTY[section]}</p>")
        if shown:
            parts.append("<table><tr><th>report</th><th>answer</th></tr>")
            parts += [_row(r) for r in shown]
            parts.append("</table>")
        if skipped:
            items = "".join(f"<li>{e(str(r.get('title') or r.get('name')))}: {e(str(r.get('error')))}</li>"
                            for r in skipped)
            parts.append(f"<details class='skipped'><summary>{len(skipped)} not run on this machine</summary>"
                         f"<ul>{items}</ul></details>")
    parts.append("</body></html>")
    return "\n".join(parts)


def _row(r: dict[str, Any]) -> str:
    e = html.escape
    status = str(r.get("status", "?"))
    title = e(str(r.get("title") or r.get("name")))
    link = f"<a href='{e(r['_href'])}report.html'>{title}</a>" if r.get("report") else title
    heads = "".join(f"<li>{inline(h)}</li>" for h in r.get("headlines") or [])
    n_heads = len(r.get("headlines") or [])
    note = ""
    if status == "failed":
        note = f"<p class='failed'>Failed: {e(str(r.get('error')))}</p>"
    elif not r.get("answer"):
        note = "<p class='muted'>No answer recorded.</p>"
    lead = f"<p class='answer-lead'><strong>{inline(r['answer'])}</strong></p>" if r.get("answer") else ""
    basis = f"<p class='answer-basis'>Rests on: {inline(r['rests_on'])}</p>" if r.get("rests_on") else ""
    secs = r.get("seconds")
    when = f", {secs:.0f} s" if secs else ""
    findings = (f"<details><summary>{n_heads} finding(s)</summary><ul>{heads}</ul></details>" if heads else "")
    return (f"<tr><td class='report'>{link}<div class='muted'>{e(str(r.get('_study')))}/{e(str(r.get('name')))} "
            f"&middot; <span class='{e(status)}'>{e(status)}</span>{when}</div></td>"
            f"<td>{note}{lead}{basis}{findings}</td></tr>")


def write_index(reports_dir: Path) -> Path:
    """Rebuild ``reports_dir/index.html`` from the run folders on disk."""
    reports_dir.mkdir(parents=True, exist_ok=True)
    path = reports_dir / "index.html"
    path.write_text(render_index(read_runs(reports_dir)), encoding="utf-8")
    return path
