"""cgroup folders: a cgroup v1 or v2 directory's CPU files read as one monitor sample."""

from throttlelab.ingest.cgroup.cgroup_dir import read_cgroup_dir

__all__ = [
    'read_cgroup_dir'
]
