package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"yardstick/pipeline/safetext"
	"yardstick/stats/changepoint"
	"yardstick/stats/steady"
)

func init() {
	register(verb{
		name:    "steady",
		summary: "classify any series (one number per line) as run classifies a cell's load: flat, warmup, slowdown or no_steady_state",
		usage:   "[--interval D] [--band F] [--lower-is-better] [--json] FILE...  (- for standard input)",
		run:     runSteady,
	})
}

// Limits on what steady reads.
const (
	// steadyMaxBytes is the most bytes one series may have.
	steadyMaxBytes = 64 << 20
	// steadyMaxValues is the most values one series may have: a day at
	// 100 ms intervals.
	steadyMaxValues = 864_000
	// steadyMaxLine is the longest line.
	steadyMaxLine = 4096
)

// steadyFlags are steady's options.
type steadyFlags struct {
	interval time.Duration
	band     float64
	lower    bool
	json     bool
}

func runSteady(_ context.Context, env *cliEnv, args []string) error {
	fs := newFlagSet(env, "steady")
	var f steadyFlags
	fs.DurationVar(&f.interval, "interval", 100*time.Millisecond, "the length of one interval of the series (for the steady start in seconds)")
	fs.Float64Var(&f.band, "band", changepoint.DefaultRelTol, "the noise band: two levels within this fraction of each other are the same level (at least 0.02)")
	fs.BoolVar(&f.lower, "lower-is-better", false, "the series improves downwards (latencies, iteration times); by default upwards (throughput)")
	fs.BoolVar(&f.json, "json", false, "one JSON object per file, one a line")
	args, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	switch {
	case len(args) == 0:
		return usagef("want at least one FILE (- for standard input)")
	case f.interval <= 0:
		return usagef("--interval %s: want a positive duration", f.interval)
	case math.IsNaN(f.band) || f.band < 0 || f.band >= 1:
		return usagef("--band %v: want a fraction in [0, 1)", f.band)
	}
	failed := false
	for _, name := range args {
		if err := steadyFile(env, name, f); err != nil {
			fmt.Fprintln(env.stderr, "yardstick steady:", safetext.Line(err.Error()))
			failed = true
		}
	}
	if failed {
		return errPrinted
	}
	return nil
}

// steadyResult is steady's JSON line for one file.
type steadyResult struct {
	File         string   `json:"file"`
	N            int      `json:"n"`
	Class        string   `json:"class"`
	Changepoints []int    `json:"changepoints"`
	SteadyStart  *int     `json:"steady_start"`
	SteadyStartS *float64 `json:"steady_start_s"`
	Outliers     []int    `json:"outliers"`
	Noise        float64  `json:"noise"`
	Group        int      `json:"group"`
}

// steadyFile reads, classifies and prints one series.
func steadyFile(env *cliEnv, name string, f steadyFlags) error {
	x, err := readSeries(env, name)
	if err != nil {
		return err
	}
	if len(x) < 2*changepoint.DefaultMinSize {
		return fmt.Errorf("%s: %d values, need at least %d", name, len(x), 2*changepoint.DefaultMinSize)
	}
	dir := changepoint.HigherIsBetter
	if f.lower {
		dir = changepoint.LowerIsBetter
	}
	c, err := steady.Classify(x, dir, f.band)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	r := steadyResult{File: name, N: len(x), Class: c.Class, Changepoints: c.Changepoints, Outliers: c.Outliers, Noise: c.Noise, Group: c.Group}
	if c.SteadyStart >= 0 {
		at, s := c.SteadyStart, float64(c.SteadyStart)*f.interval.Seconds()
		r.SteadyStart, r.SteadyStartS = &at, &s
	}
	if f.json {
		b, err := json.Marshal(r)
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(env.stdout, "%s\n", safetext.JSON(b))
		return err
	}
	_, err = fmt.Fprintln(env.stdout, steadyText(r))
	return err
}

// steadyText is one file's result in words.
func steadyText(r steadyResult) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s, %d values", safetext.Line(r.File), r.Class, r.N)
	if r.SteadyStart != nil {
		fmt.Fprintf(&b, ", steady from %d (%.1f s)", *r.SteadyStart, *r.SteadyStartS)
	} else {
		b.WriteString(", never steady")
	}
	if len(r.Changepoints) > 0 {
		fmt.Fprintf(&b, ", changepoints %s", strings.Trim(fmt.Sprint(r.Changepoints), "[]"))
	}
	fmt.Fprintf(&b, ", %d outlier(s), noise %.4g", len(r.Outliers), r.Noise)
	if r.Group > 1 {
		fmt.Fprintf(&b, " (in groups of %d)", r.Group)
	}
	return b.String()
}

// readSeries reads one number per line from the file name, or from
// standard input for "-"; blank lines are skipped. It refuses what is not
// a regular file (opened without blocking: a named pipe with no writer
// is refused, not waited on), more than steadyMaxBytes or
// steadyMaxValues, a line longer than steadyMaxLine, and a line that is
// not a finite number, saying where: it reads at most steadyMaxBytes+1
// bytes of any input, standard input too.
func readSeries(env *cliEnv, name string) ([]float64, error) {
	var r io.Reader = env.stdin
	if name != "-" {
		fh, err := os.OpenFile(abs(env, name), os.O_RDONLY|syscall.O_NONBLOCK, 0)
		if err != nil {
			return nil, err
		}
		defer fh.Close()
		st, err := fh.Stat()
		if err != nil {
			return nil, err
		}
		if !st.Mode().IsRegular() {
			return nil, fmt.Errorf("%s: not a regular file", name)
		}
		r = fh
	} else if r == nil {
		return nil, errors.New("-: no standard input")
	}
	lim := &io.LimitedReader{R: r, N: steadyMaxBytes + 1}
	sc := bufio.NewScanner(lim)
	sc.Buffer(make([]byte, 0, steadyMaxLine), steadyMaxLine)
	var x []float64
	line := 0
	for sc.Scan() {
		line++
		if lim.N <= 0 {
			return nil, fmt.Errorf("%s: more than %d bytes", name, steadyMaxBytes)
		}
		s := strings.TrimSpace(sc.Text())
		if s == "" {
			continue
		}
		v, err := strconv.ParseFloat(s, 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("%s:%d: %q is not a finite number", name, line, truncate(s, 40))
		}
		if len(x) == steadyMaxValues {
			return nil, fmt.Errorf("%s:%d: more than %d values", name, line, steadyMaxValues)
		}
		x = append(x, v)
	}
	switch err := sc.Err(); {
	case errors.Is(err, bufio.ErrTooLong):
		return nil, fmt.Errorf("%s:%d: a line longer than %d bytes", name, line+1, steadyMaxLine)
	case err != nil:
		return nil, fmt.Errorf("%s: %w", name, err)
	case lim.N <= 0:
		return nil, fmt.Errorf("%s: more than %d bytes", name, steadyMaxBytes)
	}
	if len(x) == 0 {
		return nil, fmt.Errorf("%s: no values", name)
	}
	return x, nil
}

// truncate cuts s to n bytes, marking the cut.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}
