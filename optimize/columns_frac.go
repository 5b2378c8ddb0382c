package optimize

import "math"

// The fractional pricing bound. Past N = 100 primary VMs the pricing
// programme counts VMs in units of scale (columns_price.go), and floored
// weights make a job needing fewer VMs than a unit free: at 1,000 jobs on
// 200 hosts (units of 4 VMs) the floored programme valued a 1,088 s phase at
// 1.78 times its length under the area duals, where the exact one finds 0.70,
// and Farley's bound never passed the area bound. Small weights are where
// fractions lose least, so the bound also prices each duration by the
// linear relaxation of the exact programme, jobs taken fractionally and the
// number O of overcommitted hosts continuous, through its Lagrangian dual:
// for any μ = (μP, μH, μE) ≥ 0 on the primary, host and extra capacities, a
// set of jobs that fits a phase of length ≤ D has
//
//	Σπ ≤ Σ_j max(0, max_ρ(π_j − μ_ρ·w_jρ)) + max(μP·N, μH·N + μE·P·⌊k/r⌋),
//
// w_jρ being the fewest VMs with which job j meets D in role ρ (a phase's
// VMs in role ρ number at least Σ w_jρ over its jobs in ρ, and at most
// k(P−O), k·O and ⌊k/r⌋·O for some 0 ≤ O ≤ P; the last term is the most
// μ·capacity over O, linear in O, so at O = 0 or O = P). Every μ gives a
// bound; fracDual searches for a good one. At 1,000 jobs on 200 hosts under
// the area duals it came within 0.1 % of the exact programme above 250 s and
// within 3 % below, where the floored programme is close; the bound takes
// the lesser of the two.

// fracJob is one job's weights for a duration: the fewest VMs that meet it
// in each role (0: the role is not open to the job or no count meets D).
type fracJob struct {
	pi, wP, wH, wE float64
}

// fracDual prices phase length D at cg.pi by the fractional bound above and
// returns it; it adds the items it touched to cg.work.
//
// The search over μ: for a fraction t = O/P of overcommitted hosts, the
// relaxation's value V(t) is the minimum over μ of the Lagrangian with
// capacities (1−t)N, tN and t·P·⌊k/r⌋; V is concave in t with slope
// N(μH − μP) + P·⌊k/r⌋·μE at its minimiser, so t is found by bisection on
// that sign. For fixed t and μP, the host and extra jobs separate, and each
// part's best μ is a weighted quantile (fracStep); the Lagrangian's least
// value over them is convex in μP, whose minimum a golden section finds.
// Each (t, μP) the search reaches gives a μ, and the least bound over them
// is returned: the search only chooses μ, and every μ's bound is valid.
func (cg *columnGen) fracDual(D float64) float64 {
	ps := cg.ps
	jobs := cg.fracJobs[:0]
	muTop := 0.0
	for j := range cg.p.Jobs {
		if cg.pi[j] <= 0 {
			continue
		}
		f := fracJob{pi: cg.pi[j]}
		if lo, hi := ps.span(j, rolePrimary, D); lo <= hi {
			f.wP = float64(lo)
			muTop = max(muTop, f.pi/f.wP)
		}
		if lo, hi := ps.span(j, roleHost, D); ps.canHost[j] && lo <= hi {
			f.wH = float64(lo)
		}
		if lo, hi := ps.span(j, roleExtra, D); ps.canExtra[j] && lo <= hi {
			f.wE = float64(lo)
		}
		if f.wP > 0 || f.wH > 0 || f.wE > 0 {
			jobs = append(jobs, f)
		}
	}
	cg.fracJobs = jobs
	if len(jobs) == 0 {
		return 0
	}
	n, emax := float64(ps.n), float64(ps.emax)
	best := math.Inf(1)
	evals := 0
	// inner is the best (μH, μE) for t and μP, and the Lagrangian there:
	// the least over μH and μE for this μP, exactly.
	inner := func(t, muP float64) (muH, muE, v float64) {
		evals++
		muH = cg.fracStep(jobs, muP, t*n, func(f *fracJob) float64 { return f.wH })
		muE = cg.fracStep(jobs, muP, t*emax, func(f *fracJob) float64 { return f.wE })
		// fracBound with no capacities is the jobs' part alone.
		return muH, muE, fracBound(jobs, muP, muH, muE, 0, 0) + muP*(1-t)*n + (muH*n+muE*emax)*t
	}
	// mu is a point of the search: the multipliers, the Lagrangian's value
	// there (for the golden section) and V's slope in t.
	type mu struct{ p, h, e, value, slope float64 }
	// solveT minimises over μP by golden section on the values: a
	// bisection on a subgradient's sign went astray where a job's primary
	// and secondary terms tie, as they do at the optimum.
	solveT := func(t float64) mu {
		at := func(x float64) mu {
			h, e, v := inner(t, x)
			return mu{p: x, h: h, e: e, value: v}
		}
		lo, hi := 0.0, muTop
		x1, x2 := hi-golden*(hi-lo), lo+golden*(hi-lo)
		m1, m2 := at(x1), at(x2)
		for range fracSteps {
			if m1.value <= m2.value {
				hi, x2, m2 = x2, x1, m1
				x1 = hi - golden*(hi-lo)
				m1 = at(x1)
			} else {
				lo, x1, m1 = x1, x2, m2
				x2 = lo + golden*(hi-lo)
				m2 = at(x2)
			}
		}
		m := m1
		if m2.value < m1.value {
			m = m2
		}
		m.slope = n*(m.h-m.p) + emax*m.e
		best = min(best, fracBound(jobs, m.p, m.h, m.e, n, emax))
		return m
	}
	// Bisection on t keeps a μ on each side of the optimum: below it
	// (slope > 0) and above (slope ≤ 0). Their combination with slope 0
	// makes the max in the bound equal to the weighted capacities, which
	// the μ of a single t need not do when its minimiser is not unique (on
	// a dozen jobs that alone left the bound 13 % above the optimum).
	below, above := solveT(0), solveT(1)
	if below.slope > 0 && above.slope <= 0 {
		lo, hi := 0.0, 1.0
		for range fracSteps {
			t := (lo + hi) / 2
			if m := solveT(t); m.slope > 0 {
				lo, below = t, m
			} else {
				hi, above = t, m
			}
		}
		s := below.slope / (below.slope - above.slope)
		mix := func(a, b float64) float64 { return (1-s)*a + s*b }
		best = min(best, fracBound(jobs, mix(below.p, above.p), mix(below.h, above.h), mix(below.e, above.e), n, emax))
	}
	cg.work += int64(evals * len(jobs))
	return best
}

// fracSteps is how many steps each search of fracDual takes: golden
// sections over μP, bisections over t. With 16, on 150 random relaxations
// checked against gonum's simplex, the bound came within 0.08 % of the
// optimum (TestFracDualMatchesLP).
const fracSteps = 16

// golden is the golden section's inner fraction, (√5 − 1)/2.
var golden = (math.Sqrt(5) - 1) / 2

// fracBound is the Lagrangian bound of fracDual at μ.
func fracBound(jobs []fracJob, muP, muH, muE, n, emax float64) float64 {
	v := max(muP*n, muH*n+muE*emax)
	for _, f := range jobs {
		b := 0.0
		if f.wP > 0 {
			b = max(b, f.pi-muP*f.wP)
		}
		if f.wH > 0 {
			b = max(b, f.pi-muH*f.wH)
		}
		if f.wE > 0 {
			b = max(b, f.pi-muE*f.wE)
		}
		v += b
	}
	return v
}

// fracStep is the best multiplier μ ≥ 0 of one secondary capacity c, jobs'
// weights in it given by w (0: not open), with μP fixed: it minimises
// Σ_j max(a_j, π_j − μ·w_j) + μ·c, a_j = max(0, π_j − μP·wP_j) being what
// job j gets elsewhere. The sum has slope c − Σ w_j over the jobs
// whose breakpoint b_j = (π_j − a_j)/w_j lies above μ, so the minimiser is
// the largest b at which the weights of breakpoints at or above it reach c
// (0 if they never do): a weighted quantile, found by selection.
func (cg *columnGen) fracStep(jobs []fracJob, muP, c float64, w func(*fracJob) float64) float64 {
	bs, ws := cg.fracB[:0], cg.fracW[:0]
	for i := range jobs {
		f := &jobs[i]
		wj := w(f)
		if wj <= 0 {
			continue
		}
		a := 0.0
		if f.wP > 0 {
			a = max(0, f.pi-muP*f.wP)
		}
		if f.pi > a {
			bs, ws = append(bs, (f.pi-a)/wj), append(ws, wj)
		}
	}
	cg.fracB, cg.fracW = bs, ws
	return weightedQuantile(bs, ws, c)
}

// weightedQuantile is the largest b[i] such that the weights of the b at or
// above it sum to at least c (the largest b when c ≤ 0), or 0 if all of them
// sum to less; it reorders
// b and w. Quickselect with the middle element as pivot and a three-way
// partition: deterministic, linear on the breakpoints fracDual gives it
// (quadratic only on orders built against the middle pivot).
func weightedQuantile(b, w []float64, c float64) float64 {
	for len(b) > 0 {
		p := b[len(b)/2]
		// Partition into [> p | == p | < p].
		gt, lt := 0, len(b)
		for i := 0; i < lt; {
			switch {
			case b[i] > p:
				b[i], b[gt], w[i], w[gt] = b[gt], b[i], w[gt], w[i]
				gt++
				i++
			case b[i] < p:
				lt--
				b[i], b[lt], w[i], w[lt] = b[lt], b[i], w[lt], w[i]
			default:
				i++
			}
		}
		var above, equal float64
		for i := range gt {
			above += w[i]
		}
		for i := gt; i < lt; i++ {
			equal += w[i]
		}
		switch {
		case gt > 0 && above >= c:
			b, w = b[:gt], w[:gt]
		case above+equal >= c:
			return p
		default:
			c -= above + equal
			b, w = b[lt:], w[lt:]
		}
	}
	return 0
}
