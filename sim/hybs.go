package sim

import (
	"cmp"
	"fmt"
	"math"
	"slices"
)

// HybS is the hybrid dynamic-priority scheduler of Nguyen et al. (the HybS paper, UCC 2012) (section II). At every
// scheduling point (a node offering free slots) each job with unscheduled
// tasks gets the priority of HybSPriority, from its waiting time, its mean map
// run time and its number of unscheduled tasks relative to the averages over
// those jobs; jobs are taken in descending priority (ties to the earlier job),
// only the first Window of them. A job may hold at most A_i = ⌈F_i·s_i⌉ slots
// of a kind, F_i its tasks of that kind not yet done and s_i its service
// level, so the job first in line always may have one. The paper's Fig. 2:
// node- and rack-local tasks are given first, greedily down the line (the
// fractional knapsack); only when no job in the window has one is a non-local
// task given, to the first job that can take it. Reduce tasks read no block
// and so count as local.
//
// The paper allows one non-local task per heartbeat. With Settings.Heartbeat
// = 0 a slot left free would only be offered again at the node's next task
// end, so by default every free slot is filled (NonLocalPerOffer = 0); set it
// to 1 for the paper's rule.
type HybS struct {
	// Alpha, Beta, Gamma and Delta are the exponents of eq. 1 and of the user
	// weight u^δ (u = the job's Priority + 3, so Hadoop's levels −2..2 are
	// 1..5). The zero value is no preference at all: every job priority 1.
	Alpha, Beta, Gamma, Delta float64
	// Window is W, how many jobs by priority are considered; 0 is all.
	Window int
	// ServiceLevel is s_i for every job, in (0, 1]; 0 is 1.
	ServiceLevel float64
	// Levels overrides ServiceLevel for jobs by name.
	Levels map[string]float64
	// Waited adds, by job name, seconds a job had already waited when it was
	// submitted to t_d (the paper's workload files carry a wait time).
	Waited map[string]float64
	// Online estimates a job's mean map time from its own completed maps (the
	// seed's online profiler) instead of the workload's durations (its
	// history logs); before a job has completed one, the mean of the other
	// jobs' estimates stands in, or 1 s.
	Online bool
	// NonLocalPerOffer limits non-local map tasks per offer; 0 is no limit.
	NonLocalPerOffer int
	// WaitSinceServed counts t_d from the job's last task launch or end
	// (from its submission before either) instead of from its submission:
	// the time it has been waiting in the queue for a slot. With it α acts
	// strongly, as a round robin: on the HybS paper's experiment 1 (seeds
	// 1–3) α = 1 raises the mean response time from 2176, 2079 and 1907 s to
	// 3230, 3192 and 2954 s. From submission, as by default, α barely acts:
	// the jobs are submitted within 20 s and respond in about 2000 s, so
	// t_d/avgWait stays within a few per cent of 1 while the run-time and
	// task-count factors span two orders of magnitude (2176 → 2184, 2079 →
	// 2079, 1907 → 1909 s): the paper's Figure 3, where α = 1 is faster,
	// follows from eq. 1 under neither reading.
	WaitSinceServed bool
	// Label replaces the name in results.
	Label string

	active   []int32
	order    []int32
	prio     []float64
	sumDone  []float64
	nDone    []int32
	served   []float64 // time of each job's last task launch, −1 before
	nonLocal int
}

var (
	_ Policy          = (*HybS)(nil)
	_ Starter         = (*HybS)(nil)
	_ ArrivalObserver = (*HybS)(nil)
	_ FinishObserver  = (*HybS)(nil)
	_ TaskObserver    = (*HybS)(nil)
	_ OfferObserver   = (*HybS)(nil)
)

// Name is Label, or "hybs(α,β,γ)".
func (h *HybS) Name() string {
	if h.Label != "" {
		return h.Label
	}
	return fmt.Sprintf("hybs(%g,%g,%g)", h.Alpha, h.Beta, h.Gamma)
}

// HybSPreset returns the HybS variant packer names name, labelled so:
// "hybs" weighs waiting time, run time and task count (α = 1, β = γ = −1),
// "hybs-fcfs" waiting time alone (α = 1), "hybs-sjf" mean map time alone,
// shortest first (β = −1), and "hybs-smallest" unscheduled tasks alone,
// fewest first (γ = −1). The single-factor variants isolate what each term
// of eq. 1 contributes. ok is false for any other name.
func HybSPreset(name string) (h *HybS, ok bool) {
	switch name {
	case "hybs":
		return &HybS{Alpha: 1, Beta: -1, Gamma: -1, Label: name}, true
	case "hybs-fcfs":
		return &HybS{Alpha: 1, Label: name}, true
	case "hybs-sjf":
		return &HybS{Beta: -1, Label: name}, true
	case "hybs-smallest":
		return &HybS{Gamma: -1, Label: name}, true
	}
	return nil, false
}

// HybSPriority is eq. 1 times the user weight:
//
//	(td/avgWait)^α · (r/avgRun)^β · (n/avgTasks)^γ · u^δ.
//
// A zero exponent makes its factor 1 whatever the ratio.
func HybSPriority(alpha, beta, gamma, delta, td, avgWait, r, avgRun, n, avgTasks, u float64) float64 {
	pow := func(x, e float64) float64 {
		if e == 0 {
			return 1
		}
		return math.Pow(x, e)
	}
	return pow(td/avgWait, alpha) * pow(r/avgRun, beta) * pow(n/avgTasks, gamma) * pow(u, delta)
}

// Start forgets the previous run.
func (h *HybS) Start(s *State) {
	h.active = h.active[:0]
	h.prio = make([]float64, s.Jobs())
	h.sumDone = make([]float64, s.Jobs())
	h.nDone = make([]int32, s.Jobs())
	h.served = make([]float64, s.Jobs())
	for j := range h.served {
		h.served[j] = -1
	}
}

// JobArrived adds the job.
func (h *HybS) JobArrived(_ *State, j int) { h.active = append(h.active, int32(j)) }

// JobFinished removes the job.
func (h *HybS) JobFinished(_ *State, j int) {
	if i := slices.Index(h.active, int32(j)); i >= 0 {
		h.active = slices.Delete(h.active, i, i+1)
	}
}

// TaskEnded records a map's run time for the online estimate, and the end
// of the job's service for WaitSinceServed.
func (h *HybS) TaskEnded(s *State, t int) {
	h.served[s.TaskJob(t)] = s.Now()
	if s.TaskKind(t) == Map {
		j := s.TaskJob(t)
		h.sumDone[j] += s.Now() - s.TaskStart(t)
		h.nDone[j]++
	}
}

// unscheduled is n: the job's tasks not yet started.
func unscheduled(s *State, j int) int {
	return s.Remaining(j, Map) - s.Running(j, Map) + s.Remaining(j, Reduce) - s.Running(j, Reduce)
}

// Offering recomputes every priority: steps 1 and 2 of Fig. 2.
func (h *HybS) Offering(s *State, _ int) {
	h.nonLocal = 0
	h.order = h.order[:0]
	var sumWait, sumN float64
	for _, j := range h.active {
		if unscheduled(s, int(j)) > 0 {
			h.order = append(h.order, j)
			sumWait += h.wait(s, int(j))
			sumN += float64(unscheduled(s, int(j)))
		}
	}
	if len(h.order) == 0 {
		return
	}
	m := float64(len(h.order))
	avgWait, avgN := sumWait/m, sumN/m
	runs := make([]float64, len(h.order))
	var sumRun float64
	known := 0
	for i, j := range h.order {
		runs[i] = h.runEstimate(s, int(j))
		if runs[i] > 0 {
			sumRun += runs[i]
			known++
		}
	}
	stand := 1.0
	if known > 0 {
		stand = sumRun / float64(known)
	}
	sumRun = 0
	for i := range runs {
		if runs[i] == 0 {
			runs[i] = stand
		}
		sumRun += runs[i]
	}
	avgRun := sumRun / m
	for i, j := range h.order {
		u := float64(s.Job(int(j)).Priority + 3)
		h.prio[j] = HybSPriority(h.Alpha, h.Beta, h.Gamma, h.Delta, h.wait(s, int(j)), avgWait,
			runs[i], avgRun, float64(unscheduled(s, int(j))), avgN, max(u, 1))
	}
	slices.SortStableFunc(h.order, func(a, b int32) int {
		if c := cmp.Compare(h.prio[b], h.prio[a]); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	if h.Window > 0 && len(h.order) > h.Window {
		h.order = h.order[:h.Window]
	}
}

// wait is t_d: seconds since submission, plus 1 so that every wait starts
// at 1 as in the paper's simulator (and a ratio is defined at time 0), plus
// any wait the job brought with it (Waited).
func (h *HybS) wait(s *State, j int) float64 {
	if h.WaitSinceServed && h.served[j] >= 0 {
		return 1 + s.Now() - h.served[j]
	}
	return 1 + s.Now() - s.Job(j).Arrival + h.Waited[s.Job(j).Name]
}

// runEstimate is r, the job's mean map time; 0 when unknown yet.
func (h *HybS) runEstimate(s *State, j int) float64 {
	if h.Online {
		if h.nDone[j] > 0 {
			return h.sumDone[j] / float64(h.nDone[j])
		}
		return 0
	}
	m := s.Job(j).Maps
	if m.N() == 0 {
		return s.Job(j).Reduces.Total() / float64(s.Job(j).Reduces.N())
	}
	return m.Total() / float64(m.N())
}

func (h *HybS) level(s *State, j int) float64 {
	if l, ok := h.Levels[s.Job(j).Name]; ok && l > 0 {
		return l
	}
	if h.ServiceLevel > 0 {
		return h.ServiceLevel
	}
	return 1
}

// eligible reports whether job j may take one more slot of kind: A_i.
func (h *HybS) eligible(s *State, j int, k Kind) bool {
	if s.Pending(j, k) == 0 {
		return false
	}
	a := int(math.Ceil(float64(s.Remaining(j, k)) * h.level(s, j)))
	return s.Running(j, k) < max(a, 1)
}

// Assign is steps 3 and 4 of Fig. 2.
func (h *HybS) Assign(s *State, node int, k Kind) int {
	for _, j32 := range h.order {
		j := int(j32)
		if !h.eligible(s, j, k) {
			continue
		}
		if k == Reduce || s.BestLocality(j, node, k) != Remote {
			h.served[j] = s.Now()
			return j
		}
	}
	if h.NonLocalPerOffer > 0 && h.nonLocal >= h.NonLocalPerOffer {
		return Later
	}
	for _, j32 := range h.order {
		if h.eligible(s, int(j32), k) {
			h.nonLocal++
			h.served[j32] = s.Now()
			return int(j32)
		}
	}
	return Idle
}
