package engine

import (
	"cmp"
	"fmt"
	"slices"
)

// Probe reads a run's speed mechanisms, for sim's tests, which hold each to
// its plain twin while real policies run; nothing else reads it.
type Probe struct{ s *State }

// Probe is s's probe.
func (s *State) Probe() Probe { return Probe{s} }

// Filter is the kind of the jobs' filters (FilterNodes, FilterRacks or
// FilterNone), the bits they cleared and the questions they answered.
func (p Probe) Filter() (kind uint8, exhaustions, skips int) {
	return p.s.filterBy, p.s.exhaustions, p.s.skips
}

// Prefetching reports what the event queue prefetches: task records, the
// next task of the ending task's job, its rack filter.
func (p Probe) Prefetching() (tasks, next, filter bool) {
	q := &p.s.queue
	return q.warm != nil, q.warmNext, q.warmFilter
}

// FindTask is the task a launch of job j on node would take, and its
// locality, as the engine finds it (State.findTask).
func (p Probe) FindTask(j, node int, k Kind) (int32, Locality) { return p.s.findTask(j, node, k) }

// Found is findTask's cached answer: whether there is one, and its job,
// node, kind, task and locality.
func (p Probe) Found() (ok bool, j, node int, k Kind, t int32, l Locality) {
	f := p.s.found
	return f.ok, f.job, f.node, f.kind, f.task, f.locality
}

// ForgetFound clears findTask's cache, as any change of a task's state does.
func (p Probe) ForgetFound() { p.s.found.ok = false }

// CheckFreeWords reports the first word of the free-slot bitmap (freeBits)
// whose mark in the summary (freeWords) says otherwise than the word.
func (p Probe) CheckFreeWords() error {
	s := p.s
	for k := range 2 {
		for w, word := range s.freeBits[k] {
			if marked := s.freeWords[k][w/64]>>(w%64)&1 == 1; marked != (word != 0) {
				return fmt.Errorf("freeBits[%d][%d] = %#x, marked in freeWords: %v", k, w, word, marked)
			}
		}
	}
	return nil
}

// ScanLookup is what lookup must answer for job j's maps on node, from a
// scan of the whole index: a killed map (pending again) that is node-local
// or reads no input, the first in the order they were killed; else the
// lowest never-launched map with a replica on the node; else a rack-local
// killed map; else the lowest never-launched map with a replica on a node
// of the rack; else a killed map; else the lowest pending map, remote.
func (p Probe) ScanLookup(j, node int) (int32, Locality) {
	s := p.s
	jr := &s.jobs[j]
	pending := func(t int32) bool { return s.tasks[t].state == taskPending }
	// The killed maps with their localities; the first of the best rank.
	type killed struct {
		t int32
		l Locality
	}
	var ks []killed
	for _, t := range s.requeuedOf(j) {
		if s.tasks[t].kind == Map {
			ks = append(ks, killed{t, s.locality(t, node)})
		}
	}
	requeued, requeuedLoc := int32(-1), NoInput+1
	if len(ks) > 0 {
		k := slices.MinFunc(ks, func(a, b killed) int { return cmp.Compare(rank(a.l), rank(b.l)) })
		requeued, requeuedLoc = k.t, k.l
	}
	if requeued >= 0 && rank(requeuedLoc) == 0 {
		return requeued, requeuedLoc
	}
	if !jr.noInput {
		b := s.blocks(j)
		// The lowest never-launched map with an entry at one of places.
		first := func(places []int32) int32 {
			best := int32(-1)
			for _, p := range places {
				for _, t := range b.tasksAt(p) {
					if pending(t) && !slices.Contains(s.requeuedOf(j), t) && (best < 0 || t < best) {
						best = t
					}
				}
			}
			return best
		}
		if t := first([]int32{int32(node)}); t >= 0 {
			return t, NodeLocal
		}
		if requeuedLoc == RackLocal {
			return requeued, requeuedLoc
		}
		var rack []int32
		for n := range s.cluster.Nodes { // the primary nodes: extras hold no blocks
			if s.rack[n] == s.rack[node] {
				rack = append(rack, int32(n))
			}
		}
		if t := first(rack); t >= 0 {
			return t, RackLocal
		}
	}
	if requeued >= 0 {
		return requeued, requeuedLoc
	}
	for t := jr.mapLo; t < jr.mapHi; t++ {
		if pending(t) {
			if jr.noInput {
				return t, NoInput
			}
			return t, Remote
		}
	}
	return -1, NoInput
}
