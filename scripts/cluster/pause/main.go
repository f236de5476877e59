// Command pause is the sandbox ("pause") container of the throttlelab node:
// it holds the pod's namespaces, reaps zombies and exits on SIGTERM or SIGINT.
// Built statically (CGO_ENABLED=0) by scripts/cluster and imported into
// containerd as a local image, so no registry is needed.
package main

import (
	"os"
	"os/signal"
	"syscall"
)

func main() {
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGCHLD)
	for s := range sigs {
		if s == syscall.SIGCHLD {
			for {
				var ws syscall.WaitStatus
				pid, err := syscall.Wait4(-1, &ws, syscall.WNOHANG, nil)
				if pid <= 0 || err != nil {
					break
				}
			}
			continue
		}
		os.Exit(0)
	}
}
