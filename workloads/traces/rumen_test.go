package traces

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"

	"github.com/packer-sched/packer/internal/goldenfile"
	"github.com/packer-sched/packer/model"
	"github.com/packer-sched/packer/model/modeltest"
	"github.com/packer-sched/packer/sim"
)

const (
	rumen19Path   = "testdata/rumen-19-jobs.trace.json.gz"
	rumenTopoPath = "testdata/rumen-19-jobs.topology.json.gz"
	foldedPath    = "testdata/rumen-goldFoldedTrace.json.gz"
)

func readTopologyFile(t testing.TB) *Topology {
	t.Helper()
	f, err := os.Open(rumenTopoPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	top, err := ReadTopology(f, rumenTopoPath)
	if err != nil {
		t.Fatal(err)
	}
	return top
}

// rawCounts decodes a trace generically (no importer code) and counts jobs,
// and the maps and reduces the jobs declare (totalMaps, totalReduces), of
// all jobs and of the successful ones.
func rawCounts(t *testing.T, path string) (all, ok [3]int) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(z)
	for {
		var job map[string]any
		if err := dec.Decode(&job); errors.Is(err, io.EOF) {
			return all, ok
		} else if err != nil {
			t.Fatal(err)
		}
		c := [3]int{1, int(job["totalMaps"].(float64)), int(job["totalReduces"].(float64))}
		for i := range c {
			all[i] += c[i]
			if job["outcome"] == "SUCCESS" {
				ok[i] += c[i]
			}
		}
	}
}

func TestRumenShippedTraces(t *testing.T) {
	top := readTopologyFile(t)
	if top.Hosts() != 1545 || len(top.Racks) != 41 {
		t.Fatalf("topology: %d hosts in %d racks, want 1545 in 41", top.Hosts(), len(top.Racks))
	}
	all, ok := rawCounts(t, rumen19Path)
	// The data README: 19 jobs, 5 failed.
	if all[0] != 19 || ok[0] != 14 {
		t.Fatalf("raw trace: %d jobs, %d successful", all[0], ok[0])
	}
	im := readTraceFile(t, ReadRumen, rumen19Path, &RumenSettings{Topology: top})
	got := [3]int{im.Meta.Jobs, im.Meta.Maps, im.Meta.Reduces}
	if got != ok || im.Meta.DroppedFailed != 5 || im.Meta.Records != 19 {
		t.Errorf("19-job trace: imported %v (jobs, maps, reduces), %d failed dropped; the successful jobs declare %v", got, im.Meta.DroppedFailed, ok)
	}
	if im.Workload.Cluster.Nodes != 1545 || im.Workload.Cluster.Racks != 41 {
		t.Errorf("cluster %+v, want the topology's 1545 hosts in 41 racks", im.Workload.Cluster)
	}
	// Kept, the failed jobs bring the tasks that ran at all: fewer than
	// they declare (some never started), more than the successful jobs'.
	kept := readTraceFile(t, ReadRumen, rumen19Path, &RumenSettings{Topology: top, KeepFailed: true})
	if kept.Meta.Jobs != 19 || kept.Meta.DroppedFailed != 0 || kept.Meta.Maps+kept.Meta.Reduces > all[1]+all[2] || kept.Meta.Maps <= ok[1] {
		t.Errorf("kept failed: %+v; declared %v", kept.Meta, all)
	}

	all, ok = rawCounts(t, foldedPath)
	im = readTraceFile(t, ReadRumen, foldedPath, nil)
	got = [3]int{im.Meta.Jobs, im.Meta.Maps, im.Meta.Reduces}
	if got != all || all != ok || all[0] != 89 {
		t.Errorf("folded trace: imported %v, the trace declares %v", got, all)
	}
	// It repeats job IDs; the repeats are renamed, so names stay unique.
	names := map[string]bool{}
	for _, j := range im.Workload.Jobs {
		if names[j.Name] {
			t.Fatalf("job name %s twice", j.Name)
		}
		names[j.Name] = true
	}
	if !names["job_200910281128_10051#2"] {
		t.Error("the second job_200910281128_10051 was not renamed #2")
	}
}

// TestRumenPinnedJob checks job 3 of the 19-job trace against its raw record.
func TestRumenPinnedJob(t *testing.T) {
	im := readTraceFile(t, ReadRumen, rumen19Path, &RumenSettings{Topology: readTopologyFile(t)})
	var j sim.Job
	var real RealJob
	for i := range im.Workload.Jobs {
		if im.Workload.Jobs[i].Name == "job_200904211745_0003" {
			j, real = im.Workload.Jobs[i], im.Real[i]
		}
	}
	// Submitted at 1240336843916 ms, the first record (job 2) at
	// 1240335962848: arrival 881.068 s. User geek2, priority NORMAL = 0.
	if !scalar.EqualWithinAbs(j.Arrival, 881.068, 1e-9) || j.User != "geek2" || j.Priority != 0 {
		t.Errorf("arrival %v user %q priority %d", j.Arrival, j.User, j.Priority)
	}
	// Three maps, each run off-rack from its replicas (e.g. on rack
	// 194.6.128.192 for replicas on 194.6.129.64 and 194.6.130.64): their
	// times 6747, 14891 and 4885 ms are divided by RemoteFactor 2.
	want := []float64{3.3735, 7.4455, 2.4425}
	if !slices.EqualFunc(j.Maps.Durations, want, func(a, b float64) bool { return scalar.EqualWithinAbs(a, b, 1e-9) }) {
		t.Errorf("map durations %v, want %v", j.Maps.Durations, want)
	}
	// The reduce started at …879990, after the last map ended at …878419,
	// and finished at …912326: 32.336 s.
	if len(j.Reduces.Durations) != 1 || !scalar.EqualWithinAbs(j.Reduces.Durations[0], 32.336, 1e-9) {
		t.Errorf("reduce durations %v, want [32.336]", j.Reduces.Durations)
	}
	// The first map's replicas are on node1823, node1800 and node1979.
	var hosts []string
	for _, n := range j.Blocks[0] {
		hosts = append(hosts, im.Hosts[n])
	}
	if want := []string{"node1823.megatron.com", "node1800.megatron.com", "node1979.megatron.com"}; !slices.Equal(hosts, want) {
		t.Errorf("first map's replicas on %v, want %v", hosts, want)
	}
	// Real: submitted 881.068 s, finished at 1240336944238 ms: 100.322 s later.
	if !scalar.EqualWithinAbs(real.Response(), 100.322, 1e-9) || real.Outcome != "SUCCESS" || real.CPUSeconds != -1 {
		t.Errorf("real %+v", real)
	}
}

// TestTopologyLayout: every host gets its own node, and exactly the hosts
// that overflow their equal-sized simulated rack are displaced.
func TestTopologyLayout(t *testing.T) {
	top := readTopologyFile(t)
	l := top.layout()
	n, r := top.Hosts(), len(top.Racks)
	capacity := make([]int, r)
	for i := range n {
		capacity[i*r/n]++ // the simulator's rack of node i
	}
	over, used := 0, make([]bool, n)
	for k, rack := range top.Racks {
		over += max(0, len(rack.Hosts)-capacity[k])
		for _, h := range rack.Hosts {
			node, ok := l.Node[h]
			if !ok || used[node] {
				t.Fatalf("host %s: node %d, ok %v, used before %v", h, node, ok, ok && used[node])
			}
			used[node] = true
		}
	}
	if l.Displaced != over || over == 0 {
		t.Errorf("displaced %d, want %d", l.Displaced, over)
	}
	// A host that stays is in its own simulated rack.
	stay := 0
	for k, rack := range top.Racks {
		for _, h := range rack.Hosts {
			if l.Node[h]*r/n == k {
				stay++
			}
		}
	}
	if stay != n-over {
		t.Errorf("%d hosts in their own rack, want %d", stay, n-over)
	}
}

func TestRumenWindow(t *testing.T) {
	top := readTopologyFile(t)
	im := readTraceFile(t, ReadRumen, rumen19Path, &RumenSettings{Topology: top, Window: Window{MaxJobs: 3}})
	if len(im.Workload.Jobs) != 3 || im.Workload.Jobs[2].Name != "job_200904211745_0004" {
		t.Errorf("MaxJobs 3: %d jobs, last %s", len(im.Workload.Jobs), im.Workload.Jobs[len(im.Workload.Jobs)-1].Name)
	}
	// Jobs 3 (881.068 s) to 5 (930.953 s) submitted in [800, 1000): jobs 3, 4
	// and 5; arrivals from 0 at job 3.
	im = readTraceFile(t, ReadRumen, rumen19Path, &RumenSettings{Topology: top, Window: Window{From: 800, To: 1000}})
	var names []string
	for _, j := range im.Workload.Jobs {
		names = append(names, strings.TrimPrefix(j.Name, "job_200904211745_"))
	}
	if !slices.Equal(names, []string{"0003", "0004", "0005"}) || im.Workload.Jobs[0].Arrival != 0 ||
		!scalar.EqualWithinAbs(im.Workload.Jobs[1].Arrival, (1240336853354-1240336843916)/1000.0, 1e-9) {
		t.Errorf("window [800, 1000): jobs %v, arrivals %v, %v", names, im.Workload.Jobs[0].Arrival, im.Workload.Jobs[1].Arrival)
	}
}

const goodRecord = `{"jobID":"job_1","user":"u","submitTime":1000,"launchTime":1000,"finishTime":9000,"outcome":"SUCCESS",` +
	`"mapTasks":[{"attempts":[{"hostName":"/r1/h1","result":"SUCCESS","startTime":2000,"finishTime":4000}],` +
	`"preferredLocations":[{"layers":["r1","h1"]},{"layers":["r2","h2"]}]}],"reduceTasks":[]}`

func TestRumenBadInput(t *testing.T) {
	rec := func(id string) string { return strings.Replace(goodRecord, "job_1", id, 1) }
	for _, c := range []struct {
		name, in, want string
	}{
		{"malformed middle", rec("a") + "\n" + `{"jobID":"b",, "submitTime":1}` + "\n" + rec("c") + "\n",
			"t.json: job record at line 2 (byte 289): malformed JSON at byte 302: invalid character ',' looking for beginning of object key string"},
		{"wrong type", rec("a") + "\n" + `{"jobID":"b","submitTime":"soon"}`,
			"t.json: job record at line 2 (byte 289): field submitTime near byte 321: want int64, got JSON string"},
		{"no submit", `{"jobID":"b"}`, "t.json: job record at line 1 (byte 0): job b: submitTime must be positive epoch milliseconds, got nothing"},
		{"no id", `  {"submitTime":5}`, "t.json: job record at line 1 (byte 2): jobID missing"},
		{"no finish", `{"jobID":"b","submitTime":5000,"launchTime":6000}`, "t.json: job record at line 1 (byte 0): job b: finishTime must be epoch milliseconds at or after its submission and launch, got 0"},
		{"launch before submit", `{"jobID":"b","submitTime":5000,"launchTime":4000,"finishTime":9000}`, "t.json: job record at line 1 (byte 0): job b: launchTime 4000 is before submitTime 5000"},
		{"not an object", rec("a") + "\n[1]\n", `t.json: job record at line 2 (byte 289): want a JSON object, found '['`},
		{"unfinished", `{"jobID":"b","mapTasks":[` + "\n" + rec("c"), "t.json: job record at line 1 (byte 0): record unfinished (2 open brackets) when the next one starts on line 2"},
		{"cut", rec("a") + rec("b")[:50], "t.json: job record at line 1 (byte 288): the stream ends inside this record (50 bytes in): truncated"},
		{"empty", "\n", "t.json: no jobs to import (0 records, 0 outside the window, 0 failed dropped, 0 malformed skipped)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := ReadRumen(strings.NewReader(c.in), "t.json", nil)
			var ie *model.InputError
			if err == nil || err.Error() != c.want || !errors.As(err, &ie) {
				t.Fatalf("got  %v\nwant %s", err, c.want)
			}
		})
	}
	// SkipBad: the bad records between good ones are counted, the rest read.
	in := rec("a") + "\n" + `{"jobID":"b",, "submitTime":1}` + "\n" + `{"jobID":"c","mapTasks":[` + "\n" + rec("d") + "\n[7]\n" + rec("e")
	im, err := ReadRumen(strings.NewReader(in), "t.json", &RumenSettings{SkipBad: true})
	if err != nil {
		t.Fatal(err)
	}
	if im.Meta.SkippedBad != 3 || len(im.Workload.Jobs) != 3 || im.Workload.Jobs[1].Name != "d" {
		t.Errorf("skip-bad: %d skipped, jobs %v", im.Meta.SkippedBad, im.Workload.Jobs)
	}
	// The good record (288 bytes, so the malformed one starts at byte 289 and
	// its second comma is byte 289 + 13 = 302 in the tests above): one map of 2 s run on h1, where a replica is, so
	// node-local: its base time stays 2 s; its replicas are h1 and h2.
	j := im.Workload.Jobs[0]
	if j.Maps.Durations[0] != 2 || len(j.Blocks[0]) != 2 || im.Hosts[j.Blocks[0][0]] != "h1" || im.Hosts[j.Blocks[0][1]] != "h2" {
		t.Errorf("job a: %+v, hosts %v", j, im.Hosts)
	}
}

func TestRumenTruncatedGzip(t *testing.T) {
	raw, err := os.ReadFile(rumen19Path)
	if err != nil {
		t.Fatal(err)
	}
	for _, skip := range []bool{false, true} {
		_, err := ReadRumen(bytes.NewReader(raw[:len(raw)/2]), "cut.json.gz", &RumenSettings{SkipBad: skip})
		if err == nil || !strings.HasPrefix(err.Error(), "cut.json.gz: job record at line ") || !strings.HasSuffix(err.Error(), "truncated input (gzip stream ends early): unexpected EOF") {
			t.Errorf("skip %v: %v", skip, err)
		}
	}
}

// TestRumenDeterministic imports again and concurrently, sharing one
// topology: the same bytes every time.
func TestRumenDeterministic(t *testing.T) {
	top := readTopologyFile(t)
	a, _ := readTraceFile(t, ReadRumen, rumen19Path, &RumenSettings{Topology: top}).MarshalIndent()
	docs := make([][]byte, 3)
	var wg sync.WaitGroup
	for i := range docs {
		wg.Add(1)
		go func() { // no t.Fatal off the test's goroutine: an error leaves docs[i] nil
			defer wg.Done()
			f, err := os.Open(rumen19Path)
			if err != nil {
				return
			}
			defer f.Close()
			if im, err := ReadRumen(f, rumen19Path, &RumenSettings{Topology: top}); err == nil {
				docs[i], _ = im.MarshalIndent()
			}
		}()
	}
	wg.Wait()
	for i, b := range docs {
		if !bytes.Equal(a, b) {
			t.Errorf("import %d differs from the first", i+1)
		}
	}
	if _, err := sim.ParseWorkload(a, "w.json"); err != nil {
		t.Error(err)
	}
}

// TestRumenReplayFIFO is the validation run of the README: the 14
// successful jobs of the 19-job trace replayed under FIFO on their own
// topology, simulated against real response times. The table is a golden
// file (go test -run RumenReplay -update rewrites it). The invariant checked
// on every job: the simulation cannot beat the job's critical path, its
// longest map and longest reduce at their base times.
func TestRumenReplayFIFO(t *testing.T) {
	im := readTraceFile(t, ReadRumen, rumen19Path, &RumenSettings{Topology: readTopologyFile(t)})
	res, err := sim.Run(im.Workload, &sim.FIFO{}, &sim.Settings{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	table, med, worst := ReplayTable(im, res)
	for i, j := range im.Workload.Jobs {
		path := slices.Max(append([]float64{0}, j.Maps.Durations...)) + slices.Max(append([]float64{0}, j.Reduces.Durations...))
		if res.Jobs[i].Response < path-1e-9 {
			t.Errorf("%s: simulated %v s, shorter than its critical path %v s", j.Name, res.Jobs[i].Response, path)
		}
	}
	got := fmt.Sprintf("%s\nmedian |relative error| %.3f, worst %.3f\n", table, med, worst)
	goldenfile.Check(t, "rumen-19-fifo.golden", got)
}

func FuzzReadRumen(f *testing.F) {
	f.Add(goodRecord, false, false)
	f.Add(goodRecord+goodRecord, true, true)
	f.Add(`{"jobID":"a","submitTime":5,"mapTasks":[{"attempts":[{"hostName":"h","startTime":1,"finishTime":1}]}]}`, false, true)
	f.Add(`{"jobID":"a","submitTime":5,"reduceTasks":[{"attempts":[{"hostName":"/r/h","result":"SUCCESS","startTime":9,"finishTime":3,"shuffleFinished":5}]}]} ]{`, true, false)
	f.Fuzz(func(t *testing.T, in string, skip, keep bool) {
		im, err := ReadRumen(strings.NewReader(in), "t.json", &RumenSettings{SkipBad: skip, KeepFailed: keep})
		if err != nil {
			modeltest.NamesFile(t, err, "t.json")
			return
		}
		if len(im.Real) != len(im.Workload.Jobs) || len(im.Hosts) != im.Workload.Cluster.Nodes {
			t.Fatalf("%d real jobs for %d jobs, %d hosts for %d nodes", len(im.Real), len(im.Workload.Jobs), len(im.Hosts), im.Workload.Cluster.Nodes)
		}
		doc, err := im.MarshalIndent()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := sim.ParseWorkload(doc, "w.json"); err != nil {
			t.Fatalf("imported workload does not read back: %v", err)
		}
	})
}

func FuzzReadTopology(f *testing.F) {
	f.Add(`{"name":"<root>","children":[{"name":"r\\.1","children":[{"name":"h\\.1","children":null}]}]}`)
	f.Add(`{"name":"<root>","children":[{"name":"h","children":null}]}`)
	f.Add(`{"name":"x","children":[{"name":"r","children":[{"name":"h"},{"name":"h"}]}]}`)
	f.Fuzz(func(t *testing.T, in string) {
		top, err := ReadTopology(strings.NewReader(in), "t.json")
		if err != nil {
			var ie *model.InputError
			if !errors.As(err, &ie) {
				t.Fatalf("error without the file: %v", err)
			}
			return
		}
		l := top.layout()
		seen := map[int]bool{}
		for _, n := range l.Node {
			if n < 0 || n >= top.Hosts() || seen[n] {
				t.Fatalf("node %d given twice or out of range", n)
			}
			seen[n] = true
		}
		if len(seen) != top.Hosts() || math.Abs(float64(l.Cluster.Nodes-top.Hosts())) > 0 {
			t.Fatalf("%d nodes for %d hosts", len(seen), top.Hosts())
		}
	})
}
