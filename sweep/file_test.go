package sweep

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/packer-sched/packer/model"
	"github.com/packer-sched/packer/optimize"
)

// TestParseRefusesNamingFieldAndValue: every refusal is one line naming
// the file, the field and the value.
func TestParseRefusesNamingFieldAndValue(t *testing.T) {
	base := `"name": "s", "run": "simulate", "workloads": ["W1"], "policies": ["fifo"]`
	for _, c := range []struct{ body, want string }{
		{`{` + base + `, "nodes": [10, -3]}`, `s.json: nodes[1] = -3: want 1 to 1000000`},
		{`{` + base + `, "polices": ["fair"]}`, `s.json: polices: unknown field`},
		{`{"name": "s", "run": "simulate", "workloads": ["W1"], "policies": ["fiffo"]}`, `s.json: policies[0] = "fiffo": unknown policy`},
		{`{"name": "s", "run": "simulate", "workloads": ["W1"], "policies": ["plan"]}`, `s.json: policies[0] = "plan": a plan replay needs a plan document`},
		{`{` + base + `, "seeds": [1, 1]}`, `s.json: seeds[1] = 1: listed twice`},
		{`{` + base + `, "nodes": ["ten"]}`, `s.json: nodes = a JSON string: want a number`},
		{`{` + base + `, "options": [{"name": "a", "heartbeat": -1}]}`, `s.json: options[0].heartbeat = -1:`},
		{`{` + base + `, "options": [{"name": "a", "particles": 5}]}`, `s.json: options[0].particles: belongs to "run": "plan" sweeps`},
		{`{` + base + `, "options": [{"name": "a"}, {"name": "a"}]}`, `s.json: options[1].name = "a": listed twice`},
		{`{` + base + `, "options": [{"name": "a", "replication": 5}], "nodes": [3]}`, `s.json: options[0]: with nodes 3:`},
		{`{"name": "s", "run": "simulat", "workloads": ["W1"]}`, `s.json: run = "simulat": want "simulate" or "plan"`},
		{`{"name": "a b", "run": "plan", "workloads": ["W1"], "algorithms": ["pair"]}`, `s.json: name = "a b": want 1 to 50`},
		{`{"name": "s", "run": "plan", "workloads": ["W1"], "algorithms": ["pairs"]}`, `s.json: algorithms[0] = "pairs": unknown algorithm`},
		{`{"name": "s", "run": "plan", "workloads": ["W1"], "algorithms": ["pair"], "nodes": [3]}`, `s.json: nodes: belongs to "run": "simulate" sweeps`},
		{`{"name": "s", "run": "plan", "workloads": ["W1"], "algorithms": ["pair"], "options": [{"name": "x", "heartbeat": 2}]}`, `s.json: options[0].heartbeat: belongs to "run": "simulate"`},
		{`{"name": "s", "run": "plan", "workloads": ["W1"], "algorithms": ["pso"], "options": [{"name": "x", "particles": 5, "iterations": -2}]}`, `s.json: options[0].iterations = -2: want at least 1, or 0 or left out for packer plan's default`},
		{`{"name": "s", "run": "plan", "workloads": ["W1"], "algorithms": ["pso"], "options": [{"name": "x", "particles": -5}]}`, `s.json: options[0].particles = -5: want at least 1`},
		{`{"name": "s", "run": "plan", "workloads": ["-"], "algorithms": ["pair"]}`, `s.json: workloads[0] = "-": want a built-in name or a file`},
		{`{"name": "s", "run": "plan", "workloads": [], "algorithms": ["pair"]}`, `s.json: workloads: name at least one workload`},
		{"{\n" + base + ",\n}", `s.json: line 3: invalid character '}'`},
		{`{` + base + `} {}`, `s.json: more than one JSON value`},
		{``, `s.json: empty or cut short`},
	} {
		_, err := Parse([]byte(c.body), "s.json")
		var ie *InputError
		if !errors.As(err, &ie) || !strings.HasPrefix(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("Parse(%s):\n got %v\nwant %s…", c.body, err, c.want)
		}
	}
}

// TestMaxPointsBoundsTheCrossProduct: 101 × 1000 seeds is refused, 100 ×
// 1000 taken, and an axis product past int64 is refused, not wrapped.
func TestMaxPointsBoundsTheCrossProduct(t *testing.T) {
	seeds := func(n int) string {
		s := make([]string, n)
		for i := range s {
			s[i] = fmt.Sprint(i + 1)
		}
		return "[" + strings.Join(s, ",") + "]"
	}
	nodes := func(n int) string {
		s := make([]string, n)
		for i := range s {
			s[i] = fmt.Sprint(i + 3)
		}
		return "[" + strings.Join(s, ",") + "]"
	}
	body := func(n int) string {
		return `{"name": "s", "run": "simulate", "workloads": ["W1"], "policies": ["fifo"], "nodes": ` + nodes(n) + `, "seeds": ` + seeds(1000) + `}`
	}
	if f, err := Parse([]byte(body(100)), "s.json"); err != nil || len(f.Points()) != MaxPoints {
		t.Fatalf("100 × 1000 points: %v", err)
	}
	if _, err := Parse([]byte(body(101)), "s.json"); err == nil || !strings.Contains(err.Error(), "101000 points, more than a sweep may have (100000)") {
		t.Errorf("101 × 1000 points: %v", err)
	}
}

// TestDefaultsAndOrder: seeds default to [1], options to one "default"
// set, and points run workloads outermost, option sets innermost.
func TestDefaultsAndOrder(t *testing.T) {
	f, err := Parse([]byte(`{"name": "s", "run": "simulate", "workloads": ["W1", "W2"], "nodes": [4, 8], "policies": ["fifo", "fair"]}`), "s.json")
	if err != nil {
		t.Fatal(err)
	}
	ps := f.Points()
	if len(ps) != 8 || ps[0].Seed != 1 || ps[0].Options.Name != "default" {
		t.Fatalf("points %+v", ps)
	}
	var got []string
	for _, p := range ps {
		got = append(got, fmt.Sprintf("%s/%d/%s", p.Workload, p.Size, p.Policy))
	}
	want := "W1/4/fifo W1/4/fair W1/8/fifo W1/8/fair W2/4/fifo W2/4/fair W2/8/fifo W2/8/fair"
	if strings.Join(got, " ") != want {
		t.Errorf("order %v, want %s", got, want)
	}
}

// TestPointIDsAreStable: a point's ID does not depend on its index or on
// the other points, and differs between points.
func TestPointIDsAreStable(t *testing.T) {
	a, _ := Parse([]byte(`{"name": "a", "run": "simulate", "workloads": ["W1", "W2"], "policies": ["fifo", "fair"], "seeds": [1, 2]}`), "a.json")
	b, _ := Parse([]byte(`{"name": "b", "run": "simulate", "workloads": ["W2"], "policies": ["fair"], "seeds": [2]}`), "b.json")
	ids := map[string]Point{}
	for _, p := range a.Points() {
		if q, dup := ids[p.ID]; dup {
			t.Errorf("points %d and %d share ID %s", q.Index, p.Index, p.ID)
		}
		ids[p.ID] = p
	}
	pb := b.Points()[0]
	if pa, ok := ids[pb.ID]; !ok || pa.Index != 7 || pb.Index != 0 {
		t.Errorf("W2/fair/seed 2 has ID %s in b, not found at index 7 of a", pb.ID)
	}
	if pointID("simulate", pb) == pointID("plan", pb) {
		t.Error("the run kind does not change the ID")
	}
}

// FuzzParse: Parse never panics, accepts only what it can point at, and a
// file it accepts has between 1 and MaxPoints points, each ID unique.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		`{"name": "s", "run": "simulate", "workloads": ["W1"], "nodes": [10, 20], "policies": ["fifo", "fair:5"], "seeds": [1, 2], "options": [{"name": "a", "heartbeat": 3}]}`,
		`{"name": "p", "run": "plan", "workloads": ["W1", "random-m8-seed1"], "hosts": [6], "algorithms": ["pair", "pso"], "options": [{"name": "small", "particles": 10, "iterations": 5}]}`,
		`{"name": "s", "run": "simulate", "workloads": ["W1"], "policies": ["tyrex-static"], "options": [{"name": "t", "tyrex_timer": -1}]}`,
		`{"name": 3}`, `[]`, `{"run": "plan", "seeds": [18446744073709551615]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		sw, err := Parse(data, "fuzz.json")
		if err != nil {
			var ie *InputError
			if !errors.As(err, &ie) || ie.File != "fuzz.json" || strings.Contains(err.Error(), "\n") {
				t.Fatalf("error not one line naming the file: %q", err)
			}
			return
		}
		ps := sw.Points()
		if len(ps) < 1 || len(ps) > MaxPoints {
			t.Fatalf("%d points", len(ps))
		}
		seen := map[string]bool{}
		for _, p := range ps {
			if seen[p.ID] {
				t.Fatalf("duplicate ID %s", p.ID)
			}
			seen[p.ID] = true
		}
	})
}

// A plan option set that leaves particles and iterations out runs the
// swarm packer plan runs (the docs: "a setting left out is the command's
// default"): pso runs 200 iterations (of the set's 30 particles here);
// auto 1,500 particles for its fixed budget of evaluations, 1,500,000 ÷
// (particles × jobs) iterations, and no swarm at all past 100 jobs on 40
// primary VMs or more. Set, they are the option set's.
func TestPlanSwarmLeftOutIsPlans(t *testing.T) {
	solve := func(jobs, hosts int, method optimize.Method, o Options) *optimize.Result {
		t.Helper()
		p, err := model.NewProblem(optimize.RandomWorkload(1, jobs), o.planCluster(hosts))
		if err != nil {
			t.Fatal(err)
		}
		res, err := optimize.Solve(p, method, o.solverSettings(3))
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	short := Options{TimeLimit: 1}
	cases := []struct {
		name                  string
		jobs, hosts           int
		method                optimize.Method
		o                     Options
		particles, iterations int // 0, 0: no swarm
	}{
		{"auto, 30 jobs: its budget", 30, 9, optimize.MethodAuto, short, 1500, 1_500_000 / (1500 * 30)},
		{"auto, 101 jobs on 20 hosts: none", 101, 20, optimize.MethodAuto, short, 0, 0},
		{"auto, iterations set", 30, 9, optimize.MethodAuto, Options{TimeLimit: 1, Particles: 40, Iterations: 7}, 40, 7},
		{"pso: 200 iterations", 17, 2, optimize.MethodSwarm, Options{Particles: 30}, 30, 200},
	}
	for _, c := range cases {
		res := solve(c.jobs, c.hosts, c.method, c.o)
		switch {
		case c.iterations == 0 && res.Swarm != nil:
			t.Errorf("%s: a swarm of %d particles × %d iterations ran, want none", c.name, res.Swarm.Settings.Particles, res.Swarm.Settings.Iterations)
		case c.iterations == 0:
		case res.Swarm == nil:
			t.Errorf("%s: no swarm ran", c.name)
		case res.Swarm.Settings.Particles != c.particles || res.Swarm.Settings.Iterations != c.iterations || res.Swarm.Settings.Seed != 3:
			t.Errorf("%s: swarm %d particles × %d iterations, seed %d; want %d × %d, seed 3", c.name,
				res.Swarm.Settings.Particles, res.Swarm.Settings.Iterations, res.Swarm.Settings.Seed, c.particles, c.iterations)
		}
	}
}
