package solverbench

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"time"

	"github.com/packer-sched/packer/internal/safefile"
	"github.com/packer-sched/packer/model"
	"github.com/packer-sched/packer/optimize"
)

// cbcLimit is the time limit cbc gets on the exported 20-job LP: long
// enough that its branch-and-cut is well under way, the measurement the
// comparison asks for.
const cbcLimit = 120 * time.Second

// cbcLimit is cbcLimit, or 5 s for a quick run.
func (b *bencher) cbcLimit() time.Duration {
	if b.quick {
		return 5 * time.Second
	}
	return cbcLimit
}

// cbcRun is what cbc reports at its end: how it stopped, its incumbent
// (NaN when it found none) and its best possible value, a proven bound.
type cbcRun struct {
	status           string
	incumbent, bound float64
}

// cbcResult, cbcObjective and cbcBound find cbc's closing report, for
// example
//
//	Result - Stopped on time limit
//	Objective value:                6010.6
//	Lower bound:                    4236.3
//
// cbcBestPossible finds the progress lines' "best possible 4236.3", the
// bound when the report has no "Lower bound" line (an optimum has none; an
// older cbc may print none).
var (
	cbcResult       = regexp.MustCompile(`(?m)^Result - (.+?)\s*$`)
	cbcObjective    = regexp.MustCompile(`(?m)^Objective value:\s+(\S+)`)
	cbcBound        = regexp.MustCompile(`(?m)^Lower bound:\s+(\S+)`)
	cbcBestPossible = regexp.MustCompile(`best possible ([-+0-9.eE]+)`)
)

// errCBCOutput is wrapped when cbc's output lacks what parseCBC needs.
var errCBCOutput = errors.New("cbc's output not understood")

// parseCBC reads cbc's report. An optimum is its own bound; a run stopped
// early (time limit, or interrupted) gives its incumbent, if any, and its
// best possible value; anything else (infeasible, unbounded, no report) is
// an error quoting cbc's last line.
func parseCBC(out []byte) (cbcRun, error) {
	m := cbcResult.FindSubmatch(out)
	if m == nil {
		return cbcRun{}, fmt.Errorf("solverbench: %w: no \"Result - \" line: %s", errCBCOutput, lastLine(out))
	}
	run := cbcRun{status: string(m[1]), incumbent: math.NaN(), bound: math.NaN()}
	num := func(re *regexp.Regexp, all bool) (float64, bool) {
		var m [][]byte
		if all {
			ms := re.FindAllSubmatch(out, -1)
			if len(ms) == 0 {
				return 0, false
			}
			m = ms[len(ms)-1]
		} else if m = re.FindSubmatch(out); m == nil {
			return 0, false
		}
		v, err := strconv.ParseFloat(string(m[1]), 64)
		return v, err == nil
	}
	if v, ok := num(cbcObjective, false); ok {
		run.incumbent = v
	}
	switch {
	case run.status == "Optimal solution found" && !math.IsNaN(run.incumbent):
		run.bound = run.incumbent
	case run.status == "Optimal solution found":
		return cbcRun{}, fmt.Errorf("solverbench: %w: an optimum without an objective value", errCBCOutput)
	case run.status != "Stopped on time limit" && run.status != "Stopped on ctrl-c" && run.status != "Stopped on iterations or time":
		return cbcRun{}, fmt.Errorf("solverbench: cbc did not solve the model: %s", run.status)
	}
	if math.IsNaN(run.bound) {
		if v, ok := num(cbcBound, false); ok {
			run.bound = v
		} else if v, ok := num(cbcBestPossible, true); ok {
			run.bound = v
		} else {
			return cbcRun{}, fmt.Errorf("solverbench: %w: %s, and no bound", errCBCOutput, run.status)
		}
	}
	return run, nil
}

// writeLP exports p's phase model (optimize.WriteLP) to dir/model.lp.
func writeLP(dir string, p *model.Problem, name string) (string, error) {
	var buf bytes.Buffer
	if err := optimize.WriteLP(&buf, p, name); err != nil {
		return "", err
	}
	path := filepath.Join(dir, "model.lp")
	return path, os.WriteFile(path, buf.Bytes(), 0o644)
}

// runCBCFor gives the LP at path to cbc with a limit on its CPU time (cbc's
// "sec"; on a loaded machine its wall time is longer) and parses its
// report; it returns cbc's wall time too.
func runCBCFor(path string, limit time.Duration) (cbcRun, time.Duration, error) {
	out, d, err := execCBC(path, path, "sec", strconv.Itoa(int(limit.Seconds())), "solve")
	if err != nil {
		return cbcRun{}, d, err
	}
	run, err := parseCBC(out)
	return run, d, err
}

// lpVsCBC sets column generation beside cbc on the same 20-job instance:
// ours is what `packer plan -w random-m20-seed1 --time-limit 0` runs (auto,
// the bench's swarm), cbc gets the exported LP (`--export-lp`) for
// cbcLimit. Each gives a plan and a proven bound.
func (b *bencher) lpVsCBC() error {
	limit := b.cbcLimit()
	if err := b.text("\n6. The exported LP (M = 20, random-m20-seed1, 9 hosts) given to cbc for %v of CPU (its sec limit), beside auto with no time limit\n", limit); err != nil {
		return err
	}
	p := randomInstance(1, 20, 9)
	t0 := time.Now()
	res, err := optimize.Solve(p, optimize.MethodAuto, &optimize.Settings{Swarm: b.settings()})
	if err != nil {
		return err
	}
	took, ms := time.Since(t0), p.Makespan(res.Schedule)
	t := b.newTable("solver", "how it ended", "plan", "proven bound", "gap", "time")
	t.Append([]string{fmt.Sprintf("packer auto (swarm %d × %d, seed %d; columns)", b.particles, b.iterations, b.seed), "finished",
		fmt.Sprintf("%.1f", ms), fmt.Sprintf("%.1f", *res.LowerBound), fmt.Sprintf("%.2f %%", gap(ms, *res.LowerBound)), took.Round(time.Millisecond).String()})
	if _, err := exec.LookPath("cbc"); err != nil {
		if err := t.Render(); err != nil {
			return err
		}
		return b.text("cbc is not installed (apt-get install coinor-cbc): no row for it\n")
	}
	dir, remove, err := safefile.MkdirTemp("", "packer-bench-")
	if err != nil {
		return err
	}
	defer remove()
	path, err := writeLP(dir, p, "random-m20-seed1")
	if err != nil {
		return err
	}
	run, d, err := runCBCFor(path, limit)
	if err != nil {
		return err
	}
	plan, g := "none found", "–"
	if !math.IsNaN(run.incumbent) {
		plan, g = fmt.Sprintf("%.1f", run.incumbent), fmt.Sprintf("%.2f %%", gap(run.incumbent, run.bound))
	}
	t.Append([]string{fmt.Sprintf("cbc, exported LP, sec %d", int(limit.Seconds())), run.status, plan, fmt.Sprintf("%.1f", run.bound), g, d.Round(time.Millisecond).String()})
	return t.Render()
}
