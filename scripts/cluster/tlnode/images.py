"""Workload images without a registry: OCI archives of static binaries, imported into containerd.

* ``throttlelab.local/pause:1``: our static Go ``pause`` (scripts/cluster/pause);
* ``throttlelab.local/busybox:1``: Debian's ``busybox-static`` with its applets as links
  (``/bin/sh``, ``date``, ``sleep``, ``tail`` ... all the sampler and the burner need);
* ``throttlelab.local/service:<hash>``: the busybox image plus the built-in Go HTTP service
  (``lib/throttlelab/experiment/assets/service/main.go``, static, at ``/bin/tl-service``): the
  ``service`` workload's pods.  The tag is the first 10 hex digits of the SHA-1 of that source,
  the key the local backend caches its build under
  (:func:`throttlelab.experiment.kubernetes.manifests.service_image`), so a changed source
  needs a new ``make cluster-up`` and never runs a stale binary;
* ``throttlelab.local/burst:<hash>``: the same for the burst workload (``assets/burst/main.go`` at
  ``/bin/tl-burst``): duty cycles, bursts together, idle sidecars, batches, for the kernel ladders.

Archives are deterministic (fixed mtimes) and kept under ``keep/images``.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import shutil
import subprocess
import tarfile
from pathlib import Path

from .layout import BUSYBOX_IMAGE, PAUSE_IMAGE, REPO, Layout, cache_root

BUSYBOX = Path("/bin/busybox")
PAUSE_SRC = REPO / "scripts" / "cluster" / "pause"
ASSETS = REPO / "lib" / "throttlelab" / "experiment" / "assets"
#: The Go tools with an image each: name -> (source, path in the image).
GO_TOOLS = {"service": (ASSETS / "service" / "main.go", "bin/tl-service"),
            "burst": (ASSETS / "burst" / "main.go", "bin/tl-burst")}
SERVICE_SRC, SERVICE_BIN = GO_TOOLS["service"]
SERVICE_IMAGE = "throttlelab.local/service"


def tool_tag(name: str) -> str:
    """``throttlelab.local/<name>:<sha1 of its source, 10 hex digits>``."""
    return f"throttlelab.local/{name}:{hashlib.sha1(GO_TOOLS[name][0].read_bytes()).hexdigest()[:10]}"


def service_tag() -> str:
    """``throttlelab.local/service:<sha1 of the service source, 10 hex digits>``."""
    return tool_tag("service")


def _add(tar: tarfile.TarFile, name: str, *, data: bytes | None = None, mode: int = 0o755,
         link: str | None = None, directory: bool = False) -> None:
    info = tarfile.TarInfo(name)
    info.mtime, info.uid, info.gid, info.mode = 0, 0, 0, mode
    if directory:
        info.type = tarfile.DIRTYPE
        tar.addfile(info)
    elif link is not None:
        info.type, info.linkname = tarfile.SYMTYPE, link
        tar.addfile(info)
    else:
        info.size = len(data or b"")
        tar.addfile(info, io.BytesIO(data or b""))


def _layer(files: dict[str, bytes], links: dict[str, str]) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for d in ("bin", "etc", "tmp", "proc", "sys", "dev"):
            _add(tar, d, directory=True, mode=0o1777 if d == "tmp" else 0o755)
        _add(tar, "etc/passwd", data=b"root:x:0:0:root:/:/bin/sh\nnobody:x:65534:65534:nobody:/:/bin/false\n",
             mode=0o644)
        _add(tar, "etc/group", data=b"root:x:0:\nnogroup:x:65534:\n", mode=0o644)
        for name, data in sorted(files.items()):
            _add(tar, name, data=data)
        for name, target in sorted(links.items()):
            _add(tar, name, link=target)
    return buf.getvalue()


def _blob(tar: tarfile.TarFile, data: bytes) -> str:
    digest = "sha256:" + hashlib.sha256(data).hexdigest()
    _add(tar, f"blobs/sha256/{digest[7:]}", data=data, mode=0o644)
    return digest


def write_oci_archive(path: Path, image: str, layer: bytes, entrypoint: list[str]) -> None:
    """One-layer OCI image layout as a tar archive that ``ctr images import`` reads."""
    config = json.dumps({
        "architecture": "amd64", "os": "linux",
        "config": {"Entrypoint": entrypoint, "Env": ["PATH=/bin"], "WorkingDir": "/"},
        "rootfs": {"type": "layers", "diff_ids": ["sha256:" + hashlib.sha256(layer).hexdigest()]},
    }, sort_keys=True).encode()
    tmp = path.with_suffix(".tmp")
    with tarfile.open(tmp, "w", format=tarfile.PAX_FORMAT) as tar:
        layer_d = _blob(tar, layer)
        config_d = _blob(tar, config)
        manifest = json.dumps({
            "schemaVersion": 2, "mediaType": "application/vnd.oci.image.manifest.v1+json",
            "config": {"mediaType": "application/vnd.oci.image.config.v1+json", "digest": config_d,
                       "size": len(config)},
            "layers": [{"mediaType": "application/vnd.oci.image.layer.v1.tar", "digest": layer_d,
                        "size": len(layer)}],
        }, sort_keys=True).encode()
        manifest_d = _blob(tar, manifest)
        index = {"schemaVersion": 2, "mediaType": "application/vnd.oci.image.index.v1+json", "manifests": [{
            "mediaType": "application/vnd.oci.image.manifest.v1+json", "digest": manifest_d, "size": len(manifest),
            "platform": {"architecture": "amd64", "os": "linux"},
            "annotations": {"io.containerd.image.name": image,
                            "org.opencontainers.image.ref.name": image.rsplit(":", 1)[1]}}]}
        _add(tar, "index.json", data=json.dumps(index).encode(), mode=0o644)
        _add(tar, "oci-layout", data=b'{"imageLayoutVersion":"1.0.0"}', mode=0o644)
    tmp.replace(path)


def build_pause(layout: Layout) -> Path:
    """The static Go pause binary (the Go build cache of the control plane is reused)."""
    out = layout.images / "pause"
    src_stamp = hashlib.sha256((PAUSE_SRC / "main.go").read_bytes()).hexdigest()
    stamp = layout.images / "pause.stamp"
    if out.exists() and stamp.exists() and stamp.read_text() == src_stamp:
        return out
    go = os.environ.get("GO") or shutil.which("go") or "/usr/local/go/bin/go"
    env = _go_env()
    layout.images.mkdir(parents=True, exist_ok=True)
    res = subprocess.run([go, "build", "-trimpath", "-ldflags=-s -w", "-o", str(out), "."], cwd=PAUSE_SRC,
                         env=env, capture_output=True, text=True)
    if res.returncode != 0:
        raise RuntimeError(f"building the pause image binary failed: {res.stderr.strip()[-300:]}")
    stamp.write_text(src_stamp)
    return out


def _go_env() -> dict[str, str]:
    return {**os.environ, "CGO_ENABLED": "0", "GOTOOLCHAIN": "local", "GOFLAGS": "-modcacherw",
            "GOCACHE": str(cache_root() / "go" / "build"), "GOPATH": str(cache_root() / "go" / "path")}


def build_tool(layout: Layout, name: str) -> Path:
    """The static binary of Go tool ``name`` (:data:`GO_TOOLS`; built once per source hash)."""
    tag = tool_tag(name).rsplit(":", 1)[1]
    out = layout.images / f"{name}-{tag}"
    if out.exists():
        return out
    go = os.environ.get("GO") or shutil.which("go") or "/usr/local/go/bin/go"
    build = layout.images / f"{name}-build-{os.getpid()}"
    build.mkdir(parents=True, exist_ok=True)
    try:
        (build / "main.go").write_bytes(GO_TOOLS[name][0].read_bytes())
        (build / "go.mod").write_text(f"module throttlelab/{name}\n\ngo 1.21\n")
        tmp = out.with_suffix(".tmp")
        res = subprocess.run([go, "build", "-trimpath", "-ldflags=-s -w", "-o", str(tmp), "."], cwd=build,
                             env=_go_env(), capture_output=True, text=True)
        if res.returncode != 0:
            raise RuntimeError(f"building the {name} image binary failed: {res.stderr.strip()[-300:]}")
        tmp.replace(out)
    finally:
        shutil.rmtree(build, ignore_errors=True)
    return out


def build_service(layout: Layout) -> Path:
    """The static Go service binary of :data:`SERVICE_SRC` (built once per source hash)."""
    return build_tool(layout, "service")


def archives(layout: Layout) -> dict[str, Path]:
    """Build (once) the image archives; return image name -> archive path."""
    layout.images.mkdir(parents=True, exist_ok=True)
    pause_tar = layout.images / "pause.oci.tar"
    pause_bin = build_pause(layout)
    if not pause_tar.exists() or pause_tar.stat().st_mtime < pause_bin.stat().st_mtime:
        write_oci_archive(pause_tar, PAUSE_IMAGE, _layer({"pause": pause_bin.read_bytes()}, {}), ["/pause"])
    bb_tar = layout.images / "busybox.oci.tar"
    bb_stamp = layout.images / "busybox.stamp"
    bb_digest = hashlib.sha256(BUSYBOX.read_bytes()).hexdigest()
    applets = subprocess.run([str(BUSYBOX), "--list"], capture_output=True, text=True, check=True).stdout.split()
    links = {f"bin/{a}": "busybox" for a in applets if a and a != "busybox"}
    if not bb_tar.exists() or not bb_stamp.exists() or bb_stamp.read_text() != bb_digest:
        write_oci_archive(bb_tar, BUSYBOX_IMAGE, _layer({"bin/busybox": BUSYBOX.read_bytes()}, links), ["/bin/sh"])
        bb_stamp.write_text(bb_digest)
    out = {PAUSE_IMAGE: pause_tar, BUSYBOX_IMAGE: bb_tar}
    for name, (_, path) in GO_TOOLS.items():  # busybox plus the tool, its entrypoint
        image = tool_tag(name)
        binary = build_tool(layout, name)
        tar = layout.images / f"{name}-{image.rsplit(':', 1)[1]}.oci.tar"
        stamp = layout.images / f"{name}.stamp"
        if not tar.exists() or not stamp.exists() or stamp.read_text() != bb_digest + image:
            for old in layout.images.glob(f"{name}-*.oci.tar"):
                old.unlink()
            layer = _layer({"bin/busybox": BUSYBOX.read_bytes(), path: binary.read_bytes()}, links)
            write_oci_archive(tar, image, layer, [f"/{path}"])
            stamp.write_text(bb_digest + image)
        out[image] = tar
    return out


def import_images(layout: Layout) -> list[str]:
    """``ctr -n k8s.io images import`` each archive into the running containerd."""
    done = []
    for image, tar in archives(layout).items():
        res = subprocess.run(["ctr", "--address", str(layout.containerd_sock), "-n", "k8s.io", "images", "import",
                              str(tar)], capture_output=True, text=True)
        if res.returncode != 0:
            raise RuntimeError(f"ctr images import {tar.name} failed: {res.stderr.strip()[-300:]}")
        done.append(image)
    return done
