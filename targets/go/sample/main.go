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

func envDuration(name string) time.Duration {
	if v, err := time.ParseDuration(os.Getenv(name)); err == nil {
		return v
	}
	return 0
}

func envBool(name string, def bool) bool {
	if v, err := strconv.ParseBool(os.Getenv(name)); err == nil {
		return v
	}
	return def
}

// options are the command line's flags; each defaults to its environment
// variable.
type options struct {
	port      int
	addr      string
	logPath   string
	nodelay   bool
	work      int
	logPad    int
	static    bool
	closeConn bool
	headerPad int
	warmup    time.Duration
	affinity  string
	pinTo     []int // affinity, parsed
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	o, err := parseOptions(args, stderr)
	if err != nil {
		return err
	}
	if o.pinTo != nil {
		if err := pinAllThreads(o.pinTo); err != nil {
			return fmt.Errorf("fault affinity: %w", err)
		}
	}
	cfg := Config{WorkFactor: o.work, Faults: Faults{LogPad: o.logPad, Static: o.static, Close: o.closeConn, HeaderPad: o.headerPad, Warmup: o.warmup}}
	var lf *logFile
	if o.logPath != "" {
		if lf, err = openLogFile(o.logPath); err != nil {
			return fmt.Errorf("access log: %w", err)
		}
		defer lf.close()
		cfg.AccessLog = lf
	}
	ln, err := net.Listen("tcp", o.addr)
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	if !o.nodelay {
		ln = noDelayListener{ln.(*net.TCPListener), false}
	}
	srv := &http.Server{
		Handler:           NewHandler(cfg),
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       120 * time.Second,
	}
	fmt.Fprintf(stdout, "sample-go listening on %s\n", ln.Addr())
	return serve(ctx, srv, ln, lf)
}

// parseOptions parses and checks the command line.
func parseOptions(args []string, stderr io.Writer) (*options, error) {
	o := &options{}
	fs := flag.NewFlagSet("sample-go", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.IntVar(&o.port, "port", envInt("PORT", 8080), "TCP port on 127.0.0.1 (0 picks a free one) [$PORT]")
	fs.StringVar(&o.addr, "addr", os.Getenv("ADDR"), "listen address host:port; overrides -port [$ADDR]")
	fs.StringVar(&o.logPath, "access-log", os.Getenv("ACCESS_LOG"), "file for the JSON access log; empty disables it [$ACCESS_LOG]")
	fs.BoolVar(&o.nodelay, "nodelay", envBool("TCP_NODELAY", true), "set TCP_NODELAY on accepted connections [$TCP_NODELAY]")
	fs.IntVar(&o.work, "work-factor", envInt("WORK_FACTOR", 10), "times the string endpoints repeat their work [$WORK_FACTOR]")
	fs.IntVar(&o.logPad, "fault-log-pad", envInt("FAULT_LOG_PAD", 0), "FAULT: add N bytes to every access-log line [$FAULT_LOG_PAD]")
	fs.BoolVar(&o.static, "fault-static", envBool("FAULT_STATIC", false), "FAULT: /api/strings and /api/generated repeat their first answer whatever the input [$FAULT_STATIC]")
	fs.BoolVar(&o.closeConn, "fault-close", envBool("FAULT_CLOSE", false), "FAULT: send Connection: close and close the connection after every response [$FAULT_CLOSE]")
	fs.IntVar(&o.headerPad, "fault-header-pad", envInt("FAULT_HEADER_PAD", 0), "FAULT: add an X-Pad header of N bytes to every response [$FAULT_HEADER_PAD]")
	fs.DurationVar(&o.warmup, "fault-warmup", envDuration("FAULT_WARMUP"), "FAULT: for this long after start every request costs extra CPU, 1ms falling linearly to 0: a JIT-like warm-up [$FAULT_WARMUP]")
	fs.StringVar(&o.affinity, "fault-affinity", os.Getenv("FAULT_AFFINITY"), "FAULT: at start-up re-pin every thread to this CPU list, e.g. 0-1 [$FAULT_AFFINITY]")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	return o, o.check()
}

// check validates the options, parses the fault affinity and resolves
// the listen address.
func (o *options) check() error {
	if o.work < 1 || o.work > MaxWorkFactor {
		return fmt.Errorf("work factor %d: want 1..%d", o.work, MaxWorkFactor)
	}
	if o.logPad < 0 || o.logPad > MaxLogPad {
		return fmt.Errorf("fault log pad %d: want 0..%d", o.logPad, MaxLogPad)
	}
	if o.headerPad < 0 || o.headerPad > MaxLogPad {
		return fmt.Errorf("fault header pad %d: want 0..%d", o.headerPad, MaxLogPad)
	}
	if o.warmup < 0 || o.warmup > time.Hour {
		return fmt.Errorf("fault warm-up %s: want 0..1h", o.warmup)
	}
	if o.affinity != "" {
		cpus, err := cpuset.Parse(o.affinity)
		if err != nil {
			return fmt.Errorf("fault affinity: %w", err)
		}
		o.pinTo = cpus
	}
	if o.addr == "" {
		if o.port < 0 || o.port > 65535 {
			return fmt.Errorf("port %d: want 0..65535", o.port)
		}
		o.addr = net.JoinHostPort("127.0.0.1", strconv.Itoa(o.port))
	}
	return nil
}

// serve serves until ctx is done, then shuts the server down gracefully.
// The access log, if any, reaches its file at least once a second.
func serve(ctx context.Context, srv *http.Server, ln net.Listener, lf *logFile) error {
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	if lf != nil {
		stop := make(chan struct{})
		defer close(stop)
		go lf.flushEverySecond(stop)
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

// logFile is the access log's file behind a buffer that the handlers and
// the flusher share.
type logFile struct {
	mu sync.Mutex
	f  *os.File
	w  *bufio.Writer
}

func openLogFile(path string) (*logFile, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	return &logFile{f: f, w: bufio.NewWriterSize(f, 64<<10)}, nil
}

func (l *logFile) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func (l *logFile) flush() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.w.Flush()
}

// flushEverySecond flushes the buffer once a second until stop is closed.
func (l *logFile) flushEverySecond(stop <-chan struct{}) {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			l.flush()
		case <-stop:
			return
		}
	}
}

// close flushes what is left and closes the file.
func (l *logFile) close() {
	l.flush()
	l.f.Close()
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
