package loadgen

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"

	"yardstick/pipeline/cpuset"
)

// ProtocolVersion is the version of the driver protocol in PROTOCOL.md.
const ProtocolVersion = 3

// maxLine bounds one protocol line (a result with its histogram is tens of
// kilobytes; this leaves room).
const maxLine = 16 << 20

// Message is one line of the driver protocol. Type says which fields are set.
type Message struct {
	Type string `json:"type"` // start, stop, hello, interval, result, error

	Spec *Spec `json:"spec,omitempty"` // start

	Version int `json:"version,omitempty"` // hello
	PID     int `json:"pid,omitempty"`     // hello

	*Interval `json:",omitempty"` // interval: its fields inline

	Result *Result `json:"-"` // result: its fields inline (see MarshalJSON)

	Error string `json:"error,omitempty"` // error
}

// encode writes one message line. A result is written as its fields inline
// beside "type".
func encodeMessage(w io.Writer, m Message) error {
	var b []byte
	var err error
	if m.Type == "result" && m.Result != nil {
		b, err = json.Marshal(struct {
			Type string `json:"type"`
			*Result
		}{"result", m.Result})
	} else {
		b, err = json.Marshal(m)
	}
	if err != nil {
		return fmt.Errorf("encode %s message: %w", m.Type, err)
	}
	b = append(b, '\n')
	if _, err := w.Write(b); err != nil {
		return fmt.Errorf("write %s message: %w", m.Type, err)
	}
	return nil
}

// intervalHead is how encodeMessage begins an interval line. A line that
// begins so is decoded in one pass; the driver reads ten a second.
var intervalHead = []byte(`{"type":"interval",`)

func decodeMessage(line []byte) (Message, error) {
	if bytes.HasPrefix(line, intervalHead) {
		m := Message{Type: "interval", Interval: new(Interval)}
		if err := json.Unmarshal(line, m.Interval); err != nil {
			return Message{}, fmt.Errorf("protocol: bad interval message: %w", err)
		}
		return m, nil
	}
	var head struct {
		Type string `json:"type"`
	}
	if err := json.Unmarshal(line, &head); err != nil {
		return Message{}, fmt.Errorf("protocol: bad line %.80q: %w", line, err)
	}
	m := Message{Type: head.Type}
	var err error
	switch head.Type {
	case "result":
		m.Result = new(Result)
		err = json.Unmarshal(line, m.Result)
	case "interval":
		m.Interval = new(Interval)
		err = json.Unmarshal(line, m.Interval)
	case "start", "stop", "hello", "error":
		err = json.Unmarshal(line, &m)
	default:
		return Message{}, fmt.Errorf("protocol: unknown message type %q", head.Type)
	}
	if err != nil {
		return Message{}, fmt.Errorf("protocol: bad %s message: %w", head.Type, err)
	}
	return m, nil
}

// ServeOptions adjusts [Serve].
type ServeOptions struct {
	// Pin, if set, is called with the spec's CPU set before the run.
	Pin func(cpus cpuset.Set) error
}

// Serve is the load generator's side of the driver protocol: it says hello
// on out, reads one start message from in, runs it while streaming
// intervals, and ends with a result or an error message. A stop message or
// the end of in stops the run early; the result then covers what was
// measured. Serve returns an error only when out cannot be written or the
// run could not start; a failed run is reported on out as well.
func Serve(ctx context.Context, in io.Reader, out io.Writer, opts ServeOptions) error {
	if err := encodeMessage(out, Message{Type: "hello", Version: ProtocolVersion, PID: os.Getpid()}); err != nil {
		return err
	}
	fail := func(err error) error {
		if werr := encodeMessage(out, Message{Type: "error", Error: err.Error()}); werr != nil {
			return errors.Join(err, werr)
		}
		return err
	}
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 64<<10), maxLine)
	if !sc.Scan() {
		if err := sc.Err(); err != nil {
			return fail(fmt.Errorf("protocol: read start: %w", err))
		}
		return fail(errors.New("protocol: input ended before a start message"))
	}
	m, err := decodeMessage(sc.Bytes())
	if err != nil {
		return fail(err)
	}
	if m.Type != "start" || m.Spec == nil {
		return fail(fmt.Errorf("protocol: want a start message with a spec, got %q", m.Type))
	}
	if err := m.Spec.Validate(); err != nil {
		return fail(fmt.Errorf("spec: %w", err))
	}
	if len(m.Spec.CPUs) > 0 && opts.Pin != nil {
		if err := opts.Pin(m.Spec.CPUs); err != nil {
			return fail(fmt.Errorf("pin: %w", err))
		}
	}

	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() { // a stop message or the end of the input stops the run
		defer cancel()
		for sc.Scan() {
			if m, err := decodeMessage(sc.Bytes()); err == nil && m.Type == "stop" {
				return
			}
		}
	}()
	var werr error
	res, err := Run(runCtx, *m.Spec, func(iv Interval) {
		if werr == nil {
			werr = encodeMessage(out, Message{Type: "interval", Interval: &iv})
		}
	})
	if err != nil {
		return fail(err)
	}
	if werr != nil {
		return werr
	}
	res.Affinity = OwnAffinity()
	return encodeMessage(out, Message{Type: "result", Result: res})
}

// Drive is the driver's side of the protocol: it sends spec on w, then reads
// messages from r, calling onInterval for each interval, until the result.
// Cancelling ctx sends a stop message and still waits for the result, so
// the caller gets what was measured. r and w are usually the stdout and
// stdin of a `yardstick loadgen --stdio` process.
func Drive(ctx context.Context, r io.Reader, w io.Writer, spec Spec, onInterval func(Interval)) (*Result, error) {
	var mu sync.Mutex // Drive and its stop watcher both write to w
	send := func(m Message) error {
		mu.Lock()
		defer mu.Unlock()
		return encodeMessage(w, m)
	}
	// The start goes out while the hello is read: over a synchronous pipe
	// each side writes before it reads. A failed write shows up as the end
	// of the load generator's output.
	done := make(chan struct{})
	defer close(done)
	go func() {
		if err := send(Message{Type: "start", Spec: &spec}); err != nil {
			return
		}
		select {
		case <-ctx.Done():
			_ = send(Message{Type: "stop"})
		case <-done:
		}
	}()
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxLine)
	sawHello := false
	for sc.Scan() {
		m, err := decodeMessage(sc.Bytes())
		if err != nil {
			return nil, err
		}
		switch m.Type {
		case "hello":
			if m.Version != ProtocolVersion {
				return nil, fmt.Errorf("protocol: load generator speaks version %d, want %d", m.Version, ProtocolVersion)
			}
			sawHello = true
		case "interval":
			if !sawHello {
				return nil, errors.New("protocol: interval before hello")
			}
			if onInterval != nil {
				onInterval(*m.Interval)
			}
		case "result":
			return m.Result, nil
		case "error":
			return nil, fmt.Errorf("load generator: %s", m.Error)
		default:
			return nil, fmt.Errorf("protocol: unexpected %q message from the load generator", m.Type)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("protocol: read: %w", err)
	}
	return nil, errors.New("protocol: load generator output ended without a result")
}

// DriveCommand starts cmd (a `yardstick loadgen --stdio` command line, with
// --cpus to pin it), drives it with spec and waits for it to exit. It
// returns the result and the process state, whose SysUsage holds the
// process's own accounting.
func DriveCommand(ctx context.Context, cmd *exec.Cmd, spec Spec, onInterval func(Interval)) (*Result, *os.ProcessState, error) {
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, nil, fmt.Errorf("load generator stdin: %w", err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, nil, fmt.Errorf("load generator stdout: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return nil, nil, fmt.Errorf("start load generator: %w", err)
	}
	res, derr := Drive(ctx, stdout, stdin, spec, onInterval)
	stdin.Close()
	if derr != nil {
		_, _ = io.Copy(io.Discard, stdout)
	}
	werr := cmd.Wait()
	if derr != nil {
		return nil, cmd.ProcessState, derr
	}
	if werr != nil {
		return res, cmd.ProcessState, fmt.Errorf("load generator: %w", werr)
	}
	return res, cmd.ProcessState, nil
}
