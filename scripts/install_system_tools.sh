#!/usr/bin/env bash
# Install the system tools the suite uses, from Debian packages, only when missing:
#   ffmpeg    workload of the local sweeps (the imageio-ffmpeg wheel is the fallback)
#   chromium  headless checks that reports render offline
#   prometheus  Prometheus server and promtool: `throttlelab recommend` tests, benchmark and notebook 08
#               (backfilled local TSDB; installed without recommends, so no node exporter; its service is not started)
set -euo pipefail
need=()
command -v ffmpeg >/dev/null 2>&1 || need+=(ffmpeg)
command -v chromium >/dev/null 2>&1 || need+=(chromium)
command -v promtool >/dev/null 2>&1 || need+=(prometheus)
if [ ${#need[@]} -eq 0 ]; then echo "install_system_tools: ffmpeg, chromium, prometheus all there (0 s)"; exit 0; fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "install_system_tools: missing ${need[*]} and no apt-get; install them yourself (ffmpeg also comes from the imageio-ffmpeg wheel)" >&2
  exit 0
fi
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
echo "install_system_tools: installing ${need[*]} from Debian packages"
$SUDO apt-get update -qq
t0=$(date +%s)
plain=()
for p in "${need[@]}"; do [ "$p" = prometheus ] || plain+=("$p"); done
if [ ${#plain[@]} -gt 0 ]; then
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=900 install -y -qq "${plain[@]}" >/dev/null
fi
if [ ${#plain[@]} -ne ${#need[@]} ]; then
  # no recommends (no node exporter); RUNLEVEL=1 keeps invoke-rc.d from starting its service on :9090
  $SUDO env DEBIAN_FRONTEND=noninteractive RUNLEVEL=1 apt-get -o DPkg::Lock::Timeout=900 install -y -qq \
    --no-install-recommends prometheus >/dev/null
fi
echo "install_system_tools: ${need[*]} installed in $(( $(date +%s) - t0 )) s"
