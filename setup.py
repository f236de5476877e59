"""The one compiled part of the package (everything else is in pyproject.toml): the monitor-log reader's loop.

Plain C without Python's API, loaded with ctypes (:mod:`throttlelab.ingest.monitor.monitor_scan`).  Optional:
without a C compiler the install goes on and the reader uses its polars pass.
"""

from setuptools import Extension, setup

setup(ext_modules=[Extension("throttlelab.ingest.monitor._scan", ["lib/throttlelab/ingest/monitor/_scan.c"],
                             extra_compile_args=["-O3"], optional=True)])
