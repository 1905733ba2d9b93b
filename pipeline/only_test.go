package pipeline

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestOnly: a glob over names or one id selects; nothing given selects
// every cell; a bad glob is refused when parsed, not silently matching
// nothing; the value survives a JSON file (slurm/prepared.json).
func TestOnly(t *testing.T) {
	c := &Cell{ID: "0123456789ab", Name: "main/go/c4/r1"}
	for _, tc := range []struct {
		only string
		want bool
	}{
		{"", true}, {"main/go/*/*", true}, {"main/*/c4/r1", true}, {"0123456789ab", true},
		{"main/jvm/*", false}, {"main", false}, {"0123456789", false},
	} {
		o, err := ParseOnly(tc.only)
		if err != nil {
			t.Fatalf("ParseOnly(%q): %v", tc.only, err)
		}
		if got := o.Selects(c); got != tc.want || o.String() != tc.only || o.All() != (tc.only == "") {
			t.Errorf("--only %q: selects %v (want %v), String %q", tc.only, got, tc.want, o)
		}
	}
	if _, err := ParseOnly("["); err == nil || !strings.Contains(err.Error(), `--only "[": syntax error in pattern`) {
		t.Errorf("ParseOnly([): %v", err)
	}
	var doc struct {
		Only Only `json:"only,omitzero"`
	}
	o, _ := ParseOnly("main/*")
	doc.Only = o
	b, err := json.Marshal(doc)
	if err != nil || string(b) != `{"only":"main/*"}` {
		t.Errorf("marshal = %s, %v", b, err)
	}
	doc.Only = Only{}
	if b, _ := json.Marshal(doc); string(b) != `{}` {
		t.Errorf("no --only = %s", b)
	}
	if err := json.Unmarshal(b, &doc); err != nil || doc.Only != o {
		t.Errorf("read back %+v, %v", doc.Only, err)
	}
	if err := json.Unmarshal([]byte(`{"only":"["}`), &doc); err == nil {
		t.Error("a tampered glob read back without error")
	}
}
