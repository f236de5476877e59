"""A latency point's placement on the cluster, without a cluster: counters and the neighbour's CPU from fixture
cgroup folders, clean-up of this point's objects only, and a one-line error when no cluster is there.

The API server is stood in for by a small in-memory store (these tests run where the node cannot); the
placement on real pods is in test_node.py.
"""

from __future__ import annotations

from types import SimpleNamespace as NS

import pytest

from throttlelab.errors import EnvironmentProblem
from throttlelab.experiment.kubernetes import latency_pods as lp
from throttlelab.experiment.kubernetes.pod_placement import RUN_LABEL, PodPlacement, StressPods


def _cgroup(root, uid: str, cid: str, *, throttled: int, usage_ns: int, quota: int = 50000) -> tuple:
    cpu = root / "cpu" / "kubepods" / "burstable" / f"pod{uid}" / cid
    acct = root / "cpuacct" / "kubepods" / "burstable" / f"pod{uid}" / cid
    cpu.mkdir(parents=True)
    acct.mkdir(parents=True)
    (cpu / "cpu.stat").write_text(f"nr_periods 100\nnr_throttled {throttled}\nthrottled_time 1500000000\n")
    (cpu / "cpu.cfs_quota_us").write_text(f"{quota}\n")
    (cpu / "cpu.cfs_period_us").write_text("100000\n")
    (acct / "cpuacct.usage").write_text(f"{usage_ns}\n")
    return cpu, acct


class Store:
    """The few CoreV1/AppsV1 calls a placement makes, over in-memory objects labelled by run."""

    def __init__(self, pods=(), deployments=(), services=()):
        self.pods = {p.metadata.name: p for p in pods}
        self.deployments = list(deployments)
        self.services = list(services)
        self.deleted: list[str] = []

    @staticmethod
    def _match(obj, sel: str) -> bool:
        key, _, value = sel.partition("=")
        return obj.metadata.labels.get(key) == value

    def list_namespaced_pod(self, ns, label_selector):
        return NS(items=[p for p in self.pods.values() if self._match(p, label_selector)])

    def list_namespaced_deployment(self, ns, label_selector):
        return NS(items=[d for d in self.deployments if self._match(d, label_selector)])

    def list_namespaced_service(self, ns, label_selector):
        return NS(items=[s for s in self.services if self._match(s, label_selector)])

    def read_namespaced_pod(self, name, ns):
        return self.pods[name]

    def delete_namespaced_pod(self, name, ns, **kw):
        self.deleted.append(f"pod/{name}")
        self.pods.pop(name, None)

    def delete_namespaced_deployment(self, name, ns, **kw):
        self.deleted.append(f"deployment/{name}")

    def delete_namespaced_service(self, name, ns):
        self.deleted.append(f"service/{name}")


def _obj(name: str, run: str, **extra):
    return NS(metadata=NS(name=name, labels={RUN_LABEL: run}, deletion_timestamp=None, uid=f"uid-{name}"), **extra)


def test_counters_come_from_the_service_cgroup(tmp_path):
    dirs = _cgroup(tmp_path, "u1", "abc", throttled=30, usage_ns=2_500_000_000)
    p = PodPlacement("r1", 0.5)
    assert p.counters() is None  # no service yet
    p._service = NS(cgroup=lambda: dirs)
    c = p.counters()
    assert (c.nr_periods, c.nr_throttled, c.cpu_seconds, c.cpu_max) == (100, 30, 2.5, "50000 100000")
    p._service = NS(cgroup=lambda: None)  # the container's folder is gone
    assert p.counters() is None


def test_labels_name_the_point():
    assert PodPlacement("r9", None).labels == {"app.kubernetes.io/managed-by": "throttlelab", RUN_LABEL: "r9"}


@pytest.mark.parametrize("share, workers", [(0.0, 2), (0.5, 0)])
def test_no_neighbour_creates_nothing(share, workers):
    placement = PodPlacement("r1", 1.0, core=None)  # any API call would fail
    with StressPods(placement, share, workers) as s:
        assert s.mode == "none"
    assert s.cpu_seconds is None


def test_neighbour_cpu_is_read_from_its_cgroup_then_the_pod_is_deleted(tmp_path, monkeypatch):
    monkeypatch.setattr(lp, "CGROUP", tmp_path)
    _cgroup(tmp_path, "uid-tl-stress-r1", "c0ffee", throttled=80, usage_ns=4_000_000_000, quota=100000)
    pod = _obj("tl-stress-r1", "r1", status=NS(container_statuses=[NS(container_id="containerd://c0ffee")]))
    store = Store(pods=[pod])
    s = StressPods(PodPlacement("r1", 1.0, core=store), 0.5, 2, _name="tl-stress-r1")
    s.__exit__(None, None, None)
    assert s.cpu_seconds == 4.0 and store.deleted == ["pod/tl-stress-r1"]


def test_neighbour_without_a_cgroup_still_gets_deleted(tmp_path, monkeypatch):
    monkeypatch.setattr(lp, "CGROUP", tmp_path)  # empty: the container's folder is gone
    pod = _obj("tl-stress-r2", "r2", status=NS(container_statuses=None))
    store = Store(pods=[pod])
    s = StressPods(PodPlacement("r2", 1.0, core=store), 0.5, 2, _name="tl-stress-r2")
    s.__exit__(None, None, None)
    assert s.cpu_seconds is None and store.deleted == ["pod/tl-stress-r2"]


def test_delete_all_removes_this_points_objects_only():
    store = Store(pods=[_obj("svc-a", "r1"), _obj("svc-b", "r2")], deployments=[_obj("dep-a", "r1"), _obj("dep-b", "r2")],
                  services=[_obj("s-a", "r1")])
    PodPlacement("r1", 1.0, core=store, apps=store).delete_all()
    assert sorted(store.deleted) == ["deployment/dep-a", "pod/svc-a", "service/s-a"]
    assert set(store.pods) == {"svc-b"}


def test_without_a_cluster_it_says_so_in_one_line(tmp_path, monkeypatch):
    monkeypatch.setenv("THROTTLELAB_NODE_KUBECONFIG", str(tmp_path / "missing.kubeconfig"))
    with pytest.raises(EnvironmentProblem) as err:
        PodPlacement("r1", 1.0).__enter__()
    assert "no one-node cluster" in str(err.value) and "make cluster-up" in str(err.value)
    assert "\n" not in str(err.value)
