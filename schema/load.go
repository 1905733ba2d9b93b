// Package schema holds yardstick's CUE schema (yardstick.cue, embedded) and
// loads experiment definitions against it.
//
// Load reads the user's files itself (no CUE module loader, no registry, no
// network), unifies them with #Experiments, reports every problem CUE finds
// as a Problem with a file:line:col in the user's own file where one exists,
// and decodes valid definitions into the Go types of model.go. Nothing named
// in a definition is ever executed here.
package schema

import (
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/ast"
	"cuelang.org/go/cue/build"
	"cuelang.org/go/cue/cuecontext"
	"cuelang.org/go/cue/parser"
	"cuelang.org/go/cue/token"
)

//go:embed yardstick.cue
var schemaSource []byte

// SchemaFile is the name positions inside the embedded schema carry.
const SchemaFile = "embed:/schema/yardstick.cue"

// Source returns the embedded schema's CUE text, for people who want to
// `cue vet` against it (yardstick schema prints it).
func Source() []byte { return append([]byte(nil), schemaSource...) }

// A Source is one file of a definition as it was read.
type SourceFile struct {
	Path    string // as given, relative to the working directory when possible
	Content []byte
	SHA256  string
}

// A Definition is what one argument of validate or plan names: a file, or a
// directory whose .cue files are loaded together as one package.
type Definition struct {
	Arg         string
	Sources     []SourceFile
	Experiments []*Experiment // sorted by name
	// Tags are the -t key=value injections the definition was evaluated
	// with (tags.go), in the order given.
	Tags []Tag
}

// Hash is the sha256 of the definition's sources (path and content) and of
// its tags when there are any, the "source hash" recorded with every plan:
// the same files with other tags are another definition.
func (d *Definition) Hash() string {
	h := sha256.New()
	for _, s := range d.Sources {
		fmt.Fprintf(h, "%s\x00%d\x00", s.Path, len(s.Content))
		h.Write(s.Content)
	}
	for _, t := range d.Tags {
		fmt.Fprintf(h, "tag\x00%s\x00%s\x00", t.Key, t.Value)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Experiment returns the named experiment, or the only one when name is
// empty.
func (d *Definition) Experiment(name string) (*Experiment, error) {
	if name == "" {
		if len(d.Experiments) == 1 {
			return d.Experiments[0], nil
		}
		names := make([]string, len(d.Experiments))
		for i, e := range d.Experiments {
			names[i] = e.Name
		}
		return nil, fmt.Errorf("%s defines %d experiments (%s): choose one with --experiment", d.Arg, len(names), strings.Join(names, ", "))
	}
	for _, e := range d.Experiments {
		if e.Name == name {
			return e, nil
		}
	}
	return nil, fmt.Errorf("%s: no experiment named %q", d.Arg, name)
}

// MaxFileBytes bounds one definition file.
const MaxFileBytes = 4 << 20

// Load reads the definition named by arg (a .cue file or a directory),
// relative to wd. It returns the decoded definition, or every problem found,
// as a Problems error. Only regular .cue files are read: a symlink, FIFO or
// device is refused, so nothing outside the definition is read.
func Load(wd, arg string) (*Definition, error) { return LoadTagged(wd, arg, nil) }

// LoadTagged is Load with tags injected into the fields marked @tag
// (tags.go).
func LoadTagged(wd, arg string, tags []Tag) (*Definition, error) {
	files, err := listFiles(wd, arg)
	if err != nil {
		return nil, err
	}
	srcs := make([]SourceFile, 0, len(files))
	for _, f := range files {
		full := f
		if !filepath.IsAbs(full) {
			full = filepath.Join(wd, f)
		}
		b, err := readRegular(full, f)
		if err != nil {
			return nil, err
		}
		sum := sha256.Sum256(b)
		srcs = append(srcs, SourceFile{Path: f, Content: b, SHA256: hex.EncodeToString(sum[:])})
	}
	return LoadSourcesTagged(arg, srcs, tags)
}

// LoadContext is Load, given up when ctx ends (Ctrl-C, SIGTERM, a
// timeout). CUE's evaluator cannot be interrupted, so the evaluation goes
// on in a goroutine whose result is dropped; the caller, a command about
// to exit, returns at once with ctx's error.
func LoadContext(ctx context.Context, wd, arg string, tags []Tag) (*Definition, error) {
	return evalContext(ctx, arg, func() (*Definition, error) { return LoadTagged(wd, arg, tags) })
}

// LoadSourcesContext is LoadSourcesTagged, given up when ctx ends (as
// LoadContext).
func LoadSourcesContext(ctx context.Context, arg string, srcs []SourceFile, tags []Tag) (*Definition, error) {
	return evalContext(ctx, arg, func() (*Definition, error) { return LoadSourcesTagged(arg, srcs, tags) })
}

// evalContext runs load in a goroutine and returns its result, or ctx's
// error at once when ctx ends first.
func evalContext(ctx context.Context, arg string, load func() (*Definition, error)) (*Definition, error) {
	type result struct {
		def *Definition
		err error
	}
	done := make(chan result, 1)
	go func() {
		def, err := load()
		done <- result{def, err}
	}()
	select {
	case r := <-done:
		return r.def, r.err
	case <-ctx.Done():
		return nil, fmt.Errorf("evaluate %s: %w", arg, context.Cause(ctx))
	}
}

// readRegular reads the regular file full (named name in messages),
// without following a symlink and without blocking on a FIFO.
func readRegular(full, name string) ([]byte, error) {
	f, err := os.OpenFile(full, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		if errors.Is(err, syscall.ELOOP) {
			return nil, fmt.Errorf("read definition %s: a symlink; a definition is read from regular .cue files only", name)
		}
		return nil, fmt.Errorf("read definition: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("read definition: %w", err)
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("read definition %s: %s, not a regular file; a definition is read from regular .cue files only", name, fileKind(st.Mode()))
	}
	if st.Size() > MaxFileBytes {
		return nil, fmt.Errorf("read definition %s: %d bytes, more than the %d a definition file may have", name, st.Size(), MaxFileBytes)
	}
	b, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("read definition: %w", err)
	}
	if len(b) > MaxFileBytes {
		return nil, fmt.Errorf("read definition %s: more than the %d bytes a definition file may have", name, MaxFileBytes)
	}
	return b, nil
}

// listFiles resolves arg to the .cue files it names, as paths relative to wd
// where possible (so that positions in messages are short and stable).
func listFiles(wd, arg string) ([]string, error) {
	full := arg
	if !filepath.IsAbs(full) {
		full = filepath.Join(wd, arg)
	}
	st, err := os.Lstat(full)
	if err != nil {
		return nil, fmt.Errorf("read definition: %w", err)
	}
	if st.Mode()&os.ModeSymlink != 0 {
		return nil, fmt.Errorf("read definition %s: a symlink; name the file or directory itself", arg)
	}
	rel := func(p string) string {
		if r, err := filepath.Rel(wd, p); err == nil && !strings.HasPrefix(r, "..") {
			return r
		}
		return p
	}
	if !st.IsDir() {
		if filepath.Ext(full) != ".cue" {
			return nil, fmt.Errorf("read definition %s: not a .cue file", arg)
		}
		return []string{rel(full)}, nil
	}
	ents, err := os.ReadDir(full)
	if err != nil {
		return nil, fmt.Errorf("read definition: %w", err)
	}
	var out []string
	for _, e := range ents {
		if e.IsDir() || filepath.Ext(e.Name()) != ".cue" || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		name := rel(filepath.Join(full, e.Name()))
		if !e.Type().IsRegular() {
			return nil, fmt.Errorf("read definition %s: %s is %s, not a regular file; a definition is read from regular .cue files only", arg, name, fileKind(e.Type()))
		}
		out = append(out, name)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("read definition %s: no .cue files in directory", arg)
	}
	sort.Strings(out)
	return out, nil
}

// LoadSources evaluates the given files as one definition. It never touches
// the file system: the fuzz tests and diff (which may compare a file with
// its version from git) call it directly.
func LoadSources(arg string, srcs []SourceFile) (*Definition, error) {
	return LoadSourcesTagged(arg, srcs, nil)
}

// LoadSourcesTagged is LoadSources with tags injected (tags.go).
func LoadSourcesTagged(arg string, srcs []SourceFile, tags []Tag) (def *Definition, err error) {
	defer func() {
		// CUE is a large evaluator; whatever it does on hostile input, the
		// user gets an error, not a crash.
		if r := recover(); r != nil {
			def, err = nil, Problems{{Msg: fmt.Sprintf("internal error while evaluating CUE: %v", r)}}
		}
	}()
	ctx := cuecontext.New()
	sch := ctx.CompileBytes(schemaSource, cue.Filename(SchemaFile))
	if sch.Err() != nil {
		return nil, fmt.Errorf("embedded schema: %w", sch.Err())
	}
	bctx := build.NewContext()
	inst := bctx.NewInstance("", nil)
	var probs Problems
	var files []*ast.File
	for _, s := range srcs {
		f, perr := parser.ParseFile(s.Path, s.Content, parser.ParseComments)
		if perr != nil {
			probs = append(probs, fromCUE(perr, nil)...)
			continue
		}
		files = append(files, f)
	}
	if len(probs) > 0 {
		return nil, probs.sorted()
	}
	pkg := ""
	for _, f := range files {
		name := f.PackageName()
		if pkg != "" && name != "" && name != pkg {
			return nil, Problems{{Pos: posOf(f.Pos()), Msg: fmt.Sprintf("package %s: all files of a definition must share one package (found %s)", name, pkg)}}
		}
		if name != "" {
			pkg = name
		}
	}
	notes, tprobs := injectTags(files, tags)
	if len(tprobs) > 0 {
		return nil, tprobs.sorted()
	}
	for _, f := range files {
		if aerr := inst.AddSyntax(f); aerr != nil {
			probs = append(probs, fromCUE(aerr, nil)...)
		}
	}
	if len(probs) > 0 {
		return nil, probs.sorted()
	}
	raw := ctx.BuildInstance(inst)
	if raw.Err() != nil {
		return nil, notes.annotate(fromCUE(raw.Err(), nil)).sorted()
	}
	v := raw.Unify(sch.LookupPath(cue.ParsePath("#Experiments")))
	if verr := v.Validate(cue.Concrete(true), cue.All()); verr != nil {
		return nil, notes.annotate(fromCUE(verr, &raw)).sorted()
	}
	def = &Definition{Arg: arg, Sources: srcs, Tags: tags}
	probs = decodeExperiments(v, &raw, def)
	if len(probs) > 0 {
		return nil, probs.sorted()
	}
	if len(def.Experiments) == 0 {
		return nil, Problems{{Pos: firstFilePos(files), Msg: "no experiment defined: declare one at the top level, e.g. myexp: {description: ..., batches: ...}"}}
	}
	return def, nil
}

func firstFilePos(files []*ast.File) Pos {
	if len(files) == 0 {
		return Pos{}
	}
	return Pos{File: files[0].Filename, Line: 1, Col: 1}
}

// posOf converts a CUE position.
func posOf(p token.Pos) Pos {
	if !p.IsValid() {
		return Pos{}
	}
	return Pos{File: p.Filename(), Line: p.Line(), Col: p.Column()}
}

// fileKind names a file type for messages.
func fileKind(m os.FileMode) string {
	switch {
	case m&os.ModeSymlink != 0:
		return "a symlink"
	case m&os.ModeNamedPipe != 0:
		return "a named pipe"
	case m&os.ModeDevice != 0:
		return "a device"
	case m&os.ModeSocket != 0:
		return "a socket"
	default:
		return "not a plain file"
	}
}
