// Command service is a small HTTP service doing fixed CPU work per request, the
// way a Go service meets a CPU limit (throttlelab's built-in service workload).
//
//	service -addr 127.0.0.1:0 -work 30
//
// GOMAXPROCS is the runtime's choice (since Go 1.25 it follows the cgroup CPU
// limit) unless the GOMAXPROCS environment variable sets it.  Once listening it
// prints one line to stdout:
//
//	listening addr=127.0.0.1:40123 gomaxprocs=2 numcpu=2 version=go1.26
//
// GET /work?units=N burns N units of 1e5 loop iterations (default -work) in the
// request's goroutine and answers {"gomaxprocs":2,"units":30}.  GET /healthz
// answers ok.  SIGTERM or SIGINT stops it.
package main

import (
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"runtime"
	"strconv"
	"sync/atomic"
	"syscall"
)

var sink atomic.Uint64

func burn(units int) {
	x := uint64(1)
	for u := 0; u < units; u++ {
		for i := 0; i < 100000; i++ {
			x = x*6364136223846793005 + 1442695040888963407
		}
	}
	sink.Add(x)
}

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "listen address (loopback)")
	work := flag.Int("work", 30, "default work per request in units of 1e5 iterations")
	flag.Parse()
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "listen:", err)
		os.Exit(2)
	}
	procs := runtime.GOMAXPROCS(0)
	mux := http.NewServeMux()
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "ok") })
	mux.HandleFunc("/work", func(w http.ResponseWriter, r *http.Request) {
		units := *work
		if s := r.URL.Query().Get("units"); s != "" {
			if n, err := strconv.Atoi(s); err == nil && n >= 0 {
				units = n
			}
		}
		burn(units)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, "{\"gomaxprocs\":%d,\"units\":%d}", procs, units)
	})
	go func() {
		stop := make(chan os.Signal, 1)
		signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT)
		<-stop
		ln.Close()
		os.Exit(0)
	}()
	fmt.Printf("listening addr=%s gomaxprocs=%d numcpu=%d version=%s\n", ln.Addr(), procs, runtime.NumCPU(), runtime.Version())
	os.Stdout.Sync()
	if err := http.Serve(ln, mux); err != nil {
		os.Exit(0)
	}
}
