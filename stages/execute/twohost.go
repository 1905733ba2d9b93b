package execute

import (
	"errors"
	"fmt"
	"net"
	"slices"
	"strconv"
	"time"

	"yardstick/loadgen"
	"yardstick/pipeline"
	"yardstick/stages/execute/hosts"
)

// loadgenMasks takes the load generator's CPU masks from its own result
// when yardstick read none (the load generator runs on another node).
func loadgenMasks(a *pipeline.Affinity, res *loadgen.Result) {
	if a != nil && len(a.Loadgen) == 0 && res != nil && len(res.Affinity) > 0 {
		a.Loadgen = slices.Clone(res.Affinity)
	}
}

// The hosts of a batch. A one-host batch runs everything here; a two-host
// batch (placement.hosts "separate") starts its target and services on
// Options.Hosts.Target and its load generator on Options.Hosts.Loadgen,
// and loads the target host's address, the one address the load
// generator is allowed besides loopback.

func (r *planRun) targetHost(b *pipeline.Batch) hosts.Host {
	if b.Placement.TwoHost() && r.opts.Hosts != nil {
		return r.opts.Hosts.Target
	}
	return hosts.Local
}

func (r *planRun) loadgenHost(b *pipeline.Batch) hosts.Host {
	if b.Placement.TwoHost() && r.opts.Hosts != nil {
		return r.opts.Hosts.Loadgen
	}
	return hosts.Local
}

// startHosts is what a start record says of a two-host batch's hosts.
func (r *planRun) startHosts(b *pipeline.Batch) *pipeline.StartHosts {
	if !b.Placement.TwoHost() || r.opts.Hosts == nil {
		return nil
	}
	h := r.opts.Hosts
	return &pipeline.StartHosts{Target: h.Target.String(), Loadgen: h.Loadgen.String(), TargetAddr: h.Addr}
}

// targetDial reaches the target host's processes from yardstick: the
// ready and {vary} probes, the free-port check.
func (r *planRun) targetDial(b *pipeline.Batch, timeout time.Duration) hosts.DialFunc {
	return r.targetHost(b).Dialer(timeout)
}

// targetURL is the base URL the load generator sends to for a target on
// port, and the allow-list its spec carries: loopback on one host, the
// target host's address on two.
func (r *planRun) targetURL(b *pipeline.Batch, port int) (string, []string) {
	if b.Placement.TwoHost() && r.opts.Hosts != nil && r.opts.Hosts.Addr != "" {
		a := r.opts.Hosts.Addr
		return "http://" + net.JoinHostPort(a, strconv.Itoa(port)), []string{a}
	}
	return "http://127.0.0.1:" + strconv.Itoa(port), nil
}

// CheckHosts is the check Run makes before any cell, over the cells
// --only selects: a two-host batch needs h, and h needs a two-host
// batch.
func CheckHosts(p *pipeline.Plan, only pipeline.Only, h *hosts.Pair) error {
	var sel []pipeline.Cell
	for _, c := range p.Cells {
		if only.Selects(&c) {
			sel = append(sel, c)
		}
	}
	return checkHosts(p, sel, h)
}

// checkHosts refuses, before any cell runs, a two-host batch without
// hosts (it would otherwise run on one host and say nothing) and hosts
// that no batch to run uses.
func checkHosts(p *pipeline.Plan, todo []pipeline.Cell, h *hosts.Pair) error {
	twoHost := map[string]bool{}
	for _, b := range p.Batches {
		twoHost[b.Name] = b.Placement.TwoHost()
	}
	var names []string
	seen := map[string]bool{}
	for _, c := range todo {
		if twoHost[c.Batch] && !seen[c.Batch] {
			seen[c.Batch] = true
			names = append(names, c.Batch)
		}
	}
	switch {
	case len(names) > 0 && h == nil:
		return fmt.Errorf("batch %s: %w", names[0], hosts.ErrNoHosts)
	case len(names) > 0 && h.Addr == "":
		return errors.New("two-host batch: the target host's address is not resolved (hosts.Pair.Resolve)")
	case len(names) == 0 && h != nil && len(todo) > 0:
		return fmt.Errorf("hosts were given (target %s, load generator %s) but no batch to run declares placement.hosts \"separate\"", h.Target, h.Loadgen)
	}
	return nil
}
