"""The bundled right-sizing sample is what its generator writes (compared as decompressed text: gzip bytes vary)."""

import gzip
import hashlib
import importlib.util
from pathlib import Path

import pytest

SAMPLES = Path(__file__).resolve().parents[1] / "data" / "published" / "samples"


def _generator():
    spec = importlib.util.spec_from_file_location("make_recommend_sample", SAMPLES / "make_recommend_sample.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_the_bundled_export_has_the_hash_its_generator_states():
    with gzip.open(SAMPLES / "shop_namespace.om.gz", "rb") as fh:
        assert hashlib.sha256(fh.read()).hexdigest() == _generator().SHA256


@pytest.mark.slow
def test_the_generator_reproduces_the_bundled_export(tmp_path, capsys):
    gen = _generator()
    dest = tmp_path / "shop_namespace.om.gz"
    assert gen.main(str(dest)) == 0, capsys.readouterr().err
    with gzip.open(dest, "rb") as new, gzip.open(SAMPLES / "shop_namespace.om.gz", "rb") as old:
        assert hashlib.sha256(new.read()).hexdigest() == hashlib.sha256(old.read()).hexdigest()


def test_every_container_of_the_export_has_its_node_size():
    """The default report caps a limit at the node's size: every container's node has a machine_cpu_cores series."""
    import re

    with gzip.open(SAMPLES / "shop_namespace.om.gz", "rt") as fh:
        text = fh.read()
    nodes = set(re.findall(r'^container_cpu_usage_seconds_total\{[^}]*node="([^"]+)"', text, re.M))
    sized = dict(re.findall(r'^machine_cpu_cores\{node="([^"]+)"[^}]*\} (\S+) ', text, re.M))
    assert nodes and nodes <= set(sized), (nodes, sized)
    assert {n: float(c) for n, c in sized.items()} == {"node-0": 8.0, "node-1": 2.0}
