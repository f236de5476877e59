"""What a user must not read in a report: our working notes, issue numbers, script names, empty sections.

:func:`page_problems` reads a report's HTML (scripts and styles left out) and
lists every developer note (:data:`DEVELOPER_NOTES`), every heading with a
notebook number or a "Setup" section, every heading with nothing under it,
every chart caption with no chart, and every "Not run" line outside the one
collapsed line the report gathers them into.  The provenance table (the
inputs and the notebook's path, for reproducing the report) is not scanned.

Examples
--------
>>> page_problems("<h2>Setup</h2><p>Imports, the output folder.</p><h2>Noise per limit (issue 12)</h2><p>x</p>")
['developer note: issue 12', 'a Setup section']
>>> page_problems("<h2>Results</h2><h2>Active time</h2><p>What the chart shows: x</p>")
['empty section: Results', 'a chart caption with no chart: What the chart shows: x']
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

#: Our working notes, by what gives them away.
DEVELOPER_NOTES = {
    "issue number": r"\bissues? #?\d+",
    "script name": r"\b(?:bench|scripts|tests)/[\w./-]+\.py\b|\bbench_\w+\.py\b",
    "notebook name": r"\b0\d_[a-z]+(?:_[a-z]+)*\b",
    "earlier version": r"\b(?:the earlier|was too liberal|Change to the published headline|this changes the earlier|"
                       r"This replaces the earlier|now primary)\b",
}
_CAPTION = re.compile(r"\b(?:what (?:the|each) chart shows|the chart shows)\b", re.I)
_NUMBERED = re.compile(r"^\s*\d\d\s*·")


class _Page(HTMLParser):
    """A report as a sequence of ``(kind, text)``: ``heading<level>``, ``text``, ``chart``, ``table``."""

    SKIP = {"script", "style", "template"}

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.events: list[tuple[str, str]] = []
        self.skip = 0
        self.heading: str | None = None
        self.details: list[str] = []  # class of each open <details>
        self.summary = False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        cls = a.get("class") or ""
        if tag in self.SKIP:
            self.skip += 1
        elif tag == "details":
            self.details.append(cls)
        elif tag == "summary":
            self.summary = True
        elif re.fullmatch(r"h[1-6]", tag) and not self.skip:
            self.heading = tag[1]
            self.events.append((f"heading{tag[1]}", ""))
        elif (("tl-chart" in cls) or tag in ("img", "svg", "canvas")) and not self.skip:
            self.events.append(("chart", ""))
        elif tag == "table" and not self.skip:
            self.events.append(("table", ""))

    def handle_endtag(self, tag):
        if tag in self.SKIP:
            self.skip = max(0, self.skip - 1)
        elif tag == "details" and self.details:
            self.details.pop()
        elif tag == "summary":
            self.summary = False
        elif re.fullmatch(r"h[1-6]", tag):
            self.heading = None

    def handle_data(self, data):
        text = data.strip()
        if self.skip or not text or text == "¶":
            return
        if self.summary and text == "Provenance":
            self.details[-1] += " provenance"
        if any("provenance" in d for d in self.details):
            return
        if self.heading is not None:
            kind, old = self.events[-1]
            self.events[-1] = (kind, f"{old} {text}".strip())
        else:
            collapsed = next((d for d in reversed(self.details)), None)
            self.events.append(("text" if collapsed is None else f"text:{collapsed}", text))


def visible_text(html: str) -> str:
    """The page's text, one block per line (no scripts, no styles, no provenance table)."""
    p = _Page()
    p.feed(html)
    return "\n".join(t for _, t in p.events if t)


def page_problems(html: str) -> list[str]:
    """Developer notes, Setup sections, numbered headings, empty sections, captions without charts, loose "Not run"."""
    p = _Page()
    p.feed(html)
    text = "\n".join(t for _, t in p.events if t)
    out = []
    for what, pattern in DEVELOPER_NOTES.items():
        out += [f"developer note: {m.group(0)}" for m in re.finditer(pattern, text, flags=re.I)]
    events = p.events
    for i, (kind, t) in enumerate(events):
        if kind.startswith("heading"):
            level = int(kind[-1])
            if t == "Setup":
                out.append("a Setup section")
            if _NUMBERED.match(t):
                out.append(f"a notebook number in a heading: {t}")
            nxt = next((k for k, _ in events[i + 1:] if not (k.startswith("heading") and int(k[-1]) > level)), None)
            if nxt is None or nxt.startswith("heading"):
                out.append(f"empty section: {t}")
        elif kind == "text" and _CAPTION.search(t):
            rest = events[i + 1:]
            end = next((j for j, (k, later) in enumerate(rest) if k.startswith("heading") or
                        (k == "text" and _CAPTION.search(later))), len(rest))
            if not any(k == "chart" for k, _ in rest[:end]):
                out.append(f"a chart caption with no chart: {t[:60]}")
        elif kind == "text" and t.startswith("Not run"):
            out.append(f"a 'Not run' line outside the collapsed list: {t[:60]}")
    return out
