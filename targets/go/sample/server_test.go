package sample

import (
	"bytes"
	"encoding/json"
	"hash/crc32"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"
)

func do(t *testing.T, h http.Handler, method, path, body string) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if cl := rec.Header().Get("Content-Length"); rec.Code < 300 && cl != strconv.Itoa(rec.Body.Len()) {
		t.Errorf("%s %s: Content-Length %q, body %d bytes", method, path, cl, rec.Body.Len())
	}
	return rec
}

func TestStatusAndHello(t *testing.T) {
	t.Parallel()
	h := NewHandler(Config{WorkFactor: 1})
	for _, p := range []string{"/health", "/ready"} {
		if rec := do(t, h, "GET", p, ""); rec.Code != 200 || !strings.Contains(rec.Body.String(), "UP") {
			t.Errorf("%s: %d %q", p, rec.Code, rec.Body)
		}
	}
	if rec := do(t, h, "GET", "/hello", ""); rec.Code != 200 || rec.Body.String() != "Hello, World!" {
		t.Errorf("/hello: %d %q", rec.Code, rec.Body)
	}
	if rec := do(t, h, "POST", "/hello", ""); rec.Code != http.StatusMethodNotAllowed {
		t.Errorf("POST /hello: %d", rec.Code)
	}
	if rec := do(t, h, "GET", "/nope", ""); rec.Code != 404 {
		t.Errorf("/nope: %d", rec.Code)
	}
}

func TestStrings(t *testing.T) {
	t.Parallel()
	h := NewHandler(Config{WorkFactor: 3})
	rec := do(t, h, "GET", "/api/strings/HeLLo%C3%A9", "")
	var got stringWork
	if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil || rec.Code != 200 {
		t.Fatalf("%d %s: %v", rec.Code, rec.Body, err)
	}
	want := stringWork{Length: 7, WorkFactor: 3, Upper: "HELLOÉ", Lower: "helloé", Reverse: "éoLLeH", CRC32: crc32.ChecksumIEEE([]byte("HeLLoé"))}
	got.Checksum = 0
	if got != want {
		t.Errorf("got %+v, want %+v", got, want)
	}
}

func TestGenerated(t *testing.T) {
	t.Parallel()
	h := NewHandler(Config{WorkFactor: 2})
	a := do(t, h, "GET", "/api/generated/1000", "")
	b := do(t, h, "GET", "/api/generated/1000", "")
	c := do(t, h, "GET", "/api/generated/1001", "")
	if a.Code != 200 || a.Body.String() != b.Body.String() || a.Body.String() == c.Body.String() {
		t.Errorf("not deterministic in size, or not varying with it:\n%s\n%s\n%s", a.Body, b.Body, c.Body)
	}
	var got stringWork
	if err := json.Unmarshal(a.Body.Bytes(), &got); err != nil || got.Length != 1000 || got.CRC32 != crc32.ChecksumIEEE([]byte(generatedInput(1000))) {
		t.Errorf("%+v %v", got, err)
	}
	if rec := do(t, h, "GET", "/api/generated/0", ""); rec.Code != 200 {
		t.Errorf("size 0: %d", rec.Code)
	}
	for _, bad := range []string{"-1", "abc", "1048577", "99999999999999999999", "1e3"} {
		if rec := do(t, h, "GET", "/api/generated/"+bad, ""); rec.Code != 400 {
			t.Errorf("size %s: %d", bad, rec.Code)
		}
	}
}

func TestJSON(t *testing.T) {
	t.Parallel()
	h := NewHandler(Config{})
	if n := len(SampleDocument); n < 250 || n > 350 {
		t.Errorf("sample document is %d bytes, want about 300", n)
	}
	rec := do(t, h, "POST", "/api/json", SampleDocument)
	if rec.Code != 200 {
		t.Fatalf("%d %s", rec.Code, rec.Body)
	}
	var in, out Document
	_ = json.Unmarshal([]byte(SampleDocument), &in)
	if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil || out.Name != in.Name || !out.Created.Equal(in.Created) || len(out.Tags) != 4 {
		t.Errorf("re-serialized %s: %v", rec.Body, err)
	}
	for body, code := range map[string]int{
		"":                              400,
		"{":                             400,
		`{"id":1,"unknown":2}`:          400,
		SampleDocument + SampleDocument: 400,
		strings.Replace(SampleDocument, `"id":12345`, `"id":0`, 1):      422,
		strings.Replace(SampleDocument, `ada@example.org`, `nobody`, 1): 422,
		`{"id":1}`:                              422,
		`"` + strings.Repeat("a", 70<<10) + `"`: 400,
	} {
		if rec := do(t, h, "POST", "/api/json", body); rec.Code != code {
			t.Errorf("body %.40q: %d, want %d (%s)", body, rec.Code, code, rec.Body)
		}
	}
	if rec := do(t, h, "GET", "/api/json", ""); rec.Code != http.StatusMethodNotAllowed {
		t.Errorf("GET /api/json: %d", rec.Code)
	}
}

func TestSleep(t *testing.T) {
	t.Parallel()
	h := NewHandler(Config{})
	start := time.Now()
	rec := do(t, h, "GET", "/api/sleep/30", "")
	if el := time.Since(start); rec.Code != 200 || el < 30*time.Millisecond || rec.Body.String() != `{"slept_ms":30}` {
		t.Errorf("%d %s after %s", rec.Code, rec.Body, el)
	}
	// 9223372036855 ms overflows time.Duration into a small value: it must
	// still be refused, not slept.
	for _, bad := range []string{"-5", "x", "60001", "9223372036855"} {
		if rec := do(t, h, "GET", "/api/sleep/"+bad, ""); rec.Code != 400 {
			t.Errorf("sleep %s: %d", bad, rec.Code)
		}
	}
}

func TestAccessLog(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	h := NewHandler(Config{AccessLog: &buf})
	do(t, h, "GET", "/hello", "")
	do(t, h, "GET", "/api/strings/a%22b", "")
	do(t, h, "GET", "/api/generated/x", "")
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 3 {
		t.Fatalf("%d lines:\n%s", len(lines), buf.String())
	}
	for i, want := range []struct {
		path   string
		status int
	}{{"/hello", 200}, {`/api/strings/a"b`, 200}, {"/api/generated/x", 400}} {
		var e logEntry
		if err := json.Unmarshal([]byte(lines[i]), &e); err != nil {
			t.Fatalf("line %d %s: %v", i, lines[i], err)
		}
		if e.Path != want.path || e.Status != want.status || e.Method != "GET" || e.Bytes == 0 || e.TS.IsZero() {
			t.Errorf("line %d: %+v", i, e)
		}
	}
}

func FuzzHandler(f *testing.F) {
	h := NewHandler(Config{WorkFactor: 1})
	for _, s := range []string{"/api/strings/x", "/api/generated/10", "/api/sleep/0", "/hello"} {
		f.Add(s, "")
	}
	f.Add("/api/json", SampleDocument)
	f.Fuzz(func(t *testing.T, path, body string) {
		if !strings.HasPrefix(path, "/") || strings.ContainsAny(path, " \r\n\t#?%") || strings.HasPrefix(path, "/api/sleep/") {
			return
		}
		method := "GET"
		if path == "/api/json" {
			method = "POST"
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(method, path, strings.NewReader(body)))
		if rec.Code >= 500 {
			t.Errorf("%s %s: %d", method, path, rec.Code)
		}
	})
}
