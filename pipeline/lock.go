package pipeline

import (
	"fmt"
	"os"
	"syscall"
)

// LockVersion is the version of lock.json.
const LockVersion = 1

// A Lock is what a rerun must find unchanged (lock.json): the sha256 of
// every executable, jar and classpath entry the plan names, and the
// machine's fingerprint. Together with plan.json and sources/ it is the
// run's lock.
type Lock struct {
	Version     int         `json:"version"`
	Binaries    []Binary    `json:"binaries"`
	Fingerprint Fingerprint `json:"fingerprint"`
	// RerunOf is the run id this run reran, if any; Drift lists what had
	// changed since (only with --allow-drift).
	RerunOf string  `json:"rerun_of,omitempty"`
	Drift   []Drift `json:"drift,omitempty"`
	// ResumeDrift lists what had changed when the run was resumed with
	// --allow-drift: the cells after it ran with other binaries or on a
	// changed machine.
	ResumeDrift []Drift `json:"resume_drift,omitempty"`
}

// A Binary is one file a process of the plan runs or loads.
type Binary struct {
	Batch string `json:"batch"`
	// Owner is the variant label, or "service <name>".
	Owner string `json:"owner"`
	// Role is "command" (argv[0]), "jar" or "classpath".
	Role     string `json:"role"`
	Path     string `json:"path"`
	Resolved string `json:"resolved,omitempty"`
	SHA256   string `json:"sha256,omitempty"`
	Size     int64  `json:"size"`
	Error    string `json:"error,omitempty"`
	// Build: the owner has a build step, which makes or changes this
	// file, so it is hashed once the step has run in this run (empty
	// until then) and not before: a hash taken before the build would
	// be of an old file, or of none.
	Build bool `json:"build,omitempty"`
}

// Key identifies a binary across runs.
func (b Binary) Key() string { return b.Batch + "\x00" + b.Owner + "\x00" + b.Role + "\x00" + b.Path }

// Fingerprint is the part of the environment a rerun must match.
type Fingerprint struct {
	OS          string `json:"os"`
	Arch        string `json:"arch"`
	Kernel      string `json:"kernel"`
	CPUModel    string `json:"cpu_model"`
	Cores       int    `json:"cores"`
	Governor    string `json:"governor"`
	MemoryBytes int64  `json:"memory_bytes"`
	GoVersion   string `json:"go_version"`
	JavaVersion string `json:"java_version"`
}

// A Drift is one difference between a lock and the machine now.
type Drift struct {
	What string `json:"what"` // "binary" or "environment"
	Item string `json:"item"` // the binary's owner, role and path, or the field
	Was  string `json:"was"`
	Now  string `json:"now"`
}

// String formats d for a person.
func (d Drift) String() string {
	return d.What + " " + d.Item + ": was " + d.Was + ", now " + d.Now
}

// Diff lists what differs between lock l and a lock taken now.
func (l *Lock) Diff(now *Lock) []Drift {
	var out []Drift
	cur := map[string]Binary{}
	for _, b := range now.Binaries {
		cur[b.Key()] = b
	}
	seen := map[string]bool{}
	desc := func(b Binary) string { return b.Owner + " " + b.Role + " " + b.Path }
	state := Binary.state
	for _, b := range l.Binaries {
		seen[b.Key()] = true
		n, ok := cur[b.Key()]
		switch {
		case ok && (b.Build || n.Build):
			// compared after the build step (CheckBuilt)
		case !ok:
			out = append(out, Drift{What: "binary", Item: desc(b), Was: state(b), Now: "not in the plan"})
		case n.SHA256 != b.SHA256 || n.Error != b.Error:
			out = append(out, Drift{What: "binary", Item: desc(b), Was: state(b), Now: state(n)})
		}
	}
	for _, n := range now.Binaries {
		if !seen[n.Key()] {
			out = append(out, Drift{What: "binary", Item: desc(n), Was: "not in the lock", Now: state(n)})
		}
	}
	a, b := l.Fingerprint, now.Fingerprint
	field := func(name string, was, is any) {
		if w, n := fmt.Sprint(was), fmt.Sprint(is); w != n {
			out = append(out, Drift{What: "environment", Item: name, Was: w, Now: n})
		}
	}
	field("os", a.OS, b.OS)
	field("arch", a.Arch, b.Arch)
	field("kernel", a.Kernel, b.Kernel)
	field("cpu_model", a.CPUModel, b.CPUModel)
	field("cores", a.Cores, b.Cores)
	field("governor", a.Governor, b.Governor)
	field("memory_bytes", a.MemoryBytes, b.MemoryBytes)
	field("go_version", a.GoVersion, b.GoVersion)
	field("java_version", a.JavaVersion, b.JavaVersion)
	return out
}

// WriteLock writes lock.json.
func (d *RunDir) WriteLock(l *Lock) error { return WriteJSONAtomic(d.Path("lock.json"), l) }

// ReadLock reads lock.json.
func (d *RunDir) ReadLock() (*Lock, error) {
	var l Lock
	if err := d.readVersioned("lock.json", "lock", LockVersion, &l); err != nil {
		return nil, err
	}
	if l.Version != LockVersion {
		return nil, fmt.Errorf("%s: lock version %d, this yardstick reads %d", d.Path("lock.json"), l.Version, LockVersion)
	}
	return &l, nil
}

// ReadEnvironment reads environment.json.
func (d *RunDir) ReadEnvironment() (*Environment, error) {
	var e Environment
	if err := d.ReadJSON("environment.json", &e); err != nil {
		return nil, err
	}
	return &e, nil
}

// CheckBuilt compares a binary hashed after its owner's build step with
// the lock's entry for it: an entry not hashed yet takes it; one hashed
// before (by an earlier session of this run, or the run a rerun reruns)
// must be equal, or the drift is returned.
func (l *Lock) CheckBuilt(now Binary) (Drift, bool) {
	for i := range l.Binaries {
		b := &l.Binaries[i]
		if b.Key() != now.Key() {
			continue
		}
		if !b.Build || (b.SHA256 == "" && b.Error == "") {
			// not hashed yet, or hashed before its build by an older
			// yardstick: this is the first hash that counts
			*b = now
			return Drift{}, false
		}
		if b.SHA256 == now.SHA256 && b.Error == now.Error {
			return Drift{}, false
		}
		return Drift{What: "binary", Item: b.Owner + " " + b.Role + " " + b.Path + " (after its build step)", Was: b.state(), Now: now.state()}, true
	}
	l.Binaries = append(l.Binaries, now)
	return Drift{}, false
}

func (b Binary) state() string {
	if b.Error != "" {
		return b.Error
	}
	return "sha256 " + b.SHA256
}

// UpdateLock reads lock.json, lets fn change it and writes it back, under
// an exclusive flock(2) of .lock-json: the tasks of a run's batches record
// their built binaries in the one file side by side.
func (d *RunDir) UpdateLock(fn func(*Lock) error) error {
	f, err := os.OpenFile(d.Path(".lock-json"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return fmt.Errorf("lock lock.json: %w", err)
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		return fmt.Errorf("lock lock.json: %w", err)
	}
	l, err := d.ReadLock()
	if err != nil {
		return err
	}
	if err := fn(l); err != nil {
		return err
	}
	return d.WriteLock(l)
}
