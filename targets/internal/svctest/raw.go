package svctest

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"syscall"
	"testing"
	"time"
)

// RawConn is one TCP connection to a target on which a test writes its
// requests by hand, one at a time: keep-alive latency, a HEAD answer that
// must not carry a body, a connection the server must (or must not) close.
type RawConn struct {
	conn net.Conn
	r    *bufio.Reader
}

// DialRaw connects to 127.0.0.1:port; the connection is closed when the
// test ends.
func DialRaw(t testing.TB, port int) *RawConn {
	t.Helper()
	c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return &RawConn{conn: c, r: bufio.NewReader(c)}
}

// Do writes method path as an HTTP/1.1 request and reads the answer whole
// (no body for HEAD, whatever its Content-Length says), within 10 s. A
// body sent on HEAD is read as the start of the next answer, which then
// fails to parse.
func (c *RawConn) Do(method, path string) (*http.Response, []byte, error) {
	_ = c.conn.SetDeadline(time.Now().Add(10 * time.Second))
	req, err := http.NewRequest(method, "http://127.0.0.1"+path, nil)
	if err != nil {
		return nil, nil, err
	}
	if _, err := fmt.Fprintf(c.conn, "%s %s HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", method, path); err != nil {
		return nil, nil, err
	}
	resp, err := http.ReadResponse(c.r, req)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return resp, body, err
}

// Closed waits at most wait for the server to close the connection and
// reports whether it did (EOF or a reset); an open connection makes the
// read time out. Anything else, bytes included, is an error.
func (c *RawConn) Closed(wait time.Duration) (bool, error) {
	_ = c.conn.SetReadDeadline(time.Now().Add(wait))
	_, err := c.r.Peek(1)
	var ne net.Error
	switch {
	case errors.Is(err, io.EOF) || errors.Is(err, syscall.ECONNRESET):
		return true, nil
	case errors.As(err, &ne) && ne.Timeout():
		return false, nil
	default:
		return false, fmt.Errorf("the connection reads %v, want EOF or a time-out", err)
	}
}
