"""Counting skipped input lines per reason while a reader goes through a file.

Readers of line-oriented formats (k6, Prometheus, ``time`` output) add every
line they cannot use with its reason; :meth:`SkipCounter.report` turns that into
the :class:`~throttlelab.ingest.result.SkipReport` kept with the result, so
that every input line is either in the output or counted.
"""

from __future__ import annotations

from collections.abc import Iterator

from throttlelab.ingest.lines import LINE_REASONS, Lines
from throttlelab.ingest.result import EXAMPLES_PER_REASON, Skip, SkipReport, excerpt


class SkipCounter:
    """Collects skipped lines per reason (first examples kept)."""

    def __init__(self, source: str):
        self.source = source
        self.counts: dict[str, int] = {}
        self.examples: dict[str, list[Skip]] = {}
        self.first: Skip | None = None

    def add(self, line: int | None, reason: str, text: str | None = None) -> None:
        self.counts[reason] = self.counts.get(reason, 0) + 1
        s = Skip(self.source, line, reason, excerpt(text))
        ex = self.examples.setdefault(reason, [])
        if len(ex) < EXAMPLES_PER_REASON:
            ex.append(s)
        if self.first is None or (line or 0) < (self.first.line or 0):
            self.first = s

    def add_count(self, reason: str, n: int, examples: list[str] = ()) -> None:
        """``n`` skipped items of one reason at once (items without a line), with example texts."""
        if n <= 0:
            return
        self.counts[reason] = self.counts.get(reason, 0) + n
        ex = self.examples.setdefault(reason, [])
        for text in examples[: max(0, EXAMPLES_PER_REASON - len(ex))]:
            ex.append(Skip(self.source, None, reason, excerpt(text)))
        if self.first is None and ex:
            self.first = ex[0]

    def report(self) -> SkipReport:
        return SkipReport(dict(self.counts), {k: tuple(v) for k, v in self.examples.items()}, self.first)

    def merge(self, other: "SkipCounter") -> None:
        """Add ``other``'s counts and examples (several files read into one result)."""
        for reason, n in other.counts.items():
            self.counts[reason] = self.counts.get(reason, 0) + n
            self.examples.setdefault(reason, []).extend(other.examples[reason])
        self.first = self.first or other.first


def usable_lines(lines: Lines, skips: SkipCounter) -> Iterator[tuple[int, str]]:
    """``(line number, text)`` of every line a reader can look at.

    Lines with a file-level problem (binary, not UTF-8, too long, truncated) are
    counted in ``skips`` with their reason and not yielded.
    """
    codes = lines.problem_codes(lines.lengths())
    for n, (text, code) in enumerate(zip(lines.text, codes), start=1):
        if code:
            skips.add(n, LINE_REASONS[code], text)
        elif text is not None:
            yield n, text
