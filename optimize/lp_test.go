package optimize_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/packer-sched/packer/model"
	"github.com/packer-sched/packer/optimize"
	"github.com/packer-sched/packer/workloads"
)

// cbcObjective solves an LP file with cbc and returns the optimal objective.
func cbcObjective(t *testing.T, lp []byte) float64 {
	t.Helper()
	dir := t.TempDir()
	in, sol := filepath.Join(dir, "model.lp"), filepath.Join(dir, "solution.txt")
	if err := os.WriteFile(in, lp, 0o644); err != nil {
		t.Fatal(err)
	}
	// cbc's preprocessing does not pay on these small models: without it the
	// test's 23 instances took 15 s of CPU instead of 47 s.
	out, err := exec.Command("cbc", in, "-preprocess", "off", "solve", "solu", sol).CombinedOutput()
	if err != nil {
		t.Fatalf("cbc: %v\n%s", err, tail(out))
	}
	data, err := os.ReadFile(sol)
	if err != nil {
		t.Fatalf("cbc wrote no solution: %v\n%s", err, tail(out))
	}
	first, _, _ := strings.Cut(string(data), "\n")
	m := regexp.MustCompile(`^Optimal - objective value\s+(\S+)`).FindStringSubmatch(first)
	if m == nil {
		t.Fatalf("cbc: not optimal: %q", first)
	}
	v, err := strconv.ParseFloat(m[1], 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func tail(b []byte) string {
	if len(b) > 2000 {
		b = b[len(b)-2000:]
	}
	return string(b)
}

// TestLPEqualsExactWithCBC is the acceptance cross-check: the exported LP,
// solved by cbc, has the exact solver's optimum, for W1–W3 on the paper's
// cluster and for 20 random workloads of 7–9 jobs. The random ones run on
// 2 hosts × 2 disks (N = 4, 2 extras) so that cbc proves optimality in
// seconds; on 9 hosts a 9-job instance can take cbc minutes (see `packer
// bench`). It needs cbc (Debian coinor-cbc; `make deps` installs it).
func TestLPEqualsExactWithCBC(t *testing.T) {
	if _, err := exec.LookPath("cbc"); err != nil {
		t.Skip("cbc not installed (apt-get install coinor-cbc; make deps does)")
	}
	type instance struct {
		name string
		p    *model.Problem
	}
	var cases []instance
	for _, name := range []string{"W1", "W2", "W3"} {
		w, err := workloads.Get(name)
		if err != nil {
			t.Fatal(err)
		}
		p, err := model.NewProblem(w, model.PaperCluster())
		if err != nil {
			t.Fatal(err)
		}
		cases = append(cases, instance{name, p})
	}
	random := 20
	if testing.Short() {
		random = 4
	}
	for seed := 1; seed <= random; seed++ {
		m := 7 + seed%3
		p, err := model.NewProblem(optimize.RandomWorkload(uint64(seed), m), model.Cluster{Hosts: 2}.WithDefaults())
		if err != nil {
			t.Fatal(err)
		}
		cases = append(cases, instance{fmt.Sprintf("random-m%d-seed%d", m, seed), p})
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var buf bytes.Buffer
			if err := optimize.WriteLP(&buf, tc.p, tc.name); err != nil {
				t.Fatal(err)
			}
			ex, err := optimize.Exact(tc.p)
			if err != nil {
				t.Fatal(err)
			}
			got := cbcObjective(t, buf.Bytes())
			// cbc prints the objective to 8 decimals.
			if d := got - ex.Makespan; d > 1e-6*ex.Makespan || d < -1e-6*ex.Makespan {
				t.Errorf("cbc %v, exact %v", got, ex.Makespan)
			}
		})
	}
}
