"""The kernel judges ``recommend`` on the real one-node cluster: a short ladder's truth against round one.

Two Deployments of the burst workload at settings users give them: ``duty-cycle``
(one thread busy 25 ms of 100 ms under a 100m limit: throttled in most periods,
its demand censored) and ``burst-together`` (4 threads bursting together each
100 ms under 500m: moderately throttled).  While a 5-minute production window
runs, a twin of each (same spec, another namespace) is resized in place through
a 4-rung ladder, one workload at a time, and the kernel's ``cpu.stat`` gives the
true limit (isotonic crossing of 5%; a rung or two more when the crossing lies
outside).  Then the real CLI, as a user runs it, recommends from the cluster's
Prometheus.  Its interval must hold the kernel's truth, and round one must be
0.7-2.0 times it: "throttling removed", which any large limit passes, proves
nothing.  The tight bands belong to ``bench/bench_kernel_truth.py``.
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time

import pytest

import throttlelab.experiment.kubernetes as kube
from throttlelab.analysis.rightsizing import ladder_truth
from throttlelab.experiment.kubernetes import PANEL, PANEL_CONTAINER

from .cluster_helpers import scratch_namespace

pytestmark = [pytest.mark.node, pytest.mark.slow]

#: each workload's 4 rungs (cores), around its truth on this machine
RUNGS = {"duty-cycle": (0.2, 0.26, 0.33, 0.42), "burst-together": (0.45, 0.55, 0.65, 0.8)}
RUNG_S, WINDOW_S = 55, 300


def _truths(core, apps, ns: str, out: dict) -> None:
    for name, rungs in RUNGS.items():
        w = PANEL[name]
        twin = kube.deploy(apps, ns, w, name=f"{name}-twin")
        kube.wait_rolled_out(apps, core, ns, [twin])
        rows = kube.run_ladder(core, ns, f"app={twin}", PANEL_CONTAINER, list(rungs), request_cores=w.request_cores,
                               step_s=RUNG_S)
        fit = ladder_truth([r.limit_cores for r in rows], [r.throttled for r in rows], [r.periods for r in rows])
        if fit.status != "inside":  # extend the ladder by one rung (never extrapolate)
            more = [rungs[-1] * 1.3] if fit.status == "above ladder" else [rungs[0] * 0.7]
            rows += kube.run_ladder(core, ns, f"app={twin}", PANEL_CONTAINER, more, request_cores=w.request_cores,
                                    step_s=RUNG_S)
            fit = ladder_truth([r.limit_cores for r in rows], [r.throttled for r in rows], [r.periods for r in rows])
        apps.delete_namespaced_deployment(twin, ns)
        out[name] = fit


def test_round_one_is_judged_by_the_kernels_ladder(node_cluster):
    from kubernetes import client, config

    api = config.new_client_from_config(config_file=str(node_cluster.kubeconfig))
    core, apps = client.CoreV1Api(api), client.AppsV1Api(api)
    prod, twins = scratch_namespace(core, "tl-judge"), scratch_namespace(core, "tl-ladder")
    truths: dict = {}
    try:
        for name in RUNGS:
            kube.deploy(apps, prod, PANEL[name])
        kube.wait_rolled_out(apps, core, prod, list(RUNGS))
        ladder = threading.Thread(target=_truths, args=(core, apps, twins, truths))
        ladder.start()
        time.sleep(WINDOW_S)
        end = int(time.time())
        res = subprocess.run([sys.executable, "-m", "throttlelab", "recommend", "--prometheus", node_cluster.prometheus,
                              "--namespace", prod, "--since", "5m", "--end", str(end), "--step", "10s",
                              "--min-history", "2m", "--format", "json"], capture_output=True, text=True, timeout=300)
        assert res.returncode == 0, res.stderr
        data = json.loads(res.stdout)
        rows = {r["workload"]: r for r in (data["rows"] if isinstance(data, dict) else data)}
        ladder.join(timeout=900)
        for name, fit in truths.items():
            r = rows[name]
            print(f"\n{name}: truth {fit.limit_cores} ({fit.low}-{fit.high}, {fit.status}); recommend "
                  f"{r['recommended_limit_cores']} ({r['recommended_limit_low']}-{r['recommended_limit_high']}), "
                  f"{r['limit_basis']}, throttled {r['throttled_ratio']:.0%} at {r['current_limit_cores']}")
        assert rows["duty-cycle"]["demand_censored"] and not rows["burst-together"]["demand_censored"], rows
        for name, fit in truths.items():
            r = rows[name]
            assert fit.status == "inside", (name, fit)
            low, high = r["recommended_limit_low"], r["recommended_limit_high"]
            assert low <= fit.limit_cores <= (high if high is not None else r["node_cores"]), (name, fit, r)
            assert 0.7 <= r["recommended_limit_cores"] / fit.limit_cores <= 2.0, (name, fit, r)
    finally:
        kube.delete_namespace(core, prod)
        kube.delete_namespace(core, twins)
        api.close()
