package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"yardstick/pipeline/cpuset"

	"yardstick/stages/execute/loadgen"
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

func runLoadgen(ctx context.Context, env *cliEnv, args []string) error {
	fs := newFlagSet(env, "loadgen")
	var headers headerFlags
	url := fs.String("url", "", "target URL; must be on loopback (127.0.0.0/8, ::1, localhost)")
	method := fs.String("method", "GET", "HTTP method")
	bodyFile := fs.String("body", "", "file whose contents are the request body")
	fs.Var(&headers, "header", "extra request header Name:value (repeatable)")
	conns := fs.Int("connections", 32, "keep-alive connections")
	duration := fs.Duration("duration", 10*time.Second, "measured window (at most "+loadgen.MaxDuration.String()+")")
	rate := fs.Float64("rate", 0, "open-loop arrival rate in requests/s; 0 runs a closed loop")
	timeout := fs.Duration("timeout", 10*time.Second, "per-request timeout")
	cpus := fs.String("cpus", "", "CPU list to pin the load generator to, e.g. 1 or 2-3")
	workers := fs.Int("workers", 0, "event loops; 0 means one per usable CPU")
	payload := fs.Int("payload", 0, "substituted for {payload} as a number, and for {payload_text} as that many bytes of text")
	seed := fs.Uint64("seed", 1, "seed of the {vary} values")
	varyMin := fs.Int64("vary-min", 0, "lowest {vary} value")
	varyMax := fs.Int64("vary-max", 0, "highest {vary} value (0 with --vary-min 0: up to 999999999)")
	maxReq := fs.Int64("max-requests", 0, "stop after this many requests (0: no bound but the duration)")
	asJSON := fs.Bool("json", false, "print the result as one JSON object")
	stdio := fs.Bool("stdio", false, "driver mode: read the spec from stdin, stream JSON lines to stdout (see PROTOCOL.md)")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("unexpected arguments %q", pos)
	}
	if *cpus != "" {
		if _, err := cpuset.Parse(*cpus); err != nil {
			return usagef("--cpus: %v", err)
		}
	}
	pin := func(list string) error {
		if list == "" {
			return nil
		}
		set, err := cpuset.Parse(list)
		if err != nil {
			return err
		}
		if err := loadgen.Pin(set); err != nil {
			return err
		}
		if os.Getenv("GOMAXPROCS") == "" {
			// one P per event loop plus one, so that an idle P keeps the
			// runtime from handing Ps around while the loops wait in epoll
			runtime.GOMAXPROCS(len(set) + 1)
		}
		return nil
	}

	if *stdio {
		if *url != "" {
			return usagef("--stdio takes the spec from stdin, not from --url")
		}
		if err := pin(*cpus); err != nil {
			return fmt.Errorf("pin: %w", err)
		}
		if env.stdin == nil {
			return fmt.Errorf("--stdio: no standard input")
		}
		return loadgen.Serve(ctx, env.stdin, env.stdout, loadgen.ServeOptions{Pin: pin})
	}

	if *url == "" {
		return usagef("--url is required")
	}
	if *conns < 1 {
		return usagef("--connections must be at least 1")
	}
	if *duration <= 0 || *duration > loadgen.MaxDuration {
		return usagef("--duration must be more than 0 and at most %s", loadgen.MaxDuration)
	}
	if *rate < 0 {
		return usagef("--rate must not be negative")
	}
	if _, err := loadgen.TargetAddr(*url); err != nil {
		return fmt.Errorf("refusing to load %s: %w", *url, err)
	}
	spec := loadgen.Spec{
		URL:         *url,
		Method:      strings.ToUpper(*method),
		Headers:     headers,
		Connections: *conns,
		Duration:    loadgen.Duration(*duration),
		Rate:        *rate,
		Timeout:     loadgen.Duration(*timeout),
		Payload:     *payload,
		Seed:        *seed,
		VaryMin:     *varyMin,
		VaryMax:     *varyMax,
		MaxRequests: *maxReq,
		Workers:     *workers,
	}
	if *bodyFile != "" {
		p := *bodyFile
		if !filepath.IsAbs(p) {
			p = filepath.Join(env.wd, p)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return fmt.Errorf("request body: %w", err)
		}
		spec.Body = string(b)
	}
	if err := spec.Validate(); err != nil {
		return usagef("%v", err)
	}
	if *cpus != "" {
		if err := pin(*cpus); err != nil {
			return fmt.Errorf("pin: %w", err)
		}
	}
	res, err := loadgen.Run(ctx, spec, nil)
	if err != nil {
		return err
	}
	if *asJSON {
		b, err := json.Marshal(res)
		if err != nil {
			return fmt.Errorf("encode result: %w", err)
		}
		_, err = fmt.Fprintf(env.stdout, "%s\n", b)
		return err
	}
	return res.WriteText(env.stdout)
}
