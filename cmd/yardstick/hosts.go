package main

import (
	"flag"
	"net"
	"os"

	"yardstick/pipeline"
	"yardstick/runner"
	"yardstick/stages/execute"
	"yardstick/stages/execute/hosts"
)

// hostFlags are run's hosts of the two-host batches (placement.hosts
// "separate"): who the hosts are is given at run time, never in the
// definition.
type hostFlags struct {
	target, loadgen, addr *string
}

func addHostFlags(fs *flag.FlagSet) *hostFlags {
	return &hostFlags{
		target:  fs.String("target-host", "", "two-host batches: where the target and its services run: local, netns:NAME (ip netns exec NAME)"),
		loadgen: fs.String("loadgen-host", "", "two-host batches: where the load generator runs: local, netns:NAME, or srun:N (component N of the Slurm heterogeneous job this runs in)"),
		addr:    fs.String("target-addr", "", "two-host batches: the target host's IP address the load goes to; it must be the target host's own (and, in a Slurm job, a job node's); derived from this node in a Slurm job"),
	}
}

// pair resolves the flags into the hosts of the run; nil when none was
// given.
func (f *hostFlags) pair() (*hosts.Pair, error) {
	if *f.target == "" && *f.loadgen == "" && *f.addr == "" {
		return nil, nil
	}
	if *f.loadgen == "" {
		return nil, usagef("--target-host and --target-addr go with --loadgen-host: name the load generator's host")
	}
	var p hosts.Pair
	var err error
	if p.Target, err = hosts.Parse(*f.target); err != nil {
		return nil, usagef("--target-host: %v", err)
	}
	if p.Loadgen, err = hosts.Parse(*f.loadgen); err != nil {
		return nil, usagef("--loadgen-host: %v", err)
	}
	p, err = p.Resolve(*f.addr, hosts.Env{Getenv: os.Getenv, LookupIP: net.LookupIP})
	if err != nil {
		return nil, err
	}
	return &p, nil
}

// checkHosts refuses a plan whose two-host batches have no hosts, or
// hosts no batch uses, before a run directory is made for it.
func checkHosts(p *pipeline.Plan, o runner.Options) error {
	return execute.CheckHosts(p, o.Only, o.Hosts)
}
