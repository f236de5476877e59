"""Prometheus: text exposition, OpenMetrics, query JSON and a live server read into container series."""

from throttlelab.ingest.prometheus.container_cpu import ContainerCPU, Fetch, fetch_containers
from throttlelab.ingest.prometheus.prometheus import read_prometheus, read_prometheus_parts
from throttlelab.ingest.prometheus.prometheus_api import PrometheusAPI, parse_duration, parse_time
from throttlelab.ingest.prometheus.prometheus_local import (
    LocalPrometheus, prometheus_available, read_source, run_promtool
)
from throttlelab.ingest.prometheus.prometheus_text import looks_like_exposition
from throttlelab.ingest.prometheus.source_request import SourceRead, SourceRequest, read_request
from throttlelab.ingest.prometheus.workload_cpu import WorkloadCPU, single

__all__ = [
    'ContainerCPU', 'Fetch', 'LocalPrometheus', 'PrometheusAPI', 'SourceRead', 'SourceRequest', 'WorkloadCPU',
    'fetch_containers', 'looks_like_exposition', 'parse_duration', 'parse_time', 'prometheus_available',
    'read_prometheus', 'read_prometheus_parts', 'read_request', 'read_source', 'run_promtool', 'single'
]
