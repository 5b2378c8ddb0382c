package plan_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/packer-sched/packer/model"
	"github.com/packer-sched/packer/model/modeltest"
	"github.com/packer-sched/packer/optimize"
	"github.com/packer-sched/packer/plan"
	"github.com/packer-sched/packer/pso"
	"github.com/packer-sched/packer/workloads"
)

// newPlan places schedule s of p (optimize.NewSolution) and builds its plan.
func newPlan(t testing.TB, p *model.Problem, s model.Schedule, workload, algorithm string) *plan.Plan {
	t.Helper()
	sol, err := optimize.NewSolution(p, s, algorithm)
	if err != nil {
		t.Fatal(err)
	}
	pl, err := plan.New(p, workload, sol)
	if err != nil {
		t.Fatal(err)
	}
	return pl
}

// overcommitPlan is the three-job hand-worked plan of
// TestPairScheduleThreeJobsHandWorked: A hosts B's extras, then C alone.
func overcommitPlan(t *testing.T) *plan.Plan {
	t.Helper()
	p := modeltest.Problem(t, modeltest.SmallCluster(), modeltest.Job("A", 240, -1, false, true), modeltest.Job("B", 120, -1, true, false), modeltest.Job("C", 48, -1, false, false))
	res, err := optimize.PairSchedule(p)
	if err != nil {
		t.Fatal(err)
	}
	return newPlan(t, p, res.Schedule, "Three Jobs!", "pair")
}

func TestPlanDocument(t *testing.T) {
	pl := overcommitPlan(t)
	if err := pl.Verify(); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(pl.ID, "three-jobs-") || len(pl.ID) != len("three-jobs-")+8 {
		t.Errorf("id %q", pl.ID)
	}
	b, err := pl.MarshalIndent()
	if err != nil {
		t.Fatal(err)
	}
	// The field names other tools read.
	var raw map[string]any
	if err := json.Unmarshal(b, &raw); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"version", "id", "workload", "algorithm", "cluster", "jobs", "makespan", "sequential_makespan", "phases"} {
		if _, ok := raw[k]; !ok {
			t.Errorf("plan document lacks %q", k)
		}
	}
	cl := raw["cluster"].(map[string]any)
	for _, k := range []string{"hosts", "disks_per_host", "extra_ratio", "overcommit_penalty", "vcpus_per_vm"} {
		if _, ok := cl[k]; !ok {
			t.Errorf("cluster lacks %q", k)
		}
	}
	ph := raw["phases"].([]any)[0].(map[string]any)
	vm := ph["hosts"].([]any)[0].(map[string]any)["vms"].([]any)
	extra := vm[len(vm)-1].(map[string]any)
	if extra["role"] != "extra" || extra["disk"] != nil {
		t.Errorf("an extra VM's disk must be null: %v", extra)
	}
	if _, present := extra["disk"]; !present {
		t.Error("disk must be present (null) for extra VMs")
	}
	back, err := plan.Parse(b, "plan.json")
	if err != nil {
		t.Fatal(err)
	}
	b2, _ := back.MarshalIndent()
	if string(b) != string(b2) {
		t.Error("plan document does not survive a round trip")
	}
	// Two documents pasted together, or text after one, are refused; trailing
	// white space is not.
	if _, err := plan.Parse(append(b, " \n\t"...), "plan.json"); err != nil {
		t.Errorf("trailing white space refused: %v", err)
	}
	lines := strings.Count(string(b), "\n")
	if _, err := plan.Parse(append(slices.Clone(b), "\n  x"...), "two.json"); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("at line %d, column 3", lines+2)) {
		t.Errorf("text two lines after the plan: %v, want its line and column", err)
	}
	for _, tail := range []string{string(b), "x", "{}", "]"} {
		if _, err := plan.Parse(append(slices.Clone(b), tail...), "two.json"); err == nil || !strings.Contains(err.Error(), "data after the plan document") {
			t.Errorf("plan followed by %.10q: err = %v", tail, err)
		}
	}
}

func TestVerifyCatchesTampering(t *testing.T) {
	for name, tamper := range map[string]func(*plan.Plan){
		"version":         func(p *plan.Plan) { p.Version = 99 },
		"empty id":        func(p *plan.Plan) { p.ID = "" },
		"id with a slash": func(p *plan.Plan) { p.ID = "../w1-12345678" },
		"runtime":         func(p *plan.Plan) { p.Phases[0].Jobs[0].Runtime += 1 },
		"duration":        func(p *plan.Plan) { p.Phases[1].Duration *= 2 },
		"start":           func(p *plan.Plan) { p.Phases[1].Start = 0 },
		"makespan":        func(p *plan.Plan) { p.Makespan -= 1 },
		"sequential":      func(p *plan.Plan) { p.SequentialMakespan = 1 },
		"saving":          func(p *plan.Plan) { p.SavingPercent = 50 },
		"mean completion": func(p *plan.Plan) { p.MeanCompletion = 1 },
		"alpha":           func(p *plan.Plan) { p.Cluster.Alpha = 2 },
		"model":           func(p *plan.Plan) { p.Jobs[2].Model = model.PowerLaw{A: 100, B: p.Jobs[2].Model.(model.PowerLaw).B} },
		"class":           func(p *plan.Plan) { p.Jobs[0].CPUIntensive = true },
		"job dropped":     func(p *plan.Plan) { p.Phases = p.Phases[:1] },
		"unknown job":     func(p *plan.Plan) { p.Phases[1].Jobs[0].Name = "Z" },
		"disk reused": func(p *plan.Plan) {
			d := 0
			p.Phases[0].Hosts[0].VMs[1].Disk = &d
		},
		"disk range": func(p *plan.Plan) {
			d := 2
			p.Phases[0].Hosts[0].VMs[0].Disk = &d
		},
		"extra with disk": func(p *plan.Plan) {
			d := 1
			p.Phases[0].Hosts[0].VMs[2].Disk = &d
		},
		"host range":     func(p *plan.Plan) { p.Phases[1].Hosts[0].Host = 7 },
		"host twice":     func(p *plan.Plan) { p.Phases[1].Hosts[1].Host = p.Phases[1].Hosts[0].Host },
		"overcommitted":  func(p *plan.Plan) { p.Phases[0].Hosts[0].Overcommitted = false },
		"VM missing":     func(p *plan.Plan) { p.Phases[1].Hosts[0].VMs = p.Phases[1].Hosts[0].VMs[1:] },
		"VM index":       func(p *plan.Plan) { p.Phases[1].Hosts[0].VMs[0].Index = 1 },
		"role mismatch":  func(p *plan.Plan) { p.Phases[0].Hosts[0].VMs[0].Role = model.Primary },
		"extra stranded": func(p *plan.Plan) { moveExtra(p) },
	} {
		pl := overcommitPlan(t)
		tamper(pl)
		err := pl.Verify()
		if err == nil {
			t.Errorf("%s: Verify accepted the tampered plan", name)
			continue
		}
		if !errors.Is(err, plan.ErrInvalid) {
			t.Errorf("%s: %v does not wrap plan.ErrInvalid", name, err)
		}
	}
}

// moveExtra moves host 0's extra VM to host 1, which then has two extras
// beside its two host VMs (r = 2 allows one). Flags are kept consistent so
// that only the ratio is wrong.
func moveExtra(p *plan.Plan) {
	h := p.Phases[0].Hosts
	ex := h[0].VMs[2]
	h[0].VMs = h[0].VMs[:2]
	h[0].Overcommitted = false
	h[1].VMs = append(h[1].VMs, ex)
}

func TestParseErrors(t *testing.T) {
	for _, src := range []string{``, `{`, `[]`, `{"version": 1}`, `{"version": 2, "phases": []}`} {
		_, err := plan.Parse([]byte(src), "p.json")
		var in *model.InputError
		if err == nil || !errors.As(err, &in) || !strings.Contains(err.Error(), "p.json") {
			t.Errorf("%q: err = %v, want an InputError naming p.json", src, err)
		}
	}
}

// FuzzParse: never panics; anything accepted verifies and round-trips.
func FuzzParse(f *testing.F) {
	doc := threeJobPlan(f)
	f.Add(doc)
	implausibleSeeds(f, doc)
	f.Add([]byte(`{"version": 1, "jobs": [], "phases": []}`))
	f.Add([]byte(`{"version": 1, "cluster": {"hosts": 1}}`))
	f.Fuzz(checkParsedPlan)
}

// threeJobPlan is the pair scheduler's plan of an I/O job, a CPU job and a
// job of neither class on a small cluster, as a compact document.
func threeJobPlan(t testing.TB) []byte {
	p := &model.Problem{Jobs: []model.Job{modeltest.Job("A", 240, -1, false, true), modeltest.Job("B", 120, -1, true, false), modeltest.Job("C", 48, -1, false, false)}, Cluster: modeltest.SmallCluster()}
	res, err := optimize.PairSchedule(p)
	if err != nil {
		t.Fatal(err)
	}
	return compactPlan(t, newPlan(t, p, res.Schedule, "fuzz", "pair"))
}

// compactPlan is pl's document without indentation: 1.5 KB where indented
// it is 3.3 KB, so that the fuzzer mutates and minimizes half the bytes.
func compactPlan(t testing.TB, pl *plan.Plan) []byte {
	b, err := json.Marshal(pl)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// checkParsedPlan is the fuzz property of every plan reader: never a panic;
// anything accepted verifies and survives a round trip.
func checkParsedPlan(t *testing.T, data []byte) {
	pl, err := plan.Parse(data, "fuzz.json")
	if err != nil {
		return
	}
	if err := pl.Verify(); err != nil {
		t.Fatalf("accepted a plan that does not verify: %v", err)
	}
	checkPlausible(t, pl)
	b, err := pl.MarshalIndent()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := plan.Parse(b, "again.json"); err != nil {
		t.Fatalf("round trip rejected: %v", err)
	}
}

// TestPlanProperties checks every plan the pair scheduler and the sequential
// baseline emit on random workloads, first through Plan.Verify and then by
// recounting the invariants here, from the placement alone.
func TestPlanProperties(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	overcommitted := 0
	defer func() {
		// The random cases must exercise the placement of extra VMs, or this
		// test proves little about it.
		if overcommitted < 50 {
			t.Errorf("only %d overcommitted hosts placed in 400 random plans", overcommitted)
		}
	}()
	for trial := range 400 {
		p := modeltest.RandomProblem(t, rng, 1+rng.IntN(12))
		res, err := optimize.PairSchedule(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range []model.Schedule{res.Schedule, model.Sequential(p)} {
			pl := newPlan(t, p, s, "random", "pair")
			if err := pl.Verify(); err != nil {
				t.Fatalf("trial %d: %v", trial, err)
			}
			checkPlacement(t, p, pl)
			for _, ph := range pl.Phases {
				for _, h := range ph.Hosts {
					if h.Overcommitted {
						overcommitted++
					}
				}
			}
		}
	}
}

func checkPlacement(t *testing.T, p *model.Problem, pl *plan.Plan) {
	t.Helper()
	c := p.Cluster
	placed := map[string]int{}
	var total float64
	for _, ph := range pl.Phases {
		primary, extras := 0, 0
		var dur float64
		for _, j := range ph.Jobs {
			placed[j.Name]++
			var job model.Job
			for _, x := range p.Jobs {
				if x.Name == j.Name {
					job = x
				}
			}
			want := job.Model.Seconds(j.VMs)
			switch j.Role {
			case model.Host:
				if !job.IOIntensive || job.CPUIntensive {
					t.Fatalf("job %s (class %s) hosts extras", j.Name, job.Class())
				}
				want *= c.Alpha
			case model.Extra:
				if !job.CPUIntensive || job.IOIntensive {
					t.Fatalf("job %s (class %s) runs as extra", j.Name, job.Class())
				}
				want *= c.Alpha
			}
			if !modeltest.Near(j.Runtime, want) {
				t.Fatalf("job %s runtime %v, model gives %v", j.Name, j.Runtime, want)
			}
			dur = max(dur, want)
		}
		for _, h := range ph.Hosts {
			disks := map[int]bool{}
			hostVMs, ex := 0, 0
			for _, v := range h.VMs {
				if v.Disk == nil {
					ex++
					continue
				}
				if disks[*v.Disk] || *v.Disk >= c.DisksPerHost {
					t.Fatalf("host %d: disk %d reused or out of range", h.Host, *v.Disk)
				}
				disks[*v.Disk] = true
				if v.Role == model.Host {
					hostVMs++
				}
			}
			if len(disks) > c.DisksPerHost || ex*c.ExtraRatio > hostVMs {
				t.Fatalf("host %d: %d disk VMs, %d extras beside %d host VMs", h.Host, len(disks), ex, hostVMs)
			}
			primary += len(disks)
			extras += ex
		}
		if primary > c.PrimaryVMs() || extras > c.MaxExtraVMs() {
			t.Fatalf("phase %d: %d primary, %d extra VMs", ph.Index, primary, extras)
		}
		if !modeltest.Near(ph.Duration, dur) {
			t.Fatalf("phase %d duration %v, recomputed %v", ph.Index, ph.Duration, dur)
		}
		total += dur
	}
	for _, j := range p.Jobs {
		if placed[j.Name] != 1 {
			t.Fatalf("job %s in %d phases", j.Name, placed[j.Name])
		}
	}
	if !modeltest.Near(pl.Makespan, total) {
		t.Fatalf("makespan %v, recomputed %v", pl.Makespan, total)
	}
}

// FuzzParseBound fuzzes plan documents that carry the swarm's settings,
// an optimum or a lower bound and a gap: never a panic; anything accepted
// verifies and round-trips.
func FuzzParseBound(f *testing.F) {
	p, err := model.NewProblem(optimize.RandomWorkload(4, 5), model.Cluster{Hosts: 2}.WithDefaults())
	if err != nil {
		f.Fatal(err)
	}
	sr, err := optimize.Swarm(p, &pso.Settings{Particles: 20, Iterations: 5, Seed: 3})
	if err != nil {
		f.Fatal(err)
	}
	ex, err := optimize.Exact(p)
	if err != nil {
		f.Fatal(err)
	}
	for _, withOptimum := range []bool{true, false} {
		pl := newPlan(f, p, sr.Schedule, "fuzz", "pso")
		seed := uint64(3)
		pl.Seed, pl.Particles, pl.Iterations = &seed, 20, 5
		if withOptimum {
			pl.SetOptimum(ex.Makespan)
		} else {
			pl.SetLowerBound(optimize.LowerBound(p))
		}
		doc := compactPlan(f, pl)
		f.Add(doc)
		implausibleSeeds(f, doc)
	}
	f.Fuzz(checkParsedPlan)
}

// TestPlanBound: a plan's optimum, lower bound and gap survive Verify, and
// Verify catches a wrong gap or an optimum above the makespan.
func TestPlanBound(t *testing.T) {
	w, err := workloads.Get("W1")
	if err != nil {
		t.Fatal(err)
	}
	p, err := model.NewProblem(w, model.Cluster{Hosts: 9}.WithDefaults())
	if err != nil {
		t.Fatal(err)
	}
	pr, err := optimize.PairSchedule(p)
	if err != nil {
		t.Fatal(err)
	}
	ex, err := optimize.Exact(p)
	if err != nil {
		t.Fatal(err)
	}
	pl := newPlan(t, p, pr.Schedule, "W1", "pair")
	pl.SetOptimum(ex.Makespan)
	// W1: pair 896.44 s, optimum 779.76 s: gap 100·(896.44 − 779.76)/779.76 ≈ 14.96 %.
	if g := *pl.GapPercent; math.Abs(g-14.96) > 0.01 {
		t.Errorf("gap %v, want about 14.96", g)
	}
	if err := pl.Verify(); err != nil {
		t.Fatal(err)
	}
	doc, _ := pl.MarshalIndent()
	back, err := plan.Parse(doc, "plan.json")
	if err != nil || !reflect.DeepEqual(back.Optimum, pl.Optimum) {
		t.Fatalf("round trip: %v", err)
	}
	bad := *pl
	g := 1.0
	bad.GapPercent = &g
	if err := bad.Verify(); !errors.Is(err, plan.ErrInvalid) {
		t.Errorf("wrong gap: %v", err)
	}
	bad = *pl
	high := pl.Makespan * 2
	bad.Optimum = &high
	if err := bad.Verify(); !errors.Is(err, plan.ErrInvalid) {
		t.Errorf("optimum above makespan: %v", err)
	}
}

// randomProblem draws a workload of m jobs with power-law models, random
// classes, on a random cluster.

// TestNewRecordsSolution: New copies the notes and swarm settings, records
// the optimum with its gap, and rejects a solution whose placement does not
// match its schedule.
func TestNewRecordsSolution(t *testing.T) {
	p := modeltest.Problem(t, modeltest.SmallCluster(), modeltest.Job("A", 240, -1, false, true), modeltest.Job("B", 120, -1, true, false), modeltest.Job("C", 48, -1, false, false))
	res, err := optimize.PairSchedule(p)
	if err != nil {
		t.Fatal(err)
	}
	sol, err := optimize.NewSolution(p, res.Schedule, "pso")
	if err != nil {
		t.Fatal(err)
	}
	// The pair plan takes 84 s (TestPairScheduleThreeJobsHandWorked); with an
	// optimum of 80 s the gap is 100·(84 − 80)/80 = 5 %.
	opt, lb, seed := 80.0, 70.0, uint64(7)
	sol.Notes, sol.Optimum, sol.LowerBound, sol.Seed, sol.Particles, sol.Iterations = []string{"a note"}, &opt, &lb, &seed, 20, 5
	pl, err := plan.New(p, "t", sol)
	if err != nil {
		t.Fatal(err)
	}
	if !modeltest.Near(*pl.GapPercent, 5) || *pl.Optimum != 80 || *pl.LowerBound != 70 {
		t.Errorf("gap %v, optimum %v, lower bound %v; want 5 %%, 80, 70", *pl.GapPercent, *pl.Optimum, *pl.LowerBound)
	}
	if *pl.Seed != 7 || pl.Particles != 20 || pl.Iterations != 5 || !reflect.DeepEqual(pl.Notes, []string{"a note"}) {
		t.Errorf("seed %v, particles %d, iterations %d, notes %q", *pl.Seed, pl.Particles, pl.Iterations, pl.Notes)
	}
	if err := pl.Verify(); err != nil {
		t.Fatal(err)
	}
	short := sol
	short.Placement = sol.Placement[:1]
	if _, err := plan.New(p, "t", short); err == nil {
		t.Error("New accepted a solution with a placement missing")
	}
	swapped := sol
	swapped.Placement = [][]model.HostPlacement{sol.Placement[1], sol.Placement[0]}
	if _, err := plan.New(p, "t", swapped); err == nil {
		t.Error("New accepted phases placed with each other's VMs")
	}
}

// TestNewNamesExtrapolations: a job given a VM count outside its measured
// range gets a note naming it, the count, the range and how far outside; a
// job inside its range, or with no range, gets none.
func TestNewNamesExtrapolations(t *testing.T) {
	// SmallCluster: 2 hosts × 2 disks = 4 primary VMs.
	below, above, inside, none := modeltest.Job("sort", 240, -1, false, true), modeltest.Job("rank", 120, -1, true, false),
		modeltest.Job("grep", 48, -1, false, false), modeltest.Job("agg", 30, -1, false, false)
	below.Range = &model.NodeRange{Min: 2, Max: 12}
	above.Range = &model.NodeRange{Min: 1, Max: 2}
	inside.Range = &model.NodeRange{Min: 1, Max: 4}
	p := modeltest.Problem(t, modeltest.SmallCluster(), below, above, inside, none)
	// Phase 1: sort on 1 VM (1 below 2) beside grep on 3; phase 2: rank on
	// all 4 VMs (2 above 2); phase 3: agg on 4 VMs, no range.
	s := model.Schedule{Phases: []model.Phase{
		{Jobs: []model.Assignment{{Job: 0, VMs: 1, Role: model.Primary}, {Job: 2, VMs: 3, Role: model.Primary}}},
		{Jobs: []model.Assignment{{Job: 1, VMs: 4, Role: model.Primary}}},
		{Jobs: []model.Assignment{{Job: 3, VMs: 4, Role: model.Primary}}},
	}}
	sol, err := optimize.NewSolution(p, s, "hand")
	if err != nil {
		t.Fatal(err)
	}
	sol.Notes = []string{"a note"}
	pl, err := plan.New(p, "t", sol)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"a note",
		"job sort runs on 1 VM, measured on 2–12: its runtime is extrapolated 1 VM below the measured range",
		"job rank runs on 4 VMs, measured on 1–2: its runtime is extrapolated 2 VMs above the measured range",
		"the makespan, and any optimum or bound, rest on those extrapolations; packer plan --within-measured keeps every job inside its measured range"}
	if !reflect.DeepEqual(pl.Notes, want) {
		t.Errorf("notes:\n%q\nwant\n%q", pl.Notes, want)
	}
	if !reflect.DeepEqual(sol.Notes, []string{"a note"}) {
		t.Errorf("New changed the solution's notes: %q", sol.Notes)
	}
	if err := pl.Verify(); err != nil {
		t.Fatal(err)
	}
}

// TestMarshalIndentCompactsHugePlans: up to plan.CompactBytes the document is
// json.MarshalIndent's; past it, json.Marshal's on one line; both parse back
// to the same plan.
func TestMarshalIndentCompactsHugePlans(t *testing.T) {
	pl := &plan.Plan{Version: plan.Version, ID: "x-00000000", Workload: "x", Notes: []string{"a note"}}
	small, err := pl.MarshalIndent()
	want, _ := json.MarshalIndent(pl, "", "  ")
	if err != nil || string(small) != string(want)+"\n" {
		t.Fatalf("small plan: %q, %v; want json.MarshalIndent's %q", small, err, want)
	}
	pl.Notes = []string{strings.Repeat("n", plan.CompactBytes)}
	big, err := pl.MarshalIndent()
	compact, _ := json.Marshal(pl)
	if err != nil || string(big) != string(compact)+"\n" {
		t.Fatalf("big plan: %d bytes, %v; want json.Marshal's %d bytes and a newline", len(big), err, len(compact))
	}
}
