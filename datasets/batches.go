package datasets

// A Batch is a batch as a row of the batches table: what every cell of a
// batch shares and a report must state with its numbers (plan.json's
// batch, pipeline.Batch).
type Batch struct {
	Batch        string
	Description  *string
	Processors   int64
	CPUsTarget   string
	CPUsServices *string
	CPUsLoadgen  string
	NoiseBand    float64
	Baseline     *string
	Repeats      int64
	Order        string
	Variants     int64
}

// Batches is the batches table: one row per batch of the plan, in plan
// order.
var Batches = newTable("batches",
	dictCol("batch", func(r *Batch) *string { return &r.Batch }),
	optTextCol("description", func(r *Batch) **string { return &r.Description }),
	int64Col("processors", func(r *Batch) *int64 { return &r.Processors }),
	dictCol("cpus_target", func(r *Batch) *string { return &r.CPUsTarget }),
	optDictCol("cpus_services", func(r *Batch) **string { return &r.CPUsServices }),
	dictCol("cpus_loadgen", func(r *Batch) *string { return &r.CPUsLoadgen }),
	float64Col("noise_band", func(r *Batch) *float64 { return &r.NoiseBand }),
	optDictCol("baseline", func(r *Batch) **string { return &r.Baseline }),
	int64Col("repeats", func(r *Batch) *int64 { return &r.Repeats }),
	dictCol("cell_order", func(r *Batch) *string { return &r.Order }),
	int64Col("variants", func(r *Batch) *int64 { return &r.Variants }),
)
