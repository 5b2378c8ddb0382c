// Package workloads holds packer's built-in job sets: the catalogue of the
// packing paper (Aboulnaga et al., "Packing the Most Onto Your Cloud",
// CloudDB 2009), its seven jobs (section 6) and the six workloads W1–W6 of its
// Table 1. The paper prints no model numbers, only their shape, so each job's
// model is chosen here to reproduce what the paper says; how each number was
// chosen is written beside it.
//
// Merger (merge.go) joins workloads, built-in or profiled, into one. Workloads
// read from real traces (SWIM, Rumen, the HybS simulator format) are the
// business of the sub-package traces.
package workloads

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/packer-sched/packer/model"
)

// A paperJob is defined by its runtime at the packing paper's reference size of 6 VMs
// and its exponent b; a = F(6)·6^(−b). Defining jobs at 6 VMs keeps the numbers
// readable (they are minutes-scale runtimes on the paper's 2009 hardware) and
// ties them to the size the classification is measured at.
type paperJob struct {
	name, desc string
	at6, b     float64
	cpu, io    bool
}

// How the numbers were chosen (all runtimes on 6 VMs of the paper's Sun Fire
// X4100s: two dual-core 2.2 GHz Opterons, 8 GB, two 10K SCSI disks):
//
//   - Figure 1 of the paper shows the four small jobs with diminishing returns:
//     −1 < b < 0. The smaller the input, the sooner fixed costs (task start-up,
//     the job's serial reduce) dominate, so the smaller job gets the flatter
//     curve: s-inv (32 MB) b = −0.5, s-kmns (353 MB) −0.7, s-srt (2.4 GB) −0.75,
//     s-dsim (pairwise similarity over the s-inv index, quadratic work) −0.8.
//   - The paper says sort is I/O-bound and k-means CPU-bound (section 3): s-srt
//     and b-srt are I/O-intensive only, s-kmns and b-kmns CPU-intensive only.
//     s-inv on 32 MB is dominated by start-up costs: neither. s-dsim and b-inv
//     stream large inputs and tokenise or score them: both, so neither can be
//     overcommitted.
//   - The paper says W4–W6 (the big jobs) never gain from more than two jobs at a
//     time. With b > −1 any job gains from running beside others on fewer VMs,
//     so the big jobs need b ≤ −1: their data (5–20 GB) spills to disk on few
//     VMs and fits in the VMs' memory on many, which makes sort and k-means
//     speed up slightly faster than linearly over 2–20 VMs; b = −1.04 for all
//     three. With b-inv both CPU- and I/O-intensive, the exact phase optimum of
//     W4–W6 then equals the pair scheduler's on 9 and 10 hosts (checked by the
//     optimizer's tests), as the paper reports.
//   - Runtimes at 6 VMs scale with input size and work per byte: s-srt 600 s,
//     s-kmns 480 s, s-inv 160 s, s-dsim 1500 s; b-srt 4000 s (20 GB), b-kmns
//     2000 s (10 GB), b-inv 2400 s (5 GB of XML). b-srt is about twice b-kmns so
//     that overcommitting a pair of them (b-srt on 2·P host VMs, b-kmns on P
//     extras) balances: both finish near α·F_srt(N).
//
// With these models W1–W3 save 26–31 % against sequential when any number of
// jobs may share a phase (the paper reports 24–33 %); the pair scheduler's
// savings are smaller, and W4–W6's are smaller than the paper's 16–30 %: with
// near-linear big jobs only overcommitting saves, at most 1 − α·2/3 ≈ 13 % a
// pair. docs/planning.md reports our numbers as they are.
var paperJobs = []paperJob{
	{"s-srt", "sort 500,000 records of 5,000 characters (2.4 GB)", 600, -0.75, false, true},
	{"s-kmns", "k-means, 2,000 Gaussian clusters of 10,000 points (353 MB)", 480, -0.70, true, false},
	{"s-inv", "inverted index of the first 32 MB of Wikipedia", 160, -0.50, false, false},
	{"s-dsim", "pairwise document similarity over the s-inv index", 1500, -0.80, true, true},
	{"b-srt", "sort 21,000,000 records of 1,000 characters (20 GB)", 4000, -1.04, false, true},
	{"b-kmns", "k-means, 100 Gaussian clusters of 5,720,000 points (10 GB)", 2000, -1.04, true, false},
	{"b-inv", "inverted index of the first 5 GB of Wikipedia", 2400, -1.04, true, true},
}

// tableOne is the packing paper's Table 1: how many of each job a workload has.
var tableOne = []struct {
	name string
	jobs []jobCount
}{
	{"W1", counts("s-srt", 2, "s-kmns", 2, "s-inv", 1)},
	{"W2", counts("s-srt", 2, "s-kmns", 1, "s-inv", 1, "s-dsim", 1)},
	{"W3", counts("s-srt", 3, "s-kmns", 2, "s-inv", 1, "s-dsim", 1)},
	{"W4", counts("s-srt", 1, "b-srt", 1, "b-inv", 2)},
	{"W5", counts("b-srt", 2, "b-kmns", 2, "b-inv", 1)},
	{"W6", counts("b-srt", 2, "b-kmns", 2, "b-inv", 2)},
}

// jobCount is one line of Table 1: count copies of a paper job.
type jobCount struct {
	job   string
	count int
}

// counts reads alternating job names and counts.
func counts(kv ...any) []jobCount {
	var out []jobCount
	for i := 0; i < len(kv); i += 2 {
		out = append(out, jobCount{kv[i].(string), kv[i+1].(int)})
	}
	return out
}

// PaperJob returns one of the packing paper's seven jobs by name (s-srt, s-kmns, s-inv,
// s-dsim, b-srt, b-kmns, b-inv).
func PaperJob(name string) (model.Job, bool) {
	for _, p := range paperJobs {
		if p.name == name {
			return model.Job{
				Name:         p.name,
				Description:  p.desc,
				Model:        model.PowerLaw{A: p.at6 * math.Pow(6, -p.b), B: p.b},
				CPUIntensive: p.cpu,
				IOIntensive:  p.io,
			}, true
		}
	}
	return model.Job{}, false
}

// Default is the workload `packer plan` uses when none is named.
const Default = "W1"

// Names lists the built-in workloads, sorted.
func Names() []string {
	var out []string
	for _, w := range tableOne {
		out = append(out, w.name)
	}
	sort.Strings(out)
	return out
}

// Get returns a fresh copy of a built-in workload; names are case-insensitive.
// Jobs are named after the paper's job with a running number: s-srt-1, s-srt-2.
func Get(name string) (*model.Workload, error) {
	for _, w := range tableOne {
		if !strings.EqualFold(w.name, name) {
			continue
		}
		out := &model.Workload{Name: w.name}
		var parts []string
		for _, c := range w.jobs {
			j, ok := PaperJob(c.job)
			if !ok {
				panic("workloads: Table 1 names unknown job " + c.job)
			}
			for i := 1; i <= c.count; i++ {
				jj := j
				jj.Name = fmt.Sprintf("%s-%d", c.job, i)
				out.Jobs = append(out.Jobs, jj)
			}
			parts = append(parts, fmt.Sprintf("%d × %s", c.count, c.job))
		}
		out.Description = "packing paper (Aboulnaga et al., CloudDB 2009), Table 1: " + strings.Join(parts, " + ")
		return out, nil
	}
	return nil, fmt.Errorf("no built-in workload %q (built-ins: %s)", name, strings.Join(Names(), ", "))
}
