package main

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"yardstick/pipeline"
)

// resolveRun returns the run directory arg names: a path that exists, or
// else a run id (with or without "run=") or a unique prefix of one among
// the runs under results. An ambiguous prefix is an error that lists the
// runs it matches.
func resolveRun(env *cliEnv, arg, results string) (string, error) {
	p := abs(env, arg)
	if _, err := os.Lstat(p); err == nil || strings.ContainsRune(arg, filepath.Separator) || arg == "" {
		return p, nil
	}
	id := strings.TrimPrefix(arg, pipeline.RunIDPrefix)
	dir := abs(env, results)
	runs, err := findRunDirs(dir)
	if err != nil {
		return "", fmt.Errorf("%s: no such run directory, and no run ids to look it up in: %w", arg, err)
	}
	var match []string
	for _, r := range runs {
		rid := (&pipeline.RunDir{Root: r}).ID()
		if rid == id {
			return r, nil
		}
		if strings.HasPrefix(rid, id) {
			match = append(match, r)
		}
	}
	switch len(match) {
	case 0:
		return "", fmt.Errorf("%s: neither a run directory nor the id (or id prefix) of a run under %s", arg, dir)
	case 1:
		return match[0], nil
	}
	sort.Strings(match)
	var list strings.Builder
	for _, m := range match {
		rel, err := filepath.Rel(env.wd, m)
		if err != nil {
			rel = m
		}
		fmt.Fprintf(&list, "\n  %s", rel)
	}
	return "", fmt.Errorf("run id prefix %q is ambiguous: %d runs under %s match:%s", id, len(match), dir, list.String())
}
