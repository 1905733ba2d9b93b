package plan

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"

	"yardstick/pipeline"
)

// IDLength is the number of hex digits of a cell id.
const IDLength = pipeline.CellIDLength

// canonicalCell is the resolved form a cell id hashes: everything that
// changes what the cell measures, and nothing that depends on how the
// definition was written (field order, formatting, comments) or on its
// position in the run order. Maps are sorted by encoding/json.
type canonicalCell struct {
	Experiment string             `json:"experiment"`
	Batch      string             `json:"batch"`
	Target     string             `json:"target"`
	Kind       string             `json:"kind"`
	Knobs      []pipeline.Knob    `json:"knobs"`
	Argv       []string           `json:"argv"`
	Env        []string           `json:"env"`
	Dir        string             `json:"dir"`
	Port       int                `json:"port"`
	Ready      string             `json:"ready"`
	Build      []string           `json:"build"`
	Request    pipeline.Request   `json:"request"`
	Timeout    pipeline.Duration  `json:"timeout"`
	Point      pipeline.Point     `json:"point"`
	Repeat     int                `json:"repeat"`
	Windows    pipeline.Windows   `json:"windows"`
	Placement  pipeline.Placement `json:"placement"`
	Processors int                `json:"processors"`
	Sampling   pipeline.Sampling  `json:"sampling"`
	Services   []pipeline.Process `json:"services"`
}

// CellID returns the id of cell c of variant v in batch b of experiment
// exp: the first IDLength hex digits of the sha256 of its canonical form.
func CellID(exp string, b *pipeline.Batch, v *pipeline.Variant, c *pipeline.Cell) string {
	cc := canonicalCell{
		Experiment: exp,
		Batch:      b.Name,
		Target:     v.Target,
		Kind:       v.Kind,
		Knobs:      v.Knobs,
		Argv:       v.Argv,
		Env:        v.Env,
		Dir:        v.Dir,
		Port:       v.Port,
		Ready:      v.Ready,
		Build:      v.Build,
		Request:    b.Request,
		Timeout:    b.Timeout,
		Point:      c.Point,
		Repeat:     c.Repeat,
		Windows:    b.Windows,
		Placement:  b.Placement,
		Processors: b.Processors,
		Sampling:   b.Sampling,
		Services:   b.Services,
	}
	j, err := json.Marshal(cc)
	if err != nil {
		// Every field is a plain value; Marshal cannot fail.
		panic("plan: marshal canonical cell: " + err.Error())
	}
	sum := sha256.Sum256(j)
	return hex.EncodeToString(sum[:])[:IDLength]
}
