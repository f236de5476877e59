//go:build tools

// Package tools pins the Kubernetes commands built by scripts/build_control_plane.sh.
package tools

import (
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kube-scheduler"
)
