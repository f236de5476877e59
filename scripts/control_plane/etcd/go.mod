// Wrapper module: builds the etcd server binary from go.etcd.io/etcd/server/v3.
module throttlelab.local/controlplane/etcd

go 1.26.0

require go.etcd.io/etcd/server/v3 v3.6.16
