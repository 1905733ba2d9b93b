package wsframe

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

// parseAll feeds b to a parser in chunks of size chunk and returns the
// frames (payloads copied) and the first error.
func parseAll(b []byte, chunk, maxPayload int) ([]Frame, error) {
	p := &Parser{MaxPayload: maxPayload}
	var out []Frame
	for len(b) > 0 {
		c := b[:min(chunk, len(b))]
		b = b[len(c):]
		for len(c) > 0 {
			n, f, ok, err := p.Next(c)
			if err != nil {
				return out, err
			}
			if n == 0 && !ok {
				panic("no progress")
			}
			c = c[n:]
			if ok {
				f.Payload = bytes.Clone(f.Payload)
				out = append(out, f)
			}
		}
	}
	return out, nil
}

func TestParseValidStreams(t *testing.T) {
	long := bytes.Repeat([]byte("x"), 300)
	huge := bytes.Repeat([]byte("y"), 70000)
	var s []byte
	s = AppendServerFrame(s, true, OpText, []byte("1 1764856800123456789"))
	s = AppendServerFrame(s, true, OpPing, []byte("hi"))
	s = AppendServerFrame(s, false, OpText, []byte("frag"))
	s = AppendServerFrame(s, true, OpPong, nil) // a control frame inside a fragmented message
	s = AppendServerFrame(s, true, OpContinuation, []byte("ment"))
	s = AppendServerFrame(s, true, OpBinary, long)
	s = AppendServerFrame(s, true, OpBinary, huge)
	s = AppendServerFrame(s, true, OpClose, []byte{0x03, 0xe8, 'o', 'k'})
	want := []struct {
		op  byte
		fin bool
		n   int
	}{{OpText, true, 21}, {OpPing, true, 2}, {OpText, false, 4}, {OpPong, true, 0}, {OpContinuation, true, 4}, {OpBinary, true, 300}, {OpBinary, true, 70000}, {OpClose, true, 4}}
	for _, chunk := range []int{1, 2, 3, 7, 64, 1 << 20} {
		fs, err := parseAll(s, chunk, 1<<17)
		if err != nil {
			t.Fatalf("chunk %d: %v", chunk, err)
		}
		if len(fs) != len(want) {
			t.Fatalf("chunk %d: %d frames, want %d", chunk, len(fs), len(want))
		}
		for i, w := range want {
			if fs[i].Op != w.op || fs[i].Fin != w.fin || len(fs[i].Payload) != w.n {
				t.Errorf("chunk %d frame %d: op %d fin %v len %d, want %+v", chunk, i, fs[i].Op, fs[i].Fin, len(fs[i].Payload), w)
			}
		}
		if string(fs[0].Payload) != "1 1764856800123456789" || !bytes.Equal(fs[6].Payload, huge) {
			t.Errorf("chunk %d: payloads garbled", chunk)
		}
		if CloseCode(fs[7].Payload) != 1000 {
			t.Errorf("close code %d", CloseCode(fs[7].Payload))
		}
	}
}

func TestParseRefuses(t *testing.T) {
	frame := func(b ...byte) []byte { return b }
	cases := []struct {
		name string
		in   []byte
		want error
	}{
		{"masked", frame(0x81, 0x81, 1, 2, 3, 4, 'a'), ErrMasked},
		{"rsv1", frame(0xc1, 0x00), ErrReserved},
		{"rsv3", frame(0x91, 0x00), ErrReserved},
		{"opcode 3", frame(0x83, 0x00), ErrOpcode},
		{"opcode 0xb", frame(0x8b, 0x00), ErrOpcode},
		{"fragmented ping", frame(0x09, 0x00), ErrControl},
		{"long ping", append(frame(0x89, 126, 0, 126), make([]byte, 126)...), ErrControl},
		{"16-bit length under 126", frame(0x82, 126, 0, 5, 1, 2, 3, 4, 5), ErrLength},
		{"64-bit length under 65536", frame(0x82, 127, 0, 0, 0, 0, 0, 0, 0, 5), ErrLength},
		{"64-bit length top bit", frame(0x82, 127, 0x80, 0, 0, 0, 0, 0, 0, 0), ErrLength},
		{"oversized", frame(0x82, 127, 0, 0, 0, 1, 0, 0, 0, 0), ErrTooLarge},
		{"oversized 16", frame(0x82, 126, 0xff, 0xff), ErrTooLarge},
		{"bare continuation", frame(0x80, 0x00), ErrContinuation},
		{"text inside fragment", frame(0x01, 0x00, 0x81, 0x00), ErrContinuation},
		{"close one byte", frame(0x88, 0x01, 0x03), ErrClosePayload},
		{"close code 1005", frame(0x88, 0x02, 0x03, 0xed), ErrClosePayload},
		{"close code 999", frame(0x88, 0x02, 0x03, 0xe7), ErrClosePayload},
		{"close bad utf8", frame(0x88, 0x03, 0x03, 0xe8, 0xff), ErrClosePayload},
	}
	for _, c := range cases {
		for _, chunk := range []int{1, 1024} {
			_, err := parseAll(c.in, chunk, 1024)
			if !errors.Is(err, c.want) {
				t.Errorf("%s (chunk %d): %v, want %v", c.name, chunk, err, c.want)
			}
			if c.want != ErrTooLarge && !errors.Is(err, ErrProtocol) {
				t.Errorf("%s: %v does not wrap ErrProtocol", c.name, err)
			}
		}
	}
}

// TestParserMemoryBounded: a frame split across reads is buffered in at
// most MaxPayload bytes, and one that fits a read is not copied.
func TestParserMemoryBounded(t *testing.T) {
	p := &Parser{MaxPayload: 64}
	f := AppendServerFrame(nil, true, OpText, []byte("1 2"))
	if _, _, ok, err := p.Next(f); !ok || err != nil {
		t.Fatalf("whole frame: ok %v err %v", ok, err)
	}
	if p.buf != nil {
		t.Errorf("a frame within one read allocated a buffer")
	}
	big := AppendServerFrame(nil, true, OpBinary, make([]byte, 64))
	for i := range big {
		if _, _, _, err := p.Next(big[i : i+1]); err != nil {
			t.Fatal(err)
		}
	}
	if cap(p.buf) != 64 {
		t.Errorf("buffer cap %d, want 64", cap(p.buf))
	}
}

func TestAppendClientFrameMasks(t *testing.T) {
	mask := [4]byte{1, 2, 3, 4}
	for _, n := range []int{0, 5, 125, 126, 65535, 65536} {
		payload := bytes.Repeat([]byte{0xaa}, n)
		b := AppendClientFrame(nil, OpPong, mask, payload)
		if b[0] != 0x80|OpPong || b[1]&0x80 == 0 {
			t.Fatalf("len %d: header %x", n, b[:2])
		}
		hl := map[bool]int{true: 2, false: 4}[n < 126]
		if n > 0xffff {
			hl = 10
		}
		got := b[hl+4:]
		for i := range got {
			got[i] ^= mask[i&3]
		}
		if !bytes.Equal(got, payload) {
			t.Errorf("len %d: payload does not unmask", n)
		}
	}
}

func TestHandshake(t *testing.T) {
	// RFC 6455 section 1.3's example.
	var acc [AcceptLen]byte
	Accept(&acc, []byte("dGhlIHNhbXBsZSBub25jZQ=="))
	if string(acc[:]) != "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=" {
		t.Fatalf("accept %s", acc[:])
	}
	req, err := NewRequest("127.0.0.1:80", "/ws/heartbeat?period_ms=100", []string{"X-A: b"})
	if err != nil {
		t.Fatal(err)
	}
	var key [KeyLen]byte
	EncodeKey(&key, [16]byte{1})
	b := string(req.SetKey(nil, &key))
	if !strings.HasPrefix(b, "GET /ws/heartbeat?period_ms=100 HTTP/1.1\r\n") || !strings.Contains(b, "Sec-WebSocket-Key: "+string(key[:])+"\r\n\r\n") || !strings.Contains(b, "X-A: b\r\n") {
		t.Fatalf("request %q", b)
	}
	ok := "HTTP/1.1 101 Switching Protocols\r\nUpgrade: WebSocket\r\nConnection: keep-alive, Upgrade\r\nSec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n\r\n"
	if ResponseEnd([]byte(ok[:len(ok)-1])) != 0 || ResponseEnd([]byte(ok+"\x81")) != len(ok) {
		t.Fatal("ResponseEnd")
	}
	if err := CheckResponse([]byte(ok), &acc); err != nil {
		t.Fatal(err)
	}
	for name, bad := range map[string]string{
		"status":     strings.Replace(ok, "101 Switching Protocols", "400 Bad Request", 1),
		"accept":     strings.Replace(ok, "s3pP", "s4pP", 1),
		"no upgrade": strings.Replace(ok, "Upgrade: WebSocket\r\n", "", 1),
		"connection": strings.Replace(ok, "keep-alive, Upgrade", "keep-alive", 1),
		"extension":  strings.Replace(ok, "\r\n\r\n", "\r\nSec-WebSocket-Extensions: permessage-deflate\r\n\r\n", 1),
		"not http":   "SSH-2.0\r\n\r\n",
		"no accept":  strings.Replace(ok, "Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n", "", 1),
	} {
		if err := CheckResponse([]byte(bad), &acc); !errors.Is(err, ErrHandshake) {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, err := NewRequest("h", "nopath", nil); err == nil {
		t.Error("a target without / was accepted")
	}
}
