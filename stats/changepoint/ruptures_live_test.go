//go:build integration

package changepoint

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"testing"
)

// TestIntegrationRupturesLive asks ruptures, the version requirements.txt
// pins, in the .venv of make pyenv, for the answers that
// TestRupturesReference compares Detect with: they must be the recorded
// ones, so that a recording that ruptures would not make again fails CI.
// It needs the .venv, not Go alone: build tag integration.
func TestIntegrationRupturesLive(t *testing.T) {
	root := repoRoot(t)
	var live reference
	if err := json.Unmarshal(askRuptures(t, root, refCases(t)), &live); err != nil {
		t.Fatalf("ruptures_ref.py output: %v", err)
	}
	if pin := pinnedVersion(t, filepath.Join(root, "requirements.txt"), "ruptures"); live.Ruptures != pin {
		t.Fatalf("ruptures %s in .venv, requirements.txt pins %s: run make pyenv", live.Ruptures, pin)
	}
	rec := readReference(t)
	if len(live.Cases) != len(rec.Cases) {
		t.Fatalf("ruptures answered %d cases, %s has %d: run make ruptures-reference", len(live.Cases), refFile, len(rec.Cases))
	}
	for i, c := range live.Cases {
		if r := rec.Cases[i]; c.Name != r.Name || !slices.Equal(c.Changepoints, r.Changepoints) {
			t.Errorf("ruptures %s: %s %v, %s records %s %v: run make ruptures-reference", live.Ruptures, c.Name, c.Changepoints, refFile, r.Name, r.Changepoints)
		}
	}
}
