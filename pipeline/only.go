package pipeline

import (
	"fmt"
	"path"
	"strings"
)

// Only is the --only selector of run, rerun and the scale-out verbs: a glob over cell
// names (path.Match: "main/go/*/r1") or one cell id. The zero Only
// selects every cell. It is parsed once, from the flag (ParseOnly) or
// from a file that recorded it (UnmarshalText), and then only asked.
type Only struct {
	pattern string
}

// ParseOnly reads a --only value; "" selects every cell, a glob that
// path.Match cannot read is an error.
func ParseOnly(s string) (Only, error) {
	if s == "" {
		return Only{}, nil
	}
	if _, err := path.Match(s, ""); err != nil {
		return Only{}, fmt.Errorf("--only %q: %w", s, err)
	}
	return Only{pattern: s}, nil
}

// Selects reports whether c is selected: every cell for the zero Only,
// else the cell whose id is the value or whose name the glob matches.
func (o Only) Selects(c *Cell) bool {
	if o.pattern == "" || c.ID == o.pattern {
		return true
	}
	ok, err := path.Match(o.pattern, c.Name)
	return err == nil && ok
}

// All reports whether o selects every cell (no --only given).
func (o Only) All() bool { return o.pattern == "" }

// String returns the value as given, "" for every cell.
func (o Only) String() string { return o.pattern }

// MarshalText writes the value as given.
func (o Only) MarshalText() ([]byte, error) { return []byte(o.pattern), nil }

// UnmarshalText reads a value as ParseOnly does.
func (o *Only) UnmarshalText(b []byte) error {
	v, err := ParseOnly(string(b))
	if err != nil {
		return err
	}
	*o = v
	return nil
}

// Check returns an error when o selects none of cells, naming a few of
// their names: a mistyped glob would otherwise run nothing and succeed.
// path.Match's * does not cross a /: "main/*" matches no cell name, which
// has four parts; "main/*/*/*" matches every cell of batch main.
func (o Only) Check(cells []Cell) error {
	if o.pattern == "" {
		return nil
	}
	var names []string
	for i := range cells {
		if o.Selects(&cells[i]) {
			return nil
		}
		if len(names) < 3 {
			names = append(names, cells[i].Name)
		}
	}
	return fmt.Errorf("--only %q selects none of the plan's %d cells (a * does not cross a /; names look like %s; yardstick plan lists them)",
		o.pattern, len(cells), strings.Join(names, ", "))
}
