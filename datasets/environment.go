package datasets

import "time"

// An Environment is the one row of the environment table: the machine and
// toolchains the run ran on (environment.json).
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
}

// Environments is the environment table: one row per run.
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
)
