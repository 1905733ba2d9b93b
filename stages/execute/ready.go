package execute

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"yardstick/pipeline"
	"yardstick/stages/execute/hosts"
	"yardstick/stages/execute/procgroup"
)

// readyURL resolves a process's ready setting: a path on its loopback
// port, or a full loopback URL.
func readyURL(ready string, port int) (string, error) {
	if strings.HasPrefix(ready, "/") {
		return "http://127.0.0.1:" + strconv.Itoa(port) + ready, nil
	}
	u, err := url.Parse(ready)
	if err != nil {
		return "", fmt.Errorf("ready %q: %w", ready, err)
	}
	if !pipeline.IsLoopbackHost(u.Hostname()) {
		return "", fmt.Errorf("ready %q: not a loopback address", ready)
	}
	return ready, nil
}

// portFree fails when something already listens on the loopback port: the
// ready probe would answer for that process, and the run would measure the
// wrong server.
func portFree(dial hosts.DialFunc, port int) error {
	ctx, cancel := context.WithTimeout(context.Background(), portProbeTimeout)
	defer cancel()
	c, err := dial(ctx, "tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		return nil
	}
	c.Close()
	return fmt.Errorf("port %d on 127.0.0.1 is already in use by another process; stop it or give the target another port", port)
}

// portProbeTimeout bounds the free-port check; readyDialTimeout one
// ready probe's connect.
const (
	portProbeTimeout = 200 * time.Millisecond
	readyDialTimeout = 100 * time.Millisecond
)

// pollInterval bounds the time between two readiness probes, so cold start
// is measured to the millisecond.
const pollInterval = time.Millisecond

// errExited says the process exited before it became ready.
var errExited = errors.New("exited before it was ready")

// waitReady polls u until it answers 200, the process exits, or timeout
// passes. It returns the time from the process's exec to the first 200.
// dial makes the probes' connections (on the target's host).
func waitReady(ctx context.Context, dial hosts.DialFunc, p *procgroup.Process, u string, timeout time.Duration) (time.Duration, error) {
	client := probeClient(250*time.Millisecond, &http.Transport{
		DisableKeepAlives: true,
		Proxy:             nil,
		DialContext:       dial,
	})
	defer client.CloseIdleConnections()
	deadline := time.Now().Add(timeout)
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
		if err != nil {
			return 0, fmt.Errorf("ready probe: %w", err)
		}
		resp, err := client.Do(req)
		if err == nil {
			_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return time.Since(p.Started), nil
			}
		}
		if p.Exited() {
			return 0, fmt.Errorf("%w (%s)", errExited, p.ExitStatus())
		}
		if ctx.Err() != nil {
			return 0, ctx.Err()
		}
		if time.Now().After(deadline) {
			last := "no answer"
			if err != nil {
				last = err.Error()
			} else {
				last = "status " + resp.Status
			}
			return 0, fmt.Errorf("not ready after %s (last probe: %s)", timeout, last)
		}
		select {
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-p.Done():
		case <-time.After(pollInterval):
		}
	}
}

// probeClient is the HTTP client of the ready and vary probes. It follows
// no redirect: a probe asks a loopback target one question, and a
// redirect (which could point anywhere) is an answer, not a hop.
func probeClient(timeout time.Duration, t *http.Transport) *http.Client {
	return &http.Client{
		Timeout:   timeout,
		Transport: t,
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
	}
}
