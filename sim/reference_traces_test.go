package sim_test

import (
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/packer-sched/packer/sim"
	"github.com/packer-sched/packer/workloads/traces"
)

// TestReferenceTraces: the shipped SWIM and Rumen traces, imported as
// packer simulate imports them, give the same per-job results on the fast
// engine and the reference one under every built-in policy. The SWIM days
// are cut to their first jobs and put on a cluster small enough to queue
// them, where the policies differ.
func TestReferenceTraces(t *testing.T) {
	t.Parallel()
	dir := filepath.Join("..", "workloads", "traces", "testdata")
	top, err := traces.ReadTopologyFile(filepath.Join(dir, "rumen-19-jobs.topology.json.gz"))
	if err != nil {
		t.Fatal(err)
	}
	swim := func(set *traces.SWIMSettings) func(io.Reader, string) (*traces.Imported, error) {
		return func(r io.Reader, name string) (*traces.Imported, error) { return traces.ReadSWIM(r, name, set) }
	}
	rumen := func(set *traces.RumenSettings) func(io.Reader, string) (*traces.Imported, error) {
		return func(r io.Reader, name string) (*traces.Imported, error) { return traces.ReadRumen(r, name, set) }
	}
	// Heartbeats, on the traces where they cost few events (a long trace
	// on many nodes is mostly heartbeats, and the reference engine is slow).
	cases := []struct {
		file       string
		read       func(io.Reader, string) (*traces.Imported, error)
		heartbeats bool
	}{
		{"swim-FB-2009_samples_24_times_1hr_0.tsv", swim(&traces.SWIMSettings{Window: traces.Window{MaxJobs: 60}, Cluster: sim.Cluster{Nodes: 40, Racks: 4}}), true},
		{"swim-FB-2010_samples_24_times_1hr_0.tsv", swim(&traces.SWIMSettings{Window: traces.Window{MaxJobs: 30}, Cluster: sim.Cluster{Nodes: 60, Racks: 3}}), false},
		{"rumen-19-jobs.trace.json.gz", rumen(&traces.RumenSettings{Topology: top}), false},
		{"rumen-goldFoldedTrace.json.gz", rumen(&traces.RumenSettings{}), true},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			f, err := os.Open(filepath.Join(dir, c.file))
			if err != nil {
				t.Fatal(err)
			}
			var r io.Reader = f
			if strings.HasSuffix(c.file, ".gz") {
				if r, err = gzip.NewReader(f); err != nil {
					t.Fatal(err)
				}
			}
			im, err := c.read(r, c.file)
			f.Close()
			if err != nil {
				t.Fatalf("%s: %v", c.file, err)
			}
			if len(im.Workload.Jobs) < 10 {
				t.Fatalf("%s: only %d jobs imported", c.file, len(im.Workload.Jobs))
			}
			sim.CompareEngines(t, c.file, im.Workload, &sim.Settings{Seed: 1})
			if c.heartbeats {
				sim.CompareEngines(t, c.file+" with heartbeats", im.Workload, &sim.Settings{Seed: 2, Heartbeat: 3})
			}
		})
	}
}

// TestExamplePolicyOnBothEngines: the policy written outside the package
// (ExamplePolicy) runs on the reference engine too, with the same results,
// on its own example and on the start of a real trace.
func TestExamplePolicyOnBothEngines(t *testing.T) {
	t.Parallel()
	p, err := sim.ParsePolicy("srjf", nil)
	if err != nil {
		t.Fatal(err)
	}
	w := &sim.Workload{Cluster: sim.Cluster{Nodes: 1, MapSlots: 2}, Jobs: []sim.Job{
		{Name: "A", Maps: sim.Tasks{Durations: []float64{10, 6, 6, 6}}},
		{Name: "B", Arrival: 1, Maps: sim.Tasks{Count: 2, Mean: 5}},
		{Name: "C", Arrival: 3, Maps: sim.Tasks{Count: 1, Mean: 2}},
	}}
	sim.CompareEnginesFor(t, "the example", w, &sim.Settings{IgnoreLocality: true}, p)
	f, err := os.Open(filepath.Join("..", "workloads", "traces", "testdata", "swim-FB-2009_samples_24_times_1hr_0.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	im, err := traces.ReadSWIM(f, "FB-2009", &traces.SWIMSettings{Window: traces.Window{MaxJobs: 100}, Cluster: sim.Cluster{Nodes: 30, Racks: 3}})
	if err != nil {
		t.Fatal(err)
	}
	sim.CompareEnginesFor(t, "FB-2009", im.Workload, &sim.Settings{Seed: 5}, p)
}
