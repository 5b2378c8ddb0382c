package traces_test

import (
	"fmt"
	"strings"

	"github.com/packer-sched/packer/sim"
	"github.com/packer-sched/packer/workloads/traces"
)

// A SWIM line has bytes only; the importer derives tasks and times with its
// stated throughput model and writes the assumptions into the metadata.
func ExampleReadSWIM() {
	trace := "job0\t10\t10\t134217728\t1073741824\t0\n" + // 128 MiB in, 1 GiB shuffled
		"job1\t70\t60\t0\t0\t0\n" // nothing read or written
	im, err := traces.ReadSWIM(strings.NewReader(trace), "day.tsv", &traces.SWIMSettings{Cluster: sim.Cluster{Nodes: 4}})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, j := range im.Workload.Jobs {
		// job0: 2 maps of 2 s + 64 MiB at 50 MB/s = 3.342 s; 1 reduce of 2 s + 1 GiB at 20 MB/s = 55.687 s.
		fmt.Printf("%s at %g s: %d maps of %.3f s, %d reduces of %.3f s\n", j.Name, j.Arrival, j.Maps.Count, j.Maps.Mean, j.Reduces.Count, j.Reduces.Mean)
	}
	fmt.Println(im.Meta.Assumptions[0])
	// Output:
	// job0 at 0 s: 2 maps of 3.342 s, 1 reduces of 55.687 s
	// job1 at 60 s: 1 maps of 2.000 s, 0 reduces of 0.000 s
	// maps = max(1, ceil(input bytes / 67108864)), one per HDFS block (of input, or of output if larger for map-only jobs)
}
