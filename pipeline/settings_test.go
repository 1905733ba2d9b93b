package pipeline

import "testing"

// TestRequestUses: a placeholder counts in the path, a header value or
// name, or the body, and nowhere else.
func TestRequestUses(t *testing.T) {
	for _, tc := range []struct {
		r    Request
		want bool
	}{
		{Request{Path: "/a/{vary}"}, true},
		{Request{Path: "/a", Headers: map[string]string{"X-Id": "{vary}"}}, true},
		{Request{Path: "/a", Body: `{"id": {vary}}`}, true},
		{Request{Path: "/a/{payload}", Headers: map[string]string{"X-Id": "1"}, Body: "{payload_text}"}, false},
		{Request{Path: "/a/{va", Body: "ry}"}, false},
	} {
		if got := tc.r.Uses(VaryPlaceholder); got != tc.want {
			t.Errorf("%+v uses {vary}: %v, want %v", tc.r, got, tc.want)
		}
	}
}
