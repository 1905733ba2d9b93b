package main

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"yardstick/stages/report"
)

func init() {
	register(verb{
		name:    "report",
		summary: "write report.md, report.html and SVG charts from a run's Parquet tables",
		usage:   "RUNDIR|DIR... [--baseline TARGET] [--format md,html] [--out DIR]",
		run:     runReport,
	})
}

// runReport reports on each run directory it is given, or on every run
// directory (one holding cells.parquet) under a directory it is given.
// Runs are reported separately: their numbers are never mixed.
func runReport(ctx context.Context, env *cliEnv, args []string) error {
	fs := newFlagSet(env, "report")
	baseline := fs.String("baseline", "", "baseline target (or variant label) of every batch; default: each batch's declared baseline")
	format := fs.String("format", "md,html", "comma-separated formats: md, html")
	out := fs.String("out", "", "output directory (default RUNDIR/report; with several runs, DIR/<experiment>/run=<id>)")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		return usagef("want at least one run directory")
	}
	var formats []string
	for _, f := range strings.Split(*format, ",") {
		f = strings.TrimSpace(f)
		if f != "md" && f != "html" {
			return usagef("--format: unknown format %q (want md, html)", f)
		}
		if !slices.Contains(formats, f) {
			formats = append(formats, f)
		}
	}
	var runs []string
	for _, a := range pos {
		p := a
		if !filepath.IsAbs(p) {
			p = filepath.Join(env.wd, p)
		}
		found, err := runDirs(p)
		if err != nil {
			return err
		}
		if len(found) == 0 {
			return fmt.Errorf("%s: no run directory with cells.parquet (run yardstick datasets on a run first)", a)
		}
		runs = append(runs, found...)
	}
	failed := false
	for _, rd := range runs {
		o := report.Options{Baseline: *baseline, Formats: formats, Out: *out, Context: ctx}
		if *out != "" && len(runs) > 1 {
			o.Out = filepath.Join(*out, filepath.Base(filepath.Dir(rd)), filepath.Base(rd))
		}
		res, err := report.Run(rd, o)
		if err != nil {
			fmt.Fprintf(env.stderr, "yardstick report: %v\n", err)
			failed = true
			continue
		}
		for _, n := range res.Notes {
			fmt.Fprintf(env.stderr, "report: note: %s\n", n)
		}
		main := filepath.Join(res.Out, "report.md")
		if !slices.Contains(formats, "md") {
			main = filepath.Join(res.Out, "report.html")
		}
		fmt.Fprintf(env.stdout, "report: %s\n", main)
	}
	if failed {
		return errPrinted
	}
	return nil
}

// runDirs returns dir if it holds cells.parquet, else every directory
// under it that does, sorted (results/<experiment>/run=<id>/ layouts).
func runDirs(dir string) ([]string, error) {
	st, err := os.Stat(dir)
	if err != nil {
		return nil, err
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("%s: not a directory", dir)
	}
	if _, err := os.Stat(filepath.Join(dir, "cells.parquet")); err == nil {
		return []string{dir}, nil
	}
	var out []string
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "cells" || d.Name() == "report" || d.Name() == "starts") {
			return filepath.SkipDir
		}
		if !d.IsDir() && d.Name() == "cells.parquet" {
			out = append(out, filepath.Dir(p))
		}
		return nil
	})
	slices.Sort(out)
	return out, err
}
