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
//	            Σ_j Σ_x x·y_jihx ≤ k·Σ_j Σ_x x·y_jiex        host VMs only beside extras
//	            primary VMs only on machines without extras   (k ≠ r; see overcommit)
//
// Phases are interchangeable, which a branch-and-bound solver would explore
// M! times over; the model breaks the symmetry by naming each phase after its
// lowest-numbered job: job j may run only in phases i ≤ j, and a job j > i may
// join phase i only if job i is in phase i. Every schedule keeps exactly one
// representative, so the optimum is unchanged.
func WriteLP(w io.Writer, p *model.Problem, title string) error {
	lw := &lpWriter{bw: bufio.NewWriter(w), p: p, ch: lpChoices(p)}
	lw.header(title)
	lw.objective()
	lw.bw.WriteString("Subject To\n")
	lw.once()
	for i := range p.Jobs {
		lw.phase(i)
	}
	lw.variables()
	return lw.bw.Flush()
}

// lpChoice is one binary variable y_j_i_r_x: job j in phase i, in role r on x
// VMs, which then runs for t seconds.
type lpChoice struct {
	name string
	role model.Role
	vms  int
	t    float64
}

// lpChoices returns ch[j][i], job j's choices in phase i (i ≤ j): every VM
// count in every role the job's class allows.
func lpChoices(p *model.Problem) [][][]lpChoice {
	c := p.Cluster
	n, emax := c.PrimaryVMs(), c.MaxExtraVMs()
	ch := make([][][]lpChoice, len(p.Jobs))
	for j, job := range p.Jobs {
		ch[j] = make([][]lpChoice, j+1)
		for i := 0; i <= j; i++ {
			add := func(role model.Role, tag string, limit int) {
				for x := 1; x <= limit; x++ {
					ch[j][i] = append(ch[j][i], lpChoice{fmt.Sprintf("y_%d_%d_%s_%d", j, i, tag, x), role, x, p.Runtime(j, x, role)})
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
	return ch
}

// lpWriter writes one model's LP file, section by section.
type lpWriter struct {
	bw *bufio.Writer
	p  *model.Problem
	ch [][][]lpChoice
	// general are the integer variables o_i (overcommitted machines of
	// phase i) that overcommit declared.
	general []string
}

func lpNum(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// expr writes terms, a few to a line: LP readers limit line length.
func (lw *lpWriter) expr(terms []string) {
	for k, t := range terms {
		if k > 0 && k%8 == 0 {
			lw.bw.WriteString("\n   ")
		}
		switch {
		case strings.HasPrefix(t, "-"):
			lw.bw.WriteString(" - " + t[1:])
		case k > 0:
			lw.bw.WriteString(" + " + t)
		default:
			lw.bw.WriteString(" " + t)
		}
	}
}

// constraint writes " name: terms rhs\n", rhs being for example "<= 0".
func (lw *lpWriter) constraint(name string, terms []string, rhs string) {
	fmt.Fprintf(lw.bw, " %s:", name)
	lw.expr(terms)
	lw.bw.WriteString(" " + rhs + "\n")
}

// header writes the comments that say what the model is: the cluster and
// every job's model and class.
func (lw *lpWriter) header(title string) {
	c := lw.p.Cluster
	fmt.Fprintf(lw.bw, "\\ packer phase model (Aboulnaga et al., CloudDB 2009, section 5.2): %s\n", strings.ReplaceAll(title, "\n", " "))
	fmt.Fprintf(lw.bw, "\\ %d jobs; P = %d hosts, k = %d disks, N = %d primary VMs, r = %d, alpha = %s, at most %d extra VMs\n",
		len(lw.p.Jobs), c.Hosts, c.DisksPerHost, c.PrimaryVMs(), c.ExtraRatio, lpNum(c.Alpha), c.MaxExtraVMs())
	for j, job := range lw.p.Jobs {
		f := job.Model.String()
		if pl, ok := job.Model.(model.PowerLaw); ok {
			f = lpNum(pl.A) + " * x^" + lpNum(pl.B)
		}
		fmt.Fprintf(lw.bw, "\\ job %d = %s (class %s): F(x) = %s\n", j, strings.ReplaceAll(job.Name, "\n", " "), job.Class(), f)
	}
}

// objective writes Σ_i d_i.
func (lw *lpWriter) objective() {
	lw.bw.WriteString("Minimize\n obj:")
	var terms []string
	for i := range lw.p.Jobs {
		terms = append(terms, fmt.Sprintf("d_%d", i))
	}
	lw.expr(terms)
	lw.bw.WriteString("\n")
}

// once writes "every job runs once": Σ_{i,r,x} y_jirx = 1.
func (lw *lpWriter) once() {
	for j := range lw.p.Jobs {
		var terms []string
		for i := range lw.ch[j] {
			for _, v := range lw.ch[j][i] {
				terms = append(terms, v.name)
			}
		}
		lw.constraint(fmt.Sprintf("once_%d", j), terms, "= 1")
	}
}

// phase writes phase i's constraints: its duration, its primary VMs, the
// extras' hosts and room, the area cuts and the symmetry breaking.
func (lw *lpWriter) phase(i int) {
	m, c := len(lw.p.Jobs), lw.p.Cluster
	for j := i; j < m; j++ {
		terms := []string{fmt.Sprintf("d_%d", i)}
		for _, v := range lw.ch[j][i] {
			terms = append(terms, "-"+lpNum(v.t)+" "+v.name)
		}
		lw.constraint(fmt.Sprintf("dur_%d_%d", i, j), terms, ">= 0")
	}
	var t phaseTerms
	for j := i; j < m; j++ {
		for _, v := range lw.ch[j][i] {
			x := lpNum(float64(v.vms)) + " " + v.name
			switch v.role {
			case model.Primary:
				t.prim = append(t.prim, x)
				t.clear = append(t.clear, x)
			case model.Host:
				t.prim = append(t.prim, x)
				t.host = append(t.host, "-"+x)
				t.hostCap = append(t.hostCap, x)
			case model.Extra:
				t.ext = append(t.ext, x)
				t.exOn = append(t.exOn, "-"+x)
				t.carry = append(t.carry, lpNum(float64(c.ExtraRatio*v.vms))+" "+v.name)
				t.hostCap = append(t.hostCap, "-"+lpNum(float64(c.DisksPerHost*v.vms))+" "+v.name)
			}
		}
	}
	lw.constraint(fmt.Sprintf("vms_%d", i), t.prim, fmt.Sprintf("<= %d", c.PrimaryVMs()))
	if len(t.ext) > 0 {
		lw.constraint(fmt.Sprintf("carry_%d", i), append(t.carry, t.host...), "<= 0")
		lw.constraint(fmt.Sprintf("room_%d", i), t.ext, fmt.Sprintf("<= %d", c.MaxExtraVMs()))
		lw.overcommit(i, t)
	}
	lw.areaCuts(i)
	// Symmetry: job j joins phase i only if job i leads it.
	for j := i + 1; j < m; j++ {
		var terms []string
		for _, v := range lw.ch[j][i] {
			terms = append(terms, v.name)
		}
		for _, v := range lw.ch[i][i] {
			terms = append(terms, "-"+v.name)
		}
		lw.constraint(fmt.Sprintf("lead_%d_%d", i, j), terms, "<= 0")
	}
}

// phaseTerms are phase i's "x y_j_i_r_x" terms, gathered in one pass over its
// choices for the constraints of phase and overcommit.
type phaseTerms struct {
	prim    []string // primary and host VMs
	clear   []string // primary VMs only
	host    []string // host VMs, negated
	ext     []string // extra VMs
	exOn    []string // extra VMs, negated
	carry   []string // r·extra VMs
	hostCap []string // host VMs and −k·extra VMs, in job order
}

// overcommit writes phase i's split of the machines (model.Problem.Check):
// every machine with host VMs carries an extra, host ≤ k·extra; and with k ≠ r
// the primary VMs fit beside o_i overcommitted machines, o_i an integer with
// ⌊k/r⌋·o_i ≥ extras and k·o_i ≥ host VMs, primary + k·o_i ≤ N. With k = r
// the other constraints force host = k·extra and imply the latter.
func (lw *lpWriter) overcommit(i int, t phaseTerms) {
	c := lw.p.Cluster
	k := c.DisksPerHost
	lw.constraint(fmt.Sprintf("hostcap_%d", i), t.hostCap, "<= 0")
	if k == c.ExtraRatio {
		return
	}
	o := fmt.Sprintf("o_%d", i)
	lw.constraint(fmt.Sprintf("overx_%d", i), append([]string{fmt.Sprintf("%d %s", c.ExtrasPerHost(), o)}, t.exOn...), ">= 0")
	lw.constraint(fmt.Sprintf("overh_%d", i), append([]string{fmt.Sprintf("%d %s", k, o)}, t.host...), ">= 0")
	lw.constraint(fmt.Sprintf("clear_%d", i), append(t.clear, fmt.Sprintf("%d %s", k, o)), fmt.Sprintf("<= %d", c.PrimaryVMs()))
	lw.general = append(lw.general, o)
}

// areaCuts writes phase i's area cuts: each job's VMs are busy for at most
// d_i, so the VM-seconds of a phase's primary and host VMs are at most N·d_i,
// and its extra VMs' at most P·⌊k/r⌋·d_i. Implied by the other constraints
// for integer solutions, they cut off many fractional ones and make the
// solver's bound far tighter (cbc: several times faster on 9 jobs).
func (lw *lpWriter) areaCuts(i int) {
	c := lw.p.Cluster
	var area, exArea []string
	for j := i; j < len(lw.p.Jobs); j++ {
		for _, v := range lw.ch[j][i] {
			t := lpNum(float64(v.vms)*v.t) + " " + v.name
			if v.role == model.Extra {
				exArea = append(exArea, t)
			} else {
				area = append(area, t)
			}
		}
	}
	area = append(area, fmt.Sprintf("-%d d_%d", c.PrimaryVMs(), i))
	lw.constraint(fmt.Sprintf("area_%d", i), area, "<= 0")
	if len(exArea) > 0 {
		exArea = append(exArea, fmt.Sprintf("-%d d_%d", c.MaxExtraVMs(), i))
		lw.constraint(fmt.Sprintf("exarea_%d", i), exArea, "<= 0")
	}
}

// variables writes the bounds on the durations and declares the choices
// binary.
func (lw *lpWriter) variables() {
	lw.bw.WriteString("Bounds\n")
	for i := range lw.p.Jobs {
		fmt.Fprintf(lw.bw, " d_%d >= 0\n", i)
	}
	for _, o := range lw.general {
		fmt.Fprintf(lw.bw, " 0 <= %s <= %d\n", o, lw.p.Cluster.Hosts)
	}
	if len(lw.general) > 0 {
		lw.bw.WriteString("General\n")
		for _, o := range lw.general {
			fmt.Fprintf(lw.bw, " %s\n", o)
		}
	}
	lw.bw.WriteString("Binary\n")
	for j := range lw.ch {
		for i := range lw.ch[j] {
			for _, v := range lw.ch[j][i] {
				fmt.Fprintf(lw.bw, " %s\n", v.name)
			}
		}
	}
	lw.bw.WriteString("End\n")
}
