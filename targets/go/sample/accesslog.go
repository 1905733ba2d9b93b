package sample

import (
	"io"
	"net/http"
	"strconv"
	"sync"
	"time"
	"unicode/utf8"
)

// accessLog writes one JSON line per request, built by hand (no
// reflection): {"ts":...,"method":...,"path":...,"status":...,"bytes":...,"dur_us":...}.
// pad is the LogPad fault: that many more bytes on every line.
type accessLog struct {
	next http.Handler
	mu   sync.Mutex
	w    io.Writer
	buf  []byte
	pad  int
}

type recorder struct {
	http.ResponseWriter
	status int
	bytes  int
}

func (r *recorder) WriteHeader(code int) {
	if r.status == 0 {
		r.status = code
	}
	r.ResponseWriter.WriteHeader(code)
}

func (r *recorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	n, err := r.ResponseWriter.Write(b)
	r.bytes += n
	return n, err
}

// Unwrap lets http.ResponseController reach the connection (the
// heartbeat endpoint hijacks it; its log line then says 101).
func (r *recorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

func (a *accessLog) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	rec := &recorder{ResponseWriter: w}
	a.next.ServeHTTP(rec, r)
	if rec.status == 0 {
		rec.status = http.StatusOK
	}
	dur := time.Since(start)
	a.mu.Lock()
	defer a.mu.Unlock()
	b := a.buf[:0]
	b = append(b, `{"ts":"`...)
	b = start.UTC().AppendFormat(b, time.RFC3339Nano)
	b = append(b, `","method":`...)
	b = appendJSONString(b, r.Method)
	b = append(b, `,"path":`...)
	b = appendJSONString(b, r.URL.Path)
	b = append(b, `,"status":`...)
	b = strconv.AppendInt(b, int64(rec.status), 10)
	b = append(b, `,"bytes":`...)
	b = strconv.AppendInt(b, int64(rec.bytes), 10)
	b = append(b, `,"dur_us":`...)
	b = strconv.AppendInt(b, dur.Microseconds(), 10)
	b = appendPad(b, a.pad)
	b = append(b, "}\n"...)
	a.buf = b
	_, _ = a.w.Write(b)
}

// padSyntax is what the "pad" field costs besides its x's.
const padSyntax = len(`,"pad":""`)

// appendPad appends exactly n bytes that keep a JSON object valid: a
// `,"pad":"xx..."` member when n allows one, else n spaces.
func appendPad(b []byte, n int) []byte {
	if n <= 0 {
		return b
	}
	if n < padSyntax {
		for range n {
			b = append(b, ' ')
		}
		return b
	}
	b = append(b, `,"pad":"`...)
	for range n - padSyntax {
		b = append(b, 'x')
	}
	return append(b, '"')
}

func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
			i++
		case c < 0x20:
			b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			i++
		case c < utf8.RuneSelf:
			b = append(b, c)
			i++
		default:
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 {
				b = append(b, `\ufffd`...)
			} else {
				b = append(b, s[i:i+size]...)
			}
			i += size
		}
	}
	return append(b, '"')
}
