package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"yardstick/loadgen"
	"yardstick/pipeline/cpuset"
)

func init() {
	register(verb{
		name:    "loadgen",
		summary: "generate HTTP load against a loopback target and report latency",
		usage: "--url URL [--method M] [--body FILE] [--header K:V]... [--connections N] [--duration D] " +
			"[--rate R] [--timeout D] [--cpus LIST] [--payload N] [--seed S] [--max-requests N] [--json] | --stdio [--cpus LIST]",
		run: runLoadgen,
		raw: true,
	})
}

type headerFlags []string

func (h *headerFlags) String() string { return strings.Join(*h, ", ") }
func (h *headerFlags) Set(v string) error {
	k, _, ok := strings.Cut(v, ":")
	if !ok || strings.TrimSpace(k) == "" {
		return fmt.Errorf("want Name:value, got %q", v)
	}
	*h = append(*h, v)
	return nil
}

// loadgenFlags are the loadgen verb's flags.
type loadgenFlags struct {
	url, method, bodyFile string
	headers               headerFlags
	conns                 int
	duration              time.Duration
	rate                  float64
	timeout               time.Duration
	cpuList               string     // --cpus as given
	cpus                  cpuset.Set // --cpus parsed
	workers, payload      int
	seed                  uint64
	varyMin, varyMax      int64
	maxReq                int64
	asJSON, stdio         bool
}

func runLoadgen(ctx context.Context, env *cliEnv, args []string) error {
	f, err := parseLoadgenFlags(env, args)
	if err != nil {
		return err
	}
	if f.stdio {
		return serveLoadgen(ctx, env, f)
	}
	spec, err := f.spec(env)
	if err != nil {
		return err
	}
	if err := pinLoadgen(f.cpus); err != nil {
		return fmt.Errorf("pin: %w", err)
	}
	res, err := loadgen.Run(ctx, spec, nil)
	if err != nil {
		return err
	}
	if f.asJSON {
		b, err := json.Marshal(res)
		if err != nil {
			return fmt.Errorf("encode result: %w", err)
		}
		_, err = fmt.Fprintf(env.stdout, "%s\n", b)
		return err
	}
	return res.WriteText(env.stdout)
}

// parseLoadgenFlags parses the verb's arguments; only flags are allowed.
func parseLoadgenFlags(env *cliEnv, args []string) (*loadgenFlags, error) {
	f := &loadgenFlags{}
	fs := newFlagSet(env, "loadgen")
	fs.StringVar(&f.url, "url", "", "target URL; must be on loopback (127.0.0.0/8, ::1, localhost)")
	fs.StringVar(&f.method, "method", "GET", "HTTP method")
	fs.StringVar(&f.bodyFile, "body", "", "file whose contents are the request body")
	fs.Var(&f.headers, "header", "extra request header Name:value (repeatable)")
	fs.IntVar(&f.conns, "connections", 32, "keep-alive connections")
	fs.DurationVar(&f.duration, "duration", 10*time.Second, "measured window (at most "+loadgen.MaxDuration.String()+")")
	fs.Float64Var(&f.rate, "rate", 0, "open-loop arrival rate in requests/s; 0 runs a closed loop")
	fs.DurationVar(&f.timeout, "timeout", 10*time.Second, "per-request timeout")
	fs.StringVar(&f.cpuList, "cpus", "", "CPU list to pin the load generator to, e.g. 1 or 2-3")
	fs.IntVar(&f.workers, "workers", 0, "event loops; 0 means one per usable CPU")
	fs.IntVar(&f.payload, "payload", 0, "substituted for {payload} as a number, and for {payload_text} as that many bytes of text")
	fs.Uint64Var(&f.seed, "seed", 1, "seed of the {vary} values")
	fs.Int64Var(&f.varyMin, "vary-min", 0, "lowest {vary} value")
	fs.Int64Var(&f.varyMax, "vary-max", 0, "highest {vary} value (0 with --vary-min 0: up to 999999999)")
	fs.Int64Var(&f.maxReq, "max-requests", 0, "stop after this many requests (0: no bound but the duration)")
	fs.BoolVar(&f.asJSON, "json", false, "print the result as one JSON object")
	fs.BoolVar(&f.stdio, "stdio", false, "driver mode: read the spec from stdin, stream JSON lines to stdout (see PROTOCOL.md)")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return nil, err
	}
	if len(pos) > 0 {
		return nil, usagef("unexpected arguments %q", pos)
	}
	if f.cpuList != "" {
		if f.cpus, err = cpuset.Parse(f.cpuList); err != nil {
			return nil, usagef("--cpus: %v", err)
		}
	}
	return f, nil
}

// serveLoadgen is driver mode: the spec comes from stdin.
func serveLoadgen(ctx context.Context, env *cliEnv, f *loadgenFlags) error {
	if f.url != "" {
		return usagef("--stdio takes the spec from stdin, not from --url")
	}
	if err := pinLoadgen(f.cpus); err != nil {
		return fmt.Errorf("pin: %w", err)
	}
	if env.stdin == nil {
		return fmt.Errorf("--stdio: no standard input")
	}
	return loadgen.Serve(ctx, env.stdin, env.stdout, loadgen.ServeOptions{Pin: pinLoadgen})
}

// spec checks the flags of a command-line run and builds its spec.
func (f *loadgenFlags) spec(env *cliEnv) (loadgen.Spec, error) {
	switch {
	case f.url == "":
		return loadgen.Spec{}, usagef("--url is required")
	case f.conns < 1:
		return loadgen.Spec{}, usagef("--connections must be at least 1")
	case f.duration <= 0 || f.duration > loadgen.MaxDuration:
		return loadgen.Spec{}, usagef("--duration must be more than 0 and at most %s", loadgen.MaxDuration)
	case f.rate < 0:
		return loadgen.Spec{}, usagef("--rate must not be negative")
	}
	if _, err := loadgen.TargetAddr(f.url); err != nil {
		return loadgen.Spec{}, fmt.Errorf("refusing to load %s: %w", f.url, err)
	}
	spec := loadgen.Spec{
		URL:         f.url,
		Method:      strings.ToUpper(f.method),
		Headers:     f.headers,
		Connections: f.conns,
		Duration:    loadgen.Duration(f.duration),
		Rate:        f.rate,
		Timeout:     loadgen.Duration(f.timeout),
		Payload:     f.payload,
		Seed:        f.seed,
		VaryMin:     f.varyMin,
		VaryMax:     f.varyMax,
		MaxRequests: f.maxReq,
		Workers:     f.workers,
	}
	if f.bodyFile != "" {
		p := f.bodyFile
		if !filepath.IsAbs(p) {
			p = filepath.Join(env.wd, p)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return loadgen.Spec{}, fmt.Errorf("request body: %w", err)
		}
		spec.Body = string(b)
	}
	if err := spec.Validate(); err != nil {
		return loadgen.Spec{}, usagef("%v", err)
	}
	return spec, nil
}

// pinLoadgen pins the load generator to a CPU set (none: no pinning) and
// dedicates the process to it (one P per CPU plus one, unless the
// environment sets GOMAXPROCS; see loadgen.Dedicate).
func pinLoadgen(set cpuset.Set) error {
	if len(set) == 0 {
		return nil
	}
	if err := loadgen.Pin(set); err != nil {
		return err
	}
	loadgen.Dedicate(set)
	return nil
}
