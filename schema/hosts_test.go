package schema

import (
	"strings"
	"testing"
)

// TestPlacementHosts: hosts defaults to the same host, which the plan
// leaves out (cell ids do not move); "separate" is kept; anything else is
// a schema error.
func TestPlacementHosts(t *testing.T) {
	load := func(hosts string) (*Definition, error) {
		src := `exp: {
	description: "d"
	batches: main: {
		placement: {target: "0", loadgen: "1"` + hosts + `}
		workload: {request: path: "/x", concurrency: [1]}
		targets: g: {kind: "go", cmd: ["x"]}
	}
}
`
		return LoadSources("x.cue", []SourceFile{{Path: "x.cue", Content: []byte(src)}})
	}
	for hosts, want := range map[string]string{"": "", `, hosts: "same"`: "", `, hosts: "separate"`: "separate"} {
		def, err := load(hosts)
		if err != nil {
			t.Fatalf("%q: %v", hosts, err)
		}
		e, err := def.Experiment("")
		if err != nil {
			t.Fatal(err)
		}
		if got := e.Batches[0].Placement.Hosts; got != want {
			t.Errorf("%q: Placement.Hosts = %q, want %q", hosts, got, want)
		}
		if e.Batches[0].Placement.TwoHost() != (want == "separate") {
			t.Errorf("%q: TwoHost = %v", hosts, e.Batches[0].Placement.TwoHost())
		}
	}
	if _, err := load(`, hosts: "other"`); err == nil || !strings.Contains(err.Error(), "hosts") {
		t.Errorf("hosts \"other\": err = %v, want a schema error on hosts", err)
	}
}
