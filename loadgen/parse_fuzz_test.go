package loadgen

import (
	"math/rand/v2"
	"testing"
)

// FuzzParseResponse feeds arbitrary bytes to the response parser the way
// the worker does, in one piece, byte by byte, and in reads of random
// sizes drawn from seed. stream checks the contract on every call (no
// panic, never more bytes used than given, a call either completes a
// response, asks for more or fails, the carry buffer stays bounded); the
// three feedings must end the same: the same responses, the same error,
// the same unfinished state. The seed corpus is in
// testdata/fuzz/FuzzParseResponse; `make fuzz` runs it for FUZZTIME.
func FuzzParseResponse(f *testing.F) {
	f.Add([]byte("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello"), uint64(1), false)
	f.Fuzz(func(t *testing.T, data []byte, seed uint64, head bool) {
		whole := stream(t, data, head, func(left int) int { return left })
		bytewise := stream(t, data, head, pieces(1))
		if !bytewise.equal(whole) {
			t.Fatalf("byte by byte: %v\nin one piece: %v", bytewise, whole)
		}
		rng := rand.New(rand.NewPCG(seed, seed>>32))
		most := 1 + int(seed%4096)
		split := stream(t, data, head, func(int) int { return 1 + rng.IntN(most) })
		if !split.equal(whole) {
			t.Fatalf("in reads of 1..%d bytes: %v\nin one piece: %v", most, split, whole)
		}
	})
}
