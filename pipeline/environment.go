package pipeline

import "time"

// Environment describes the machine and toolchains of a run
// (environment.json): a result belongs to its machine.
type Environment struct {
	Host string `json:"host"`
	// Fingerprint is what a rerun must find unchanged (its fields are
	// flattened into environment.json).
	Fingerprint
	Yardstick  string    `json:"yardstick_version"`
	SourceHash string    `json:"source_hash"`
	PlanHash   string    `json:"plan_hash"`
	Captured   time.Time `json:"captured"`
	Workdir    string    `json:"workdir"`
}
