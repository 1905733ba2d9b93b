package svctest

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

func TestCheckArtifact(t *testing.T) {
	root := t.TempDir()
	src := filepath.Join(root, "targets/x/src")
	if err := os.MkdirAll(src, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(src, "A.java"), []byte("class A {}"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := checkArtifact(root, "bin/x.jar", "targets/x/src"); err == nil || !strings.Contains(err.Error(), "bin/x.jar not found: run make frameworks") {
		t.Errorf("missing artifact: %v", err)
	}
	jar := filepath.Join(root, "bin/x.jar")
	if err := os.MkdirAll(filepath.Dir(jar), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(jar, []byte("jar"), 0o644); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(jar, old, old); err != nil {
		t.Fatal(err)
	}
	if _, err := checkArtifact(root, "bin/x.jar", "targets/x/src"); err == nil ||
		!strings.Contains(err.Error(), "bin/x.jar is older than targets/x/src/A.java: run make frameworks") {
		t.Errorf("stale artifact: %v", err)
	}
	now := time.Now().Add(time.Minute)
	if err := os.Chtimes(jar, now, now); err != nil {
		t.Fatal(err)
	}
	if p, err := checkArtifact(root, "bin/x.jar", "targets/x/src"); err != nil || p != jar {
		t.Errorf("fresh artifact: %q %v", p, err)
	}
	if _, err := checkArtifact(root, "bin/x.jar", "targets/none"); err == nil {
		t.Error("a missing source directory passed")
	}
}

func TestWaitRequests(t *testing.T) {
	file := filepath.Join(t.TempDir(), "access.log")
	lines := "/ready\n/ready\n/a\n/b\n"
	if err := os.WriteFile(file, []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	isReady := func(l string) bool { return l == "/ready" }
	got := WaitRequests(t, file, 2, isReady, time.Second)
	if strings.Join(got, ",") != "/a,/b" {
		t.Errorf("WaitRequests: %q", got)
	}
	if got := WaitLines(t, file, 4, time.Second); len(got) != 4 {
		t.Errorf("WaitLines: %q", got)
	}
}

func TestStartStop(t *testing.T) {
	p := Start(t, "sh", nil, "sh", "-c", `trap 'exit 7' TERM; echo listening on 127.0.0.1:4242; while :; do sleep 0.05; done`)
	if port := p.ListenPort(t, 5*time.Second); port != 4242 {
		t.Errorf("ListenPort: %d", port)
	}
	if p.Exited() {
		t.Fatal("exited early")
	}
	if n := CountMatching(Threads(t, os.Getpid()), regexp.MustCompile(`.`)); n < 1 {
		t.Errorf("no threads of this process: %d", n)
	}
	code, _ := p.Stop(t, 5*time.Second)
	if code != 7 || !p.Exited() {
		t.Errorf("exit %d after SIGTERM, want the trap's 7", code)
	}
}
