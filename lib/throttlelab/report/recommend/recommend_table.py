"""The terminal table of ``throttlelab recommend``: fits the terminal's width, colours raise, lower and keep.

Drawn with :mod:`rich`, imported here only (the command line imports this module when it prints, so
``throttlelab --help`` stays light).  The columns are the decision table's
(:func:`~throttlelab.analysis.rightsizing.rightsizing_views.decision_table`): the workload container, the decision
and request and limit now and new always; the intervals, usage and throttling columns join, in that order, while
the table still fits.  Colour only on a terminal, and never with ``NO_COLOR`` set (rich's own detection).
"""

from __future__ import annotations

import io

from throttlelab.core.quantities import parse_cores

#: Always shown, in this order (the workload column joins namespace, kind, name and container).
CORE = ("workload container", "decision", "request now", "request new", "limit now", "limit new", "throttled")
#: Shown while the table fits, in this order.
OPTIONAL = ("pods", "limit 90% interval", "request 90% interval", "usage p95", "p95 5-min", "throttled s/h", "pod-hours",
            "usage max", "KRR-style request", "VPA-style request", "VPA-style limit")
RIGHT = {"pods", "request now", "request new", "limit now", "limit new", "throttled", "usage p95", "usage max",
         "p95 5-min", "throttled s/h", "pod-hours", "KRR-style request", "VPA-style request", "VPA-style limit"}
#: Headers on two lines, so the number columns stay narrow.
HEADS = {"request now": "request\nnow", "request new": "request\nnew", "limit now": "limit\nnow",
         "limit new": "limit\nnew", "throttled": "throttled\nnow", "request 90% interval": "request\n90% interval",
         "limit 90% interval": "limit\n90% interval", "usage p95": "usage\np95", "usage max": "usage\nmax",
         "p95 5-min": "throttled\np95 5-min", "throttled s/h": "throttled\ns/h", "pod-hours": "pod-\nhours",
         "KRR-style request": "KRR-style\nrequest", "VPA-style request": "VPA-style\nrequest",
         "VPA-style limit": "VPA-style\nlimit", "workload container": "workload container"}
#: Style of a decision, and of a new number against the current one.
STYLES = {"raise": "bold red", "lower": "green", "keep": "cyan", "other": "yellow", "none": "dim"}


def direction(now: str, new: str) -> str:
    """``raise``, ``lower``, ``keep``, ``other`` (from or to no value) or ``none`` (no decision), of two cells.

    >>> direction("500m", "2000m*"), direction("4000m", "600m"), direction("1000m", "keep"), direction("none", "860m")
    ('raise', 'lower', 'keep', 'other')
    """
    if new == "keep" or new == now:
        return "keep"
    if new in ("?", ""):
        return "none"
    if now == "none" or new == "none":
        return "other"
    a, b = parse_cores(now, allow_zero=True), parse_cores(new.rstrip("*"), allow_zero=True)
    return "raise" if b > a else "lower" if b < a else "keep"


def decision_style(decision: str) -> str:
    """The colour of a decision cell."""
    kind = ("raise" if decision.startswith("raise") else "lower" if decision.startswith("lower") else
            "keep" if decision.startswith("keep") else "none" if decision == "too little data" else "other")
    return STYLES[kind]


def console(*, file=None, width: int | None = None, color: bool | None = None):
    """A rich console on ``file`` (default stdout): colour and width from the terminal unless given."""
    from rich.console import Console

    kw = {} if color is None else ({"force_terminal": True} if color else {"no_color": True, "color_system": None})
    return Console(file=file, width=width, highlight=False, **kw)


def build_table(table, width: int):
    """The rich table of a decision frame, with as many optional columns as fit ``width`` characters."""
    from rich.measure import Measurement
    from rich.table import Table

    from rich import box

    rows = [dict(zip(table.columns, map(str, row))) for row in table.iter_rows()]
    for r in rows:
        r["workload container"] = f"{r['namespace']}/{r['workload']}/{r['container']}"
    longest = max((len(r["workload container"]) for r in rows), default=8)

    def make(cols):
        t = Table(show_edge=False, pad_edge=False, box=box.SIMPLE_HEAD, header_style="bold", expand=False,
                  padding=(0, 1), collapse_padding=True)
        for c in cols:
            wide = c == "workload container"
            t.add_column(HEADS.get(c, c), justify="right" if c in RIGHT else "left",
                         no_wrap=c not in ("workload container", "decision"), overflow="fold",
                         min_width=min(longest, 16) if wide else None)
        for r in rows:
            cells = []
            for c in cols:
                v = r[c]
                style = (decision_style(v) if c == "decision" else
                         STYLES[direction(r[c.replace("new", "now")], v)] if c.endswith(" new") else "")
                cells.append(f"[{style}]{_escape(v)}[/]" if style else _escape(v))
            t.add_row(*cells)
        return t

    from rich.console import Console

    probe = Console(width=10_000, file=io.StringIO())
    cols = [c for c in CORE]
    for extra in OPTIONAL:
        trial = cols + [extra]
        if Measurement.get(probe, probe.options, make(_ordered(trial))).maximum > width:
            break
        cols = trial
    return make(_ordered(cols))


def _ordered(cols: list[str]) -> list[str]:
    """Columns in reading order: intervals beside their numbers, the rest after."""
    order = ["workload container", "pods", "pod-hours", "decision", "request now", "request new", "request 90% interval",
             "limit now", "limit new", "limit 90% interval", "throttled", "p95 5-min", "throttled s/h", "usage p95",
             "usage max", "KRR-style request", "VPA-style request", "VPA-style limit"]
    return [c for c in order if c in cols]


def _escape(text: str) -> str:
    from rich.markup import escape

    return escape(text)


def print_table(table, reasons: list[str], *, header: str, file=None, width: int | None = None,
                color: bool | None = None, footnote: str = "") -> None:
    """Print the header lines, the table, ``footnote`` (when a cell carries ``*``) and one reason per container.

    ``file=None`` prints to stdout; ``color=None`` and ``width=None`` follow the output (colour on a terminal without
    ``NO_COLOR``; the terminal's width, or ``COLUMNS``, else 80).
    """
    from rich.padding import Padding
    from rich.text import Text

    con = console(file=file, width=width, color=color)
    for line in header.splitlines():
        con.print(Text(line), soft_wrap=True)
    con.print()
    con.print(build_table(table, con.width))
    if footnote and any("*" in str(v) for row in table.iter_rows() for v in row):
        con.print(Text(footnote, style="dim"))
    con.print()
    con.print("Why:")
    for r in reasons:
        con.print(Padding(Text(r), (0, 0, 0, 2), expand=False))


def table_text(table, reasons: list[str], *, header: str, width: int = 120, footnote: str = "") -> str:
    """:func:`print_table` as plain text (no colour), ``width`` characters wide: what ``--output`` writes."""
    buf = io.StringIO()
    print_table(table, reasons, header=header, file=buf, width=width, color=False, footnote=footnote)
    return "".join(line.rstrip() + "\n" for line in buf.getvalue().splitlines())
