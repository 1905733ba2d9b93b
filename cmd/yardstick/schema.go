package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"cuelang.org/go/cue/ast"
	"cuelang.org/go/cue/format"
	"cuelang.org/go/cue/parser"
	"cuelang.org/go/cue/token"

	"yardstick/pipeline"
	"yardstick/schema"
)

func init() {
	register(verb{
		name:    "schema",
		summary: "print the embedded CUE schema, or write it for cue vet and editors (--write DIR)",
		usage:   "[--write DIR [--package NAME]]",
		run:     runSchema,
	})
}

// vetFile is the name of the file schema --write writes in DIR.
const vetFile = "yardstick.cue"

func runSchema(_ context.Context, env *cliEnv, args []string) error {
	fs := newFlagSet(env, "schema")
	dir := fs.String("write", "", "write DIR/"+vetFile+": the schema with every top-level field of a definition checked against #Experiment, for `cue vet -c DIR/"+vetFile+" my-experiment.cue`")
	pkg := fs.String("package", "", "with --write: give the file this package clause, to sit beside definitions of that package (for editors)")
	args, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(args) > 0 {
		return usagef("schema takes no arguments")
	}
	if *dir == "" {
		if *pkg != "" {
			return usagef("--package needs --write DIR")
		}
		_, err = env.stdout.Write(schema.Source())
		return err
	}
	if *pkg != "" && !ast.IsValidIdent(*pkg) {
		return usagef("--package %q: not a CUE identifier", *pkg)
	}
	b, err := vetSchema(*pkg)
	if err != nil {
		return err
	}
	out := filepath.Join(abs(env, *dir), vetFile)
	if err := writeDir(filepath.Dir(out)); err != nil {
		return fmt.Errorf("schema --write %s: %w", *dir, err)
	}
	if err := pipeline.WriteFileAtomic(out, b); err != nil {
		return fmt.Errorf("schema --write: %w", err)
	}
	fmt.Fprintf(env.stdout, "wrote %s: cue vet -c %s FILE.cue\n", out, filepath.Join(*dir, vetFile))
	return nil
}

// writeDir makes dir for schema --write, or checks the one there: a
// directory, not a symbolic link (which would put the file wherever it
// points) nor anything else, whose yardstick.cue, if there is one, is a
// regular file (a link there is not replaced, nor a directory or a pipe).
func writeDir(dir string) error {
	st, err := os.Lstat(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return os.MkdirAll(dir, 0o755)
	case err != nil:
		return err
	case st.Mode()&os.ModeSymlink != 0:
		return errors.New("refused: a symbolic link; give the directory it points to")
	case !st.IsDir():
		return errors.New("refused: not a directory")
	}
	st, err = os.Lstat(filepath.Join(dir, vetFile))
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil
	case err != nil:
		return err
	case st.Mode()&os.ModeSymlink != 0:
		return fmt.Errorf("refused: %s is a symbolic link, not replaced", vetFile)
	case !st.Mode().IsRegular():
		return fmt.Errorf("refused: %s is not a regular file", vetFile)
	}
	return nil
}

// vetSchema is the embedded schema made usable by plain `cue vet` on a
// definition of any package: without a package clause (or with pkg's),
// and with two top-level pattern constraints, which `cue vet -d` cannot
// apply to CUE input: every field whose name is a #Name is an
// #Experiment, and any other field is an error, as in #Experiments.
func vetSchema(pkg string) ([]byte, error) {
	f, err := parser.ParseFile(schema.SchemaFile, schema.Source(), parser.ParseComments)
	if err != nil {
		return nil, fmt.Errorf("embedded schema: %w", err)
	}
	name, err := namePattern(f)
	if err != nil {
		return nil, err
	}
	decls := []ast.Decl{}
	if pkg != "" {
		decls = append(decls, &ast.Package{Name: ast.NewIdent(pkg)})
	}
	for _, d := range f.Decls {
		if _, ok := d.(*ast.Package); !ok {
			decls = append(decls, d)
		}
	}
	f.Decls = decls
	body, err := format.Node(f)
	if err != nil {
		return nil, fmt.Errorf("embedded schema: %w", err)
	}
	src := fmt.Sprintf(`// yardstick's experiment schema (yardstick %s), written by
// yardstick schema --write. Check a definition against it with
//
//	cue vet -c yardstick.cue my-experiment.cue
//
// Every top-level field of the definition is an experiment.

%s
// Written by yardstick schema --write: the top level of a definition is
// #Experiments.
[=~%s]: #Experiment
[N=!~%s]: error("\(N): field not allowed: not an experiment name (#Name)")
`, Version(), body, name, name)
	out, err := format.Source([]byte(src))
	if err != nil {
		return nil, fmt.Errorf("schema --write: %w", err)
	}
	return out, nil
}

// namePattern returns the quoted regular expression of #Name, as the
// schema spells it: a label expression cannot refer to #Name itself, which
// sits at the top level it would constrain.
func namePattern(f *ast.File) (string, error) {
	for _, d := range f.Decls {
		fld, ok := d.(*ast.Field)
		if !ok {
			continue
		}
		if n, _, _ := ast.LabelName(fld.Label); n != "#Name" {
			continue
		}
		if u, ok := fld.Value.(*ast.UnaryExpr); ok && u.Op == token.MAT {
			if lit, ok := u.X.(*ast.BasicLit); ok && lit.Kind == token.STRING {
				return lit.Value, nil
			}
		}
	}
	return "", fmt.Errorf("embedded schema: no #Name: =~\"...\" at its top level")
}
