package validate

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"time"
)

// ErrMemory is the cause of an evaluation that grew past its memory bound.
// The CUE evaluator cannot be stopped from outside, so the evaluation goes
// on in the background: a caller that sees ErrMemory evaluates nothing
// more and exits.
var ErrMemory = errors.New("definition evaluation exceeded its memory bound")

// DefaultMemory is the memory bound of an evaluation: the shipped
// definitions evaluate in under 40 MiB and the largest matrix validate
// accepts in about 200 MiB. The watchdog sees the heap between
// allocations, and one allocation of a definition that doubles a string
// is as large as all it held before, so the peak is up to twice the bound:
// at 384 MiB the process, with the runtime's own memory, stays under
// 1 GB on a quiet machine (at 512 it reached 1060 MiB); a loaded one can
// delay the watchdog by one more doubling.
const DefaultMemory = 384 << 20

// memoryPoll is how often the watchdog reads the heap: a definition that
// doubles a string allocates each doubling at once, so the heap is read
// often enough to stop before the next one.
const memoryPoll = 2 * time.Millisecond

// heapMetric is the bytes of heap objects, reachable or not yet swept.
// With the soft memory limit set to the bound, the collector keeps it
// under the bound until the live heap itself nears the bound.
const heapMetric = "/memory/classes/heap/objects:bytes"

// memoryError is ErrMemory with the bound that was passed.
type memoryError struct{ limit int64 }

func (e memoryError) Error() string {
	return fmt.Sprintf("definition evaluation exceeded %d MiB (raise it with --eval-memory)", e.limit>>20)
}

func (e memoryError) Is(target error) bool { return target == ErrMemory }

// watchMemory sets the Go runtime's soft memory limit to limit bytes and
// starts a watchdog that cancels the returned context with a cause
// wrapping ErrMemory once the heap passes limit. stop ends the watchdog
// and restores the previous soft limit.
func watchMemory(ctx context.Context, limit int64) (_ context.Context, stop func()) {
	ctx, cancel := context.WithCancelCause(ctx)
	prev := debug.SetMemoryLimit(limit)
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		sample := []metrics.Sample{{Name: heapMetric}}
		tick := time.NewTicker(memoryPoll)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			metrics.Read(sample)
			if sample[0].Value.Kind() == metrics.KindUint64 && sample[0].Value.Uint64() > uint64(limit) {
				// The collector need not fight for the bound any more:
				// the caller is about to exit.
				debug.SetMemoryLimit(prev)
				cancel(memoryError{limit})
				return
			}
		}
	}()
	return ctx, func() {
		close(done)
		wg.Wait()
		cancel(nil)
		debug.SetMemoryLimit(prev)
	}
}
