"""Experiment layer: run CPU-limit x thread-count sweeps and record them.

Modules (import them directly; this package imports nothing heavy):

``spec``        :class:`~.spec.SweepSpec` from YAML (:func:`~.spec.load_spec`), expanded by ``plan()``
``spec_values`` parsers of a spec's values (:func:`~.spec_values.parse_cores`, limits, threads ...)
``plan``        :class:`~.plan.RunPlan`, :class:`~.plan.Workload`, :class:`~.plan.Contention`; run ids
``backend``     the :class:`~.backend.Backend` protocol and :func:`~.backend.get_backend`
``run_store``   append-only runs table + monitor logs under ``data/raw/<experiment>/``
``sweep``       :func:`~.sweep.run_sweep`: resume, progress bar, cleanup on Ctrl-C/SIGTERM
``local``       the cgroup backend (:func:`~.local.local_backend_available`)
``cgroups``     one CPU cgroup: create, limit, join, read counters, remove
``cgroup_layout``  cgroup v1/v2 detection (:func:`~.cgroup_layout.detect_layout`)
``cgroup_orphans`` owner folders named after their process; orphans removed
``cgroup_files``   cgroupfs file I/O and folder removal
``neighbour``   :class:`~.neighbour.NoisyNeighbour`, busy workers capped at a CPU share
``workloads``   ffmpeg, native burner, Go spinner, user command
``process``     start a command inside a cgroup (joins before exec), wait4 rusage
``sampler``     the monitor sampler (writes the ingest monitor-log format)
``kubernetes``  the Kubernetes backend (separate subpackage)
"""
