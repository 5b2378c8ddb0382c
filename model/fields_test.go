package model

import (
	"errors"
	"slices"
	"testing"
)

func TestEditDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"", "abc", 3},                     // three insertions
		{"name", "name", 0},                // equal
		{"nmae", "name", 1},                // one swap of neighbours
		{"nam", "name", 1},                 // one insertion
		{"nane", "name", 1},                // one substitution
		{"io_intesive", "io_intensive", 1}, // the n dropped
		{"kitten", "sitting", 3},           // k→s, e→i, +g
		{"ca", "abc", 3},                   // OSA: no edit of a swapped pair, so 3, not 2
		{"a", "b", 1},
	} {
		if got := EditDistance(tc.a, tc.b); got != tc.want {
			t.Errorf("EditDistance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
		if got := EditDistance(tc.b, tc.a); got != tc.want {
			t.Errorf("EditDistance(%q, %q) = %d, want %d (symmetric)", tc.b, tc.a, got, tc.want)
		}
	}
}

func TestCloseField(t *testing.T) {
	known := []string{"name", "model", "cpu_intensive", "io_intensive", "a", "b", "measured_range"}
	for _, tc := range []struct{ key, want string }{
		{"io_intesive", "io_intensive"},      // distance 1 ≤ min(2, 12/4)
		{"cpu_intensiv", "cpu_intensive"},    // distance 1
		{"ioIntensive", "io_intensive"},      // same without '_' and case
		{"io-intensive", "io_intensive"},     // same without '-'
		{"measured-range", "measured_range"}, // same without '-'
		{"nmae", "name"},                     // 1 ≤ 4/4
		{"nme", "name"},                      // 1 ≤ 4/4
		{"nm", ""},                           // 2 > 4/4
		{"name", ""},                         // known
		{"NAME", ""},                         // known: encoding/json matches case-insensitively
		{"x", ""},                            // 1 from "a", but "a" has length 1: 1 > 1/4
		{"nape", ""},                         // 1 from "name", but by a substitution: another word, not a typo
		{"owner", ""},                        // far from everything
		{"io_intensity", "io_intensive"},     // 2 ≤ min(2, 3)
		{"io_expensive", ""},                 // 3: i→e, n→x, t→p
	} {
		if got := CloseField(tc.key, known); got != tc.want {
			t.Errorf("CloseField(%q) = %q, want %q", tc.key, got, tc.want)
		}
	}
}

func TestFieldNames(t *testing.T) {
	got := FieldNames(Job{})
	want := []string{"name", "model", "cpu_intensive", "io_intensive", "description", "measured_range", "vm_shape", "profile", "run"}
	if !slices.Equal(got, want) {
		t.Errorf("FieldNames(Job{}) = %q, want %q", got, want)
	}
	// Embedded structs' fields count; "-" does not.
	type inner struct {
		X int `json:"x"`
	}
	type outer struct {
		inner
		Y int `json:"y,omitempty"`
		Z int `json:"-"`
		W int
	}
	if got := FieldNames(&outer{}); !slices.Equal(got, []string{"x", "y", "W"}) {
		t.Errorf("FieldNames(outer) = %q", got)
	}
}

func TestParseWorkloadFieldTypos(t *testing.T) {
	for _, tc := range []struct{ doc, want string }{
		{`{"name": "w", "jobs": [{"name": "j", "model": {"a": 1, "b": 0}}, {"name": "k", "io_intesive": true, "model": {"a": 1, "b": 0}}]}`,
			`w.json: invalid workload: jobs[1]: unknown field "io_intesive" (did you mean "io_intensive"?)`},
		{`{"name": "w", "jobs": [{"name": "j", "model": {"kinds": "amdahl", "a": 1, "b": 0}}]}`,
			`w.json: invalid workload: jobs[0].model: unknown field "kinds" (did you mean "kind"?)`},
		{`{"name": "w", "job": [{"name": "j", "model": {"a": 1, "b": 0}}]}`,
			`w.json: invalid workload: unknown field "job" (did you mean "jobs"?)`},
	} {
		_, err := ParseWorkload([]byte(tc.doc), "w.json")
		if err == nil || err.Error() != tc.want || !errors.Is(err, ErrFieldTypo) || !errors.Is(err, ErrInvalidWorkload) {
			t.Errorf("ParseWorkload(%s):\n got %v\nwant %s", tc.doc, err, tc.want)
		}
	}
	// Extra fields far from every known one stay allowed, and so do words one
	// letter from a short field ("notes", "nodes"), and a key beside the
	// field it resembles (both are there: neither is a misspelling).
	doc := `{"name": "w", "owner": "ops", "jobs": [{"name": "j", "queue": "q", "model": {"a": 1, "b": 0, "r2": 0.99, "notes": "x"}}]}`
	if _, err := ParseWorkload([]byte(doc), "w.json"); err != nil {
		t.Errorf("extra fields: %v", err)
	}
	doc = `{"name": "w", "job": "a note", "jobs": [{"name": "j", "names": ["x"], "model": {"a": 1, "b": 0}}]}`
	if _, err := ParseWorkload([]byte(doc), "w.json"); err != nil {
		t.Errorf("extra fields: %v", err)
	}
	if _, err := CheckFields([]byte(`[1, 2]`), "x", []string{"a"}); err != nil {
		t.Errorf("not an object: %v, want no error (the decoder reports it)", err)
	}
}
