// Package sample is the Go sample service yardstick benchmarks: a plain
// net/http server with the endpoints of the common scenario shapes
// (hello world, CPU-bound string work, JSON validation, a blocking
// dependency). The command in targets/go wraps it; tests run it in-process.
package sample

import (
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// Limits on user input: nothing a request asks for can exhaust the server.
const (
	MaxGeneratedSize = 1 << 20 // bytes of input /api/generated/{size} will make
	MaxSleep         = 60 * time.Second
	MaxJSONBody      = 64 << 10
	MaxWorkFactor    = 1_000_000
)

// Config is the sample service's configuration. Fault-injection switches
// for the fairness checks (extra access-log bytes, cached responses, closed
// connections) are in Faults, so that a clean server is the zero value of
// Faults; targets/go/README.md lists them with the checks they trip.
type Config struct {
	// WorkFactor is how many times the string endpoints repeat their work.
	WorkFactor int
	// AccessLog, when not nil, receives one JSON line per request.
	AccessLog io.Writer
	// Faults are deliberate deviations from a fair server; the zero value
	// is the fair server.
	Faults Faults
}

// MaxLogPad bounds Faults.LogPad.
const MaxLogPad = 1 << 20

// Faults holds fault-injection switches, each of which makes the server
// unfair in a way one of yardstick's measured fairness checks must catch
// (its fair twin is the same server with the switch off). The zero value
// is the fair server. The CPU-affinity fault (-fault-affinity) is not here:
// it is a property of the process, applied by Main, not of the handler.
type Faults struct {
	// LogPad adds exactly LogPad bytes to every access-log line: a trailing
	// "pad" field of x's (`,"pad":"xxx"`, 9 bytes of syntax) when LogPad is
	// 9 or more, else LogPad spaces before the closing brace; the line stays
	// valid JSON with the same fields first. Trips check log_bytes.
	LogPad int
	// Static makes /api/strings/{value} and /api/generated/{size} each
	// remember the body of the first 200 they send and answer every later
	// request with it, whatever the parameter (no parsing, no work): an
	// answer that does not vary with its input. Trips check response_varies.
	Static bool
	// Close sends "Connection: close" on every response, so net/http closes
	// the connection after it and a keep-alive client must reconnect before
	// each request, time that per-request latency does not show. Trips
	// check littles_law.
	Close bool
	// HeaderPad adds an X-Pad header of HeaderPad bytes to every response:
	// more bytes on the wire for the same answer (one framework's extra
	// headers). Trips check response_bytes.
	HeaderPad int
	// Warmup makes the server slow for this long after NewHandler, like a
	// JIT compiling its hot paths: every request first spins on the CPU
	// for WarmupCost at the start, falling linearly to nothing at Warmup.
	// A measure window inside that time sees throughput climb. Trips
	// check steady_state.
	Warmup time.Duration
}

// WarmupCost is the extra CPU time per request at the start of the Warmup
// fault.
const WarmupCost = time.Millisecond

// NewHandler returns the service's handler.
func NewHandler(cfg Config) http.Handler {
	if cfg.WorkFactor <= 0 {
		cfg.WorkFactor = 1
	}
	if cfg.Faults.LogPad < 0 {
		cfg.Faults.LogPad = 0
	}
	s := &server{cfg: cfg}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /health", s.status)
	mux.HandleFunc("GET /ready", s.status)
	mux.HandleFunc("GET /hello", s.hello)
	mux.HandleFunc("GET /api/strings/{value}", s.strings)
	mux.HandleFunc("GET /api/generated/{size}", s.generated)
	mux.HandleFunc("POST /api/json", s.json)
	mux.HandleFunc("GET /api/sleep/{ms}", s.sleep)
	mux.HandleFunc("GET /ws/heartbeat", s.heartbeat)
	var h http.Handler = mux
	if cfg.Faults.Close {
		h = closeHandler{h}
	}
	if cfg.Faults.HeaderPad > 0 {
		h = headerPadHandler{next: h, pad: strings.Repeat("x", cfg.Faults.HeaderPad)}
	}
	if cfg.Faults.Warmup > 0 {
		h = warmupHandler{next: h, start: time.Now(), d: cfg.Faults.Warmup}
	}
	if cfg.AccessLog == nil {
		return h
	}
	return &accessLog{next: h, w: cfg.AccessLog, pad: cfg.Faults.LogPad}
}

type server struct {
	cfg Config
	// the remembered bodies of the static fault, nil until the first 200
	staticStrings, staticGenerated atomic.Pointer[[]byte]
}

// closeHandler is the Close fault: net/http closes the connection after a
// response whose header has Connection: close.
type closeHandler struct{ next http.Handler }

func (c closeHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Connection", "close")
	c.next.ServeHTTP(w, r)
}

// warmupHandler is the Warmup fault.
type warmupHandler struct {
	next  http.Handler
	start time.Time
	d     time.Duration
}

func (wh warmupHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if left := wh.d - time.Since(wh.start); left > 0 {
		spin(time.Duration(float64(WarmupCost) * float64(left) / float64(wh.d)))
	}
	wh.next.ServeHTTP(w, r)
}

// spin keeps the CPU busy for d.
func spin(d time.Duration) {
	end := time.Now().Add(d)
	for x := uint64(1); time.Now().Before(end); x = x*6364136223846793005 + 1 {
		for range 64 {
			x ^= x >> 7
		}
	}
}

// headerPadHandler is the HeaderPad fault.
type headerPadHandler struct {
	next http.Handler
	pad  string
}

func (p headerPadHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header()["X-Pad"] = []string{p.pad}
	p.next.ServeHTTP(w, r)
}

// static answers from slot when the static fault is on and slot holds a
// body, and reports whether it did.
func (s *server) static(w http.ResponseWriter, slot *atomic.Pointer[[]byte]) bool {
	if !s.cfg.Faults.Static {
		return false
	}
	b := slot.Load()
	if b == nil {
		return false
	}
	writeJSON(w, http.StatusOK, *b)
	return true
}

// remember returns the body to send for a computed 200 body b: b itself,
// unless the static fault is on and another request has stored its body
// first (then that one, so that every 200 is the same).
func (s *server) remember(slot *atomic.Pointer[[]byte], b []byte) []byte {
	if !s.cfg.Faults.Static || slot.CompareAndSwap(nil, &b) {
		return b
	}
	return *slot.Load()
}

func writeJSON(w http.ResponseWriter, status int, body []byte) {
	h := w.Header()
	h["Content-Type"] = []string{"application/json"}
	h["Content-Length"] = []string{strconv.Itoa(len(body))}
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

func writeError(w http.ResponseWriter, status int, msg string) {
	b, _ := json.Marshal(struct {
		Error string `json:"error"`
	}{msg})
	writeJSON(w, status, b)
}

func (s *server) status(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, []byte(`{"status":"UP"}`))
}

var helloBody = []byte("Hello, World!")

func (s *server) hello(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h["Content-Type"] = []string{"text/plain; charset=utf-8"}
	h["Content-Length"] = []string{"13"}
	_, _ = w.Write(helloBody)
}

// stringWork is the CPU-bound work of the string endpoints: uppercase,
// lowercase, reverse and CRC32 of the input, WorkFactor times over.
type stringWork struct {
	Length     int    `json:"length"`
	WorkFactor int    `json:"work_factor"`
	Upper      string `json:"uppercase,omitempty"`
	Lower      string `json:"lowercase,omitempty"`
	Reverse    string `json:"reverse,omitempty"`
	CRC32      uint32 `json:"crc32"`
	Checksum   uint32 `json:"checksum"`
}

func doWork(in string, factor int) stringWork {
	res := stringWork{Length: len(in), WorkFactor: factor}
	var sum uint32
	for range factor {
		res.Upper = strings.ToUpper(in)
		res.Lower = strings.ToLower(in)
		res.Reverse = reverse(in)
		res.CRC32 = crc32.ChecksumIEEE([]byte(in))
		// fold every result in, so no repetition is dead code
		sum = crc32.Update(sum, crc32.IEEETable, []byte(res.Upper))
		sum = crc32.Update(sum, crc32.IEEETable, []byte(res.Lower))
		sum = crc32.Update(sum, crc32.IEEETable, []byte(res.Reverse))
		sum ^= res.CRC32
	}
	res.Checksum = sum
	return res
}

func reverse(s string) string {
	r := []rune(s)
	for i, j := 0, len(r)-1; i < j; i, j = i+1, j-1 {
		r[i], r[j] = r[j], r[i]
	}
	return string(r)
}

func (s *server) strings(w http.ResponseWriter, r *http.Request) {
	if s.static(w, &s.staticStrings) {
		return
	}
	v := r.PathValue("value")
	if v == "" {
		writeError(w, http.StatusBadRequest, "empty value")
		return
	}
	b, err := json.Marshal(doWork(v, s.cfg.WorkFactor))
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	writeJSON(w, http.StatusOK, s.remember(&s.staticStrings, b))
}

// generatedInput makes size bytes of text that depend only on size.
func generatedInput(size int) string {
	const alphabet = "The quick brown fox jumps over the lazy dog 0123456789 "
	var b strings.Builder
	b.Grow(size)
	x := uint32(size)*2654435761 + 1
	for i := 0; i < size; i++ {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		b.WriteByte(alphabet[x%uint32(len(alphabet))])
	}
	return b.String()
}

func (s *server) generated(w http.ResponseWriter, r *http.Request) {
	if s.static(w, &s.staticGenerated) {
		return
	}
	size, err := strconv.Atoi(r.PathValue("size"))
	if err != nil || size < 0 || size > MaxGeneratedSize {
		writeError(w, http.StatusBadRequest, fmt.Sprintf("size must be an integer from 0 to %d", MaxGeneratedSize))
		return
	}
	res := doWork(generatedInput(size), s.cfg.WorkFactor)
	// the transformed strings are summarised, not echoed: the response
	// stays small whatever the size
	res.Upper, res.Lower, res.Reverse = "", "", ""
	b, err := json.Marshal(res)
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	writeJSON(w, http.StatusOK, s.remember(&s.staticGenerated, b))
}

// Document is the ~300-byte JSON document /api/json validates and
// re-serializes.
type Document struct {
	ID      int64    `json:"id"`
	Name    string   `json:"name"`
	Email   string   `json:"email"`
	Active  bool     `json:"active"`
	Score   float64  `json:"score"`
	Tags    []string `json:"tags"`
	Address struct {
		Street  string `json:"street"`
		City    string `json:"city"`
		Zip     string `json:"zip"`
		Country string `json:"country"`
	} `json:"address"`
	Created time.Time `json:"created"`
}

// Validate reports what is wrong with d.
func (d *Document) Validate() error {
	var errs []error
	if d.ID <= 0 {
		errs = append(errs, errors.New("id must be positive"))
	}
	if d.Name == "" || len(d.Name) > 200 {
		errs = append(errs, errors.New("name must have 1 to 200 bytes"))
	}
	if at := strings.IndexByte(d.Email, '@'); at <= 0 || at == len(d.Email)-1 {
		errs = append(errs, errors.New("email is not an address"))
	}
	if d.Score < 0 || d.Score > 100 {
		errs = append(errs, errors.New("score must be within 0..100"))
	}
	if len(d.Tags) > 32 {
		errs = append(errs, errors.New("at most 32 tags"))
	}
	if d.Address.City == "" {
		errs = append(errs, errors.New("address.city is required"))
	}
	if d.Created.IsZero() {
		errs = append(errs, errors.New("created is required"))
	}
	return errors.Join(errs...)
}

// SampleDocument is a valid document of about 300 bytes, the body load
// generators send to /api/json.
const SampleDocument = `{"id":12345,"name":"Ada Lovelace","email":"ada@example.org","active":true,"score":87.5,` +
	`"tags":["math","engines","poetry","notes"],"address":{"street":"12 St James's Square","city":"London",` +
	`"zip":"SW1Y 4JH","country":"GB"},"created":"2024-03-01T12:00:00Z"}`

func (s *server) json(w http.ResponseWriter, r *http.Request) {
	var d Document
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, MaxJSONBody))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&d); err != nil {
		writeError(w, http.StatusBadRequest, "bad JSON document: "+err.Error())
		return
	}
	if dec.More() {
		writeError(w, http.StatusBadRequest, "one JSON document expected")
		return
	}
	if err := d.Validate(); err != nil {
		writeError(w, http.StatusUnprocessableEntity, err.Error())
		return
	}
	b, err := json.Marshal(&d)
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	writeJSON(w, http.StatusOK, b)
}

func (s *server) sleep(w http.ResponseWriter, r *http.Request) {
	ms, err := strconv.Atoi(r.PathValue("ms"))
	if err != nil || ms < 0 || int64(ms) > MaxSleep.Milliseconds() {
		writeError(w, http.StatusBadRequest, fmt.Sprintf("ms must be an integer from 0 to %d", MaxSleep.Milliseconds()))
		return
	}
	t := time.NewTimer(time.Duration(ms) * time.Millisecond)
	defer t.Stop()
	select {
	case <-t.C:
	case <-r.Context().Done():
		return
	}
	writeJSON(w, http.StatusOK, []byte(`{"slept_ms":`+strconv.Itoa(ms)+`}`))
}
