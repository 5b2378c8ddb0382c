package sim

import (
	"fmt"
	"slices"
	"strconv"
)

// Notes are what a reader of a policy's results on a workload should know
// before comparing them: that the policy needs an input the workload lacks,
// and so behaves as a simpler one. dp and dp-preempt share slots between
// users (their queues): on a workload with one user or none, as SWIM traces
// are, they are FIFO. hybs caps each job's slots by its service level: with
// no levels given every job has level 1 and the cap never binds. Delay
// scheduling (fair with a delay) waits for local slots: on a workload whose
// maps read no blocks it is fair. A plan
// replay, and any other policy, has no notes.
func Notes(p Policy, w *Workload) []string {
	var notes []string
	switch p := p.(type) {
	case *DP:
		users := map[string]bool{}
		for i := range w.Jobs {
			users[w.Jobs[i].User] = true
		}
		if len(users) <= 1 {
			notes = append(notes, fmt.Sprintf("%s: the workload's jobs all belong to one user (or name none), so there is one queue and %s schedules as fifo does", p.Name(), p.Name()))
		}
	case *Fair:
		if p.Delay > 0 && !slices.ContainsFunc(w.Jobs, func(j Job) bool { return !j.NoInput && j.Maps.N() > 0 }) {
			notes = append(notes, fmt.Sprintf("%s: no map task reads a block (no_input), so delay scheduling has no locality to wait for and %s schedules as fair does", p.Name(), p.Name()))
		}
	case *HybS:
		if len(p.Levels) == 0 && (p.ServiceLevel == 0 || p.ServiceLevel == 1) {
			notes = append(notes, fmt.Sprintf("%s: no service levels were given (--hybs-jobs), so every job has level 1 and no slot cap", p.Name()))
		}
	}
	return notes
}

// belowOne is the slowdown a note calls below 1: times summed in another
// order differ in their last bits (0.9999999999965 on the FB-2009 day).
const belowOne = 1 - 1e-9

// slowdownNote explains slowdowns below 1 in r, if any: the alone baseline
// (Alone) has ideal locality, but it is one FIFO run, and a task order that
// fills the slots better can beat it.
func slowdownNote(r *Result) []string {
	n, low := 0, 1.0
	for _, j := range r.Jobs {
		if j.Slowdown > 0 && j.Slowdown < belowOne {
			n++
			low = min(low, j.Slowdown)
		}
	}
	if n == 0 {
		return nil
	}
	return []string{fmt.Sprintf("%s: slowdown < 1 for %d of %d jobs (lowest %s): the alone baseline runs the job's tasks in FIFO order, and another order can fill the slots sooner",
		r.Policy, n, len(r.Jobs), strconv.FormatFloat(low, 'f', 2, 64))}
}

// NoteLines are every run's notes, in order, for printing.
func NoteLines(runs []Outcome) []string {
	var lines []string
	for _, r := range runs {
		lines = append(lines, r.Result.Notes...)
	}
	return lines
}
