package datasets

import "time"

// An Environment is one row of the environment table: a machine and
// toolchains the run ran on. A run on one machine has one row
// (environment.json), with Node and Batches null; a run whose batches ran
// as separate tasks on a cluster (yardstick slurm) has one row per node,
// from the batches' node records, with the batches that ran there.
type Environment struct {
	Host             string
	Kernel           string
	OS               string
	Arch             string
	CPUModel         string
	Cores            int64
	Governor         *string
	MemoryBytes      int64
	GoVersion        *string
	JavaVersion      *string
	YardstickVersion string
	SourceHash       string
	PlanHash         string
	PlannedCells     int64
	Captured         *time.Time
	Workdir          string
	Node             *string
	Batches          *string
}

// Environments is the environment table: one row per machine the run ran
// on (one for a run on one machine, one per node on a cluster).
var Environments = newTable("environment",
	textCol("host", func(r *Environment) *string { return &r.Host }),
	textCol("kernel", func(r *Environment) *string { return &r.Kernel }),
	textCol("os", func(r *Environment) *string { return &r.OS }),
	textCol("arch", func(r *Environment) *string { return &r.Arch }),
	textCol("cpu_model", func(r *Environment) *string { return &r.CPUModel }),
	int64Col("cores", func(r *Environment) *int64 { return &r.Cores }),
	optTextCol("governor", func(r *Environment) **string { return &r.Governor }),
	int64Col("memory_bytes", func(r *Environment) *int64 { return &r.MemoryBytes }),
	optTextCol("go_version", func(r *Environment) **string { return &r.GoVersion }),
	optTextCol("java_version", func(r *Environment) **string { return &r.JavaVersion }),
	textCol("yardstick_version", func(r *Environment) *string { return &r.YardstickVersion }),
	textCol("source_hash", func(r *Environment) *string { return &r.SourceHash }),
	textCol("plan_hash", func(r *Environment) *string { return &r.PlanHash }),
	int64Col("planned_cells", func(r *Environment) *int64 { return &r.PlannedCells }),
	optTimeCol("captured", func(r *Environment) **time.Time { return &r.Captured }),
	textCol("workdir", func(r *Environment) *string { return &r.Workdir }),
	optTextCol("node", func(r *Environment) **string { return &r.Node }),
	optTextCol("batches", func(r *Environment) **string { return &r.Batches }),
)
