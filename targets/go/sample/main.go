package sample

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"sync"
	"syscall"
	"time"

	"yardstick/pipeline/cpuset"
)

// Main runs the sample service with command-line arguments args (without
// the program name) until SIGINT or SIGTERM, and returns the exit status.
// Every flag has an environment variable that sets its default: PORT,
// ADDR, ACCESS_LOG, TCP_NODELAY, WORK_FACTOR, and for the fault-injection
// switches FAULT_LOG_PAD, FAULT_STATIC, FAULT_CLOSE, FAULT_HEADER_PAD, FAULT_AFFINITY (see
// Faults and targets/go/README.md). GOMAXPROCS, GOMEMLIMIT and GOGC are
// read by the Go runtime itself.
func Main(args []string, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, args, stdout, stderr); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		fmt.Fprintln(stderr, "sample-go:", err)
		return 2
	}
	return 0
}

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil {
		return v
	}
	return def
}

func envBool(name string, def bool) bool {
	if v, err := strconv.ParseBool(os.Getenv(name)); err == nil {
		return v
	}
	return def
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("sample-go", flag.ContinueOnError)
	fs.SetOutput(stderr)
	port := fs.Int("port", envInt("PORT", 8080), "TCP port on 127.0.0.1 (0 picks a free one) [$PORT]")
	addr := fs.String("addr", os.Getenv("ADDR"), "listen address host:port; overrides -port [$ADDR]")
	logPath := fs.String("access-log", os.Getenv("ACCESS_LOG"), "file for the JSON access log; empty disables it [$ACCESS_LOG]")
	nodelay := fs.Bool("nodelay", envBool("TCP_NODELAY", true), "set TCP_NODELAY on accepted connections [$TCP_NODELAY]")
	work := fs.Int("work-factor", envInt("WORK_FACTOR", 10), "times the string endpoints repeat their work [$WORK_FACTOR]")
	logPad := fs.Int("fault-log-pad", envInt("FAULT_LOG_PAD", 0), "FAULT: add N bytes to every access-log line [$FAULT_LOG_PAD]")
	static := fs.Bool("fault-static", envBool("FAULT_STATIC", false), "FAULT: /api/strings and /api/generated repeat their first answer whatever the input [$FAULT_STATIC]")
	closeConn := fs.Bool("fault-close", envBool("FAULT_CLOSE", false), "FAULT: send Connection: close and close the connection after every response [$FAULT_CLOSE]")
	headerPad := fs.Int("fault-header-pad", envInt("FAULT_HEADER_PAD", 0), "FAULT: add an X-Pad header of N bytes to every response [$FAULT_HEADER_PAD]")
	affinity := fs.String("fault-affinity", os.Getenv("FAULT_AFFINITY"), "FAULT: at start-up re-pin every thread to this CPU list, e.g. 0-1 [$FAULT_AFFINITY]")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if *work < 1 || *work > MaxWorkFactor {
		return fmt.Errorf("work factor %d: want 1..%d", *work, MaxWorkFactor)
	}
	if *logPad < 0 || *logPad > MaxLogPad {
		return fmt.Errorf("fault log pad %d: want 0..%d", *logPad, MaxLogPad)
	}
	if *headerPad < 0 || *headerPad > MaxLogPad {
		return fmt.Errorf("fault header pad %d: want 0..%d", *headerPad, MaxLogPad)
	}
	var pinTo []int
	if *affinity != "" {
		cpus, err := cpuset.Parse(*affinity)
		if err != nil {
			return fmt.Errorf("fault affinity: %w", err)
		}
		pinTo = cpus
	}
	if *addr == "" {
		if *port < 0 || *port > 65535 {
			return fmt.Errorf("port %d: want 0..65535", *port)
		}
		*addr = net.JoinHostPort("127.0.0.1", strconv.Itoa(*port))
	}

	if pinTo != nil {
		if err := pinAllThreads(pinTo); err != nil {
			return fmt.Errorf("fault affinity: %w", err)
		}
	}

	cfg := Config{WorkFactor: *work, Faults: Faults{LogPad: *logPad, Static: *static, Close: *closeConn, HeaderPad: *headerPad}}
	var logw *bufio.Writer
	var logMu sync.Mutex
	if *logPath != "" {
		f, err := os.OpenFile(*logPath, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
		if err != nil {
			return fmt.Errorf("access log: %w", err)
		}
		defer f.Close()
		logw = bufio.NewWriterSize(f, 64<<10)
		cfg.AccessLog = lockedWriter{&logMu, logw}
		defer func() { logMu.Lock(); logw.Flush(); logMu.Unlock() }()
	}

	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	if !*nodelay {
		ln = noDelayListener{ln.(*net.TCPListener), false}
	}
	srv := &http.Server{
		Handler:           NewHandler(cfg),
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       120 * time.Second,
	}
	fmt.Fprintf(stdout, "sample-go listening on %s\n", ln.Addr())

	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	var flushDone chan struct{}
	if logw != nil { // the access log reaches the file at least once a second
		flushDone = make(chan struct{})
		go func() {
			t := time.NewTicker(time.Second)
			defer t.Stop()
			for {
				select {
				case <-t.C:
					logMu.Lock()
					logw.Flush()
					logMu.Unlock()
				case <-flushDone:
					return
				}
			}
		}()
		defer close(flushDone)
	}
	select {
	case err := <-errc:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	return nil
}

type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// noDelayListener sets TCP_NODELAY on each accepted connection as told (Go
// turns it on by default; this is how it is turned off).
type noDelayListener struct {
	*net.TCPListener
	nodelay bool
}

func (l noDelayListener) Accept() (net.Conn, error) {
	c, err := l.AcceptTCP()
	if err != nil {
		return nil, err
	}
	if err := c.SetNoDelay(l.nodelay); err != nil {
		c.Close()
		return nil, fmt.Errorf("set TCP_NODELAY: %w", err)
	}
	return c, nil
}
