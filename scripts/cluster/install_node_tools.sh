#!/usr/bin/env bash
# Install what the one-node cluster needs from Debian packages, only when missing:
#   containerd (+ ctr, containerd-shim-runc-v2), runc, containernetworking-plugins
#   (bridge, host-local, loopback), prometheus, busybox-static (the workload image),
#   openssl (certificates), iproute2, util-linux (unshare).
# Package services are not started (no systemd here; the cluster runs its own).
set -euo pipefail
start=$SECONDS
need=()
command -v containerd >/dev/null 2>&1 && command -v ctr >/dev/null 2>&1 || need+=(containerd)
command -v runc >/dev/null 2>&1 || need+=(runc)
[[ -x /usr/lib/cni/bridge && -x /usr/lib/cni/host-local && -x /usr/lib/cni/loopback ]] || need+=(containernetworking-plugins)
command -v prometheus >/dev/null 2>&1 || need+=(prometheus)
dpkg-query -W -f='${Status}' busybox-static 2>/dev/null | grep -q 'ok installed' || need+=(busybox-static)
command -v openssl >/dev/null 2>&1 || need+=(openssl)
command -v ip >/dev/null 2>&1 || need+=(iproute2)
command -v unshare >/dev/null 2>&1 && command -v nsenter >/dev/null 2>&1 || need+=(util-linux)
if [[ ${#need[@]} -eq 0 ]]; then
    echo "install_node_tools: all there ($((SECONDS - start)) s)"
    exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
    echo "install_node_tools: ERROR: missing ${need[*]} and no apt-get: install them with your package manager" >&2
    exit 1
fi
SUDO=""
[[ "$(id -u)" -eq 0 ]] || SUDO="sudo"
echo "install_node_tools: installing ${need[*]} from Debian packages"
# Services of the packages (prometheus) must not start: a policy-rc.d that refuses, if none is there.
policy=/usr/sbin/policy-rc.d
made_policy=0
if [[ ! -e $policy ]]; then
    printf '#!/bin/sh\nexit 101\n' | $SUDO tee "$policy" >/dev/null && $SUDO chmod +x "$policy" && made_policy=1
fi
trap '[[ $made_policy == 1 ]] && $SUDO rm -f "$policy"' EXIT
$SUDO apt-get -o DPkg::Lock::Timeout=900 update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get -o DPkg::Lock::Timeout=900 install -y -qq --no-install-recommends \
    "${need[@]}" >/dev/null
echo "install_node_tools: installed ${need[*]} in $((SECONDS - start)) s"
