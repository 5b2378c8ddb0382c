package optimize

import (
	"math"
	"slices"
)

// The pricing programme. For a phase length D every job j has, in each role
// it may take, a fewest VM count that meets D (phaseSolver.span): p_j as
// primary, h_j as host, e_j as extra. A set of jobs in those roles, with
// totals Pr, H and E of these counts, can run as one phase of length ≤ D
// exactly when either it has no host or extra jobs and Pr ≤ N, or it has both
// and some number O of overcommitted machines, 1 ≤ O ≤ P, gives
//
//	Pr ≤ k·(P − O),  H ≤ k·O,  E ≤ ⌊k/r⌋·O.
//
// (⇒: take O = Cluster.OvercommittedHosts of the phase's real totals. ⇐: with
// E' = max(E, ⌈H/k⌉) extras and H' = max(H, r·E') host VMs, padding jobs with
// VMs they can use since runtimes do not rise with VMs, every constraint of
// model.Problem.Check holds; phaseSolver.totalsFit is the same test.) The
// padding assumes non-increasing runtimes; where a model's runtime rises, the
// programme only over-estimates what a phase can hold, so Farley's bound
// stays valid and realize checks the phase exactly.
//
// For a fixed O the three capacities are separate, and a job takes one role,
// so the programme is a knapsack per group of jobs: I/O-only jobs (primary or
// host) over (Pr, H), CPU-only jobs (primary or extra) over (Pr, E), the rest
// over Pr alone; each two-resource table also records whether a host (or
// extra) was chosen, since hosts need extras beside them and the reverse.
// The groups share Pr, joined by a max-plus convolution per O. Counts are in
// units of scale VMs, weights and capacities floored, which only relaxes the
// programme: Σ⌊w/s⌋ ≤ ⌊Σw/s⌋ ≤ ⌊C/s⌋.

// groupDP is one group's knapsack table: the most Σπ using at most a primary
// units and b units of the group's second resource, with f = 1 when at
// least one job took the second role (−Inf if none can). With f = 0 no job
// uses the second resource, so the value does not depend on b: it is kept
// once per a (zero), which spares add half the cells it would otherwise
// update, for the same values.
type groupDP struct {
	capA, capB int
	// Only cells with ca·a + cb·b ≤ lim are kept (cb = 0: all): the join
	// never reads the others (see knapsack), so the table is a triangle.
	ca, cb, lim int
	zero        []float64 // flag 0, by a
	one         []float64 // flag 1, by a·(capB+1) + b: the full rectangle
	// reachA and reachB are the items' total units so far in each
	// resource, capped at capA and capB. A cell beyond them holds what the
	// cell clamped to them holds (capacity the items cannot use), so only
	// cells up to them are kept: add extends them as items come, at reads
	// clamped, and the first items, which reach few cells, cost little.
	// reach records them after each traced item, for back.
	reachA, reachB int
	reach          [][2]int
	// tops[a] is top(a), computed once per reset: add reads it for every
	// row of every item, and the division cost as much as a row's update.
	tops []int
	// choice[i] records, in trace mode, item i's decision for each state:
	// at a for flag 0, at capA+1 + a·(capB+1) + b for flag 1: 0 skipped,
	// 1 primary, 2 second role from flag 0, 3 second role from flag 1.
	choice [][]int8
	items  []int
	wA, wB []int // per item: primary units (−1: no primary), second units (−1: none)
	// spare holds every choice buffer allocated so far, reused by later
	// traced programmes: a trace writes every cell it may read back.
	spare [][]int8
}

// reset empties the table for new capacities, reusing its memory.
func (g *groupDP) reset(capA, capB, ca, cb, lim int) {
	g.capA, g.capB, g.ca, g.cb, g.lim = capA, capB, ca, cb, lim
	cells := (capA + 1) * (capB + 1)
	if cap(g.zero) < capA+1 {
		g.zero = make([]float64, capA+1)
	}
	g.zero = g.zero[:capA+1]
	if cap(g.one) < cells {
		g.one = make([]float64, cells)
	}
	g.one = g.one[:cells]
	g.zero[0], g.one[0], g.reachA, g.reachB = 0, math.Inf(-1), 0, 0
	g.tops = g.tops[:0]
	for a := range capA + 1 {
		g.tops = append(g.tops, g.topOf(a))
	}
	g.choice, g.items, g.wA, g.wB, g.reach = g.choice[:0], g.items[:0], g.wA[:0], g.wB[:0], g.reach[:0]
}

// top is the last second-resource cell of row a the table keeps.
func (g *groupDP) top(a int) int { return g.tops[a] }

// topOf computes top(a).
func (g *groupDP) topOf(a int) int {
	if g.cb > 0 {
		return min(g.capB, (g.lim-g.ca*a)/g.cb)
	}
	return g.capB
}

// extend widens the kept cells to reach na and nb, each new cell a copy of
// the one it was clamped to.
func (g *groupDP) extend(na, nb int) {
	w, ra, rb := g.capB+1, g.reachA, g.reachB
	for a := ra + 1; a <= na; a++ {
		g.zero[a] = g.zero[ra]
		n := min(g.top(a), rb) + 1
		copy(g.one[a*w:a*w+n], g.one[ra*w:ra*w+n])
	}
	if nb > rb {
		for a := 0; a <= na; a++ {
			row := g.one[a*w : a*w+min(g.top(a), nb)+1]
			for b := rb + 1; b < len(row); b++ {
				row[b] = row[rb]
			}
		}
	}
	g.reachA, g.reachB = na, nb
}

// add runs one item through the table (0/1 knapsack). The table is updated
// in place, rows in descending a and cells in descending b: a cell reads
// only cells at or below it in both resources, and each is read before it
// is overwritten, so every read sees the table before this item. Rows are
// handled as slices, each by one call of a kernel (addRow, addRowTraced):
// these rows are most of column generation's time.
func (g *groupDP) add(item, wa, wb int, v float64, trace bool) {
	w := g.capB + 1
	var ch []int8
	if trace {
		ch = g.buffer(g.capA + 1 + len(g.one))
	}
	if wa > g.capA {
		wa = -1 // more units than the table holds: the item cannot take the role
	}
	if wb > g.capB {
		wb = -1
	}
	na, nb := g.reachA, g.reachB
	if wa >= 0 {
		na = min(g.capA, na+wa)
	}
	if wb >= 0 {
		nb = min(g.capB, nb+wb)
	}
	g.extend(na, nb)
	zero, one := g.zero, g.one
	for a := na; a >= 0; a-- {
		top := min(g.top(a), nb)
		z := zero[a]
		r1 := one[a*w : a*w+top+1]
		var p1 []float64 // flag 1's row wa primary units below, if any
		if wa >= 0 && a >= wa {
			p1 = one[(a-wa)*w : (a-wa)*w+top+1]
		}
		if !trace {
			addRow(z, r1, p1, wb, v)
			if p1 != nil {
				zero[a] = larger(z, zero[a-wa]+v)
			}
			continue
		}
		c1 := ch[g.capA+1+a*w : g.capA+1+a*w+top+1]
		addRowTraced(z, r1, p1, c1, wb, v)
		ch[a] = 0
		if p1 != nil {
			if t := zero[a-wa] + v; t > z {
				zero[a], ch[a] = t, 1
			}
		}
	}
	if trace {
		g.choice = append(g.choice, ch)
		g.items = append(g.items, item)
		g.wA, g.wB = append(g.wA, wa), append(g.wB, wb)
		g.reach = append(g.reach, [2]int{na, nb})
	}
}

// addRow is add's untraced update of flag 1's row r1, whose flag-0 value is
// z (both as before the item): p1 is flag 1's row the item's primary units
// below (nil: it cannot be primary there; the row itself when those units
// are 0), wb its second-resource units (−1: none). Cells go in descending
// b, each cell's sources read before it is written, as in add (the kernel
// rowMax, maxplus.go).
func addRow(z float64, r1, p1 []float64, wb int, v float64) {
	if p1 == nil {
		if wb < 0 {
			return
		}
		p1 = withoutPrimary(len(r1))
	}
	rowMax(r1, p1, wb, z, v)
}

// addRowTraced is addRow recording each cell's decision in c1 (see
// groupDP.choice); every cell of the row is written. Of equal values the
// first found is kept: primary, then the second role from flag 0, then
// from flag 1, the order groupDP.back reads them in.
func addRowTraced(z float64, r1, p1 []float64, c1 []int8, wb int, v float64) {
	if p1 == nil {
		p1 = withoutPrimary(len(r1))
	}
	rowMaxTraced(r1, p1, c1, wb, z, v)
}

// withoutPrimary is the p1 of n cells of an item that cannot be primary:
// −Inf, which changes no cell (v, a job's dual price, is finite); the
// shared noPrimary, or a row of its own past its length (beyond exact
// pricing's 101 cells by far).
func withoutPrimary(n int) []float64 {
	if n > len(noPrimary) {
		return negInf(n)
	}
	return noPrimary[:n:n] // full: no append reaches the shared row
}

// larger is max for the programme's values, which are never NaN: the
// builtin max also orders NaN and the zeros' signs, in about twice the
// instructions, and this was the innermost loop of column generation (the
// kernels' Go versions, maxplus.go, keep it).
// Adding v after the larger of two values gives the larger of the sums
// (rounding is monotone), so the table is the same bit for bit, but for
// the sign of a zero (TestAddRowEqualsMax).
func larger(a, b float64) float64 {
	if a > b {
		return a
	}
	return b
}

// buffer returns the next choice buffer of n cells, reusing spare ones.
func (g *groupDP) buffer(n int) []int8 {
	k := len(g.choice)
	if k == len(g.spare) {
		g.spare = append(g.spare, nil)
	}
	if cap(g.spare[k]) < n {
		g.spare[k] = make([]int8, n)
	}
	return g.spare[k][:n]
}

// at is the table's value at (f, a, b), which must lie in the triangle
// (ca·a + cb·b ≤ lim): cells outside it are not kept, and their memory may
// hold another programme's values.
func (g *groupDP) at(f, a, b int) float64 {
	a = min(a, g.reachA)
	if f == 0 {
		return g.zero[a]
	}
	return g.one[a*(g.capB+1)+min(b, g.reachB)]
}

// back walks the trace from state (f, a, b) and appends the chosen items and
// their roles (primary, or second).
func (g *groupDP) back(f, a, b, second int, jobs, roles []int) ([]int, []int) {
	w := g.capB + 1
	for i := len(g.items) - 1; i >= 0; i-- {
		a, b = min(a, g.reach[i][0]), min(b, g.reach[i][1])
		c := g.choice[i][a]
		if f == 1 {
			c = g.choice[i][g.capA+1+a*w+b]
		}
		switch c {
		case 1:
			jobs, roles = append(jobs, g.items[i]), append(roles, rolePrimary)
			a -= g.wA[i]
		case 2, 3:
			jobs, roles = append(jobs, g.items[i]), append(roles, second)
			b -= g.wB[i]
			f = int(c) - 2
		}
	}
	return jobs, roles
}

// knapsack is the pricing programme for phase length D (see above): the most
// Σπ over job sets that fit one phase of length ≤ D; with trace it also
// returns the set and its roles. With up, weights are rounded up instead of
// down: a restriction rather than a relaxation, whose sets always fit.
func (cg *columnGen) knapsack(D float64, s int, trace, up bool) (float64, []int, []int) {
	pr := cg.pricer(0)
	v, jobs, roles := cg.knapsackOn(pr, D, s, trace, up)
	cg.work, pr.work = cg.work+pr.work, 0
	return v, jobs, roles
}

// knapsackOn is knapsack on pr's tables, counting in pr.work each item's
// full table, (capA+1)·(capB+1) cells, whatever part of it add fills, so
// that the work clock's units, and the plans --work-limit gives, do not
// depend on how add spares cells. It reads the column generator and writes
// only pr, so goroutines with pricers of their own run it at once
// (priceAll).
func (cg *columnGen) knapsackOn(pr *pricer, D float64, s int, trace, up bool) (float64, []int, []int) {
	ps := cg.ps
	units := func(w int) int {
		if up {
			return (w + s - 1) / s
		}
		return w / s
	}
	capA := ps.n / s
	hosts, extras, plain := &pr.dp[0], &pr.dp[1], &pr.dp[2]
	// The join reads hosts at a + b ≤ ⌊k(P−O)/s⌋ + ⌊kO/s⌋ ≤ ⌊N/s⌋ and
	// extras at e·a + k·b ≤ e·k·(P−O)/s + k·e·O/s = e·k·P/s, e = ⌊k/r⌋.
	e := ps.p.Cluster.ExtrasPerHost()
	hosts.reset(capA, ps.n/s, 1, 1, ps.n/s)
	extras.reset(capA, ps.emax/s, e, ps.k, e*ps.n/s)
	plain.reset(capA, 0, 0, 0, 0)
	for j := range cg.p.Jobs {
		if cg.pi[j] <= 0 {
			continue
		}
		wa := -1
		if lo, hi := ps.span(j, rolePrimary, D); lo <= hi {
			wa = units(lo)
		}
		g, wb := plain, -1
		if ps.canHost[j] {
			g = hosts
			if lo, hi := ps.span(j, roleHost, D); lo <= hi {
				wb = units(lo)
			}
		} else if ps.canExtra[j] {
			g = extras
			if lo, hi := ps.span(j, roleExtra, D); lo <= hi {
				wb = units(lo)
			}
		}
		if wa >= 0 || wb >= 0 {
			g.add(j, wa, wb, cg.pi[j], trace)
			pr.work += int64(len(g.one))
		}
	}
	best, bo, ba, bh := cg.joinGroups(pr, hosts, extras, plain, s)
	if !trace {
		return best, nil, nil
	}
	var jobs, roles []int
	if bo == 0 {
		jobs, roles = hosts.back(0, ba[0], 0, roleHost, jobs, roles)
		jobs, roles = extras.back(0, ba[1], 0, roleExtra, jobs, roles)
	} else {
		jobs, roles = hosts.back(1, ba[0], bh[0], roleHost, jobs, roles)
		jobs, roles = extras.back(1, ba[1], bh[1], roleExtra, jobs, roles)
	}
	jobs, roles = plain.back(0, ba[2], 0, rolePrimary, jobs, roles)
	return best, jobs, roles
}

// joinGroups is the convolution over O: the best value, its O, the primary
// units of each group and the second-resource units of hosts and extras.
// It reads each O's rows of the tables into pr's scratch first (groupDP.at
// clamps every read), and plain's reversed, so that for each a1 the split
// sums over a2 are a kernel's (maxSum) over two rows read forwards; only a
// sum that beats the best is then looked for. A table's values only rise
// with its capacities, so hosts' value at a1 plus extras' and plain's at
// all the rest bounds every split with that a1, and a1 is skipped where
// the bound does not beat the best so far;
// rounding is monotone, so the bound, summed in the same order, bounds each
// split's sum as computed. A split with no set of extras sums to −Inf,
// which never beats the best. The result is the plain loop's bit for bit
// (TestPricingEqualsReference). At 50 hosts the join, O(P·N²) a duration,
// is a large part of pricing beside the tables.
func (cg *columnGen) joinGroups(pr *pricer, hosts, extras, plain *groupDP, s int) (best float64, bo int, ba [3]int, bh [2]int) {
	ps := cg.ps
	c := ps.p.Cluster
	epp := c.ExtrasPerHost()
	best = math.Inf(-1)
	pl := plain.row(0, 0, ps.n/s, &pr.rows[0])
	rev := append(pr.rows[3][:0], pl...)
	slices.Reverse(rev)
	pr.rows[3] = rev
	for o := 0; o <= c.Hosts; o++ {
		f, ch, ce := 1, ps.k*o/s, epp*o/s
		if o == 0 {
			f, ch, ce = 0, 0, 0
		}
		capA := ps.k * (c.Hosts - o) / s
		hr, er := hosts.row(f, ch, capA, &pr.rows[1]), extras.row(f, ce, capA, &pr.rows[2])
		for a1, v1 := range hr {
			rest := capA - a1
			if !(v1+er[rest]+pl[rest] > best) {
				continue
			}
			// q[a2] = pl[rest−a2]: the best split's sum is maxSum's, and
			// the first a2 that reaches it is the one the plain loop keeps.
			e, q := er[:rest+1], rev[len(rev)-1-rest:]
			m := maxSum(v1, e, q)
			if !(m > best) {
				continue
			}
			for a2, v2 := range e {
				if t := v1 + v2 + q[a2]; t == m {
					best, bo, ba, bh = t, o, [3]int{a1, a2, rest - a2}, [2]int{ch, ce}
					break
				}
			}
		}
	}
	return best, bo, ba, bh
}

// row is the table's values at (f, a, b) for a = 0..capA, into buf's
// memory: the cells groupDP.at reads, each in the triangle.
func (g *groupDP) row(f, b, capA int, buf *[]float64) []float64 {
	if cap(*buf) < capA+1 {
		*buf = make([]float64, capA+1)
	}
	r := (*buf)[:capA+1]
	for a := range r {
		r[a] = g.at(f, a, b)
	}
	return r
}
