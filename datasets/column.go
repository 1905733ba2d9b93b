package datasets

import (
	"fmt"
	"math"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// A column maps one field of a row type R to one Arrow column, both ways.
// Each constructor below takes an accessor that returns a pointer to the
// field, so one function serves the writer (read the field) and the reader
// (set it).
type column[R any] struct {
	field arrow.Field
	put   func(b array.Builder, r *R)
	get   func(a arrow.Array, i int, r *R) error
	// number reads a numeric column's value from a row as a float64;
	// false for a null or non-finite value. Nil for other columns.
	number func(r *R) (float64, bool)
}

// finite is v, false when it is NaN or infinite.
func finite(v float64) (float64, bool) {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, false
	}
	return v, true
}

// Arrow types used by the tables (SCHEMA.md lists what DuckDB shows).
var (
	// dictString is a dictionary-encoded string: for columns whose values
	// repeat across rows (experiment, run_id, batch, target, status, ...).
	dictString = &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: arrow.BinaryTypes.String}
	// timestampUTC is a microsecond timestamp adjusted to UTC.
	timestampUTC = &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}
)

func field(name string, t arrow.DataType, nullable bool) arrow.Field {
	return arrow.Field{Name: name, Type: t, Nullable: nullable}
}

// stringValue reads a string from a utf8 or dictionary<utf8> array.
func stringValue(a arrow.Array, i int) (string, error) {
	switch a := a.(type) {
	case *array.String:
		return a.Value(i), nil
	case *array.LargeString:
		return a.Value(i), nil
	case *array.Dictionary:
		d, ok := a.Dictionary().(*array.String)
		if !ok {
			return "", fmt.Errorf("dictionary of %s, want utf8", a.Dictionary().DataType())
		}
		return d.Value(a.GetValueIndex(i)), nil
	}
	return "", fmt.Errorf("column of type %s, want a string", a.DataType())
}

func appendString(b array.Builder, v string) {
	switch b := b.(type) {
	case *array.BinaryDictionaryBuilder:
		if err := b.AppendString(v); err != nil {
			// Only a memo table failure, which cannot happen for strings.
			panic(fmt.Sprintf("datasets: dictionary append: %v", err))
		}
	case *array.StringBuilder:
		b.Append(v)
	default:
		panic(fmt.Sprintf("datasets: string into %T", b))
	}
}

// dictCol is a non-null dictionary string.
func dictCol[R any](name string, f func(*R) *string) column[R] {
	return strCol(name, dictString, f)
}

// textCol is a non-null plain string (utf8).
func textCol[R any](name string, f func(*R) *string) column[R] {
	return strCol(name, arrow.BinaryTypes.String, f)
}

func strCol[R any](name string, t arrow.DataType, f func(*R) *string) column[R] {
	return column[R]{
		field: field(name, t, false),
		put:   func(b array.Builder, r *R) { appendString(b, *f(r)) },
		get: func(a arrow.Array, i int, r *R) error {
			v, err := stringValue(a, i)
			*f(r) = v
			return err
		},
	}
}

// optDictCol is a nullable dictionary string.
func optDictCol[R any](name string, f func(*R) **string) column[R] {
	return optStrCol(name, dictString, f)
}

// optTextCol is a nullable plain string.
func optTextCol[R any](name string, f func(*R) **string) column[R] {
	return optStrCol(name, arrow.BinaryTypes.String, f)
}

func optStrCol[R any](name string, t arrow.DataType, f func(*R) **string) column[R] {
	return column[R]{
		field: field(name, t, true),
		put: func(b array.Builder, r *R) {
			if p := *f(r); p != nil {
				appendString(b, *p)
			} else {
				b.AppendNull()
			}
		},
		get: func(a arrow.Array, i int, r *R) error {
			if a.IsNull(i) {
				*f(r) = nil
				return nil
			}
			v, err := stringValue(a, i)
			*f(r) = &v
			return err
		},
	}
}

// int64Col is a non-null int64.
func int64Col[R any](name string, f func(*R) *int64) column[R] {
	return column[R]{
		field:  field(name, arrow.PrimitiveTypes.Int64, false),
		put:    func(b array.Builder, r *R) { b.(*array.Int64Builder).Append(*f(r)) },
		number: func(r *R) (float64, bool) { return float64(*f(r)), true },
		get: func(a arrow.Array, i int, r *R) error {
			v, ok := a.(*array.Int64)
			if !ok {
				return fmt.Errorf("column of type %s, want int64", a.DataType())
			}
			*f(r) = v.Value(i)
			return nil
		},
	}
}

// optInt64Col is a nullable int64.
func optInt64Col[R any](name string, f func(*R) **int64) column[R] {
	return column[R]{
		field: field(name, arrow.PrimitiveTypes.Int64, true),
		number: func(r *R) (float64, bool) {
			if p := *f(r); p != nil {
				return float64(*p), true
			}
			return 0, false
		},
		put: func(b array.Builder, r *R) {
			if p := *f(r); p != nil {
				b.(*array.Int64Builder).Append(*p)
			} else {
				b.AppendNull()
			}
		},
		get: func(a arrow.Array, i int, r *R) error {
			v, ok := a.(*array.Int64)
			if !ok {
				return fmt.Errorf("column of type %s, want int64", a.DataType())
			}
			if v.IsNull(i) {
				*f(r) = nil
				return nil
			}
			x := v.Value(i)
			*f(r) = &x
			return nil
		},
	}
}

// float64Col is a non-null float64.
func float64Col[R any](name string, f func(*R) *float64) column[R] {
	return column[R]{
		field:  field(name, arrow.PrimitiveTypes.Float64, false),
		put:    func(b array.Builder, r *R) { b.(*array.Float64Builder).Append(*f(r)) },
		number: func(r *R) (float64, bool) { return finite(*f(r)) },
		get: func(a arrow.Array, i int, r *R) error {
			v, ok := a.(*array.Float64)
			if !ok {
				return fmt.Errorf("column of type %s, want double", a.DataType())
			}
			*f(r) = v.Value(i)
			return nil
		},
	}
}

// optFloat64Col is a nullable float64.
func optFloat64Col[R any](name string, f func(*R) **float64) column[R] {
	return column[R]{
		field: field(name, arrow.PrimitiveTypes.Float64, true),
		number: func(r *R) (float64, bool) {
			if p := *f(r); p != nil {
				return finite(*p)
			}
			return 0, false
		},
		put: func(b array.Builder, r *R) {
			if p := *f(r); p != nil {
				b.(*array.Float64Builder).Append(*p)
			} else {
				b.AppendNull()
			}
		},
		get: func(a arrow.Array, i int, r *R) error {
			v, ok := a.(*array.Float64)
			if !ok {
				return fmt.Errorf("column of type %s, want double", a.DataType())
			}
			if v.IsNull(i) {
				*f(r) = nil
				return nil
			}
			x := v.Value(i)
			*f(r) = &x
			return nil
		},
	}
}

// boolCol is a non-null boolean.
func boolCol[R any](name string, f func(*R) *bool) column[R] {
	return column[R]{
		field: field(name, arrow.FixedWidthTypes.Boolean, false),
		put:   func(b array.Builder, r *R) { b.(*array.BooleanBuilder).Append(*f(r)) },
		get: func(a arrow.Array, i int, r *R) error {
			v, ok := a.(*array.Boolean)
			if !ok {
				return fmt.Errorf("column of type %s, want bool", a.DataType())
			}
			*f(r) = v.Value(i)
			return nil
		},
	}
}

// optBoolCol is a nullable boolean.
func optBoolCol[R any](name string, f func(*R) **bool) column[R] {
	return column[R]{
		field: field(name, arrow.FixedWidthTypes.Boolean, true),
		put: func(b array.Builder, r *R) {
			if p := *f(r); p != nil {
				b.(*array.BooleanBuilder).Append(*p)
			} else {
				b.AppendNull()
			}
		},
		get: func(a arrow.Array, i int, r *R) error {
			v, ok := a.(*array.Boolean)
			if !ok {
				return fmt.Errorf("column of type %s, want bool", a.DataType())
			}
			if v.IsNull(i) {
				*f(r) = nil
				return nil
			}
			x := v.Value(i)
			*f(r) = &x
			return nil
		},
	}
}

// timeCol is a non-null timestamp[us, UTC]. Times are truncated to the
// microsecond and read back in UTC.
func timeCol[R any](name string, f func(*R) *time.Time) column[R] {
	return column[R]{
		field: field(name, timestampUTC, false),
		put:   func(b array.Builder, r *R) { b.(*array.TimestampBuilder).Append(arrow.Timestamp(f(r).UnixMicro())) },
		get: func(a arrow.Array, i int, r *R) error {
			t, err := timeValue(a, i)
			*f(r) = t
			return err
		},
	}
}

// optTimeCol is a nullable timestamp[us, UTC].
func optTimeCol[R any](name string, f func(*R) **time.Time) column[R] {
	return column[R]{
		field: field(name, timestampUTC, true),
		put: func(b array.Builder, r *R) {
			if p := *f(r); p != nil {
				b.(*array.TimestampBuilder).Append(arrow.Timestamp(p.UnixMicro()))
			} else {
				b.AppendNull()
			}
		},
		get: func(a arrow.Array, i int, r *R) error {
			if a.IsNull(i) {
				*f(r) = nil
				return nil
			}
			t, err := timeValue(a, i)
			*f(r) = &t
			return err
		},
	}
}

func timeValue(a arrow.Array, i int) (time.Time, error) {
	v, ok := a.(*array.Timestamp)
	if !ok {
		return time.Time{}, fmt.Errorf("column of type %s, want timestamp", a.DataType())
	}
	tt := v.DataType().(*arrow.TimestampType)
	if tt.Unit != arrow.Microsecond {
		return time.Time{}, fmt.Errorf("timestamp in %s, want us", tt.Unit)
	}
	return time.UnixMicro(int64(v.Value(i))).UTC(), nil
}
