"""cgroup folders: the one reader of cgroup files; a v1 or v2 directory's CPU files read as one monitor sample."""

from throttlelab.ingest.cgroup.cgroup_dir import read_cgroup_dir
from throttlelab.ingest.cgroup.cgroup_reader import CpuFiles, read_cgroup_file, read_cpu_files

__all__ = [
    'CpuFiles', 'read_cgroup_dir', 'read_cgroup_file', 'read_cpu_files'
]
