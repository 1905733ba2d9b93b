// Package scaleout is the seam between a run and an engine that spreads
// its batches over the nodes of a cluster: one task per batch (a batch
// never spans nodes), each running `yardstick run --resume RUNDIR
// --batch NAME`, then one merge task that builds the fairness rows,
// tables and report from every batch's checkpoints.
//
// The runner knows engines only through [Engine]: which task this
// process is, how to resubmit what did not finish, and where the tasks'
// logs are. runner/slurm is one implementation (job arrays); a second
// engine (Kubernetes Indexed Jobs, docs/design.md#scale-out) would be
// another, and nothing else would change.
package scaleout

// A Task is one attempt of a batch as its engine placed it, recorded in
// nodes/<batch>.json (pipeline.NodeRun).
type Task struct {
	// Engine is the engine's name ("slurm").
	Engine string
	// Node is the engine's name of the node the task runs on; "" when
	// the engine does not say (the host name is taken then).
	Node string
	// Job is the task's own id in the engine, Group the id of the set of
	// tasks (an array, an indexed job) it belongs to, and Index its
	// index there.
	Job, Group, Index string
}

// An Engine places a run's batches on a cluster's nodes.
type Engine interface {
	// Name is the engine's name, as the command line says it.
	Name() string
	// Task is the task this process runs as, read from its environment
	// through getenv; false when this process is not one of the
	// engine's tasks.
	Task(getenv func(string) string) (Task, bool)
	// Resubmit is the command line that resubmits the unfinished
	// batches of the run directory rundir.
	Resubmit(rundir string) string
	// Logs is where the engine keeps the logs of rundir's tasks.
	Logs(rundir string) string
}

// Detect is the first engine whose task this process is, with the task;
// nil and a zero Task when it runs as none (run by hand).
func Detect(engines []Engine, getenv func(string) string) (Engine, Task) {
	for _, e := range engines {
		if t, ok := e.Task(getenv); ok {
			t.Engine = e.Name()
			return e, t
		}
	}
	return nil, Task{}
}
