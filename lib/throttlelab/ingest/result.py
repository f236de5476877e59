"""Result objects of the ingest layer: what was read, and what was skipped and why."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # polars is imported lazily where it is used
    import polars as pl

#: Longest excerpt of a bad line kept in a skip example (characters).
EXCERPT_CHARS = 80
#: Examples kept per skip reason.
EXAMPLES_PER_REASON = 3


def excerpt(text: str | None) -> str:
    """A short, printable excerpt of a line for messages."""
    if text is None:
        return ""
    text = text if len(text) <= EXCERPT_CHARS else text[:EXCERPT_CHARS] + f"... ({len(text)} chars)"
    return repr(text)


@dataclass(frozen=True)
class Skip:
    """One skipped input line: where, why, and what it looked like."""

    path: str
    line: int | None
    reason: str
    excerpt: str = ""

    def __str__(self) -> str:
        where = self.path if self.line is None else f"{self.path}:{self.line}"
        return f"{where}: {self.reason}" + (f": {self.excerpt}" if self.excerpt else "")


@dataclass(frozen=True)
class SkipReport:
    """Lines that were not used, counted per reason, with the first examples.

    Attributes
    ----------
    counts
        reason -> number of input lines skipped for that reason.
    examples
        reason -> the first few skipped lines (file, line, excerpt).
    first
        The earliest problem in input order (what ``--strict`` stops at).
    """

    counts: dict[str, int] = field(default_factory=dict)
    examples: dict[str, tuple[Skip, ...]] = field(default_factory=dict)
    first: Skip | None = None

    @property
    def total(self) -> int:
        return sum(self.counts.values())

    def __bool__(self) -> bool:
        return self.first is not None

    def merge(self, other: SkipReport) -> SkipReport:
        counts = dict(self.counts)
        examples = {k: tuple(v) for k, v in self.examples.items()}
        for k, v in other.counts.items():
            counts[k] = counts.get(k, 0) + v
        for k, v in other.examples.items():
            examples[k] = (examples.get(k, ()) + tuple(v))[:EXAMPLES_PER_REASON]
        return SkipReport(counts, examples, self.first or other.first)

    def summary(self, unit: str = "lines") -> str:
        """Human-readable per-reason summary, one reason per line (``unit``: what is counted)."""
        if not self.counts and self.first is None:
            return "nothing skipped"
        out = []
        for reason, n in sorted(self.counts.items(), key=lambda kv: (-kv[1], kv[0])):
            out.append(f"  {n:>9,d} {unit}: {reason}")
            out.extend(f"      e.g. {s}" for s in self.examples.get(reason, ()))
        if not self.counts and self.first is not None:
            out.append(f"  {self.first}")
        return "\n".join(out)

    def to_frame(self) -> pl.DataFrame:
        """One row per reason: ``reason``, ``lines``, ``first_example``."""
        import polars as pl

        rows = [
            {
                "reason": r,
                "lines": n,
                "first_example": str(self.examples[r][0]) if self.examples.get(r) else None,
            }
            for r, n in sorted(self.counts.items(), key=lambda kv: (-kv[1], kv[0]))
        ]
        return pl.DataFrame(rows, schema={"reason": pl.String, "lines": pl.Int64, "first_example": pl.String})


@dataclass(frozen=True)
class IngestResult:
    """What one or more input files yielded.

    Attributes
    ----------
    table
        Name of the canonical table in ``frame`` (``samples``, ``requests`` or ``timings``).
    frame
        The rows read, conforming to ``table``.
    skipped
        Lines not used, per reason (see :class:`SkipReport`).
    lines_total
        Input lines seen (a last line without a newline counts).
    lines_used
        Lines that went into ``frame`` or were structure (headers, section
        markers, blank separators).  ``lines_used + skipped.total == lines_total``.
    sources
        Input files, in the order read.
    unit
        What ``lines_*`` and the skip counts count: ``"lines"`` for line formats;
        ``"values"`` for whole-document JSON (Prometheus, k6 summary), where
        each value or metric statistic is an item.
    notes
        How the input was read, for the output's metadata (for example
        ``naive_timestamps_tz``: the zone times without one were read in).
    """

    table: str
    frame: pl.DataFrame
    skipped: SkipReport
    lines_total: int
    lines_used: int
    sources: tuple[str, ...] = ()
    unit: str = "lines"
    notes: dict[str, str] = field(default_factory=dict)

    @property
    def samples(self) -> pl.DataFrame:
        """The samples table (empty with the right schema if this is not a samples result)."""
        if self.table == "samples":
            return self.frame
        from throttlelab import tables

        return tables.empty("samples")

    def intervals(self) -> pl.DataFrame:
        """The canonical intervals between consecutive samples (see :mod:`.intervals`)."""
        from throttlelab.ingest.intervals import intervals

        return intervals(self.samples)

    def merge(self, other: IngestResult) -> IngestResult:
        """Concatenate two results of the same table."""
        import polars as pl

        if other.table != self.table:
            raise ValueError(f"cannot merge {self.table} with {other.table}")
        return IngestResult(
            self.table,
            pl.concat([self.frame, other.frame], how="vertical"),
            self.skipped.merge(other.skipped),
            self.lines_total + other.lines_total,
            self.lines_used + other.lines_used,
            self.sources + other.sources,
            self.unit if self.unit == other.unit else "items",
            {**self.notes, **other.notes},
        )

    def to_dict(self) -> dict[str, Any]:
        """Counts for results.json (no frames)."""
        return {
            "table": self.table,
            "rows": self.frame.height,
            "lines_total": self.lines_total,
            "lines_used": self.lines_used,
            "lines_skipped": self.skipped.total,
            "skipped": dict(self.skipped.counts),
            "sources": list(self.sources),
            "unit": self.unit,
            "notes": dict(self.notes),
        }
