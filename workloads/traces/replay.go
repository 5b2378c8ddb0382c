package traces

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/packer-sched/packer/model"
	"github.com/packer-sched/packer/profile"
	"github.com/packer-sched/packer/sim"
)

// ReplayTable compares a simulated run of a Rumen import with what really
// happened, one row per job: tasks, real response (submit to finish), the
// real wait before its first task started, simulated response, and the
// relative error (simulated − real) ÷ real. It returns the table and the
// median and worst absolute relative error.
func ReplayTable(im *Imported, res *sim.Result) (table string, median, worst float64) {
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "job\tmaps\treduces\treal s\treal wait s\tsimulated s\terror\t")
	var errs []float64
	for i, j := range im.Workload.Jobs {
		if i >= len(im.Real) || i >= len(res.Jobs) {
			break
		}
		r := im.Real[i]
		real, got := r.Response(), res.Jobs[i].Response
		e := math.NaN()
		if real > 0 {
			e = (got - real) / real
			errs = append(errs, math.Abs(e))
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%.1f\t%.1f\t%.1f\t%+.1f %%\t\n", j.Name, j.Maps.N(), j.Reduces.N(), real, r.Start-r.Submit, got, 100*e)
	}
	tw.Flush()
	if len(errs) == 0 {
		return b.String(), math.NaN(), math.NaN()
	}
	slices.Sort(errs)
	n := len(errs)
	median = errs[n/2]
	if n%2 == 0 {
		median = (errs[n/2-1] + errs[n/2]) / 2
	}
	return b.String(), median, errs[n-1]
}

// AloneObservations replays job j by itself, with its own task durations,
// on a cluster of n nodes for every n of nodes (each node with the slots of
// c, one rack, no locality: the trace's replica hosts do not exist on a
// small cluster), and returns one observation per node count: the simulated
// runtime, the I/O rate real.Bytes ÷ runtime, and, when the trace has CPU
// counters, the CPU utilisation real.CPUSeconds ÷ (runtime × n × map slots),
// a map slot standing for a core as Hadoop 1 sized them. These feed
// profile.Analyze like measured runs.
func AloneObservations(j sim.Job, real RealJob, nodes []int, c sim.Cluster) ([]model.Observation, error) {
	c = c.WithDefaults()
	if err := CheckReplayNodes(nodes, c); err != nil {
		return nil, err
	}
	j.Arrival, j.Blocks, j.NoInput = 0, nil, true
	var obs []model.Observation
	for _, n := range nodes {
		res, err := sim.Run(&sim.Workload{Name: j.Name, Cluster: replayCluster(n, c), Jobs: []sim.Job{j}}, &sim.FIFO{}, nil)
		if err != nil {
			return nil, fmt.Errorf("traces: job %s on %d nodes: %w", j.Name, n, err)
		}
		o := model.Observation{Nodes: n, Seconds: res.Makespan}
		if res.Makespan > 0 {
			io := float64(real.Bytes) / 1e6 / res.Makespan
			o.IOMBps = &io
			if real.CPUSeconds >= 0 {
				cpu := min(1, real.CPUSeconds/(res.Makespan*float64(n*c.MapSlots)))
				o.CPUUtil = &cpu
			}
		}
		obs = append(obs, o)
	}
	return obs, nil
}

// replayCluster is the cluster a job is replayed alone on: one rack of n
// nodes with c's slots.
func replayCluster(n int, c sim.Cluster) sim.Cluster {
	return sim.Cluster{Nodes: n, Racks: 1, MapSlots: c.MapSlots, ReduceSlots: c.ReduceSlots, Replication: min(3, n)}
}

// CheckReplayNodes checks, before any replay, that every node count of
// nodes makes a cluster the simulator runs with c's slots per node: a
// count past its limits is refused at once rather than after the jobs
// before it were replayed.
func CheckReplayNodes(nodes []int, c sim.Cluster) error {
	c = c.WithDefaults()
	for _, n := range nodes {
		if n < 1 {
			return fmt.Errorf("node count must be at least 1, got %d", n)
		}
		if err := replayCluster(n, c).Validate(); err != nil {
			return fmt.Errorf("node count %d: %w", n, err)
		}
	}
	return nil
}

// FitReplays fits a runtime model to each real job of a Rumen import: the
// job's own task durations are replayed alone at every node count of nodes
// (AloneObservations), and the runtimes fitted and classified as measured
// runs are (profile.Analyze). It returns the workload of the fitted jobs,
// named name or, when name is empty, after the import, and each job's
// Result in the same order. A job that cannot be fitted is a
// *model.InputError naming the trace and the job.
func FitReplays(im *Imported, nodes []int, name string, set *profile.Settings) (*model.Workload, []*profile.Result, error) {
	if name == "" {
		name = im.Workload.Name
	}
	ns := make([]string, len(nodes))
	for i, n := range nodes {
		ns[i] = fmt.Sprint(n)
	}
	cl, source := im.Workload.Cluster, im.Meta.Source
	w := &model.Workload{Name: name, Description: fmt.Sprintf("fitted by packer fit --rumen from %s: each real job's task durations replayed alone on %s nodes (%d map, %d reduce slots each)",
		source, strings.Join(ns, ", "), cl.MapSlots, cl.ReduceSlots)}
	var results []*profile.Result
	for i, j := range im.Workload.Jobs {
		obs, err := AloneObservations(j, im.Real[i], nodes, cl)
		if err != nil {
			return nil, nil, err
		}
		res, err := profile.Analyze(j.Name, obs, set)
		if err != nil {
			return nil, nil, &model.InputError{File: source, Err: fmt.Errorf("job %s: %w", j.Name, err)}
		}
		user := ""
		if j.User != "" {
			user = " by " + j.User
		}
		res.Job.Description = fmt.Sprintf("real job%s: %d maps, %d reduces, %.0f s in the trace", user, j.Maps.N(), j.Reduces.N(), im.Real[i].Response())
		results = append(results, res)
		w.Jobs = append(w.Jobs, res.Job)
	}
	return w, results, nil
}
