"""Local OCI images: archives containerd imports without a registry."""

from __future__ import annotations

import hashlib
import json
import tarfile

import pytest

from tlnode import images


def _members(path):
    with tarfile.open(path) as tar:
        return {m.name: (tar.extractfile(m).read() if m.isfile() else m) for m in tar.getmembers()}


def test_oci_archive_is_a_valid_image_layout(tmp_path):
    layer = images._layer({"bin/tool": b"\x7fELF..."}, {"bin/sh": "tool"})
    path = tmp_path / "img.tar"
    images.write_oci_archive(path, "throttlelab.local/x:1", layer, ["/bin/tool"])
    m = _members(path)
    assert json.loads(m["oci-layout"]) == {"imageLayoutVersion": "1.0.0"}
    index = json.loads(m["index.json"])
    desc = index["manifests"][0]
    assert desc["annotations"]["io.containerd.image.name"] == "throttlelab.local/x:1"
    manifest = json.loads(m[f"blobs/sha256/{desc['digest'][7:]}"])
    config = json.loads(m[f"blobs/sha256/{manifest['config']['digest'][7:]}"])
    assert config["config"]["Entrypoint"] == ["/bin/tool"]
    # every blob is named by its content's digest
    for name, data in m.items():
        if name.startswith("blobs/sha256/"):
            assert hashlib.sha256(data).hexdigest() == name.rsplit("/", 1)[1]
    layer_blob = m[f"blobs/sha256/{manifest['layers'][0]['digest'][7:]}"]
    assert config["rootfs"]["diff_ids"] == ["sha256:" + hashlib.sha256(layer_blob).hexdigest()]
    with tarfile.open(fileobj=__import__("io").BytesIO(layer_blob)) as t:
        names = {x.name: x for x in t.getmembers()}
    assert names["bin/sh"].issym() and names["bin/sh"].linkname == "tool"
    assert names["bin/tool"].mode == 0o755 and names["tmp"].isdir()


def test_archives_are_deterministic(tmp_path):
    a, b = tmp_path / "a.tar", tmp_path / "b.tar"
    for p in (a, b):
        images.write_oci_archive(p, "throttlelab.local/x:1", images._layer({"bin/t": b"x"}, {}), ["/bin/t"])
    assert a.read_bytes() == b.read_bytes()


@pytest.mark.skipif(not images.BUSYBOX.is_file(), reason="no busybox-static (make node-tools)")
def test_busybox_image_has_the_applets_the_sampler_needs(layout):
    arch = images.archives(layout)
    m = _members(arch[images.BUSYBOX_IMAGE])
    manifest_d = json.loads(m["index.json"])["manifests"][0]["digest"][7:]
    layer_d = json.loads(m[f"blobs/sha256/{manifest_d}"])["layers"][0]["digest"][7:]
    import io

    with tarfile.open(fileobj=io.BytesIO(m[f"blobs/sha256/{layer_d}"])) as t:
        names = set(t.getnames())
    assert {"bin/busybox", "bin/sh", "bin/date", "bin/sleep", "bin/tail"} <= names
    assert (layout.images / "pause").stat().st_size > 100_000  # the static Go pause was built
