// Command spin reports GOMAXPROCS and burns a fixed amount of CPU work split
// over goroutines, the way a Go service's parallel work meets a CPU limit.
//
//	spin -goroutines N -work UNITS
//
// -goroutines 0 (the default) uses GOMAXPROCS goroutines.  GOMAXPROCS itself is
// the runtime's choice (since Go 1.25 it follows the cgroup CPU limit) unless
// the GOMAXPROCS environment variable sets it.  One unit of work is 1e6 loop
// iterations.  Prints one line:
//
//	spin gomaxprocs=2 numcpu=2 goroutines=2 work=300 version=go1.26
package main

import (
	"flag"
	"fmt"
	"runtime"
	"sync"
)

var sink uint64

func main() {
	goroutines := flag.Int("goroutines", 0, "goroutines (0: GOMAXPROCS)")
	work := flag.Int("work", 300, "total work in units of 1e6 iterations")
	flag.Parse()
	procs := runtime.GOMAXPROCS(0)
	n := *goroutines
	if n <= 0 {
		n = procs
	}
	units := make(chan int, *work)
	for i := 0; i < *work; i++ {
		units <- i
	}
	close(units)
	var wg sync.WaitGroup
	var mu sync.Mutex
	for g := 0; g < n; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			x := uint64(1)
			for range units {
				for i := 0; i < 1000000; i++ {
					x = x*6364136223846793005 + 1442695040888963407
				}
			}
			mu.Lock()
			sink += x
			mu.Unlock()
		}()
	}
	wg.Wait()
	fmt.Printf("spin gomaxprocs=%d numcpu=%d goroutines=%d work=%d version=%s\n",
		procs, runtime.NumCPU(), n, *work, runtime.Version())
}
