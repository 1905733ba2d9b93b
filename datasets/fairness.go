package datasets

import "yardstick/pipeline"

// FairnessFile is the file in the run directory that the fairness checks
// write and the datasets stage copies into the fairness table: a JSON
// array of [FairnessCheck] objects.
const FairnessFile = "fairness.json"

// Fairness check scopes.
const (
	ScopeCell       = "cell"
	ScopeBatch      = "batch"
	ScopeExperiment = "experiment"
)

// A FairnessCheck is one row of the fairness table, and one element of
// fairness.json: one check of one cell, one batch or the whole experiment
// (pipeline.FairnessRow, which the fairness stage writes).
type FairnessCheck = pipeline.FairnessRow

// Fairness is the fairness table: check x cell or batch, in the order of
// fairness.json; empty while a run has none.
var Fairness = newTable("fairness",
	dictCol("check_name", func(r *FairnessCheck) *string { return &r.Check }),
	dictCol("scope", func(r *FairnessCheck) *string { return &r.Scope }),
	dictCol("batch", func(r *FairnessCheck) *string { return &r.Batch }),
	optDictCol("cell_id", func(r *FairnessCheck) **string { return &r.CellID }),
	optFloat64Col("expected", func(r *FairnessCheck) **float64 { return &r.Expected }),
	optFloat64Col("measured", func(r *FairnessCheck) **float64 { return &r.Measured }),
	optFloat64Col("tolerance", func(r *FairnessCheck) **float64 { return &r.Tolerance }),
	optDictCol("unit", func(r *FairnessCheck) **string { return &r.Unit }),
	boolCol("pass", func(r *FairnessCheck) *bool { return &r.Pass }),
	optTextCol("detail", func(r *FairnessCheck) **string { return &r.Detail }),
)
