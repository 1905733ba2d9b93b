// Command goalloc allocates garbage at a steady rate while keeping a ring of
// live objects, prints a line of its own to stderr now and then (as a real
// service would), and forces one collection with runtime.GC, so that its
// GODEBUG=gctrace=1 output holds ordinary, forced and foreign lines. It
// produces go-gctrace.log in the parent directory; see ../README.md.
package main

import (
	"fmt"
	"os"
	"runtime"
	"time"
)

func main() {
	ring := make([][]byte, 512)
	start := time.Now()
	var sum int
	for i := 0; time.Since(start) < time.Second; i++ {
		b := make([]byte, 1024+(i%16)*512)
		b[i%len(b)] = byte(i)
		ring[i%len(ring)] = b
		sum += len(b)
		if i%5000 == 0 {
			fmt.Fprintf(os.Stderr, "goalloc: %d arrays, %d bytes so far\n", i, sum)
		}
		if i == 10000 {
			runtime.GC()
		}
		if sum > int(time.Since(start).Seconds()*100e6) {
			time.Sleep(time.Millisecond)
		}
	}
	fmt.Fprintf(os.Stderr, "goalloc: done, %d bytes\n", sum)
}
