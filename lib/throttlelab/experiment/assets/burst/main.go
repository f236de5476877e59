// Command burst is a workload of CPU bursts with the shapes real containers have:
// a thread with a duty cycle, threads that burst together, an idle sidecar with
// rare spikes, a batch that burns a fixed amount of CPU and exits.
//
//	burst -threads 4 -busy 10ms -every 100ms -align          # bursts together, on the clock
//	burst -threads 1 -busy 25ms -every 100ms                 # duty cycle: busy, then sleep
//	burst -busy 300us -every 100ms -spike 40ms -spike-every 7s   # an idle sidecar
//	burst -threads 3 -total 20s                              # a batch: 20 s of CPU per thread, then exit
//
// Busy time is CPU time of the thread (CLOCK_THREAD_CPUTIME_ID), not wall time,
// so a throttled burst takes longer but does the same work. Each burst's busy
// time is multiplied by a gamma factor of mean 1 and coefficient of variation
// -cv (0: fixed). Without -align a thread sleeps -every minus -busy after each
// burst (a closed loop: throttling stretches its cycle); with -align every
// thread starts a burst at each multiple of -every on the wall clock (an open
// loop, as a time.Ticker drives one: work arrives whether or not the last
// burst finished; a late burst starts at once, and ticks missed while more than
// a whole tick late are dropped, so a backlog never outlives a tick). Prints one
// line at start and one at exit:
//
//	burst threads=4 busy=10ms every=100ms align=true gomaxprocs=4 version=go1.26
//	burst done cpu_seconds=12.3 bursts=1234
package main

import (
	"flag"
	"fmt"
	"math"
	"math/rand"
	"os"
	"os/signal"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"
)

var sink atomic.Uint64

// threadCPU is the calling thread's CPU time (the goroutine is locked to it).
func threadCPU() time.Duration {
	var ts syscall.Timespec
	const clockThreadCPUTimeID = 3
	syscall.Syscall(syscall.SYS_CLOCK_GETTIME, clockThreadCPUTimeID, uintptr(unsafe.Pointer(&ts)), 0)
	return time.Duration(ts.Nano())
}

// spin burns CPU until the thread has used d more of it.
func spin(d time.Duration) {
	end := threadCPU() + d
	x := uint64(1)
	for threadCPU() < end {
		for i := 0; i < 2000; i++ {
			x = x*6364136223846793005 + 1442695040888963407
		}
	}
	sink.Add(x)
}

// gammaFactor draws a gamma variate of mean 1 and coefficient of variation cv (Marsaglia-Tsang).
func gammaFactor(r *rand.Rand, cv float64) float64 {
	if cv <= 0 {
		return 1
	}
	k := 1 / (cv * cv)
	boost := 1.0
	if k < 1 {
		boost = math.Pow(r.Float64(), 1/k)
		k++
	}
	d := k - 1.0/3
	c := 1 / math.Sqrt(9*d)
	for {
		x := r.NormFloat64()
		v := 1 + c*x
		if v <= 0 {
			continue
		}
		v = v * v * v
		u := r.Float64()
		if math.Log(u) < 0.5*x*x+d-d*v+d*math.Log(v) {
			return d * v * boost / (1 / (cv * cv))
		}
	}
}

func main() {
	threads := flag.Int("threads", 1, "threads")
	busy := flag.Duration("busy", 25*time.Millisecond, "CPU time of one burst")
	every := flag.Duration("every", 100*time.Millisecond, "one burst per thread this often")
	align := flag.Bool("align", false, "start every thread's bursts on multiples of -every (an open loop)")
	cv := flag.Float64("cv", 0, "coefficient of variation of each burst's CPU time (gamma, mean 1)")
	spike := flag.Duration("spike", 0, "CPU time of a spike on thread 0")
	spikeEvery := flag.Duration("spike-every", 0, "a spike this often (0: none)")
	total := flag.Duration("total", 0, "a batch: this much CPU per thread, then exit (0: run until stopped)")
	seed := flag.Int64("seed", 1, "random seed")
	flag.Parse()

	fmt.Printf("burst threads=%d busy=%s every=%s align=%t cv=%g spike=%s spike_every=%s total=%s gomaxprocs=%d version=%s\n",
		*threads, *busy, *every, *align, *cv, *spike, *spikeEvery, *total, runtime.GOMAXPROCS(0), runtime.Version())
	stop := make(chan struct{})
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, syscall.SIGINT)
	go func() { <-sig; close(stop) }()

	var bursts atomic.Int64
	var used atomic.Int64
	var wg sync.WaitGroup
	for t := 0; t < *threads; t++ {
		wg.Add(1)
		go func(t int) {
			defer wg.Done()
			runtime.LockOSThread()
			r := rand.New(rand.NewSource(*seed + int64(t)))
			start := threadCPU()
			defer func() { used.Add(int64(threadCPU() - start)) }()
			if *total > 0 && *busy <= 0 {
				spin(*total)
				return
			}
			next := time.Now().Truncate(*every).Add(*every)
			nextSpike := time.Now().Add(*spikeEvery)
			for {
				if *align {
					wait := time.Until(next)
					if wait < -*every { // more than a tick late: drop the missed ticks, as a time.Ticker does
						next = time.Now().Truncate(*every)
						wait = 0
					}
					next = next.Add(*every)
					if wait > 0 {
						select {
						case <-stop:
							return
						case <-time.After(wait):
						}
					}
				}
				select {
				case <-stop:
					return
				default:
				}
				b := time.Duration(float64(*busy) * gammaFactor(r, *cv))
				if t == 0 && *spikeEvery > 0 && time.Now().After(nextSpike) {
					b += *spike
					nextSpike = nextSpike.Add(*spikeEvery)
				}
				spin(b)
				bursts.Add(1)
				if *total > 0 && threadCPU()-start >= *total {
					return
				}
				if !*align {
					rest := *every - *busy
					if rest > 0 {
						select {
						case <-stop:
							return
						case <-time.After(rest):
						}
					}
				}
			}
		}(t)
	}
	wg.Wait()
	fmt.Printf("burst done cpu_seconds=%.3f bursts=%d\n", float64(used.Load())/1e9, bursts.Load())
}
