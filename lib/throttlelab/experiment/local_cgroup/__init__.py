"""The local cgroup backend: CPU cgroups on this machine, workloads, the sampler, neighbours, the load generator."""

from throttlelab.experiment.local_cgroup.cgroup_layout import WHAT_IS_NEEDED, CgroupLayout, detect_layout
from throttlelab.experiment.local_cgroup.cgroups import Cgroup, Counters
from throttlelab.experiment.local_cgroup.loadgen import (
    ClosedLoop, Labels, LoadResult, OpenLoop, require_loopback, run_load
)
from throttlelab.experiment.local_cgroup.local_backend import LocalBackend, local_backend_available
from throttlelab.experiment.local_cgroup.monitor_sampler import MonitorSampler
from throttlelab.experiment.local_cgroup.neighbour import NoisyNeighbour
from throttlelab.experiment.local_cgroup.service_load import check_service_spec, drive_service, service_options
from throttlelab.experiment.local_cgroup.workloads import build_command

__all__ = [
    'WHAT_IS_NEEDED', 'Cgroup', 'CgroupLayout', 'ClosedLoop', 'Counters', 'Labels', 'LoadResult', 'LocalBackend',
    'MonitorSampler', 'NoisyNeighbour', 'OpenLoop', 'build_command', 'check_service_spec', 'detect_layout',
    'drive_service', 'local_backend_available', 'require_loopback', 'run_load', 'service_options'
]
