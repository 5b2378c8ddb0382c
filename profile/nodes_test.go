package profile

import (
	"slices"
	"testing"
)

func TestParseNodes(t *testing.T) {
	if got, err := ParseNodes(" 2, 4,6 "); err != nil || !slices.Equal(got, []int{2, 4, 6}) {
		t.Errorf("ParseNodes(\" 2, 4,6 \") = %v, %v", got, err)
	}
	for s, want := range map[string]string{
		"":      "no node counts given (want e.g. 2,4,6,8)",
		"2,x":   `"x" is not a whole number`,
		"0,2":   "node count 0 must be at least 1",
		"2,4,2": "node count 2 is given twice",
	} {
		if _, err := ParseNodes(s); err == nil || err.Error() != want {
			t.Errorf("ParseNodes(%q): %v, want %q", s, err, want)
		}
	}
}
