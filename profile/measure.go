package profile

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/packer-sched/packer/model"
)

// Run is what one execution of a command measured.
type Run struct {
	// Wall is the elapsed time on the monotonic clock.
	Wall time.Duration
	// CPU is the user plus system time of the process and every descendant
	// it waited for.
	CPU time.Duration
	// CPUOffered, when positive, is the CPU time the job could have used
	// while CPU was counted (an executor that knows it better than wall ×
	// nodes × vCPUs sets it: the libvirt one counts from each VM's first
	// disk activity, so the boot of a job that does I/O is left out, and
	// leaves out the time the host ran other work); utilisation is then CPU /
	// CPUOffered.
	CPUOffered time.Duration
	// ReadBytes and WriteBytes are the bytes the process tree made the
	// kernel read from and write to storage (page-cache hits excluded).
	ReadBytes, WriteBytes int64
	// IOSpan, when positive, is the part of Wall in which the bytes moved
	// (an executor that sees its disks' counters change sets it); the I/O
	// rate is then the bytes over IOSpan instead of over Wall, so that time
	// in which no job ran yet (a VM booting) does not dilute it.
	IOSpan time.Duration
	// ExitCode is the command's exit status, −1 when a signal ended it.
	ExitCode int
	// StderrTail is the end of what the command wrote to standard error.
	StderrTail string
}

// Executor runs a command once and measures it. It returns an error only when
// the command could not be run at all (not found, not executable); a command
// that ran and failed is a Run with a non-zero ExitCode.
type Executor interface {
	Execute(ctx context.Context, argv, env []string) (Run, error)
}

// Progress reports a profile under way, after each run.
type Progress struct {
	// Done runs of Total; the last one was at Nodes, repeat Repeat.
	Done, Total, Nodes, Repeat int
	// Elapsed since the profile started; Remaining is estimated from the
	// mean time per run so far.
	Elapsed, Remaining time.Duration
}

// MeasureSettings say which runs Measure makes and how. The zero value needs
// only Nodes.
type MeasureSettings struct {
	// Nodes are the node counts to run at: positive and distinct. Ignored
	// when Design is set.
	Nodes []int
	// Design, when set, chooses the node counts (ChooseNodes) instead of
	// Nodes: with a Budget after a first run at 1 node, whose wall time is
	// the probe's and which is kept as the first repeat's run at 1 node.
	Design *Design
	// Chose, when set, is told the node counts Design chose and why.
	Chose func(Choice)
	// Repeat is the number of runs per node count; default 1.
	Repeat int
	// VCPUsPerNode turns CPU seconds into utilisation: CPU seconds /
	// (wall × nodes × VCPUsPerNode). Default 2, the vCPUs of the packing paper's VMs.
	VCPUsPerNode int
	// Executor runs the command; default Local{}.
	Executor Executor
	// Env is the environment for the command, before PACKER_NODES is added;
	// default os.Environ().
	Env []string
	// Progress, when set, is called after every run.
	Progress func(Progress)
}

func (s *MeasureSettings) validate() (MeasureSettings, error) {
	var v MeasureSettings
	if s != nil {
		v = *s
	}
	if v.Design != nil {
		if _, err := v.Design.validate(false); err != nil {
			return v, err
		}
	} else if err := CheckNodes(v.Nodes); err != nil {
		return v, err
	}
	if v.Repeat == 0 {
		v.Repeat = 1
	}
	if v.Repeat < 1 {
		return v, fmt.Errorf("profile: Repeat must be at least 1, got %d", v.Repeat)
	}
	if v.VCPUsPerNode == 0 {
		v.VCPUsPerNode = 2
	}
	if v.VCPUsPerNode < 1 {
		return v, fmt.Errorf("profile: VCPUsPerNode must be at least 1, got %d", v.VCPUsPerNode)
	}
	if v.Executor == nil {
		v.Executor = Local{}
	}
	if v.Env == nil {
		v.Env = os.Environ()
	}
	return v, nil
}

// CheckNodes rejects an empty list of node counts, a count below one, and
// duplicates.
func CheckNodes(nodes []int) error {
	if len(nodes) == 0 {
		return errors.New("profile: no node counts given")
	}
	seen := map[int]bool{}
	for _, n := range nodes {
		if n < 1 {
			return fmt.Errorf("profile: node count %d: must be at least 1", n)
		}
		if seen[n] {
			return fmt.Errorf("profile: node count %d given twice", n)
		}
		seen[n] = true
	}
	return nil
}

// ErrInterrupted is wrapped by Measure's error when its context ended before
// every run was made; the observations made so far are returned with it.
var ErrInterrupted = errors.New("profile: interrupted")

// PlaceholderNodes in a command argument is replaced by the node count.
const PlaceholderNodes = "{nodes}"

// Measure runs argv once per node count and repeat, with every "{nodes}" in
// its arguments replaced by the node count and PACKER_NODES set in its
// environment; no shell is involved. Runs go repeat by repeat, each repeat
// over all node counts, so that a drift in the machine's load spreads over
// every node count instead of biasing b, and an interrupted profile still has
// the early repeats of every node count.
//
// With a Design, the node counts are chosen first (see MeasureSettings).
// A run that exits non-zero is an observation with Failed set and its stderr
// tail in Error. When ctx ends, the running command is killed, its run is
// dropped, and Measure returns what it has with an error wrapping
// ErrInterrupted.
func Measure(ctx context.Context, argv []string, s *MeasureSettings) ([]model.Observation, error) {
	set, err := s.validate()
	if err != nil {
		return nil, err
	}
	if len(argv) == 0 {
		return nil, errors.New("profile: no command to run")
	}
	start := time.Now()
	var obs []model.Observation
	if set.Design != nil {
		if obs, err = design(ctx, argv, &set); err != nil {
			return obs, err
		}
	}
	total := set.Repeat * len(set.Nodes)
	for rep := 1; rep <= set.Repeat; rep++ {
		for _, n := range set.Nodes {
			if rep == 1 && len(obs) > 0 && n == obs[0].Nodes {
				continue // the probe's run
			}
			o, err := runAt(ctx, argv, &set, n, rep, fmt.Sprintf("after %d of %d runs", len(obs), total))
			if err != nil {
				return obs, err
			}
			obs = append(obs, o)
			if set.Progress != nil {
				el := time.Since(start)
				done := len(obs)
				set.Progress(Progress{Done: done, Total: total, Nodes: n, Repeat: rep, Elapsed: el,
					Remaining: el / time.Duration(done) * time.Duration(total-done)})
			}
		}
	}
	return obs, nil
}

// DryRun writes to w the runs Measure would make, in its order, each with
// its arguments as the command would get them, and runs nothing. A Design
// with points alone chooses its node counts here; one with a budget needs
// its probe run first, so the candidates are listed instead.
func DryRun(w io.Writer, argv []string, s *MeasureSettings) error {
	set, err := s.validate()
	if err != nil {
		return err
	}
	if len(argv) == 0 {
		return errors.New("profile: no command to run")
	}
	fmt.Fprintln(w, "# dry run: nothing is run")
	switch d := set.Design; {
	case d != nil && d.Budget > 0:
		fmt.Fprintf(w, "# the node counts are chosen among --nodes %v after a probe run at 1 node; the runs below are for --nodes as given\n", d.Candidates)
	case d != nil:
		// --points alone needs no run to choose.
		c, err := ChooseNodes(d)
		if err != nil {
			return err
		}
		set.Nodes = c.Nodes
		if set.Chose != nil {
			set.Chose(c)
		}
	}
	total := set.Repeat * len(set.Nodes)
	k := 0
	for rep := 1; rep <= set.Repeat; rep++ {
		for _, n := range set.Nodes {
			k++
			quoted := make([]string, len(argv))
			for i, a := range argv {
				quoted[i] = strconv.Quote(strings.ReplaceAll(a, PlaceholderNodes, strconv.Itoa(n)))
			}
			fmt.Fprintf(w, "run %d of %d: %d nodes, repeat %d: PACKER_NODES=%d %s\n", k, total, n, rep, n, strings.Join(quoted, " "))
		}
	}
	return nil
}

// design sets set.Nodes to the counts set.Design chooses, first making the
// probe run at 1 node when it has a Budget; it returns the probe's
// observation.
func design(ctx context.Context, argv []string, set *MeasureSettings) ([]model.Observation, error) {
	d := *set.Design
	var obs []model.Observation
	if d.Budget > 0 {
		o, err := runAt(ctx, argv, set, 1, 1, "during the probe run at 1 node")
		if err != nil {
			return nil, err
		}
		obs = append(obs, o)
		if o.Failed {
			return obs, fmt.Errorf("profile: the probe run at 1 node failed (%s): no time to budget by", o.Error)
		}
		d.ProbeSeconds = o.Seconds
	}
	c, err := ChooseNodes(&d)
	if err != nil {
		return obs, err
	}
	set.Nodes = c.Nodes
	if set.Chose != nil {
		set.Chose(c)
	}
	return obs, nil
}

// runAt makes the run at n nodes of repeat rep; when ctx ends it returns an
// error wrapping ErrInterrupted that says where (at).
func runAt(ctx context.Context, argv []string, set *MeasureSettings, n, rep int, at string) (model.Observation, error) {
	if ctx.Err() != nil {
		return model.Observation{}, fmt.Errorf("%w %s", ErrInterrupted, at)
	}
	args := make([]string, len(argv))
	for i, a := range argv {
		args[i] = strings.ReplaceAll(a, PlaceholderNodes, strconv.Itoa(n))
	}
	env := append(slices.Clip(set.Env), "PACKER_NODES="+strconv.Itoa(n))
	r, err := set.Executor.Execute(ctx, args, env)
	if err != nil && ctx.Err() != nil {
		return model.Observation{}, fmt.Errorf("%w %s", ErrInterrupted, at)
	}
	if err != nil {
		return model.Observation{}, fmt.Errorf("profile: %s: %w", args[0], err)
	}
	if ctx.Err() != nil {
		// The command was killed: its numbers describe no complete run.
		return model.Observation{}, fmt.Errorf("%w %s; the run at %d nodes in progress was stopped and dropped", ErrInterrupted, at, n)
	}
	return observe(r, n, rep, set.VCPUsPerNode), nil
}

// observe turns a run into an observation: utilisation is CPU seconds over
// the CPU seconds the nodes offered (wall × nodes × vCPUs, or Run.CPUOffered
// when the executor measured it), the I/O rate is all bytes over wall time
// (over Run.IOSpan when the executor measured it).
func observe(r Run, nodes, repeat, vcpus int) model.Observation {
	o := model.Observation{Nodes: nodes, Repeat: repeat, Seconds: r.Wall.Seconds(),
		CPUSeconds: r.CPU.Seconds(), ReadBytes: r.ReadBytes, WriteBytes: r.WriteBytes}
	if r.ExitCode != 0 {
		o.Failed = true
		how := fmt.Sprintf("exit status %d", r.ExitCode)
		if r.ExitCode < 0 {
			how = "killed by a signal"
		}
		o.Error = how
		if t := lastLines(r.StderrTail, 5); t != "" {
			o.Error += "; stderr ends: " + t
		}
		return o
	}
	if wall := r.Wall.Seconds(); wall > 0 {
		u := r.CPU.Seconds() / (wall * float64(nodes*vcpus))
		if r.CPUOffered > 0 {
			u = r.CPU.Seconds() / r.CPUOffered.Seconds()
		}
		io := float64(r.ReadBytes+r.WriteBytes) / 1e6 / wall
		if r.IOSpan > 0 && r.IOSpan < r.Wall {
			io = float64(r.ReadBytes+r.WriteBytes) / 1e6 / r.IOSpan.Seconds()
		}
		o.CPUUtil, o.IOMBps = &u, &io
	} else {
		// A clock that did not move cannot give a rate; mark the run failed
		// rather than fit log(0).
		o.Failed, o.Error = true, "wall time of zero measured"
	}
	return o
}

// lastLines returns the last n non-empty lines of s joined by " | ", so a
// failure fits on one line of a table or an error message.
func lastLines(s string, n int) string {
	var lines []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " | ")
}

// ParseNodes reads a list of node counts such as "2,4,6,8": positive whole
// numbers, comma-separated, each once. Its errors read after the text, as in
// `--nodes 2,four: "four" is not a whole number`.
func ParseNodes(s string) ([]int, error) {
	if strings.TrimSpace(s) == "" {
		return nil, errors.New("no node counts given (want e.g. 2,4,6,8)")
	}
	var nodes []int
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		n, err := strconv.Atoi(f)
		switch {
		case err != nil:
			return nil, fmt.Errorf("%q is not a whole number", f)
		case n < 1:
			return nil, fmt.Errorf("node count %d must be at least 1", n)
		case slices.Contains(nodes, n):
			return nil, fmt.Errorf("node count %d is given twice", n)
		}
		nodes = append(nodes, n)
	}
	return nodes, CheckNodes(nodes)
}
