"""A one-node Kubernetes cluster on this machine: control plane, containerd, a real kubelet, Prometheus.

Standard library only (it runs before the project's venv exists).  Modules:

layout
    Where everything lives (one state folder outside the repo), ports, addresses.
prereq
    What the node needs, checked up front; one actionable line per problem.
procs
    Starting processes that die with their parent (``PR_SET_PDEATHSIG``).
configs, pki, images
    Config files, certificates (openssl), OCI images imported into containerd.
api
    The few Kubernetes API calls the set-up makes (urllib).
supervisor
    The long-lived process owning every component; stops them all on SIGTERM
    or when its own parent dies (attached mode).
leftovers
    Finding and removing what an earlier (killed) run left: processes, mounts,
    cgroups, interfaces, files outside the state folder.
cli
    ``up``, ``down``, ``status``.
"""
