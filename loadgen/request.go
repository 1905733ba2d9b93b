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
	head, body, n, err := requestTemplate(s)
	if err != nil {
		return nil, err
	}
	r := &requests{head: strings.EqualFold(s.Method, "HEAD")}
	vary := n > 0
	n = max(n, 1)
	lo, hi := s.varyRange()
	rng := rand.New(rand.NewPCG(s.Seed, 0x79617264)) // "yard"
	seen := map[string]bool{}
	for i := 0; i < n; i++ {
		var v string
		if vary {
			for { // distinct values, so that n variants are n different requests
				v = strconv.FormatUint(lo+rng.Uint64N(hi-lo+1), 10)
				if !seen[v] {
					break
				}
			}
			seen[v] = true
			r.varyValues = append(r.varyValues, v)
		}
		r.variants = append(r.variants, wireRequest(s.Method, head, body, v))
	}
	return r, nil
}

// wireRequest is one request as it goes on the wire: head and body with
// {vary} replaced by vary (when vary is not ""), the Content-Length and
// the empty line that ends the head.
func wireRequest(method, head, body, vary string) []byte {
	if vary != "" {
		head = strings.ReplaceAll(head, pipeline.VaryPlaceholder, vary)
		body = strings.ReplaceAll(body, pipeline.VaryPlaceholder, vary)
	}
	var w strings.Builder
	w.Grow(len(head) + len(body) + 40)
	w.WriteString(head)
	if body != "" || methodHasBody(method) {
		w.WriteString("Content-Length: ")
		w.WriteString(strconv.Itoa(len(body)))
		w.WriteString("\r\n")
	}
	w.WriteString("\r\n")
	w.WriteString(body)
	return []byte(w.String())
}

// RenderRequest returns the request of spec s as the load generator
// writes it on the wire with {vary} = vary: {payload} and {payload_text}
// substituted from s.Payload, the headers in their order, the Host,
// Content-Type and Content-Length it adds. varies says whether the
// request uses {vary} at all (in its path, a header or the body, also
// once {payload_text} is substituted). A probe that sends these bytes
// sends one of the requests the measured window sends.
//
// Only the request's fields of s count (URL, Method, Headers, Body,
// Payload); it is checked as a run checks it before it sends.
func RenderRequest(s Spec, vary uint64) (wire []byte, varies bool, err error) {
	c := s.withDefaults()
	head, body, n, err := requestTemplate(&c)
	if err != nil {
		return nil, false, err
	}
	return wireRequest(c.Method, head, body, strconv.FormatUint(vary, 10)), n > 0, nil
}

// requestTemplate renders a spec's request head and body with {payload}
// and {payload_text} substituted, and says how many {vary} variants it
// needs (0 without {vary}). It refuses a request that would break
// MaxRequestHead or MaxRequestBody, or whose variants together would break
// MaxRenderedRequests, before it allocates them.
func requestTemplate(s *Spec) (head, body string, variants int, err error) {
	head, err = requestHead(s)
	if err != nil {
		return "", "", 0, err
	}
	head, body, err = substitutePayload(s, head, s.Body)
	if err != nil {
		return "", "", 0, err
	}
	variants, err = varyVariants(s, head, body)
	if err != nil {
		return "", "", 0, err
	}
	return head, body, variants, nil
}

// requestHead renders the request line and headers, placeholders still in
// them, without the Content-Length and the empty line that end the head.
func requestHead(s *Spec) (string, error) {
	u, err := url.Parse(s.URL)
	if err != nil {
		return "", fmt.Errorf("url: %w", err)
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
			return "", fmt.Errorf("header %q is set by the load generator", k)
		}
		if strings.EqualFold(k, "Content-Type") {
			hasCT = true
		}
		fmt.Fprintf(&tmpl, "%s: %s\r\n", k, v)
	}
	if s.Body != "" && !hasCT {
		tmpl.WriteString("Content-Type: application/octet-stream\r\n")
	}
	return tmpl.String(), nil
}

// substitutePayload replaces {payload_text} and {payload} in head and body,
// once it has checked from the placeholder counts that the results keep
// within MaxRequestHead and MaxRequestBody.
func substitutePayload(s *Spec, head, body string) (string, string, error) {
	// The two payload placeholders cannot overlap, so the counts are exact.
	num := strconv.Itoa(s.Payload)
	grown := func(t string) int64 {
		return int64(len(t)) +
			int64(strings.Count(t, pipeline.PayloadTextPlaceholder))*(int64(s.Payload)-int64(len(pipeline.PayloadTextPlaceholder))) +
			int64(strings.Count(t, pipeline.PayloadPlaceholder))*int64(len(num)-len(pipeline.PayloadPlaceholder))
	}
	if n := grown(head); n > MaxRequestHead {
		return "", "", fmt.Errorf("request head would be %d bytes, more than %d: keep {payload_text} out of the path and headers", n, MaxRequestHead)
	}
	if n := grown(body); n > MaxRequestBody {
		return "", "", fmt.Errorf("request body would be %d bytes, more than %d (64 MiB)", n, MaxRequestBody)
	}
	sub := strings.NewReplacer(pipeline.PayloadTextPlaceholder, payload(s.Payload), pipeline.PayloadPlaceholder, num)
	head, body = sub.Replace(head), sub.Replace(body)
	if strings.ContainsAny(strings.ReplaceAll(head, pipeline.VaryPlaceholder, ""), "\x00") {
		return "", "", fmt.Errorf("request head holds a NUL byte")
	}
	return head, body, nil
}

// varyVariants says how many {vary} variants of head and body to render
// (0 without {vary}), after checking that the widest value keeps each
// within MaxRequestHead and MaxRequestBody and that all of them together
// keep within MaxRenderedRequests. {vary} is counted after the payload
// substitution: an empty {payload_text} can join the pieces of one.
func varyVariants(s *Spec, head, body string) (int, error) {
	nh, nb := strings.Count(head, pipeline.VaryPlaceholder), strings.Count(body, pipeline.VaryPlaceholder)
	if nh+nb == 0 {
		return 0, nil
	}
	lo, hi := s.varyRange()
	variants := s.Variants
	if variants <= 0 {
		variants = DefaultVariants
	}
	// n distinct values must fit in the range.
	if span := hi - lo + 1; span != 0 && span < uint64(variants) {
		variants = int(span)
	}
	grow := int64(len(strconv.FormatUint(hi, 10)) - len(pipeline.VaryPlaceholder))
	h, b := int64(len(head))+int64(nh)*grow, int64(len(body))+int64(nb)*grow
	if h > MaxRequestHead {
		return 0, fmt.Errorf("request head would be %d bytes, more than %d", h, MaxRequestHead)
	}
	if b > MaxRequestBody {
		return 0, fmt.Errorf("request body would be %d bytes, more than %d (64 MiB)", b, MaxRequestBody)
	}
	if total := int64(variants) * (h + b + 40); total > MaxRenderedRequests {
		return 0, fmt.Errorf("%d {vary} variants of a %d-byte request would hold %d bytes, more than %d (256 MiB): ask for fewer variants or a smaller payload",
			variants, h+b, total, MaxRenderedRequests)
	}
	return variants, nil
}

func methodHasBody(m string) bool {
	switch strings.ToUpper(m) {
	case "POST", "PUT", "PATCH":
		return true
	}
	return false
}
