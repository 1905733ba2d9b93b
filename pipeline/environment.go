package pipeline

import "time"

// Environment describes the machine and toolchains of a run
// (environment.json): a result belongs to its machine.
type Environment struct {
	Host        string    `json:"host"`
	Kernel      string    `json:"kernel"`
	OS          string    `json:"os"`
	Arch        string    `json:"arch"`
	CPUModel    string    `json:"cpu_model"`
	Cores       int       `json:"cores"`
	Governor    string    `json:"governor"`
	MemoryBytes int64     `json:"memory_bytes"`
	GoVersion   string    `json:"go_version"`
	JavaVersion string    `json:"java_version"`
	Yardstick   string    `json:"yardstick_version"`
	SourceHash  string    `json:"source_hash"`
	PlanHash    string    `json:"plan_hash"`
	Captured    time.Time `json:"captured"`
	Workdir     string    `json:"workdir"`
}
