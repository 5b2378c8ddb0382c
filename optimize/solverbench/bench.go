package solverbench

import (
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/packer-sched/packer/internal/safefile"
	"github.com/packer-sched/packer/model"
	"github.com/packer-sched/packer/optimize"
	"github.com/packer-sched/packer/pso"
	"github.com/packer-sched/packer/workloads"
)

type bencher struct {
	emit       func(Block) error
	particles  int
	iterations int
	seed       uint64
	random     int
	quick      bool
}

// text emits a piece of text, newlines included.
func (b *bencher) text(format string, args ...any) error {
	return b.emit(Block{Text: fmt.Sprintf(format, args...)})
}

// table is a table being filled; render emits it.
type table struct {
	b    *bencher
	head []string
	rows [][]string
}

func (b *bencher) newTable(header ...string) *table { return &table{b: b, head: header} }

// Append adds a row.
func (t *table) Append(row []string) { t.rows = append(t.rows, row) }

// Render emits the table.
func (t *table) Render() error { return t.b.emit(Block{Header: t.head, Rows: t.rows}) }

// Run runs the measurements (Settings.Steps, else all) in order and hands
// the report to emit one block at a time, as each is ready, so that a long
// run shows its progress; it stops at the first error, emit's included.
func Run(set Settings, emit func(Block) error) error {
	if err := set.validate(); err != nil {
		return err
	}
	b := &bencher{emit: emit, particles: set.Particles, iterations: set.Iterations, seed: set.Seed, random: set.Random, quick: set.Quick}
	if b.quick {
		b.particles, b.iterations, b.random = min(b.particles, 100), min(b.iterations, 20), min(b.random, 5)
	}
	if err := b.text("packer bench: %d particles × %d iterations, seed %d, GOMAXPROCS %d, %s/%s\n",
		b.particles, b.iterations, b.seed, runtime.GOMAXPROCS(0), runtime.GOOS, runtime.GOARCH); err != nil {
		return err
	}
	steps := [StepCount]func() error{b.exactVsCBC, b.swarmGaps, b.swarmLarge, b.growth, b.columns, b.lpVsCBC, b.planning}
	for i, step := range steps {
		if len(set.Steps) > 0 && !slices.Contains(set.Steps, i+1) {
			continue
		}
		if err := step(); err != nil {
			return err
		}
	}
	return nil
}

// StepCount is how many measurements Run makes (Settings.Steps).
const StepCount = 7

func (b *bencher) settings() *pso.Settings {
	return &pso.Settings{Particles: b.particles, Iterations: b.iterations, Seed: b.seed}
}

func paperInstance(name string) *model.Problem {
	w, err := workloads.Get(name)
	if err != nil {
		panic(err)
	}
	p, err := model.NewProblem(w, model.PaperCluster())
	if err != nil {
		panic(err)
	}
	return p
}

func randomInstance(seed uint64, m, hosts int) *model.Problem {
	p, err := model.NewProblem(optimize.RandomWorkload(seed, m), model.Cluster{Hosts: hosts}.WithDefaults())
	if err != nil {
		panic(err)
	}
	return p
}

// exactVsCBC times the exact solver and cbc on the same instances.
func (b *bencher) exactVsCBC() error {
	if err := b.text("\n1. Exact solver vs cbc on the exported LP (same instances, one core each)\n"); err != nil {
		return err
	}
	_, cbcErr := exec.LookPath("cbc")
	if cbcErr != nil {
		if err := b.text("cbc is not installed (apt-get install coinor-cbc): its columns are empty\n"); err != nil {
			return err
		}
	}
	type inst struct {
		name string
		p    *model.Problem
	}
	insts := []inst{{"W1 (P=9)", paperInstance("W1")}, {"W2 (P=9)", paperInstance("W2")}, {"W3 (P=9)", paperInstance("W3")}}
	n := 6
	if b.quick {
		n = 1
	}
	for s := 1; s <= n; s++ {
		m := 7 + s%3
		insts = append(insts, inst{fmt.Sprintf("random M=%d seed %d (P=2)", m, s), randomInstance(uint64(s), m, 2)})
	}
	t := b.newTable("instance", "M", "exact optimum", "exact time", "cbc optimum", "cbc time", "cbc / exact")
	var sumEx, sumCBC time.Duration
	for _, in := range insts {
		t0 := time.Now()
		ex, err := optimize.Exact(in.p)
		if err != nil {
			return err
		}
		te := time.Since(t0)
		sumEx += te
		row := []string{in.name, strconv.Itoa(len(in.p.Jobs)), fmt.Sprintf("%.4f", ex.Makespan), te.Round(time.Microsecond).String(), "", "", ""}
		if cbcErr == nil {
			v, tc, err := runCBC(in.p, in.name)
			if err != nil {
				return err
			}
			sumCBC += tc
			row[4], row[5], row[6] = fmt.Sprintf("%.4f", v), tc.Round(time.Millisecond).String(), fmt.Sprintf("%.0f×", tc.Seconds()/te.Seconds())
			if math.Abs(v-ex.Makespan) > 1e-6*ex.Makespan {
				row[4] += " (DIFFERS)"
			}
		}
		t.Append(row)
	}
	if err := t.Render(); err != nil {
		return err
	}
	if cbcErr == nil {
		if err := b.text("total: exact %v, cbc %v, ratio %.0f×\n", sumEx.Round(time.Microsecond), sumCBC.Round(time.Millisecond), sumCBC.Seconds()/sumEx.Seconds()); err != nil {
			return err
		}
	}
	return nil
}

// runCBC writes the LP to a temporary file, solves it with cbc and returns
// the optimum and cbc's wall time (process start included).
func runCBC(p *model.Problem, name string) (float64, time.Duration, error) {
	dir, remove, err := safefile.MkdirTemp("", "packer-bench-")
	if err != nil {
		return 0, 0, err
	}
	defer remove()
	lp, err := writeLP(dir, p, name)
	if err != nil {
		return 0, 0, err
	}
	sol := filepath.Join(dir, "solution.txt")
	out, d, err := execCBC(name, lp, "solve", "solu", sol)
	if err != nil {
		return 0, 0, err
	}
	data, err := os.ReadFile(sol)
	if err != nil {
		return 0, 0, fmt.Errorf("solverbench: cbc on %s wrote no solution: %s", name, lastLine(out))
	}
	m := regexp.MustCompile(`^Optimal - objective value\s+(\S+)`).FindSubmatch(data)
	if m == nil {
		return 0, 0, fmt.Errorf("solverbench: cbc on %s: not optimal: %s", name, lastLine(data))
	}
	v, err := strconv.ParseFloat(string(m[1]), 64)
	return v, d, err
}

// execCBC runs cbc with args and times it; its error names the instance
// and quotes cbc's last line.
func execCBC(name string, args ...string) ([]byte, time.Duration, error) {
	t0 := time.Now()
	out, err := exec.Command("cbc", args...).CombinedOutput()
	d := time.Since(t0)
	if err != nil {
		return out, d, fmt.Errorf("solverbench: cbc on %s: %v: %s", name, err, lastLine(out))
	}
	return out, d, nil
}

func lastLine(b []byte) string {
	s := strings.TrimSpace(string(b))
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	return s
}

// exactAndSwarm solves p exactly and with the swarm, and times the swarm.
func (b *bencher) exactAndSwarm(p *model.Problem) (optimize.ExactResult, optimize.SwarmResult, time.Duration, error) {
	ex, err := optimize.Exact(p)
	if err != nil {
		return ex, optimize.SwarmResult{}, 0, err
	}
	t0 := time.Now()
	sr, err := optimize.Swarm(p, b.settings())
	return ex, sr, time.Since(t0), err
}

// swarmGaps runs the swarm on W1–W6 and on random 8-job workloads and reports
// the gap to the exact optimum.
func (b *bencher) swarmGaps() error {
	if err := b.text("\n2. Swarm (%d × %d, seed %d) against the exact optimum\n", b.particles, b.iterations, b.seed); err != nil {
		return err
	}
	t := b.newTable("workload", "M", "optimum", "pair", "swarm", "gap", "swarm time")
	for _, name := range workloads.Names() {
		p := paperInstance(name)
		ex, sr, d, err := b.exactAndSwarm(p)
		if err != nil {
			return err
		}
		t.Append([]string{name, strconv.Itoa(len(p.Jobs)), fmt.Sprintf("%.2f", ex.Makespan), fmt.Sprintf("%.2f", sr.PairMakespan),
			fmt.Sprintf("%.2f", sr.Makespan), fmt.Sprintf("%.3f %%", gap(sr.Makespan, ex.Makespan)), d.Round(time.Millisecond).String()})
	}
	if err := t.Render(); err != nil {
		return err
	}
	var gaps, pairGaps []float64
	var total time.Duration
	for s := 1; s <= b.random; s++ {
		ex, sr, d, err := b.exactAndSwarm(randomInstance(uint64(s), 8, 9))
		if err != nil {
			return err
		}
		total += d
		gaps = append(gaps, gap(sr.Makespan, ex.Makespan))
		pairGaps = append(pairGaps, gap(sr.PairMakespan, ex.Makespan))
	}
	sort.Float64s(gaps)
	sort.Float64s(pairGaps)
	optimal := sort.SearchFloat64s(gaps, 1e-9)
	if err := b.text("%d random 8-job workloads (seeds 1–%d, 9 hosts): swarm optimal on %d; gap median %.3f %%, 90th percentile %.3f %%, worst %.3f %%, mean %.3f %%; %v per workload\n",
		len(gaps), len(gaps), optimal, quantile(gaps, 0.5), quantile(gaps, 0.9), gaps[len(gaps)-1], mean(gaps), (total / time.Duration(len(gaps))).Round(time.Millisecond)); err != nil {
		return err
	}
	if err := b.text("(the pair scheduler on the same workloads: gap median %.3f %%, worst %.3f %%)\n", quantile(pairGaps, 0.5), pairGaps[len(pairGaps)-1]); err != nil {
		return err
	}
	t = b.newTable("gap", "workloads")
	uppers := []float64{0, 0.5, 1, 2, 3, 5, math.Inf(1)}
	labels := []string{"0 (optimal)", "(0, 0.5] %", "(0.5, 1] %", "(1, 2] %", "(2, 3] %", "(3, 5] %", "> 5 %"}
	counts := make([]int, len(uppers))
	for _, g := range gaps {
		if g < 1e-9 {
			counts[0]++
			continue
		}
		for i := 1; i < len(uppers); i++ {
			if g <= uppers[i] {
				counts[i]++
				break
			}
		}
	}
	for i, l := range labels {
		t.Append([]string{l, strconv.Itoa(counts[i])})
	}
	return t.Render()
}

// swarmLarge times the swarm where the exact solver cannot go and judges it
// by the lower bound.
func (b *bencher) swarmLarge() error {
	if err := b.text("\n3. Swarm (%d × %d) on W3 and large random workloads (9 hosts), judged by the lower bound\n", b.particles, b.iterations); err != nil {
		return err
	}
	t := b.newTable("workload", "M", "pair", "swarm", "lower bound", "gap to bound", "swarm time")
	type inst struct {
		name string
		p    *model.Problem
	}
	insts := []inst{{"W3", paperInstance("W3")}, {"random M=30 seed 1", randomInstance(1, 30, 9)}, {"random M=50 seed 1", randomInstance(1, 50, 9)}}
	for _, in := range insts {
		t0 := time.Now()
		sr, err := optimize.Swarm(in.p, b.settings())
		if err != nil {
			return err
		}
		d := time.Since(t0)
		lb := optimize.LowerBound(in.p)
		t.Append([]string{in.name, strconv.Itoa(len(in.p.Jobs)), fmt.Sprintf("%.1f", sr.PairMakespan), fmt.Sprintf("%.1f", sr.Makespan),
			fmt.Sprintf("%.1f", lb), fmt.Sprintf("%.1f %%", gap(sr.Makespan, lb)), d.Round(time.Millisecond).String()})
	}
	return t.Render()
}

// growth measures how time grows with M, particles and cores.
func (b *bencher) growth() error {
	if err := b.text("\n4. Growth of time\n"); err != nil {
		return err
	}
	ms := []int{8, 10, 12, 14, 16, 18}
	if b.quick {
		ms = []int{8, 10}
	}
	t := b.newTable("M", "exact time", "swarm time (same settings)")
	for _, m := range ms {
		p := randomInstance(1, m, 9)
		t0 := time.Now()
		if _, err := optimize.Exact(p); err != nil {
			return err
		}
		te := time.Since(t0)
		t0 = time.Now()
		if _, err := optimize.Swarm(p, b.settings()); err != nil {
			return err
		}
		t.Append([]string{strconv.Itoa(m), te.Round(time.Microsecond).String(), time.Since(t0).Round(time.Millisecond).String()})
	}
	for _, m := range []int{30, 50} {
		p := randomInstance(1, m, 9)
		t0 := time.Now()
		if _, err := optimize.Swarm(p, b.settings()); err != nil {
			return err
		}
		t.Append([]string{strconv.Itoa(m), "(over the limit)", time.Since(t0).Round(time.Millisecond).String()})
	}
	if err := t.Render(); err != nil {
		return err
	}
	p := randomInstance(1, 30, 9)
	t = b.newTable("particles (M=30)", "swarm time")
	for _, n := range []int{b.particles / 10, b.particles / 3, b.particles} {
		n = max(n, 1)
		t0 := time.Now()
		if _, err := optimize.Swarm(p, &pso.Settings{Particles: n, Iterations: b.iterations, Seed: b.seed}); err != nil {
			return err
		}
		t.Append([]string{strconv.Itoa(n), time.Since(t0).Round(time.Millisecond).String()})
	}
	if err := t.Render(); err != nil {
		return err
	}
	t = b.newTable("cores (GOMAXPROCS, M=30)", "swarm time", "speed-up", "same plan")
	var base time.Duration
	var first string // the schedule itself: equal makespans could hide different plans
	for _, procs := range []int{1, 2, 4} {
		if procs > runtime.NumCPU() {
			break
		}
		old := runtime.GOMAXPROCS(procs)
		t0 := time.Now()
		sr, err := optimize.Swarm(p, b.settings())
		d := time.Since(t0)
		runtime.GOMAXPROCS(old)
		if err != nil {
			return err
		}
		if procs == 1 {
			base, first = d, fmt.Sprint(sr.Schedule)
		}
		t.Append([]string{strconv.Itoa(procs), d.Round(time.Millisecond).String(), fmt.Sprintf("%.2f×", base.Seconds()/d.Seconds()), strconv.FormatBool(fmt.Sprint(sr.Schedule) == first)})
	}
	return t.Render()
}

func gap(x, ref float64) float64 { return 100 * (x - ref) / ref }

func quantile(sorted []float64, q float64) float64 {
	if len(sorted) == 0 {
		return math.NaN()
	}
	i := q * float64(len(sorted)-1)
	lo := int(math.Floor(i))
	hi := min(lo+1, len(sorted)-1)
	return sorted[lo] + (i-float64(lo))*(sorted[hi]-sorted[lo])
}

func mean(xs []float64) float64 {
	var s float64
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}
