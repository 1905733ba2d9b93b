package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"yardstick/schema"
)

// diff --base REF reads the old side of a definition from git: the same
// file or directory as it is at REF. Only two git plumbing commands run,
// `git ls-tree` and `git cat-file`, which read objects and run no hook,
// filter or program of the repository (and, with GIT_NO_LAZY_FETCH, do
// not fetch a missing object of a partial clone, which would run a
// transport); nothing of the definition is executed, and nothing is
// written: the blobs are evaluated from memory (validate.LoadSources),
// their files named REF:path. REF must name a commit, a tag or a tree: a
// ref to a blob is refused by its type. Only regular .cue files are read:
// a symbolic link or a submodule at a .cue path is refused, and a blob
// over schema.MaxFileBytes is refused by its size, unread.

// gitRefRE is the spelling of a revision diff --base accepts: no leading
// dash (an option), no whitespace, no colon (a path).
var gitRefRE = regexp.MustCompile(`^[A-Za-z0-9_./@^~{}+-]+$`)

// lsTreeRE is one entry of git ls-tree -z: mode, type, object name, path.
var lsTreeRE = regexp.MustCompile(`^([0-7]{6}) (blob|tree|commit) ([0-9a-f]{40,64})\t(.+)$`)

// gitBase reads the .cue files of the definition arg (relative to wd) as
// they are at ref.
func gitBase(ctx context.Context, wd, ref, arg string) ([]schema.SourceFile, error) {
	if !gitRefRE.MatchString(ref) || strings.HasPrefix(ref, "-") {
		return nil, usagef("--base %q: not a git revision", ref)
	}
	typ, err := git(ctx, wd, "cat-file", "-t", ref)
	if err != nil {
		return nil, fmt.Errorf("--base %s: %w", ref, err)
	}
	switch t := strings.TrimSpace(string(typ)); t {
	case "commit", "tag", "tree":
	default:
		return nil, fmt.Errorf("--base %s: a %s, not a commit or tree", ref, t)
	}
	ents, err := gitLsTree(ctx, wd, ref, arg)
	if err != nil {
		return nil, err
	}
	if len(ents) == 1 && ents[0].typ == "tree" {
		if ents, err = gitLsTree(ctx, wd, ref, strings.TrimSuffix(arg, "/")+"/"); err != nil {
			return nil, err
		}
	}
	var srcs []schema.SourceFile
	for _, e := range ents {
		if filepath.Ext(e.path) != ".cue" || strings.HasPrefix(filepath.Base(e.path), ".") {
			continue
		}
		if e.typ != "blob" {
			return nil, fmt.Errorf("%s at %s: a %s (mode %s), not a regular file; a definition is read from regular .cue files only", e.path, ref, gitKind(e), e.mode)
		}
		b, err := gitReadBlob(ctx, wd, ref, e)
		if err != nil {
			return nil, err
		}
		sum := sha256.Sum256(b)
		srcs = append(srcs, schema.SourceFile{Path: ref + ":" + e.path, Content: b, SHA256: hex.EncodeToString(sum[:])})
	}
	if len(srcs) == 0 {
		if len(ents) == 1 && (ents[0].typ == "commit" || ents[0].mode == "120000") {
			return nil, fmt.Errorf("%s at %s: a %s (mode %s), not a definition", arg, ref, gitKind(ents[0]), ents[0].mode)
		}
		return nil, fmt.Errorf("%s: no .cue file at %s", arg, ref)
	}
	return srcs, nil
}

// gitKind names a tree entry's kind for a refusal.
func gitKind(e treeEntry) string {
	switch {
	case e.typ == "commit":
		return "submodule"
	case e.typ == "tree":
		return "directory"
	case e.mode == "120000":
		return "symbolic link"
	}
	return e.typ
}

type treeEntry struct{ mode, typ, object, path string }

// gitLsTree lists the entries of path at ref (paths relative to wd).
func gitLsTree(ctx context.Context, wd, ref, path string) ([]treeEntry, error) {
	out, err := git(ctx, wd, "ls-tree", "-z", ref, "--", path)
	if err != nil {
		return nil, err
	}
	var ents []treeEntry
	for _, line := range strings.Split(string(out), "\x00") {
		if line == "" {
			continue
		}
		m := lsTreeRE.FindStringSubmatch(line)
		if m == nil {
			return nil, fmt.Errorf("git ls-tree %s: unexpected line %q", ref, line)
		}
		ents = append(ents, treeEntry{mode: m[1], typ: m[2], object: m[3], path: m[4]})
	}
	if len(ents) == 0 {
		return nil, fmt.Errorf("%s: not at %s (a definition this change adds?)", path, ref)
	}
	return ents, nil
}

// gitReadBlob reads a .cue blob. A symlink is refused as the loader
// refuses one, and a blob over the loader's size limit is not read.
func gitReadBlob(ctx context.Context, wd, ref string, e treeEntry) ([]byte, error) {
	if e.mode != "100644" && e.mode != "100755" {
		return nil, fmt.Errorf("%s at %s: mode %s, not a regular file; a definition is read from regular .cue files only", e.path, ref, e.mode)
	}
	size, err := git(ctx, wd, "cat-file", "-s", e.object)
	if err != nil {
		return nil, err
	}
	if n, err := strconv.ParseInt(strings.TrimSpace(string(size)), 10, 64); err != nil || n > schema.MaxFileBytes {
		return nil, fmt.Errorf("%s at %s: %s bytes, more than the %d a definition file may have", e.path, ref, strings.TrimSpace(string(size)), schema.MaxFileBytes)
	}
	return git(ctx, wd, "cat-file", "blob", e.object)
}

// git runs one git plumbing command in wd and returns its stdout.
func git(ctx context.Context, wd string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = wd
	cmd.Env = append(os.Environ(), "GIT_NO_LAZY_FETCH=1", "GIT_TERMINAL_PROMPT=0")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return stdout.Bytes(), nil
}
