package machine

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"

	"yardstick/pipeline"
)

// Binaries hashes every file the plan's processes run or load: each
// command's argv[0] (looked up in PATH when it has no slash, so the JVM
// and shells count too), and for JVM targets the -jar file and every -cp
// entry. Relative paths resolve against the process's directory under
// workdir. A file that cannot be read is recorded with its error, so a
// missing binary is a difference too. The files of a process with a build
// step are listed unhashed (ProcessBinaries): they are hashed once the
// step has run.
func Binaries(p *pipeline.Plan, workdir string) []pipeline.Binary {
	var out []pipeline.Binary
	for _, b := range p.Batches {
		for i := range b.Services {
			out = append(out, ProcessBinaries(b.Name, "service "+b.Services[i].Name, &b.Services[i], workdir, false)...)
		}
		for i := range b.Variants {
			out = append(out, ProcessBinaries(b.Name, b.Variants[i].Label, &b.Variants[i].Process, workdir, false)...)
		}
	}
	return out
}

// ProcessBinaries lists the files process pr of owner runs or loads. A
// process with a build step gets its files marked Build and, unless built
// says its step has run, not hashed: the step makes them.
func ProcessBinaries(batch, owner string, pr *pipeline.Process, workdir string, built bool) []pipeline.Binary {
	var out []pipeline.Binary
	hash := func(batch, owner, role, path, dir string, lookPath bool) pipeline.Binary {
		if len(pr.Build) == 0 {
			return hashFile(batch, owner, role, path, dir, lookPath)
		}
		if !built {
			return pipeline.Binary{Batch: batch, Owner: owner, Role: role, Path: path, Build: true}
		}
		b := hashFile(batch, owner, role, path, dir, lookPath)
		b.Build = true
		return b
	}
	func() { // a function, to return at the jar
		dir := workdir
		if pr.Dir != "" {
			dir = pr.Dir
			if !filepath.IsAbs(dir) {
				dir = filepath.Join(workdir, pr.Dir)
			}
		}
		if len(pr.Argv) > 0 {
			out = append(out, hash(batch, owner, "command", pr.Argv[0], dir, true))
		}
		for i := 1; i < len(pr.Argv); i++ {
			switch pr.Argv[i] {
			case "-jar":
				if i+1 < len(pr.Argv) {
					out = append(out, hash(batch, owner, "jar", pr.Argv[i+1], dir, false))
				}
				return // what follows the jar belongs to the program
			case "-cp", "-classpath", "--class-path":
				if i+1 < len(pr.Argv) {
					for _, e := range strings.Split(pr.Argv[i+1], ":") {
						if e != "" {
							out = append(out, hash(batch, owner, "classpath", e, dir, false))
						}
					}
				}
			}
		}
	}()
	return out
}

// hashFile hashes one file (or, for a classpath directory, every regular
// file below it, in name order).
func hashFile(batch, owner, role, path, dir string, lookPath bool) pipeline.Binary {
	b := pipeline.Binary{Batch: batch, Owner: owner, Role: role, Path: path}
	full := path
	switch {
	case lookPath && !strings.ContainsRune(path, '/'):
		p, err := exec.LookPath(path)
		if err != nil {
			b.Error = "not found in PATH"
			return b
		}
		full = p
	case !filepath.IsAbs(path):
		full = filepath.Join(dir, path)
	}
	if r, err := filepath.EvalSymlinks(full); err == nil {
		full = r
	}
	b.Resolved = full
	st, err := os.Stat(full)
	if err != nil {
		b.Error = "missing"
		return b
	}
	h := sha256.New()
	if st.IsDir() {
		var files []string
		_ = filepath.WalkDir(full, func(p string, d fs.DirEntry, err error) error {
			if err == nil && d.Type().IsRegular() {
				files = append(files, p)
			}
			return nil
		})
		sort.Strings(files)
		for _, f := range files {
			rel, _ := filepath.Rel(full, f)
			fmt.Fprintf(h, "%s\x00", rel)
			n, err := copyFile(h, f)
			if err != nil {
				b.Error = err.Error()
				return b
			}
			b.Size += n
		}
	} else {
		n, err := copyFile(h, full)
		if err != nil {
			b.Error = "unreadable: " + err.Error()
			return b
		}
		b.Size = n
	}
	b.SHA256 = hex.EncodeToString(h.Sum(nil))
	return b
}

func copyFile(w io.Writer, path string) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	return io.Copy(w, f)
}

// Lock takes the lock of plan p on this machine now.
func Lock(p *pipeline.Plan, workdir string, env pipeline.Environment) *pipeline.Lock {
	return &pipeline.Lock{
		Version:     pipeline.LockVersion,
		Binaries:    Binaries(p, workdir),
		Fingerprint: env.Fingerprint,
	}
}
