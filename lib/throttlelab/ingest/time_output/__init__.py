"""GNU time output: one process's wall, user and system time read into runs."""

from throttlelab.ingest.time_output.time_output import read_time_output

__all__ = [
    'read_time_output'
]
