package svctest

import (
	"encoding/json"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The answers of the samples (targets/go, targets/java) with work factor 2,
// which every JVM target must give byte for byte. They were obtained by
// running the Go sample (go run ./targets/go -work-factor 2) with curl.
const (
	WorkFactor     = 2
	StringsABC     = `{"length":3,"work_factor":2,"uppercase":"ABC","lowercase":"abc","reverse":"cba","crc32":891568578,"checksum":551891156}`
	StringsNonASCI = `{"length":4,"work_factor":2,"uppercase":"É` + "\uFFFD" + `\u003c","lowercase":"é` + "\uFFFD" +
		`\u003c","reverse":"\u003c` + "\uFFFD" + `é","crc32":794720750,"checksum":1412219373}`
	Generated128   = `{"length":128,"work_factor":2,"crc32":3535086682,"checksum":1731481683}`
	Generated2048  = `{"length":2048,"work_factor":2,"crc32":2492546827,"checksum":1402639770}`
	Generated0     = `{"length":0,"work_factor":2,"crc32":0,"checksum":0}`
	SampleDocument = `{"id":12345,"name":"Ada Lovelace","email":"ada@example.org","active":true,"score":87.5,` +
		`"tags":["math","engines","poetry","notes"],"address":{"street":"12 St James's Square","city":"London",` +
		`"zip":"SW1Y 4JH","country":"GB"},"created":"2024-03-01T12:00:00Z"}`
	JSONType = "application/json"
	TextType = "text/plain; charset=utf-8"
)

// Case is one request and the exact answer it must get.
type Case struct {
	Method, Path, Body string
	Status             int
	Type               string
	Want               string // the exact body
	Allow              string // the Allow header of a 405
}

// Cases are every endpoint with good and bad input, and the routing
// answers (404, 405) of Go's ServeMux.
func Cases() []Case {
	sizeErr := `{"error":"size must be an integer from 0 to 1048576"}`
	msErr := `{"error":"ms must be an integer from 0 to 60000"}`
	return []Case{
		{"GET", "/health", "", 200, JSONType, `{"status":"UP"}`, ""},
		{"GET", "/ready", "", 200, JSONType, `{"status":"UP"}`, ""},
		{"GET", "/hello", "", 200, TextType, "Hello, World!", ""},
		{"GET", "/api/strings/abc", "", 200, JSONType, StringsABC, ""},
		// é, an invalid byte, <: the invalid byte becomes a raw U+FFFD and < is \u003c
		{"GET", "/api/strings/%C3%A9%FF%3C", "", 200, JSONType, StringsNonASCI, ""},
		{"GET", "/api/generated/128", "", 200, JSONType, Generated128, ""},
		{"GET", "/api/generated/2048", "", 200, JSONType, Generated2048, ""},
		{"GET", "/api/generated/0", "", 200, JSONType, Generated0, ""},
		{"GET", "/api/sleep/20", "", 200, JSONType, `{"slept_ms":20}`, ""},
		{"POST", "/api/json", SampleDocument, 200, JSONType, SampleDocument, ""},
		{"POST", "/api/json", `{"id":1,"name":"x<y","email":"a@b","score":1e-7,"tags":null,` +
			`"address":{"city":"c"},"created":"2024-02-29T23:59:59.120+01:30"}`, 200, JSONType,
			`{"id":1,"name":"x\u003cy","email":"a@b","active":false,"score":1e-7,"tags":null,` +
				`"address":{"street":"","city":"c","zip":"","country":""},"created":"2024-02-29T23:59:59.12+01:30"}`, ""},

		{"GET", "/api/generated/-1", "", 400, JSONType, sizeErr, ""},
		{"GET", "/api/generated/1048577", "", 400, JSONType, sizeErr, ""},
		{"GET", "/api/generated/abc", "", 400, JSONType, sizeErr, ""},
		{"GET", "/api/generated/99999999999999999999999", "", 400, JSONType, sizeErr, ""},
		{"GET", "/api/sleep/60001", "", 400, JSONType, msErr, ""},
		{"GET", "/api/sleep/x", "", 400, JSONType, msErr, ""},
		{"POST", "/api/json", `{"id":1,"extra":true}`, 400, JSONType, `{"error":"bad JSON document: json: unknown field \"extra\""}`, ""},
		{"POST", "/api/json", `{"id":"1"}`, 400, JSONType,
			`{"error":"bad JSON document: json: cannot unmarshal string into Go struct field Document.id of type int64"}`, ""},
		{"POST", "/api/json", `{"id":1,`, 400, JSONType, `{"error":"bad JSON document: unexpected EOF"}`, ""},
		{"POST", "/api/json", SampleDocument + ` {}`, 400, JSONType, `{"error":"one JSON document expected"}`, ""},
		{"POST", "/api/json", `{"id":0,"score":101,"address":{},"created":"0001-01-01T00:00:00Z"}`, 422, JSONType,
			`{"error":"id must be positive\nname must have 1 to 200 bytes\nemail is not an address\n` +
				`score must be within 0..100\naddress.city is required\ncreated is required"}`, ""},
		{"POST", "/api/json", strings.Repeat(" ", 65<<10) + SampleDocument, 400, JSONType,
			`{"error":"bad JSON document: http: request body too large"}`, ""},

		{"GET", "/nope", "", 404, TextType, "404 page not found\n", ""},
		{"GET", "/api/strings/", "", 404, TextType, "404 page not found\n", ""},
		{"GET", "/api/strings/a/b", "", 404, TextType, "404 page not found\n", ""},
		{"GET", "/api/json", "", 405, TextType, "Method Not Allowed\n", "POST"},
		{"POST", "/hello", "x", 405, TextType, "Method Not Allowed\n", "GET, HEAD"},
	}
}

// Logged is what the access log must say about one request.
type Logged struct {
	Method, Path string
	Status, Size int
}

// CheckCases sends every case in order and checks status, Content-Type,
// Content-Length and body, then that /api/generated/129 and /130 differ; it
// returns what the access log must say about those requests, in order.
func CheckCases(t testing.TB, p *Target, cases []Case) []Logged {
	t.Helper()
	var sent []Logged
	for _, c := range cases {
		r := p.Do(t, c.Method, c.Path, c.Body)
		name := c.Method + " " + c.Path
		if len(name) > 60 {
			name = name[:60] + "..."
		}
		if r.Status != c.Status {
			t.Errorf("%s: status %d, want %d (body %.200q)", name, r.Status, c.Status, r.Body)
		}
		if got := r.Header.Get("Content-Type"); got != c.Type {
			t.Errorf("%s: Content-Type %q, want %q", name, got, c.Type)
		}
		if cl := r.Header.Get("Content-Length"); cl != strconv.Itoa(len(r.Body)) {
			t.Errorf("%s: Content-Length %q, body has %d bytes", name, cl, len(r.Body))
		}
		if string(r.Body) != c.Want {
			t.Errorf("%s: body\n got %s\nwant %s", name, r.Body, c.Want)
		}
		if c.Allow != "" && r.Header.Get("Allow") != c.Allow {
			t.Errorf("%s: Allow %q, want %q", name, r.Header.Get("Allow"), c.Allow)
		}
		sent = append(sent, Logged{c.Method, c.Path, r.Status, len(r.Body)})
	}
	// answers vary with their input (nothing cached)
	a, b := p.Do(t, "GET", "/api/generated/129", ""), p.Do(t, "GET", "/api/generated/130", "")
	if a.Status != 200 || b.Status != 200 || string(a.Body) == string(b.Body) {
		t.Errorf("/api/generated/129 and /130: %d %s and %d %s, want two different 200s", a.Status, a.Body, b.Status, b.Body)
	}
	return append(sent, Logged{"GET", "/api/generated/129", a.Status, len(a.Body)},
		Logged{"GET", "/api/generated/130", b.Status, len(b.Body)})
}

// SampleLine is one line of the samples' JSON access log (the JVM targets',
// WebFlux's and nginx's, which logs dur_s instead of dur_us).
type SampleLine struct {
	TS     string   `json:"ts"`
	Method string   `json:"method"`
	Path   string   `json:"path"`
	Status int      `json:"status"`
	Bytes  *int     `json:"bytes"`
	DurUS  *int64   `json:"dur_us"`
	DurS   *float64 `json:"dur_s"`
}

// ParseSampleLine decodes one access-log line.
func ParseSampleLine(line string) (SampleLine, error) {
	var e SampleLine
	err := json.Unmarshal([]byte(line), &e)
	return e, err
}

// accessLine is the samples' access-log line, fields in their order.
var accessLine = regexp.MustCompile(`^\{"ts":"[^"]+","method":"[A-Z]+","path":"[^"]*","status":\d{3},"bytes":\d+,"dur_us":\d+\}$`)

// CheckAccessLog reads the log (after Stop, which flushes it): one line
// per request p made, in the samples' shape, and for the requests in sent,
// which were the last ones but extra, their method, decoded path, status
// and body size.
func CheckAccessLog(t testing.TB, path string, p *Target, sent []Logged, extra int) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("access log: %v", err)
	}
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	if len(lines) != p.Requests {
		t.Fatalf("access log has %d lines, the test made %d requests:\n%s", len(lines), p.Requests, b)
	}
	first := len(lines) - len(sent) - extra
	for i, l := range lines {
		if !accessLine.MatchString(l) {
			t.Errorf("access log line %d has not the samples' shape: %s", i+1, l)
			continue
		}
		e, err := ParseSampleLine(l)
		if err != nil {
			t.Errorf("access log line %d: %v: %s", i+1, err, l)
			continue
		}
		if _, err := time.Parse(time.RFC3339Nano, e.TS); err != nil || !strings.HasSuffix(e.TS, "Z") {
			t.Errorf("access log line %d: ts %q is not RFC 3339 UTC: %v", i+1, e.TS, err)
		}
		if k := i - first; k >= 0 && k < len(sent) {
			s := sent[k]
			want := s.Path
			if strings.Contains(want, "%") { // the log has the decoded path, as Go's r.URL.Path
				want = "/api/strings/é\ufffd<"
			}
			if e.Method != s.Method || e.Path != want || e.Status != s.Status || *e.Bytes != s.Size {
				t.Errorf("access log line %d: %s %q %d %d, want %s %q %d %d", i+1,
					e.Method, e.Path, e.Status, *e.Bytes, s.Method, want, s.Status, s.Size)
			}
		}
	}
}

// CheckNoFile fails the test when path exists: an access log that an empty
// --access-log over $ACCESS_LOG must have switched off.
func CheckNoFile(t testing.TB, path string) {
	t.Helper()
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("--access-log \"\" over ACCESS_LOG=%s: the file exists (%v), want the log off", path, err)
	}
}
