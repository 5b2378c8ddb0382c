package experiments

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/packer-sched/packer/sim"
)

// The generators below build the simulation workloads of the papers'
// experiments from a random seed: same seed, same workload. Each says which
// numbers come from the paper and which are chosen here.

func expRNG(seed uint64, stream uint64) *rand.Rand {
	return rand.New(rand.NewPCG(seed, 0x5eed0000+stream))
}

// jitter returns n durations uniform in mean·(1 ± spread).
func jitter(rng *rand.Rand, n int, mean, spread float64) []float64 {
	d := make([]float64, n)
	for i := range d {
		d[i] = mean * (1 + spread*(2*rng.Float64()-1))
	}
	return d
}

// TyrexVariability names the Tyrex paper's three workloads by the squared CV of
// their job sizes.
type TyrexVariability string

// The Tyrex paper's workloads: HVW, MVW, LVW with squared CV 20, 10 and 4.
const (
	HVW TyrexVariability = "HVW"
	MVW TyrexVariability = "MVW"
	LVW TyrexVariability = "LVW"
)

// SCV is the workload's target squared coefficient of variation of job sizes.
func (v TyrexVariability) SCV() (float64, error) {
	switch v {
	case HVW:
		return 20, nil
	case MVW:
		return 10, nil
	case LVW:
		return 4, nil
	}
	return 0, fmt.Errorf("experiments: unknown Tyrex workload %q (want HVW, MVW or LVW)", v)
}

// TyrexCluster is the Tyrex paper's DAS-4 setup: 20 nodes × 6 map + 2 reduce slots.
var TyrexCluster = sim.Cluster{Nodes: 20, Racks: 1, MapSlots: 6, ReduceSlots: 2}

// Tyrex builds the Tyrex paper's HVW, MVW or LVW (section V): jobs jobs (the
// paper's 300) with Poisson arrivals at the given load (0.7 in the paper, 0.9
// for its stress test) on TyrexCluster, drawn from the random seed.
//
// A job's size S (slot-seconds) is hyperexponential with mean M, Table II's
// CPU time per job (MeanSize: 760, 1500 and 3680 s for HVW, MVW and LVW),
// and the workload's squared CV c: with probability p a small job of mean
// 60 s (two maps: "tiny"), otherwise a big one of mean (M − 60p)/(1 − p), p
// solved from E[S²] = (1 + c)·M² (TyrexSmallFraction: 0.92 for HVW, 0.83
// for MVW, 0.61 for LVW, so over 60 % of jobs are tiny or short, as the
// paper requires). The mean matters, not only the time scale: tasks keep
// their length (Table II's are about 33 s in all three), so a bigger mean
// makes fewer, bigger jobs, and each big job brings P1 its timer plus the
// tasks running when it expires. 90 % of S is maps of about 30 s, 10 %
// reduces, one per 8 maps (Table II: 788 reduces for
// 6 139 maps). Map tasks read no block: Tyrex lets any partition read any
// data, so locality is not what it studies. The arrival rate is load × 120
// map slots ÷ the sample's mean map work, so the map slots are busy that
// fraction of the time.
func Tyrex(v TyrexVariability, jobs int, load float64, seed uint64) (*sim.Workload, error) {
	c, err := v.SCV()
	if err != nil {
		return nil, err
	}
	if jobs < 1 || !(load > 0 && load < 1) {
		return nil, fmt.Errorf("experiments: tyrex: want at least 1 job and a load in (0, 1), got %d and %v", jobs, load)
	}
	rng := expRNG(seed, 4)
	const mapTime = 30.0
	mean := v.MeanSize()
	p := TyrexSmallFraction(c, mean)
	big := (mean - p*tyrexSmall) / (1 - p)
	w := &sim.Workload{Name: fmt.Sprintf("tyrex-%s-%.0f%%", v, load*100), Cluster: TyrexCluster}
	var mapWork float64
	for i := range jobs {
		phase := big
		if rng.Float64() < p {
			phase = tyrexSmall
		}
		s := phase * rng.ExpFloat64()
		m := max(1, int(math.Round(0.9*s/mapTime)))
		r := max(1, (m+7)/8)
		maps := jitter(rng, m, max(0.9*s/float64(m), 1), 0.3)
		reds := jitter(rng, r, max(0.1*s/float64(r), 1), 0.3)
		for _, d := range maps {
			mapWork += d
		}
		w.Jobs = append(w.Jobs, sim.Job{Name: fmt.Sprintf("j%03d", i), NoInput: true,
			Maps: sim.Tasks{Durations: maps}, Reduces: sim.Tasks{Durations: reds}, Shuffle: 2})
	}
	slots := float64(TyrexCluster.Nodes * TyrexCluster.MapSlots)
	rate := load * slots / (mapWork / float64(jobs))
	t := 0.0
	for i := range w.Jobs {
		w.Jobs[i].Arrival = t
		t += rng.ExpFloat64() / rate
	}
	return w, w.Validate()
}

// tyrexSmall is the mean of the Tyrex size distribution's small phase,
// slot-seconds.
const tyrexSmall = 60.0

// MeanSize is the workload's mean job size in slot-seconds: the Tyrex
// paper's Table II total CPU time over its 300 jobs (63.6, 124.6 and 306.9 h),
// rounded to 20 s.
func (v TyrexVariability) MeanSize() float64 {
	switch v {
	case MVW:
		return 1500
	case LVW:
		return 3680
	}
	return 760
}

// TyrexSmallFraction is p, the probability of a small job, for which the
// two-phase hyperexponential of the given mean M with small phase 60 s has
// squared CV c: E[S²] = 2(p·60² + (1 − p)·m₂²) = (1 + c)·M², m₂ = (M − 60p)/(1 − p).
// The left side grows with p, so bisection finds it.
func TyrexSmallFraction(c, mean float64) float64 {
	f := func(p float64) float64 {
		m2 := (mean - p*tyrexSmall) / (1 - p)
		return 2*(p*tyrexSmall*tyrexSmall+(1-p)*m2*m2) - (1+c)*mean*mean
	}
	lo, hi := 0.0, 0.999999
	for range 100 {
		m := (lo + hi) / 2
		if f(m) < 0 {
			lo = m
		} else {
			hi = m
		}
	}
	return (lo + hi) / 2
}

// JobSizes is every job's total task time (slot-seconds).
func JobSizes(w *sim.Workload) []float64 {
	out := make([]float64, len(w.Jobs))
	for i, j := range w.Jobs {
		out[i] = j.Maps.Total() + j.Reduces.Total()
	}
	return out
}

// hybsType is one row of the HybS paper's Table 1 (seconds).
type hybsType struct {
	name                  string
	mapT, redT, shuffleT  float64
	minMaps, maxMaps, per int // per: maps per reduce task (chosen here)
}

// Table 1 of the HybS paper. The table prints WordCount's range as "09-32".
var hybsTypes = []hybsType{
	{"Grid", 113, 49, 8, 60, 240, 60},
	{"TeraSort", 7, 21, 21, 90, 900, 100},
	{"WordCount", 400, 24, 62, 9, 32, 16},
}

// HybSCluster is the HybS paper's physical cluster: 9 blades × 4 map slots =
// 36, one rack; 2 reduce slots each (the paper gives no number).
var HybSCluster = sim.Cluster{Nodes: 9, Racks: 1, MapSlots: 4, ReduceSlots: 2}

// HybSExp1 is the HybS paper's experiment 1: 21 jobs, 7 each of Grid, TeraSort and
// WordCount with Table 1's mean task times and a map count uniform in the
// type's range, submitted in random order one second apart (the paper runs
// them "concurrently ... submitted in random order"). Task times vary ±20 %
// about the mean; one reduce per Table-1-sized group of maps (chosen here).
func HybSExp1(seed uint64) *sim.Workload {
	rng := expRNG(seed, 21)
	types := make([]int, 0, 21)
	for t := range hybsTypes {
		for range 7 {
			types = append(types, t)
		}
	}
	rng.Shuffle(len(types), func(a, b int) { types[a], types[b] = types[b], types[a] })
	w := &sim.Workload{Name: "hybs-exp1", Cluster: HybSCluster}
	for i, t := range types {
		ty := hybsTypes[t]
		m := ty.minMaps + rng.IntN(ty.maxMaps-ty.minMaps+1)
		r := max(1, (m+ty.per-1)/ty.per)
		w.Jobs = append(w.Jobs, sim.Job{Name: fmt.Sprintf("%02d-%s", i+1, ty.name), Arrival: float64(i),
			Maps: sim.Tasks{Durations: jitter(rng, m, ty.mapT, 0.2)}, Reduces: sim.Tasks{Durations: jitter(rng, r, ty.redT, 0.2)},
			Shuffle: ty.shuffleT})
	}
	return w
}

// HybSExp2 is the HybS paper's experiment 2: 95 TeraSort jobs of 50–148 maps of
// 4–6 s (uniform), one reduce of Table 1's 21 s after a 21 s shuffle each,
// submitted one second apart on HybSCluster.
func HybSExp2(seed uint64) *sim.Workload {
	rng := expRNG(seed, 95)
	w := &sim.Workload{Name: "hybs-exp2", Cluster: HybSCluster}
	for i := range 95 {
		m := 50 + rng.IntN(99)
		d := make([]float64, m)
		for k := range d {
			d[k] = 4 + 2*rng.Float64()
		}
		w.Jobs = append(w.Jobs, sim.Job{Name: fmt.Sprintf("terasort-%02d", i+1), Arrival: float64(i),
			Maps: sim.Tasks{Durations: d}, Reduces: sim.Tasks{Durations: jitter(rng, 1, 21, 0.2)}, Shuffle: 21})
	}
	return w
}

// DPCluster is the cluster of the DP experiments: 55 nodes × 2 map + 1 reduce
// slots (the DP paper's cluster sizes are not printed), so that the 10-queue
// shares n/55 are whole slots: 2n map and n reduce slots.
var DPCluster = sim.Cluster{Nodes: 55, Racks: 1, MapSlots: 2, ReduceSlots: 1}

// piJob is a Pi-estimator-like job: maps that read no block, one reduce.
func piJob(rng *rand.Rand, name, user string, arrival float64, maps int) sim.Job {
	return sim.Job{Name: name, User: user, Arrival: arrival, NoInput: true,
		Maps:    sim.Tasks{Durations: jitter(rng, maps, 20, 0.2)},
		Reduces: sim.Tasks{Durations: jitter(rng, 1, 10, 0.2)}, Shuffle: 1}
}

// DPQueues is the DP paper's n-queue experiment: queue q1..qn each submits jobs
// Pi-estimator jobs of 40 maps × about 20 s, all at time 0 in queue order,
// job k of every queue before job k+1 of any (so FIFO interleaves them).
// The DP policy gives queue n spending rate n (the paper's shares n/Σi).
func DPQueues(queues, jobs int, seed uint64) *sim.Workload {
	rng := expRNG(seed, 10)
	w := &sim.Workload{Name: fmt.Sprintf("dp-%d-queues", queues), Cluster: DPCluster}
	for k := range jobs {
		for q := 1; q <= queues; q++ {
			w.Jobs = append(w.Jobs, piJob(rng, fmt.Sprintf("q%d-%d", q, k+1), fmt.Sprintf("q%d", q), 0, 40))
		}
	}
	return w
}

// DPBoost is the DP paper's boost experiment in open loop: 10 users each submit
// 10 jobs of 100 maps, user u's k-th at time (k−1)·period, period 250 s, so
// the cluster is loaded to about 3/4 (10 users × 100 maps × 20 s = 20 000
// slot-seconds per period on 110 map slots); the caller raises user n's
// spending 4× while its n-th job runs. The paper runs each user's jobs in
// sequence (closed loop), which a fixed-arrival workload cannot; one period
// apart keeps about one job per user in the system.
func DPBoost(seed uint64) (*sim.Workload, float64) {
	const period = 250.0
	rng := expRNG(seed, 100)
	w := &sim.Workload{Name: "dp-boost", Cluster: DPCluster}
	for k := range 10 {
		for u := 1; u <= 10; u++ {
			w.Jobs = append(w.Jobs, piJob(rng, fmt.Sprintf("u%d-%d", u, k+1), fmt.Sprintf("u%d", u), float64(k)*period, 100))
		}
	}
	return w, period
}

// DelaySmallJobs is the delay scheduling paper's head-of-line setting at its
// p = 0.1: 30 nodes in 3 racks with 2 map slots each, kept busy by a big job
// of 1500 maps of 5–15 s (varied, so slots free up one at a time), while 100
// small jobs of 1 map × 10 s arrive one a second from 5 s on. A small job's
// block has 3 replicas on 3 of the 30 nodes, so it has local data on a share
// p = 3/30 = 0.1 of the nodes, the paper's example for 1 − (1 − p)^D. Blocks
// are placed HDFS-style from the run's random seed.
func DelaySmallJobs(seed uint64) *sim.Workload {
	rng := expRNG(seed, 1)
	d := make([]float64, 1500)
	for i := range d {
		d[i] = 5 + 10*rng.Float64()
	}
	w := &sim.Workload{Name: "delay-small-jobs", Cluster: sim.Cluster{Nodes: DelayNodes, Racks: 3, MapSlots: 2}}
	w.Jobs = append(w.Jobs, sim.Job{Name: "big", Maps: sim.Tasks{Durations: d}})
	for i := range 100 {
		w.Jobs = append(w.Jobs, sim.Job{Name: fmt.Sprintf("small-%d", i), Arrival: float64(5 + i), Maps: sim.Tasks{Count: 1, Mean: 10}})
	}
	return w
}

// DelayNodes is DelaySmallJobs' cluster size: with 3 replicas a one-map job
// has data on p = 3/DelayNodes = 0.1 of the nodes.
const DelayNodes = 30

// DPTwoQueues is the DP paper's first experiment in open loop: queues q1 and q2
// each submit jobs Pi-estimator jobs of 300 maps, one every 60 s from 0, on
// DPCluster: each queue asks for 300 × 20 s every 60 s, 100 slots, more than
// either's share of 110 at spending 2 : 1 (73 and 37), so both always have
// work waiting, as in the paper's continuous runs.
func DPTwoQueues(jobs int, seed uint64) *sim.Workload {
	rng := expRNG(seed, 2)
	w := &sim.Workload{Name: "dp-2-queues", Cluster: DPCluster}
	for k := range jobs {
		for q := 1; q <= 2; q++ {
			w.Jobs = append(w.Jobs, piJob(rng, fmt.Sprintf("q%d-%d", q, k+1), fmt.Sprintf("q%d", q), float64(60*k), 300))
		}
	}
	return w
}
