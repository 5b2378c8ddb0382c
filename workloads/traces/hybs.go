package traces

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/packer-sched/packer/sim"
)

// HybSJob is one line of the HybS paper's simulator workload file:
//
//	<jobid> <number of tasks> <average time per task> <wait time> <service level value>
//
// separated by white space. The paper's simulator starts every wait time at 1
// (all jobs arrive together); the service level is the user's share in
// [0, 1].
type HybSJob struct {
	ID           string
	Tasks        int
	Mean         float64 // seconds per task
	Wait         float64 // seconds already waited
	ServiceLevel float64
}

// ParseHybSLine parses one HybS line; errors name the field and its value.
func ParseHybSLine(line string) (HybSJob, error) {
	f := strings.Fields(line)
	if len(f) != 5 {
		return HybSJob{}, fmt.Errorf("want 5 fields (jobid, tasks, mean seconds per task, wait time, service level), got %d", len(f))
	}
	j := HybSJob{ID: f[0]}
	n, err := strconv.Atoi(f[1])
	if err != nil || n < 1 || n > MaxTasks {
		return j, fmt.Errorf("field 2 (number of tasks): want an integer from 1 to %d, got %q", MaxTasks, f[1])
	}
	j.Tasks = n
	for i, p := range []struct {
		name     string
		dst      *float64
		lo, hi   float64
		positive bool
	}{
		{"average time per task", &j.Mean, 0, sim.MaxTime, true},
		{"wait time", &j.Wait, 0, sim.MaxTime, false},
		{"service level", &j.ServiceLevel, 0, 1, false},
	} {
		v, err := strconv.ParseFloat(f[i+2], 64)
		if err != nil || !(v >= p.lo && v <= p.hi) || (p.positive && v == 0) {
			kind := "between"
			if p.positive {
				kind = "above"
			}
			return j, fmt.Errorf("field %d (%s): want a number %s %g and %g, got %q", i+3, p.name, kind, p.lo, p.hi, f[i+2])
		}
		*p.dst = v
	}
	return j, nil
}

// HybSSettings tune ReadHybS. The zero value is valid.
type HybSSettings struct {
	// SkipBad skips malformed lines instead of stopping at the first.
	SkipBad bool
	// MaxJobs stops after that many jobs; 0 means all.
	MaxJobs int
	// Cluster is the simulated cluster; zero fields take the simulator's
	// defaults (18 nodes, 2 map and 1 reduce slot).
	Cluster sim.Cluster
}

// ReadHybS reads a HybS workload file (plain or gzipped; blank lines and
// lines starting with # are ignored). It returns the jobs as the file has
// them, for the HybS policies, and as a simulation workload: every job
// arrives at 0 with Tasks map tasks of Mean seconds that read no block (the
// format has no reduces, arrivals or data). Errors are *model.InputError
// naming the file and line.
func ReadHybS(r io.Reader, name string, set *HybSSettings) ([]HybSJob, *Imported, error) {
	var s HybSSettings
	if set != nil {
		s = *set
	}
	if s.MaxJobs < 0 {
		return nil, nil, fmt.Errorf("traces: hybs: MaxJobs must not be negative, got %d", s.MaxJobs)
	}
	s.Cluster = s.Cluster.WithDefaults()
	if err := s.Cluster.Validate(); err != nil {
		return nil, nil, fmt.Errorf("traces: hybs: %w", err)
	}
	in, bad, err := openTrace(r, name)
	if err != nil {
		return nil, nil, err
	}
	im := &Imported{Workload: &sim.Workload{Name: baseName(name), Cluster: s.Cluster},
		Meta: Metadata{Format: "hybs", Source: name}}
	var jobs []HybSJob
	seen := map[string]int{}
	tasks := 0
	err = eachLine(in, func(line int, text string) (bool, error) {
		text = strings.TrimSpace(text)
		if text == "" || strings.HasPrefix(text, "#") {
			return true, nil
		}
		j, err := ParseHybSLine(text)
		if err == nil && tasks+j.Tasks > sim.MaxTasks {
			err = fmt.Errorf("more than %d tasks in all", sim.MaxTasks)
		}
		if err == nil {
			if prev, dup := seen[j.ID]; dup {
				err = fmt.Errorf("job id %q already used on line %d", j.ID, prev)
			}
		}
		if err != nil {
			if s.SkipBad {
				im.Meta.SkippedBad++
				return true, nil
			}
			return false, fmt.Errorf("line %d: %w", line, err)
		}
		im.Meta.Records++
		if s.MaxJobs > 0 && len(jobs) >= s.MaxJobs {
			im.Meta.OutsideWindow++
			return false, nil
		}
		seen[j.ID] = line
		jobs = append(jobs, j)
		tasks += j.Tasks
		im.Workload.Jobs = append(im.Workload.Jobs, sim.Job{Name: j.ID, NoInput: true, Maps: sim.Tasks{Count: j.Tasks, Mean: j.Mean}})
		return true, nil
	})
	if err != nil {
		return nil, nil, bad(err)
	}
	if len(jobs) == 0 {
		return nil, nil, bad(errors.New("no jobs"))
	}
	im.Meta.count(im.Workload.Jobs)
	im.Meta.Assumptions = []string{
		"every job arrives at 0 (the HybS paper's simulator starts all wait times at 1)",
		"a job's tasks are map tasks of its average time that read no block; the format has no reduces",
		"service levels and wait times are not part of a simulation workload: the HybS policies read them from the HybS file",
		fmt.Sprintf("cluster: %d nodes, %d map slots each (not in the format)", s.Cluster.Nodes, s.Cluster.MapSlots),
	}
	if err := im.Workload.Validate(); err != nil {
		return nil, nil, bad(err)
	}
	return jobs, im, nil
}

// WriteHybS writes jobs in the HybS format, one line each, numbers in Go's
// shortest form that reads back exactly.
func WriteHybS(w io.Writer, jobs []HybSJob) error {
	bw := bufio.NewWriter(w)
	for _, j := range jobs {
		if j.ID == "" || strings.ContainsAny(j.ID, " \t\r\n") || strings.HasPrefix(j.ID, "#") {
			return fmt.Errorf("traces: hybs: job id %q is empty, has white space or starts with #", j.ID)
		}
		fmt.Fprintf(bw, "%s %d %s %s %s\n", j.ID, j.Tasks, fmtFloat(j.Mean), fmtFloat(j.Wait), fmtFloat(j.ServiceLevel))
	}
	return bw.Flush()
}

func fmtFloat(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// HybSFromSim describes a simulation workload's jobs in the HybS format: all
// of a job's tasks (maps and reduces) with their mean time, wait time 1 as
// the paper's simulator starts, and the given service level.
func HybSFromSim(w *sim.Workload, level float64) ([]HybSJob, error) {
	if !(level >= 0 && level <= 1) {
		return nil, fmt.Errorf("traces: hybs: service level must lie in [0, 1], got %v", level)
	}
	out := make([]HybSJob, 0, len(w.Jobs))
	for i, j := range w.Jobs {
		n := j.Maps.N() + j.Reduces.N()
		if n == 0 {
			return nil, fmt.Errorf("traces: hybs: jobs[%d] (%q) has no tasks", i, j.Name)
		}
		id := j.Name
		if id == "" {
			id = fmt.Sprintf("job%d", i)
		}
		out = append(out, HybSJob{ID: id, Tasks: n, Mean: (j.Maps.Total() + j.Reduces.Total()) / float64(n), Wait: 1, ServiceLevel: level})
	}
	return out, nil
}
