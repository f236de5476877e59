#!/usr/bin/env bash
# Build a real Kubernetes control plane for the tests, from the Go module proxy only:
#   etcd (go.etcd.io/etcd/server/v3), kube-apiserver, kube-scheduler,
#   kube-controller-manager and kubelet (k8s.io/kubernetes with its staging
#   modules replaced by their published versions, all four in ONE `go build` so
#   they share the compile work and the build cache), and kwok
#   (sigs.k8s.io/kwok) plus its stage configs. The kubelet and the
#   controller-manager are what `make cluster-up` (scripts/cluster) runs.
#
# Everything goes to a cache OUTSIDE the repo:
#   ${THROTTLELAB_CACHE:-$HOME/.cache/throttlelab}/control-plane/<k8s version>/bin
#   ${THROTTLELAB_CACHE:-$HOME/.cache/throttlelab}/go/{path,build}   (GOPATH, GOCACHE)
# Versions live in scripts/control_plane/versions.env; the wrapper modules in
# scripts/control_plane/{etcd,kubernetes,kwok}.
#
# Idempotent: exits 0 at once when the binaries for these versions are there.
# Usage: build_control_plane.sh [--print-bin-dir | --force]
set -euo pipefail

repo="$(cd "$(dirname "$0")/.." && pwd)"
modules="$repo/scripts/control_plane"
# shellcheck source=control_plane/versions.env
. "$modules/versions.env"

cache="${THROTTLELAB_CACHE:-$HOME/.cache/throttlelab}"
root="$cache/control-plane/$K8S_VERSION"
bin="$root/bin"
stages="$root/kwok-stages"

if [[ "${1:-}" == "--print-bin-dir" ]]; then
    echo "$bin"
    exit 0
fi
force=0
[[ "${1:-}" == "--force" ]] && force=1

log() { echo "build_control_plane: $*"; }
die() { echo "build_control_plane: ERROR: $*" >&2; exit 1; }

# The stamp names the versions and the wrapper modules' content: a change rebuilds.
stamp_text="$(cat "$modules/versions.env" "$modules"/{etcd,kubernetes,kwok}/go.mod "$modules"/{etcd,kubernetes,kwok}/*.go | sha256sum | cut -d' ' -f1)"
# (kubernetes/tools.go is part of the stamp: leave it alone so binaries built by
# an older checkout of this script are not rebuilt for nothing.)
kube_commands=(kube-apiserver kube-scheduler kube-controller-manager kubelet)
components=(etcd "${kube_commands[@]}" kwok)
up_to_date() {
    [[ -f "$root/STAMP" && "$(cat "$root/STAMP")" == "$stamp_text" ]] || return 1
    local c
    for c in "${components[@]}"; do [[ -x "$bin/$c" ]] || return 1; done
    for c in node-initialize node-heartbeat pod-ready pod-complete pod-delete; do
        [[ -s "$stages/$c.yaml" ]] || return 1
    done
    [[ -s "$root/service-account.key" ]]
}
if [[ $force == 0 ]] && up_to_date; then
    log "up to date: $bin (kubernetes $K8S_VERSION, etcd $ETCD_VERSION, kwok $KWOK_VERSION)"
    exit 0
fi

go="${GO:-$(command -v go || true)}"
[[ -n "$go" ]] || go=/usr/local/go/bin/go
[[ -x "$go" ]] || die "no Go toolchain found (set GO=/path/to/go); Go >= 1.26 is needed"
log "using $("$go" version)"

mkdir -p "$root" "$bin" "$stages" "$cache/go"
# One build at a time (make test and a pytest fixture may both ask).
exec 9>"$root/.lock"
flock 9
if [[ $force == 0 ]] && up_to_date; then
    log "up to date (built by another process): $bin"
    exit 0
fi

export GOPATH="$cache/go/path"
export GOMODCACHE="$GOPATH/pkg/mod"
export GOCACHE="$cache/go/build"
export GOFLAGS="-modcacherw"
export GOTOOLCHAIN=local
export CGO_ENABLED=0
log "cache: $cache (GOPATH=$GOPATH, GOCACHE=$GOCACHE)"

# Copy a wrapper module into the cache and build one package of it.
# build <module dir> <package> <output name> [ldflags]
build() {
    local mod="$1" pkg="$2" out="$3" ldflags="${4:-}"
    local src="$root/src/$mod"
    if [[ $force == 0 && -x "$bin/$out" && -f "$root/STAMP.$out" && "$(cat "$root/STAMP.$out")" == "$stamp_text" ]]; then
        log "$out: already built"
        return
    fi
    mkdir -p "$src"
    cp "$modules/$mod/"* "$src/"
    log "$out: go build $pkg (this can take minutes on a cold cache)"
    local start=$SECONDS
    (cd "$src" && "$go" build -mod=mod -trimpath -ldflags "-s -w $ldflags" -o "$bin/$out.tmp" "$pkg") \
        || die "building $out failed (see the Go output above)"
    mv -f "$bin/$out.tmp" "$bin/$out"
    echo "$stamp_text" > "$root/STAMP.$out"
    log "$out: built in $((SECONDS - start)) s"
}

build etcd . etcd

# Version ldflags: without them the server reports v0.0.0 and clients cannot parse it.
minor="${K8S_VERSION#v1.}"; minor="${minor%%.*}"
build_date="$(sed -n 's/.*"Time": *"\([^"]*\)".*/\1/p' "$GOMODCACHE/cache/download/k8s.io/kubernetes/@v/$K8S_VERSION.info" 2>/dev/null || true)"
[[ -n "$build_date" ]] || build_date="1970-01-01T00:00:00Z"
kube_ldflags=""
for p in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    kube_ldflags+=" -X $p.gitVersion=$K8S_VERSION -X $p.gitMajor=1 -X $p.gitMinor=$minor"
    kube_ldflags+=" -X $p.gitTreeState=clean -X $p.buildDate=$build_date"
done
# The Kubernetes commands not yet built for this stamp, in one `go build`.
pkgs=()
for c in "${kube_commands[@]}"; do
    if [[ $force == 0 && -x "$bin/$c" && -f "$root/STAMP.$c" && "$(cat "$root/STAMP.$c")" == "$stamp_text" ]]; then
        log "$c: already built"
    else
        pkgs+=("k8s.io/kubernetes/cmd/$c")
    fi
done
if (( ${#pkgs[@]} )); then
    src="$root/src/kubernetes"
    mkdir -p "$src" "$bin/.new"
    cp "$modules/kubernetes/"* "$src/"
    log "${pkgs[*]##*/}: one go build (about 20 min for all four on a cold cache with 2 cores)"
    start=$SECONDS
    (cd "$src" && "$go" build -mod=mod -trimpath -ldflags "-s -w $kube_ldflags" -o "$bin/.new/" "${pkgs[@]}") \
        || die "building ${pkgs[*]##*/} failed (see the Go output above)"
    for p in "${pkgs[@]}"; do
        c="${p##*/}"
        mv -f "$bin/.new/$c" "$bin/$c"
        echo "$stamp_text" > "$root/STAMP.$c"
    done
    log "${pkgs[*]##*/}: built in $((SECONDS - start)) s"
fi
build kwok sigs.k8s.io/kwok/cmd/kwok kwok "-X sigs.k8s.io/kwok/pkg/consts.Version=$KWOK_VERSION"

# kwok's stage configs come from its module's kustomize/stage folder.
kwok_dir="$(cd "$root/src/kwok" && "$go" list -mod=mod -m -f '{{.Dir}}' sigs.k8s.io/kwok)"
[[ -d "$kwok_dir/kustomize/stage" ]] || die "no kustomize/stage in $kwok_dir"
for name in node-initialize node-heartbeat pod-ready pod-complete pod-delete; do
    f="$(find "$kwok_dir/kustomize/stage" -name "$name.yaml" | sort | sed -n 1p)"
    [[ -n "$f" ]] || die "stage config $name.yaml not found under $kwok_dir/kustomize/stage"
    cp "$f" "$stages/$name.yaml"
    log "stage: ${f#"$kwok_dir/"} -> $stages/$name.yaml"
done

# The service-account signing key of the test API server (standard library Go, no openssl).
if [[ ! -s "$root/service-account.key" ]]; then
    (cd "$modules/keygen" && "$go" run main.go "$root/service-account.key.tmp") || die "generating the service-account key failed"
    mv -f "$root/service-account.key.tmp" "$root/service-account.key"
    log "service-account key: $root/service-account.key"
fi

echo "$stamp_text" > "$root/STAMP"
"$bin/etcd" --version | sed -n "1s/^/build_control_plane: /p"  # sed reads all (head would SIGPIPE etcd under pipefail)
"$bin/kube-apiserver" --version | sed 's/^/build_control_plane: /'
log "done: $bin"
