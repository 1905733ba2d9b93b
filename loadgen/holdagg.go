package loadgen

import (
	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
	"maps"
	"slices"

	"yardstick/stats/hdrstat"
)

// holdAggregator joins the workers' interval and step tallies: it emits
// an interval, or closes a step, once every worker has handed in its
// tally for it. The steps add up to the whole run.
type holdAggregator struct {
	r        *holdRun
	pendingI map[int]*holdTally
	countI   map[int]int
	nextI    int
	pendingS map[int]*holdTally
	countS   map[int]int
	nextS    int
	whole    *holdTally
	steps    []HoldStep
	cpu0     CPUTime // at the start of the run
	cpuStep  CPUTime // at the end of the last step closed
	emit     func(Interval)
	enc      histEncoder
}

func newHoldAggregator(r *holdRun, cpu0 CPUTime, emit func(Interval)) *holdAggregator {
	return &holdAggregator{
		r: r, pendingI: map[int]*holdTally{}, countI: map[int]int{},
		pendingS: map[int]*holdTally{}, countS: map[int]int{},
		whole: newHoldTally(), cpu0: cpu0, cpuStep: cpu0, emit: emit,
	}
}

// take folds one worker's tally in and emits what is now complete.
func (a *holdAggregator) take(t *holdTally) {
	pending, count := a.pendingI, a.countI
	if t.isStep {
		pending, count = a.pendingS, a.countS
	}
	idx := t.index // t may go back to the workers below
	if p := pending[idx]; p == nil {
		pending[idx] = t
	} else {
		p.add(t)
		p.final = p.final || t.final
		a.recycle(t)
	}
	count[idx]++
	for a.countI[a.nextI] == a.r.nw {
		delete(a.countI, a.nextI)
		a.closeInterval(a.nextI)
		a.nextI++
	}
	for a.countS[a.nextS] == a.r.nw {
		delete(a.countS, a.nextS)
		a.closeStep(a.nextS)
		a.nextS++
	}
}

// flush emits what is left once every worker has stopped: the intervals
// and steps some workers never reached.
func (a *holdAggregator) flush() {
	// in index order, over what is there: a loop that counted up to the
	// next pending index could never end on an index below it
	for _, i := range slices.Sorted(maps.Keys(a.pendingI)) {
		a.closeInterval(i)
	}
	for _, i := range slices.Sorted(maps.Keys(a.pendingS)) {
		a.closeStep(i)
	}
}

func (a *holdAggregator) closeInterval(i int) {
	p := a.pendingI[i]
	delete(a.pendingI, i)
	if a.emit != nil {
		enc, _ := a.enc.encode(p.delay)
		cpu, _ := SelfCPU()
		start := int64(i) * a.r.step
		step := 0
		for step+1 < len(a.r.starts) && start >= int64(a.r.starts[step+1]) {
			step++
		}
		a.emit(Interval{
			Index: i, StartS: secs(start), DurationS: secs(p.duration), Hist: enc,
			Hold: &HoldCounts{
				Step: step, Requested: p.requested, Established: p.established,
				Refused: p.refused, Dropped: p.dropped, Open: p.open,
				Heartbeats: p.heartbeats, Missed: p.missed,
				DelayP50us: hdrstat.NewDist(p.delay).Percentile(50), DelayP99us: hdrstat.NewDist(p.delay).Percentile(99),
				DelayMaxus: p.delay.Max(), LatencyP99us: hdrstat.NewDist(p.latency).Percentile(99),
				ErrorsByKind: p.errorsByKind(), RSSBytes: selfRSS(),
				CPUS: cpu.Sub(a.cpu0).Total().Seconds(),
			},
		})
	}
	a.recycle(p)
}

func (a *holdAggregator) closeStep(i int) {
	p := a.pendingS[i]
	delete(a.pendingS, i)
	cpu, _ := SelfCPU()
	d := cpu.Sub(a.cpuStep)
	a.cpuStep = cpu
	enc, _ := p.delay.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
	var exit int64
	for _, w := range a.r.workers {
		exit = max(exit, w.exitAt)
	}
	st := HoldStep{
		Index: i, Connections: a.r.h.Steps[i],
		StartS: a.r.starts[i].Seconds(), OpenedS: a.r.opened[i].Seconds(), EndS: secs(a.r.stepEnds[i]),
		Complete:  !p.final || exit >= a.r.stepEnds[i],
		Requested: p.requested, Established: p.established, Refused: p.refused, Dropped: p.dropped,
		Held: p.open, Heartbeats: p.heartbeats, Missed: p.missed,
		Delay: latencyOf(p.delay), DelayHist: string(enc), Latency: latencyOf(p.latency),
		ErrorsByKind: p.errorsByKind(), Failure: p.targetFailure(),
		RSSBytes: selfRSS(), CPUS: d.Total().Seconds(), CPUUserS: d.User.Seconds(), CPUSysS: d.System.Seconds(),
	}
	if !st.Complete {
		st.EndS = secs(exit)
	}
	a.steps = append(a.steps, st)
	a.whole.add(p)
	a.recycle(p)
}

func (a *holdAggregator) recycle(t *holdTally) {
	t.clear()
	select {
	case a.r.free <- t:
	default:
	}
}
