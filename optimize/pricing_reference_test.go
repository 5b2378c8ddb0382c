package optimize

import (
	"math"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/packer-sched/packer/model"
)

// refTable is the pricing programme's table for one group written plainly:
// both flags at every cell of the full rectangle, each item applied to a
// copy of the table before it, every decision recorded. It is the
// reference for groupDP, which keeps flag 0 once per primary count and
// only the cells the items reach.
type refTable struct {
	capA, capB int
	val        [2][][]float64
	choice     [][2][][]int8
	items      []int
	wA, wB     []int
}

func newRefTable(capA, capB int) *refTable {
	g := &refTable{capA: capA, capB: capB}
	for f := range 2 {
		g.val[f] = make([][]float64, capA+1)
		for a := range g.val[f] {
			g.val[f][a] = make([]float64, capB+1)
			if f == 1 {
				for b := range g.val[f][a] {
					g.val[f][a][b] = math.Inf(-1)
				}
			}
		}
	}
	return g
}

// add applies an item; of equal values the first found is kept, in the
// order primary, second role from flag 0, from flag 1 (as groupDP).
func (g *refTable) add(item, wa, wb int, v float64) {
	var old [2][][]float64
	var ch [2][][]int8
	for f := range 2 {
		old[f] = make([][]float64, g.capA+1)
		ch[f] = make([][]int8, g.capA+1)
		for a := range old[f] {
			old[f][a] = append([]float64(nil), g.val[f][a]...)
			ch[f][a] = make([]int8, g.capB+1)
		}
	}
	for a := 0; a <= g.capA; a++ {
		for b := 0; b <= g.capB; b++ {
			n0, n1 := old[0][a][b], old[1][a][b]
			if wa >= 0 && a >= wa {
				if t := old[0][a-wa][b] + v; t > n0 {
					n0, ch[0][a][b] = t, 1
				}
				if t := old[1][a-wa][b] + v; t > n1 {
					n1, ch[1][a][b] = t, 1
				}
			}
			if wb >= 0 && b >= wb {
				if t := old[0][a][b-wb] + v; t > n1 {
					n1, ch[1][a][b] = t, 2
				}
				if t := old[1][a][b-wb] + v; t > n1 {
					n1, ch[1][a][b] = t, 3
				}
			}
			g.val[0][a][b], g.val[1][a][b] = n0, n1
		}
	}
	g.choice = append(g.choice, ch)
	g.items, g.wA, g.wB = append(g.items, item), append(g.wA, wa), append(g.wB, wb)
}

func (g *refTable) back(f, a, b, second int, jobs, roles []int) ([]int, []int) {
	for i := len(g.items) - 1; i >= 0; i-- {
		switch c := g.choice[i][f][a][b]; c {
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

// refKnapsack is columnGen.knapsack (traced) on refTables: the same items,
// the same join over the counts O of overcommitted machines.
func refKnapsack(cg *columnGen, D float64, s int, up bool) (float64, []int, []int) {
	ps := cg.ps
	units := func(w int) int {
		if up {
			return (w + s - 1) / s
		}
		return w / s
	}
	capA := ps.n / s
	hosts, extras, plain := newRefTable(capA, ps.n/s), newRefTable(capA, ps.emax/s), newRefTable(capA, 0)
	for j := range cg.p.Jobs {
		if cg.pi[j] <= 0 {
			continue
		}
		wa, wb, g := -1, -1, plain
		if lo, hi := ps.span(j, rolePrimary, D); lo <= hi {
			wa = units(lo)
		}
		for _, r := range []int{roleHost, roleExtra} {
			if r == roleHost && ps.canHost[j] || r == roleExtra && !ps.canHost[j] && ps.canExtra[j] {
				g = map[int]*refTable{roleHost: hosts, roleExtra: extras}[r]
				if lo, hi := ps.span(j, r, D); lo <= hi {
					wb = units(lo)
				}
			}
		}
		if wa >= 0 || wb >= 0 {
			g.add(j, wa, wb, cg.pi[j])
		}
	}
	c := ps.p.Cluster
	best, bo, ba, bh := math.Inf(-1), 0, [3]int{}, [2]int{}
	for o := 0; o <= c.Hosts; o++ {
		f, ch, ce := 1, ps.k*o/s, c.ExtrasPerHost()*o/s
		if o == 0 {
			f, ch, ce = 0, 0, 0
		}
		top := ps.k * (c.Hosts - o) / s
		for a1 := 0; a1 <= top; a1++ {
			for a2 := 0; a1+a2 <= top; a2++ {
				v := hosts.val[f][a1][ch] + extras.val[f][a2][ce] + plain.val[0][top-a1-a2][0]
				if !math.IsInf(v, -1) && v > best {
					best, bo, ba, bh = v, o, [3]int{a1, a2, top - a1 - a2}, [2]int{ch, ce}
				}
			}
		}
	}
	f := min(bo, 1)
	jobs, roles := hosts.back(f, ba[0], bh[0], roleHost, nil, nil)
	jobs, roles = extras.back(f, ba[1], bh[1], roleExtra, jobs, roles)
	jobs, roles = plain.back(0, ba[2], 0, rolePrimary, jobs, roles)
	return best, jobs, roles
}

// TestPricingEqualsReference: the pricing programme gives the plain
// reference's value and, traced, the very same set and roles (so the same
// columns, and plans byte for byte), untraced the same value, on random
// problems on 1–3, 9, 20 and 50 hosts, in single VMs and in units of 2
// and 3 (floored, and rounded up as quick rounds do), at random duals with
// zeros, and at small whole duals, whose many ties test which set is kept,
// over the grid's durations.
func TestPricingEqualsReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(36, 52))
	checked := 0
	for i := range 48 {
		m, c := 3+rng.IntN(10), randomSmallCluster(rng)
		switch i % 4 {
		case 1:
			m, c = 40, model.PaperCluster()
		case 2:
			m, c = 30, model.Cluster{Hosts: 20}.WithDefaults()
		case 3:
			m, c = 60, model.Cluster{Hosts: 50}.WithDefaults()
		}
		p, err := model.NewProblem(RandomWorkload(uint64(5200+i), m), c)
		if err != nil {
			t.Fatal(err)
		}
		cg := newColumnGen(p, 0, 0)
		cg.pi = make([]float64, m)
		for j := range cg.pi {
			switch {
			case rng.IntN(4) == 0:
			case i%2 == 0:
				cg.pi[j] = 100 * rng.Float64()
			default: // equal sums of different sets: ties decide the set
				cg.pi[j] = float64(1 + rng.IntN(4))
			}
		}
		s, up := 1+i/16, i%8 >= 4
		for k, D := range cg.grid {
			if k%3 != i%3 {
				continue
			}
			want, wantJobs, wantRoles := refKnapsack(cg, D, s, up)
			got, jobs, roles := cg.knapsack(D, s, true, up)
			if got != want || !reflect.DeepEqual(jobs, wantJobs) || !reflect.DeepEqual(roles, wantRoles) {
				t.Fatalf("case %d (%d jobs, %d hosts, units %d, up %v), D = %v: programme %v %v %v, reference %v %v %v",
					i, m, c.Hosts, s, up, D, got, jobs, roles, want, wantJobs, wantRoles)
			}
			if u, _, _ := cg.knapsack(D, s, false, up); u != want {
				t.Fatalf("case %d, D = %v: untraced %v, reference %v", i, D, u, want)
			}
			checked++
		}
	}
	if checked < 400 {
		t.Errorf("only %d programmes checked", checked)
	}
}
