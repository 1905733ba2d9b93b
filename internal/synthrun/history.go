package synthrun

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strconv"

	"yardstick/datasets"
	"yardstick/pipeline"
)

// Scale shapes a copy of a run made by Scaled.
type Scale struct {
	// Factor multiplies every latency and the CPU per request and divides
	// the throughput: 1.2 is a run 20% worse on each.
	Factor float64
	// Host, when set, replaces the host in environment.json: a run on
	// another machine.
	Host string
	// Busy sets every cell's others_cpu_share to this share of the
	// target's CPUs (0: as measured): a run on a busy machine.
	Busy float64
}

// Scaled copies the run directory src, with its tables, to
// <results>/<experiment>/run=<id>/ with its cells' figures scaled as s
// says: a history of many runs made from one real run directory. The
// copy has src's plan.json, environment.json, lock.json and batches
// table, and a cells table of the scaled figures whose metadata names
// the new run.
func Scaled(src, results, id string, s Scale) (*pipeline.RunDir, error) {
	cells, meta, err := datasets.Cells.Read(datasets.Cells.Path(src))
	if err != nil {
		return nil, err
	}
	rd, err := pipeline.CreateRunDir(results, meta.Experiment, id)
	if err != nil {
		return nil, err
	}
	for _, name := range []string{"plan.json", "lock.json", "batches.parquet"} {
		b, err := os.ReadFile(filepath.Join(src, name))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if err := os.WriteFile(rd.Path(name), b, 0o644); err != nil {
			return nil, err
		}
	}
	if err := scaledEnvironment(src, rd, s); err != nil {
		return nil, err
	}
	for i := range cells {
		scaleCell(&cells[i], s.Factor)
		if s.Busy > 0 {
			busy := s.Busy
			cells[i].OthersCPUShare = &busy
		}
	}
	meta.RunID = id
	if _, err := datasets.Cells.Write(rd.Root, meta, cells); err != nil {
		return nil, err
	}
	return rd, nil
}

// scaledEnvironment copies environment.json, on s.Host when set.
func scaledEnvironment(src string, rd *pipeline.RunDir, s Scale) error {
	env, err := (&pipeline.RunDir{Root: src}).ReadEnvironment()
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if s.Host != "" {
		env.Host = s.Host
	}
	return pipeline.WriteJSONAtomic(rd.Path("environment.json"), env)
}

// scaleCell makes a cell f times worse: latencies and CPU per request
// times f, throughput over f.
func scaleCell(c *datasets.Cell, f float64) {
	if f == 0 || f == 1 {
		return
	}
	mulF := func(p *float64, by float64) {
		if p != nil {
			*p *= by
		}
	}
	mulI := func(p *int64) {
		if p != nil {
			*p = int64(math.Round(float64(*p) * f))
		}
	}
	mulF(c.RPS, 1/f)
	mulF(c.LatencyMeanUS, f)
	mulF(c.CPUPerRequestUS, f)
	for _, p := range []*int64{c.LatencyP50US, c.LatencyP90US, c.LatencyP99US, c.LatencyP999US, c.LatencyP9999US, c.LatencyMaxUS, c.LatencyMinUS} {
		mulI(p)
	}
}

// NewerSchema rewrites a table file's footer to claim the next schema
// version after datasets.SchemaVersion, for the tests of the refusal of
// a newer run. It patches the Thrift-encoded key/value pair and the
// footer's length, and fails when the file does not hold that pair as
// expected.
func NewerSchema(path string) error {
	cur, next := strconv.Itoa(datasets.SchemaVersion), strconv.Itoa(datasets.SchemaVersion+1)
	if len(cur) > 127 || len(next) > 127 {
		return fmt.Errorf("NewerSchema: version %s too long", next)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	// The value is a Thrift compact binary field: header 0x18, a varint
	// length (one byte here), the bytes. Nothing in the footer points past
	// it, so only the footer's length (the 4 bytes before the closing
	// "PAR1") changes with the value's.
	old := []byte(datasets.KeySchemaVersion + "\x18" + string(rune(len(cur))) + cur)
	if bytes.Count(b, old) != 1 || len(b) < 12 || string(b[len(b)-4:]) != "PAR1" {
		return fmt.Errorf("NewerSchema: %s: the schema version's key/value pair is not in the footer once", path)
	}
	out := bytes.Replace(b, old, []byte(datasets.KeySchemaVersion+"\x18"+string(rune(len(next)))+next), 1)
	n := len(out)
	footer := binary.LittleEndian.Uint32(out[n-8 : n-4])
	binary.LittleEndian.PutUint32(out[n-8:n-4], footer+uint32(len(next)-len(cur)))
	return os.WriteFile(path, out, 0o644)
}
