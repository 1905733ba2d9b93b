package pipeline

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
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
	// Limits is left out when nil, so that cells without limits keep
	// their ids.
	Limits *Limits `json:"limits,omitempty"`
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
		Limits:     v.Limits,
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

// Verify checks that the plan is what it was when it was made: each
// cell's id is the hash of its resolved form (so its point, repeat,
// batch and variant are the ones it was measured with), its argv, env
// and kind are its variant's, its name is made of its batch, variant,
// point and repeat, and the plan hash is the hash of the ids. Check must
// have passed. A plan edited by hand or by accident fails with the cell
// and what differs; a forgery that recomputes every hash is not caught
// here.
func (p *Plan) Verify() error {
	for i := range p.Cells {
		c := &p.Cells[i]
		b := p.Batch(c.Batch)
		v := b.Variant(c.Variant)
		if b == nil || v == nil {
			return fmt.Errorf("cell %s: variant %q of batch %q is not in the plan", c.ID, c.Variant, c.Batch)
		}
		if id := CellID(p.Experiment, b, v, c); id != c.ID {
			return fmt.Errorf("cell %s (%s) hashes to %s: plan.json was changed after it was made", c.ID, c.Name, id)
		}
		if !slices.Equal(c.Argv, v.Argv) || !slices.Equal(c.Env, v.Env) || c.Kind != v.Kind {
			return fmt.Errorf("cell %s (%s) has an argv, env or kind other than its variant's: plan.json was changed after it was made", c.ID, c.Name)
		}
		if name := fmt.Sprintf("%s/%s/%s/r%d", b.Name, v.Label, c.Point.Label(), c.Repeat); c.Name != name {
			return fmt.Errorf("cell %s is named %q, its batch, variant, point and repeat make %q: plan.json was changed after it was made", c.ID, c.Name, name)
		}
	}
	if sum := PlanHash(p.Cells); sum != p.Hash {
		return fmt.Errorf("plan hash %s does not match its cells (%s): plan.json was changed after it was made", shortHash(p.Hash), shortHash(sum))
	}
	return nil
}

// shortHash is the first 16 hex digits of a hash, for messages.
func shortHash(h string) string {
	if len(h) > 16 {
		return h[:16]
	}
	return h
}
