package optimize

import "math/bits"

// Dual-optimal inequalities. Job i can take job j's place in any phase when
// the two have the same class (so the same roles and the same part in the
// overcommit constraints) and i runs no longer than j in every role at every
// VM count: swapping j for i leaves the phase feasible and no longer. Then
// some optimal dual of the covering LP has π_i ≤ π_j (Ben Amor, Desrosiers
// and Valério de Carvalho's dual-optimal inequalities, as for items of
// cutting stock that fit wherever a larger one does): in a dual solution
// with π_i > π_j, swapping the two values keeps every phase's constraint,
// since a phase S with j and not i has S − j + i beside it, a phase no
// longer, and one with both or neither sums the same. The transfer variable
// of (i, j) (coverLP.trans) is the inequality's primal side. The
// restricted master with these transfers has the same optimum over all
// columns, and its duals can no longer price a job above one that could take
// its place, which in the LP without them swings the duals from round to
// round: at 200 jobs on 50 hosts the bound after the same work rose by a
// seventh and the plan shortened by a ninth.

// maxDominanceJobs bounds the jobs dominancePairs compares: it compares
// pairs of jobs (and their runtime tables), O(M²·N), and at a few thousand
// jobs the master LP is a far larger cost than the duals' swings.
const maxDominanceJobs = 2000

// transfers is dominancePairs, computed once per solver: every run of
// column generation starts a master LP with them.
func (ps *phaseSolver) transfers() [][2]int {
	if !ps.hasTransfers {
		ps.transferPairs, ps.hasTransfers = ps.dominancePairs(), true
	}
	return ps.transferPairs
}

// dominancePairs returns the pairs (i, j), i ≠ j, where job i can take job
// j's place (see above), leaving out those two others imply (i replaces k
// and k replaces j): each pair is a column of the master LP. Of two jobs that
// can each take the other's place only the pair with the lower index first is
// kept, so that no two transfers undo each other. None past maxDominanceJobs.
func (ps *phaseSolver) dominancePairs() [][2]int {
	m := len(ps.p.Jobs)
	if m > maxDominanceJobs {
		return nil
	}
	words := (m + 63) / 64
	replaces := make([][]uint64, m) // replaces[i] has bit j: i may take j's place
	replacedBy := make([][]uint64, m)
	for i := range m {
		replaces[i], replacedBy[i] = make([]uint64, words), make([]uint64, words)
	}
	jobs := ps.p.Jobs
	for i := range m {
		for j := range m {
			if i == j || jobs[i].CPUIntensive != jobs[j].CPUIntensive || jobs[i].IOIntensive != jobs[j].IOIntensive {
				continue
			}
			if ps.noSlower(i, j) && (i < j || !ps.noSlower(j, i)) {
				replaces[i][j/64] |= 1 << (j % 64)
				replacedBy[j][i/64] |= 1 << (i % 64)
			}
		}
	}
	var out [][2]int
	for i := range m {
		for w, word := range replaces[i] {
			for word != 0 {
				j := w*64 + bits.TrailingZeros64(word)
				word &= word - 1
				if !intersect(replaces[i], replacedBy[j]) {
					out = append(out, [2]int{i, j})
				}
			}
		}
	}
	return out
}

// intersect reports whether two bit sets share a member.
func intersect(a, b []uint64) bool {
	for k := range a {
		if a[k]&b[k] != 0 {
			return true
		}
	}
	return false
}

// noSlower reports whether job i runs no longer than job j in every role at
// every VM count, and may take every role j may.
func (ps *phaseSolver) noSlower(i, j int) bool {
	for role := range 3 {
		a, b := ps.rt[i][role], ps.rt[j][role]
		if len(a) < len(b) {
			return false
		}
		for x := 1; x < len(b); x++ {
			if a[x] > b[x] {
				return false
			}
		}
	}
	return true
}
