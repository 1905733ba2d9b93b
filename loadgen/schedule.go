package loadgen

import "time"

// Schedule is the open loop's timetable. With N connections and a rate of R
// requests per second, connection i sends its k-th request at
// (k*N + i) / R seconds after the start: each connection keeps its own
// schedule, and the slots of all of them interleave into one constant
// arrival rate. A connection still waiting for a response when its slot
// comes sends as soon as it is free, and that request's latency is measured
// from the slot, not from the late send (wrk2's correction for coordinated
// omission).
type Schedule struct {
	Connections int64
	Rate        float64 // requests per second, all connections together
}

// At returns the intended send time, in nanoseconds after the start, of
// connection conn's k-th request (both counted from 0).
func (s Schedule) At(conn, k int64) int64 {
	return int64(float64(k*s.Connections+conn) * float64(time.Second) / s.Rate)
}

// Due returns how many requests the schedule asks for in the first elapsed
// nanoseconds, all connections together.
func (s Schedule) Due(elapsed int64) int64 {
	if elapsed <= 0 {
		return 0
	}
	return int64(float64(elapsed)*s.Rate/float64(time.Second)) + 1
}

// dueHeap is a min-heap of idle connections by the slot they wait for. It
// is hand-written (container/heap would box every push in an interface).
type dueHeap []*conn

func (h *dueHeap) push(c *conn, at int64) {
	c.dueAt = at
	c.heapIdx = len(*h)
	*h = append(*h, c)
	h.up(c.heapIdx)
}

func (h *dueHeap) pop() *conn {
	old := *h
	c := old[0]
	last := len(old) - 1
	old[0] = old[last]
	old[0].heapIdx = 0
	old[last] = nil
	*h = old[:last]
	if last > 0 {
		h.down(0)
	}
	c.heapIdx = -1
	return c
}

func (h *dueHeap) remove(c *conn) {
	i := c.heapIdx
	old := *h
	last := len(old) - 1
	if i != last {
		old[i] = old[last]
		old[i].heapIdx = i
	}
	old[last] = nil
	*h = old[:last]
	if i != last {
		h.down(i)
		h.up(i)
	}
	c.heapIdx = -1
}

func (h dueHeap) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if h[p].dueAt <= h[i].dueAt {
			return
		}
		h.swap(i, p)
		i = p
	}
}

func (h dueHeap) down(i int) {
	for {
		l := 2*i + 1
		if l >= len(h) {
			return
		}
		m := l
		if r := l + 1; r < len(h) && h[r].dueAt < h[l].dueAt {
			m = r
		}
		if h[i].dueAt <= h[m].dueAt {
			return
		}
		h.swap(i, m)
		i = m
	}
}

func (h dueHeap) swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].heapIdx = i
	h[j].heapIdx = j
}
