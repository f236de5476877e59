// Wrapper module: builds sigs.k8s.io/kwok/cmd/kwok.
module throttlelab.local/controlplane/kwok

go 1.26.0

require sigs.k8s.io/kwok v0.8.0
