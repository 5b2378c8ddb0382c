package plan_test

import (
	"testing"

	"github.com/packer-sched/packer/plan"
)

// A plan document saved with a UTF-8 byte order mark reads like the same
// document without it.
func TestParseAcceptsBOM(t *testing.T) {
	pl := overcommitPlan(t)
	doc, err := pl.MarshalIndent()
	if err != nil {
		t.Fatal(err)
	}
	got, err := plan.Parse(append([]byte("\ufeff"), doc...), "p.json")
	if err != nil {
		t.Fatalf("plan with a BOM: %v", err)
	}
	if got.ID != pl.ID || len(got.Phases) != len(pl.Phases) {
		t.Errorf("with a BOM: id %s, %d phases; want %s, %d", got.ID, len(got.Phases), pl.ID, len(pl.Phases))
	}
}
