#!/usr/bin/env bash
# Install the system tools the suite uses, from Debian packages, only when missing:
#   ffmpeg    workload of the local sweeps (the imageio-ffmpeg wheel is the fallback)
#   chromium  headless checks that reports render offline
set -euo pipefail
need=()
command -v ffmpeg >/dev/null 2>&1 || need+=(ffmpeg)
command -v chromium >/dev/null 2>&1 || need+=(chromium)
[ ${#need[@]} -eq 0 ] && exit 0
if ! command -v apt-get >/dev/null 2>&1; then
  echo "install_system_tools: missing ${need[*]} and no apt-get; install them yourself (ffmpeg also comes from the imageio-ffmpeg wheel)" >&2
  exit 0
fi
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
echo "install_system_tools: installing ${need[*]} from Debian packages"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}" >/dev/null
