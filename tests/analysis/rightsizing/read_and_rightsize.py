"""The tests' one call for a right-sizing: a request read (ingest) and recommended from (analysis), as the command does."""

from __future__ import annotations

from throttlelab.analysis.rightsizing import RightsizingRequest, rightsize_read
from throttlelab.ingest.prometheus import read_request


def rightsize_request(**request):
    """``rightsize_read(read_request(RightsizingRequest(**request)))``: the two calls of ``throttlelab recommend``."""
    return rightsize_read(read_request(RightsizingRequest(**request)))
