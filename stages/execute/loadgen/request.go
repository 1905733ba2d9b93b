package loadgen

import (
	"fmt"
	"math/rand/v2"
	"net/url"
	"strconv"
	"strings"

	"yardstick/pipeline"
)

// requests holds the pre-rendered wire bytes of every request variant, so
// that the hot path only picks one and writes it.
type requests struct {
	variants   [][]byte
	varyValues []string // the {vary} value of each variant; nil without {vary}
	head       bool     // HEAD: responses carry no body
}

// payload returns n bytes of deterministic filler text.
func payload(n int) string {
	const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789"
	var b strings.Builder
	b.Grow(n)
	for i := 0; i < n; i++ {
		b.WriteByte(alphabet[i%len(alphabet)])
	}
	return b.String()
}

// renderRequests builds the request variants for a spec with defaults applied.
func renderRequests(s *Spec, hostport string) (*requests, error) {
	u, err := url.Parse(s.URL)
	if err != nil {
		return nil, fmt.Errorf("url: %w", err)
	}
	path := u.EscapedPath()
	// url.Parse escapes braces; let the placeholders through unescaped.
	path = strings.NewReplacer("%7Bpayload%7D", pipeline.PayloadPlaceholder, "%7Bvary%7D", pipeline.VaryPlaceholder,
		"%7bpayload%7d", pipeline.PayloadPlaceholder, "%7bvary%7d", pipeline.VaryPlaceholder,
		"%7Bpayload_text%7D", pipeline.PayloadTextPlaceholder, "%7bpayload_text%7d", pipeline.PayloadTextPlaceholder).Replace(path)
	if path == "" {
		path = "/"
	}
	if u.RawQuery != "" {
		path += "?" + u.RawQuery
	}
	var tmpl strings.Builder
	fmt.Fprintf(&tmpl, "%s %s HTTP/1.1\r\nHost: %s\r\n", s.Method, path, u.Host)
	hasCT := false
	for _, h := range s.Headers {
		k, v, _ := strings.Cut(h, ":")
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if strings.EqualFold(k, "Host") || strings.EqualFold(k, "Content-Length") {
			return nil, fmt.Errorf("header %q is set by the load generator", k)
		}
		if strings.EqualFold(k, "Content-Type") {
			hasCT = true
		}
		fmt.Fprintf(&tmpl, "%s: %s\r\n", k, v)
	}
	if s.Body != "" && !hasCT {
		tmpl.WriteString("Content-Type: application/octet-stream\r\n")
	}
	head := tmpl.String()
	body := s.Body
	sub := strings.NewReplacer(pipeline.PayloadTextPlaceholder, payload(s.Payload), pipeline.PayloadPlaceholder, strconv.Itoa(s.Payload))
	head = sub.Replace(head)
	body = sub.Replace(body)
	if strings.ContainsAny(strings.ReplaceAll(head, pipeline.VaryPlaceholder, ""), "\x00") {
		return nil, fmt.Errorf("request head holds a NUL byte")
	}

	r := &requests{head: strings.EqualFold(s.Method, "HEAD")}
	vary := strings.Contains(head, pipeline.VaryPlaceholder) || strings.Contains(body, pipeline.VaryPlaceholder)
	n := 1
	lo, hi := s.varyRange()
	if vary {
		n = s.Variants
		if n <= 0 {
			n = DefaultVariants
		}
		// n distinct values must fit in the range.
		if span := hi - lo + 1; span < uint64(n) {
			n = int(span)
		}
	}
	rng := rand.New(rand.NewPCG(s.Seed, 0x79617264)) // "yard"
	seen := map[string]bool{}
	for i := 0; i < n; i++ {
		h, b := head, body
		if vary {
			var v string
			for { // distinct values, so that n variants are n different requests
				v = strconv.FormatUint(lo+rng.Uint64N(hi-lo+1), 10)
				if !seen[v] {
					break
				}
			}
			seen[v] = true
			r.varyValues = append(r.varyValues, v)
			h = strings.ReplaceAll(h, pipeline.VaryPlaceholder, v)
			b = strings.ReplaceAll(b, pipeline.VaryPlaceholder, v)
		}
		var w strings.Builder
		w.WriteString(h)
		if b != "" || methodHasBody(s.Method) {
			w.WriteString("Content-Length: ")
			w.WriteString(strconv.Itoa(len(b)))
			w.WriteString("\r\n")
		}
		w.WriteString("\r\n")
		w.WriteString(b)
		r.variants = append(r.variants, []byte(w.String()))
	}
	return r, nil
}

func methodHasBody(m string) bool {
	switch strings.ToUpper(m) {
	case "POST", "PUT", "PATCH":
		return true
	}
	return false
}
