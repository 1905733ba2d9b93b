package pipeline

import (
	"fmt"
	"regexp"
)

// NameRE is the spelling of experiment, batch, target and service names:
// a plain file name, so that a name can become part of a path.
var NameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]*$`)

// LabelRE is the spelling of a variant label: a target name and its knob
// values joined by '-', also a plain file name.
var LabelRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.%+=,:@-]*$`)

// CellIDLength is the number of hex digits of a cell id.
const CellIDLength = 12

var cellIDRE = regexp.MustCompile(fmt.Sprintf(`^[0-9a-f]{%d}$`, CellIDLength))

// maxNameLength bounds a name that becomes part of a file name.
const maxNameLength = 200

// CheckName reports whether s may name an experiment, a batch, a target
// or a service (what names a directory or a file must be).
func CheckName(what, s string) error {
	if len(s) > maxNameLength || !NameRE.MatchString(s) || s == "." || s == ".." {
		return fmt.Errorf("%s %q is not a plain name (letters, digits, '.', '_' and '-', starting with a letter or digit)", what, s)
	}
	return nil
}

// CheckLabel reports whether s may be a variant label: it names start
// directories and chart files.
func CheckLabel(s string) error {
	if len(s) > maxNameLength || !LabelRE.MatchString(s) {
		return fmt.Errorf("variant label %q is not a plain name", s)
	}
	return nil
}

// Check re-validates a plan read from a run directory, which may have
// been sent from elsewhere or edited: every name that becomes part of a
// path is a plain name, cell ids are ids, and every cell names a batch
// and a variant of the plan. A plan that fails is refused before anything
// is read, written or run on its behalf.
func (p *Plan) Check() error {
	if err := CheckName("experiment", p.Experiment); err != nil {
		return err
	}
	for bi := range p.Batches {
		b := &p.Batches[bi]
		if err := CheckName("batch", b.Name); err != nil {
			return err
		}
		for _, v := range b.Variants {
			if err := CheckName("target", v.Target); err != nil {
				return fmt.Errorf("batch %s: %w", b.Name, err)
			}
			if err := CheckLabel(v.Label); err != nil {
				return fmt.Errorf("batch %s: %w", b.Name, err)
			}
		}
		for _, s := range b.Services {
			if err := CheckName("service", s.Name); err != nil {
				return fmt.Errorf("batch %s: %w", b.Name, err)
			}
		}
	}
	seen := map[string]bool{}
	for i := range p.Cells {
		c := &p.Cells[i]
		if !cellIDRE.MatchString(c.ID) {
			return fmt.Errorf("cell %d: id %q is not %d hex digits", i, c.ID, CellIDLength)
		}
		if seen[c.ID] {
			return fmt.Errorf("cell %s appears twice", c.ID)
		}
		seen[c.ID] = true
		b := p.Batch(c.Batch)
		if b == nil {
			return fmt.Errorf("cell %s: batch %q is not in the plan", c.ID, c.Batch)
		}
		if v := b.Variant(c.Variant); v == nil || v.Target != c.Target {
			return fmt.Errorf("cell %s: variant %q of target %q is not in batch %s", c.ID, c.Variant, c.Target, c.Batch)
		}
		if c.StartSeq < 0 || c.Repeat < 0 {
			return fmt.Errorf("cell %s: negative start or repeat", c.ID)
		}
	}
	return nil
}
