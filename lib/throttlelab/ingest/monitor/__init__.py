"""Monitor logs: the sampler's text blocks (cgroup counters, kubectl top) read into samples."""

from throttlelab.ingest.monitor.monitor_format import format_block, format_cpu_max, format_header
from throttlelab.ingest.monitor.monitor_log import looks_like_monitor, parse_monitor_text, read_monitor_log
from throttlelab.ingest.monitor.monitor_timestamps import local_zone

__all__ = [
    'format_block', 'format_cpu_max', 'format_header', 'local_zone', 'looks_like_monitor',
    'parse_monitor_text', 'read_monitor_log'
]
