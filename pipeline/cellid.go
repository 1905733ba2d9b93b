package pipeline

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
)

// canonicalCell is the resolved form a cell id hashes: everything that
// changes what the cell measures, and nothing that depends on how the
// definition was written (field order, formatting, comments) or on its
// position in the run order. Maps are sorted by encoding/json.
type canonicalCell struct {
	Experiment string    `json:"experiment"`
	Batch      string    `json:"batch"`
	Target     string    `json:"target"`
	Kind       string    `json:"kind"`
	Knobs      []Knob    `json:"knobs"`
	Argv       []string  `json:"argv"`
	Env        []string  `json:"env"`
	Dir        string    `json:"dir"`
	Port       int       `json:"port"`
	Ready      string    `json:"ready"`
	Build      []string  `json:"build"`
	Request    Request   `json:"request"`
	Timeout    Duration  `json:"timeout"`
	Point      Point     `json:"point"`
	Repeat     int       `json:"repeat"`
	Windows    Windows   `json:"windows"`
	Placement  Placement `json:"placement"`
	Processors int       `json:"processors"`
	Sampling   Sampling  `json:"sampling"`
	Services   []Process `json:"services"`
}

// CellID returns the id of cell c of variant v in batch b of experiment
// exp: the first IDLength hex digits of the sha256 of its canonical form.
func CellID(exp string, b *Batch, v *Variant, c *Cell) string {
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
		panic("pipeline: marshal canonical cell: " + err.Error())
	}
	sum := sha256.Sum256(j)
	return hex.EncodeToString(sum[:])[:CellIDLength]
}

// PlanHash is the hash of a plan: the sha256 of its cell ids in run order,
// one per line. Two plans with the same hash run the same cells in the
// same order.
func PlanHash(cells []Cell) string {
	h := sha256.New()
	for _, c := range cells {
		h.Write([]byte(c.ID))
		h.Write([]byte{'\n'})
	}
	return hex.EncodeToString(h.Sum(nil))
}
