"""Config files of the node: the settings this VM needs (FIELD-NOTES) are there."""

from __future__ import annotations

import json

from tlnode import configs
from tlnode.layout import NODE_IP, PAUSE_IMAGE


def test_kubelet_config_has_what_this_vm_needs(layout):
    cfg = json.loads(configs.kubelet_config(layout).read_text())
    assert cfg["failCgroupV1"] is False and cfg["failSwapOn"] is False
    assert cfg["makeIPTablesUtilChains"] is False and cfg["cgroupDriver"] == "cgroupfs"
    assert (cfg["imageGCHighThresholdPercent"], cfg["imageGCLowThresholdPercent"]) == (100, 99)
    assert cfg["address"] == NODE_IP and cfg["authentication"]["anonymous"]["enabled"] is False
    assert cfg["podLogsDir"].startswith(str(layout.state))
    argv = configs.kubelet_argv(layout, layout.run / "k.json")
    assert "--housekeeping-interval=1s" in argv and f"--node-ip={NODE_IP}" in argv


def test_containerd_config_keeps_state_in_the_state_folder(layout):
    text = configs.containerd_config(layout).read_text()
    for needed in ("restrict_oom_score_adj = true", "disable_apparmor = true", "SystemdCgroup = false",
                   f'sandbox_image = "{PAUSE_IMAGE}"'):
        assert needed in text
    for line in text.splitlines():
        if line.strip().startswith(("root =", "state =", 'address = "/', "Root =", "conf_dir =")):
            assert str(layout.state) in line, line


def test_cni_has_no_masquerade_and_keeps_ipam_state_inside(layout):
    conf = json.loads(configs.cni_config(layout).read_text())
    bridge = conf["plugins"][0]
    assert bridge["ipMasq"] is False and bridge["ipam"]["dataDir"].startswith(str(layout.state))


def test_prometheus_scrapes_cadvisor_and_resource_every_few_seconds(layout):
    cfg = json.loads(configs.prometheus_config(layout).read_text())
    paths = {j["metrics_path"]: j for j in cfg["scrape_configs"]}
    assert set(paths) == {"/metrics/cadvisor", "/metrics/resource"}
    for job in paths.values():
        assert job["tls_config"]["insecure_skip_verify"] is True
        assert int(job["scrape_interval"].rstrip("s")) <= 5
