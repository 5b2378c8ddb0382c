package optimize

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/packer-sched/packer/model"
)

// WriteLP writes the phase model of the packing paper, section 5.2 (typos corrected),
// as a mixed-integer program in CPLEX LP format, which cbc, glpsol, HiGHS,
// CPLEX and Gurobi read. Its optimum is the exact solver's makespan.
//
// Variables: y_j_i_r_x = 1 when job j runs in phase i in role r (p primary,
// h host, e extra; only roles the job's class allows) on x VMs (1..N, extras
// 1..P·⌊k/r⌋); d_i ≥ 0 is phase i's duration. The VM counts are binary
// choices rather than integers because runtimes are non-linear in x: each
// choice carries its runtime F_j(x) or α·F_j(x) as a constant.
//
//	minimise    Σ_i d_i
//	subject to  Σ_{i,r,x} y_jirx = 1                        every job once
//	            d_i ≥ Σ_{r,x} t_jrx · y_jirx                 phase i lasts as long as job j in it
//	            Σ_j Σ_x x·(y_jipx + y_jihx) ≤ N              primary VMs (primary and host)
//	            r·Σ_j Σ_x x·y_jiex ≤ Σ_j Σ_x x·y_jihx        each extra VM needs r host VMs
//	            Σ_j Σ_x x·y_jiex ≤ P·⌊k/r⌋                   machines' room for extras
//
// Phases are interchangeable, which a branch-and-bound solver would explore
// M! times over; the model breaks the symmetry by naming each phase after its
// lowest-numbered job: job j may run only in phases i ≤ j, and a job j > i may
// join phase i only if job i is in phase i. Every schedule keeps exactly one
// representative, so the optimum is unchanged.
func WriteLP(w io.Writer, p *model.Problem, title string) error {
	bw := bufio.NewWriter(w)
	c := p.Cluster
	n, emax, m := c.PrimaryVMs(), c.MaxExtraVMs(), len(p.Jobs)
	type choice struct {
		name string
		role model.Role
		vms  int
		t    float64
	}
	// ch[j][i]: job j's choices in phase i (i ≤ j).
	ch := make([][][]choice, m)
	for j, job := range p.Jobs {
		ch[j] = make([][]choice, j+1)
		for i := 0; i <= j; i++ {
			add := func(role model.Role, tag string, limit int) {
				for x := 1; x <= limit; x++ {
					ch[j][i] = append(ch[j][i], choice{fmt.Sprintf("y_%d_%d_%s_%d", j, i, tag, x), role, x, p.Runtime(j, x, role)})
				}
			}
			add(model.Primary, "p", n)
			if job.CanHost() {
				add(model.Host, "h", n)
			}
			if job.CanBeExtra() && emax > 0 {
				add(model.Extra, "e", emax)
			}
		}
	}
	num := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	// expr writes terms, a few to a line: LP readers limit line length.
	expr := func(terms []string) {
		for k, t := range terms {
			if k > 0 && k%8 == 0 {
				bw.WriteString("\n   ")
			}
			if k > 0 || strings.HasPrefix(t, "-") {
				if strings.HasPrefix(t, "-") {
					bw.WriteString(" - " + t[1:])
				} else {
					bw.WriteString(" + " + t)
				}
			} else {
				bw.WriteString(" " + t)
			}
		}
	}
	fmt.Fprintf(bw, "\\ packer phase model (Aboulnaga et al., CloudDB 2009, section 5.2): %s\n", strings.ReplaceAll(title, "\n", " "))
	fmt.Fprintf(bw, "\\ %d jobs; P = %d hosts, k = %d disks, N = %d primary VMs, r = %d, alpha = %s, at most %d extra VMs\n",
		m, c.Hosts, c.DisksPerHost, n, c.ExtraRatio, num(c.Alpha), emax)
	for j, job := range p.Jobs {
		fmt.Fprintf(bw, "\\ job %d = %s (class %s): F(x) = %s * x^%s\n", j, strings.ReplaceAll(job.Name, "\n", " "), job.Class(), num(job.Model.A), num(job.Model.B))
	}
	bw.WriteString("Minimize\n obj:")
	var terms []string
	for i := range m {
		terms = append(terms, fmt.Sprintf("d_%d", i))
	}
	expr(terms)
	bw.WriteString("\nSubject To\n")
	for j := range m {
		terms = terms[:0]
		for i := range ch[j] {
			for _, v := range ch[j][i] {
				terms = append(terms, v.name)
			}
		}
		fmt.Fprintf(bw, " once_%d:", j)
		expr(terms)
		bw.WriteString(" = 1\n")
	}
	for i := range m {
		for j := i; j < m; j++ {
			terms = append(terms[:0], fmt.Sprintf("d_%d", i))
			for _, v := range ch[j][i] {
				terms = append(terms, "-"+num(v.t)+" "+v.name)
			}
			fmt.Fprintf(bw, " dur_%d_%d:", i, j)
			expr(terms)
			bw.WriteString(" >= 0\n")
		}
		var prim, ext, host []string
		for j := i; j < m; j++ {
			for _, v := range ch[j][i] {
				t := num(float64(v.vms)) + " " + v.name
				switch v.role {
				case model.Primary:
					prim = append(prim, t)
				case model.Host:
					prim = append(prim, t)
					host = append(host, "-"+t)
				case model.Extra:
					ext = append(ext, t)
				}
			}
		}
		fmt.Fprintf(bw, " vms_%d:", i)
		expr(prim)
		fmt.Fprintf(bw, " <= %d\n", n)
		if len(ext) > 0 {
			terms = terms[:0]
			for j := i; j < m; j++ {
				for _, v := range ch[j][i] {
					if v.role == model.Extra {
						terms = append(terms, num(float64(c.ExtraRatio*v.vms))+" "+v.name)
					}
				}
			}
			terms = append(terms, host...)
			fmt.Fprintf(bw, " carry_%d:", i)
			expr(terms)
			bw.WriteString(" <= 0\n")
			fmt.Fprintf(bw, " room_%d:", i)
			expr(ext)
			fmt.Fprintf(bw, " <= %d\n", emax)
		}
		// Area cuts: each job's VMs are busy for at most d_i, so the VM-seconds
		// of a phase's primary and host VMs are at most N·d_i, and its extra
		// VMs' at most P·⌊k/r⌋·d_i. Implied by the constraints above for
		// integer solutions, they cut off many fractional ones and make the
		// solver's bound far tighter (cbc: several times faster on 9 jobs).
		terms = terms[:0]
		var exArea []string
		for j := i; j < m; j++ {
			for _, v := range ch[j][i] {
				t := num(float64(v.vms)*v.t) + " " + v.name
				if v.role == model.Extra {
					exArea = append(exArea, t)
				} else {
					terms = append(terms, t)
				}
			}
		}
		terms = append(terms, fmt.Sprintf("-%d d_%d", n, i))
		fmt.Fprintf(bw, " area_%d:", i)
		expr(terms)
		bw.WriteString(" <= 0\n")
		if len(exArea) > 0 {
			exArea = append(exArea, fmt.Sprintf("-%d d_%d", emax, i))
			fmt.Fprintf(bw, " exarea_%d:", i)
			expr(exArea)
			bw.WriteString(" <= 0\n")
		}
		// Symmetry: job j joins phase i only if job i leads it.
		for j := i + 1; j < m; j++ {
			terms = terms[:0]
			for _, v := range ch[j][i] {
				terms = append(terms, v.name)
			}
			for _, v := range ch[i][i] {
				terms = append(terms, "-"+v.name)
			}
			fmt.Fprintf(bw, " lead_%d_%d:", i, j)
			expr(terms)
			bw.WriteString(" <= 0\n")
		}
	}
	bw.WriteString("Bounds\n")
	for i := range m {
		fmt.Fprintf(bw, " d_%d >= 0\n", i)
	}
	bw.WriteString("Binary\n")
	for j := range m {
		for i := range ch[j] {
			for _, v := range ch[j][i] {
				fmt.Fprintf(bw, " %s\n", v.name)
			}
		}
	}
	bw.WriteString("End\n")
	return bw.Flush()
}
