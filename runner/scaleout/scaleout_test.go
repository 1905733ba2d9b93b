package scaleout

import "testing"

type fake struct{ name, env string }

func (f fake) Name() string { return f.name }
func (f fake) Task(getenv func(string) string) (Task, bool) {
	if v := getenv(f.env); v != "" {
		return Task{Node: v, Job: "1"}, true
	}
	return Task{}, false
}
func (f fake) Resubmit(rundir string) string { return f.name + " --resume " + rundir }
func (f fake) Logs(rundir string) string     { return rundir + "/" + f.name }

// TestDetect: the first engine whose task this is, named; none outside.
func TestDetect(t *testing.T) {
	engines := []Engine{fake{"a", "A_NODE"}, fake{"b", "B_NODE"}}
	env := map[string]string{"B_NODE": "n7"}
	e, task := Detect(engines, func(k string) string { return env[k] })
	if e == nil || e.Name() != "b" || task != (Task{Engine: "b", Node: "n7", Job: "1"}) {
		t.Errorf("detected %v %+v", e, task)
	}
	if e, task := Detect(engines, func(string) string { return "" }); e != nil || task != (Task{}) {
		t.Errorf("outside every engine: %v %+v", e, task)
	}
}
