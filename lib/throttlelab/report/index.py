"""``reports/index.html``: every report with its status and headline findings."""

from __future__ import annotations

import datetime as dt
import html
import json
from pathlib import Path
from typing import Any

from throttlelab.report.html_export import inline

STYLE = """
body { font-family: system-ui, sans-serif; margin: 2em auto; padding: 0 1.5em; max-width: 60em; color: #222; }
h1 { margin-bottom: .2em; } h2 { margin-top: 1.5em; border-bottom: 1px solid #ddd; }
table { border-collapse: collapse; width: 100%; } td, th { padding: .4em .6em; border-bottom: 1px solid #eee; text-align: left; vertical-align: top; }
.ok { color: #1b6e20; } .failed { color: #b00020; font-weight: bold; } .skipped { color: #8a6d00; }
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


def render_index(studies: dict[str, list[dict[str, Any]]]) -> str:
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
    for study, runs in studies.items():
        title = next((r.get("study_title") for r in runs if r.get("study_title")), None)
        heading = f"{e(title)} <span class='muted'>({e(study)})</span>" if title else e(study)
        parts.append(f"<h2>{heading}</h2><table><tr><th>report</th><th>answer</th></tr>")
        for r in runs:
            status = str(r.get("status", "?"))
            title = e(str(r.get("title") or r.get("name")))
            link = f"<a href='{e(r['_href'])}report.html'>{title}</a>" if r.get("report") else title
            heads = "".join(f"<li>{inline(h)}</li>" for h in r.get("headlines") or [])
            n_heads = len(r.get("headlines") or [])
            note = ""
            if status == "skipped":
                note = f"<p class='skipped'>Not run on this machine: {e(str(r.get('error')))}</p>"
            elif status == "failed":
                note = f"<p class='failed'>Failed: {e(str(r.get('error')))}</p>"
            elif not r.get("answer") and not heads:
                note = "<p class='muted'>No answer recorded.</p>"
            lead = f"<p class='answer-lead'><strong>{inline(r['answer'])}</strong></p>" if r.get("answer") else ""
            basis = f"<p class='answer-basis'>Rests on: {inline(r['rests_on'])}</p>" if r.get("rests_on") else ""
            secs = r.get("seconds")
            when = f", {secs:.0f} s" if secs else ""
            parts.append(
                f"<tr><td class='report'>{link}<div class='muted'>{e(str(r.get('name')))} &middot; "
                f"<span class='{e(status)}'>{e(status)}</span>{when}</div></td>"
                f"<td>{note}{lead}{basis}" + (f"<details><summary>{n_heads} finding(s)</summary><ul>{heads}</ul></details>"
                                              if heads and lead else f"<ul>{heads}</ul>" if heads else "") + "</td></tr>"
            )
        parts.append("</table>")
    parts.append("</body></html>")
    return "\n".join(parts)


def write_index(reports_dir: Path) -> Path:
    """Rebuild ``reports_dir/index.html`` from the run folders on disk."""
    reports_dir.mkdir(parents=True, exist_ok=True)
    path = reports_dir / "index.html"
    path.write_text(render_index(read_runs(reports_dir)), encoding="utf-8")
    return path
