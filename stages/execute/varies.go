package execute

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"

	"yardstick/loadgen"
	"yardstick/pipeline"
	"yardstick/stages/execute/hosts"
)

// probeVaries sends the cell's request twice with two different {vary}
// values and records whether the bodies differ. A static or cached answer
// (docs/methodology.md#static-responses: a service's throughput can halve
// once its response depends on its input) gives the same body twice. The
// request is the load generator's own rendering of the cell's spec
// (loadgen.RenderRequest): {vary} wherever the template has it (path,
// headers, body), {payload} and {payload_text} as the window sends them.
// Requests without {vary} are not probed. dial reaches the target's host.
func probeVaries(ctx context.Context, dial hosts.DialFunc, spec loadgen.Spec, b *pipeline.Batch, port int) *pipeline.VariesProbe {
	lo, hi := int64(0), int64(1_000_000)
	if b.Request.Vary != nil {
		lo, hi = b.Request.Vary.Min, b.Request.Vary.Max
	}
	vals := []int64{lo, hi}
	if hi-lo >= 2 {
		vals = []int64{lo + (hi-lo)/3, lo + 2*(hi-lo)/3}
	}
	p := &pipeline.VariesProbe{}
	for i, val := range vals {
		wire, varies, err := loadgen.RenderRequest(spec, uint64(val))
		switch {
		case err != nil:
			p.Error = err.Error()
			return p
		case !varies && i == 0:
			return nil
		}
		status, sum, err := probeOnce(ctx, dial, "127.0.0.1:"+strconv.Itoa(port), wire, spec.Method, b.Timeout.D()+time.Second)
		if err != nil {
			p.Error = err.Error()
			return p
		}
		p.Values = append(p.Values, strconv.FormatInt(val, 10))
		p.Statuses = append(p.Statuses, status)
		p.BodySHA = append(p.BodySHA, sum)
	}
	p.Same = len(p.BodySHA) == 2 && p.BodySHA[0] == p.BodySHA[1]
	return p
}

// probeOnce writes one rendered request on a fresh connection to addr and
// reads one response: its status and the sha256 of its body (at most 16
// MiB of it), all within timeout.
func probeOnce(ctx context.Context, dial hosts.DialFunc, addr string, wire []byte, method string, timeout time.Duration) (int, string, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	conn, err := dial(ctx, "tcp", addr)
	if err != nil {
		return 0, "", fmt.Errorf("dial %s: %w", addr, err)
	}
	defer conn.Close()
	stop := context.AfterFunc(ctx, func() { _ = conn.SetDeadline(time.Now()) })
	defer stop()
	if deadline, ok := ctx.Deadline(); ok {
		_ = conn.SetDeadline(deadline)
	}
	if _, err := conn.Write(wire); err != nil {
		return 0, "", fmt.Errorf("send: %w", err)
	}
	if method == "" {
		method = http.MethodGet
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), &http.Request{Method: method})
	if err != nil {
		return 0, "", fmt.Errorf("read response: %w", err)
	}
	defer resp.Body.Close()
	content, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		return 0, "", fmt.Errorf("read response body: %w", err)
	}
	sum := sha256.Sum256(content)
	return resp.StatusCode, hex.EncodeToString(sum[:]), nil
}
