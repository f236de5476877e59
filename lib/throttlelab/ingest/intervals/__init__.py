"""Intervals: rates between consecutive samples (the canonical intervals table), thinning, sums per limit."""

from throttlelab.ingest.intervals.intervals import intervals, summary_by_limit, thin_samples

__all__ = [
    'intervals', 'summary_by_limit', 'thin_samples'
]
