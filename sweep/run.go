package sweep

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/packer-sched/packer/model"
	"github.com/packer-sched/packer/optimize"
	"github.com/packer-sched/packer/plan"
	"github.com/packer-sched/packer/sim"
	"github.com/packer-sched/packer/workloads"
	"github.com/packer-sched/packer/workloads/traces"
)

// Sweep is a parsed sweep file with its workloads found: what every
// shard of it runs from.
type Sweep struct {
	*File
	// Path is the sweep file as given.
	Path string
	// Digest names the sweep's content: the file's settings and every
	// workload file's bytes (by the names it lists, so that a copy of the
	// directory elsewhere has the same digest). Shard files of one sweep
	// carry it; merge joins only files that agree.
	Digest string
	// MaxMemory, in bytes, is the simulator's limit for each run (0: none).
	MaxMemory int64
	points    []Point
	paths     map[string]string // workload as listed → what to open
	sizes     map[string]int64  // workload as listed → its file's bytes (0: a built-in)
	// current is the one workload kept loaded: points are in workload
	// order, so a shard loads each of its workloads once and holds one
	// at a time, however many the sweep lists.
	current *input
	costs   []cost // per point, once estimated
}

// input is one workload, loaded for its points.
type input struct {
	name  string
	tasks *sim.Workload   // a simulation workload file's
	jobs  *model.Workload // a packer workload's (built-in, file or random-mM-seedS)
}

// Load reads the sweep file at path, checks it (Parse), hashes every
// workload file it names (relative to the file's directory) into the
// digest, and loads and checks the workloads of shard sh's points (All:
// every one), so that bad input is refused before any run. Errors are
// *InputError, naming the file and field.
func Load(path string, sh Shard) (*Sweep, error) {
	data, err := model.ReadFileLimit(path, MaxFileBytes, "a sweep file")
	if err != nil {
		return nil, &InputError{File: path, Reason: readReason(err)}
	}
	f, err := Parse(data, path)
	if err != nil {
		return nil, err
	}
	s := &Sweep{File: f, Path: path, points: f.Points(), paths: map[string]string{}, sizes: map[string]int64{}}
	canon, _ := json.Marshal(f)
	h := sha256.New()
	h.Write(canon)
	for _, name := range f.Workloads {
		sum := s.find(filepath.Dir(path), name)
		fmt.Fprintf(h, "\n%s %s", name, sum)
	}
	s.Digest = hex.EncodeToString(h.Sum(nil))[:16]
	for _, p := range sh.Select(s.points) {
		if _, err := s.workload(p.Workload); err != nil {
			return nil, err
		}
		if err := s.checkPlan(p); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// Points are the sweep's points in order.
func (s *Sweep) Points() []Point { return s.points }

// find resolves a workload: a file relative to dir if there is one, else
// the name as the command line takes it. It returns the file's SHA-256, or
// the built-in's name.
func (s *Sweep) find(dir, name string) string {
	path := name
	if !filepath.IsAbs(name) {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			path = filepath.Join(dir, name)
		}
	}
	s.paths[name] = path
	if data, err := model.ReadFileLimit(path, model.MaxWorkloadBytes, "a workload file"); err == nil {
		b := sha256.Sum256(data)
		s.sizes[name] = int64(len(data))
		return hex.EncodeToString(b[:])
	}
	return "built-in " + name
}

// workload loads a workload, dropping the one loaded before.
func (s *Sweep) workload(name string) (*input, error) {
	if s.current != nil && s.current.name == name {
		return s.current, nil
	}
	s.current = nil // let it go before the next is read
	in, err := s.open(name)
	if err != nil {
		return nil, &InputError{File: s.Path, Field: fmt.Sprintf("workloads[%d]", slices.Index(s.Workloads, name)),
			Value: fmt.Sprintf("%q", name), Reason: oneLine(err.Error())}
	}
	s.current = in
	return in, nil
}

func (s *Sweep) open(name string) (in *input, err error) {
	in = &input{name: name}
	if s.Run == Plan {
		var ok bool
		if in.jobs, ok, err = optimize.RandomByName(name); ok {
			return in, err
		}
		in.jobs, _, err = workloads.Open(s.paths[name], nil)
		return in, err
	}
	in.tasks, in.jobs, _, err = traces.OpenForSimulation(s.paths[name], nil)
	return in, err
}

// checkPlan refuses, before any run, a plan point whose problem the
// options make invalid. An algorithm that cannot take a problem's size
// (exact past its limit) is no error: its points record why in their lines.
func (s *Sweep) checkPlan(p Point) error {
	if s.Run != Plan {
		return nil
	}
	if _, err := model.NewProblem(s.current.jobs, p.Options.planCluster(p.Size)); err != nil {
		return &InputError{File: s.Path, Field: fmt.Sprintf("workloads[%d]", slices.Index(s.Workloads, p.Workload)), Value: fmt.Sprintf("%q", p.Workload),
			Reason: fmt.Sprintf("with hosts %d and options %s: %s", p.Size, p.Options.Name, oneLine(err.Error()))}
	}
	return nil
}

// ErrPointFailed marks a point that could not run here for a reason of
// this machine, not of the point (the memory limit): its shard stops, and
// merge names the point missing; rerun the shard where it fits.
var ErrPointFailed = errors.New("point failed")

// RunPoint runs one point and returns its result line (no newline). A
// failure that the point alone decides (a stalled run, an algorithm that
// refuses the problem's size) is recorded in the line's error field, so
// that every shard records it alike; one that depends on the machine
// wraps ErrPointFailed.
func (s *Sweep) RunPoint(p Point) ([]byte, error) {
	l := Line{Index: p.Index, ID: p.ID, Run: s.Run, Workload: p.Workload, Seed: p.Seed, Options: p.Options.Name}
	// The size recorded is the one the run used: a sweep that lists no
	// sizes runs each workload on its own cluster, or plans on the
	// packing paper's hosts, and says how many.
	size := p.Size
	var err error
	if s.Run == Plan {
		size = p.Options.planCluster(p.Size).Hosts
		l.Hosts, l.Algorithm = &size, p.Policy
		l.Plan, err = s.planPoint(p)
	} else {
		l.Nodes, l.Policy = &size, p.Policy
		var w *sim.Workload
		if w, err = s.simulateWorkload(p); err == nil {
			size = w.Cluster.WithDefaults().Nodes
			l.Simulate, err = s.simulatePoint(p, w)
		}
	}
	var ie *InputError
	if errors.As(err, &ie) {
		return nil, err // a workload Load did not check (another shard's)
	} else if errors.Is(err, sim.ErrTooBig) {
		return nil, fmt.Errorf("%w: point %d (%s): %w", ErrPointFailed, p.Index, p.ID, err)
	} else if err != nil {
		l.Error = oneLine(err.Error())
	}
	return json.Marshal(l)
}

// simulateWorkload is the point's workload on its cluster.
func (s *Sweep) simulateWorkload(p Point) (*sim.Workload, error) {
	in, err := s.workload(p.Workload)
	if err != nil {
		return nil, err
	}
	var w *sim.Workload
	if in.tasks != nil {
		c := *in.tasks
		c.Cluster = overlay(c.Cluster, p.Options.cluster(p.Size))
		if err := c.Validate(); err != nil {
			return nil, err
		}
		w = &c
	} else if w, err = sim.FromModel(in.jobs, p.Options.cluster(p.Size), p.Options.waves()); err != nil {
		return nil, err
	}
	return w, nil
}

// simulatePoint runs the point's policy on w, as packer simulate -p POLICY
// would (sim.Compare: the run and the jobs' alone times for slowdowns).
func (s *Sweep) simulatePoint(p Point, w *sim.Workload) (*SimMetrics, error) {
	entries, err := sim.ParsePolicies([]string{p.Policy}, p.Options.policyOptions())
	if err != nil {
		return nil, err
	}
	set := p.Options.settings(p.Seed)
	set.MaxMemory = s.MaxMemory
	runs, err := sim.Compare(&sim.Comparison{Workload: w, Entries: entries, Settings: set})
	if err != nil {
		return nil, err
	}
	return simMetrics(w, runs[0].Result), nil
}

// overlay sets the fields of over that are not zero on c.
func overlay(c, over sim.Cluster) sim.Cluster {
	for _, f := range []struct {
		dst *int
		v   int
	}{{&c.Nodes, over.Nodes}, {&c.Racks, over.Racks},
		{&c.MapSlots, over.MapSlots}, {&c.ReduceSlots, over.ReduceSlots}, {&c.Replication, over.Replication}} {
		if f.v != 0 {
			*f.dst = f.v
		}
	}
	return c
}

// planPoint plans the point's workload with its algorithm, as packer plan
// -a ALGORITHM --time-limit 0 would (optimize.Solve, plan.New): the same
// plan for the same seed. An option set's time limit makes the plan
// depend on the machine, as --time-limit does; the point then also keeps
// no time back for placing the plan, and its swarm runs on one goroutine
// (a batch task's shards share the cores), so it may end elsewhere than
// packer plan's under the same limit.
func (s *Sweep) planPoint(p Point) (*PlanMetrics, error) {
	method, _ := optimize.ParseMethod(p.Policy) // checked by Parse
	in, err := s.workload(p.Workload)
	if err != nil {
		return nil, err
	}
	jobs := in.jobs
	prob, err := model.NewProblem(jobs, p.Options.planCluster(p.Size))
	if err != nil {
		return nil, err
	}
	if err := optimize.Accepts(method, prob); err != nil {
		return nil, err
	}
	res, err := optimize.Solve(prob, method, p.Options.solverSettings(p.Seed))
	if err != nil {
		return nil, err
	}
	pl, err := plan.New(prob, jobs.Name, res.Solution)
	if err != nil {
		return nil, err
	}
	return planMetrics(pl, string(res.Method)), nil
}

// Describe names a point for people: its coordinates.
func (p Point) Describe(run string) string {
	what := map[string]string{Simulate: "nodes", Plan: "hosts"}[run]
	return strings.Join([]string{p.Workload, fmt.Sprintf("%s %d", what, p.Size), p.Policy, fmt.Sprintf("seed %d", p.Seed), p.Options.Name}, ", ")
}

// readReason is the reason a read of a named file failed, without the file's
// name (the InputError adds it): "no such file or directory", or "too large:
// a sweep file may be at most 1 MiB".
func readReason(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return oneLine(pe.Err.Error())
	}
	var ie *model.InputError
	if errors.As(err, &ie) {
		return oneLine(ie.Err.Error())
	}
	return oneLine(err.Error())
}
