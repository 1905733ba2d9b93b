package execute

import (
	"context"

	"yardstick/pipeline"
	"yardstick/stages/execute/cgroup"
	"yardstick/stages/execute/hosts"
	"yardstick/stages/execute/machine"
)

// The stage's entry points for what the runner needs of this machine and
// of a two-host batch's hosts, so that the runner imports the stage, not
// its sub-packages.

// Hosts are the resolved hosts of the two-host batches (Options.Hosts).
type Hosts = hosts.Pair

// Environment describes this machine now, for environment.json and the
// lock's fingerprint.
func Environment(ctx context.Context) pipeline.Environment { return machine.Capture(ctx) }

// Lock takes the lock of plan p on this machine now: the hashes of its
// binaries and the machine's fingerprint.
func Lock(p *pipeline.Plan, workdir string, env pipeline.Environment) *pipeline.Lock {
	return machine.Lock(p, workdir, env)
}

// CgroupsAvailable says whether a control group per target start can be
// made here: nil, or an error naming what is missing (the hierarchy, root
// or a delegated subtree). A batch with limits needs one.
func CgroupsAvailable() error { return cgroup.Available() }
