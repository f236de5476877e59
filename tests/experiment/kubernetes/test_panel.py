"""Tests of throttlelab.experiment.kubernetes.panel: the panel's workloads as Deployments at users' settings."""

from __future__ import annotations

from throttlelab.experiment.kubernetes import PANEL
from throttlelab.experiment.kubernetes.manifests import burst_image


def test_each_workload_is_a_deployment_of_its_shape_at_its_current_setting_resizable_in_place():
    for name, w in PANEL.items():
        d = w.deployment()
        [c] = d["spec"]["template"]["spec"]["containers"]
        assert d["metadata"]["name"] == name and d["spec"]["selector"]["matchLabels"] == {"app": name}
        assert c["image"] == burst_image() and c["imagePullPolicy"] == "Never"
        assert ("limits" in c["resources"]) == (w.limit_cores is not None)
        assert c["resizePolicy"] == [{"resourceName": "cpu", "restartPolicy": "NotRequired"}]
        assert list(w.ladder) == sorted(w.ladder) and len(w.ladder) >= 6


def test_the_panel_covers_starved_moderately_throttled_and_no_limit():
    assert PANEL["duty-cycle"].limit_cores == 0.1  # about a quarter core of demand: starved
    assert PANEL["idle-sidecar"].limit_cores is None
    c = PANEL["burst-together"].container(limit_cores=2.0, request_cores=1.0)
    assert c["resources"] == {"requests": {"cpu": "1000m"}, "limits": {"cpu": "2000m"}}
