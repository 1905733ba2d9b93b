package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

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
	if *pkg != "" && !schema.IsPackageName(*pkg) {
		return usagef("--package %q: not a CUE identifier", *pkg)
	}
	b, err := schema.VetFile(*pkg, Version())
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
