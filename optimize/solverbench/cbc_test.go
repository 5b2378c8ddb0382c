package solverbench

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// Closing reports as cbc 2.10.8 prints them (progress lines cut short).
const (
	cbcOptimal = `Cbc0001I Search completed - best objective 779.7623005, took 4706 iterations and 152 nodes (0.82 seconds)
Result - Optimal solution found

Objective value:                779.76230050
Enumerated nodes:               152
`
	cbcStopped = `Cbc0010I After 300 nodes, 136 on tree, 8944.2241 best solution, best possible 3968.5713 (9.74 seconds)
Cbc0005I Partial search - best objective 8944.2241 (best possible 3968.5713), took 53791 iterations and 317 nodes (9.94 seconds)

Result - Stopped on time limit

Objective value:                8944.22410408
Lower bound:                    3968.571
Gap:                            1.25
`
	cbcNothing = `Cbc0005I Partial search - best objective 1e+50 (best possible 3958.0197), took 0 iterations and 0 nodes (0.28 seconds)
Result - Stopped on time limit
No feasible solution found
Lower bound:                    3958.020
`
)

// TestParseCBC: an optimum is its own bound; a run the limit stopped gives
// its incumbent and "Lower bound"; one that found nothing gives the bound
// alone; without "Lower bound" the last "best possible" is the bound; what
// is not a solved or stopped run is an error.
func TestParseCBC(t *testing.T) {
	nan := math.NaN()
	for _, c := range []struct {
		name, out        string
		status           string
		incumbent, bound float64
	}{
		{"optimal", cbcOptimal, "Optimal solution found", 779.7623005, 779.7623005},
		{"stopped", cbcStopped, "Stopped on time limit", 8944.22410408, 3968.571},
		{"nothing found", cbcNothing, "Stopped on time limit", nan, 3958.020},
		{"no Lower bound line", strings.Replace(cbcStopped, "Lower bound:", "Lower-bound", 1), "Stopped on time limit", 8944.22410408, 3968.5713},
	} {
		got, err := parseCBC([]byte(c.out))
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		same := func(a, b float64) bool { return a == b || math.IsNaN(a) && math.IsNaN(b) }
		if got.status != c.status || !same(got.incumbent, c.incumbent) || !same(got.bound, c.bound) {
			t.Errorf("%s: got %+v, want %q, incumbent %v, bound %v", c.name, got, c.status, c.incumbent, c.bound)
		}
	}
	for _, out := range []string{
		"Result - Linear relaxation infeasible\n",
		"Coin0008I model read with 0 errors\n",
		"Result - Stopped on time limit\nNo feasible solution found\n",
	} {
		if _, err := parseCBC([]byte(out)); err == nil {
			t.Errorf("%q parsed without an error", out)
		}
	}
	if _, err := parseCBC([]byte("Welcome to the CBC MILP Solver\n")); !errors.Is(err, errCBCOutput) {
		t.Errorf("no report: %v, want errCBCOutput", err)
	}
}

// fakeCBC puts on PATH (alone) a cbc that records its arguments and the LP
// file's first line, and prints out.
func fakeCBC(t *testing.T, out string) (args string) {
	dir := t.TempDir()
	args = filepath.Join(dir, "args")
	script := "#!/bin/sh\nprintf '%s\\n' \"$@\" > " + args + "\nread -r first < \"$1\"\nprintf '%s\\n' \"$first\" >> " + args +
		"\ncat <<'EOF'\n" + out + "EOF\n"
	if err := os.WriteFile(filepath.Join(dir, "cbc"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+":/usr/bin:/bin")
	return args
}

// runBlock runs one bench block in quick mode (a 20 × 5 swarm) and returns
// what it emitted.
func runBlock(t *testing.T, block func(*bencher) error) []Block {
	t.Helper()
	var got []Block
	b := &bencher{emit: func(bl Block) error { got = append(got, bl); return nil }, particles: 20, iterations: 5, seed: 1, quick: true}
	if err := block(b); err != nil {
		t.Fatal(err)
	}
	return got
}

// TestLPVsCBC: the block runs auto on random-m20-seed1 and gives cbc the
// exported LP with the quick limit (sec 5), and puts cbc's incumbent and
// bound, and its gap 8944.2 ÷ 3968.6 − 1 = 125.38 %, beside ours, whose
// bound lies below its plan.
func TestLPVsCBC(t *testing.T) {
	argsFile := fakeCBC(t, cbcStopped)
	got := runBlock(t, (*bencher).lpVsCBC)
	if len(got) != 2 || !strings.HasPrefix(got[0].Text, "\n6. The exported LP (M = 20") || len(got[1].Rows) != 2 {
		t.Fatalf("blocks %q", got)
	}
	ours, cbc := got[1].Rows[0], got[1].Rows[1]
	if plan, bound := atof(t, ours[2]), atof(t, ours[3]); !strings.HasPrefix(ours[0], "packer auto (swarm 20 × 5, seed 1") || bound <= 0 || bound > plan {
		t.Errorf("our row %q", ours)
	}
	want := []string{"cbc, exported LP, sec 5", "Stopped on time limit", "8944.2", "3968.6", "125.38 %"}
	for i, w := range want {
		if cbc[i] != w {
			t.Errorf("cbc's row %q, column %d: want %q", cbc, i, w)
		}
	}
	args, err := os.ReadFile(argsFile)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(args)), "\n")
	if len(lines) != 5 || !strings.HasSuffix(lines[0], ".lp") || strings.Join(lines[1:4], " ") != "sec 5 solve" || !strings.HasPrefix(lines[4], `\ packer phase model`) {
		t.Errorf("cbc was called with %q", lines)
	}
}

// TestLPVsCBCWithoutCBC: no cbc on PATH gives our row and a line saying
// so; a cbc whose report cannot be read is an error naming it.
func TestLPVsCBCWithoutCBC(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	got := runBlock(t, (*bencher).lpVsCBC)
	if len(got) != 3 || len(got[1].Rows) != 1 || !strings.HasPrefix(got[2].Text, "cbc is not installed") {
		t.Fatalf("blocks %q", got)
	}
	fakeCBC(t, "Result - Problem proven infeasible\n")
	b := &bencher{emit: func(Block) error { return nil }, particles: 20, iterations: 5, seed: 1, quick: true}
	if err := b.lpVsCBC(); err == nil || !strings.Contains(err.Error(), "cbc did not solve the model: Problem proven infeasible") {
		t.Errorf("an infeasible report: %v", err)
	}
}

func atof(t *testing.T, s string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatalf("%q: %v", s, err)
	}
	return v
}
