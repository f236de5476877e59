"""Published tables: the users' write-ups' numbers read into runs and results."""

from throttlelab.ingest.published.published import (
    load_contention, load_ffmpeg_sweep, load_go_active_time, load_mediamtx, load_semaphore,
    published_path
)
from throttlelab.ingest.published.published_runs import read_published_runs

__all__ = [
    'load_contention', 'load_ffmpeg_sweep', 'load_go_active_time', 'load_mediamtx', 'load_semaphore',
    'published_path', 'read_published_runs'
]
