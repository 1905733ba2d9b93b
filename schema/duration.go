package schema

import (
	"encoding/json"
	"fmt"
	"time"
)

// Duration is a time.Duration written in CUE and JSON as a Go duration
// string ("20s"). It marshals back in Go's canonical form, so "20000ms" and
// "20s" are the same duration in a plan.
type Duration time.Duration

// D returns d as a time.Duration.
func (d Duration) D() time.Duration { return time.Duration(d) }

// String formats d in Go's canonical form.
func (d Duration) String() string { return time.Duration(d).String() }

// MarshalJSON writes d as a duration string.
func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(d.String()) }

// UnmarshalJSON reads a duration string.
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("duration: want a string such as \"20s\": %w", err)
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("duration %q: %w", s, err)
	}
	if v < 0 {
		return fmt.Errorf("duration %q: negative", s)
	}
	*d = Duration(v)
	return nil
}
