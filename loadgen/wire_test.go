package loadgen

import (
	"bytes"
	"reflect"
	"testing"
)

// An interval line as encodeMessage writes it takes decodeMessage's one-pass
// path, and decodes to what the general path gives for the same fields in
// another order.
func TestDecodeInterval(t *testing.T) {
	iv := Interval{Index: 7, StartS: 0.7, DurationS: 0.1, Requests: 3100, Errors: 2, Bytes: 400000, Sends: 3102,
		LateSends: 1, P50us: 250, P99us: 1900, Maxus: 4100, Hist: "HISTFAAAACR4nJNpmSzMwMDAyQABzFCaEUzOmQGiAA5vAc0="}
	var b bytes.Buffer
	if err := encodeMessage(&b, Message{Type: "interval", Interval: &iv}); err != nil {
		t.Fatal(err)
	}
	line := bytes.TrimSuffix(b.Bytes(), []byte("\n"))
	if !bytes.HasPrefix(line, intervalHead) {
		t.Fatalf("an encoded interval begins %.30q, not %q", line, intervalHead)
	}
	fast, err := decodeMessage(line)
	if err != nil {
		t.Fatal(err)
	}
	// the same fields, "type" last: the general path
	moved := append(append([]byte("{"), line[len(intervalHead):len(line)-1]...), []byte(`,"type":"interval"}`)...)
	general, err := decodeMessage(moved)
	if err != nil {
		t.Fatal(err)
	}
	if fast.Type != "interval" || !reflect.DeepEqual(*fast.Interval, iv) {
		t.Errorf("one-pass decode: %+v, want %+v", fast.Interval, iv)
	}
	if !reflect.DeepEqual(fast, general) {
		t.Errorf("one-pass decode %+v differs from the general one %+v", fast.Interval, general.Interval)
	}
	if _, err := decodeMessage(append(append([]byte(nil), intervalHead...), `"index":}`...)); err == nil {
		t.Error("a malformed interval line decoded")
	}
}
