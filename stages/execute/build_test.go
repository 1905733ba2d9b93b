package execute

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"yardstick/pipeline"
)

// TestBuildTimeout: a build step that hangs fails within the build
// timeout, its process group is stopped, and the failure names the limit.
func TestBuildTimeout(t *testing.T) {
	rd, err := pipeline.CreateRunDir(t.TempDir(), "exp", "20261201T000000Z-0000")
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	r := &planRun{
		rd:     rd,
		opts:   Options{BuildTimeout: 300 * time.Millisecond, StopGrace: 200 * time.Millisecond},
		builds: map[string]error{},
		prog:   newProgress(&out, false, 1, 0),
	}
	start := time.Now()
	err = r.build(context.Background(), "hang", "b", "v", &pipeline.Process{Build: []string{"sh", "-c", "trap '' TERM; sleep 30"}})
	took := time.Since(start)
	if err == nil || !strings.Contains(err.Error(), "did not finish within 300ms") {
		t.Fatalf("build error = %v, want a timeout", err)
	}
	if took > 10*time.Second {
		t.Errorf("the build took %s to fail", took)
	}
	if !strings.Contains(out.String(), "no exit within 200ms of SIGTERM; killed") {
		t.Errorf("the escalation to SIGKILL was not noted; progress said:\n%s", out.String())
	}
	if _, err := os.Stat(rd.Path("starts", "build-hang.log")); err != nil {
		t.Errorf("no build log: %v", err)
	}
}
