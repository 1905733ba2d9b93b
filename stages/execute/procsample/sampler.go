package procsample

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"sync"
	"time"
)

// ErrInterval is returned by [Sampler.Run] at once when the sampling
// interval is not positive: nothing can be sampled.
var ErrInterval = errors.New("procsample: sampling interval")

// rescanEvery is how often a Sampler looks through every process of
// /proc for the group's members; between two looks it reads only the
// members it knows. A member that is gone makes the next sample look again.
const rescanEvery = time.Second

// Sampler samples a process group at a fixed interval.
type Sampler struct {
	fs       FS
	pgid     int
	re       *regexp.Regexp
	interval time.Duration

	r        *reader
	members  []int     // the group's live processes at the last look through /proc
	lastScan time.Time // when that was

	mu      sync.Mutex
	samples []Sample
}

// NewSampler returns a Sampler of process group pgid that takes a sample
// every interval, counting threads that match re (nil: none). capacity is
// the number of samples expected (window / interval + 1), so that sampling
// does not reallocate during the measure window; more still fit.
func NewSampler(fs FS, pgid int, re *regexp.Regexp, interval time.Duration, capacity int) *Sampler {
	return &Sampler{
		fs:       fs,
		r:        newReader(fs),
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
		smp, err := s.take()
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

// take reads one sample of the group's members, looking for them through
// all of /proc first when rescanEvery has passed since the last look, or
// when a member was found gone.
func (s *Sampler) take() (Sample, error) {
	start := time.Now()
	if s.members == nil || start.Sub(s.lastScan) >= rescanEvery {
		if err := s.scan(); err != nil {
			return Sample{Time: start}, err
		}
	}
	smp, gone, err := s.r.sample(s.members, s.pgid, s.re)
	if gone > 0 {
		if err := s.scan(); err != nil {
			return smp, err
		}
		smp, _, err = s.r.sample(s.members, s.pgid, s.re)
	}
	smp.Time = start // when the reading started, as Take's
	return smp, err
}

func (s *Sampler) scan() error {
	pids, err := s.r.groupPIDs(s.pgid)
	if err != nil {
		return err
	}
	s.members, s.lastScan = pids, time.Now()
	if s.members == nil {
		s.members = []int{}
	}
	return nil
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
