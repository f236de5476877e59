"""k6: NDJSON request points, stages and end-of-test summaries read into requests and summaries."""

from throttlelab.ingest.k6.k6 import read_k6_csv, read_k6_json
from throttlelab.ingest.k6.k6_stages import read_k6_with_stages
from throttlelab.ingest.k6.k6_summary import read_k6_summary

__all__ = [
    'read_k6_csv', 'read_k6_json', 'read_k6_summary', 'read_k6_with_stages'
]
