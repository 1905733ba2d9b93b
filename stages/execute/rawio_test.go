package execute

import (
	"bufio"
	"errors"
	"io"
	"os"
	"strings"
	"testing"
)

// rawPipe reads lines as an os.File would: all of them, in order, split
// across reads however the writer wrote them, then io.EOF.
func TestRawPipeReadsToEOF(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	rp := newRawPipe(r)
	if _, ok := rp.(*rawPipe); !ok {
		t.Fatalf("newRawPipe gave %T, want *rawPipe", rp)
	}
	want := []string{"first", strings.Repeat("x", 100<<10), "last"}
	go func() {
		for _, l := range want {
			for i := 0; i < len(l); i += 4096 { // a line in several writes
				_, _ = w.WriteString(l[i:min(i+4096, len(l))])
			}
			_, _ = w.WriteString("\n")
		}
		w.Close()
	}()
	sc := bufio.NewScanner(rp)
	sc.Buffer(nil, 1<<20)
	var got []string
	for sc.Scan() {
		got = append(got, sc.Text())
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("got %d lines, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("line %d: got %.20q (%d bytes), want %.20q (%d bytes)", i, got[i], len(got[i]), want[i], len(want[i]))
		}
	}
	if n, err := rp.Read(make([]byte, 8)); n != 0 || err != io.EOF {
		t.Errorf("read past the end: %d, %v; want 0, EOF", n, err)
	}
}

// A read of a closed pipe fails as an os.File's does.
func TestRawPipeClosed(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	rp := newRawPipe(r)
	r.Close()
	if _, err := rp.Read(make([]byte, 8)); !errors.Is(err, os.ErrClosed) {
		t.Errorf("read of a closed pipe: %v, want os.ErrClosed", err)
	}
}

// writeLog appends small pieces (raw) and large ones (the runtime's way)
// in order, and fails on a closed file as the file's own write does.
func TestWriteLog(t *testing.T) {
	path := t.TempDir() + "/log"
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	pieces := []string{"gc 1 @0.01s\n", strings.Repeat("y", rawWriteMax+1), "gc 2 @0.02s\n"}
	for _, p := range pieces {
		if err := writeLog(f, []byte(p)); err != nil {
			t.Fatal(err)
		}
	}
	f.Close()
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if want := strings.Join(pieces, ""); string(got) != want {
		t.Errorf("log holds %d bytes, want %d", len(got), len(want))
	}
	if err := writeLog(f, []byte("late\n")); !errors.Is(err, os.ErrClosed) {
		t.Errorf("write to a closed log: %v, want os.ErrClosed", err)
	}
}
