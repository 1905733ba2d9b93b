package pipeline

import "testing"

// TestBuiltBinaries: a file made by a build step is not compared before
// the build (Diff skips it), is recorded by the first build of the run,
// and must be the same after a later build (CheckBuilt).
func TestBuiltBinaries(t *testing.T) {
	pending := Binary{Batch: "b", Owner: "v", Role: "command", Path: "bin/t", Build: true}
	l := &Lock{Binaries: []Binary{pending}}
	if d := l.Diff(&Lock{Binaries: []Binary{pending}}); len(d) != 0 {
		t.Fatalf("drift before any build: %v", d)
	}
	first := pending
	first.SHA256 = "aa"
	if _, differs := l.CheckBuilt(first); differs || l.Binaries[0].SHA256 != "aa" {
		t.Fatalf("first build not recorded: %+v", l.Binaries[0])
	}
	if d := l.Diff(&Lock{Binaries: []Binary{pending}}); len(d) != 0 {
		t.Fatalf("a resume before its build drifts: %v", d)
	}
	if _, differs := l.CheckBuilt(first); differs {
		t.Fatal("the same build drifts")
	}
	other := pending
	other.SHA256 = "bb"
	d, differs := l.CheckBuilt(other)
	if !differs || d.Was != "sha256 aa" || d.Now != "sha256 bb" || l.Binaries[0].SHA256 != "aa" {
		t.Fatalf("another build: drift %v (%v), lock %+v", d, differs, l.Binaries[0])
	}
	// An entry hashed before its build by an older yardstick ("missing")
	// does not count.
	old := &Lock{Binaries: []Binary{{Batch: "b", Owner: "v", Role: "command", Path: "bin/t", Error: "missing"}}}
	if _, differs := old.CheckBuilt(first); differs || old.Binaries[0].SHA256 != "aa" {
		t.Fatalf("a pre-build entry of an older lock: %+v", old.Binaries[0])
	}
}
