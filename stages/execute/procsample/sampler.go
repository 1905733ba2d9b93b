package procsample

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"sync"
	"time"
)

// ErrInterval is returned by [Sampler.Run] at once when the sampling
// interval is not positive: nothing can be sampled.
var ErrInterval = errors.New("procsample: sampling interval")

// How a Sampler finds the group's members without reading every
// process's stat at every sample (listing /proc alone costs more than a
// sample of a small group): every listEvery it lists /proc and reads the
// stat of the processes that were not listed the time before (a new member
// is a new process, a fork of a member), and every rescanEvery it reads
// the stat of every process, which catches one that joined the group with
// setpgid. Between two listings each sample reads the members it knows; a
// member that has exited or left the group is dropped at once.
const (
	listEvery   = time.Second
	rescanEvery = 10 * time.Second
)

// Sampler samples a process group at a fixed interval.
type Sampler struct {
	fs       FS
	pgid     int
	re       *regexp.Regexp
	interval time.Duration

	r        *reader
	members  []int        // the group's live processes at the last look through /proc
	known    map[int]bool // every process listed at the last look: a member or not
	lastScan time.Time    // when /proc was last read whole
	lastList time.Time    // when /proc was last listed

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
		r:        newReader(fs, true),
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
	t := newTicker(ctx, s.interval)
	defer t.stop()
	defer s.r.close()
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
		if !t.wait() {
			return joinFailed(nil, first, failed)
		}
	}
}

// take reads one sample of the group's members, after listing /proc for
// new processes (see rescanEvery).
func (s *Sampler) take() (Sample, error) {
	start := time.Now()
	var err error
	switch {
	case s.known == nil || start.Sub(s.lastScan) >= rescanEvery:
		err = s.rescan()
	case start.Sub(s.lastList) >= listEvery:
		err = s.update()
	}
	if err != nil {
		return Sample{Time: start}, err
	}
	smp, gone, err := s.r.sample(s.members, s.pgid, s.re)
	if gone > 0 { // a member exited or left the group: not one any more
		for _, pid := range s.members {
			s.known[pid] = false
		}
		s.members = append(s.members[:0], s.r.sampled...)
		for _, pid := range s.members {
			s.known[pid] = true
		}
	}
	s.r.sweep()
	smp.Time = start // when the reading started, as Take's
	return smp, err
}

// rescan reads the stat of every process to find the members.
func (s *Sampler) rescan() error {
	known := map[int]bool{}
	pids, err := s.r.groupPIDsInto(s.pgid, known)
	if err != nil {
		return err
	}
	s.members, s.known = pids, known
	s.lastScan = time.Now()
	s.lastList = s.lastScan
	return nil
}

// update lists /proc and reads the stat of the processes not listed at
// the last look only.
func (s *Sampler) update() error {
	names, err := s.r.list()
	if err != nil {
		return err
	}
	known := make(map[int]bool, len(s.known))
	added := false
	for _, pid := range names {
		member, seen := s.known[pid]
		if !seen {
			member, err = s.r.isMember(pid, s.pgid)
			if err != nil {
				return err
			}
			added = added || member
		}
		known[pid] = member
	}
	s.known, s.lastList = known, time.Now()
	if added || len(s.members) == 0 {
		s.members = s.members[:0]
		for pid, member := range known {
			if member {
				s.members = append(s.members, pid)
			}
		}
		sort.Ints(s.members)
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
