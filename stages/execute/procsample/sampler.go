package procsample

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"sync"
	"time"

	"github.com/prometheus/procfs"
)

// ErrInterval is returned by [Sampler.Run] at once when the sampling
// interval is not positive: nothing can be sampled.
var ErrInterval = errors.New("procsample: sampling interval")

// Sampler samples a process group at a fixed interval.
type Sampler struct {
	fs       procfs.FS
	pgid     int
	re       *regexp.Regexp
	interval time.Duration

	mu      sync.Mutex
	samples []Sample
}

// NewSampler returns a Sampler of process group pgid that takes a sample
// every interval, counting threads that match re (nil: none). capacity is
// the number of samples expected (window / interval + 1), so that sampling
// does not reallocate during the measure window; more still fit.
func NewSampler(pfs procfs.FS, pgid int, re *regexp.Regexp, interval time.Duration, capacity int) *Sampler {
	return &Sampler{
		fs:       pfs,
		pgid:     pgid,
		re:       re,
		interval: interval,
		samples:  make([]Sample, 0, max(capacity, 1)),
	}
}

// Run takes a sample at once and then one per interval (a tick that comes
// while a sample is still being read is dropped) until ctx is done or the
// process group is gone. It returns nil when ctx ended the sampling,
// ErrGroupGone when the group did, ErrInterval when it could not start,
// and otherwise the first error of a failed sample: a sample that fails is
// left out and sampling goes on.
func (s *Sampler) Run(ctx context.Context) error {
	if s.interval <= 0 {
		return fmt.Errorf("%w %v, want > 0", ErrInterval, s.interval)
	}
	t := time.NewTicker(s.interval)
	defer t.Stop()
	var first error
	failed := 0
	for {
		smp, err := Take(s.fs, s.pgid, s.re)
		switch {
		case errors.Is(err, ErrGroupGone):
			return joinFailed(err, first, failed)
		case err != nil:
			failed++
			if first == nil {
				first = err
			}
		default:
			s.mu.Lock()
			s.samples = append(s.samples, smp)
			s.mu.Unlock()
		}
		select {
		case <-ctx.Done():
			return joinFailed(nil, first, failed)
		case <-t.C:
		}
	}
}

func joinFailed(end, first error, failed int) error {
	if first == nil {
		return end
	}
	return errors.Join(end, fmt.Errorf("procsample: %d samples failed, the first: %w", failed, first))
}

// Samples returns the samples taken so far, in time order. The slice is
// shared with the Sampler: read it, do not modify it.
func (s *Sampler) Samples() []Sample {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.samples[:len(s.samples):len(s.samples)]
}
