// Package solverbench measures the phase optimizers of package optimize: the
// exact solver against cbc on the exported LP, the swarm's gap to the exact
// optimum on the built-in and on random workloads, the swarm where the exact
// solver cannot go (judged by LowerBound), how time grows with the job
// count, the swarm size and the cores, column generation's certified gaps
// (plan against its proven bound) beside the swarm, cbc given the exported
// 20-job LP for 120 s (its incumbent and bound beside auto's), and auto as
// `packer plan` runs it on the instances of the planning acceptance, at the
// default time limit and, where that is shorter, at 60 s.
//
// Unlike optimize itself it reads the clock and runs a process (cbc, when it
// is installed): it is the harness around the pure solvers, kept out of them.
// Run hands its report out block by block (text, or a table's header and
// rows); `packer bench` renders the blocks.
package solverbench

import "fmt"

// Settings configure Run. The zero value is valid: the packing paper's swarm
// (1500 particles × 200 iterations), seed 0, 50 random workloads.
type Settings struct {
	// Particles and Iterations size the swarm; 0 means 1500 and 200.
	Particles, Iterations int
	// Seed is the swarm's random seed.
	Seed uint64
	// Random is how many random 8-job workloads (seeds 1..Random) the gap
	// statistics cover; 0 means 50.
	Random int
	// Quick cuts every count and the swarm (to at most 100 × 20, 5 random
	// workloads): a smoke test of the harness, not numbers to quote.
	Quick bool
	// Steps are the measurements to run, 1 to StepCount as the report
	// numbers them; none runs them all. Step 7 alone (auto at two limits
	// on 25 instances) takes about half an hour, the others hours. Step 7
	// runs `packer plan`'s own swarm settings: Particles, Iterations, Seed
	// and Quick's cap of them apply to steps 1–6.
	Steps []int
}

// validate fills defaults and rejects negative counts and unknown steps,
// naming the field.
func (s *Settings) validate() error {
	for _, f := range []struct {
		name string
		v    *int
		def  int
	}{{"Particles", &s.Particles, 1500}, {"Iterations", &s.Iterations, 200}, {"Random", &s.Random, 50}} {
		switch {
		case *f.v < 0:
			return fmt.Errorf("solverbench: settings: %s must be at least 1, got %d", f.name, *f.v)
		case *f.v == 0:
			*f.v = f.def
		}
	}
	for _, n := range s.Steps {
		if n < 1 || n > StepCount {
			return fmt.Errorf("solverbench: settings: Steps: no step %d, the steps are 1 to %d", n, StepCount)
		}
	}
	return nil
}

// Block is one piece of the report: Text, printed as it is (newlines
// included), or, when Header is not nil, a table.
type Block struct {
	Text   string
	Header []string
	Rows   [][]string
}
