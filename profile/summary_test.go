package profile

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"

	"github.com/packer-sched/packer/model"
)

// Two jobs, both exact: one power law (every form but the table predicts it
// perfectly, so the power law is kept), one Amdahl law with a large serial
// part (Amdahl predicts it perfectly, the power law does not).
func TestSummarise(t *testing.T) {
	var results []*Result
	for _, m := range []model.Model{model.PowerLaw{A: 600, B: -1}, model.Amdahl{A: 300, C: 900}} {
		var o []model.Observation
		for _, n := range []int{1, 2, 4, 6, 9, 12} {
			o = append(o, model.Observation{Nodes: n, Seconds: m.Seconds(n)})
		}
		r, err := Analyze("j", o, nil)
		if err != nil {
			t.Fatal(err)
		}
		results = append(results, r)
	}
	rows := Summarise(results)
	by := map[string]FormSummary{}
	for _, r := range rows {
		by[r.Form] = r
	}
	if a := by["chosen"]; a.Jobs != 2 || a.Chosen != 2 || a.Worst > 1e-9 {
		t.Errorf("chosen: %+v, want 2 jobs predicted exactly", a)
	}
	if p := by["power"]; p.Jobs != 2 || !(p.Worst > 0.05) || by["power"].Chosen != 1 || by["amdahl"].Chosen != 1 {
		t.Errorf("power %+v amdahl %+v: want the power law to miss the Amdahl job and each chosen once", p, by["amdahl"])
	}
	// The median of two jobs' medians is their mean; the power law's own job
	// contributes 0.
	pw, _ := results[1].Choice.Score(model.KindPower)
	if !scalar.EqualWithinAbsOrRel(by["power"].Median, pw.Median/2, 1e-12, 1e-12) || math.IsNaN(by["power"].Median) {
		t.Errorf("power median %v, want %v", by["power"].Median, pw.Median/2)
	}
}
