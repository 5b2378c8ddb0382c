package optimize

import (
	"math"
	"math/bits"
	"sort"
)

// lnsSub holds one re-packing's tables, reused from step to step.
type lnsSub struct {
	ps      *phaseSolver
	free    []int
	anchors [][]looseJob
	top     int // the last candidate duration worth trying
	// at[t] is candidate t's offset in spans and sums (−1: not computed
	// yet): each free job's primary and overcommit intervals at that
	// duration, then per anchor its totals (anchorSum), computed once per
	// step and duration. A slice rather than a map: the steps look a
	// duration up for every subset they price (a map's lookups were 9 %
	// of planning 100 jobs on 9 hosts). touched lists the entries set, so
	// the next step resets only those.
	at      [][2]int32
	touched []int
	spans   []lnsSpan
	sums    []anchorSum
	// plain makes durations search every subset's duration by best, the
	// plain reference the tests compare bestFrom with.
	plain bool
}

// lnsTick is how many subsets repack prices per question to stop: about
// as much work as one move or swap improve tries.
const lnsTick = 16

// lnsSpan is a free job's intervals of VM counts at one duration: primary
// [pl, ph] and its overcommit role's [ol, oh] (empty when it has none).
type lnsSpan struct{ pl, ph, ol, oh int }

// anchorSum is an anchor's totals at one duration (fits's roleTotals); ok
// is false when some anchor job cannot finish within it in its role.
type anchorSum struct {
	roleTotals
	ok bool
}

// repack re-packs the free jobs beside the anchors (the jobs each destroyed
// phase keeps, in their roles) or into new phases, optimally: it returns per
// anchor its jobs with those it receives, then the new phases, and their
// total duration; +Inf (and nil) when nothing below limit exists.
//
// stop (if not nil) is asked once per lnsTick subsets priced and once per
// anchor's programme, so that a work clock counts a step by its work; when
// it says so, repack gives up (+Inf).
func (ps *phaseSolver) repack(sub *lnsSub, free []int, anchors [][]looseJob, limit float64, stop func() bool) ([][]looseJob, float64) {
	m, na := len(free), len(anchors)
	at := sub.at
	if len(at) == len(ps.cands) && sub.ps == ps {
		for _, t := range sub.touched {
			at[t][0] = -1
		}
	} else {
		at = make([][2]int32, len(ps.cands))
		for t := range at {
			at[t][0] = -1
		}
	}
	*sub = lnsSub{ps: ps, free: free, anchors: anchors, top: sort.SearchFloat64s(ps.cands, limit) - 1,
		at: at, touched: sub.touched[:0], spans: sub.spans[:0], sums: sub.sums[:0], plain: sub.plain}
	if sub.top < 0 {
		return nil, math.Inf(1)
	}
	size := 1 << m
	g, over := sub.durations(limit, stop)
	if g == nil {
		return nil, math.Inf(1)
	}
	// part[S]: the best partition of S into new phases (Exact's programme).
	part, pc := make([]float64, size), make([]uint32, size)
	for s := uint32(1); s < uint32(size); s++ {
		low := s & -s
		rest := s &^ low
		b, bc := math.Inf(1), uint32(0)
		for t := rest; ; t = (t - 1) & rest {
			if v := g[na][low|t] + part[s&^(low|t)]; v < b {
				b, bc = v, low|t
			}
			if t == 0 {
				break
			}
		}
		part[s], pc[s] = b, bc
	}
	// f[a][S]: anchors a.. with the free jobs S among them and new phases.
	f, fc := make([][]float64, na+1), make([][]uint32, na)
	f[na] = part
	for a := na - 1; a >= 0; a-- {
		if stop != nil && stop() {
			return nil, math.Inf(1)
		}
		f[a], fc[a] = make([]float64, size), make([]uint32, size)
		for s := uint32(0); s < uint32(size); s++ {
			b, bc := math.Inf(1), uint32(0)
			for t := s; ; t = (t - 1) & s {
				if v := g[a][t] + f[a+1][s&^t]; v < b {
					b, bc = v, t
				}
				if t == 0 {
					break
				}
			}
			f[a][s], fc[a][s] = b, bc
		}
	}
	full := uint32(size - 1)
	total := f[0][full]
	if math.IsInf(total, 1) {
		return nil, total
	}
	out := make([][]looseJob, na)
	s := full
	for a := range na {
		t := fc[a][s]
		out[a] = append(append([]looseJob(nil), anchors[a]...), sub.looseJobs(t, over[a][t])...)
		s &^= t
	}
	for ; s != 0; s &^= pc[s] {
		t := pc[s]
		out = append(out, sub.looseJobs(t, over[na][t]))
	}
	return out, total
}

// durations prices every anchor with every subset of the free jobs, and
// every subset as a new phase: g[a][S] is anchor a with the free jobs S,
// g[len(anchors)][S] the new phase S, and over their roles; nil when stop
// says so.
func (sub *lnsSub) durations(limit float64, stop func() bool) ([][]float64, [][]uint32) {
	ps, free, anchors := sub.ps, sub.free, sub.anchors
	m, na := len(free), len(anchors)
	size := 1 << m
	// Every job of a phase needs at least its shortest runtime (lowT), and
	// every anchor stays a phase: a phase beside the others' least
	// durations must stay below limit.
	lowS := make([]int, size) // the least candidate any S can take
	for s := 1; s < size; s++ {
		k := bits.TrailingZeros32(uint32(s))
		lowS[s] = max(lowS[s&(s-1)], ps.lowT(free[k], rolePrimary))
	}
	lowA := make([]int, na)
	sumLow := 0.0
	for a, anchor := range anchors {
		for _, x := range anchor {
			lowA[a] = max(lowA[a], ps.lowT(x.job, x.role))
		}
		if len(anchor) > 0 {
			sumLow += ps.cands[lowA[a]]
		}
	}
	// g[a][S] is anchor a with the free jobs S; g[na] the new phase S.
	g := make([][]float64, na+1)
	over := make([][]uint32, na+1)
	idx := make([]int32, size) // g[a][S]'s candidate index, −1 if +Inf or no phase
	for a := range na + 1 {
		g[a], over[a] = make([]float64, size), make([]uint32, size)
		lo, room := 0, limit-sumLow
		if a < na && len(anchors[a]) > 0 {
			lo, room = lowA[a], room+ps.cands[lowA[a]]
		}
		top := min(sub.top, sort.SearchFloat64s(ps.cands, room)-1)
		for s := range size {
			if s%lnsTick == lnsTick-1 && stop != nil && stop() {
				return nil, nil
			}
			if s == 0 && (a == na || len(anchors[a]) == 0) {
				idx[s] = -1
				continue // no phase: no time
			}
			from := max(lo, lowS[s])
			var t int
			if sub.plain {
				t, over[a][s] = sub.best(a, uint32(s), from, top)
			} else {
				// s's subsets with one job fewer are priced already:
				// the longest of them is where bestFrom starts.
				hint := from
				for r := uint32(s); r != 0; r &= r - 1 {
					hint = max(hint, int(idx[uint32(s)&^(r&-r)]))
				}
				t, over[a][s] = sub.bestFrom(a, uint32(s), from, hint, top)
			}
			g[a][s], idx[s] = math.Inf(1), -1
			if t >= 0 {
				g[a][s], idx[s] = ps.cands[t], int32(t)
			}
		}
	}
	return g, over
}

// bestFrom is best's answer, searched the same way but for the candidates
// below hint: the longest phase of s with one free job fewer, since a job
// that joins a phase never shortens it where the roles stay open. It does
// not rest on that: if s does not fit at hint − 1, no shorter candidate
// fits (a duration that fits is never followed by one that does not), and
// the search skips testing them; if it does, the search is best's. The
// candidates it tests are otherwise best's, which other subsets tested too,
// so their tables (tables) are mostly there already.
func (sub *lnsSub) bestFrom(a int, s uint32, lo, hint, top int) (int, uint32) {
	if lo > top {
		return -1, 0
	}
	over, ok := sub.fitsAt(a, s, top)
	if !ok {
		return -1, 0
	}
	below := lo // no candidate below it fits
	if h := min(hint, top); h > lo {
		if _, fits := sub.fitsAt(a, s, h-1); !fits {
			below = h
		}
	}
	t := lo + sort.Search(top-lo, func(i int) bool {
		if lo+i < below {
			return false
		}
		_, ok := sub.fitsAt(a, s, lo+i)
		return ok
	})
	if t < top {
		over, _ = sub.fitsAt(a, s, t)
	}
	return t, over
}

// looseJobs lists the free jobs of s in their roles (over: overcommitted).
func (sub *lnsSub) looseJobs(s, over uint32) []looseJob {
	var out []looseJob
	for r := s; r != 0; r &= r - 1 {
		k := bits.TrailingZeros32(r)
		out = append(out, looseJob{sub.free[k], sub.ps.overRole(sub.free[k], over&(1<<k) != 0)})
	}
	return out
}

// best is the index of the shortest duration, between the candidates lo and
// top, of anchor a (a = len(anchors): none) with the free jobs s, over their
// roles, and the roles; −1 if none fits. It is bestFrom's plain reference,
// a binary search over the whole range (lnsSub.plain).
func (sub *lnsSub) best(a int, s uint32, lo, top int) (int, uint32) {
	if lo > top {
		return -1, 0
	}
	over, ok := sub.fitsAt(a, s, top)
	if !ok {
		return -1, 0
	}
	t := lo + sort.Search(top-lo, func(i int) bool {
		_, ok := sub.fitsAt(a, s, lo+i)
		return ok
	})
	if t < top {
		over, _ = sub.fitsAt(a, s, t)
	}
	return t, over
}

// tables returns the free jobs' intervals and the anchors' totals at
// candidate t, computing them the first time.
func (sub *lnsSub) tables(t int) ([]lnsSpan, []anchorSum) {
	m, na := len(sub.free), len(sub.anchors)
	off := sub.at[t]
	if off[0] < 0 {
		ps, T := sub.ps, sub.ps.cands[t]
		off = [2]int32{int32(len(sub.spans)), int32(len(sub.sums))}
		sub.at[t] = off
		sub.touched = append(sub.touched, t)
		for _, j := range sub.free {
			var sp lnsSpan
			sp.pl, sp.ph = ps.span(j, rolePrimary, T)
			sp.ol, sp.oh = 1, 0
			switch {
			case ps.canHost[j]:
				sp.ol, sp.oh = ps.span(j, roleHost, T)
			case ps.canExtra[j]:
				sp.ol, sp.oh = ps.span(j, roleExtra, T)
				if sp.ol > ps.emax {
					sp.ol, sp.oh = 1, 0
				}
			}
			sub.spans = append(sub.spans, sp)
		}
		for _, anchor := range sub.anchors {
			sub.sums = append(sub.sums, ps.anchorTotals(anchor, T))
		}
	}
	return sub.spans[off[0] : int(off[0])+m], sub.sums[off[1] : int(off[1])+na]
}

// anchorTotals sums the intervals of jobs in their roles at T.
func (ps *phaseSolver) anchorTotals(jobs []looseJob, T float64) anchorSum {
	as := anchorSum{ok: true}
	for _, x := range jobs {
		l, h := ps.span(x.job, x.role, T)
		if l > h {
			return anchorSum{}
		}
		as.add(x.role, l, h, 1)
	}
	return as
}

// moveSpans moves the jobs ks[i] for the bits i of set off the primary VMs
// (prim of them) onto another role whose VMs number lo to hi: it returns
// what is left of each and mask with those jobs' bits added.
func moveSpans(spans []lnsSpan, ks []int, set, prim, lo, hi int, mask uint32) (int, int, int, uint32) {
	for b := set; b != 0; b &= b - 1 {
		k := ks[bits.TrailingZeros(uint(b))]
		prim -= spans[k].pl
		lo += spans[k].ol
		hi += spans[k].oh
		mask |= 1 << k
	}
	return prim, lo, hi, mask
}

// fitsAt reports whether anchor a (none when a = len(anchors)) with the free
// jobs s fits within candidate t for some roles of the free jobs, and
// returns them (bit k: free job k overcommitted), preferring none.
func (sub *lnsSub) fitsAt(a int, s uint32, t int) (uint32, bool) {
	spans, sums := sub.tables(t)
	base := anchorSum{ok: true}
	if a < len(sub.anchors) {
		base = sums[a]
	}
	if !base.ok {
		return 0, false
	}
	ps := sub.ps
	prim := base.prim
	var hostK, extraK [32]int
	nh, ne := 0, 0
	for r := s; r != 0; r &= r - 1 {
		k := bits.TrailingZeros32(r)
		sp := spans[k]
		if sp.pl > sp.ph {
			return 0, false // no role is faster than primary (α ≥ 1)
		}
		prim += sp.pl
		if sp.ol <= sp.oh {
			if ps.canHost[sub.free[k]] {
				hostK[nh], nh = k, nh+1
			} else {
				extraK[ne], ne = k, ne+1
			}
		}
	}
	if ps.totalsFit(prim, base.hLo, base.hHi, base.eLo, base.eHi, base.hosts > 0, base.extras > 0) {
		return 0, true
	}
	// Overcommitting frees at most the primary VMs of the jobs that may
	// host, and takes at least one machine (k primary VMs) more than the
	// anchor's extras and hosts already do: without that much, no role
	// choice fits.
	hostSave, extraSave := 0, 0
	for _, k := range hostK[:nh] {
		hostSave += spans[k].pl
	}
	for _, k := range extraK[:ne] {
		extraSave += spans[k].pl
	}
	o0 := max(1, (base.hLo+ps.k-1)/ps.k)
	if nh+ne == 0 || prim-hostSave-extraSave+ps.k*o0 > ps.n {
		return 0, false
	}
	for es := 0; es < 1<<ne; es++ {
		p, eLo, eHi, mask := moveSpans(spans, extraK[:ne], es, prim, base.eLo, base.eHi, 0)
		if eLo > ps.emax || p-hostSave+ps.k*o0 > ps.n {
			continue
		}
		for hs := 0; hs < 1<<nh; hs++ {
			if es == 0 && hs == 0 {
				continue
			}
			q, hLo, hHi, hm := moveSpans(spans, hostK[:nh], hs, p, base.hLo, base.hHi, mask)
			if ps.totalsFit(q, hLo, hHi, eLo, eHi, base.hosts > 0 || hs != 0, base.extras > 0 || es != 0) {
				return hm, true
			}
		}
	}
	return 0, false
}

// lowT is the index of job j's shortest runtime in the role among the
// candidates: no phase holding it is shorter.
func (ps *phaseSolver) lowT(j, role int) int {
	t := ps.rt[j][role]
	if len(t) < 2 {
		return len(ps.cands) - 1
	}
	return sort.SearchFloat64s(ps.cands, t[ps.low[j][role]])
}
