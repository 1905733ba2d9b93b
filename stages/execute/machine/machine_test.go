package machine

import "testing"

func TestParsers(t *testing.T) {
	ci := []byte("processor\t: 0\nvendor_id\t: GenuineIntel\nmodel name\t: Intel(R) Xeon(R) CPU @ 2.20GHz\n\nprocessor\t: 1\nmodel name\t: other\n")
	if got := cpuModel(ci); got != "Intel(R) Xeon(R) CPU @ 2.20GHz" {
		t.Errorf("cpuModel = %q", got)
	}
	if got := cpuModel([]byte("nothing")); got != "unknown" {
		t.Errorf("cpuModel(empty) = %q", got)
	}
	mi := []byte("MemTotal:       24575280 kB\nMemFree:        1 kB\n")
	if got := memTotal(mi); got != 24575280*1024 {
		t.Errorf("memTotal = %d", got)
	}
}

func TestCaptureThisMachine(t *testing.T) {
	e := Capture(t.Context())
	if e.Cores < 1 || e.Kernel == "" || e.MemoryBytes <= 0 || e.CPUModel == "" {
		t.Errorf("incomplete environment: %+v", e)
	}
	if e.GoVersion == "not found" {
		t.Errorf("go not found, but the tests run under go")
	}
}
