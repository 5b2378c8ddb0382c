package traces

import (
	"fmt"
	"math"
	"strings"

	"github.com/packer-sched/packer/sim"
)

// swimCluster is a Facebook cluster whose day SWIM samples: the cluster a
// SWIM import runs on when no node count is given.
type swimCluster struct {
	name        string  // as in the SWIM file names: "FB-2009"
	nodes       int     // machines of the real cluster
	jobsPerHour float64 // the day's jobs ÷ 24 h, for telling traces apart by content
}

// swimClusters are the SWIM project's two Facebook traces (Chen et al.,
// "The Case for Evaluating MapReduce Performance Using Workload Suites",
// MASCOTS 2011): 5,894 jobs a day on 600 machines (2009) and 24,442 on 3,000
// (2010).
var swimClusters = []swimCluster{
	{"FB-2009", 600, 5894.0 / 24},
	{"FB-2010", 3000, 24442.0 / 24},
}

// minSpanToJudge is the least span of submissions, in seconds, over which
// the job rate says which trace a file is: the rates differ fourfold and
// hold within a factor 2 over any hour of either day.
const minSpanToJudge = 600

// recogniseSWIM tells which Facebook trace a SWIM file samples: by its name
// if that holds "FB-2009" or "FB-2010", else by its rate of submissions,
// records−1 over the span of their submit times, against the two days'
// rates (the nearer on a log scale, so the cut is at about 500 jobs an hour).
// It returns the cluster and how it was recognised; ok is false when neither
// works (a span under minSpanToJudge), and FB-2009's cluster is returned.
func recogniseSWIM(name string, records int, span float64) (c swimCluster, how string, ok bool) {
	base := strings.ToUpper(baseName(name))
	for _, c := range swimClusters {
		if strings.Contains(base, c.name) {
			return c, "recognised by the file name", true
		}
	}
	if records < 2 || span < minSpanToJudge {
		return swimClusters[0], "", false
	}
	rate := float64(records-1) / span * 3600
	best := swimClusters[0]
	for _, c := range swimClusters[1:] {
		if math.Abs(math.Log(rate/c.jobsPerHour)) < math.Abs(math.Log(rate/best.jobsPerHour)) {
			best = c
		}
	}
	return best, fmt.Sprintf("recognised by its rate of %.0f jobs an hour (FB-2009 %.0f, FB-2010 %.0f)", rate,
		swimClusters[0].jobsPerHour, swimClusters[1].jobsPerHour), true
}

// deriveSWIMCluster sets the cluster of a SWIM import made without a node
// count to the recognised trace's, with racks of 20 unless racks were given,
// and returns a note saying what it chose.
func deriveSWIMCluster(given sim.Cluster, name string, records int, span float64) (sim.Cluster, string, error) {
	c, how, ok := recogniseSWIM(name, records, span)
	cl := given
	cl.Nodes = c.nodes
	setDefault(&cl.Racks, max(1, cl.Nodes/20))
	cl = cl.WithDefaults()
	if err := cl.Validate(); err != nil {
		return cl, "", fmt.Errorf("traces: swim: %s's cluster: %w", c.name, err)
	}
	note := fmt.Sprintf("swim: %s is %s, %s: %d nodes in %d racks; give --nodes and --racks to choose",
		name, c.name, how, cl.Nodes, cl.Racks)
	if !ok {
		note = fmt.Sprintf("swim: %s is not recognisably FB-2009 or FB-2010 (no name, or submissions over less than %d s): %d nodes in %d racks, FB-2009's; give --nodes and --racks to choose",
			name, minSpanToJudge, cl.Nodes, cl.Racks)
	}
	return cl, note, nil
}

// ManyTasks is the task count above which an import warns: a few million
// tasks take a simulator gigabytes and minutes.
const ManyTasks = 2_000_000

// sizeWarning warns about an import of more than ManyTasks tasks and names
// the flag that shrinks it; blockMB is the SWIM block size in MiB.
func sizeWarning(im *Imported, format string, blockMB float64) string {
	m := im.Meta
	tasks := m.Maps + m.Reduces
	if tasks <= ManyTasks {
		return ""
	}
	fix := "a window (--from, --to, --max-jobs) makes it smaller"
	if format == FormatSWIM {
		// Maps shrink about in proportion to the block size, less where
		// jobs are down to their one map.
		f := math.Exp2(math.Ceil(math.Log2(float64(m.Maps) / ManyTasks)))
		fix = fmt.Sprintf("a larger --block-size-mb (e.g. %g instead of %g) makes fewer, longer maps", blockMB*max(f, 2), blockMB)
	}
	return fmt.Sprintf("%s: %d tasks (%d maps), more than %d: simulating them takes about %d MB; %s",
		format, tasks, m.Maps, ManyTasks, sim.EstimateMemory(im.Workload)>>20, fix)
}
