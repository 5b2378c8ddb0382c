package optimize

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/packer-sched/packer/model"
)

// overcommitPlan is the three-job hand-worked plan of
// TestPairScheduleThreeJobsHandWorked: A hosts B's extras, then C alone.
func overcommitPlan(t *testing.T) *Plan {
	t.Helper()
	p := problem(t, smallCluster(), job("A", 240, -1, false, true), job("B", 120, -1, true, false), job("C", 48, -1, false, false))
	res, err := PairSchedule(p)
	if err != nil {
		t.Fatal(err)
	}
	pl, err := NewPlan(p, res.Schedule, "Three Jobs!", "pair")
	if err != nil {
		t.Fatal(err)
	}
	return pl
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
	back, err := ParsePlan(b, "plan.json")
	if err != nil {
		t.Fatal(err)
	}
	b2, _ := back.MarshalIndent()
	if string(b) != string(b2) {
		t.Error("plan document does not survive a round trip")
	}
}

func TestVerifyCatchesTampering(t *testing.T) {
	for name, tamper := range map[string]func(*Plan){
		"version":         func(p *Plan) { p.Version = 99 },
		"empty id":        func(p *Plan) { p.ID = "" },
		"id with a slash": func(p *Plan) { p.ID = "../w1-12345678" },
		"runtime":         func(p *Plan) { p.Phases[0].Jobs[0].Runtime += 1 },
		"duration":        func(p *Plan) { p.Phases[1].Duration *= 2 },
		"start":           func(p *Plan) { p.Phases[1].Start = 0 },
		"makespan":        func(p *Plan) { p.Makespan -= 1 },
		"sequential":      func(p *Plan) { p.SequentialMakespan = 1 },
		"saving":          func(p *Plan) { p.SavingPercent = 50 },
		"mean completion": func(p *Plan) { p.MeanCompletion = 1 },
		"alpha":           func(p *Plan) { p.Cluster.Alpha = 2 },
		"model":           func(p *Plan) { p.Jobs[2].Model.A = 100 },
		"class":           func(p *Plan) { p.Jobs[0].CPUIntensive = true },
		"job dropped":     func(p *Plan) { p.Phases = p.Phases[:1] },
		"unknown job":     func(p *Plan) { p.Phases[1].Jobs[0].Name = "Z" },
		"disk reused": func(p *Plan) {
			d := 0
			p.Phases[0].Hosts[0].VMs[1].Disk = &d
		},
		"disk range": func(p *Plan) {
			d := 2
			p.Phases[0].Hosts[0].VMs[0].Disk = &d
		},
		"extra with disk": func(p *Plan) {
			d := 1
			p.Phases[0].Hosts[0].VMs[2].Disk = &d
		},
		"host range":     func(p *Plan) { p.Phases[1].Hosts[0].Host = 7 },
		"host twice":     func(p *Plan) { p.Phases[1].Hosts[1].Host = p.Phases[1].Hosts[0].Host },
		"overcommitted":  func(p *Plan) { p.Phases[0].Hosts[0].Overcommitted = false },
		"VM missing":     func(p *Plan) { p.Phases[1].Hosts[0].VMs = p.Phases[1].Hosts[0].VMs[1:] },
		"VM index":       func(p *Plan) { p.Phases[1].Hosts[0].VMs[0].Index = 1 },
		"role mismatch":  func(p *Plan) { p.Phases[0].Hosts[0].VMs[0].Role = Primary },
		"extra stranded": func(p *Plan) { moveExtra(p) },
	} {
		pl := overcommitPlan(t)
		tamper(pl)
		err := pl.Verify()
		if err == nil {
			t.Errorf("%s: Verify accepted the tampered plan", name)
			continue
		}
		if !errors.Is(err, ErrBadPlan) {
			t.Errorf("%s: %v does not wrap ErrBadPlan", name, err)
		}
	}
}

// moveExtra moves host 0's extra VM to host 1, which then has two extras
// beside its two host VMs (r = 2 allows one). Flags are kept consistent so
// that only the ratio is wrong.
func moveExtra(p *Plan) {
	h := p.Phases[0].Hosts
	ex := h[0].VMs[2]
	h[0].VMs = h[0].VMs[:2]
	h[0].Overcommitted = false
	h[1].VMs = append(h[1].VMs, ex)
}

func TestParsePlanErrors(t *testing.T) {
	for _, src := range []string{``, `{`, `[]`, `{"version": 1}`, `{"version": 2, "phases": []}`} {
		_, err := ParsePlan([]byte(src), "p.json")
		var in *model.InputError
		if err == nil || !errors.As(err, &in) || !strings.Contains(err.Error(), "p.json") {
			t.Errorf("%q: err = %v, want an InputError naming p.json", src, err)
		}
	}
}

// FuzzParsePlan: never panics; anything accepted verifies and round-trips.
func FuzzParsePlan(f *testing.F) {
	p := &Problem{Jobs: []model.Job{job("A", 240, -1, false, true), job("B", 120, -1, true, false), job("C", 48, -1, false, false)}, Cluster: smallCluster()}
	res, _ := PairSchedule(p)
	pl, _ := NewPlan(p, res.Schedule, "fuzz", "pair")
	b, _ := pl.MarshalIndent()
	f.Add(b)
	f.Add([]byte(`{"version": 1, "jobs": [], "phases": []}`))
	f.Add([]byte(`{"version": 1, "cluster": {"hosts": 1}}`))
	f.Fuzz(checkParsedPlan)
}

// checkParsedPlan is the fuzz property of every plan reader: never a panic;
// anything accepted verifies and survives a round trip.
func checkParsedPlan(t *testing.T, data []byte) {
	pl, err := ParsePlan(data, "fuzz.json")
	if err != nil {
		return
	}
	if err := pl.Verify(); err != nil {
		t.Fatalf("accepted a plan that does not verify: %v", err)
	}
	b, err := pl.MarshalIndent()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ParsePlan(b, "again.json"); err != nil {
		t.Fatalf("round trip rejected: %v", err)
	}
}
