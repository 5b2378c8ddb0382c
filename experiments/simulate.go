package experiments

import (
	"strconv"
	"strings"

	"github.com/packer-sched/packer/sim"
)

// runPolicies runs every policy on w from the same random seed and returns
// the results, slowdowns filled in from the jobs' alone times when alone is
// true.
func runPolicies(w *sim.Workload, seed uint64, alone bool, ps ...sim.Policy) ([]*sim.Result, error) {
	return runPoliciesWith(w, &sim.Settings{Seed: seed}, alone, ps...)
}

// runPoliciesWith is runPolicies with settings of one's own.
func runPoliciesWith(w *sim.Workload, set *sim.Settings, alone bool, ps ...sim.Policy) ([]*sim.Result, error) {
	var a []float64
	if alone {
		var err error
		if a, err = sim.Alone(w, set); err != nil {
			return nil, err
		}
	}
	out := make([]*sim.Result, len(ps))
	for i, p := range ps {
		r, err := sim.Run(w, p, set)
		if err != nil {
			return nil, err
		}
		if alone {
			r.Summarize(a)
		}
		out[i] = r
	}
	return out, nil
}

// meanResponse is the mean response time of the jobs keep accepts, 0 for
// none.
func meanResponse(r *sim.Result, keep func(sim.JobResult) bool) float64 {
	var sum float64
	n := 0
	for _, j := range r.Jobs {
		if keep(j) {
			sum += j.Response
			n++
		}
	}
	if n == 0 {
		return 0
	}
	return sum / float64(n)
}

// queueOf is the 0-based index of queue "qN".
func queueOf(user string) int {
	n, _ := strconv.Atoi(strings.TrimPrefix(user, "q"))
	return n - 1
}

// busyTracer records every task attempt's span: start to end or kill.
type busyTracer struct {
	reduce []bool // by task id: the simulator numbers tasks job by job, maps first
	start  map[int]float64
	spans  []span
}

var _ sim.Tracer = (*busyTracer)(nil)

// span is one task attempt's time on a slot.
type span struct {
	start, end float64
	job        int
	kind       sim.Kind
}

func newBusyTracer(w *sim.Workload) *busyTracer {
	b := &busyTracer{start: map[int]float64{}}
	for _, j := range w.Jobs {
		for range j.Maps.N() {
			b.reduce = append(b.reduce, false)
		}
		for range j.Reduces.N() {
			b.reduce = append(b.reduce, true)
		}
	}
	return b
}

// Event records a span at a task's end or kill.
func (b *busyTracer) Event(e sim.TraceEvent) {
	switch e.Kind {
	case sim.TraceStart:
		b.start[e.Task] = e.Time
	case sim.TraceEnd, sim.TraceKill:
		kind := sim.Map
		if b.reduce[e.Task] {
			kind = sim.Reduce
		}
		b.spans = append(b.spans, span{b.start[e.Task], e.Time, e.Job, kind})
	}
}
