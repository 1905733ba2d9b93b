package cpuset

import (
	"encoding/json"
	"slices"
	"testing"
)

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Set
		str  string
	}{
		{"0", Set{0}, "0"},
		{"0-1", Set{0, 1}, "0-1"},
		{"0,2-3", Set{0, 2, 3}, "0,2-3"},
		{"3,1,2,1", Set{1, 2, 3}, "1-3"},
		{"0-2,5,7-8", Set{0, 1, 2, 5, 7, 8}, "0-2,5,7-8"},
		{" 3,1,1-2 ", Set{1, 2, 3}, "1-3"},
	} {
		got, err := Parse(tc.in)
		if err != nil {
			t.Fatalf("Parse(%q): %v", tc.in, err)
		}
		if !slices.Equal(got, tc.want) || got.String() != tc.str {
			t.Errorf("Parse(%q) = %v (%s), want %v (%s)", tc.in, got, got, tc.want, tc.str)
		}
	}
	for _, bad := range []string{"", "a", "1-0", "-1", "0-99999999", "1,,2", "1-"} {
		if _, err := Parse(bad); err == nil {
			t.Errorf("Parse(%q): no error", bad)
		}
	}
}

func TestOf(t *testing.T) {
	for _, tc := range []struct {
		in   []uint64
		want string
	}{
		{nil, ""},
		{[]uint64{0}, "0"},
		{[]uint64{5, 3, 4, 0}, "0,3-5"},
		{[]uint64{1, 1, 2}, "1-2"},
		{[]uint64{0, 2, 4, 6, 7}, "0,2,4,6-7"},
	} {
		if got := Of(tc.in).String(); got != tc.want {
			t.Errorf("Of(%v) = %q, want %q", tc.in, got, tc.want)
		}
	}
	if got := Of([]int{5, 0, 1, 2, 7, 8}).String(); got != "0-2,5,7-8" {
		t.Errorf("Of(ints) = %q", got)
	}
}

func TestIntersect(t *testing.T) {
	a, _ := Parse("0-3")
	b, _ := Parse("3-5")
	if got := a.Intersect(b); !slices.Equal(got, Set{3}) {
		t.Errorf("Intersect = %v", got)
	}
	if a.Max() != 3 || Set(nil).Max() != -1 {
		t.Errorf("Max wrong")
	}
}

// TestJSON: a set is written in the one compact form, whatever spelling it
// was read from, and reads back equal; the empty set is "" and an absent
// field with omitempty is left out.
func TestJSON(t *testing.T) {
	type doc struct {
		A Set `json:"a"`
		B Set `json:"b,omitempty"`
	}
	for _, tc := range []struct{ in, want string }{
		{`{"a":"0,1"}`, `{"a":"0-1"}`},
		{`{"a":"0-1"}`, `{"a":"0-1"}`},
		{`{"a":"0-0","b":"3,1,2"}`, `{"a":"0","b":"1-3"}`},
		{`{"a":""}`, `{"a":""}`},
		{`{}`, `{"a":""}`},
	} {
		var d doc
		if err := json.Unmarshal([]byte(tc.in), &d); err != nil {
			t.Fatalf("unmarshal %s: %v", tc.in, err)
		}
		out, err := json.Marshal(d)
		if err != nil || string(out) != tc.want {
			t.Errorf("%s: marshal = %s, %v; want %s", tc.in, out, err, tc.want)
		}
		var back doc
		if err := json.Unmarshal(out, &back); err != nil || !back.A.Equal(d.A) || !back.B.Equal(d.B) {
			t.Errorf("%s: read back %+v, %v; want %+v", tc.in, back, err, d)
		}
	}
	for _, bad := range []string{`{"a":"1-0"}`, `{"a":"x"}`, `{"a":"0-99999999"}`, `{"a":3}`} {
		var d doc
		if err := json.Unmarshal([]byte(bad), &d); err == nil {
			t.Errorf("unmarshal %s: no error (%v)", bad, d.A)
		}
	}
	a, _ := Parse("0,1")
	b, _ := Parse("0-1")
	c, _ := Parse("0-2")
	if !a.Equal(b) || a.Equal(c) || !Set(nil).Equal(Set{}) {
		t.Errorf("Equal wrong")
	}
}
