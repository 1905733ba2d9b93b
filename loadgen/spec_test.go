package loadgen

import (
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"yardstick/pipeline"
)

func TestTargetAddrLoopbackOnly(t *testing.T) {
	t.Parallel()
	ok := map[string]string{
		"http://127.0.0.1:8080/hello": "127.0.0.1:8080",
		"http://127.1.2.3/":           "127.1.2.3:80",
		"http://[::1]:9000/x":         "[::1]:9000",
		"http://localhost:1234":       "localhost:1234",
		"http://LocalHost:1234":       "localhost:1234",
	}
	for u, want := range ok {
		got, err := TargetAddr(u)
		if err != nil || got != want {
			t.Errorf("TargetAddr(%q) = %q, %v; want %q", u, got, err, want)
		}
	}
	for _, u := range []string{
		"http://10.0.0.1/", "http://192.168.1.1:80/", "http://example.com/", "http://[2001:db8::1]/",
		"http://0.0.0.0:80/", "http://localhost.example.com/", "http://127.0.0.1.nip.io/",
	} {
		if _, err := TargetAddr(u); !errors.Is(err, ErrNotLoopback) {
			t.Errorf("TargetAddr(%q): err = %v, want ErrNotLoopback", u, err)
		}
	}
	for _, u := range []string{"https://127.0.0.1/", "127.0.0.1:80", "http:///x", "http://127.0.0.1:99999/"} {
		if _, err := TargetAddr(u); err == nil {
			t.Errorf("TargetAddr(%q): no error", u)
		}
	}
}

// TestTargetAddrFollowsTheLoopbackRule: the load generator accepts a
// host exactly when pipeline.IsLoopbackHost, the rule validate's ready
// check and the ready probe use, does; the cases include those where the
// two rules once differed (the name in another case).
func TestTargetAddrFollowsTheLoopbackRule(t *testing.T) {
	t.Parallel()
	for _, host := range []string{"localhost", "LOCALHOST", "LocalHost", "127.0.0.1", "127.9.9.9", "[::1]", "[::ffff:127.0.0.1]",
		"localhost.", "localhost.example.com", "10.0.0.1", "0.0.0.0", "[::]", "[2001:db8::1]", "example.com"} {
		_, err := TargetAddr("http://" + host + ":8080/")
		if want := pipeline.IsLoopbackHost(strings.Trim(host, "[]")); (err == nil) != want {
			t.Errorf("%s: load generator error %v, pipeline.IsLoopbackHost %v", host, err, want)
		}
	}
}

func TestSpecValidateReportsAll(t *testing.T) {
	t.Parallel()
	s := Spec{URL: "http://example.com/", Connections: -1, Duration: Duration(2 * time.Hour), Rate: -1, Headers: []string{"bad"}}
	err := s.Validate()
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{"loopback", "connections", "duration", "negative", "header"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}
	good := Spec{URL: "http://127.0.0.1:1/", Connections: 1, Duration: Duration(time.Second)}
	if err := good.Validate(); err != nil {
		t.Errorf("valid spec: %v", err)
	}
}

func TestRateFromPeak(t *testing.T) {
	t.Parallel()
	s := Spec{URL: "http://127.0.0.1:1/", Connections: 4, Duration: Duration(time.Second)}.FractionOfPeak(&Result{RPS: 1000}, 0.8)
	if got := s.EffectiveRate(); got != 800 {
		t.Fatalf("rate = %v, want 800", got)
	}
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
}

// TestRenderRequest: RenderRequest gives, for a {vary} value, the bytes
// of the variant the run sends with that value, and says whether the
// request varies at all ({vary} in a header only counts).
func TestRenderRequest(t *testing.T) {
	t.Parallel()
	s := Spec{URL: "http://127.0.0.1:8080/api/{payload}", Method: "POST", Body: "{payload_text}",
		Headers: []string{"X-Test: {vary}"}, Payload: 5, Seed: 42, Connections: 1, Duration: Duration(time.Second)}
	d := s.withDefaults()
	r, err := renderRequests(&d, "127.0.0.1:8080")
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range r.varyValues[:8] {
		n, _ := strconv.ParseUint(v, 10, 64)
		wire, varies, err := RenderRequest(s, n)
		if err != nil || !varies || string(wire) != string(r.variants[i]) {
			t.Fatalf("RenderRequest(%d) = %q, %v, %v; the run sends %q", n, wire, varies, err, r.variants[i])
		}
	}
	s.Headers = []string{"X-Test: fixed"}
	if wire, varies, err := RenderRequest(s, 7); err != nil || varies || !strings.HasPrefix(string(wire), "POST /api/5 HTTP/1.1\r\n") {
		t.Errorf("fixed request: %q, varies %v, %v", wire, varies, err)
	}
	s.Headers = []string{"Host: elsewhere"}
	if _, _, err := RenderRequest(s, 7); err == nil {
		t.Error("a Host header: no error")
	}
}

func TestRequestTemplates(t *testing.T) {
	t.Parallel()
	s := Spec{URL: "http://127.0.0.1:8080/api/strings/{vary}?p={payload_text}&n={payload}", Method: "POST", Body: `{"v":"{vary}","p":"{payload_text}","n":{payload}}`,
		Headers: []string{"X-Test: {vary}"}, Payload: 5, Seed: 42, Connections: 1, Duration: Duration(time.Second)}
	d := s.withDefaults()
	r, err := renderRequests(&d, "127.0.0.1:8080")
	if err != nil {
		t.Fatal(err)
	}
	if len(r.variants) != DefaultVariants {
		t.Fatalf("%d variants, want %d", len(r.variants), DefaultVariants)
	}
	seen := map[string]bool{}
	for i, v := range r.variants {
		req := string(v)
		val := r.varyValues[i]
		head, body, _ := strings.Cut(req, "\r\n\r\n")
		if !strings.HasPrefix(head, "POST /api/strings/"+val+"?p=abcde&n=5 HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n") ||
			!strings.Contains(head, "X-Test: "+val+"\r\n") || body != `{"v":"`+val+`","p":"abcde","n":5}` ||
			!strings.Contains(head+"\r\n", "Content-Length: "+strconv.Itoa(len(body))+"\r\n") {
			t.Fatalf("variant %d:\n%s", i, req)
		}
		seen[req] = true
	}
	if len(seen) != DefaultVariants {
		t.Errorf("%d distinct variants", len(seen))
	}
	// the same seed gives the same values
	r2, _ := renderRequests(&d, "127.0.0.1:8080")
	if !slices.Equal(r.varyValues, r2.varyValues) {
		t.Error("same seed, different values")
	}

	// A range bounds the values; a range narrower than the variants gives
	// one variant per value.
	d.VaryMin, d.VaryMax = 16, 20
	r3, err := renderRequests(&d, "127.0.0.1:8080")
	if err != nil {
		t.Fatal(err)
	}
	got := slices.Clone(r3.varyValues)
	slices.Sort(got)
	if want := []string{"16", "17", "18", "19", "20"}; !slices.Equal(got, want) {
		t.Errorf("vary 16..20 gave values %v, want %v", got, want)
	}
	bad := d
	bad.VaryMin, bad.VaryMax = 5, 4
	if err := bad.Validate(); err == nil || !strings.Contains(err.Error(), "vary range") {
		t.Errorf("vary 5..4 validated: %v", err)
	}
}

// TestRequestSizeBounds: a template is sized from its placeholders before
// anything is rendered, so that {payload_text} repeated, in a path, or
// multiplied by {vary} variants is refused instead of allocated.
func TestRequestSizeBounds(t *testing.T) {
	t.Parallel()
	base := Spec{URL: "http://127.0.0.1:8080/p", Method: "POST", Connections: 1, Duration: Duration(time.Second)}
	cases := []struct {
		name string
		edit func(s *Spec)
		want string // "" when the spec is valid
	}{
		{"one payload body", func(s *Spec) { s.Body, s.Payload = "{payload_text}", 1<<20 }, ""},
		{"a byte past the bound", func(s *Spec) { s.Body, s.Payload = "x{payload_text}", MaxPayload }, "request body would be 67108865 bytes"},
		{"two payload bodies", func(s *Spec) { s.Body, s.Payload = "{payload_text}{payload_text}", MaxPayload }, "request body would be"},
		{"payload in the path", func(s *Spec) { s.URL += "/{payload_text}"; s.Payload = MaxRequestHead }, "request head would be"},
		{"payload in a header", func(s *Spec) { s.Headers = []string{"X-P: {payload_text}"}; s.Payload = MaxRequestHead }, "request head would be"},
		{"variants of a large body", func(s *Spec) { s.Body, s.Payload = "{vary}{payload_text}", 2<<20 }, "ask for fewer variants"},
		{"fewer variants of it", func(s *Spec) { s.Body, s.Payload, s.Variants = "{vary}{payload_text}", 2<<20, 8 }, ""},
		{"a narrow range of it", func(s *Spec) { s.Body, s.Payload, s.VaryMin, s.VaryMax = "{vary}{payload_text}", 2<<20, 1, 8 }, ""},
	}
	for _, c := range cases {
		s := base
		c.edit(&s)
		err := s.Validate()
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: err %v, want one saying %q", c.name, err, c.want)
		}
		if c.want != "" {
			continue
		}
		d := s.withDefaults()
		r, err := renderRequests(&d, "")
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		var total int
		for _, v := range r.variants {
			total += len(v)
		}
		if total > MaxRenderedRequests {
			t.Errorf("%s: %d bytes rendered, bound %d", c.name, total, MaxRenderedRequests)
		}
	}

	// an empty {payload_text} can join the pieces of a {vary}: it is
	// counted once substituted
	s := base
	s.Body, s.Payload = "{vary{payload_text}}", 0
	d := s.withDefaults()
	r, err := renderRequests(&d, "")
	if err != nil || len(r.variants) != DefaultVariants || strings.Contains(string(r.variants[0]), "{vary}") {
		t.Errorf("joined {vary}: %d variants, err %v", len(r.variants), err)
	}
}

// TestAllowList: a driver's allow-list lets the spec name exactly the
// listed IP literals besides loopback; any other address, a name that
// is not localhost, and a list entry that is not the address of one host
// are refused before anything is sent.
func TestAllowList(t *testing.T) {
	t.Parallel()
	base := Spec{Connections: 1, Duration: Duration(time.Second)}
	ok := []struct {
		url   string
		allow []string
	}{
		{"http://10.213.0.1:8080/x", []string{"10.213.0.1"}},
		{"http://[fd00::1]:80/", []string{"fd00::1"}},
		{"http://127.0.0.1:8080/", []string{"10.213.0.1"}}, // loopback stays allowed
		{"http://10.213.0.1:8080/", []string{"192.0.2.7", "10.213.0.1"}},
	}
	for _, c := range ok {
		s := base
		s.URL, s.Allow = c.url, c.allow
		if err := s.Validate(); err != nil {
			t.Errorf("url %s allow %v: %v", c.url, c.allow, err)
		}
	}
	refused := []struct {
		url   string
		allow []string
	}{
		{"http://10.213.0.1:8080/", nil},
		{"http://10.213.0.2:8080/", []string{"10.213.0.1"}},
		{"http://10.213.0.10:8080/", []string{"10.213.0.1"}},
		{"http://192.168.1.1/", []string{"10.213.0.1"}},
		{"http://node1:8080/", []string{"10.213.0.1"}},
		{"http://node1:8080/", []string{"node1"}},
		{"http://[fd00::2]/", []string{"fd00::1"}},
	}
	for _, c := range refused {
		s := base
		s.URL, s.Allow = c.url, c.allow
		if err := s.Validate(); err == nil {
			t.Errorf("url %s allow %v: accepted", c.url, c.allow)
		}
		if _, err := TargetAddrAllowed(c.url, c.allow); !errors.Is(err, ErrNotLoopback) {
			t.Errorf("TargetAddrAllowed(%s, %v): err = %v, want ErrNotLoopback", c.url, c.allow, err)
		}
	}
	for _, allow := range [][]string{
		{"0.0.0.0"}, {"::"}, {"255.255.255.255"}, {"224.0.0.1"}, {"ff02::1"}, {"10.0.0.0/8"}, {"*"}, {""},
		{"10.0.0.1", "10.0.0.2", "10.0.0.3", "10.0.0.4", "10.0.0.5"},
	} {
		s := base
		s.URL, s.Allow = "http://127.0.0.1:8080/", allow
		if err := s.Validate(); err == nil || !strings.Contains(err.Error(), "allow") {
			t.Errorf("allow %v: err = %v, want a refusal of the list", allow, err)
		}
	}
	// The address a run is started with is checked again at the socket.
	if _, err := resolve("10.213.0.2:80", []string{"10.213.0.1"}); !errors.Is(err, ErrNotLoopback) {
		t.Errorf("resolve off the list: err = %v", err)
	}
	if _, err := Run(t.Context(), Spec{URL: "http://10.213.0.2:9/", Allow: []string{"10.213.0.1"}, Connections: 1, Duration: Duration(time.Second)}, nil); !errors.Is(err, ErrNotLoopback) {
		t.Errorf("Run off the list: err = %v, want ErrNotLoopback", err)
	}
}
