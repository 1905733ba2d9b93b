package pipeline

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strings"
	"time"
)

// MaxMeasure bounds every floating-point figure read from a run
// directory: no throughput, CPU time, latency or size yardstick measures
// comes near 1e15, so a larger one (1e308 typed into a checkpoint) is not
// a measurement, and nothing downstream prints a 300-digit ratio from it.
const MaxMeasure = 1e15

// CheckNumbers checks every number reachable from v (structs, pointers,
// slices and maps; times and raw JSON are skipped): floats must be finite
// and at most MaxMeasure, and unless anySign every number must be at
// least 0, or at least -1 for a field tagged `check:"min=-1"` (a "none"
// marker), or any value for one tagged `check:"signed"`. The error names
// the field by its JSON path (load.rps, intervals[3].duration_us).
func CheckNumbers(v any, anySign bool) error {
	return checkNumbers(reflect.ValueOf(v), "", minOf(anySign, ""))
}

func minOf(anySign bool, tag string) float64 {
	switch {
	case anySign || tag == "signed":
		return -MaxMeasure
	case tag == "min=-1":
		return -1
	}
	return 0
}

var (
	timeType = reflect.TypeFor[time.Time]()
	rawType  = reflect.TypeFor[json.RawMessage]()
)

func checkNumbers(v reflect.Value, path string, lo float64) error {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return nil
		}
		return checkNumbers(v.Elem(), path, lo)
	case reflect.Struct:
		if v.Type() == timeType {
			return nil
		}
		return checkFields(v, path, lo)
	case reflect.Slice, reflect.Array:
		if v.Type() == rawType {
			return nil
		}
		for i := 0; i < v.Len(); i++ {
			if err := checkNumbers(v.Index(i), fmt.Sprintf("%s[%d]", path, i), lo); err != nil {
				return err
			}
		}
	case reflect.Map:
		for it := v.MapRange(); it.Next(); {
			if err := checkNumbers(it.Value(), fmt.Sprintf("%s[%v]", path, it.Key()), lo); err != nil {
				return err
			}
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if n := v.Int(); float64(n) < lo {
			return fmt.Errorf("%s is %d, below %g: not a measurement", path, n, lo)
		}
	case reflect.Float32, reflect.Float64:
		if f := v.Float(); math.IsNaN(f) || f < lo || f > MaxMeasure {
			return fmt.Errorf("%s is %g, outside [%g, %g]: not a measurement", path, f, lo, MaxMeasure)
		}
	}
	return nil
}

// checkFields checks the exported fields of struct v, each under its JSON
// name (its Go name without one).
func checkFields(v reflect.Value, path string, lo float64) error {
	t := v.Type()
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		if path != "" {
			name = path + "." + name
		}
		flo := lo
		if tag := f.Tag.Get("check"); tag != "" && lo >= -1 {
			flo = minOf(false, tag)
		}
		if err := checkNumbers(v.Field(i), name, flo); err != nil {
			return err
		}
	}
	return nil
}

// checkTimes refuses a checkpoint whose times run backwards: it ended
// before it started, or its kept window ends before it starts.
func (cp *Checkpoint) checkTimes() error {
	if !cp.Started.IsZero() && !cp.Ended.IsZero() && cp.Ended.Before(cp.Started) {
		return fmt.Errorf("ended %s before it started (%s): not a measurement", cp.Ended.Format(time.RFC3339Nano), cp.Started.Format(time.RFC3339Nano))
	}
	if w := cp.Window; w != nil && !w.KeptStart.IsZero() && !w.KeptEnd.IsZero() && w.KeptEnd.Before(w.KeptStart) {
		return fmt.Errorf("window.kept_end is before window.kept_start: not a measurement")
	}
	return nil
}
