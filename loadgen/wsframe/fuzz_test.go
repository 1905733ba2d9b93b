package wsframe

import (
	"bytes"
	"errors"
	"testing"
)

// FuzzParseFrames: on any bytes the parser stops with an error or consumes
// everything, never panics, never hands back a payload over its bound or
// a frame RFC 6455 forbids a server, and gives the same frames whether the
// input comes in one read or byte by byte.
func FuzzParseFrames(f *testing.F) {
	f.Add(AppendServerFrame(nil, true, OpText, []byte("1 1764856800123456789")))
	f.Add(append(AppendServerFrame(nil, false, OpText, []byte("a")), AppendServerFrame(nil, true, OpContinuation, []byte("b"))...))
	f.Add(AppendServerFrame(nil, true, OpClose, []byte{3, 0xe8}))
	f.Add([]byte{0x82, 127, 0, 0, 0, 0, 0, 1, 0, 0})
	f.Add([]byte{0x81, 0x85, 1, 2, 3, 4, 5})
	f.Fuzz(func(t *testing.T, b []byte) {
		const bound = 256
		whole, err1 := parseAll(b, len(b)+1, bound)
		bytewise, err2 := parseAll(b, 1, bound)
		if (err1 == nil) != (err2 == nil) || (err1 != nil && err1.Error() != err2.Error()) {
			t.Fatalf("errors differ: %v / %v", err1, err2)
		}
		if err1 != nil && !errors.Is(err1, ErrProtocol) && !errors.Is(err1, ErrTooLarge) {
			t.Fatalf("unclassified error %v", err1)
		}
		if len(whole) != len(bytewise) {
			t.Fatalf("%d frames whole, %d byte by byte", len(whole), len(bytewise))
		}
		for i := range whole {
			a, c := whole[i], bytewise[i]
			if a.Op != c.Op || a.Fin != c.Fin || !bytes.Equal(a.Payload, c.Payload) {
				t.Fatalf("frame %d differs", i)
			}
			if len(a.Payload) > bound || (IsControl(a.Op) && (len(a.Payload) > MaxControlPayload || !a.Fin)) {
				t.Fatalf("frame %d breaks a bound: op %d len %d", i, a.Op, len(a.Payload))
			}
		}
	})
}
