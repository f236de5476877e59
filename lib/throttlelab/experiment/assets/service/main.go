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
// answers ok.  GET /cgroup answers the CPU counters of the cgroup the process
// sees at /sys/fs/cgroup (inside a container: its own; v1 or v2), as
// {"usage_ns":..,"nr_periods":..,"nr_throttled":..,"throttled_ns":..}, so a
// load generator outside a pod can read them at the edges of its windows.
// POST /quit, SIGTERM or SIGINT stops it (exit status 0).
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
	"strings"
	"sync/atomic"
	"syscall"
	"time"
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

// readStat reads "key value" lines of a cgroup file into m (missing file: no keys).
func readStat(path string, m map[string]int64) {
	data, err := os.ReadFile(path)
	if err != nil {
		return
	}
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) == 2 {
			if v, err := strconv.ParseInt(f[1], 10, 64); err == nil {
				m[f[0]] = v
			}
		}
	}
}

// cgroupCounters are the cumulative CPU counters of the cgroup at /sys/fs/cgroup (nil if none found).
func cgroupCounters() map[string]int64 {
	const root = "/sys/fs/cgroup"
	m := map[string]int64{}
	if _, err := os.Stat(root + "/cpu.max"); err == nil { // v2
		readStat(root+"/cpu.stat", m)
		out := map[string]int64{"usage_ns": m["usage_usec"] * 1000, "nr_periods": m["nr_periods"],
			"nr_throttled": m["nr_throttled"], "throttled_ns": m["throttled_usec"] * 1000}
		return out
	}
	for _, dirs := range [][2]string{{"/cpu", "/cpuacct"}, {"/cpu,cpuacct", "/cpu,cpuacct"}} {
		if _, err := os.Stat(root + dirs[0] + "/cpu.stat"); err != nil {
			continue
		}
		readStat(root+dirs[0]+"/cpu.stat", m)
		out := map[string]int64{"usage_ns": -1, "nr_periods": m["nr_periods"], "nr_throttled": m["nr_throttled"],
			"throttled_ns": m["throttled_time"]}
		if data, err := os.ReadFile(root + dirs[1] + "/cpuacct.usage"); err == nil {
			if v, err := strconv.ParseInt(strings.TrimSpace(string(data)), 10, 64); err == nil {
				out["usage_ns"] = v
			}
		}
		return out
	}
	return nil
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
	mux.HandleFunc("/cgroup", func(w http.ResponseWriter, r *http.Request) {
		c := cgroupCounters()
		if c == nil {
			http.Error(w, "{\"error\":\"no cgroup CPU counters at /sys/fs/cgroup\"}", http.StatusNotFound)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, "{\"usage_ns\":%d,\"nr_periods\":%d,\"nr_throttled\":%d,\"throttled_ns\":%d}",
			c["usage_ns"], c["nr_periods"], c["nr_throttled"], c["throttled_ns"])
	})
	stop := make(chan os.Signal, 1)
	mux.HandleFunc("/quit", func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			http.Error(w, "{\"error\":\"POST only\"}", http.StatusMethodNotAllowed)
			return
		}
		body := "{\"quit\":true}"
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", strconv.Itoa(len(body))) // whole, not chunked: nothing left to send at exit
		fmt.Fprint(w, body)
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
		go func() { // let the answer leave before the process does
			time.Sleep(100 * time.Millisecond)
			stop <- syscall.SIGTERM
		}()
	})
	go func() {
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
