package main

import (
	"os"
	"strings"
	"testing"

	"cuelang.org/go/cue/cuecontext"
	"cuelang.org/go/encoding/yaml"
)

// TestReviewWorkflowPrivileges: the example pull-request workflow runs on
// pull_request, never pull_request_target (whose jobs get the base
// repository's token and secrets while they run the pull request's code),
// its token has no permission by default, each job asks for what it needs
// alone, the one job that may write runs nothing of the pull request,
// no checkout keeps the token, and no expression is pasted into a script
// (an expression's value, a branch name, would become shell code).
func TestReviewWorkflowPrivileges(t *testing.T) {
	checkWorkflowPrivileges(t, "../../examples/ci/yardstick-review.yml", "review.sh comment")
}

// TestHistoryWorkflowPrivileges: the history workflow keeps the same
// rules; its comment job runs nothing of the pull request.
func TestHistoryWorkflowPrivileges(t *testing.T) {
	checkWorkflowPrivileges(t, "../../examples/ci/yardstick-history.yml", "history.sh comment")
}

// checkWorkflowPrivileges checks the workflow at path; commentCmd is the
// step that runs the pull request's code to make the comment.
func checkWorkflowPrivileges(t *testing.T, path, commentCmd string) {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := yaml.Extract(path, src)
	if err != nil {
		t.Fatal(err)
	}
	var wf struct {
		On          map[string]any `json:"on"`
		Permissions map[string]any `json:"permissions"`
		Jobs        map[string]struct {
			Permissions map[string]string `json:"permissions"`
			Steps       []struct {
				Uses string         `json:"uses"`
				Run  string         `json:"run"`
				With map[string]any `json:"with"`
			} `json:"steps"`
		} `json:"jobs"`
	}
	if err := cuecontext.New().BuildFile(f).Decode(&wf); err != nil {
		t.Fatal(err)
	}
	if _, ok := wf.On["pull_request"]; !ok || len(wf.On) != 1 {
		t.Errorf("on: %v, want pull_request alone", keys(wf.On))
	}
	if wf.Permissions == nil || len(wf.Permissions) != 0 {
		t.Errorf("permissions: %v, want {} (none unless a job asks)", wf.Permissions)
	}
	writers := 0
	for name, job := range wf.Jobs {
		if job.Permissions == nil {
			t.Errorf("job %s: no permissions of its own", name)
		}
		writes := false
		for scope, p := range job.Permissions {
			switch {
			case p == "read" || p == "none":
			case p == "write" && scope == "pull-requests":
				writes = true
			default:
				t.Errorf("job %s: permission %s: %s; only pull-requests may be written", name, scope, p)
			}
		}
		if writes {
			writers++
		}
		for i, st := range job.Steps {
			if strings.Contains(st.Run, "${{") {
				t.Errorf("job %s, step %d: an expression in run: pass it through env", name, i)
			}
			if strings.HasPrefix(st.Uses, "actions/checkout@") {
				if st.With["persist-credentials"] != false {
					t.Errorf("job %s, step %d: checkout keeps the token (persist-credentials is not false)", name, i)
				}
				if writes && st.With["ref"] != "${{ github.event.pull_request.base.sha }}" {
					t.Errorf("job %s may write to the pull request but checks out %q, not the base branch", name, st.With["ref"])
				}
			}
			if writes && (strings.Contains(st.Run, "go build") || strings.Contains(st.Run, commentCmd) || strings.HasPrefix(st.Uses, "actions/setup-go")) {
				t.Errorf("job %s may write to the pull request and builds or runs its code (step %d)", name, i)
			}
		}
	}
	if writers != 1 {
		t.Errorf("%d jobs may write to the pull request, want 1 (the comment)", writers)
	}
}

func keys(m map[string]any) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
