package validate

import (
	"context"
	"strings"
	"testing"

	"yardstick/schema"
)

func holdFindings(t *testing.T, hold string, m Machine) []Finding {
	t.Helper()
	src := `h: {
	description: "hold"
	batches: main: {
		placement: {target: "0", loadgen: "1"}
		workload: {request: path: "/ws/heartbeat", hold: ` + hold + `}
		targets: g: {kind: "go", cmd: ["bin/sample-go"]}
	}
}
`
	res, err := LoadSources(context.Background(), "h.cue", []schema.SourceFile{{Path: "h.cue", Content: []byte(src)}}, Options{Machine: m})
	if err != nil {
		t.Fatal(err)
	}
	return res.Findings
}

func TestCheckHold(t *testing.T) {
	roomy := Machine{CPUs: 2, EphemeralPorts: 28232, NoFileHard: 1 << 20}
	if fs := holdFindings(t, `{steps: [10000, 30000, 50000], stepHold: "60s"}`, roomy); len(fs) != 0 {
		t.Errorf("a sound hold: %v", fs)
	}
	for _, c := range []struct {
		name, hold string
		m          Machine
		want       string // in one finding, at the line of workload
	}{
		{"decreasing", `{steps: [100, 50], stepHold: "1s"}`, roomy, "h.cue:5:"},
		{"decreasing msg", `{steps: [100, 50], stepHold: "1s"}`, roomy, "hold.steps[1] = 50"},
		{"heartbeat", `{steps: [100], stepHold: "1s", heartbeat: "50ms"}`, roomy, "whole milliseconds from 100ms to 10m"},
		{"http", `{protocol: "http", steps: [100], stepHold: "1s"}`, roomy, "not run by the load generator yet"},
		{"too long", `{steps: [100, 200], stepHold: "40m"}`, roomy, "more than one load generator run may"},
		{"ports", `{steps: [50000], stepHold: "1s", sourceAddrs: 2}`, roomy, "50000 connections need more than 2 source address(es) x 21174 usable ephemeral ports"},
		{"fds", `{steps: [50000], stepHold: "1s"}`, Machine{CPUs: 2, EphemeralPorts: 28232, NoFileHard: 20000}, "hard RLIMIT_NOFILE here is 20000 and yardstick may not raise it"},
		{"unknown ports", `{steps: [50], stepHold: "1s"}`, Machine{CPUs: 2, NoFileHard: 1 << 20}, "warning: batch main: this machine's ephemeral port range is unknown"},
		{"unknown fds", `{steps: [50], stepHold: "1s"}`, Machine{CPUs: 2, EphemeralPorts: 28232}, "RLIMIT_NOFILE is unknown"},
	} {
		fs := holdFindings(t, c.hold, c.m)
		var all []string
		found := false
		for _, f := range fs {
			all = append(all, f.String())
			found = found || strings.Contains(f.String(), c.want)
		}
		if !found {
			t.Errorf("%s: want a finding with %q, got %q", c.name, c.want, all)
		}
	}
	// raisable: a low hard limit that the process may raise is no error
	if fs := holdFindings(t, `{steps: [50000], stepHold: "1s"}`, Machine{CPUs: 2, EphemeralPorts: 28232, NoFileHard: 20000, NoFileRaisable: true}); len(fs) != 0 {
		t.Errorf("raisable limit: %v", fs)
	}
	// a hold beside request axes
	fs := holdFindings(t, `{steps: [10], stepHold: "1s"}, concurrency: [1]`, roomy)
	if len(fs) == 0 || !strings.Contains(fs[0].String(), "drop concurrency, rate and payload") {
		t.Errorf("hold with concurrency: %v", fs)
	}
}
