package execute

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"yardstick/pipeline"
	"yardstick/stages/execute/hosts"
)

// probeVaries sends the cell's request twice with two different {vary}
// values and records whether the bodies differ. A static or cached answer
// (docs/methodology.md#static-responses: a service's throughput can halve
// once its response depends on its input) gives the same body twice. Requests without
// {vary} are not probed. dial reaches the target's host.
func probeVaries(ctx context.Context, dial hosts.DialFunc, b *pipeline.Batch, v *pipeline.Variant, c *pipeline.Cell) *pipeline.VariesProbe {
	req := b.Request
	if !strings.Contains(req.Path+req.Body, pipeline.VaryPlaceholder) {
		return nil
	}
	p := &pipeline.VariesProbe{}
	lo, hi := int64(0), int64(1_000_000)
	if req.Vary != nil {
		lo, hi = req.Vary.Min, req.Vary.Max
	}
	vals := []int64{lo, hi}
	if hi-lo >= 2 {
		vals = []int64{lo + (hi-lo)/3, lo + 2*(hi-lo)/3}
	}
	client := probeClient(b.Timeout.D(), &http.Transport{Proxy: nil, DialContext: dial})
	defer client.CloseIdleConnections()
	for _, val := range vals {
		vs := strconv.FormatInt(val, 10)
		subst := func(s string) string {
			s = strings.ReplaceAll(s, pipeline.VaryPlaceholder, vs)
			if c.Point.Payload != nil {
				s = strings.ReplaceAll(s, pipeline.PayloadPlaceholder, strconv.Itoa(*c.Point.Payload))
			}
			return s
		}
		var body io.Reader
		if req.Body != "" {
			body = strings.NewReader(subst(req.Body))
		}
		ctx, cancel := context.WithTimeout(ctx, b.Timeout.D()+time.Second)
		hr, err := http.NewRequestWithContext(ctx, req.Method, "http://127.0.0.1:"+strconv.Itoa(v.Port)+subst(req.Path), body)
		if err != nil {
			cancel()
			p.Error = err.Error()
			return p
		}
		for k, hv := range req.Headers {
			hr.Header.Set(k, subst(hv))
		}
		resp, err := client.Do(hr)
		if err != nil {
			cancel()
			p.Error = err.Error()
			return p
		}
		content, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
		resp.Body.Close()
		cancel()
		if err != nil {
			p.Error = err.Error()
			return p
		}
		sum := sha256.Sum256(content)
		p.Values = append(p.Values, vs)
		p.Statuses = append(p.Statuses, resp.StatusCode)
		p.BodySHA = append(p.BodySHA, hex.EncodeToString(sum[:]))
	}
	p.Same = len(p.BodySHA) == 2 && p.BodySHA[0] == p.BodySHA[1]
	return p
}
