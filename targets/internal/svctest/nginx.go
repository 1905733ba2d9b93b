package svctest

import (
	"fmt"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// NginxOptions are the switches of targets/nginx/run.sh.
type NginxOptions struct {
	Workers   int    // worker_processes; 0 means run.sh's default (1)
	AccessLog string // file; "" means off
}

// Upstream is a running nginx upstream.
type Upstream struct {
	*Proc
	Base      string // http://127.0.0.1:PORT
	Dir       string // run.sh's --dir: config, pid file, error log, bodies
	AccessLog string // the access log file, "" when off
}

// Nginx starts the nginx upstream (targets/nginx/run.sh) on a free
// loopback port with its files in a new temporary directory and waits
// until /ready answers (that one request is in its access log). It fails
// the test with how to install nginx when nginx is missing.
func Nginx(t testing.TB, o NginxOptions) Upstream {
	t.Helper()
	LookPath(t, "nginx", "apt-get install nginx (or make deps)")
	root := RepoRoot(t)
	port := FreePort(t)
	dir := t.TempDir()
	args := []string{filepath.Join(root, "targets/nginx/run.sh"), "--dir", dir, "--port", strconv.Itoa(port)}
	if o.Workers > 0 {
		args = append(args, "--workers", strconv.Itoa(o.Workers))
	}
	if o.AccessLog != "" {
		args = append(args, "--access-log", o.AccessLog)
	}
	p := Start(t, "nginx", nil, args...)
	base := fmt.Sprintf("http://127.0.0.1:%d", port)
	p.WaitReady(t, base+"/ready", 10*time.Second)
	return Upstream{Proc: p, Base: base, Dir: dir, AccessLog: o.AccessLog}
}
