//go:build tools

// Package tools pins the kwok command so `go build sigs.k8s.io/kwok/cmd/kwok` resolves.
package tools

import _ "sigs.k8s.io/kwok/cmd/kwok"
