package chart

import (
	"html"
	"regexp"
	"testing"

	"github.com/packer-sched/packer/model"
	"github.com/packer-sched/packer/model/modeltest"
	"github.com/packer-sched/packer/optimize"
	"github.com/packer-sched/packer/plan"
	"github.com/packer-sched/packer/sim"
)

// reportCards parses the report's key-number cards: label → value as shown.
func reportCards(t *testing.T, page []byte) map[string]string {
	t.Helper()
	card := regexp.MustCompile(`<div class="card"><div class="k">([^<]*)</div><div class="v"[^>]*>([^<]*)</div></div>`)
	cards := map[string]string{}
	for _, m := range card.FindAllSubmatch(page, -1) {
		cards[html.UnescapeString(string(m[1]))] = html.UnescapeString(string(m[2]))
	}
	return cards
}

// TestReportShowsBoundAndGap: the report's key numbers carry the optimum or
// the lower bound and the gap, as packer plan's summary does. One job,
// F(n) = 240/n, alone on 2 × 2 = 4 VMs: makespan 60 s. An optimum of 48 s
// is a gap of 100·(60 − 48)/48 = 25 %; a lower bound of 50 s one of at most
// 100·(60 − 50)/50 = 20 %.
func TestReportShowsBoundAndGap(t *testing.T) {
	p := modeltest.Problem(t, modeltest.SmallCluster(), modeltest.Job("A", 240, -1, false, false))
	sol, err := optimize.NewSolution(p, model.Sequential(p), "hand")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name     string
		set      func(*plan.Plan)
		want     map[string]string
		notLabel string
	}{
		{"optimum", func(pl *plan.Plan) { pl.SetOptimum(48) },
			map[string]string{"Makespan": "60.0 s", "Optimum": "48.0 s", "Gap to the optimum": "25.00 %"}, "Lower bound"},
		{"lower bound", func(pl *plan.Plan) { pl.SetLowerBound(50) },
			map[string]string{"Makespan": "60.0 s", "Lower bound": "50.0 s", "Gap, at most": "20.00 %"}, "Optimum"},
		{"neither", func(*plan.Plan) {}, map[string]string{"Makespan": "60.0 s"}, "Gap, at most"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pl, err := plan.New(p, "t", sol)
			if err != nil {
				t.Fatal(err)
			}
			tc.set(pl)
			page, err := Report(ReportInput{Plan: pl})
			if err != nil {
				t.Fatal(err)
			}
			cards := reportCards(t, page)
			for k, v := range tc.want {
				if cards[k] != v {
					t.Errorf("card %q = %q, want %q (cards %q)", k, cards[k], v, cards)
				}
			}
			if _, ok := cards[tc.notLabel]; ok {
				t.Errorf("card %q shown: %q", tc.notLabel, cards)
			}
		})
	}
}

// TestReportLocalityAsTheCLI: the simulation table's node-local column is
// the CLI's share: "-" for a run whose maps read no block (a share of none
// is no number, not 0.0 %), and 3 of 4 maps with input as "75.0 %".
func TestReportLocalityAsTheCLI(t *testing.T) {
	p := modeltest.Problem(t, modeltest.SmallCluster(), modeltest.Job("A", 240, -1, false, false))
	sol, err := optimize.NewSolution(p, model.Sequential(p), "hand")
	if err != nil {
		t.Fatal(err)
	}
	pl, err := plan.New(p, "t", sol)
	if err != nil {
		t.Fatal(err)
	}
	w := &sim.Workload{Cluster: sim.Cluster{Nodes: 2, MapSlots: 2}, Jobs: []sim.Job{
		{Name: "A", NoInput: true, Maps: sim.Tasks{Count: 4, Mean: 10}},
	}}
	none, err := sim.Run(w, &sim.FIFO{}, &sim.Settings{})
	if err != nil {
		t.Fatal(err)
	}
	some, err := sim.Run(w, &sim.FIFO{}, &sim.Settings{})
	if err != nil {
		t.Fatal(err)
	}
	some.Policy = "with input"
	some.Locality = sim.LocalityCounts{Node: 3, Rack: 1}
	page, err := Report(ReportInput{Plan: pl, Simulation: []*sim.Result{none, some}})
	if err != nil {
		t.Fatal(err)
	}
	// The column is the last but one of each simulation row.
	row := regexp.MustCompile(`<tr><td>([^<]*)</td>(?:<td class="num">[^<]*</td>)*<td class="num">([^<]*)</td><td class="num">[^<]*</td></tr>`)
	got := map[string]string{}
	for _, m := range row.FindAllSubmatch(page, -1) {
		got[html.UnescapeString(string(m[1]))] = html.UnescapeString(string(m[2]))
	}
	if got["fifo"] != "-" || got["with input"] != "75.0 %" {
		t.Errorf("node-local cells %q, want fifo \"-\" and with input \"75.0 %%\"", got)
	}
}
