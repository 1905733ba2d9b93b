//go:build frameworks

// Package gatewaygo_test checks targets/gateway-go, the Go gateway (Caddy
// v2 built from the nested module in caddy/), from outside: bin/gateway-go
// (make frameworks) runs through run.sh in front of the nginx upstream
// (targets/nginx) on free loopback ports; the tests check forwarding, the
// access-log switch, GOMAXPROCS as its event-loop knob, the loopback-only
// upstream and SIGTERM. A missing binary or nginx fails them with how to
// get it.
package gatewaygo_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"yardstick/targets/internal/svctest"
)

func binary(t *testing.T) string {
	t.Helper()
	return svctest.Artifact(t, "bin/gateway-go", "targets/gateway-go/build.sh", "targets/gateway-go/caddy")
}

// env keeps Caddy's data and config directories (it writes none in this
// configuration, but would there) inside the test's temporary directory.
func env(t *testing.T, extra ...string) []string {
	home := t.TempDir()
	return append([]string{"HOME=" + home, "XDG_DATA_HOME=" + home, "XDG_CONFIG_HOME=" + home}, extra...)
}

// start runs the gateway through run.sh in front of upstream with args and
// waits until /ready answers through it (one request, forwarded).
func start(t *testing.T, upstream string, environ []string, args ...string) (*svctest.Proc, string) {
	t.Helper()
	bin := binary(t)
	port := svctest.FreePort(t)
	argv := []string{filepath.Join(svctest.RepoRoot(t), "targets/gateway-go/run.sh"),
		"--bin", bin, "--port", strconv.Itoa(port), "--upstream", upstream}
	p := svctest.Start(t, "gateway-go", environ, append(argv, args...)...)
	base := fmt.Sprintf("http://127.0.0.1:%d", port)
	ready := p.WaitReady(t, base+"/ready", 30*time.Second)
	t.Logf("exec to first 200 on /ready through the gateway: %v", ready.Round(time.Millisecond))
	// run.sh execs the gateway: the process started is the gateway itself
	if exe, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", p.Pid())); err != nil || exe != bin {
		t.Errorf("process %d runs %q (%v), want %s", p.Pid(), exe, err, bin)
	}
	return p, base
}

func TestGateway(t *testing.T) {
	up := svctest.Nginx(t, svctest.NginxOptions{AccessLog: t.TempDir() + "/upstream.log"})
	logFile := t.TempDir() + "/gateway.log"
	p, base := start(t, up.Base, env(t, "GOMAXPROCS=2"), "--access-log", logFile)

	svctest.CheckGateway(t, base, up)

	svctest.CheckCaddyLog(t, logFile, base)

	// GOMAXPROCS is the Go gateway's event-loop knob: the process has it
	// in its environment, and the same binary reports the Go runtime's
	// value with it
	environ, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", p.Pid()))
	if err != nil || !bytes.Contains(append([]byte{0}, environ...), []byte("\x00GOMAXPROCS=2\x00")) {
		t.Errorf("GOMAXPROCS=2 not in the gateway's environment (%v)", err)
	}
	for _, n := range []string{"1", "2", "3"} {
		cmd := exec.Command(binary(t), "environ")
		cmd.Env = append(os.Environ(), env(t, "GOMAXPROCS="+n)...)
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "\nruntime.GOMAXPROCS="+n+"\n") {
			head, _, _ := strings.Cut(string(out), "\n\n") // Caddy's facts, not the environment
			t.Errorf("gateway-go environ with GOMAXPROCS=%s: %v, no runtime.GOMAXPROCS=%s in\n%s", n, err, n, head)
		}
	}

	p.Terminate(t, 10*time.Second, 0)
}

// adapt returns the JSON config Caddy makes of the Caddyfile with environ.
func adapt(t *testing.T, environ ...string) map[string]any {
	t.Helper()
	cmd := exec.Command(binary(t), "adapt", "--adapter", "caddyfile",
		"--config", filepath.Join(svctest.RepoRoot(t), "targets/gateway-go/Caddyfile"))
	cmd.Env = append(os.Environ(), env(t, environ...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("gateway-go adapt: %v\n%s", err, stderr.String())
	}
	var cfg map[string]any
	if err := json.Unmarshal(stdout.Bytes(), &cfg); err != nil {
		t.Fatalf("gateway-go adapt: %v\n%s", err, stdout.String())
	}
	return cfg
}

func TestAccessLogSwitch(t *testing.T) {
	base := []string{"PORT=18080", "UPSTREAM=http://127.0.0.1:18090"}
	on := adapt(t, append(base, "ACCESS_LOG=/tmp/x/access.log", "ACCESS_LOG_MODE=on")...)
	off := adapt(t, append(base, "ACCESS_LOG=", "ACCESS_LOG_MODE=off")...)
	onJSON, _ := json.Marshal(on)
	offJSON, _ := json.Marshal(off)
	if !bytes.Contains(onJSON, []byte(`"filename":"/tmp/x/access.log"`)) || !bytes.Contains(onJSON, []byte(`"http.log.access.log0"`)) {
		t.Errorf("access log on: no file logger in %s", onJSON)
	}
	if bytes.Contains(offJSON, []byte("http.log.access")) || bytes.Contains(offJSON, []byte(`"filename"`)) {
		t.Errorf("access log off: an access logger in %s", offJSON)
	}
	if !bytes.Contains(offJSON, []byte(`"dial":"127.0.0.1:18090"`)) || !bytes.Contains(offJSON, []byte(`"listen":["127.0.0.1:18080"]`)) {
		t.Errorf("the route: want listen 127.0.0.1:18080 and upstream 127.0.0.1:18090 in %s", offJSON)
	}

	// a running gateway with the access log off forwards and has no log
	// file open (it does have cgroup files and its storage lock open)
	up := svctest.Nginx(t, svctest.NginxOptions{})
	p, gw := start(t, up.Base, env(t))
	if r := svctest.Get(t, nil, gw+"/hello"); r.Status != http.StatusOK || string(r.Body) != "Hello, World!" {
		t.Errorf("GET /hello: %d %q", r.Status, r.Body)
	}
	svctest.CheckNoLogOpen(t, p.Pid())
}

func TestBadSwitches(t *testing.T) {
	run := filepath.Join(svctest.RepoRoot(t), "targets/gateway-go/run.sh")
	bin := binary(t)
	for _, args := range [][]string{
		{"--upstream", "http://127.0.0.1:18090"}, // no --port
		{"--port", "18080"},                      // no --upstream
		{"--port", "0", "--upstream", "http://127.0.0.1:18090"},
		{"--port", "x", "--upstream", "http://127.0.0.1:18090"},
		{"--port", "18080", "--upstream", "http://192.0.2.1:80"},
		{"--port", "18080", "--upstream", "http://127.0.0.1:18090/path"},
		{"--port", "18080", "--upstream", "127.0.0.1:18090"},
		{"--port", "18080", "--upstream", "http://127.0.0.1:18090", "--bogus"},
	} {
		p := svctest.Start(t, "run.sh", env(t), append([]string{run, "--bin", bin}, args...)...)
		if code := p.Wait(t, 5*time.Second); code != 2 || !strings.Contains(p.Output.String(), "Usage:") {
			t.Errorf("run.sh %q: exit %d, want 2 with the usage:\n%s", args, code, p.Output)
		}
	}
	p := svctest.Start(t, "run.sh", env(t), run, "--bin", filepath.Join(t.TempDir(), "none"),
		"--port", "18080", "--upstream", "http://127.0.0.1:18090")
	if code := p.Wait(t, 5*time.Second); code != 1 || !strings.Contains(p.Output.String(), "run make frameworks") {
		t.Errorf("run.sh with no binary: exit %d, want 1 saying to run make frameworks:\n%s", code, p.Output)
	}
}
